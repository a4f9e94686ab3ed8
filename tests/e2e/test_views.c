/* test_views.c - `ada-symbolize replay | report | graph` and the filters,
 * against what the trace holds.
 *
 * The views read the raw trace; the tests compute what they must print from
 * the ATF that ada-symbolize converts the same trace into, read with the
 * tests' own reader (tests/lib/atf_read.c), so a view's durations, self
 * times, counts and filters are checked against an independent path to
 * the same events: per function the calls, total, self, min and max of
 * `report --ns` equal the ATF's exactly, under each filter.
 *
 * Programs: examples/demo.c (two worker threads parsing expressions, in
 * fentry mode so the detail lane gives registers), examples/recursion.c
 * (fib(4) and is_even(3), fentry: arguments), examples/fork.c (two
 * processes, cyg).
 */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e/view_stats.h"
#include "lib/atf_read.h"
#include "lib/proc.h"
#include "lib/tracerun.h"

/* ---- the traces ---------------------------------------------------------- */

static struct view_fixture the_fixture;

static int setup(void **state)
{
	return view_fixture_setup(&the_fixture, state);
}

/* report --ns with extra args on trace, against the ATF through w. */
static void expect_report(const char *trace, const char *pid_dir, const char *const *extra,
			  const struct want *w, const char *what)
{
	/* Every frame, the C start-up's too, as the ATF has them. */
	const char *args[24] = { "report", "--ns", "--all-frames" };
	struct stats got = { 0 }, want = { 0 };
	size_t n = 3;
	char *out;

	while (extra && *extra)
		args[n++] = *extra++;
	args[n++] = trace;
	args[n] = NULL;
	out = view_ok(args);
	parse_report(out, &got);
	atf_stats(pid_dir, w, &want);
	if (!want.n)
		fail_msg("%s: the ATF has nothing to compare with", what);
	expect_same(&got, &want, what);
	free(out);
}

#define ALL { .thread = -1 }

static void report_equals_the_atf(void **state)
{
	struct view_fixture *fx = *state;
	struct want all = ALL;

	expect_report(fx->demo->trace, fx->demo_pid, NULL, &all, "demo");
	expect_report(fx->rec->trace, fx->rec_pid, NULL, &all, "recursion");
	fx->passed++;
}

static void filters_change_exactly_what_they_should(void **state)
{
	struct view_fixture *fx = *state;
	struct want notrace = ALL, only = ALL, depth = ALL, thread = ALL, slow = ALL, range = ALL;
	char r[64];

	notrace.notrace = "fib";
	expect_report(fx->rec->trace, fx->rec_pid, (const char *[]){ "-N", "fib", NULL }, &notrace, "-N fib");
	only.only = "is_odd";
	expect_report(fx->rec->trace, fx->rec_pid, (const char *[]){ "-F", "is_*d", NULL }, &only, "-F is_*d");
	depth.depth = 3;
	expect_report(fx->rec->trace, fx->rec_pid, (const char *[]){ "-D", "3", NULL }, &depth, "-D 3");
	thread.thread = 1;
	expect_report(fx->demo->trace, fx->demo_pid, (const char *[]){ "--thread", "1", NULL }, &thread,
		      "--thread 1");
	slow.min_ns = 2000;
	expect_report(fx->demo->trace, fx->demo_pid, (const char *[]){ "-t", "2us", NULL }, &slow, "-t 2us");
	/* From thread 1's 5th event to its 21st (of 26 or more), the bounds
	 * half way between events: the view times events from the raw ticks,
	 * the ATF's nanoseconds may round the other way by one, and a bound on
	 * an event's own time failed the test once under load. */
	range.range = true;
	range.lo = (event_time(fx->demo_pid, 1, 3) + event_time(fx->demo_pid, 1, 4)) / 2;
	range.hi = (event_time(fx->demo_pid, 1, 19) + event_time(fx->demo_pid, 1, 20)) / 2;
	snprintf(r, sizeof(r), "%" PRIu64 "ns~%" PRIu64 "ns", range.lo, range.hi);
	expect_report(fx->demo->trace, fx->demo_pid, (const char *[]){ "--time-range", r, NULL }, &range, r);
	fx->passed++;
}

/* -M: the executable's functions only; what they call elsewhere is their
 * self time. */
