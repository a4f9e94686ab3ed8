/* view_flame.c - `ada-symbolize flame`: folded stacks and SVG flame graphs.
 *
 *   ada-symbolize flame [filters] [--count | --weight W] [--full-names]
 *                       [--format folded|svg] [-o FILE] TRACE_DIR...
 *
 * One line per distinct stack of shown frames (outermost first, as walk.h
 * shows them), "main;compute;fib 12345", the weight being the self time in
 * nanoseconds of the frames that ran at exactly that stack, or with
 * --count (--weight calls) the number of those frames (calls); with
 * --weight alloc-bytes or alloc-count (a trace recorded with ADA_ALLOC=1)
 * the bytes or blocks the malloc family allocated with exactly that stack
 * open, its innermost shown frame being the allocator's (malloc, new) or
 * the frame that called it, where the allocator is not shown; with
 * --weight cpu or faults (ADA_COUNTERS) the CPU time or page faults of the
 * counter samples taken at that stack, a sample that interrupted code
 * without hooks (libc's insides, a library built without adacc) under a
 * frame "NAME [sampled]" of its own below the recorded ones; with --weight
 * offcpu the stack's self time less the CPU time sampled there; with
 * --weight blocked (ADA_BLOCKING) the time the waits made at that stack
 * took, the blocking call (pthread_mutex_lock, read...) the innermost
 * frame where it is shown. Stacks with
 * no weight are left out. Lines are in frame order (flame_tree.h): stable
 * from run to run.
 *
 * There is no thread or process root frame: a stack starts at the thread's
 * own first frame (__libc_start_main or main for the main thread, the start
 * routine for the others), so threads doing the same work add up into one
 * tower, as a profile answers "where does the time go", and a thread is
 * seen alone with --tid or --thread. uftrace's folded output does the same.
 * Stacks of several processes (fork children) add up by name likewise.
 *
 * Per event, the view does one hash lookup on ENTER and one addition on
 * EXIT: it keeps the node of the stack at each open depth (flame_tree.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flame_svg.h"
#include "flame_tree.h"
#include "raw_format.h"
#include "trace_dir.h"
#include "view_cli.h"
#include "walk.h"

enum flame_weight { W_TIME, W_CALLS, W_ALLOC_BYTES, W_ALLOC_COUNT, W_CPU, W_OFFCPU, W_FAULTS,
		    W_BLOCKED };
static const char *const weights[] = { "time", "calls", "alloc-bytes", "alloc-count", "cpu",
				       "offcpu", "faults", "blocked" };
/* What the SVG's widths count (NULL: time). */
static const char *const units[] = { NULL, "call", "byte", "block", NULL, NULL, "fault", NULL };
static const char *const widths[] = { "total time", "calls", "bytes allocated",
				      "blocks allocated", "CPU time (sampled)",
				      "off-CPU time (wall minus sampled CPU)", "page faults (sampled)",
				      "time blocked (waits)" };
/* A frame of code ada did not record, named by a counter sample's
 * interrupted address: told apart from a recorded call by its name. */
#define SAMPLED_SUFFIX " [sampled]"

int view_flame_weight(const char *name)
{
	for (int i = 0; i < (int)(sizeof(weights) / sizeof(*weights)); i++)
		if (!strcmp(name, weights[i]))
			return i;
	return -1;
}

struct flame {
	const struct view_args *a;
	struct flame_tree tree;
	const struct src_process *p;
	uint32_t *names;       /* tree name id + 1 of each function of p, 0: not yet */
	uint32_t *sampled;     /* the same, of its SAMPLED_SUFFIX name */
	uint64_t *cpu;         /* --weight offcpu: sampled CPU time by node */
	uint32_t cpu_cap;
	uint32_t *stack;       /* node of each open depth, stack[0] the root */
	uint32_t depth, cap;
	int weight;            /* enum flame_weight */
	bool into_base;        /* diff: reading trace A, whose weights are the base */
	size_t nprocs;
	char *first_exe;       /* the first process's executable and command line */
	char *first_cmdline;
	uint32_t first_pid;
};

