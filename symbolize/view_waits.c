/* view_waits.c - `ada-symbolize waits`: where threads blocked, for how long,
 * and who let them go on.
 *
 *   # pid 4242 ./prog: 3 threads
 *   2 waits, 50.193 ms blocked in all, 2 ended by another thread's release
 *        Waits       Total         Max   Woken  Function  Wait
 *   ==========  ==========  ==========  ======  ========  ====
 *            1   30.104 ms   30.104 ms       1  cond_c    pthread_cond_wait(mutex 0x55d4c0a0)
 *                                                 woken 1x by thread 0 (tid 4242) in main
 *            1   20.089 ms   20.089 ms       1  waiter_b  pthread_mutex_lock(0x55d4c0a0)
 *                                                 woken 1x by thread 1 (tid 4243) in holder_a
 *
 * A trace recorded with ADA_BLOCKING=1 (mcount/blocking.c) holds each wait
 * (a lock, a condition or semaphore wait, a read, a poll) and each release
 * (an unlock, a post) inside the frame of its call. A row is one wait
 * (op and object) in one waiting function: the shown frame that made the
 * call, not the call's own frame, which would name only the op again.
 * Rows are sorted by the time blocked, the most first. The wakers are
 * linked offline across the process's threads (lanes.h: the last release
 * of the object by another thread while the wait lasted), so a row's
 * wakers are the threads, and the shown functions that released, which
 * ended its waits; a read or a poll has none (no release is recorded of a
 * descriptor). --each lists every wait in time order instead.
 *
 * Memory: 56 bytes a wait or release, and a row a distinct wait.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "raw_format.h"
#include "view_cli.h"

#define NO_FUNC UINT32_MAX
#define NO_WAKER SIZE_MAX

/* A row: the waits [first, first + n) of the sorted order. */
struct row {
	size_t first, n, woken;
	uint64_t total, max;
};

struct waits {
	FILE *out;
	bool each, ns, full_names;
	struct src_process *p;
	struct lane_waits waits; /* tag: the thread's index in src_process.threads;
				  * aux: the shown function that called (NO_FUNC) */
	size_t *waker;           /* per wait: the index of the release that ended it */
	size_t threads;
	uint32_t cur_thread;
};

static int process_begin(void *ctx, struct src_process *p)
{
	struct waits *v = ctx;

	p->want_blocks = true;
	v->p = p;
	v->waits.n = 0;
	v->threads = 0;
	return 0;
}

static int thread_begin(void *ctx, struct src_process *p, const struct src_thread *t)
{
	struct waits *v = ctx;

	v->cur_thread = (uint32_t)(t - p->threads);
	v->threads++;
	return 0;
}

/* The function that made the call: the innermost shown frame that is not
 * the call's own (the filters may hide that one, or the caller). */
static uint32_t caller(struct walk *w, const struct walk_event *ev)
{
	uint32_t n;
	const uint32_t *funcs = walk_stack(w, &n);

	if (n && funcs[n - 1] == ev->func)
		n--;
	return n ? funcs[n - 1] : NO_FUNC;
}

static int event(void *ctx, struct walk *w, const struct walk_event *ev)
{
	struct waits *v = ctx;
	int err;

	if (ev->type != WALK_BLOCK)
		return 0;
	/* The tag is the thread: the linking passes over a wait's own releases. */
	if ((err = lane_waits_add(&v->waits, ev, v->cur_thread)))
		return err;
	v->waits.ev[v->waits.n - 1].aux = caller(w, ev);
	return 0;
}

static int link_waker(void *ctx, const struct lane_wait *waiter, const struct lane_wait *waker)
{
	struct waits *v = ctx;

	v->waker[lane_waits_index(&v->waits, waiter)] = lane_waits_index(&v->waits, waker);
	return 0;
}

/* ---- order ------------------------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* The waker's thread and function, (UINT32_MAX, UINT32_MAX) for none. */
static void waker_key(const struct waits *v, size_t i, uint32_t *thread, uint32_t *func)
{
	size_t k = v->waker[i];

	*thread = k == NO_WAKER ? UINT32_MAX : (uint32_t)v->waits.ev[k].tag;
	*func = k == NO_WAKER ? UINT32_MAX : v->waits.ev[k].aux;
}

/* By wait (op, object, function), then waker, then time: a row's waits
 * are consecutive, and so are each waker's within them. */
static int by_wait(const void *x, const void *y, void *ctx)
{
	const struct waits *v = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct lane_wait *a = &v->waits.ev[i], *b = &v->waits.ev[j];
	uint32_t at, af, bt, bf;
	int c;

	if ((c = cmp_u64(a->op, b->op)) || (c = cmp_u64(a->obj, b->obj)) ||
	    (c = cmp_u64(a->aux, b->aux)))
		return c;
	waker_key(v, i, &at, &af);
	waker_key(v, j, &bt, &bf);
	if ((c = cmp_u64(at, bt)) || (c = cmp_u64(af, bf)))
		return c;
	return cmp_u64(a->start, b->start);
}

