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

struct fixture {
	struct tr_case *demo, *rec, *fork;
	char demo_pid[4300], rec_pid[4300];
	int passed;          /* tests that reached their end */
};

#define NTESTS 18

static void first_pid_dir(const struct tr_case *tc, char *out, size_t len)
{
	glob_t g;

	pid_dirs(tc->trace, &g);
	snprintf(out, len, "%s", g.gl_pathv[0]);
	globfree(&g);
}

static int setup(void **state)
{
	static struct fixture fx;

	/* demo with its library calls (the tests' default is without). */
	fx.demo = tr_traced_case("examples/demo.c", "demo", "fentry", "ADA_DYNHOOK=on");
	fx.rec = tr_traced_case("examples/recursion.c", "rec", "fentry", NULL);
	fx.fork = tr_traced_case("examples/fork.c", "fork", "cyg", NULL);
	first_pid_dir(fx.demo, fx.demo_pid, sizeof(fx.demo_pid));
	first_pid_dir(fx.rec, fx.rec_pid, sizeof(fx.rec_pid));
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct tr_case **cases[] = { &fx->demo, &fx->rec, &fx->fork };

	if (!fx)
		return 0;

	for (size_t i = 0; i < 3; i++) {
		void *s = *cases[i];

		if (s)
			((struct tr_case *)s)->passed = fx->passed == NTESTS;
		tr_teardown(&s);
	}
	return 0;
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
	struct fixture *fx = *state;
	struct want all = ALL;

	expect_report(fx->demo->trace, fx->demo_pid, NULL, &all, "demo");
	expect_report(fx->rec->trace, fx->rec_pid, NULL, &all, "recursion");
	fx->passed++;
}

