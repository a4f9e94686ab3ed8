/* view_graph.c - `ada-symbolize graph FUNCTION`: who calls a function and
 * what it calls, with times (gprof's call graph entry, per process):
 *
 *   # pid 4242 /usr/bin/prog: compute: 10 calls, total 1.200 ms, self 0.300 ms
 *     callers:  Total time      Calls  Function
 *                 1.200 ms         10  main
 *     callees:  Total time      Calls  Function
 *                 0.900 ms         20  helper
 *
 * A caller's line is the calls of FUNCTION it made and their total; a
 * callee's, the calls FUNCTION made to it and theirs, so FUNCTION's self
 * time plus its callees' totals is its total. "(thread)" is the caller of
 * a thread's outermost frames. FUNCTION is a glob; each function it matches
 * gets an entry (at most MAX_MATCH). Then, as uftrace's graph, the distinct
 * stacks that called it (backtraces) and the aggregated call tree below it
 * (view_graph_tree.c); without FUNCTION, the whole program's call tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view_cli.h"
#include "view_graph_tree.h"

#define MAX_MATCH 64

struct edge {
	uint64_t calls, total;
};

struct graph {
	const struct view_args *a;
	FILE *out;
	uint32_t match[MAX_MATCH];
	size_t nmatch;
	int32_t *slot;         /* dense id → index into match, -1 */
	struct edge *self;     /* per match: the function's own calls (calls, total) */
	uint64_t *self_ns;
	struct edge *callers;  /* per match: nfuncs + 1 edges (the last: "(thread)") */
	struct edge *callees;  /* per match: nfuncs edges */
	size_t nfuncs;
	bool called;           /* a matching function was called, in some process */
	bool named;            /* the trace records a matching function */
	bool quiet;            /* looking only: print nothing */
	struct graph_tree *tree;
};

static int process_begin(void *ctx, struct src_process *p)
{
	struct graph *g = ctx;
	size_t k, n = p->nfuncs;

	g->nmatch = 0;
	g->nfuncs = n;
	free(g->slot);
	if (!(g->slot = malloc((n ? n : 1) * sizeof(*g->slot))) || graph_tree_process(g->tree, p) < 0)
		return -ENOMEM;
	for (k = 0; k < n && !g->a->function; k++)
		g->slot[k] = -1;
	for (k = 0; k < n && g->a->function; k++) {
		char *const glob[] = { (char *)g->a->function, NULL };

		g->slot[k] = -1;
		if (!view_glob_func(glob, NULL, &p->funcs[k]))
			continue;
		if (g->nmatch == MAX_MATCH) {
			fprintf(stderr, "ada-symbolize graph: %s matches more than %d functions of pid %u: give a narrower name\n",
				g->a->function, MAX_MATCH, p->pid);
			return -EINVAL;
		}
		g->slot[k] = (int32_t)g->nmatch;
		g->match[g->nmatch++] = (uint32_t)k;
		g->named = true;
	}
	free(g->self);
	free(g->self_ns);
	free(g->callers);
	free(g->callees);
	g->self = calloc(MAX_MATCH, sizeof(*g->self));
	g->self_ns = calloc(MAX_MATCH, sizeof(*g->self_ns));
	g->callers = calloc(g->nmatch * (n + 1) + 1, sizeof(*g->callers));
	g->callees = calloc(g->nmatch * n + 1, sizeof(*g->callees));
	return g->self && g->self_ns && g->callers && g->callees ? 0 : -ENOMEM;
}

static int thread_begin(void *ctx, struct src_process *p, const struct src_thread *t)
{
	(void)p, (void)t;
	graph_tree_thread(((struct graph *)ctx)->tree);
	return 0;
}

static int event(void *ctx, struct walk *w, const struct walk_event *ev)
{
	struct graph *g = ctx;
	const uint32_t *stack;
	uint32_t n, parent;
	int32_t s, ps;

	if (!g->quiet &&
	    graph_tree_event(g->tree, w, ev, g->slot[ev->func] >= 0, !g->a->function) < 0)
		return -ENOMEM;
	if (ev->type != WALK_EXIT)
		return 0;
	stack = walk_stack(w, &n);
	parent = n > 1 ? stack[n - 2] : (uint32_t)g->nfuncs;
	if ((s = g->slot[ev->func]) >= 0) {
		struct edge *e = &g->callers[(size_t)s * (g->nfuncs + 1) + parent];

		e->calls++;
		e->total += ev->total_ns;
		g->self[s].calls++;
		g->self[s].total += ev->total_ns;
		g->self_ns[s] += ev->self_ns;
	}
	if (parent < g->nfuncs && (ps = g->slot[parent]) >= 0) {
		struct edge *e = &g->callees[(size_t)ps * g->nfuncs + ev->func];

		e->calls++;
		e->total += ev->total_ns;
	}
	return 0;
}

static int by_total(const void *x, const void *y)
{
	const struct edge *a = *(const struct edge *const *)x, *b = *(const struct edge *const *)y;

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return (a > b) - (a < b);
}