static int process_begin(void *ctx, struct src_process *p)
{
	struct flame *fl = ctx;

	free(fl->names);
	free(fl->sampled);
	fl->names = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*fl->names));
	fl->sampled = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*fl->sampled));
	if (!fl->names || !fl->sampled)
		return -ENOMEM;
	fl->p = p;
	p->want_allocs = fl->weight == W_ALLOC_BYTES || fl->weight == W_ALLOC_COUNT;
	p->want_samples = fl->weight >= W_CPU && fl->weight <= W_FAULTS;
	p->want_blocks = fl->weight == W_BLOCKED;
	if (fl->nprocs++ == 0) {
		fl->first_exe = strdup(p->exe ? p->exe : "");
		fl->first_cmdline = strdup(p->cmdline ? p->cmdline : "");
		fl->first_pid = p->pid;
		if (!fl->first_exe || !fl->first_cmdline)
			return -ENOMEM;
	}
	return 0;
}

/* The tree's name of function func: interned on first use, so a process's
 * thousands of library symbols cost nothing until called. */
static inline uint32_t name_of(struct flame *fl, uint32_t func)
{
	if (__builtin_expect(fl->names[func] == 0, 0)) {
		const struct src_func *f = &fl->p->funcs[func];
		uint32_t id = flame_tree_name(&fl->tree, fl->a->full_names ? f->full : f->name,
					      f->module);

		if (id == FLAME_NONE)
			return FLAME_NONE;
		fl->names[func] = id + 1;
	}
	return fl->names[func] - 1;
}

/* The same for the sampled frame of func. */
static uint32_t sampled_name_of(struct flame *fl, uint32_t func)
{
	if (fl->sampled[func] == 0) {
		const struct src_func *f = &fl->p->funcs[func];
		const char *name = fl->a->full_names ? f->full : f->name;
		size_t len = strlen(name) + sizeof(SAMPLED_SUFFIX);
		char *text = malloc(len);
		uint32_t id;

		if (!text)
			return FLAME_NONE;
		snprintf(text, len, "%s" SAMPLED_SUFFIX, name);
		id = flame_tree_name(&fl->tree, text, f->module);
		free(text);
		if (id == FLAME_NONE)
			return FLAME_NONE;
		fl->sampled[func] = id + 1;
	}
	return fl->sampled[func] - 1;
}

static int thread_begin(void *ctx, struct src_process *p, const struct src_thread *t)
{
	struct flame *fl = ctx;

	(void)p, (void)t;
	fl->depth = 0;
	return 0;
}

