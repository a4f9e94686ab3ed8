/* view_report.c - `ada-symbolize report`: per function, its calls and times.
 *
 *   # pid 4242 /usr/bin/prog: 2 threads
 *     Total time   Self time      Calls    Average        Min        Max  Function
 *     ==========  ==========  =========  =========  =========  =========  ========
 *      12.301 ms    1.002 ms          1  12.301 ms  12.301 ms  12.301 ms  main
 *
 * Total is the sum of the durations of the function's shown calls (uftrace's
 * rule: a recursive function's inner calls count again); Self is the part
 * of them spent outside the shown calls they made, so per function
 * Self + its callees' Total from it = Total. One table per process, or per
 * thread with --threads; sorted by --sort (ties by name).
 *
 * A trace recorded with ADA_ALLOC=1 adds two columns: the bytes and the
 * blocks the malloc family allocated during the function's shown calls,
 * in them and in everything they called (inclusive, as Total: a block
 * counts for every shown call open when it was made, a recursive
 * function's included, so main's are the program's). A block made where
 * no frame is shown counts for no function.
 *
 * A trace recorded with ADA_COUNTERS adds four: On-CPU, the CPU time of
 * the counter samples taken during the function's shown calls, each
 * sample weighing what the thread used since its previous one; Off-CPU,
 * Total minus On-CPU (time waiting: sleeping, blocked, preempted); Faults,
 * minor and major page faults; Switches, voluntary and involuntary
 * context switches. Inclusive as Total, and for the same reason: "how much
 * CPU does parse use" includes the libc code it calls, which has no frame
 * of its own. Sampled, so exact in sum (a thread's samples add up to its
 * CPU time) and good to one period per call: a call shorter than the
 * period shows 0 or a whole period's CPU.
 * A sample inside a shown frame that interrupted code with no frame of
 * its own (a library ada did not hook, a static function inside one, an
 * inlined one) names the function that holds its address: such functions
 * get rows of their own after the others, "NAME [sampled]", with their
 * On-CPU, Faults and Switches and no times or calls ("-"), the most CPU
 * first. Their CPU is in their callers' rows too (the inclusive rule
 * above). Samples outside every shown frame (start-up, exit) are in no
 * row, as in flame.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "raw_format.h"
#include "view_cli.h"

enum { K_TOTAL = 1, K_SELF, K_CALLS, K_AVG, K_MIN, K_MAX, K_ALLOC_BYTES, K_ALLOC_COUNT,
       K_CPU, K_OFFCPU, K_FAULTS, K_SWITCHES, K_NAME };
static const char *const keys[] = { NULL,  "total", "self", "calls", "avg", "min", "max",
				    "alloc-bytes", "alloc-count", "cpu", "offcpu", "faults",
				    "switches", "name" };

#define MAX_KEYS 8

/* "calls,total": the keys in out (0-terminated), or false if one is none. */
static bool parse_keys(const char *spec, int out[MAX_KEYS])
{
	size_t n = 0;

	for (const char *s = spec; n + 1 < MAX_KEYS; s += strcspn(s, ",") + 1) {
		size_t len = strcspn(s, ",");
		int k;

		for (k = K_TOTAL; k <= K_NAME; k++)
			if (strlen(keys[k]) == len && !strncmp(keys[k], s, len))
				break;
		if (k > K_NAME)
			return false;
		out[n++] = k;
		if (!s[len])
			break;
	}
	out[n] = 0;
	return n > 0;
}

int view_report_sort_key(const char *spec)
{
	int k[MAX_KEYS];

	return parse_keys(spec, k) ? k[0] : 0;
}

struct fstat {
	uint64_t calls, total, self, min, max;
	uint64_t alloc_bytes, allocs;
	uint64_t cpu, faults, switches;
	uint64_t blocked;
};

/* A shown frame's blocks and samples so far, its callees' included: by
 * shown depth. */
struct facc {
	uint64_t bytes, count;
	uint64_t cpu, faults, switches;
	uint64_t blocked;
};

/* A function's samples where it had no shown frame (see the top). */
struct sstat {
	uint64_t cpu, faults, switches;
};

/* Wall time not on a CPU: what the samples did not account for. */
static uint64_t offcpu(const struct fstat *s)
{
	return s->total > s->cpu ? s->total - s->cpu : 0;
}