/* One side's lines, largest total first. */
static int print_edges(struct graph *g, const struct src_process *p, const char *title,
		       struct edge *edges, size_t n)
{
	struct edge **v = malloc((n ? n : 1) * sizeof(*v));
	size_t k, m = 0;
	char d[32];

	if (!v)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		if (edges[k].calls)
			v[m++] = &edges[k];
	qsort(v, m, sizeof(*v), by_total);
	if (!m)
		fprintf(g->out, "  %-8s  (none)\n", title);
	else
		fprintf(g->out, "  %-8s  %10s  %9s  Function\n", title, "Total time", "Calls");
	for (k = 0; k < m; k++) {
		size_t f = (size_t)(v[k] - edges);

		fprintf(g->out, "  %-8s  %10s  %9llu  %s\n", "",
			view_duration(d, sizeof(d), v[k]->total, g->a->ns), (unsigned long long)v[k]->calls,
			f == p->nfuncs ? "(thread)" :
			g->a->full_names ? p->funcs[f].full : p->funcs[f].name);
	}
	free(v);
	return 0;
}

static int process_end(void *ctx, struct src_process *p)
{
	struct graph *g = ctx;
	char d[2][32];
	size_t s;
	int err = 0;
	bool shown = false;

	if (!g->a->function) { /* the whole program's call tree */
		g->called = true;
		fprintf(g->out, "# pid %u %s: the call tree\n", p->pid, *p->cmdline ? p->cmdline : p->exe);
		return graph_tree_print(g->tree, g->out, g->a->ns, false);
	}
	for (s = 0; s < g->nmatch && !err; s++) {
		const struct src_func *f = &p->funcs[g->match[s]];

		if (!g->self[s].calls)
			continue;
		g->called = true;
		if (g->quiet)
			continue;
		view_duration(d[0], sizeof(d[0]), g->self[s].total, g->a->ns);
		view_duration(d[1], sizeof(d[1]), g->self_ns[s], g->a->ns);
		fprintf(g->out, "# pid %u %s: %s: %llu call%s, total %s, self %s\n", p->pid,
			*p->cmdline ? p->cmdline : p->exe,
			g->a->full_names ? f->full : f->name, (unsigned long long)g->self[s].calls,
			g->self[s].calls == 1 ? "" : "s", d[0] + strspn(d[0], " "),
			d[1] + strspn(d[1], " "));
		err = print_edges(g, p, "callers:", &g->callers[s * (p->nfuncs + 1)], p->nfuncs + 1);
		if (!err)
			err = print_edges(g, p, "callees:", &g->callees[s * p->nfuncs], p->nfuncs);
		shown = true;
	}
	/* Every match's calls: one call tree, its backtraces. */
	if (!err && shown)
		err = graph_tree_print(g->tree, g->out, g->a->ns, true);
	return err;
}

static int run(struct graph *g, const struct view_filter *f)
{
	struct view_ops ops = { .ctx = g, .process_begin = process_begin,
				.thread_begin = thread_begin, .event = event,
				.process_end = process_end };
	int err = 0;

	for (int i = 0; i < g->a->npaths && !err; i++)
		err = view_run(g->a->paths[i], f, &ops);
	return err;
}

/* run, with stderr closed to what the first run said already (a process
 * skipped for a binary that is gone, say). */
static int run_quietly(struct graph *g, const struct view_filter *f)
{
	int saved, null, err;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	err = run(g, f);
	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDERR_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	return err;
}

/* Why nothing was shown, in one line: no such function; or its calls are
 * all inside the C++ runtime's frames, which the views fold (a second,
 * quiet run with --all-frames finds them); or the filters left none. */
static void say_why_none(struct graph *g)
{
	const struct view_args *a = g->a;
	struct view_filter all = a->filter;

	if (!g->named) {
		fprintf(stderr, "ada-symbolize graph: %s: no function of that name in the trace\n",
			a->function);
		return;
	}
	all.all_frames = true;
	g->quiet = true;
	if (!a->filter.all_frames && run_quietly(g, &all) == 0 && g->called) {
		fprintf(stderr, "ada-symbolize graph: %s: called only inside the C++ runtime's frames, which the views fold: --all-frames shows them\n",
			a->function);
		return;
	}
	fprintf(stderr, "ada-symbolize graph: %s: no call of a function of that name in the trace%s\n",
		a->function, view_filter_any(&a->filter) ? " (through the filters)" : "");
}

int view_graph_main(const struct view_args *a, FILE *out)
{
	struct graph g = { .a = a, .out = out, .tree = graph_tree_new(a->full_names) };
	int err = g.tree ? run(&g, &a->filter) : -ENOMEM;

	if (!err && !g.called && a->function) {
		say_why_none(&g);
		err = -ENOENT;
	}
	free(g.slot);
	free(g.self);
	free(g.self_ns);
	free(g.callers);
	free(g.callees);
	graph_tree_free(g.tree);
	return err;
}
