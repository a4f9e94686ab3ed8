/* export_view.c - test_views_export.c's steps (see export_view.h). */
#include "e2e/export_view.h"

#include <ctype.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracee.h"

#define SYMBOLIZE ADA_ROOT "/bin/ada-symbolize"
#define MAX_ARGS 16

/* ---- traces ------------------------------------------------------------------------ */

/* Builds source with gcc and with adacc in fentry mode (registers in the
 * detail lane), runs both with args, library calls recorded (the dynamic
 * hooks: frames of other modules), and symbolizes the trace. */
static void trace_source(struct tr_case *tc, struct ex_trace *t, const char *name,
			 const char *source, const char *const args[], bool one_process)
{
	const char *const plain_flags[] = { "-O0", NULL };
	const char *const flags[] = { "-O0", "--ada-mode=fentry", NULL };
	char env_out[4300], plain[128];
	const char *const env[] = { env_out, "ADA_DYNHOOK=on", NULL };
	char *pid_dir, *base;

	snprintf(t->trace, sizeof(t->trace), "%s/trace_%s", tc->dir, name);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", t->trace);
	snprintf(plain, sizeof(plain), "%s.plain", name);
	tr_build(tc, NULL, "gcc", source, plain, plain_flags);
	tr_build(tc, NULL, TR_ADACC, source, name, flags);
	tr_run_pair(tc, name, args, env, 0);
	tr_symbolize(tc, t->trace);
	t->replay = strdup(tc->replay.out);
	if (!t->replay)
		fail_msg("out of memory");
	t->ready = true;
	if (!one_process)
		return;
	pid_dir = tracee_pid_dir(t->trace);
	if (!pid_dir)
		fail_msg("%s: not one pid_* directory", t->trace);
	base = strrchr(pid_dir, '/');
	t->pid = (uint32_t)strtoul(base + strlen("/pid_"), NULL, 10);
	free(pid_dir);
}

const struct ex_trace *ex_demo(struct tr_case *tc, struct ex_trace *t)
{
	if (!t->ready)
		trace_source(tc, t, "demo", "examples/demo.c", NULL, true);
	return t;
}

const struct ex_trace *ex_threads(struct tr_case *tc, struct ex_trace *t)
{
	if (!t->ready)
		trace_source(tc, t, "threads", "examples/threads.c", NULL, true);
	return t;
}

void ex_trace_prog(struct tr_case *tc, struct ex_trace *t, const char *name, const char *prog,
		   const char *const args[], bool one_process)
{
	trace_source(tc, t, name, prog, args, one_process);
}

void ex_trace_free(struct ex_trace *t)
{
	free(t->replay);
	t->replay = NULL;
	t->ready = false;
}

/* ---- running the views ---------------------------------------------------------------- */

void ex_run_view(struct tr_case *tc, const char *view, const struct ex_trace *t,
		 const char *const opts[], const char *out)
{
	const char *argv[MAX_ARGS + 6];
	struct proc_result res = { 0 };
	char cmd[1024], why[64];
	size_t n = 0;

	argv[n++] = SYMBOLIZE;
	argv[n++] = view;
	for (size_t i = 0; opts && opts[i] && i < MAX_ARGS; i++)
		argv[n++] = opts[i];
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = t->trace;
	argv[n] = NULL;
	tr_run(tc, argv, NULL, &res);
	proc_cmdline(argv, cmd, sizeof(cmd));
	if (proc_exit_code(&res) != 0 || res.err_len)
		fail_msg("%s: %s\n%s", cmd, proc_describe(&res, why, sizeof(why)), res.err);
	proc_result_free(&res);
}

void ex_chrome(struct tr_case *tc, const struct ex_trace *t, const char *const opts[],
	       struct xtrace *x)
{
	char out[PATH_MAX], err[512];

	tr_path(tc, "out.json", out);
	ex_run_view(tc, "chrome", t, opts, out);
	if (xtrace_load(out, x, err, sizeof(err)) < 0)
		fail_msg("%s", err);
}

/* ---- comparisons ------------------------------------------------------------------------ */

void ex_expect_nesting(const struct xtrace *x)
{
	char why[512];

	if (!xtrace_nests(x, why, sizeof(why)))
		fail_msg("slices do not nest: %s", why);
}

