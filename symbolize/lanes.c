/* lanes.c - a process's ALLOC events gathered across threads (lanes.h). */
#include "lanes.h"

#include <errno.h>
#include <stdlib.h>

#include "raw_format.h"

int lane_blocks_add(struct lane_blocks *b, const struct walk_event *ev, uint32_t tag)
{
	struct lane_block *x;

	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		struct lane_block *g = realloc(b->ev, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		b->ev = g;
		b->cap = cap;
	}
	x = &b->ev[b->n++];
	*x = (struct lane_block){ .ns = ev->start_ns, .ptr = ev->alloc_ptr, .size = ev->alloc_size,
				  .freed = ev->alloc_freed, .tag = tag };
	b->pending = x->freed ? 0 : b->n;
	return 0;
}

static int by_ptr_time(const void *x, const void *y)
{
	const struct lane_block *a = x, *b = y;

	if (a->ptr != b->ptr)
		return a->ptr < b->ptr ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns < b->ns ? -1 : 1;
	return (int)b->freed - (int)a->freed;
}

void lane_blocks_by_ptr(struct lane_blocks *b)
{
	if (b->n) /* ev may be NULL */
		qsort(b->ev, b->n, sizeof(*b->ev), by_ptr_time);
}

bool lane_blocks_unseen_free(const struct lane_blocks *b, size_t i)
{
	return b->ev[i].freed && (i == 0 || b->ev[i - 1].ptr != b->ev[i].ptr || b->ev[i - 1].freed);
}

/* By time; at one time a block freed first, so that the sum never counts
 * an address twice. */
static int by_time(const void *x, const void *y)
{
	const struct lane_block *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns < b->ns ? -1 : 1;
	return (int)b->freed - (int)a->freed;
}

void lane_blocks_live(struct lane_blocks *b)
{
	lane_blocks_by_ptr(b);
	for (size_t i = 0; i < b->n; i++)
		if (b->ev[i].freed)
			b->ev[i].size = lane_blocks_unseen_free(b, i) ? 0 : b->ev[i - 1].size;
	if (b->n)
		qsort(b->ev, b->n, sizeof(*b->ev), by_time);
}

void lane_blocks_reset(struct lane_blocks *b)
{
	b->n = b->pending = 0;
}

void lane_blocks_free(struct lane_blocks *b)
{
	free(b->ev);
	*b = (struct lane_blocks){ 0 };
}

/* ---- waits and their wakers -------------------------------------------------------- */

int lane_waits_add(struct lane_waits *w, const struct walk_event *ev, uint64_t tag)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 1024;
		struct lane_wait *g = realloc(w->ev, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		w->ev = g;
		w->cap = cap;
	}
	w->ev[w->n++] = (struct lane_wait){ .start = ev->start_ns, .end = ev->end_ns,
					    .obj = ev->block.obj, .tag = tag, .op = ev->block.op };
	return 0;
}

static bool releases(const struct lane_wait *x)
{
	return ada_block_release(x->op) || x->op == ADA_BLOCK_COND_WAIT ||
	       x->op == ADA_BLOCK_COND_TIMEDWAIT;
}

static bool takes(const struct lane_wait *x)
{
	return x->op == ADA_BLOCK_MUTEX_LOCK || x->op == ADA_BLOCK_COND_WAIT ||
	       x->op == ADA_BLOCK_COND_TIMEDWAIT || x->op == ADA_BLOCK_SEM_WAIT;
}

/* A release's time: a condition wait releases its mutex at its start. */
static uint64_t released_at(const struct lane_wait *x)
{
	return x->start;
}

static int by_obj_time(const void *a, const void *b)
{
	const struct lane_wait *x = *(const struct lane_wait *const *)a,
			       *y = *(const struct lane_wait *const *)b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return (released_at(x) > released_at(y)) - (released_at(x) < released_at(y));
}

int lane_waits_link(struct lane_waits *w,
		    int (*link)(void *ctx, const struct lane_wait *waiter, const struct lane_wait *waker),
		    void *ctx)
{
	const struct lane_wait **rel = malloc((w->n ? w->n : 1) * sizeof(*rel));
	size_t nrel = 0;
	int err = 0;

	if (!rel)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++)
		if (releases(&w->ev[i]))
			rel[nrel++] = &w->ev[i];
	if (nrel)
		qsort(rel, nrel, sizeof(*rel), by_obj_time);
	for (size_t i = 0; i < w->n && !err; i++) {
		const struct lane_wait *x = &w->ev[i];
		size_t lo = 0, hi = nrel;

		if (!takes(x))
			continue;
		while (lo < hi) { /* the first release after (obj, end) */
			size_t mid = (lo + hi) / 2;

			if (rel[mid]->obj < x->obj ||
			    (rel[mid]->obj == x->obj && released_at(rel[mid]) <= x->end))
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo > 0 && rel[lo - 1]->obj == x->obj && rel[lo - 1]->tag == x->tag)
			lo--; /* the waiter's own (a condition wait's start) */
		if (lo > 0 && rel[lo - 1]->obj == x->obj && released_at(rel[lo - 1]) >= x->start)
			err = link(ctx, x, rel[lo - 1]);
	}
	free(rel);
	return err;
}

void lane_waits_free(struct lane_waits *w)
{
	free(w->ev);
	*w = (struct lane_waits){ 0 };
}
