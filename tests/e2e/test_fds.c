/* test_fds.c - ada and the program's descriptors.
 *
 * The program owns its descriptor table: it may close every descriptor from
 * 3 up, dup2 over any of them, close 0-2 and open its own files there, or
 * lower RLIMIT_NOFILE. Each test builds a program of tests/e2e/progs/ with
 * gcc and with adacc (cyg and fentry modes), runs both, and checks that the
 * program's own files hold exactly its bytes, that it printed and exited as
 * without ada, and that the trace is complete (--check, exact call counts).
 * The recorder works in a descriptor table of its own, a process's.
 *
 * When ada cannot write (no descriptor, a file size limit standing in for a
 * full disk) it says so once, counts what it lost, and what it wrote stays
 * readable. An exec that fails leaves the program traced.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/tracerun.h"

static const char *const MODES[] = { "cyg", "fentry" };
#define NMODES (sizeof(MODES) / sizeof(MODES[0]))
static const char *const O2[] = { "-O2", NULL };

/* Library calls and detail records aside: the tests count the program's own
 * calls, and a detail_full note would be a line on stderr. */
#define QUIET_ENV "ADA_DYNHOOK=off", "ADA_DETAIL=off"

/* ADA_OUTPUT=<dir>/<name> into env, the trace's path into trace. */
static const char *output_env(const struct tr_case *tc, const char *name, char *env, char *trace)
{
	tr_path(tc, name, trace);
	snprintf(env, PATH_MAX + 16, "ADA_OUTPUT=%s", trace);
	return env;
}

/* The file <dir>/<name> holds exactly `bytes`. */
static void expect_file(const struct tr_case *tc, const char *name, const char *bytes)
{
	char path[PATH_MAX];
	size_t len;
	char *got = proc_read_file(tr_path(tc, name, path), &len);

	if (!got)
		fail_msg("%s: cannot read", path);
	if (len != strlen(bytes) || memcmp(got, bytes, len) != 0)
		fail_msg("%s: %zu bytes \"%.*s\", expected %zu bytes \"%s\"", path, len, (int)len, got,
			 strlen(bytes), bytes);
	free(got);
}

/* --check passes, the replay is `tree`, the manifest counts `events` and
 * drops nothing but `max_depth` of max_depth. */
static void expect_trace(struct tr_case *tc, const char *trace, const char *tree, uint64_t events,
			 uint64_t max_depth)
{
	tr_symbolize(tc, trace);
	tr_expect_tree(tc->replay.out, tree, 1);
	tr_load_manifest(tc, trace);
	assert_int_equal(tc->mf.events, events);
	for (int r = 0; r < TR_NDROPS; r++)
		assert_int_equal(tc->mf.dropped[r], r == TR_MAX_DEPTH ? max_depth : 0);
}

/* ---- the program's descriptors are its own ----------------------------------- */

#define CLOSEFROM_CALLS 20000

static void closefrom_then_open_leaves_the_data_file_its_own(void **state)
{
	static const char *const ways[] = { "loop", "range" };
	struct tr_case *tc = *state;
	char out[64], data[64], data_plain[80], name[80], env_out[PATH_MAX + 16], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fds_closefrom", MODES[m], out, sizeof(out), O2);
		for (size_t w = 0; w < 2; w++) {
			snprintf(data, sizeof(data), "data-%s-%s", MODES[m], ways[w]);
			snprintf(data_plain, sizeof(data_plain), "%s.plain", data);
			snprintf(name, sizeof(name), "trace-%s", data);
			const char *const plain_args[] = { data_plain, ways[w], NULL };
			const char *const traced_args[] = { data, ways[w], NULL };
			const char *const env[] = { QUIET_ENV, output_env(tc, name, env_out, trace), NULL };

			tr_run_pair_args(tc, out, plain_args, traced_args, env, 0);
			assert_string_equal(tc->traced.out, "data file: 12 bytes: hello world\n");
			assert_string_equal(tc->traced.err, "");
			expect_file(tc, data, "hello world\n");
			expect_trace(tc, trace, "main\n  work x40000\n", 2 + 4 * CLOSEFROM_CALLS, 0);
		}
	}
	tr_pass(tc);
}

