/* test_sessions.c - where traces go and how a normal run reads (issue 15):
 * an output directory stands for its latest session (--all for every one),
 * the programs of one job (process group) or started by a traced one share
 * it whatever second they start in (these two tests cross a second with a
 * 1.1 s sleep), a second conversion leaves the ATF alone, a process whose binary is gone
 * is skipped with one line while the others convert, the views name a
 * process by its command line, print no symbol versions, and fold the C++
 * runtime's frames unless --all-frames.
 *
 * Programs: tests/e2e/progs/sessions.c (libc calls, with the dynamic hooks
 * on), tests/e2e/progs/cxx_fold.cc (std::sort with a comparator, a vector,
 * a string, an exception through a guard object). Sessions are named by the
 * second a program starts; a test that needs two renames the first to a
 * fixed older name, one that needs one moves the pid directories together,
 * so no test depends on the clock.
 */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e/view_stats.h"
#include "lib/proc.h"
#include "lib/tracerun.h"

#define OLD_SESSION "session_20000101_000000"
#define NTESTS 9

struct fixture {
	struct tr_case *tc;
	char prog[PATH_MAX];   /* the traced sessions program */
	int passed;
};

static int setup(void **state)
{
	static struct fixture fx;
	const char *const flags[] = { "-O0", NULL };
	void *s = NULL;

	assert_int_equal(tr_setup(&s), 0);
	fx.tc = s;
	tr_build(fx.tc, NULL, TR_ADACC, "sessions", "sessions", flags);
	tr_build(fx.tc, NULL, TR_ADACXX, "tests/e2e/progs/cxx_fold.cc", "cxx_fold", flags);
	tr_build(fx.tc, NULL, TR_ADACC, "spawn_later", "spawn_later", flags);
	tr_path(fx.tc, "sessions", fx.prog);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	void *s = fx->tc;

	fx->tc->passed = fx->passed == NTESTS;
	return tr_teardown(&s);
}

/* Runs the program at path with args (NULL-terminated) and the dynamic hooks
 * on, tracing into trace; it must exit 0 with nothing on stderr. Returns its
 * pid, read from the one pid directory it added. */
static unsigned run_traced(const struct fixture *fx, const char *path, const char *trace,
			   const char *const *args)
{
	char output[PATH_MAX + 16], pattern[PATH_MAX + 32];
	const char *argv[16] = { path }, *const env[] = { output, "ADA_DYNHOOK=on", NULL };
	struct proc_result res = { 0 };
	unsigned pid = 0;
	size_t n = 1;
	glob_t before = { 0 }, after;

	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", trace);
	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_*", trace);
	glob(pattern, 0, NULL, &before);
	while (args && *args)
		argv[n++] = *args++;
	tr_run(fx->tc, argv, env, &res);
	if (proc_exit_code(&res) != 0 || res.err_len)
		fail_msg("%s: exit %d, stderr:\n%s", path, proc_exit_code(&res), res.err);
	proc_result_free(&res);
	assert_int_equal(glob(pattern, 0, NULL, &after), 0);
	assert_int_equal(after.gl_pathc, before.gl_pathc + 1);
	for (size_t i = 0; i < after.gl_pathc; i++) {
		bool old = false;

		for (size_t k = 0; k < before.gl_pathc && !old; k++)
			old = !strcmp(after.gl_pathv[i], before.gl_pathv[k]);
		if (!old)
			pid = (unsigned)strtoul(strrchr(after.gl_pathv[i], '_') + 1, NULL, 10);
	}
	globfree(&before);
	globfree(&after);
	assert_true(pid > 0);
	return pid;
}

/* <case dir>/<name>, a trace directory of one test. */
static void trace_dir(const struct fixture *fx, const char *name, char *out)
{
	tr_path(fx->tc, name, out);
}

