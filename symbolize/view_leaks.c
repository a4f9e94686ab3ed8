/* view_leaks.c - `ada-symbolize leaks`: the blocks still allocated when the
 * trace ends, grouped by the call path that allocated them.
 *
 *   # pid 4242 ./prog: 1 thread
 *   10 blocks (640 bytes) still allocated at the end, from 1 call path
 *          Bytes     Blocks  Call path
 *     ==========  =========  =========
 *            640         10  main > h > malloc
 *
 * A trace recorded with ADA_ALLOC=1 (mcount/alloc.c) holds each block the
 * malloc family allocated or freed inside the frame of the call that did
 * it, so the call path is the stack of shown frames open then (walk.h): no
 * backtrace was taken, and the filters shape the paths as they shape a
 * flame graph's stacks. Paths are sorted by bytes, the largest first.
 *
 * Threads free each other's blocks, so a process's blocks are gathered
 * from all its threads with their times and then matched by address in
 * time order (lanes.h; a block's tag is its path's node). Memory: 32 bytes
 * an allocation event, and the distinct paths.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flame_tree.h"
#include "lanes.h"
#include "view_cli.h"

struct path_sum {
	uint64_t bytes, blocks;
	uint32_t node;
};

struct leaks {
	FILE *out;
	bool full_names;
	struct src_process *p;
	struct flame_tree tree;
	uint32_t *names;       /* tree name id + 1 of each function of p, 0: not yet */
	struct lane_blocks blocks;
	size_t threads;
};

static int process_begin(void *ctx, struct src_process *p)
{
	struct leaks *l = ctx;

	p->want_allocs = true;
	l->p = p;
	lane_blocks_reset(&l->blocks);
	l->threads = 0;
	flame_tree_free(&l->tree);
	free(l->names);
	l->names = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*l->names));
	if (!l->names)
		return -ENOMEM;
	return flame_tree_init(&l->tree);
}

static int thread_begin(void *ctx, struct src_process *p, const struct src_thread *t)
{
	(void)p, (void)t;
	((struct leaks *)ctx)->threads++;
	return 0;
}

/* The tree node of the shown stack open now. */
static uint32_t path_now(struct leaks *l, struct walk *w)
{
	uint32_t n, node = FLAME_ROOT;
	const uint32_t *funcs = walk_stack(w, &n);

	for (uint32_t d = 0; d < n && node != FLAME_NONE; d++) {
		uint32_t f = funcs[d];

		if (!l->names[f]) {
			const struct src_func *fn = &l->p->funcs[f];
			uint32_t id = flame_tree_name(&l->tree, l->full_names ? fn->full : fn->name,
						      fn->module);

			if (id == FLAME_NONE)
				return FLAME_NONE;
			l->names[f] = id + 1;
		}
		node = flame_tree_child(&l->tree, node, l->names[f] - 1);
	}
	return node;
}

static int event(void *ctx, struct walk *w, const struct walk_event *ev)
{
	struct leaks *l = ctx;
	uint32_t path;

	lane_blocks_settle(&l->blocks, ev);
	if (ev->type != WALK_ALLOC)
		return 0;
	if ((path = path_now(l, w)) == FLAME_NONE)
		return -ENOMEM;
	return lane_blocks_add(&l->blocks, ev, path);
}

static int thread_end(void *ctx, struct src_process *p, const struct src_thread *t)
{
	(void)p, (void)t;
	lane_blocks_thread_end(&((struct leaks *)ctx)->blocks);
	return 0;
}

static int by_bytes(const void *x, const void *y)
{
	const struct path_sum *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->blocks != b->blocks)
		return a->blocks > b->blocks ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

static void print_path(const struct leaks *l, uint32_t node)
{
	const struct flame_node *nd = &l->tree.nodes[node];

	if (node == FLAME_ROOT) {
		fputs("(no shown frame)", l->out);
		return;
	}
	if (nd->parent != FLAME_ROOT) {
		print_path(l, nd->parent);
		fputs(" > ", l->out);
	}
	fputs(flame_tree_name_text(&l->tree, nd->name), l->out);
}

static int process_end(void *ctx, struct src_process *p)
{
	struct leaks *l = ctx;
	struct path_sum *sum;
	uint64_t unseen = 0, blocks = 0, bytes = 0;
	size_t i, npaths = 0;

	view_process_header(l->out, p, l->threads);
	if (!l->blocks.n) {
		fputs("no allocation recorded (a trace recorded with ADA_ALLOC=1 has them)\n", l->out);
		return 0;
	}
	/* The last event of each address says whether its block is still
	 * allocated; a free with no allocation before it was of a block the
	 * trace never saw made. */
	lane_blocks_by_ptr(&l->blocks);
	if (!(sum = calloc(l->tree.nnodes, sizeof(*sum))))
		return -ENOMEM;
	for (i = 0; i < l->blocks.n; i++) {
		const struct lane_block *b = &l->blocks.ev[i];
		bool last = i + 1 == l->blocks.n || b[1].ptr != b->ptr;

		unseen += lane_blocks_unseen_free(&l->blocks, i);
		if (!last || b->freed)
			continue;
		npaths += !sum[b->tag].blocks;
		sum[b->tag].bytes += b->size;
		sum[b->tag].blocks++;
		bytes += b->size;
		blocks++;
	}
	for (i = 0; i < l->tree.nnodes; i++)
		sum[i].node = (uint32_t)i;
	qsort(sum, l->tree.nnodes, sizeof(*sum), by_bytes);
	fprintf(l->out, "%llu block%s (%llu bytes) still allocated at the end, from %zu call path%s\n",
		(unsigned long long)blocks, blocks == 1 ? "" : "s", (unsigned long long)bytes, npaths,
		npaths == 1 ? "" : "s");
	if (npaths) {
		fprintf(l->out, "  %12s  %9s  Call path\n", "Bytes", "Blocks");
		fprintf(l->out, "  ============  =========  =========\n");
	}
	for (i = 0; i < npaths; i++) {
		fprintf(l->out, "  %12llu  %9llu  ", (unsigned long long)sum[i].bytes,
			(unsigned long long)sum[i].blocks);
		print_path(l, sum[i].node);
		fputc('\n', l->out);
	}
	if (unseen)
		fprintf(l->out, "%llu free%s of blocks the trace did not see allocated (before recording, or allocated where no call was recorded)\n",
			(unsigned long long)unseen, unseen == 1 ? "" : "s");
	free(sum);
	return 0;
}

int view_leaks_main(const struct view_args *a, FILE *out)
{
	struct leaks l = { .out = out, .full_names = a->full_names };
	struct view_ops ops = { .ctx = &l, .process_begin = process_begin, .thread_begin = thread_begin,
				.event = event, .thread_end = thread_end, .process_end = process_end };
	int err = 0;

	for (int i = 0; i < a->npaths && !err; i++)
		err = view_run(a->paths[i], &a->filter, &ops);
	flame_tree_free(&l.tree);
	free(l.names);
	lane_blocks_free(&l.blocks);
	return err;
}