#define DUP2_CALLS 100000

static void dup2_over_ada_descriptors_reads_only_its_own_bytes(void **state)
{
	struct tr_case *tc = *state;
	char out[64], name[64], env_out[PATH_MAX + 16], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fds_dup2", MODES[m], out, sizeof(out), O2);
		snprintf(name, sizeof(name), "trace-%s", MODES[m]);
		const char *const env[] = { QUIET_ENV, output_env(tc, name, env_out, trace), NULL };

		tr_run_pair(tc, out, NULL, env, 0);
		assert_string_equal(tc->traced.out, "pipe: 17 bytes: from the program\n");
		assert_string_equal(tc->traced.err, "");
		expect_trace(tc, trace, "main\n  work x100000\n", 2 + 2 * DUP2_CALLS, 0);
	}
	tr_pass(tc);
}

#define STD_CALLS 1000

/* ADA_DEPTH=1: the exit report ("events not recorded: 2000 (max_depth
 * 2000)") has something to say, and must say it nowhere: descriptor 2 is
 * the program's file now. In the writer's own table only: sharing the
 * program's, a frame written while the program reopens 0-2 takes the
 * lowest free number for a few microseconds, and the program's open gets
 * another (docs/internals.md: the way where unshare is refused has that window). */
static void closed_std_descriptors_get_no_ada_line(void **state)
{
	static const char *const want[] = { "", "sum 499500\n", "the program's own stderr\n" };
	struct tr_case *tc = *state;
	char out[64], base[64], file[96], plain[80], name[80], env_out[PATH_MAX + 16];
	char trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fds_std", MODES[m], out, sizeof(out), O2);
		snprintf(base, sizeof(base), "std-%s", MODES[m]);
		snprintf(plain, sizeof(plain), "%s.plain", base);
		snprintf(name, sizeof(name), "trace-%s", base);
		const char *const plain_args[] = { plain, NULL };
		const char *const traced_args[] = { base, NULL };
		const char *const env[] = { QUIET_ENV, "ADA_DEPTH=1",
					    output_env(tc, name, env_out, trace), NULL };

		tr_run_pair_args(tc, out, plain_args, traced_args, env, 0);
		for (int i = 0; i < 3; i++) {
			snprintf(file, sizeof(file), "%s.%d", base, i);
			expect_file(tc, file, want[i]);
			snprintf(file, sizeof(file), "%s.%d", plain, i);
			expect_file(tc, file, want[i]);
		}
		expect_trace(tc, trace, "main\n", 2, 2 * STD_CALLS);
	}
	tr_pass(tc);
}

/* ---- the program's descriptor budget ------------------------------------------ */

/* RLIMIT_NOFILE 6: 3 more files, with ada as without. RLIMIT_NOFILE 3
 * before the first call (no descriptor free in the program's table): the
 * trace is complete all the same, the writer's files are in its own table.
 * (Sharing the program's table, the writer takes one for the length of a
 * write: the budget holds between writes only, so that way is not tested
 * here.) */
static void rlimit_nofile_leaves_the_program_its_budget(void **state)
{
	static const char *const limits[][2] = { { "6", "late" }, { "3", "early" } };
	static const char *const outs[] = {
		"opened 3 with RLIMIT_NOFILE 6 (then: Too many open files)\n",
		"opened 0 with RLIMIT_NOFILE 3 (then: Too many open files)\n",
	};
	struct tr_case *tc = *state;
	char out[64], name[64], env_out[PATH_MAX + 16], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fds_rlimit", MODES[m], out, sizeof(out), O2);
		for (size_t l = 0; l < 2; l++) {
			const char *const args[] = { limits[l][0], limits[l][1], NULL };

			snprintf(name, sizeof(name), "trace-%s-%s", MODES[m], limits[l][0]);
			const char *const env[] = { QUIET_ENV, output_env(tc, name, env_out, trace), NULL };

			tr_run_pair(tc, out, args, env, 0);
			assert_string_equal(tc->traced.out, outs[l]);
			assert_string_equal(tc->traced.err, "");
			expect_trace(tc, trace, "work x2000\n", 4000, 0);
		}
	}
	tr_pass(tc);
}