struct report {
	const struct view_args *a;
	FILE *out;
	struct src_process *p;
	struct fstat *st;
	struct sstat *sampled; /* by function, with samples (NULL until the first) */
	struct facc *acc;      /* by shown depth, 0: outside every shown frame */
	uint32_t acc_cap;
	bool allocs;           /* the process has ALLOC events: the columns */
	bool samples;          /* the process has counter samples: the columns */
	bool blocks;           /* the process has waits (ADA_BLOCKING): Blocked */
	size_t threads;
	int key[MAX_KEYS];     /* --sort's, 0-terminated; then the name */
};

/* qsort has no context argument: the report being sorted. */
static const struct report *sorting;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0; /* larger first */
}

static int by_key(const void *x, const void *y)
{
	const struct report *r = sorting;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct fstat *a = &r->st[i], *b = &r->st[j];
	const char *na = r->p->funcs[i].name, *nb = r->p->funcs[j].name;
	int c = 0;

	for (const int *k = r->key; !c && *k; k++)
		switch (*k) {
		case K_TOTAL: c = cmp_u64(a->total, b->total); break;
		case K_SELF: c = cmp_u64(a->self, b->self); break;
		case K_CALLS: c = cmp_u64(a->calls, b->calls); break;
		case K_AVG: c = cmp_u64(a->total / a->calls, b->total / b->calls); break;
		case K_MIN: c = cmp_u64(a->min, b->min); break;
		case K_MAX: c = cmp_u64(a->max, b->max); break;
		case K_ALLOC_BYTES: c = cmp_u64(a->alloc_bytes, b->alloc_bytes); break;
		case K_ALLOC_COUNT: c = cmp_u64(a->allocs, b->allocs); break;
		case K_CPU: c = cmp_u64(a->cpu, b->cpu); break;
		case K_OFFCPU: c = cmp_u64(offcpu(a), offcpu(b)); break;
		case K_FAULTS: c = cmp_u64(a->faults, b->faults); break;
		case K_SWITCHES: c = cmp_u64(a->switches, b->switches); break;
		case K_NAME: c = strcmp(na, nb); break;
		}
	if (!c)
		c = strcmp(na, nb);
	return c ? c : (i > j) - (i < j);
}

static int by_cpu(const void *x, const void *y)
{
	const struct report *r = sorting;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	int c = cmp_u64(r->sampled[i].cpu, r->sampled[j].cpu);

	return c ? c : strcmp(r->p->funcs[i].name, r->p->funcs[j].name);
}

/* The "[sampled]" rows (see the top), into order[0..); their count. */
static uint32_t print_sampled(struct report *r, uint32_t *order, char d[][32])
{
	const struct src_process *p = r->p;
	uint32_t n = 0;

	for (uint32_t k = 0; r->sampled && k < p->nfuncs; k++)
		if (r->sampled[k].cpu || r->sampled[k].faults)
			order[n++] = k;
	qsort(order, n, sizeof(*order), by_cpu);
	for (uint32_t k = 0; k < n; k++) {
		const struct sstat *s = &r->sampled[order[k]];
		const struct src_func *f = &p->funcs[order[k]];

		fprintf(r->out, "  %10s  %10s  %9s  %10s  %10s  %10s  ", "-", "-", "-", "-", "-", "-");
		if (r->allocs)
			fprintf(r->out, "%12s  %9s  ", "-", "-");
		fprintf(r->out, "%10s  %10s  %9llu  %9llu  ", view_duration(d[0], sizeof(d[0]), s->cpu, r->a->ns),
			"-", (unsigned long long)s->faults, (unsigned long long)s->switches);
		if (r->blocks)
			fprintf(r->out, "%10s  ", "-");
		fprintf(r->out, "%s [sampled]\n", r->a->full_names ? f->full : f->name);
	}
	return n;
}