/* The only session_* under trace, renamed to OLD_SESSION. */
static void age_session(const char *trace)
{
	char pattern[PATH_MAX + 16], to[PATH_MAX + 32];
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/session_*", trace);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	snprintf(to, sizeof(to), "%s/" OLD_SESSION, trace);
	assert_int_equal(rename(g.gl_pathv[0], to), 0);
	globfree(&g);
}

/* Every pid directory under trace moved into trace/OLD_SESSION, the other
 * sessions removed: one session, whatever seconds the runs started in. */
static void one_session(const char *trace)
{
	char pattern[PATH_MAX + 32], to[PATH_MAX + 64];
	glob_t g;

	snprintf(to, sizeof(to), "%s/" OLD_SESSION, trace);
	assert_int_equal(mkdir(to, 0755), 0);
	snprintf(pattern, sizeof(pattern), "%s/session_2*/pid_*", trace);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		snprintf(to, sizeof(to), "%s/" OLD_SESSION "/%s", trace, strrchr(g.gl_pathv[i], '/') + 1);
		assert_int_equal(rename(g.gl_pathv[i], to), 0);
		*strrchr(g.gl_pathv[i], '/') = '\0';
		rmdir(g.gl_pathv[i]); /* fails while another pid is in it */
	}
	globfree(&g);
}

static char *session_of(const char *trace, unsigned pid)
{
	char pattern[PATH_MAX + 32], *name;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_%u", trace, pid);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	*strrchr(g.gl_pathv[0], '/') = '\0';
	name = strdup(strrchr(g.gl_pathv[0], '/') + 1);
	globfree(&g);
	return name;
}

/* Runs argv tracing into trace (exit 0, nothing on stderr, out on stdout if
 * not NULL); trace then holds one session of two processes, and the default
 * report shows both: returned (malloc'd). */
static char *run_one_session_of_two(const struct fixture *fx, const char *trace,
				    const char *const argv[], const char *out)
{
	char output[PATH_MAX + 16], pattern[PATH_MAX + 32], *report;
	const char *const env[] = { output, NULL };
	struct proc_result res = { 0 };
	glob_t g;

	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", trace);
	tr_run(fx->tc, argv, env, &res);
	assert_int_equal(proc_exit_code(&res), 0);
	assert_string_equal(res.err, "");
	if (out)
		assert_string_equal(res.out, out);
	proc_result_free(&res);
	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_*", trace);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 2);
	globfree(&g);
	snprintf(pattern, sizeof(pattern), "%s/session_*", trace);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	globfree(&g);
	report = view_ok((const char *[]){ "report", trace, NULL });
	assert_int_equal(tr_count_lines(report, (const char *const[]){ "# pid ", NULL }), 2);
	return report;
}

/* A traced program started by a traced one, in a later second (posix_spawn
 * after 1.1 s): it joins its parent's session (found through the parent's
 * mapped process.meta), so the default view, the latest session, shows
 * both. */
static void a_started_program_joins_its_parents_session(void **state)
{
	struct fixture *fx = *state;
	char trace[PATH_MAX], later[PATH_MAX], *out;

	trace_dir(fx, "joined", trace);
	tr_path(fx->tc, "spawn_later", later);
	out = run_one_session_of_two(fx, trace, (const char *const[]){ later, fx->prog, "a", NULL },
				     "sessions: 1 words\nspawned: 0\n");
	assert_int_equal(tr_count_lines(out, (const char *const[]){ " start", NULL }), 1);
	assert_int_equal(tr_count_lines(out, (const char *const[]){ " measure", NULL }), 1);
	free(out);
	fx->passed++;
}

/* ada-symbolize args: its exit status, stdout and stderr. */
static int sym(const char *const *args, char **out, char **err)
{
	struct proc_result res;
	int code;

	run_sym(args, &res);
	code = proc_exit_code(&res);
	*out = res.out;
	*err = res.err;
	return code;
}

/* A test runner (ctest, make check), itself untraced, starts its tests one
 * after another: the traced programs of one job (process group: here a
 * shell, started as its own group as a shell starts a command line) share
 * a session whatever second each starts in, so the default view shows the
 * whole run; the next job starts a session of its own. */