static bool same_wait(const struct waits *v, size_t i, size_t j)
{
	const struct lane_wait *a = &v->waits.ev[i], *b = &v->waits.ev[j];

	return a->op == b->op && a->obj == b->obj && a->aux == b->aux;
}

static bool same_waker(const struct waits *v, size_t i, size_t j)
{
	uint32_t at, af, bt, bf;

	waker_key(v, i, &at, &af);
	waker_key(v, j, &bt, &bf);
	return at == bt && af == bf;
}

/* The most time blocked first; ties by count, then by the wait's order. */
static int by_total(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	int c;

	if ((c = cmp_u64(b->total, a->total)) || (c = cmp_u64(b->n, a->n)))
		return c;
	return cmp_u64(a->first, b->first);
}

static int by_start(const void *x, const void *y, void *ctx)
{
	const struct waits *v = ctx;
	const struct lane_wait *a = &v->waits.ev[*(const size_t *)x],
			       *b = &v->waits.ev[*(const size_t *)y];
	int c = cmp_u64(a->start, b->start);

	return c ? c : cmp_u64(a->tag, b->tag);
}

/* ---- printing ---------------------------------------------------------------------- */

static const char *func_name(const struct waits *v, uint32_t f)
{
	if (f == NO_FUNC)
		return "(no shown frame)";
	return v->full_names ? v->p->funcs[f].full : v->p->funcs[f].name;
}

/* "pthread_mutex_lock(0x55d4c0a0)", "pthread_cond_wait(mutex 0x55d4c0a0)",
 * "read(fd 3)", "poll()". */
static void print_wait(FILE *out, const struct lane_wait *x)
{
	static const char *const names[] = ADA_BLOCK_OP_NAMES;
	const char *name = x->op < ADA_BLOCK_NOPS ? names[x->op] : "?";

	switch (x->op) {
	case ADA_BLOCK_COND_WAIT: case ADA_BLOCK_COND_TIMEDWAIT:
		fprintf(out, "%s(mutex 0x%" PRIx64 ")", name, x->obj);
		break;
	case ADA_BLOCK_READ: case ADA_BLOCK_EPOLL_WAIT:
		fprintf(out, "%s(fd %" PRIu64 ")", name, x->obj);
		break;
	case ADA_BLOCK_POLL:
		fprintf(out, "%s()", name);
		break;
	default:
		fprintf(out, "%s(0x%" PRIx64 ")", name, x->obj);
	}
}

static void print_thread(const struct waits *v, uint32_t thread)
{
	const struct src_thread *t = &v->p->threads[thread];

	fprintf(v->out, "thread %u (tid %u)", t->id, t->tid);
}

/* "12.345678": seconds since the process's first event. */
static void print_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
}

/* A duration in a line of text: "20.101 ms", with --ns "20101234 ns". */
static const char *duration(const struct waits *v, char *buf, size_t len, uint64_t ns)
{
	if (v->ns) {
		snprintf(buf, len, "%" PRIu64 " ns", ns);
		return buf;
	}
	view_duration(buf, len, ns, false);
	return buf + strspn(buf, " ");
}

/* A row's wakers, the most waits first: one line each. */
static int print_wakers(const struct waits *v, const size_t *order, const struct row *r, int indent)
{
	struct row *runs = malloc(r->n * sizeof(*runs));
	size_t nruns = 0;

	if (!runs)
		return -ENOMEM;
	for (size_t i = r->first; i < r->first + r->n; i++) {
		if (v->waker[order[i]] == NO_WAKER)
			continue;
		if (nruns && same_waker(v, order[runs[nruns - 1].first], order[i])) {
			runs[nruns - 1].n++;
			continue;
		}
		runs[nruns++] = (struct row){ .first = i, .n = 1 };
	}
	for (size_t i = 0; i < nruns; i++) /* by_total sorts by n when totals are equal */
		runs[i].total = 0;
	qsort(runs, nruns, sizeof(*runs), by_total);
	for (size_t i = 0; i < nruns; i++) {
		const struct lane_wait *s = &v->waits.ev[v->waker[order[runs[i].first]]];

		fprintf(v->out, "%*swoken %zux by ", indent, "", runs[i].n);
		print_thread(v, (uint32_t)s->tag);
		fprintf(v->out, " in %s\n", func_name(v, s->aux));
	}
	free(runs);
	return 0;
}