#define THREADS_N 6

/* RLIMIT_NOFILE 3 and 6 threads: the writer's table holds process.meta and
 * two thread files at a time (it closes the others and reopens them), and
 * keeps every event. The threads open nothing: the writer makes their ring
 * files in its own table (runtime/pool.c), so nothing is said. */
static void more_threads_than_descriptors_keep_every_event(void **state)
{
	struct tr_case *tc = *state;
	char out[64], name[64], env_out[PATH_MAX + 16], trace[PATH_MAX], tree[256] = "";

	for (int i = 0; i < THREADS_N; i++)
		strcat(tree, i ? "--- thread\nwork x100000\n" : "work x100000\n");
	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fds_threads", MODES[m], out, sizeof(out), O2);
		snprintf(name, sizeof(name), "trace-%s", MODES[m]);
		const char *const env[] = { QUIET_ENV, output_env(tc, name, env_out, trace), NULL };

		tr_run_pair(tc, out, NULL, env, 0);
		assert_string_equal(tc->traced.out, "6 threads done\n");
		assert_string_equal(tc->traced.err, "");
		expect_trace(tc, trace, tree, 2 * 100000 * THREADS_N, 0);
	}
	tr_pass(tc);
}

/* ---- when ada cannot write ---------------------------------------------------- */

/* The number right after `prefix` in err. */
static uint64_t count_after(const char *err, const char *prefix)
{
	const char *p = strstr(err, prefix);

	if (!p)
		fail_msg("no \"%s\" in stderr:\n%s", prefix, err);
	return strtoull(p + strlen(prefix), NULL, 10);
}

#define FSIZE_CALLS (1 + 200 * 1000)

/* RLIMIT_FSIZE with SIGXFSZ ignored: writes past the limit fail with EFBIG,
 * as on a full disk. The limit is set before the program starts (ulimit -f
 * 195: 99840 bytes), so that its recorder, forked at start-up, has it too
 * (a limit the program sets later is not the recorder's). One line at exit
 * names the file and the reason and counts what was lost (three lines
 * once: the ring file, the thread file, the count); the trace reads, and
 * kept + lost = every event. */
static void file_size_limit_is_said_once_and_the_trace_stays_readable(void **state)
{
	struct tr_case *tc = *state;
	char out[64], name[64], env_out[PATH_MAX + 16], trace[PATH_MAX], line[PATH_MAX + 256];
	char limited[160];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fds_fsize", MODES[m], out, sizeof(out), O2);
		snprintf(name, sizeof(name), "trace-%s", MODES[m]);
		snprintf(limited, sizeof(limited), "ulimit -f 195; trap '' XFSZ; exec ./%s 99840", out);
		const char *const env[] = { QUIET_ENV, output_env(tc, name, env_out, trace), NULL };
		const char *const argv[] = { "/bin/sh", "-c", limited, NULL };
		uint64_t lost, no_buffer;

		tr_run(tc, argv, env, &tc->traced);
		assert_int_equal(proc_exit_code(&tc->traced), 0);
		assert_non_null(strstr(tc->traced.out, "sum "));
		/* One line at exit: "ada: cannot write <trace>/session_…/pid_…/raw/
		 * thread_0.lz4: File too large: ...; events not recorded: N
		 * (no_buffer N); M events kept ..." */
		snprintf(line, sizeof(line), "ada: cannot write %s/session_", trace);
		assert_non_null(strstr(tc->traced.err, line));
		assert_non_null(strstr(tc->traced.err, "/raw/thread_0.lz4: File too large: thread 0's "
						       "events from then on were lost (counted as "
						       "no_buffer); events not recorded: "));
		lost = count_after(tc->traced.err, "; events not recorded: ");
		no_buffer = count_after(tc->traced.err, "(no_buffer ");
		assert_int_equal(lost, no_buffer); /* the one reason */
		assert_int_equal(tr_count_lines(tc->traced.err, (const char *const[]){ "ada:", NULL }),
				 1);
		tr_symbolize(tc, trace);
		tr_load_manifest(tc, trace);
		assert_true(tc->mf.events > 0 && lost > 0);
		/* A frame that ends between a call and its return leaves that
		 * call open where the file ends: the symbolizer closes it. */
		assert_int_equal(tc->mf.events + tc->mf.dropped[TR_NO_BUFFER],
				 2 * FSIZE_CALLS + tc->mf.threads[0].open_at_end);
		assert_int_equal(tc->mf.dropped[TR_NO_BUFFER], lost);
	}
	tr_pass(tc);
}