static void the_programs_of_one_job_share_a_session(void **state)
{
	struct fixture *fx = *state;
	char trace[PATH_MAX], want[PATH_MAX + 64], script[3 * PATH_MAX];
	unsigned third;
	char *out, *err;

	trace_dir(fx, "job", trace);
	snprintf(script, sizeof(script), "'%s' a && sleep 1.1 && '%s' b", fx->prog, fx->prog);
	free(run_one_session_of_two(fx, trace, (const char *const[]){ "/bin/sh", "-c", script, NULL },
				    NULL));

	/* Another job, a second later at least: a session of its own. */
	third = run_traced(fx, fx->prog, trace, (const char *[]){ "c", NULL });
	assert_int_equal(sym((const char *[]){ "report", trace, NULL }, &out, &err), 0);
	assert_int_equal(tr_count_lines(out, (const char *const[]){ "# pid ", NULL }), 1);
	snprintf(want, sizeof(want), "# pid %u %s c: 1 thread\n", third, fx->prog);
	assert_true(!strncmp(out, want, strlen(want)));
	free(out);
	free(err);
	fx->passed++;
}

static void latest_session_by_default_every_one_with_all(void **state)
{
	struct fixture *fx = *state;
	char trace[PATH_MAX], want[2 * PATH_MAX], *out, *err, *latest, old[PATH_MAX + 32];
	unsigned first, second;

	trace_dir(fx, "latest", trace);
	first = run_traced(fx, fx->prog, trace, (const char *[]){ "a", NULL });
	age_session(trace);
	second = run_traced(fx, fx->prog, trace, (const char *[]){ "b", "c", NULL });
	latest = session_of(trace, second);

	assert_int_equal(sym((const char *[]){ "report", "--ns", trace, NULL }, &out, &err), 0);
	snprintf(want, sizeof(want),
		 "ada-symbolize: %s: reading %s, the latest of 2 sessions (--all reads them all)\n",
		 trace, latest);
	assert_string_equal(err, want);
	assert_int_equal(tr_count_lines(out, (const char *[]){ "# pid ", NULL }), 1);
	snprintf(want, sizeof(want), "# pid %u %s b c: 1 thread\n", second, fx->prog);
	assert_true(!strncmp(out, want, strlen(want)));
	free(out);
	free(err);

	/* --all: both, the older session first. */
	assert_int_equal(sym((const char *[]){ "report", "--all", trace, NULL }, &out, &err), 0);
	assert_string_equal(err, "");
	assert_int_equal(tr_count_lines(out, (const char *[]){ "# pid ", NULL }), 2);
	snprintf(want, sizeof(want), "# pid %u %s a: 1 thread\n", first, fx->prog);
	assert_true(!strncmp(out, want, strlen(want)));
	free(out);
	free(err);

	/* A session named on the command line is read, alone and quietly. */
	snprintf(old, sizeof(old), "%s/" OLD_SESSION, trace);
	assert_int_equal(sym((const char *[]){ "report", old, NULL }, &out, &err), 0);
	assert_string_equal(err, "");
	snprintf(want, sizeof(want), "# pid %u %s a: 1 thread\n", first, fx->prog);
	assert_true(!strncmp(out, want, strlen(want)));
	free(out);
	free(err);

	/* The conversion reads the same session, --all every one. */
	assert_int_equal(sym((const char *[]){ "-q", trace, NULL }, &out, &err), 0);
	free(out);
	free(err);
	snprintf(want, sizeof(want), "%s/" OLD_SESSION "/pid_%u/manifest.json", trace, first);
	assert_int_equal(access(want, F_OK), -1);
	snprintf(want, sizeof(want), "%s/%s/pid_%u/manifest.json", trace, latest, second);
	assert_int_equal(access(want, F_OK), 0);
	assert_int_equal(sym((const char *[]){ "-q", "--all", trace, NULL }, &out, &err), 0);
	snprintf(want, sizeof(want), "%s/" OLD_SESSION "/pid_%u/manifest.json", trace, first);
	assert_int_equal(access(want, F_OK), 0);
	free(out);
	free(err);
	free(latest);
	fx->passed++;
}