static int stack_room(struct flame *fl, uint32_t depth)
{
	if (depth < fl->cap)
		return 0;
	uint32_t cap = fl->cap;
	while (cap <= depth)
		cap *= 2;
	uint32_t *s = realloc(fl->stack, (size_t)cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	fl->stack = s;
	fl->cap = cap;
	return 0;
}

/* The open frames as the walk has them: for events that do not continue
 * the stack kept here (a thread whose record starts inside frames). */
static __attribute__((noinline)) int resync(struct flame *fl, struct walk *w)
{
	uint32_t n;
	const uint32_t *funcs = walk_stack(w, &n);
	int ret = stack_room(fl, n);

	for (uint32_t d = 1; d <= n && ret == 0; d++) {
		uint32_t name = name_of(fl, funcs[d - 1]);

		fl->stack[d] = name == FLAME_NONE ? FLAME_NONE :
			       flame_tree_child(&fl->tree, fl->stack[d - 1], name);
		if (fl->stack[d] == FLAME_NONE)
			ret = -ENOMEM;
	}
	fl->depth = n;
	return ret;
}

/* What a frame's exit (or a block) adds to its stack. */
static void add(struct flame *fl, uint32_t d, uint64_t v)
{
	if (fl->into_base)
		fl->tree.nodes[fl->stack[d]].base += v;
	else
		fl->tree.nodes[fl->stack[d]].weight += v;
}

/* --weight offcpu: the CPU time sampled at node n, taken off its wall
 * time once the trace is read (off_cpu_apply). */
static int cpu_add(struct flame *fl, uint32_t n, uint64_t v)
{
	if (n >= fl->cpu_cap) {
		uint32_t cap = fl->cpu_cap ? fl->cpu_cap : 1024;
		uint64_t *c;

		while (cap <= n)
			cap *= 2;
		if (!(c = realloc(fl->cpu, cap * sizeof(*c))))
			return -ENOMEM;
		memset(c + fl->cpu_cap, 0, (cap - fl->cpu_cap) * sizeof(*c));
		fl->cpu = c;
		fl->cpu_cap = cap;
	}
	fl->cpu[n] += v;
	return 0;
}

/* Each stack's self time less the CPU time sampled there: its time off a
 * CPU. By stack, not by call: a call shorter than the sampling period
 * has no sample of its own, while the stack's calls together have their
 * share. */
static void off_cpu_apply(struct flame *fl)
{
	for (uint32_t n = 1; n < fl->tree.nnodes; n++) {
		uint64_t *v = fl->into_base ? &fl->tree.nodes[n].base : &fl->tree.nodes[n].weight;
		uint64_t c = n < fl->cpu_cap ? fl->cpu[n] : 0;

		*v = *v > c ? *v - c : 0;
	}
	if (fl->cpu)
		memset(fl->cpu, 0, fl->cpu_cap * sizeof(*fl->cpu));
}

/* A counter sample weighs on the stack open when it was taken, with a
 * frame of its own for the function it interrupted where that is not the
 * innermost recorded one (code without hooks: a library's insides, a
 * function built without adacc). */
static int sample_event(struct flame *fl, struct walk *w, const struct walk_event *ev)
{
	uint32_t d = ev->depth, node;
	uint64_t v = fl->weight == W_FAULTS ? ev->sample.minflt + ev->sample.majflt :
					    ev->sample.cpu_ns;

	if (d == 0 || v == 0)
		return 0;
	if (d != fl->depth) {
		int ret = resync(fl, w);
		if (ret < 0)
			return ret;
	}
	if (fl->weight == W_OFFCPU)
		return cpu_add(fl, fl->stack[d], v);
	node = fl->stack[d];
	if (walk_sampled_func(ev) != SRC_NO_FUNC) {
		uint32_t name = sampled_name_of(fl, ev->sample.func);

		node = name == FLAME_NONE ? FLAME_NONE : flame_tree_child(&fl->tree, node, name);
		if (node == FLAME_NONE)
			return -ENOMEM;
	}
	if (fl->into_base)
		fl->tree.nodes[node].base += v;
	else
		fl->tree.nodes[node].weight += v;
	return 0;
}

static int event(void *ctx, struct walk *w, const struct walk_event *ev)
{
	struct flame *fl = ctx;
	uint32_t d = ev->depth;

	if (ev->type == WALK_SAMPLE)
		return sample_event(fl, w, ev);

	if (ev->type == WALK_ALLOC || ev->type == WALK_BLOCK) {
		/* A block weighs on the stack open when it was made, a wait
		 * (not a release) on the stack that waited. */
		if (ev->type == WALK_ALLOC ? ev->alloc_freed : ada_block_release(ev->block.op))
			return 0;
		if (d == 0)
			return 0;
		if (d != fl->depth) {
			int ret = resync(fl, w);
			if (ret < 0)
				return ret;
		}
		add(fl, d, ev->type == WALK_BLOCK ? ev->total_ns :
			   fl->weight == W_ALLOC_BYTES ? ev->alloc_size : 1);
		return 0;
	}
	if (ev->type == WALK_EXIT) {
		/* The walk closes frames in the order it opened them: the frame at
		 * the depth kept here is this one, unless the thread's record
		 * started inside frames that it never opened. */
		if (__builtin_expect(d != fl->depth || d == 0, 0)) {
			int ret = resync(fl, w);
			if (ret < 0)
				return ret;
			if (d == 0 || d > fl->depth)  /* not a frame the walk has open */
				return 0;
		}
		if (fl->weight <= W_CALLS || fl->weight == W_OFFCPU)
			add(fl, d, fl->weight == W_CALLS ? 1 : ev->self_ns);
		fl->depth = d - 1;
		return 0;
	}
	uint32_t name = name_of(fl, ev->func);
	if (name == FLAME_NONE)
		return -ENOMEM;
	if (__builtin_expect(d != fl->depth + 1 || d >= fl->cap, 0))
		return resync(fl, w);
	fl->stack[d] = flame_tree_child(&fl->tree, fl->stack[d - 1], name);
	fl->depth = d;
	return fl->stack[d] == FLAME_NONE ? -ENOMEM : 0;
}

static int write_svg(struct flame *fl, bool diff, FILE *out)
{
	char subtitle[512];
	/* A frame is as wide as the weights of the stacks through it: its
	 * total time (or calls, or blocks), whatever each stack weighs by. */
	const char *what = widths[fl->weight];
	const char *cmd = fl->first_cmdline && *fl->first_cmdline ? fl->first_cmdline :
			  fl->first_exe ? fl->first_exe : "";

	if (fl->nprocs > 1)
		snprintf(subtitle, sizeof(subtitle), "%s (pid %u and %zu more processes), width: %s", cmd,
			 fl->first_pid, fl->nprocs - 1, what);
	else
		snprintf(subtitle, sizeof(subtitle), "%s (pid %u), width: %s", cmd, fl->first_pid, what);

	struct flame_svg_opts o = {
		.title = diff ? "Differential flame graph: B's widths, red grew from A, blue shrank" :
				"Flame graph",
		.diff = diff,
		.subtitle = fl->nprocs ? subtitle : NULL,
		.unit = units[fl->weight],
		.main_module = fl->first_exe ? src_basename(fl->first_exe) : NULL,
	};
	return flame_svg_write(&fl->tree, &o, out);
}

/* The trees of one or two traces: paths into the weights; with base, that
 * trace's first into the nodes' base (a differential graph). */
static int build(struct flame *fl, const char *base, const char *const *paths, int npaths)
{
	struct view_ops ops = {
		.ctx = fl,
		.process_begin = process_begin,
		.thread_begin = thread_begin,
		.event = event,
	};
	int ret = 0;

	if (base) {
		char **dirs;
		int n = ada_trace_choose(base, fl->a->all_sessions, &dirs);

		if (n < 0)
			return n;
		fl->into_base = true;
		for (int i = 0; i < n && ret == 0; i++)
			ret = view_run(dirs[i], &fl->a->filter, &ops);
		ada_trace_free_paths(dirs);
		if (fl->weight == W_OFFCPU)
			off_cpu_apply(fl);
		fl->into_base = false;
		fl->nprocs = 0; /* the subtitle names trace B's */
		free(fl->first_exe);
		free(fl->first_cmdline);
		fl->first_exe = fl->first_cmdline = NULL;
	}
	for (int i = 0; i < npaths && ret == 0; i++) {
		char **dirs = NULL;
		int n = base ? ada_trace_choose(paths[i], fl->a->all_sessions, &dirs) : 1;

		if (n < 0)
			return n;
		for (int k = 0; k < n && ret == 0; k++)
			ret = view_run(base ? dirs[k] : paths[i], &fl->a->filter, &ops);
		if (base)
			ada_trace_free_paths(dirs);
	}
	if (fl->weight == W_OFFCPU)
		off_cpu_apply(fl);
	return ret;
}

/* flame, and diff --format svg (base: trace A, paths: trace B). */
static int flame_of(const struct view_args *a, const char *base, const char *const *paths,
		    int npaths, FILE *out)
{
	bool svg = a->format && strcmp(a->format, "svg") == 0; /* view_cli checked it */
	struct flame fl = { .a = a, .cap = 256,
			    .weight = a->weight ? view_flame_weight(a->weight) : a->count ? W_CALLS : W_TIME };
	int ret;

	fl.stack = malloc(fl.cap * sizeof(*fl.stack));
	ret = fl.stack ? flame_tree_init(&fl.tree) : -ENOMEM;
	if (ret < 0) {
		free(fl.stack);
		fprintf(stderr, "ada-symbolize: flame: %s\n", strerror(-ret));
		return ret;
	}
	fl.stack[0] = FLAME_ROOT;
	ret = build(&fl, base, paths, npaths);
	if (ret == 0)
		ret = svg ? write_svg(&fl, base != NULL, out) : flame_tree_write_folded(&fl.tree, out);
	if (ret == -ENOMEM || ret == -EIO)
		fprintf(stderr, "ada-symbolize: flame: %s\n", strerror(-ret));
	flame_tree_free(&fl.tree);
	free(fl.names);
	free(fl.sampled);
	free(fl.cpu);
	free(fl.stack);
	free(fl.first_exe);
	free(fl.first_cmdline);
	return ret;
}

int view_flame_main(const struct view_args *a, FILE *out)
{
	return flame_of(a, NULL, (const char *const *)a->paths, a->npaths, out);
}

int view_flame_diff(const struct view_args *a, const char *trace_a, const char *trace_b, FILE *out)
{
	return flame_of(a, trace_a, &trace_b, 1, out);
}