/* No room even for process.meta's header (RLIMIT_FSIZE 0, as on a full
 * disk): one line says so and that tracing is off, and no unreadable trace
 * is left (it was an empty process.meta before, without a word). */
static void process_meta_that_cannot_be_written_leaves_no_trace(void **state)
{
	struct tr_case *tc = *state;
	const char *const argv[] = { "/bin/sh", "-c",
				     "ulimit -f 0; trap '' XFSZ; exec ./fds_rlimit-cyg 6 late", NULL };
	char out[64], env_out[PATH_MAX + 16], trace[PATH_MAX], line[PATH_MAX + 64];
	const char *const env[] = { QUIET_ENV, output_env(tc, "trace", env_out, trace), NULL };
	const char *err;

	tr_build_mode_pair(tc, "fds_rlimit", "cyg", out, sizeof(out), O2);
	tr_run(tc, argv, env, &tc->traced);
	assert_int_equal(proc_exit_code(&tc->traced), 0);
	assert_string_equal(tc->traced.out, "opened 3 with RLIMIT_NOFILE 6 (then: Too many open files)\n");
	err = tc->traced.err;
	snprintf(line, sizeof(line), "ada: cannot create %s/session_", trace);
	assert_true(strncmp(err, line, strlen(line)) == 0);
	assert_non_null(strstr(err, "/raw/process.meta: File too large; tracing off\n"));
	assert_int_equal(tr_count_lines(err, (const char *const[]){ "ada:", NULL }), 1);
	assert_int_equal(tr_count_entries(trace, "session_"), 0);
	tr_pass(tc);
}

/* ---- exec that fails ----------------------------------------------------------- */

/* The exec flush of a process that had recorded nothing removes its trace;
 * the exec fails, and the calls after it are in a trace all the same. */
static void failed_exec_keeps_the_program_traced(void **state)
{
	static const char *const when[] = { "first", "between" };
	static const char *const trees[] = { "work x100\n", "work x200\n" };
	struct tr_case *tc = *state;
	char out[64], name[64], env_out[PATH_MAX + 16], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "exec_fail", MODES[m], out, sizeof(out), O2);
		for (size_t w = 0; w < 2; w++) {
			const char *const args[] = { when[w], NULL };

			snprintf(name, sizeof(name), "trace-%s-%s", MODES[m], when[w]);
			const char *const env[] = { QUIET_ENV, output_env(tc, name, env_out, trace), NULL };

			tr_run_pair(tc, out, args, env, 0);
			assert_string_equal(tc->traced.err, "");
			expect_trace(tc, trace, trees[w], 200 * (w + 1), 0);
		}
	}
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(closefrom_then_open_leaves_the_data_file_its_own),
		T(dup2_over_ada_descriptors_reads_only_its_own_bytes),
		T(closed_std_descriptors_get_no_ada_line),
		T(rlimit_nofile_leaves_the_program_its_budget),
		T(more_threads_than_descriptors_keep_every_event),
		T(file_size_limit_is_said_once_and_the_trace_stays_readable),
		T(process_meta_that_cannot_be_written_leaves_no_trace),
		T(failed_exec_keeps_the_program_traced),
	};
#undef T

	tr_scrub_environment();
	return cmocka_run_group_tests_name("runtime and the program's descriptors", tests, NULL, NULL);
}