static void a_second_conversion_leaves_the_atf_alone(void **state)
{
	struct fixture *fx = *state;
	char trace[PATH_MAX], want[64], *out, *err;
	unsigned pid;

	trace_dir(fx, "again", trace);
	pid = run_traced(fx, fx->prog, trace, (const char *[]){ "x", NULL });
	assert_int_equal(sym((const char *[]){ trace, NULL }, &out, &err), 0);
	snprintf(want, sizeof(want), "pid %u: 1 thread, ", pid);
	assert_true(!strncmp(out, want, strlen(want)));
	assert_int_equal(tr_count_lines(out, (const char *[]){ NULL }), 1);
	assert_string_equal(err, "");
	free(out);
	free(err);

	assert_int_equal(sym((const char *[]){ trace, NULL }, &out, &err), 0);
	assert_string_equal(out, "1 process converted already, left as it is (--force converts again)\n");
	assert_string_equal(err, "");
	free(out);
	free(err);

	assert_int_equal(sym((const char *[]){ "--force", trace, NULL }, &out, &err), 0);
	assert_true(!strncmp(out, want, strlen(want)));
	assert_string_equal(err, "");
	free(out);
	free(err);
	fx->passed++;
}

static void a_process_whose_binary_is_gone_is_skipped_with_one_line(void **state)
{
	struct fixture *fx = *state;
	char trace[PATH_MAX], gone[PATH_MAX], line[3 * PATH_MAX], want[64], pid_dir[PATH_MAX + 64];
	char *out, *err;
	unsigned kept, lost;

	trace_dir(fx, "gone", trace);
	/* Another build (its own build-id: the symbols the conversion keeps
	 * for the other one do not name it). */
	tr_build(fx->tc, NULL, TR_ADACC, "sessions", "conftest", (const char *[]){ "-O1", NULL });
	tr_path(fx->tc, "conftest", gone);
	kept = run_traced(fx, fx->prog, trace, (const char *[]){ "x", NULL });
	lost = run_traced(fx, gone, trace, (const char *[]){ "y", NULL });
	one_session(trace);
	assert_int_equal(unlink(gone), 0);
	/* Without the symbols kept with the trace (which would name it:
	 * tests/e2e/test_kept.c): a trace recorded before they were kept. */
	snprintf(pid_dir, sizeof(pid_dir), "%s/.ada-symbols", trace);
	assert_int_equal(proc_rm_rf(pid_dir), 0);
	snprintf(pid_dir, sizeof(pid_dir), "%s/" OLD_SESSION "/pid_%u", trace, lost);
	snprintf(line, sizeof(line), "ada-symbolize: %s: skipped: %s no longer exists\n", pid_dir, gone);

	/* The other process converts; the run succeeds. */
	assert_int_equal(sym((const char *[]){ trace, NULL }, &out, &err), 0);
	assert_string_equal(err, line);
	snprintf(want, sizeof(want), "pid %u: 1 thread, ", kept);
	assert_true(!strncmp(out, want, strlen(want)));
	snprintf(want, sizeof(want), "pid %u", lost);
	assert_null(strstr(out, want));
	free(out);
	free(err);

	/* A view shows the other process, with the same line. */
	assert_int_equal(sym((const char *[]){ "report", trace, NULL }, &out, &err), 0);
	assert_string_equal(err, line);
	assert_int_equal(tr_count_lines(out, (const char *[]){ "# pid ", NULL }), 1);
	snprintf(want, sizeof(want), "# pid %u ", kept);
	assert_true(!strncmp(out, want, strlen(want)));
	free(out);
	free(err);

	/* graph's second look (with --all-frames, for why it found no call)
	 * does not say it again. */
	assert_int_equal(sym((const char *[]){ "graph", "-N", "main", "main", trace, NULL }, &out, &err), 1);
	assert_true(!strncmp(err, line, strlen(line)));
	assert_string_equal(err + strlen(line), "ada-symbolize graph: main: no call of a function of that name in the trace (through the filters)\n");
	free(out);
	free(err);

	/* Nothing else to convert: a failure. */
	assert_int_equal(sym((const char *[]){ pid_dir, NULL }, &out, &err), 1);
	assert_string_equal(err, line);
	assert_string_equal(out, "");
	free(out);
	free(err);
	fx->passed++;
}