static void module_filter_keeps_the_executables_functions(void **state)
{
	struct view_fixture *fx = *state;
	struct stats all = { 0 }, mod = { 0 };
	char *a = view_ok((const char *[]){ "report", "--ns", fx->demo->trace, NULL });
	char *m = view_ok((const char *[]){ "report", "--ns", "-M", "demo", fx->demo->trace, NULL });
	const char *libc[] = { "pthread_create", "pthread_join", "printf" };
	size_t i;

	parse_report(a, &all);
	parse_report(m, &mod);
	for (i = 0; i < sizeof(libc) / sizeof(libc[0]); i++) {
		assert_non_null(strstr(a, libc[i]));
		assert_null(strstr(m, libc[i]));
	}
	for (i = 0; i < mod.n; i++) {
		const struct fstat *f = &mod.f[i], *g = stat_of(&all, f->name);

		assert_int_equal(f->calls, g->calls);
		assert_int_equal(f->total, g->total);
	}
	assert_true(mod.n >= 5); /* main, worker, evaluate, parse_expr, parse_term, ... */
	assert_int_equal(stat_of(&mod, "main")->self, stat_of(&mod, "main")->total);
	free(a);
	free(m);
	fx->passed++;
}

struct rframe {
	uint64_t children;
	char name[128];
};

/* replay --ns --no-args: a parent's duration is at least its children's,
 * and every call of the report is a line. */
static void replay_durations_nest(void **state)
{
	struct view_fixture *fx = *state;
	char *out = view_ok((const char *[]){ "replay", "--ns", "--no-args", fx->demo->trace, NULL });
	struct stats report = { 0 }, lines = { 0 };
	char *rep = view_ok((const char *[]){ "report", "--ns", fx->demo->trace, NULL });
	struct rframe st[256];
	size_t depth = 0, i;
	char *line, *save = NULL;

	parse_report(rep, &report);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *bar = strstr(line, " | "), *body;
		uint64_t dur = 0;
		bool has_dur;

		if (line[0] == '#')
			continue;
		assert_non_null(bar);
		has_dur = sscanf(line, " %" SCNu64, &dur) == 1;
		body = bar + 3;
		while (*body == ' ')
			body++;
		if (body[0] == '}') { /* a return */
			assert_true(has_dur && depth > 0);
			depth--;
			assert_true(dur >= st[depth].children);
			if (depth)
				st[depth - 1].children += dur;
			stat_of(&lines, st[depth].name)->calls++;
			continue;
		}
		if (strstr(body, " {")) { /* a call with callees */
			assert_false(has_dur);
			assert_true(depth < 256);
			st[depth].children = 0;
			snprintf(st[depth].name, sizeof(st[depth].name), "%.*s", (int)strcspn(body, "("), body);
			depth++;
			continue;
		}
		assert_true(has_dur); /* a leaf: "name();" */
		if (depth)
			st[depth - 1].children += dur;
		body[strcspn(body, "(")] = '\0';
		stat_of(&lines, body)->calls++;
	}
	assert_int_equal(depth, 0);
	assert_int_equal(lines.n, report.n);
	for (i = 0; i < report.n; i++)
		assert_int_equal(stat_of(&lines, report.f[i].name)->calls, report.f[i].calls);
	free(out);
	free(rep);
	fx->passed++;
}

/* fentry's detail lane: fib's argument and return registers. */
static void replay_shows_arguments_and_return_values(void **state)
{
	struct view_fixture *fx = *state;
	char *out = view_ok((const char *[]){ "replay", "-F", "fib", fx->rec->trace, NULL });

	/* fib(4) = 3, fib(2) = 1 with callees; fib(1) = 1 and fib(0) = 0
	 * leaves: its parameter by name and type (the DWARF's int n). */
	assert_non_null(strstr(out, "| fib(n=4) {\n"));
	assert_non_null(strstr(out, "} = 3; /* fib */"));
	assert_non_null(strstr(out, "|   fib(n=3) {\n"));
	assert_non_null(strstr(out, "} = 2; /* fib */"));
	assert_non_null(strstr(out, "|       fib(n=1) = 1;\n"));
	assert_non_null(strstr(out, " fib(n=0) = 0;\n"));
	assert_null(strstr(out, "is_even"));
	free(out);
	/* The registers themselves: rdi first, rax for the value. */
	out = view_ok((const char *[]){ "replay", "--raw-args", "-F", "fib", fx->rec->trace, NULL });
	assert_non_null(strstr(out, "| fib(0x4, "));
	assert_non_null(strstr(out, "} = 0x3; /* fib */"));
	assert_non_null(strstr(out, ") = 0x0;\n"));
	free(out);
	out = view_ok((const char *[]){ "replay", "--fold", "--no-args", "-F", "fib", fx->rec->trace, NULL });
	/* fib(2)'s fib(1) and fib(0): one line; fib(3)'s fib(1) stays alone. */
	assert_int_equal(tr_count_lines(out, (const char *[]){ "fib x2;", NULL }), 2);
	assert_int_equal(tr_count_lines(out, (const char *[]){ "fib();", NULL }), 1);
	free(out);
	fx->passed++;
}