static int print_table(struct report *r)
{
	const struct src_process *p = r->p;
	uint32_t *order = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*order)), n = 0, k;
	bool ns = r->a->ns;
	char d[8][32];

	if (!order)
		return -ENOMEM;
	for (k = 0; k < p->nfuncs; k++)
		if (r->st[k].calls)
			order[n++] = k;
	sorting = r;
	qsort(order, n, sizeof(*order), by_key);
	fprintf(r->out, "  %10s  %10s  %9s  %10s  %10s  %10s  ", "Total time", "Self time", "Calls",
		"Average", "Min", "Max");
	if (r->allocs)
		fprintf(r->out, "%12s  %9s  ", "Alloc bytes", "Allocs");
	if (r->samples)
		fprintf(r->out, "%10s  %10s  %9s  %9s  ", "On-CPU", "Off-CPU", "Faults", "Switches");
	if (r->blocks)
		fprintf(r->out, "%10s  ", "Blocked");
	fprintf(r->out, "Function\n  ==========  ==========  =========  ==========  ==========  ==========  %s%s%s========\n",
		r->allocs ? "============  =========  " : "",
		r->samples ? "==========  ==========  =========  =========  " : "",
		r->blocks ? "==========  " : "");
	for (k = 0; k < n; k++) {
		const struct fstat *s = &r->st[order[k]];
		const struct src_func *f = &p->funcs[order[k]];

		fprintf(r->out, "  %10s  %10s  %9llu  %10s  %10s  %10s  ",
			view_duration(d[0], sizeof(d[0]), s->total, ns),
			view_duration(d[1], sizeof(d[1]), s->self, ns), (unsigned long long)s->calls,
			view_duration(d[2], sizeof(d[2]), s->total / s->calls, ns),
			view_duration(d[3], sizeof(d[3]), s->min, ns),
			view_duration(d[4], sizeof(d[4]), s->max, ns));
		if (r->allocs)
			fprintf(r->out, "%12llu  %9llu  ", (unsigned long long)s->alloc_bytes,
				(unsigned long long)s->allocs);
		if (r->samples)
			fprintf(r->out, "%10s  %10s  %9llu  %9llu  ",
				view_duration(d[6], sizeof(d[6]), s->cpu, ns),
				view_duration(d[7], sizeof(d[7]), offcpu(s), ns),
				(unsigned long long)s->faults, (unsigned long long)s->switches);
		if (r->blocks)
			fprintf(r->out, "%10s  ", view_duration(d[5], sizeof(d[5]), s->blocked, ns));
		fprintf(r->out, "%s\n", r->a->full_names ? f->full : f->name);
	}
	if (r->samples)
		print_sampled(r, order, d);
	free(order);
	memset(r->st, 0, p->nfuncs * sizeof(*r->st));
	if (r->sampled)
		memset(r->sampled, 0, p->nfuncs * sizeof(*r->sampled));
	return 0;
}

static int process_begin(void *ctx, struct src_process *p)
{
	struct report *r = ctx;

	r->p = p;
	r->threads = 0;
	r->allocs = false;
	r->samples = false;
	r->blocks = false;
	p->want_allocs = true;
	p->want_samples = true;
	p->want_blocks = true;
	free(r->st);
	free(r->sampled);
	r->sampled = NULL;
	r->st = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*r->st));
	return r->st ? 0 : -ENOMEM;
}

static int thread_begin(void *ctx, struct src_process *p, const struct src_thread *t)
{
	struct report *r = ctx;

	r->threads++;
	if (r->a->per_thread)
		view_thread_header(r->out, p, t);
	return 0;
}

/* The shown frame at depth d's accumulator, the table grown to hold it. */
static struct facc *acc_at(struct report *r, uint32_t d)
{
	if (d >= r->acc_cap) {
		uint32_t cap = d >= 2 * r->acc_cap ? d + 64 : 2 * r->acc_cap;
		struct facc *a = realloc(r->acc, cap * sizeof(*a));

		if (!a)
			return NULL;
		r->acc = a;
		r->acc_cap = cap;
	}
	return &r->acc[d];
}

/* The first block or sample: from now on every frame keeps its
 * accumulator (event()), and those of the frames open now start at zero. */
static int extras_begin(struct report *r, uint32_t depth)
{
	if (r->allocs || r->samples || r->blocks)
		return 0;
	if (!acc_at(r, depth))
		return -ENOMEM;
	memset(r->acc, 0, ((size_t)depth + 1) * sizeof(*r->acc));
	return 0;
}

/* Blocks: counted in the innermost shown frame, then in each frame around
 * it as the frames close. */
static int alloc_event(struct report *r, const struct walk_event *ev)
{
	struct facc *a;

	if (extras_begin(r, ev->depth))
		return -ENOMEM;
	r->allocs = true;
	if (ev->alloc_freed)
		return 0;
	if (!(a = acc_at(r, ev->depth)))
		return -ENOMEM;
	a->bytes += ev->alloc_size;
	a->count++;
	return 0;
}