size_t ex_count(const struct xtrace *x, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < x->n; i++)
		n += strcmp(x->slices[i].name, name) == 0;
	return n;
}

void ex_add_count(struct ex_tally *c, size_t *n, size_t max, const char *name, unsigned long k)
{
	size_t i;

	for (i = 0; i < *n && strcmp(c[i].name, name) != 0; i++)
		;
	if (i == *n) {
		if (*n == max)
			fail_msg("more than %zu function names", max);
		snprintf(c[(*n)++].name, sizeof(c->name), "%s", name);
	}
	c[i].n += k;
}

/* The views name glibc's per-CPU variants by the function they implement
 * (symbolize/names.c); --replay keeps the symbol. The programs here call
 * libc's string functions only, so "__<name>_<CPU feature>..." is one. */
static void libc_function(char *name)
{
	static const char *const cpu[] = { "_sse2", "_ssse3", "_sse4", "_avx", "_evex", "_erms", NULL };

	if (strncmp(name, "__", 2))
		return;
	for (size_t k = 0; cpu[k]; k++) {
		char *at = strstr(name + 2, cpu[k]);

		if (at && at > name + 2) {
			memmove(name, name + 2, (size_t)(at - name) - 2);
			name[at - name - 2] = '\0';
			return;
		}
	}
}

/* The C start-up's frames, which the views leave out by default (they
 * start at main: symbolize/cxx_runtime.c) and --replay shows. */
static bool c_startup(const char *name)
{
	static const char *const startup[] = { "__libc_start_main", "_dl_audit_preinit",
					       "__cxa_finalize", NULL };

	for (size_t k = 0; startup[k]; k++)
		if (!strcmp(name, startup[k]))
			return true;
	return false;
}

/* One replay line: "<2 spaces per depth>name[@version][ xN][ (mark)]". */
static size_t replay_line(const char *line, size_t len, char *name, size_t size,
			  unsigned long *times)
{
	const char *start = line, *end = line + len, *x;

	while (start < end && *start == ' ')
		start++;
	if (end > start && end[-1] == ')') { /* " (unwound)", " (open at exit)"... */
		for (x = end - 1; x > start && !(x[0] == '(' && x[-1] == ' '); x--)
			;
		if (x > start)
			end = x - 1;
	}
	*times = 1;
	for (x = end; x > start && isdigit((unsigned char)x[-1]); x--)
		;
	if (x < end && x - 2 > start && x[-1] == 'x' && x[-2] == ' ') {
		*times = strtoul(x, NULL, 10);
		end = x - 2;
	}
	snprintf(name, size, "%.*s", (int)(end - start), start);
	name[strcspn(name, "@")] = '\0';
	libc_function(name);
	return (size_t)(start - line) / 2;
}

/* Calls per function in replay output: a line's xN multiplies its subtree. */
static size_t replay_counts(const char *replay, struct ex_tally *c, size_t max)
{
	unsigned long mult[512];
	size_t n = 0;

	for (const char *s = replay; *s;) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s), depth;
		unsigned long times;
		char name[256];

		if (len && s[0] != '#') {
			depth = replay_line(s, len, name, sizeof(name), &times);
			if (depth >= 511)
				fail_msg("replay deeper than 511");
			mult[depth] = (depth ? mult[depth - 1] : 1) * times;
			if (!c_startup(name))
				ex_add_count(c, &n, max, name, mult[depth]);
		}
		s += len + (eol != NULL);
	}
	return n;
}

void ex_expect_replay_counts(const struct xtrace *x, const char *replay)
{
	static struct ex_tally want[512], got[512];
	size_t nwant = replay_counts(replay, want, 512), ngot = 0;

	for (size_t i = 0; i < x->n; i++)
		ex_add_count(got, &ngot, 512, x->slices[i].name, 1);
	for (size_t i = 0; i < nwant; i++)
		if (ex_count(x, want[i].name) != want[i].n)
			fail_msg("%s: %zu X events, --replay shows %lu calls\n%s", want[i].name,
				 ex_count(x, want[i].name), want[i].n, replay);
	for (size_t i = 0; i < ngot; i++) {
		size_t k;

		for (k = 0; k < nwant && strcmp(want[k].name, got[i].name) != 0; k++)
			;
		if (k == nwant)
			fail_msg("%s: %lu X events, not in --replay\n%s", got[i].name, got[i].n,
				 replay);
	}
	memset(want, 0, sizeof(want));
	memset(got, 0, sizeof(got));
}

