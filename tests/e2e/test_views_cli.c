/* test_views_cli.c - the views' command line as a newcomer meets it: the
 * usages, the default trace directory, filters that select nothing, info,
 * -C and -H, trees that start at main, and a view run the moment its
 * program ends (issue 24's "getting there").
 *
 * Programs: view_stats.h's fixture (examples/demo.c, recursion.c, fork.c).
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
#include "lib/proc.h"
#include "lib/tracerun.h"

static struct view_fixture the_fixture;

static int setup(void **state)
{
	return view_fixture_setup(&the_fixture, state);
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
	struct view_fixture *fx = *state;
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
	struct view_fixture *fx = *state;
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
	struct view_fixture *fx = *state;
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
	struct view_fixture *fx = *state;
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
 * converted; graph given only a directory shows the whole program's call tree. */
static void each_view_has_its_usage(void **state)
{
	struct view_fixture *fx = *state;
	const char *const names[] = { "replay", "report", "graph", "chrome", "perfetto", "flame", "info", "diff",
				      "leaks", "waits" };
	char *help = view_ok((const char *[]){ "--help", NULL });
	char *report = view_ok((const char *[]){ "report", "--help", NULL });
	char *replay = view_ok((const char *[]){ "replay", "--help", NULL });
	char line[64], *graph;

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
	view_expect_error((const char *[]){ "dump", fx->rec->trace, NULL }, 2,
		     "ada-symbolize: dump: no such view, nor a trace directory (the views: replay, "
		     "report, graph, chrome, perfetto, flame, info, diff, leaks and waits; every event with its registers: "
		     "ada-symbolize --dump TRACE_DIR)\n");
	view_expect_error((const char *[]){ "tui", fx->rec->trace, NULL }, 2,
		     "ada-symbolize: tui: no such view, nor a trace directory (the views: replay, "
		     "report, graph, chrome, perfetto, flame, info, diff, leaks and waits; ada-symbolize --help)\n");
	/* graph given a directory: the whole program's call tree. */
	graph = view_ok((const char *[]){ "graph", fx->rec->trace, NULL });
	assert_non_null(strstr(graph, ": the call tree\n  call tree:"));
	assert_non_null(strstr(graph, "  main\n"));
	free(graph);
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
	struct view_fixture *fx = *state;
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
	struct view_fixture *fx = *state;
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

/* replay -f: the columns asked for, in their order (timestamps of a
 * thread's lines never going back), tid's "[%6u]"; --srcline: a call's
 * source file and line after it (the demo is built with -g). */
static void replay_fields_and_srcline(void **state)
{
	struct view_fixture *fx = *state;
	char *out = view_ok((const char *[]){ "replay", "--no-args", "--thread", "0", "-f",
					      "time,duration,tid", "--srcline", fx->demo->trace, NULL });
	const char *line = strstr(out, "\n#      TIMESTAMP   DURATION [   TID] | FUNCTION\n");
	double last = -1, at;
	size_t lines = 0;

	assert_non_null(line);
	for (line = strchr(line + 1, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		if (*line == '#')
			continue;
		assert_int_equal(sscanf(line, "%lf", &at), 1);
		assert_true(at >= last);
		last = at;
		assert_non_null(strstr(line, "] | "));
		lines++;
	}
	assert_true(lines > 3);
	assert_non_null(strstr(out, "| main() { /* "));
	assert_non_null(strstr(out, "examples/demo.c:"));
	free(out);
	view_expect_error((const char *[]){ "replay", "-f", "time,nope", fx->demo->trace, NULL }, 2,
			  "ada-symbolize: --fields time,nope: expected duration, time, delta, tid or "
			  "module, separated by commas (+ before them: added to the default)\n");
	fx->passed++;
}

/* One row of diff --ns: totals, change, ratio, selves, calls of A and B, name. */
struct diff_row {
	unsigned long long ta, tb, sa, sb, ca, cb;
	char change[32], ratio[16], name[128];
};

static struct diff_row diff_row(const char *line)
{
	struct diff_row d;

	assert_int_equal(sscanf(line, "%llu %llu %31s %15s %llu %llu %llu %llu %127s", &d.ta, &d.tb,
				d.change, d.ratio, &d.sa, &d.sb, &d.ca, &d.cb, d.name), 9);
	return d;
}

/* diff A B: a trace against itself changes nothing; against another, its
 * functions are gone or new, with the calls report counts for them. */
static void diff_says_what_changed(void **state)
{
	struct view_fixture *fx = *state;
	const char *rec = fx->rec->trace, *fork = fx->fork->trace;
	char *same = view_ok((const char *[]){ "diff", "--ns", rec, rec, NULL });
	char *other = view_ok((const char *[]){ "diff", "--ns", rec, fork, NULL });
	char *report = view_ok((const char *[]){ "report", "--ns", rec, NULL });
	struct stats r = { 0 };
	size_t rows = 0, gone = 0;

	parse_report(report, &r);
	for (const char *l = strstr(same, "=\n"); l && (l = strchr(l, '\n')) && l[1]; l++) {
		struct diff_row d = diff_row(l + 1);

		assert_true(d.ta == d.tb && d.sa == d.sb && d.ca == d.cb);
		assert_string_equal(d.change, "+0");
		assert_true(!strcmp(d.ratio, "x1.00") || (!d.ta && !strcmp(d.ratio, "-")));
		assert_int_equal(d.ca, stat_of(&r, d.name)->calls);
		rows++;
	}
	assert_int_equal(rows, r.n);
	for (const char *l = strstr(other, "=\n"); l && (l = strchr(l, '\n')) && l[1]; l++) {
		struct diff_row d = diff_row(l + 1);

		if (!strcmp(d.ratio, "gone")) {
			assert_true(d.cb == 0 && d.ca == stat_of(&r, d.name)->calls);
			gone++;
		}
		if (!strcmp(d.ratio, "new"))
			assert_true(d.ca == 0 && d.cb > 0);
	}
	assert_true(gone >= 2); /* fib, is_even, is_odd */
	assert_non_null(strstr(other, " new "));
	free(same);
	free(other);
	free(report);
	/* The differential flame graph: against itself every frame white; the
	 * fork example against recursion, its frames red and new. */
	same = view_ok((const char *[]){ "diff", "--format", "svg", rec, rec, NULL });
	other = view_ok((const char *[]){ "diff", "--format", "svg", rec, fork, NULL });
	assert_true(tr_count_lines(same, (const char *[]){ "<g class=\"f\"", NULL }) > 3);
	for (const char *f = same; (f = strstr(f, "fill=\"rgb(")); f++)
		if (strncmp(f, "fill=\"rgb(255,255,255)\"", strlen("fill=\"rgb(255,255,255)\"")))
			fail_msg("a frame of a trace against itself is not white: %.40s", f);
	/* White frames on the near-white page: every frame outlined. */
	assert_non_null(strstr(same, " g.f rect { stroke: #aaa;"));
	assert_non_null(strstr(other, "data-n=\"parent_work\""));
	assert_non_null(strstr(other, ", new</title>"));
	assert_null(strstr(other, "data-n=\"fib\""));
	free(same);
	free(other);
	view_expect_error((const char *[]){ "diff", rec, NULL }, 2,
			  "ada-symbolize diff: two trace directories expected (diff [options] TRACE_A "
			  "TRACE_B), 1 given\n");
	fx->passed++;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_view_has_its_usage),
		cmocka_unit_test(views_default_to_where_programs_write),
		cmocka_unit_test(a_filter_that_selects_nothing_says_so),
		cmocka_unit_test(a_view_right_after_its_program_waits_for_the_recorder),
		cmocka_unit_test(info_says_what_was_recorded),
		cmocka_unit_test(caller_filter_and_hide),
		cmocka_unit_test(views_start_at_main),
		cmocka_unit_test(replay_fields_and_srcline),
		cmocka_unit_test(diff_says_what_changed),
	};

	tr_scrub_environment();
	setenv("ADA_DETAIL", "all", 1); /* the fixture as test_views records it */
	the_fixture.ntests = sizeof(tests) / sizeof(tests[0]);
	return cmocka_run_group_tests(tests, setup, view_fixture_teardown);
}