static void filters_change_exactly_what_they_should(void **state)
{
	struct fixture *fx = *state;
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
	struct fixture *fx = *state;
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
	struct fixture *fx = *state;
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
	struct fixture *fx = *state;
	char *out = view_ok((const char *[]){ "replay", "-F", "fib", fx->rec->trace, NULL });

	/* fib(4) = 3, fib(2) = 1 with callees; fib(1) = 1 and fib(0) = 0 leaves. */
	assert_non_null(strstr(out, "| fib(0x4, "));
	assert_non_null(strstr(out, "} = 0x3; /* fib */"));
	assert_non_null(strstr(out, "|   fib(0x3, "));
	assert_non_null(strstr(out, "} = 0x2; /* fib */"));
	assert_non_null(strstr(out, "|       fib(0x1, "));
	assert_non_null(strstr(out, ") = 0x1;\n"));
	assert_non_null(strstr(out, ") = 0x0;\n"));
	assert_null(strstr(out, "is_even"));
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
	struct fixture *fx = *state;
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
static void parse_graph_side(const char *out, const char *side, struct stats *s)
{
	const char *line = strstr(out, side);

	assert_non_null(line);
	while ((line = strchr(line, '\n')) && *++line && line[0] != '#' &&
	       strncmp(line, "  callees:", 10)) {
		struct fstat f = { 0 };

		if (sscanf(line, " %" SCNu64 " %" SCNu64 " %127s", &f.total, &f.calls, f.name) == 3)
			*stat_of(s, f.name) = f;
	}
}

static void graph_callers_and_callees_add_up(void **state)
{
	struct fixture *fx = *state;
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
	free(out);
	free(r);
	fx->passed++;
}

/* A process with ATF only reads the same. */
static void atf_only_trace_gives_the_same_views(void **state)
{
	struct fixture *fx = *state;
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

static void expect_error(const char *const *args, int status, const char *message)
{
	struct proc_result res;

	run_sym(args, &res);
	if (proc_exit_code(&res) != status || strcmp(res.err, message))
		fail_msg("ada-symbolize %s ...: exit %d, stderr \"%s\"; expected exit %d, \"%s\"", args[0],
			 proc_exit_code(&res), res.err, status, message);
	assert_string_equal(res.out, "");
	proc_result_free(&res);
}

static void bad_input_is_one_line(void **state)
{
	struct fixture *fx = *state;
	const char *t = fx->rec->trace;
	char msg[4600];

	expect_error((const char *[]){ "report", "-t", "5xs", t, NULL }, 2,
		     "ada-symbolize: --time-filter 5xs: expected a duration with a unit (ns, us, ms, s), e.g. 10us\n");
	expect_error((const char *[]){ "report", "--time-range", "5ms~1ms", t, NULL }, 2,
		     "ada-symbolize: --time-range 5ms~1ms: expected an END later than START (the range holds no time)\n");
	expect_error((const char *[]){ "report", "--time-range", "5ms", t, NULL }, 2,
		     "ada-symbolize: --time-range 5ms: expected START~END, times since the first event with a unit (ns, us, ms, s), either side may be empty\n");
	expect_error((const char *[]){ "replay", "-D", "0", t, NULL }, 2,
		     "ada-symbolize: --depth 0: expected a depth of 1 or more\n");
	expect_error((const char *[]){ "report", "--tid", "12,x", t, NULL }, 2,
		     "ada-symbolize: --tid 12,x: expected a list of decimal numbers separated by commas\n");
	expect_error((const char *[]){ "report", "--sort", "speed", t, NULL }, 2,
		     "ada-symbolize: --sort speed: expected keys of total, self, calls, avg, min, max, name, separated by commas\n");
	expect_error((const char *[]){ "graph", "no_such_function", t, NULL }, 1,
		     "ada-symbolize graph: no_such_function: no function of that name in the trace\n");
	snprintf(msg, sizeof(msg), "ada-symbolize: %s: no pid_<pid> directory with a trace\n", fx->rec->dir);
	expect_error((const char *[]){ "report", fx->rec->dir, NULL }, 1, msg);
	expect_error((const char *[]){ "replay", "/nonexistent/trace", NULL }, 1,
		     "ada-symbolize: /nonexistent/trace: No such file or directory\n");
	fx->passed++;
}

static void pid_filter_picks_one_process(void **state)
{
	struct fixture *fx = *state;
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
	struct fixture *fx = *state;
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

/* A view run the moment its program ends may come before the recorder has
 * made raw/ (the program makes the pid directory only, and the recorder
 * holds its lock until the trace is whole): it waits for the lock, as the
 * conversion does, and shows the whole trace. Made so here: a copy of a
 * trace whose raw/ a process holding the pid directory's lock puts in
 * place half a second later (in a session of its own: proc_run ends what
 * the script leaves in its group). Before, such a view said "not a traced
 * process" and failed (about a third of the runs right after a program). */
static void a_view_right_after_its_program_waits_for_the_recorder(void **state)
{
	struct fixture *fx = *state;
	char script[20000], held[4400];
	const char *session = strstr(fx->rec_pid, "/session_");
	struct proc_result res;

	assert_non_null(session);
	snprintf(held, sizeof(held), "%s/held", fx->rec->dir);
	snprintf(script, sizeof(script),
		 "set -e; rm -rf '%s'; d='%s%s'; mkdir -p \"$d\"; cp -r '%s/raw' \"$d/raw.hold\"; "
		 "cd \"$d\"; setsid flock -x . sh -c 'touch ../../ready; sleep 0.5; mv raw.hold raw' "
		 ">/dev/null 2>&1 </dev/null & "
		 "while [ ! -e '%s/ready' ]; do sleep 0.01; done",
		 held, held, session, fx->rec_pid, held);
	assert_int_equal(proc_run((const char *[]){ "/bin/sh", "-c", script, NULL }, NULL, NULL,
				  TR_RUN_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), 0);
	proc_result_free(&res);
	run_sym((const char *[]){ "report", held, NULL }, &res);
	if (proc_exit_code(&res) != 0 || !strstr(res.out, " main\n"))
		fail_msg("report %s: exit %d: %s%s", held, proc_exit_code(&res), res.err, res.out);
	proc_result_free(&res);
	fx->passed++;
}

/* A line of text that starts with prefix: its rest, up to the newline. */
static const char *field(const char *text, const char *prefix, char *out, size_t len)
{
	const char *at = strstr(text, prefix), *eol;

	if (!at)
		fail_msg("no \"%s\" in\n%s", prefix, text);
	at += strlen(prefix);
	eol = strchr(at, '\n');
	snprintf(out, len, "%.*s", (int)(eol ? eol - at : (long)strlen(at)), at);
	return out;
}

/* info: per process, from process.meta, what was recorded: the demo's three
 * threads with events adding up to the total, its mode; the fork example's
 * two processes, the child naming its parent. */
static void info_says_what_was_recorded(void **state)
{
	struct fixture *fx = *state;
	char *demo = view_ok((const char *[]){ "info", fx->demo->trace, NULL });
	char *fork = view_ok((const char *[]){ "info", fx->fork->trace, NULL });
	char buf[256], pid[32];
	uint64_t sum = 0;
	const char *t;

	snprintf(pid, sizeof(pid), "# pid %s ", strrchr(fx->demo_pid, '_') + 1);
	assert_true(!strncmp(demo, pid, strlen(pid)));
	assert_string_equal(field(demo, "\n  threads        ", buf, sizeof(buf)), "3");
	for (t = demo; (t = strstr(t, "\n    thread ")); t++)
		sum += strtoull(strstr(t, "): ") + 3, NULL, 10);
	assert_true(sum > 0);
	assert_int_equal(strtoull(field(demo, "\n  events         ", buf, sizeof(buf)), NULL, 10), sum);
	assert_string_equal(field(demo, "\n  instrumented   ", buf, sizeof(buf)), "demo (fentry)");
	assert_string_equal(field(demo, "\n  ended by       ", buf, sizeof(buf)), "exit");
	assert_non_null(strstr(demo, "\n  not kept       "));
	assert_int_equal(tr_count_lines(fork, (const char *[]){ "# pid ", NULL }), 2);
	assert_int_equal(tr_count_lines(fork, (const char *[]){ "  forked from    pid ", NULL }), 1);
	assert_string_equal(field(fork, "\n  instrumented   ", buf, sizeof(buf)), "fork (cyg)");
	free(demo);
	free(fork);
	fx->passed++;
}

/* A replay's FUNCTION column, the durations and headers left out. */
static char *tree_of(const char *replay)
{
	char *t = calloc(1, strlen(replay) + 1), *q = t;

	for (const char *s = replay; t && *s;) {
		const char *eol = strchr(s, '\n'), *bar = strstr(s, " | ");

		if (!eol)
			eol = s + strlen(s);
		if (*s != '#' && bar && bar < eol) {
			memcpy(q, bar + 3, (size_t)(eol - bar - 3));
			q += eol - bar - 3;
			*q++ = '\n';
		}
		s = *eol ? eol + 1 : eol;
	}
	return t;
}

/* -C: the calls that lead to a call of is_odd, and that call (not what it
 * calls); -H: fib's frames left out, what they call (more fib: nothing) in
 * their place. recursion.c's main calls fib(4), then is_even(3). */
static void caller_filter_and_hide(void **state)
{
	struct fixture *fx = *state;
	const char *t = fx->rec->trace;
	char *c = view_ok((const char *[]){ "replay", "--no-args", "-C", "is_odd", t, NULL });
	char *h = view_ok((const char *[]){ "replay", "--no-args", "-H", "fib", t, NULL });
	char *ct = tree_of(c), *ht = tree_of(h);

	assert_string_equal(ct, "main() {\n"
				"  is_even() {\n"
				"    is_odd();\n"
				"  } /* is_even */\n"
				"} /* main */\n");
	assert_string_equal(ht, "main() {\n"
				"  is_even() {\n"
				"    is_odd() {\n"
				"      is_even() {\n"
				"        is_odd();\n"
				"      } /* is_even */\n"
				"    } /* is_odd */\n"
				"  } /* is_even */\n"
				"} /* main */\n");
	free(c);
	free(h);
	free(ct);
	free(ht);
	fx->passed++;
}

/* The first line of a replay that is not a header. */
static const char *first_frame(const char *replay)
{
	while (*replay == '#' && strchr(replay, '\n'))
		replay = strchr(replay, '\n') + 1;
	return replay;
}

/* A view starts at main: the C start-up's frames (__libc_start_main around
 * main, the loader's audit call, __cxa_finalize) are not shown, what they
 * call stands in their place, and -D counts from main; --all-frames shows
 * them. */
static void views_start_at_main(void **state)
{
	struct fixture *fx = *state;
	const char *t = fx->demo->trace; /* recorded with the dynamic hooks: libc's calls */
	char *tree = view_ok((const char *[]){ "replay", "--no-args", t, NULL });
	char *all = view_ok((const char *[]){ "replay", "--no-args", "--all-frames", t, NULL });
	char *d1 = view_ok((const char *[]){ "report", "--ns", "-D", "1", t, NULL });
	struct stats s = { 0 };

	assert_non_null(strstr(first_frame(tree), "| main() {\n"));
	assert_null(strstr(tree, "__libc_start_main"));
	assert_null(strstr(tree, "_dl_audit_preinit"));
	assert_null(strstr(tree, "__cxa_finalize"));
	assert_non_null(strstr(first_frame(all), "| __libc_start_main() {\n"));
	assert_non_null(strstr(all, "|   main() {\n"));
	/* Depth 1: main, and the workers' start routine. */
	parse_report(d1, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(stat_of(&s, "main")->calls, 1);
	assert_int_equal(stat_of(&s, "evaluate")->calls, 2);
	free(tree);
	free(all);
	free(d1);
	fx->passed++;
}

/* ada-symbolize's usage names every view and what each shows; a view's own
 * help names its options and no other view's; a word that is neither a
 * view nor a path (uftrace's dump, tui) is a usage error, nothing
 * converted; graph given only a directory says the function is missing. */
static void each_view_has_its_usage(void **state)
{
	struct fixture *fx = *state;
	const char *const names[] = { "replay", "report", "graph", "chrome", "perfetto", "flame", "info" };
	char *help = view_ok((const char *[]){ "--help", NULL });
	char *report = view_ok((const char *[]){ "report", "--help", NULL });
	char *replay = view_ok((const char *[]){ "replay", "--help", NULL });
	char line[64], msg[4600];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(line, sizeof(line), "\n  %-9s ", names[i]);
		assert_non_null(strstr(help, line));
	}
	assert_non_null(strstr(report, "usage: ada-symbolize report [options] [TRACE_DIR...]\n"));
	assert_non_null(strstr(report, "  -s, --sort KEY[,KEY] "));
	assert_non_null(strstr(report, "  --threads "));
	assert_null(strstr(report, "--merge"));
	assert_null(strstr(report, "--format"));
	assert_non_null(strstr(replay, "usage: ada-symbolize replay [options] [TRACE_DIR...]\n"));
	assert_non_null(strstr(replay, "  --merge "));
	assert_null(strstr(replay, "--sort"));
	expect_error((const char *[]){ "dump", fx->rec->trace, NULL }, 2,
		     "ada-symbolize: dump: no such view, nor a trace directory (the views: replay, "
		     "report, graph, chrome, perfetto, flame and info; every event with its registers: "
		     "ada-symbolize --dump TRACE_DIR)\n");
	expect_error((const char *[]){ "tui", fx->rec->trace, NULL }, 2,
		     "ada-symbolize: tui: no such view, nor a trace directory (the views: replay, "
		     "report, graph, chrome, perfetto, flame and info; ada-symbolize --help)\n");
	snprintf(msg, sizeof(msg), "ada-symbolize graph: no function given: %s is a directory, not a "
		 "function (graph FUNCTION [TRACE_DIR...])\n", fx->rec->trace);
	expect_error((const char *[]){ "graph", fx->rec->trace, NULL }, 2, msg);
	free(help);
	free(report);
	free(replay);
	fx->passed++;
}

/* Runs `ada-symbolize report` with no directory in cwd, env added. */
static char *report_in(const char *cwd, const char *const *env, int status, const char *err)
{
	const char *const argv[] = { ADA_ROOT "/bin/ada-symbolize", "report", "--ns", NULL };
	struct proc_result res;
	char *out;

	assert_int_equal(proc_run(argv, env, cwd, TR_TOOL_TIMEOUT_MS, &res), 0);
	if (proc_exit_code(&res) != status || strcmp(res.err, err))
		fail_msg("report in %s: exit %d, stderr \"%s\"; expected exit %d, \"%s\"", cwd,
			 proc_exit_code(&res), res.err, status, err);
	out = res.out;
	res.out = NULL;
	proc_result_free(&res);
	return out;
}

/* Without a directory a view reads ./ada-trace, or $ADA_OUTPUT: where the
 * traced programs put their traces. Neither there: one line. */
static void views_default_to_where_programs_write(void **state)
{
	struct fixture *fx = *state;
	char dir[] = "/tmp/ada-views-default-XXXXXX", link[64], env[4400], msg[256];
	char *want = view_ok((const char *[]){ "report", "--ns", fx->rec->trace, NULL }), *got;

	assert_non_null(mkdtemp(dir));
	snprintf(msg, sizeof(msg), "ada-symbolize report: no trace directory given, and ada-trace "
		 "does not exist (run a program built with adacc first, or name the directory)\n");
	free(report_in(dir, NULL, 2, msg));
	snprintf(link, sizeof(link), "%s/ada-trace", dir);
	assert_int_equal(symlink(fx->rec->trace, link), 0);
	got = report_in(dir, NULL, 0, "");
	assert_string_equal(got, want);
	free(got);
	unlink(link);
	snprintf(env, sizeof(env), "ADA_OUTPUT=%s", fx->rec->trace);
	got = report_in(dir, (const char *[]){ env, NULL }, 0, "");
	assert_string_equal(got, want);
	free(got);
	rmdir(dir);
	free(want);
	fx->passed++;
}

/* A filter value that selects nothing in the trace is named, with the glob
 * a regular expression may have meant; an option none of whose values
 * selects anything fails the view (exit 1). */
static void a_filter_that_selects_nothing_says_so(void **state)
{
	struct fixture *fx = *state;
	const char *t = fx->rec->trace;
	struct proc_result res;
	char pid[32], msg[256];

	run_sym((const char *[]){ "report", "-F", "fi.*", t, NULL }, &res);
	assert_int_equal(proc_exit_code(&res), 1);
	assert_string_equal(res.err, "ada-symbolize report: -F 'fi.*' matches no function of the "
				     "trace (GLOBs are shell patterns, not regular expressions: "
				     "'fi*'?)\n");
	proc_result_free(&res);
	run_sym((const char *[]){ "replay", "--pid", "4000000", t, NULL }, &res);
	assert_int_equal(proc_exit_code(&res), 1);
	snprintf(pid, sizeof(pid), "%s", strrchr(fx->rec_pid, '_') + 1);
	snprintf(msg, sizeof(msg), "ada-symbolize replay: --pid 4000000: no process of the trace has "
		 "it (the trace's: %s)\n", pid);
	assert_string_equal(res.err, msg);
	assert_string_equal(res.out, "");
	proc_result_free(&res);
	/* One -F of two matches: shown, and the other named. -N matching
	 * nothing leaves nothing out: named, not a failure. */
	run_sym((const char *[]){ "report", "-F", "fib", "-F", "nosuch", "-N", "none*", t, NULL },
		&res);
	assert_int_equal(proc_exit_code(&res), 0);
	assert_string_equal(res.err, "ada-symbolize report: -F 'nosuch' matches no function of the "
				     "trace\nada-symbolize report: -N 'none*' matches no function of "
				     "the trace\n");
	assert_non_null(strstr(res.out, "fib"));
	proc_result_free(&res);
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
		cmocka_unit_test(info_says_what_was_recorded),
		cmocka_unit_test(caller_filter_and_hide),
		cmocka_unit_test(views_start_at_main),
		cmocka_unit_test(a_view_right_after_its_program_waits_for_the_recorder),
		cmocka_unit_test(each_view_has_its_usage),
		cmocka_unit_test(views_default_to_where_programs_write),
		cmocka_unit_test(a_filter_that_selects_nothing_says_so),
	};

	tr_scrub_environment();
	/* Every detail record written (the default writes them in windows
	 * around triggers only: test_windows): these tests check them all. */
	setenv("ADA_DETAIL", "all", 1);
	return cmocka_run_group_tests(tests, setup, teardown);
}