/* Place, then longer first, then name. */
static int by_identity(const void *a, const void *b)
{
	const struct xslice *x = *(const struct xslice *const *)a;
	const struct xslice *y = *(const struct xslice *const *)b;
	int c = xslice_cmp_place(x, y);

	if (c)
		return c;
	if (x->dur != y->dur)
		return x->dur < y->dur ? 1 : -1;
	return strcmp(x->name, y->name);
}

static bool passes_filter(const struct xtrace *all, const size_t *parent, size_t i,
			  enum ex_filter f, const char *arg)
{
	size_t depth = 0;
	bool under = false;

	for (size_t k = i; k != XSLICE_ROOT; k = parent[k]) {
		depth++;
		under = under || strcmp(all->slices[k].name, arg) == 0;
	}
	switch (f) {
	case EX_UNDER:
		return under;
	case EX_NOT_UNDER:
		return !under;
	case EX_DEPTH_AT_MOST:
		return depth <= strtoul(arg, NULL, 10);
	}
	return false;
}

/* got's slices equal want's, as multisets. */
static void expect_same_slices(const struct xslice **want, size_t nwant, const struct xtrace *got,
			       const char *what)
{
	const struct xslice **g = calloc(got->n + 1, sizeof(*g));

	assert_non_null(g);
	for (size_t i = 0; i < got->n; i++)
		g[i] = &got->slices[i];
	qsort(want, nwant, sizeof(*want), by_identity);
	qsort(g, got->n, sizeof(*g), by_identity);
	if (nwant != got->n)
		fail_msg("%s: %zu slices, expected %zu", what, got->n, nwant);
	for (size_t i = 0; i < nwant; i++)
		if (by_identity(&want[i], &g[i]) != 0)
			fail_msg("%s: slice %zu is %s at %lld (+%lld), expected %s at %lld (+%lld)",
				 what, i, g[i]->name, (long long)g[i]->ts, (long long)g[i]->dur,
				 want[i]->name, (long long)want[i]->ts, (long long)want[i]->dur);
	free(g);
}

void ex_expect_subset(const struct xtrace *all, const struct xtrace *got, enum ex_filter f,
		      const char *arg)
{
	size_t *parent = xtrace_parents(all);
	const struct xslice **want = calloc(all->n + 1, sizeof(*want));
	size_t n = 0;

	assert_non_null(parent);
	assert_non_null(want);
	for (size_t i = 0; i < all->n; i++)
		if (passes_filter(all, parent, i, f, arg))
			want[n++] = &all->slices[i];
	expect_same_slices(want, n, got, arg);
	free(want);
	free(parent);
}

static int by_ts(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void ex_expect_time_range(struct tr_case *tc, const struct ex_trace *t, const struct xtrace *all)
{
	int64_t *ts = calloc(all->n + 1, sizeof(*ts)), a, b;
	const struct xslice **want = calloc(all->n + 1, sizeof(*want));
	char range[64];
	const char *const opts[] = { "--time-range", range, NULL };
	struct xtrace got;
	size_t n = 0;

	assert_true(ts && want && all->n >= 3);
	for (size_t i = 0; i < all->n; i++)
		ts[i] = all->slices[i].ts;
	qsort(ts, all->n, sizeof(*ts), by_ts);
	a = ts[all->n / 3]; /* the middle third of the slices, by start */
	b = ts[2 * all->n / 3];
	snprintf(range, sizeof(range), "%lldns~%lldns", (long long)a, (long long)b);
	for (size_t i = 0; i < all->n; i++)
		if (all->slices[i].ts >= a && all->slices[i].ts < b)
			want[n++] = &all->slices[i];
	assert_true(n > 0 && n < all->n);
	ex_chrome(tc, t, opts, &got);
	expect_same_slices(want, n, &got, range);
	xtrace_free(&got);
	free(want);
	free(ts);
}