/* Every name of a view's output, where it has none with a symbol version
 * and shows __libc_start_main (the dynamic hooks' libc functions; the
 * views with --all-frames, which shows the C start-up). */
static void expect_unversioned(const char *const *args)
{
	char *out, *err;

	assert_int_equal(sym(args, &out, &err), 0);
	if (strstr(out, "@GLIBC") || !strstr(out, "__libc_start_main"))
		fail_msg("ada-symbolize %s: a symbol version, or no __libc_start_main:\n%s", args[0], out);
	free(out);
	free(err);
}

static void views_name_the_command_line_and_no_symbol_version(void **state)
{
	struct fixture *fx = *state;
	char trace[PATH_MAX], want[2 * PATH_MAX], *out, *err;
	unsigned pid;

	trace_dir(fx, "names", trace);
	pid = run_traced(fx, fx->prog, trace, (const char *[]){ "two words", "it's", NULL });

	/* Arguments a shell would split or quote are quoted. */
	snprintf(want, sizeof(want), "# pid %u %s 'two words' 'it'\\''s': 1 thread\n", pid, fx->prog);
	assert_int_equal(sym((const char *[]){ "report", trace, NULL }, &out, &err), 0);
	assert_true(!strncmp(out, want, strlen(want)));
	free(out);
	free(err);
	assert_int_equal(sym((const char *[]){ "replay", trace, NULL }, &out, &err), 0);
	snprintf(want + strlen(want), sizeof(want) - strlen(want),
		 "# pid %u thread 0 tid %u (sessions)\n", pid, pid);
	assert_true(!strncmp(out, want, strlen(want)));
	free(out);
	free(err);
	snprintf(want, sizeof(want), "# pid %u %s 'two words' 'it'\\''s': main: 1 call, total ", pid,
		 fx->prog);
	assert_int_equal(sym((const char *[]){ "graph", "main", trace, NULL }, &out, &err), 0);
	assert_true(!strncmp(out, want, strlen(want)));
	free(out);
	free(err);

	expect_unversioned((const char *[]){ "report", "--all-frames", trace, NULL });
	expect_unversioned((const char *[]){ "replay", "--all-frames", trace, NULL });
	expect_unversioned((const char *[]){ "flame", "--all-frames", trace, NULL });
	expect_unversioned((const char *[]){ "--replay", trace, NULL });
	expect_unversioned((const char *[]){ "--dump", trace, NULL });
	fx->passed++;
}

static void a_normal_run_reads_as_success(void **state)
{
	struct fixture *fx = *state;
	char trace[PATH_MAX], want[128], *out, *err;
	unsigned pid;

	trace_dir(fx, "normal", trace);
	pid = run_traced(fx, fx->prog, trace, (const char *[]){ "x", NULL });
	/* One summary line, nothing about the frames exit() left open. */
	assert_int_equal(sym((const char *[]){ trace, NULL }, &out, &err), 0);
	assert_string_equal(err, "");
	assert_int_equal(tr_count_lines(out, (const char *[]){ "pid ", NULL }), 1);
	assert_null(strstr(out, "frames open"));
	assert_null(strstr(out, "EXCEPTION"));
	free(out);
	free(err);
	/* The root is __libc_start_main, open at exit: exit() runs inside it. */
	assert_int_equal(sym((const char *[]){ "--replay", trace, NULL }, &out, &err), 0);
	snprintf(want, sizeof(want),
		 "# pid %u thread 0 tid %u\n__libc_start_main (open at exit)\n  _dl_audit_preinit\n  main\n",
		 pid, pid);
	assert_true(!strncmp(out, want, strlen(want)));
	assert_null(strstr(out, "unwound"));
	free(out);
	free(err);
	fx->passed++;
}

