/* view_graph_tree.c - graph's call tree and backtraces (uftrace's graph):
 *
 *     backtraces:    Total time      Calls
 *       #0             1.200 ms         10  compute < main
 *     call tree:     Total time      Calls
 *                      1.200 ms         10  compute
 *                      0.900 ms         20    helper
 *
 * The call tree is every call of FUNCTION merged into one root, and below
 * it the calls it made, aggregated by calling context (a frame per distinct
 * path from FUNCTION, with its calls and their total); without FUNCTION,
 * the whole program's, from each thread's outermost frames. A backtrace is
 * a distinct stack that called FUNCTION (innermost first, "<" for "called
 * by"), with the calls and time of FUNCTION under it. Both are
 * calling-context trees (flame_tree.h): a node's weight is the total time
 * of the calls at its exact stack, its base their number; children in name
 * order, so that the same trace prints the same text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flame_tree.h"
#include "view_graph_tree.h"

struct graph_tree {
	struct flame_tree calls, backs;
	const struct src_process *p;
	bool full_names;
	uint32_t *names;       /* tree name id + 1 of each function of p, 0: not yet */
	uint32_t *nodes;       /* the open frames' nodes, by shown depth */
	uint32_t cap;
	uint32_t in_at;        /* FUNCTION's outermost open frame's depth, 0: none */
	uint32_t depth;        /* the frames open, as the events here had them */
};

void graph_tree_thread(struct graph_tree *t)
{
	t->in_at = 0;
	t->depth = 0;
}

struct graph_tree *graph_tree_new(bool full_names)
{
	struct graph_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->full_names = full_names;
	if (flame_tree_init(&t->calls) < 0 || flame_tree_init(&t->backs) < 0) {
		graph_tree_free(t);
		return NULL;
	}
	return t;
}

void graph_tree_free(struct graph_tree *t)
{
	if (!t)
		return;
	flame_tree_free(&t->calls);
	flame_tree_free(&t->backs);
	free(t->names);
	free(t->nodes);
	free(t);
}

int graph_tree_process(struct graph_tree *t, const struct src_process *p)
{
	flame_tree_free(&t->calls);
	flame_tree_free(&t->backs);
	free(t->names);
	t->p = p;
	graph_tree_thread(t);
	t->names = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*t->names));
	if (!t->names || flame_tree_init(&t->calls) < 0 || flame_tree_init(&t->backs) < 0)
		return -ENOMEM;
	return 0;
}

/* The trees' name of func (one table each: interned in both). */
static uint32_t name_of(struct graph_tree *t, struct flame_tree *tree, uint32_t func)
{
	const struct src_func *f = &t->p->funcs[func];

	return flame_tree_name(tree, t->full_names ? f->full : f->name, f->module);
}

static int room(struct graph_tree *t, uint32_t depth)
{
	uint32_t cap = t->cap ? t->cap : 64, *n;

	if (depth < t->cap)
		return 0;
	while (cap <= depth)
		cap *= 2;
	if (!(n = realloc(t->nodes, (size_t)cap * sizeof(*n))))
		return -ENOMEM;
	t->nodes = n;
	t->cap = cap;
	return 0;
}

/* FUNCTION's call, closing: its stack, innermost first, into the
 * backtraces' tree; the last node counts it. */
static int backtrace(struct graph_tree *t, struct walk *w, const struct walk_event *ev)
{
	uint32_t n, node = FLAME_ROOT;
	const uint32_t *stack = walk_stack(w, &n);
	struct flame_node *last;

	for (uint32_t d = n; d-- > 0;) {
		uint32_t name = name_of(t, &t->backs, stack[d]);

		if (name == FLAME_NONE || (node = flame_tree_child(&t->backs, node, name)) == FLAME_NONE)
			return -ENOMEM;
	}
	last = &t->backs.nodes[node];
	last->weight += ev->total_ns;
	last->base++;
	return 0;
}

