/* lanes.c - a process's ALLOC events gathered across threads (lanes.h). */
#include "lanes.h"

#include <errno.h>
#include <stdlib.h>

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