/* The indentation of the replay line holding needle after the '|'; -1 if
 * there is none. *next: the line after it. */
static long replay_indent(const char *text, const char *needle, const char **next)
{
	const char *at = strstr(text, needle), *bar, *line;

	if (!at)
		return -1;
	for (line = at; line > text && line[-1] != '\n'; line--)
		;
	bar = strstr(line, "| ");
	*next = strchr(at, '\n') ? strchr(at, '\n') + 1 : at + strlen(at);
	return bar && bar < at ? (long)strspn(bar + 2, " ") : -1;
}

/* The Self column of report --ns, added up (not from struct stats, whose
 * names are cut at 127 bytes: two long names would be one). */
static uint64_t self_sum(const char *report)
{
	uint64_t sum = 0, total, self, calls;

	for (const char *l = report; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (sscanf(l, " %" SCNu64 " %" SCNu64 " %" SCNu64, &total, &self, &calls) == 3)
			sum += self;
	return sum;
}

static size_t names_starting(const struct stats *s, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += !strncmp(s->f[i].name, prefix, strlen(prefix));
	return n;
}

static void cxx_runtime_folded_by_default_shown_with_all_frames(void **state)
{
	struct fixture *fx = *state;
	char trace[PATH_MAX], prog[PATH_MAX], *folded, *all, *rep, *rep_all;
	struct stats f = { 0 }, a = { 0 };
	const char *next;
	long sort_at, cmp_at;

	trace_dir(fx, "cxx", trace);
	run_traced(fx, tr_path(fx->tc, "cxx_fold", prog), trace, NULL);
	rep = view_ok((const char *[]){ "report", "--ns", trace, NULL });
	rep_all = view_ok((const char *[]){ "report", "--ns", "--all-frames", trace, NULL });
	parse_report(rep, &f);
	parse_report(rep_all, &a);

	/* The program's calls are all there, where the runtime called it back
	 * too; the runtime's entry points once each; its insides not. */
	assert_int_equal(stat_of(&f, "main")->calls, 1);
	assert_int_equal(stat_of(&f, "main")->total, stat_of(&a, "main")->total);
	assert_int_equal(stat_of(&f, "check")->calls, 4);
	assert_int_equal(stat_of(&f, "Guard::~Guard")->calls, 4);
	assert_true(stat_of(&f, "less_than")->calls >= 3);
	assert_int_equal(stat_of(&f, "less_than")->calls, stat_of(&a, "less_than")->calls);
	assert_int_equal(stat_of(&f, "std::sort<int*, bool (*)(int, int)>")->calls, 1);
	assert_int_equal(stat_of(&f, "__cxa_throw")->calls, 1);
	assert_int_equal(names_starting(&f, "std::__sort"), 0);
	assert_int_equal(names_starting(&f, "std::__insertion_sort"), 0);
	assert_int_equal(names_starting(&f, "operator new"), 0);
	assert_int_equal(names_starting(&f, "_Unwind_"), 0);
	assert_int_equal(names_starting(&f, "_dl_find_object"), 0);
	assert_int_equal(names_starting(&a, "std::__sort"), 1);
	assert_true(names_starting(&a, "std::__insertion_sort") > 0);
	assert_true(names_starting(&a, "operator new") > 0);
	assert_true(names_starting(&a, "_Unwind_") > 0);
	/* Hidden frames give their time to the shown frame around them: all
	 * of main's is in the shown frames' self times. The C start-up around
	 * main is hidden too, by default, with its own time (--all-frames). */
	assert_true(self_sum(rep) >= stat_of(&f, "main")->total);
	assert_true(self_sum(rep) <= self_sum(rep_all));

	/* The comparator shows one level under std::sort. */
	folded = view_ok((const char *[]){ "replay", "--no-args", trace, NULL });
	all = view_ok((const char *[]){ "replay", "--no-args", "--all-frames", trace, NULL });
	sort_at = replay_indent(folded, "std::sort<int*, bool (*)(int, int)>() {", &next);
	cmp_at = replay_indent(next, "less_than();", &next);
	assert_true(sort_at >= 0);
	assert_int_equal(cmp_at, sort_at + 2);
	assert_true(4 * tr_count_lines(folded, (const char *[]){ NULL }) <
		    tr_count_lines(all, (const char *[]){ NULL }));
	free(rep);
	free(rep_all);
	free(folded);
	free(all);
	fx->passed++;
}

/* A function called only inside the C++ runtime's frames (the introsort
 * under std::sort): graph says the folding hides it and names the flag,
 * and shows it with --all-frames; a name the trace does not hold is an
 * error of its own; a -F naming only such frames leaves the view empty
 * and says why. */
static void a_folded_function_is_named_with_its_flag(void **state)
{
	struct fixture *fx = *state;
	char trace[PATH_MAX], prog[PATH_MAX], *out, *err;
	const char *intro = "std::__introsort_loop*";

	trace_dir(fx, "cxx_graph", trace);
	run_traced(fx, tr_path(fx->tc, "cxx_fold", prog), trace, NULL);
	assert_int_equal(sym((const char *[]){ "graph", intro, trace, NULL }, &out, &err), 1);
	assert_string_equal(out, "");
	assert_string_equal(err, "ada-symbolize graph: std::__introsort_loop*: called only inside "
			    "the C++ runtime's frames, which the views fold: --all-frames shows them\n");
	free(out);
	free(err);
	assert_int_equal(sym((const char *[]){ "graph", "--all-frames", intro, trace, NULL }, &out,
			     &err), 0);
	assert_string_equal(err, "");
	assert_int_equal(tr_count_lines(out, (const char *[]){ "# pid ", NULL }), 1);
	assert_int_equal(tr_count_lines(out, (const char *[]){ "  std::__sort<", NULL }), 1);
	free(out);
	free(err);
	assert_int_equal(sym((const char *[]){ "graph", "no_such_function", trace, NULL }, &out,
			     &err), 1);
	assert_string_equal(out, "");
	assert_string_equal(err, "ada-symbolize graph: no_such_function: no function of that "
			    "name in the trace\n");
	free(out);
	free(err);
	for (int merge = 0; merge < 2; merge++) { /* report, and replay --merge */
		const char *const report[] = { "report", "-F", intro, trace, NULL };
		const char *const replay[] = { "replay", "--merge", "-F", intro, trace, NULL };

		assert_int_equal(sym(merge ? replay : report, &out, &err), 0);
		/* the headers: report's three lines, replay's two */
		assert_int_equal(tr_count_lines(out, (const char *[]){ NULL }), merge ? 2 : 3);
		assert_string_equal(err, "ada-symbolize: -F std::__introsort_loop*: only calls "
				    "inside the C++ runtime's frames match, which the views fold: "
				    "--all-frames shows them\n");
		free(out);
		free(err);
	}
	fx->passed++;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(latest_session_by_default_every_one_with_all),
		cmocka_unit_test(a_started_program_joins_its_parents_session),
		cmocka_unit_test(the_programs_of_one_job_share_a_session),
		cmocka_unit_test(a_second_conversion_leaves_the_atf_alone),
		cmocka_unit_test(a_process_whose_binary_is_gone_is_skipped_with_one_line),
		cmocka_unit_test(views_name_the_command_line_and_no_symbol_version),
		cmocka_unit_test(a_normal_run_reads_as_success),
		cmocka_unit_test(cxx_runtime_folded_by_default_shown_with_all_frames),
		cmocka_unit_test(a_folded_function_is_named_with_its_flag),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, setup, teardown);
}