static int print_table(const struct waits *v, const size_t *order, size_t nwaits)
{
	struct row *rows = malloc(nwaits * sizeof(*rows));
	size_t nrows = 0, width = strlen("Function");
	char t[48], m[48];
	int err = 0;

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < nwaits; i++) {
		const struct lane_wait *x = &v->waits.ev[order[i]];
		struct row *r;

		if (!nrows || !same_wait(v, order[rows[nrows - 1].first], order[i]))
			rows[nrows++] = (struct row){ .first = i };
		r = &rows[nrows - 1];
		r->n++;
		r->woken += v->waker[order[i]] != NO_WAKER;
		r->total += x->end - x->start;
		if (x->end - x->start > r->max)
			r->max = x->end - x->start;
	}
	for (size_t i = 0; i < nrows; i++) {
		size_t n = strlen(func_name(v, v->waits.ev[order[rows[i].first]].aux));

		width = n > width && n <= 40 ? n : width;
	}
	qsort(rows, nrows, sizeof(*rows), by_total);
	fprintf(v->out, "  %10s  %10s  %10s  %6s  %-*s  Wait\n", "Waits", "Total", "Max", "Woken",
		(int)width, "Function");
	fprintf(v->out, "  ==========  ==========  ==========  ======  %.*s  ====\n", (int)width,
		"========================================");
	for (size_t i = 0; i < nrows && !err; i++) {
		const struct row *r = &rows[i];

		fprintf(v->out, "  %10zu  %10s  %10s  %6zu  %-*s  ", r->n,
			view_duration(t, sizeof(t), r->total, v->ns),
			view_duration(m, sizeof(m), r->max, v->ns), r->woken, (int)width,
			func_name(v, v->waits.ev[order[r->first]].aux));
		print_wait(v->out, &v->waits.ev[order[r->first]]);
		fputc('\n', v->out);
		err = print_wakers(v, order, r, 48);
	}
	free(rows);
	return err;
}

/* --each: "time  thread  function  wait  blocked[  woken by ...]". */
static void print_each(const struct waits *v, const size_t *order, size_t nwaits)
{
	char d[48];

	for (size_t i = 0; i < nwaits; i++) {
		size_t k = order[i], r = v->waker[k];
		const struct lane_wait *x = &v->waits.ev[k];

		fputs("  ", v->out);
		print_time(v->out, x->start);
		fputs("  ", v->out);
		print_thread(v, (uint32_t)x->tag);
		fprintf(v->out, "  %s  ", func_name(v, x->aux));
		print_wait(v->out, x);
		fprintf(v->out, "  %s", duration(v, d, sizeof(d), x->end - x->start));
		if (r != NO_WAKER) {
			fputs("  woken by ", v->out);
			print_thread(v, (uint32_t)v->waits.ev[r].tag);
			fprintf(v->out, " in %s at ", func_name(v, v->waits.ev[r].aux));
			print_time(v->out, v->waits.ev[r].start);
		}
		fputc('\n', v->out);
	}
}

static int process_end(void *ctx, struct src_process *p)
{
	struct waits *v = ctx;
	size_t *order, nwaits = 0, woken = 0;
	uint64_t total = 0;
	char d[48];
	int err;

	view_process_header(v->out, p, v->threads);
	for (size_t i = 0; i < v->waits.n; i++)
		nwaits += !ada_block_release(v->waits.ev[i].op);
	if (!nwaits) {
		fputs("no wait recorded (a trace recorded with ADA_BLOCKING=1 has them)\n", v->out);
		return 0;
	}
	free(v->waker);
	if (!(v->waker = malloc(v->waits.n * sizeof(*v->waker))) ||
	    !(order = malloc(nwaits * sizeof(*order))))
		return -ENOMEM;
	for (size_t i = 0; i < v->waits.n; i++)
		v->waker[i] = NO_WAKER;
	if ((err = lane_waits_link(&v->waits, link_waker, v))) {
		free(order);
		return err;
	}
	nwaits = 0;
	for (size_t i = 0; i < v->waits.n; i++) {
		const struct lane_wait *x = &v->waits.ev[i];

		if (ada_block_release(x->op))
			continue;
		order[nwaits++] = i;
		total += x->end - x->start;
		woken += v->waker[i] != NO_WAKER;
	}
	fprintf(v->out, "%zu wait%s, %s blocked in all, %zu ended by another thread's release\n",
		nwaits, nwaits == 1 ? "" : "s", duration(v, d, sizeof(d), total), woken);
	qsort_r(order, nwaits, sizeof(*order), v->each ? by_start : by_wait, v);
	if (v->each)
		print_each(v, order, nwaits);
	else
		err = print_table(v, order, nwaits);
	free(order);
	return err;
}

int view_waits_main(const struct view_args *a, FILE *out)
{
	struct waits v = { .out = out, .each = a->each, .ns = a->ns, .full_names = a->full_names };
	struct view_ops ops = { .ctx = &v, .process_begin = process_begin,
				.thread_begin = thread_begin, .event = event,
				.process_end = process_end };
	int err = 0;

	for (int i = 0; i < a->npaths && !err; i++)
		err = view_run(a->paths[i], &a->filter, &ops);
	lane_waits_free(&v.waits);
	free(v.waker);
	return err;
}