/* Lines of out that hold needle, in order, with the TID column cut. */
static char *lines_of(const char *out, const char *tid_col)
{
	size_t len = strlen(out) + 1, n = 0;
	char *res = calloc(1, len);
	const char *line = out;

	assert_non_null(res);
	while (*line) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);

		if (line[0] != '#' && (!tid_col || memmem(line, (size_t)(end - line), tid_col, strlen(tid_col)))) {
			const char *bar = memmem(line, (size_t)(end - line), " | ", 3);

			assert_non_null(bar);
			n += (size_t)snprintf(res + n, len - n, "%.*s\n", (int)(end - bar), bar);
		}
		line = nl ? nl + 1 : end;
	}
	return res;
}

static void merged_replay_keeps_each_threads_order(void **state)
{
	struct view_fixture *fx = *state;
	char *merged = view_ok((const char *[]){ "replay", "--merge", "--ns", fx->demo->trace, NULL });
	char *manifest, path[4400], col[32];
	const char *p;
	unsigned threads = 0;

	snprintf(path, sizeof(path), "%s/manifest.json", fx->demo_pid);
	manifest = proc_read_file(path, NULL);
	assert_non_null(manifest);
	for (p = manifest; (p = strstr(p, "\"os_tid\": ")); p++) {
		unsigned tid = (unsigned)strtoul(p + strlen("\"os_tid\": "), NULL, 10);
		char arg[16], *one, *mine, *want;

		snprintf(arg, sizeof(arg), "%u", tid);
		snprintf(col, sizeof(col), "[%6u] | ", tid);
		one = view_ok((const char *[]){ "replay", "--ns", "--tid", arg, fx->demo->trace, NULL });
		mine = lines_of(merged, col);
		want = lines_of(one, NULL);
		assert_string_equal(mine, want);
		assert_true(strlen(want) > 0);
		threads++;
		free(one);
		free(mine);
		free(want);
	}
	assert_int_equal(threads, 3);
	free(manifest);
	free(merged);
	fx->passed++;
}

/* The lines after "  callers:" (or "  callees:") of graph --ns into s:
 * "<total> <calls> name", up to the next side or entry. */
/* A section of graph's ("callers:", "backtraces:"...): its lines, up to
 * the next section's heading or process. */
static void parse_graph_side(const char *out, const char *side, struct stats *s)
{
	const char *line = strstr(out, side);

	assert_non_null(line);
	while ((line = strchr(line, '\n')) && *++line && !strncmp(line, "   ", 3)) {
		struct fstat f = { 0 };

		if (sscanf(line, " %" SCNu64 " %" SCNu64 " %127s", &f.total, &f.calls, f.name) == 3)
			*stat_of(s, f.name) = f;
	}
}

