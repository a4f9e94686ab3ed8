/* source_async.c - a thread file decoded on a second core.
 *
 * Decoding (lz4, varints, clock, which load a function belonged to) is
 * over half of a view's work per event; the rest is the view's. With a
 * stream opened async, a thread of its own decodes into a ring of batches
 * and src_next hands them out, so on a machine with a core to spare the two
 * halves overlap. The hand-over is a lock per batch of BATCH events, and the
 * memory is NBATCH batches whatever the trace's length. On a busy machine
 * it costs nothing but the thread: the two halves then just take turns.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_priv.h"

#define BATCH 4096
#define NBATCH 4

struct batch {
	struct src_event ev[BATCH];
	uint64_t regs[BATCH][8];   /* ev[i].regs points here when it has registers, */
	uint64_t fregs[BATCH][8];  /* ev[i].fregs here, */
	uint8_t *stacks;           /* and ev[i].stack into this (stacks_cap bytes) */
	size_t stacks_cap;
	size_t n;
	int end;                   /* after these: 0 the stream ended, < 0 its error, 1 more */
};

struct src_async {
	struct src_stream *s;      /* decoded by the thread with src_fill */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch *b;           /* NBATCH */
	size_t full;               /* batches filled and not yet handed out */
	size_t head, tail;         /* next to hand out, next to fill */
	bool stop;                 /* the reader closed the stream */
	struct batch *cur;         /* the batch being handed out */
	bool done;
};

/* ev's stack window copied to b's pool at *used: ev->stack holds its
 * offset + 1 until the batch is full. False if memory ran out. */
static bool keep_stack(struct batch *b, size_t *used, struct src_event *ev)
{
	if (!ev->stack_size) {
		ev->stack = NULL;
		return true;
	}
	if (*used + ev->stack_size > b->stacks_cap) {
		size_t cap = b->stacks_cap ? 2 * b->stacks_cap : 64 * 1024;
		uint8_t *p;

		while (cap < *used + ev->stack_size)
			cap *= 2;
		if (!(p = realloc(b->stacks, cap)))
			return false;
		b->stacks = p;
		b->stacks_cap = cap;
	}
	memcpy(b->stacks + *used, ev->stack, ev->stack_size);
	ev->stack = (const uint8_t *)(uintptr_t)(*used + 1);
	*used += ev->stack_size;
	return true;
}

static void *decode(void *arg)
{
	struct src_async *a = arg;
	size_t used;
	bool with_regs;
	int r = 1;

	while (r > 0) {
		struct batch *b;

		pthread_mutex_lock(&a->lock);
		while (a->full == NBATCH && !a->stop)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->stop) {
			pthread_mutex_unlock(&a->lock);
			break;
		}
		b = &a->b[a->tail];
		pthread_mutex_unlock(&a->lock);
		for (b->n = 0, used = 0; b->n < BATCH &&
		     (r = src_fill(a->s, &b->ev[b->n], &b->regs[b->n], &b->fregs[b->n], BATCH - b->n,
				       &with_regs)) > 0;) {
			/* The registers are in the batch already; the stack
			 * windows are the frame's until the next src_fill (an
			 * event without registers has none). */
			size_t k = b->n, end = b->n + (size_t)r;

			for (b->n = end; with_regs && k < end; k++) {
				struct src_event *ev = &b->ev[k];

				if (!ev->regs) /* no record: nothing of the frame's */
					continue;
				ev->detail = NULL; /* not kept: gone with the next frame */
				if (ev->stack && !keep_stack(b, &used, ev)) {
					fprintf(stderr, "ada-symbolize: out of memory\n");
					r = -ENOMEM;
					break;
				}
			}
			if (r < 0)
				break;
		}
		/* The windows' bytes are in place now (the pool may have moved
		 * while it grew): each event's offset becomes its pointer (a
		 * batch without any, most of them, not read again). */
		for (size_t i = 0; used && i < b->n; i++)
			if (b->ev[i].stack)
				b->ev[i].stack = b->stacks + (uintptr_t)b->ev[i].stack - 1;
		b->end = r;
		pthread_mutex_lock(&a->lock);
		a->tail = (a->tail + 1) % NBATCH;
		a->full++;
		pthread_cond_broadcast(&a->cond);
		pthread_mutex_unlock(&a->lock);
	}
	return NULL;
}

struct src_async *src_async_start(struct src_stream *s)
{
	struct src_async *a = calloc(1, sizeof(*a));

	if (!a || !(a->b = calloc(NBATCH, sizeof(*a->b)))) {
		free(a);
		return NULL;
	}
	a->s = s;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	if (pthread_create(&a->thread, NULL, decode, a)) {
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->cond);
		free(a->b);
		free(a);
		return NULL; /* the caller decodes in its own thread */
	}
	return a;
}

int src_async_batch(struct src_async *a, const struct src_event **first, size_t *n)
{
	int end;

	for (;;) {
		if (a->cur) { /* hand the batch back */
			end = a->cur->end;
			pthread_mutex_lock(&a->lock);
			a->head = (a->head + 1) % NBATCH;
			a->full--;
			a->cur = NULL;
			pthread_cond_broadcast(&a->cond);
			pthread_mutex_unlock(&a->lock);
			if (end <= 0) {
				a->done = true;
				return end;
			}
		}
		if (a->done)
			return 0;
		pthread_mutex_lock(&a->lock);
		while (!a->full)
			pthread_cond_wait(&a->cond, &a->lock);
		a->cur = &a->b[a->head];
		pthread_mutex_unlock(&a->lock);
		if (a->cur->n) {
			*first = a->cur->ev; /* handed back at the next call */
			*n = a->cur->n;
			return 1;
		}
	}
}

void src_async_stop(struct src_async *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
	for (size_t i = 0; i < NBATCH; i++)
		free(a->b[i].stacks);
	free(a->b);
	free(a);
}