int graph_tree_event(struct graph_tree *t, struct walk *w, const struct walk_event *ev, bool match,
		     bool whole)
{
	uint32_t d = ev->depth, name;

	if (ev->type == WALK_EXIT) {
		/* A frame this thread's events did not open here (its record
		 * began inside frames): not in the tree. */
		if (d != t->depth || d == 0)
			return match ? backtrace(t, w, ev) : 0;
		t->depth = d - 1;
		if (whole || (t->in_at && d >= t->in_at)) {
			t->calls.nodes[t->nodes[d]].weight += ev->total_ns;
			t->calls.nodes[t->nodes[d]].base++;
		}
		if (d == t->in_at)
			t->in_at = 0;
		return match ? backtrace(t, w, ev) : 0;
	}
	if (room(t, d) < 0)
		return -ENOMEM;
	if (d != t->depth + 1) { /* not the next frame: start over from here */
		t->in_at = 0;
		if (d != 1) {
			t->depth = 0;
			return 0;
		}
	}
	t->depth = d;
	if (!whole && !t->in_at) {
		if (!match)
			return 0;
		t->in_at = d;
	}
	name = name_of(t, &t->calls, ev->func);
	if (name == FLAME_NONE)
		return -ENOMEM;
	/* FUNCTION's calls, wherever they are, merge at the root. */
	t->nodes[d] = flame_tree_child(&t->calls, d == t->in_at || (whole && d == 1) ? FLAME_ROOT :
				       t->nodes[d - 1], name);
	return t->nodes[d] == FLAME_NONE ? -ENOMEM : 0;
}

struct printing {
	struct graph_tree *t;
	FILE *out;
	bool ns;
};

static int print_call(void *ctx, uint32_t id)
{
	struct printing *pr = ctx;
	const struct flame_node *n = &pr->t->calls.nodes[id];
	char d[32];

	if (!n->base)
		return 1; /* entered, never closed in the shown frames */
	fprintf(pr->out, "  %-12s  %10s  %9llu  %*s%s\n", "", view_duration(d, sizeof(d), n->weight, pr->ns),
		(unsigned long long)n->base, 2 * (int)(n->depth - 1), "",
		flame_tree_name_text(&pr->t->calls, n->name));
	return 0;
}

static const struct flame_tree *sorting;

static int by_time(const void *x, const void *y)
{
	const struct flame_node *a = &sorting->nodes[*(const uint32_t *)x];
	const struct flame_node *b = &sorting->nodes[*(const uint32_t *)y];

	if (a->weight != b->weight)
		return a->weight < b->weight ? 1 : -1;
	return (*(const uint32_t *)x > *(const uint32_t *)y) - (*(const uint32_t *)x < *(const uint32_t *)y);
}

/* The stack of node end, from the root (FUNCTION) down: innermost first. */
static int print_stack(const struct graph_tree *t, FILE *out, uint32_t end)
{
	uint32_t depth = t->backs.nodes[end].depth, *chain = malloc(depth * sizeof(*chain));

	if (!chain)
		return -ENOMEM;
	for (uint32_t id = end, k = depth; k > 0; id = t->backs.nodes[id].parent)
		chain[--k] = id;
	for (uint32_t k = 0; k < depth; k++)
		fprintf(out, "%s%s", k ? " < " : "", flame_tree_name_text(&t->backs, t->backs.nodes[chain[k]].name));
	free(chain);
	return 0;
}

static int print_backtraces(struct graph_tree *t, FILE *out, bool ns)
{
	uint32_t *ends = malloc((size_t)t->backs.nnodes * sizeof(*ends)), n = 0;
	char d[32];

	if (!ends)
		return -ENOMEM;
	for (uint32_t id = 1; id < t->backs.nnodes; id++)
		if (t->backs.nodes[id].base)
			ends[n++] = id;
	sorting = &t->backs;
	qsort(ends, n, sizeof(*ends), by_time);
	fprintf(out, "  %-12s  %10s  %9s  Stack (innermost first)\n", "backtraces:", "Total time", "Calls");
	for (uint32_t i = 0; i < n; i++) {
		const struct flame_node *e = &t->backs.nodes[ends[i]];
		char num[16];

		snprintf(num, sizeof(num), "#%u", i);
		fprintf(out, "  %-12s  %10s  %9llu  ", num, view_duration(d, sizeof(d), e->weight, ns),
			(unsigned long long)e->base);
		if (print_stack(t, out, ends[i]) < 0) {
			free(ends);
			return -ENOMEM;
		}
		fputc('\n', out);
	}
	free(ends);
	return 0;
}

int graph_tree_print(struct graph_tree *t, FILE *out, bool ns, bool backtraces)
{
	struct printing pr = { .t = t, .out = out, .ns = ns };
	int err = backtraces ? print_backtraces(t, out, ns) : 0;

	if (err)
		return err;
	fprintf(out, "  %-12s  %10s  %9s  Function\n", "call tree:", "Total time", "Calls");
	return flame_tree_walk(&t->calls, print_call, &pr);
}