static void graph_callers_and_callees_add_up(void **state)
{
	struct view_fixture *fx = *state;
	char *out = view_ok((const char *[]){ "graph", "--ns", "fib", fx->rec->trace, NULL });
	struct stats rep = { 0 }, callers = { 0 }, callees = { 0 };
	char *r = view_ok((const char *[]){ "report", "--ns", fx->rec->trace, NULL });
	const struct fstat *fib;
	uint64_t calls, total, self;

	parse_report(r, &rep);
	fib = stat_of(&rep, "fib");
	assert_int_equal(sscanf(strstr(out, "fib: "), "fib: %" SCNu64 " calls, total %" SCNu64 ", self %" SCNu64,
				&calls, &total, &self), 3);
	assert_int_equal(calls, 9);
	assert_int_equal(calls, fib->calls);
	assert_int_equal(total, fib->total);
	assert_int_equal(self, fib->self);
	parse_graph_side(out, "callers:", &callers);
	parse_graph_side(out, "callees:", &callees);
	assert_int_equal(callers.n, 2);
	assert_int_equal(stat_of(&callers, "main")->calls, 1);
	assert_int_equal(stat_of(&callers, "fib")->calls, 8);
	assert_int_equal(stat_of(&callers, "main")->total + stat_of(&callers, "fib")->total, total);
	assert_int_equal(callees.n, 1);
	assert_int_equal(stat_of(&callees, "fib")->calls, 8);
	/* Self plus what it called is its total. */
	assert_int_equal(self + stat_of(&callees, "fib")->total, total);
	/* The call tree: fib's calls merged at its root, main's one; its
	 * nodes' calls add up to all of fib's. The backtraces: every call of
	 * fib under one of them, the outermost alone under main. */
	const char *tree = strstr(out, "  call tree:"), *bt = strstr(out, "  backtraces:");
	uint64_t tcalls = 0, bcalls = 0, t0, c0;

	assert_non_null(tree);
	assert_non_null(bt);
	assert_int_equal(sscanf(strchr(tree, '\n') + 1, " %" SCNu64 " %" SCNu64 " fib\n", &t0, &c0), 2);
	assert_int_equal(c0, 1);
	assert_int_equal(t0, stat_of(&callers, "main")->total);
	for (const char *l = strchr(tree, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
		uint64_t t, c;

		if (sscanf(l + 1, " %" SCNu64 " %" SCNu64, &t, &c) == 2)
			tcalls += c;
	}
	assert_int_equal(tcalls, calls);
	for (const char *l = strchr(bt, '\n'); l && l[1] && l[3] == '#'; l = strchr(l + 1, '\n')) {
		uint64_t t, c;

		assert_int_equal(sscanf(l + 1, " #%*u %" SCNu64 " %" SCNu64, &t, &c), 2);
		bcalls += c;
	}
	assert_int_equal(bcalls, calls);
	assert_non_null(strstr(bt, "  fib < main\n"));
	free(out);
	free(r);
	fx->passed++;
}

/* A process with ATF only reads the same. */
static void atf_only_trace_gives_the_same_views(void **state)
{
	struct view_fixture *fx = *state;
	char copy[4400], raw[4500];
	const char *cp[] = { "cp", "-r", fx->rec_pid, NULL, NULL };
	struct proc_result res;
	char *a, *b;

	snprintf(copy, sizeof(copy), "%s/atf_only", fx->rec->dir);
	cp[3] = copy;
	assert_int_equal(proc_run(cp, NULL, NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), 0);
	proc_result_free(&res);
	snprintf(raw, sizeof(raw), "%s/raw", copy);
	assert_int_equal(proc_rm_rf(raw), 0);
	a = view_ok((const char *[]){ "report", "--ns", fx->rec_pid, NULL });
	b = view_ok((const char *[]){ "report", "--ns", copy, NULL });
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = view_ok((const char *[]){ "replay", "--ns", fx->rec_pid, NULL });
	b = view_ok((const char *[]){ "replay", "--ns", copy, NULL });
	assert_string_equal(a, b);
	free(a);
	free(b);
	fx->passed++;
}

static void bad_input_is_one_line(void **state)
{
	struct view_fixture *fx = *state;
	const char *t = fx->rec->trace;
	char msg[4600];

	view_expect_error((const char *[]){ "report", "-t", "5xs", t, NULL }, 2,
		     "ada-symbolize: --time-filter 5xs: expected a duration with a unit (ns, us, ms, s), e.g. 10us\n");
	view_expect_error((const char *[]){ "report", "--time-range", "5ms~1ms", t, NULL }, 2,
		     "ada-symbolize: --time-range 5ms~1ms: expected an END later than START (the range holds no time)\n");
	view_expect_error((const char *[]){ "report", "--time-range", "5ms", t, NULL }, 2,
		     "ada-symbolize: --time-range 5ms: expected START~END, times since the first event with a unit (ns, us, ms, s), either side may be empty\n");
	view_expect_error((const char *[]){ "replay", "-D", "0", t, NULL }, 2,
		     "ada-symbolize: --depth 0: expected a depth of 1 or more\n");
	view_expect_error((const char *[]){ "report", "--tid", "12,x", t, NULL }, 2,
		     "ada-symbolize: --tid 12,x: expected a list of decimal numbers separated by commas\n");
	view_expect_error((const char *[]){ "report", "--sort", "speed", t, NULL }, 2,
		     "ada-symbolize: --sort speed: expected keys of total, self, calls, avg, min, max, alloc-bytes, alloc-count, cpu, offcpu, faults, switches, name, separated by commas\n");
	view_expect_error((const char *[]){ "graph", "no_such_function", t, NULL }, 1,
		     "ada-symbolize graph: no_such_function: no function of that name in the trace\n");
	snprintf(msg, sizeof(msg), "ada-symbolize: %s: no pid_<pid> directory with a trace\n", fx->rec->dir);
	view_expect_error((const char *[]){ "report", fx->rec->dir, NULL }, 1, msg);
	view_expect_error((const char *[]){ "replay", "/nonexistent/trace", NULL }, 1,
		     "ada-symbolize: /nonexistent/trace: No such file or directory\n");
	fx->passed++;
}

static void pid_filter_picks_one_process(void **state)
{
	struct view_fixture *fx = *state;
	char *all = view_ok((const char *[]){ "report", fx->fork->trace, NULL }), arg[16];
	const char *first = strstr(all, "# pid "), *second;
	unsigned pid2;
	char *one;

	assert_non_null(first);
	second = strstr(first + 1, "# pid ");
	assert_non_null(second);
	assert_int_equal(sscanf(second, "# pid %u", &pid2), 1);
	snprintf(arg, sizeof(arg), "%u", pid2);
	one = view_ok((const char *[]){ "report", "--pid", arg, fx->fork->trace, NULL });
	assert_string_equal(one, second);
	free(one);
	free(all);
	fx->passed++;
}

static void report_sorts_and_splits_by_thread(void **state)
{
	struct view_fixture *fx = *state;
	char *by_calls = view_ok((const char *[]){ "report", "--ns", "-s", "calls,self", fx->demo->trace, NULL });
	char *threads = view_ok((const char *[]){ "report", "--ns", "--threads", fx->demo->trace, NULL });
	struct stats whole = { 0 }, split = { 0 };
	const char *line;
	uint64_t last = UINT64_MAX, last_self = UINT64_MAX;
	size_t i;

	/* By calls, ties by self time (two keys). */
	for (line = by_calls; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		uint64_t total, self, calls;

		if (sscanf(line, " %" SCNu64 " %" SCNu64 " %" SCNu64, &total, &self, &calls) != 3)
			continue;
		assert_true(calls <= last);
		assert_true(calls < last || self <= last_self);
		last = calls;
		last_self = self;
	}
	parse_report(by_calls, &whole);
	/* Per thread: the same calls in all, spread over three tables. */
	for (line = threads; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		struct stats one = { 0 };
		const char *end = strstr(line, "\n\n");
		char *table;

		if (strncmp(line, "# pid ", 6))
			continue;
		table = strndup(line, end ? (size_t)(end - line) : strlen(line));
		parse_report(table, &one);
		for (i = 0; i < one.n; i++)
			stat_of(&split, one.f[i].name)->calls += one.f[i].calls;
		free(table);
	}
	assert_int_equal(tr_count_lines(threads, (const char *[]){ "# pid ", NULL }), 3);
	assert_int_equal(split.n, whole.n);
	for (i = 0; i < whole.n; i++)
		assert_int_equal(stat_of(&split, whole.f[i].name)->calls, whole.f[i].calls);
	free(by_calls);
	free(threads);
	fx->passed++;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_equals_the_atf),
		cmocka_unit_test(filters_change_exactly_what_they_should),
		cmocka_unit_test(module_filter_keeps_the_executables_functions),
		cmocka_unit_test(replay_durations_nest),
		cmocka_unit_test(replay_shows_arguments_and_return_values),
		cmocka_unit_test(merged_replay_keeps_each_threads_order),
		cmocka_unit_test(graph_callers_and_callees_add_up),
		cmocka_unit_test(atf_only_trace_gives_the_same_views),
		cmocka_unit_test(bad_input_is_one_line),
		cmocka_unit_test(pid_filter_picks_one_process),
		cmocka_unit_test(report_sorts_and_splits_by_thread),
	};

	tr_scrub_environment();
	/* Every detail record written (the default writes them in windows
	 * around triggers only: test_windows): these tests check them all. */
	setenv("ADA_DETAIL", "all", 1);
	the_fixture.ntests = sizeof(tests) / sizeof(tests[0]);
	return cmocka_run_group_tests(tests, setup, view_fixture_teardown);
}