/* Samples: what the thread used since its previous one, counted in the
 * innermost shown frame, then in each frame around it as they close. */
static int sample_event(struct report *r, const struct walk_event *ev)
{
	struct facc *a;

	if (extras_begin(r, ev->depth))
		return -ENOMEM;
	r->samples = true;
	if (!(a = acc_at(r, ev->depth)))
		return -ENOMEM;
	a->cpu += ev->sample.cpu_ns;
	a->faults += ev->sample.minflt + ev->sample.majflt;
	a->switches += ev->sample.vcsw + ev->sample.ivcsw;
	if (walk_sampled_func(ev) != SRC_NO_FUNC) {
		struct sstat *s;

		if (!r->sampled && !(r->sampled = calloc(r->p->nfuncs ? r->p->nfuncs : 1, sizeof(*s))))
			return -ENOMEM;
		s = &r->sampled[ev->sample.func];
		s->cpu += ev->sample.cpu_ns;
		s->faults += ev->sample.minflt + ev->sample.majflt;
		s->switches += ev->sample.vcsw + ev->sample.ivcsw;
	}
	return 0;
}

/* Waits: their time, counted in the innermost shown frame (the blocking
 * call's own where it is shown), then in each frame around it. */
static int block_event(struct report *r, const struct walk_event *ev)
{
	struct facc *a;

	if (extras_begin(r, ev->depth))
		return -ENOMEM;
	r->blocks = true;
	if (ada_block_release(ev->block.op))
		return 0;
	if (!(a = acc_at(r, ev->depth)))
		return -ENOMEM;
	a->blocked += ev->total_ns;
	return 0;
}

static int event(void *ctx, struct walk *w, const struct walk_event *ev)
{
	struct report *r = ctx;
	struct fstat *s = &r->st[ev->func];
	struct facc *a;

	(void)w;
	if (ev->type == WALK_ALLOC)
		return alloc_event(r, ev);
	if (ev->type == WALK_SAMPLE)
		return sample_event(r, ev);
	if (ev->type == WALK_BLOCK)
		return block_event(r, ev);
	if (!r->allocs && !r->samples && !r->blocks) /* nothing to carry from frame to frame yet */
		goto times;
	if (!(a = acc_at(r, ev->depth)))
		return -ENOMEM;
	if (ev->type == WALK_ENTER) {
		*a = (struct facc){ 0 };
		return 0;
	}
	s->alloc_bytes += a->bytes;
	s->allocs += a->count;
	s->cpu += a->cpu;
	s->faults += a->faults;
	s->switches += a->switches;
	s->blocked += a->blocked;
	a[-1].blocked += a->blocked;
	a[-1].bytes += a->bytes;
	a[-1].count += a->count;
	a[-1].cpu += a->cpu;
	a[-1].faults += a->faults;
	a[-1].switches += a->switches;
times:
	if (ev->type == WALK_ENTER)
		return 0;
	if (!s->calls++ || ev->total_ns < s->min)
		s->min = ev->total_ns;
	if (ev->total_ns > s->max)
		s->max = ev->total_ns;
	s->total += ev->total_ns;
	s->self += ev->self_ns;
	return 0;
}

static int thread_end(void *ctx, struct src_process *p, const struct src_thread *t)
{
	struct report *r = ctx;

	(void)p;
	(void)t;
	if (!r->a->per_thread)
		return 0;
	if (print_table(r))
		return -ENOMEM;
	fputc('\n', r->out);
	return 0;
}

static int process_end(void *ctx, struct src_process *p)
{
	struct report *r = ctx;

	if (r->a->per_thread)
		return 0;
	view_process_header(r->out, p, r->threads);
	return print_table(r);
}

int view_report_main(const struct view_args *a, FILE *out)
{
	struct report r = { .a = a, .out = out, .key = { K_TOTAL } };

	if (a->sort)
		parse_keys(a->sort, r.key); /* checked by the command line */
	struct view_ops ops = { .ctx = &r, .process_begin = process_begin, .thread_begin = thread_begin,
				.event = event, .thread_end = thread_end, .process_end = process_end };
	int err = 0;

	for (int i = 0; i < a->npaths && !err; i++)
		err = view_run(a->paths[i], &a->filter, &ops);
	free(r.st);
	free(r.sampled);
	free(r.acc);
	return err;
}
