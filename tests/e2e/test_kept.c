/* test_kept.c - a trace outlives its build: the symbols kept with it
 * (runtime/kept_symbols.h) name it after the binary is rebuilt, deleted,
 * or the trace moved elsewhere.
 *
 * tests/e2e/progs/ring.c "exit 10": run(10) calls step(i) 10 times, each
 * calling leaf() twice; built with -g, so its functions have source lines.
 * tests/e2e/progs/renamed.c, linked with --build-id=none: main calls
 * outer(3), which calls inner() 3 times; its rebuild with -DRENAMED names
 * them otherwise. Such a module is kept by what the trace recorded of its
 * file (path, size, time, inode: file-<16 hex>.syms).
 */
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracerun.h"

#define TREE "run\n  step x10\n    leaf x2\n"
static const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", "-pthread", NULL };

static void run(struct tr_case *tc)
{
	const char *const args[] = { "exit", "10", NULL };

	tr_build_pair(tc, "ring", "ring", flags);
	tr_run_pair(tc, "ring", args, NULL, 0);
}

/* ada-symbolize ARGS... on the trace: its exit status, stderr in *err. */
static int symbolize(const char *const argv[], char **err)
{
	struct proc_result res;
	int code;

	assert_int_equal(proc_run(argv, NULL, NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
	code = proc_exit_code(&res);
	*err = strdup(res.err ? res.err : "");
	proc_result_free(&res);
	return code;
}

/* The first line of err says where the names came from, and no other. */
static void expect_kept_line(const char *err, const char *exe, const char *why,
			     const char *trace, bool lines)
{
	const char *suffix = lines ? ".syms)" : ".syms), without source lines";
	size_t len = strcspn(err, "\n"), k = strlen(suffix);
	char want[PATH_MAX * 2 + 256];

	snprintf(want, sizeof(want),
		 "ada-symbolize: %s: %s; named from the symbols kept with the trace (%s/.ada-symbols/",
		 exe, why, trace);
	if (strncmp(err, want, strlen(want)) || len < k || strncmp(err + len - k, suffix, k) ||
	    strstr(err + len, "kept with the trace"))
		fail_msg("expected one line\n%s<build-id>%s\ngot:\n%s", want, suffix, err);
}

static void rebuild(struct tr_case *tc)
{
	const char *const other[] = { "-O2", "-I" ADA_ROOT "/runtime", "-pthread",
				      "-fno-omit-frame-pointer", NULL };

	tr_build(tc, NULL, TR_ADACC, "ring", "ring", other);
}

/* Named once with the binary (which keeps its source lines), rebuilt, then
 * converted: the same tree, the lines, one line saying so. */
static void a_rebuild_keeps_the_trace_readable(void **state)
{
	struct tr_case *tc = *state;
	const char *const report[] = { ADA_ROOT "/bin/ada-symbolize", "report", tc->trace, NULL };
	const char *const convert[] = { ADA_ROOT "/bin/ada-symbolize", tc->trace, NULL };
	char exe[PATH_MAX], *err;

	run(tc);
	assert_int_equal(symbolize(report, &err), 0);
	assert_string_equal(err, "");
	free(err);
	rebuild(tc);
	assert_int_equal(symbolize(convert, &err), 0);
	expect_kept_line(err, tr_path(tc, "ring", exe), "the binary changed since the run",
			 tc->trace, true);
	free(err);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, TREE, 1);
	tr_load_manifest(tc, NULL);
	if (!strstr(tc->mf.text, "ring.c"))
		fail_msg("no source file in the manifest:\n%s", tc->mf.text);
	tr_pass(tc);
}

/* Deleted before any conversion (configure's conftest): the runtime's
 * symbols name it, without source lines. */
static void a_deleted_binary_is_named_from_the_runtimes_symbols(void **state)
{
	struct tr_case *tc = *state;
	const char *const convert[] = { ADA_ROOT "/bin/ada-symbolize", tc->trace, NULL };
	char exe[PATH_MAX], *err;

	run(tc);
	assert_int_equal(unlink(tr_path(tc, "ring", exe)), 0);
	assert_int_equal(symbolize(convert, &err), 0);
	expect_kept_line(err, exe, "the binary is gone since the run", tc->trace, false);
	free(err);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, TREE, 1);
	tr_pass(tc);
}

/* Built without -g (CMake's default build type), converted while it was
 * there, then deleted: the kept symbols are all the binary had, so the line
 * says nothing of source lines (it said "without source lines", as if the
 * trace had been converted too late). */
static void a_binary_without_lines_is_named_as_it_was(void **state)
{
	struct tr_case *tc = *state;
	const char *const nolines[] = { "-O2", "-g0", "-I" ADA_ROOT "/runtime", "-pthread", NULL };
	const char *const args[] = { "exit", "10", NULL };
	const char *const report[] = { ADA_ROOT "/bin/ada-symbolize", "report", tc->trace, NULL };
	const char *const convert[] = { ADA_ROOT "/bin/ada-symbolize", tc->trace, NULL };
	char exe[PATH_MAX], *err;

	tr_build_pair(tc, "ring", "ring", nolines);
	tr_run_pair(tc, "ring", args, NULL, 0);
	assert_int_equal(symbolize(report, &err), 0);
	free(err);
	assert_int_equal(unlink(tr_path(tc, "ring", exe)), 0);
	assert_int_equal(symbolize(convert, &err), 0);
	expect_kept_line(err, exe, "the binary is gone since the run", tc->trace, true);
	free(err);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, TREE, 1);
	tr_pass(tc);
}

/* The output directory moved (another machine) and the binary gone. */
static void a_moved_trace_is_named(void **state)
{
	struct tr_case *tc = *state;
	char moved[PATH_MAX], exe[PATH_MAX], *err;
	const char *const convert[] = { ADA_ROOT "/bin/ada-symbolize", moved, NULL };

	run(tc);
	tr_path(tc, "moved", moved);
	assert_int_equal(rename(tc->trace, moved), 0);
	assert_int_equal(unlink(tr_path(tc, "ring", exe)), 0);
	assert_int_equal(symbolize(convert, &err), 0);
	expect_kept_line(err, exe, "the binary is gone since the run", moved, false);
	free(err);
	tr_symbolize(tc, moved);
	tr_expect_tree(tc->replay.out, TREE, 1);
	tr_pass(tc);
}

/* Nothing kept (the directory removed) and the binary gone: the error it
 * always was, one line naming the file. */
static void without_kept_symbols_a_gone_binary_is_an_error(void **state)
{
	struct tr_case *tc = *state;
	const char *const convert[] = { ADA_ROOT "/bin/ada-symbolize", tc->trace, NULL };
	char kept[4300], exe[PATH_MAX], *err;

	run(tc);
	snprintf(kept, sizeof(kept), "%s/.ada-symbols", tc->trace);
	assert_int_equal(proc_rm_rf(kept), 0);
	assert_int_equal(unlink(tr_path(tc, "ring", exe)), 0);
	assert_int_not_equal(symbolize(convert, &err), 0);
	if (!strstr(err, exe) || strstr(err, "kept with the trace"))
		fail_msg("expected a line naming %s:\n%s", exe, err);
	free(err);
	tr_pass(tc);
}

/* ---- a module without a build-id -------------------------------------------------- */

#define RENAMED_TREE "main\n  outer\n    inner x3\n"

static void build_renamed(struct tr_case *tc, bool renamed)
{
	const char *const first[] = { "-O2", "-g", "-Wl,--build-id=none", NULL };
	const char *const second[] = { "-O2", "-g", "-Wl,--build-id=none", "-DRENAMED", NULL };

	if (renamed)
		tr_build(tc, NULL, TR_ADACC, "renamed", "renamed", second);
	else
		tr_build_pair(tc, "renamed", "renamed", first);
}

/* The one file-* kept for the trace: "<trace>/.ada-symbols/file-<16 hex>.syms". */
static void kept_by_file(const char *trace, char *out, size_t len)
{
	char dir[PATH_MAX];
	struct dirent *e;
	size_t found = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/.ada-symbols", trace);
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "file-", 5)) {
			assert_int_equal(strlen(e->d_name), strlen("file-") + 16 + strlen(".syms"));
			assert_int_equal(strspn(e->d_name + 5, "0123456789abcdef"), 16);
			snprintf(out, len, "%s/%s", dir, e->d_name);
			found++;
		}
	closedir(d);
	assert_int_equal(found, 1);
}

/* Deleted: named from the runtime's symbols, kept by file. */
static void a_deleted_binary_without_build_id_is_named(void **state)
{
	struct tr_case *tc = *state;
	const char *const convert[] = { ADA_ROOT "/bin/ada-symbolize", tc->trace, NULL };
	char exe[PATH_MAX], kept[PATH_MAX], want[3 * PATH_MAX], *err;

	build_renamed(tc, false);
	tr_run_pair(tc, "renamed", NULL, NULL, 0);
	kept_by_file(tc->trace, kept, sizeof(kept));
	assert_int_equal(unlink(tr_path(tc, "renamed", exe)), 0);
	assert_int_equal(symbolize(convert, &err), 0);
	snprintf(want, sizeof(want), "ada-symbolize: %s: the binary is gone since the run; named "
		 "from the symbols kept with the trace (%s), without source lines\n", exe, kept);
	assert_true(!strncmp(err, want, strlen(want)));
	assert_null(strstr(err + strlen(want), "ada-symbolize: "));
	free(err);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, RENAMED_TREE, 1);
	tr_pass(tc);
}

/* Named once with the binary (its lines kept), rebuilt with other names:
 * the run's names and lines, from the kept symbols, not the new file's. */
static void a_rebuild_without_build_id_keeps_the_runs_names(void **state)
{
	struct tr_case *tc = *state;
	const char *const report[] = { ADA_ROOT "/bin/ada-symbolize", "report", tc->trace, NULL };
	const char *const convert[] = { ADA_ROOT "/bin/ada-symbolize", tc->trace, NULL };
	const char *const force[] = { ADA_ROOT "/bin/ada-symbolize", "--force", tc->trace, NULL };
	char exe[PATH_MAX], kept[PATH_MAX], want[3 * PATH_MAX], *err;

	build_renamed(tc, false);
	tr_run_pair(tc, "renamed", NULL, NULL, 0);
	kept_by_file(tc->trace, kept, sizeof(kept));
	assert_int_equal(symbolize(report, &err), 0);
	assert_string_equal(err, "");
	free(err);
	build_renamed(tc, true);
	assert_int_equal(symbolize(convert, &err), 0);
	snprintf(want, sizeof(want), "ada-symbolize: %s: the binary changed since the run (it has "
		 "no build-id: its size, modification time or inode differ); named from the "
		 "symbols kept with the trace (%s)\n", tr_path(tc, "renamed", exe), kept);
	assert_true(!strncmp(err, want, strlen(want)));
	assert_null(strstr(err + strlen(want), "ada-symbolize: "));
	free(err);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, RENAMED_TREE, 1);
	assert_null(strstr(tc->replay.out, "renamed"));
	tr_load_manifest(tc, NULL);
	if (!strstr(tc->mf.text, "renamed.c"))
		fail_msg("no source file in the manifest:\n%s", tc->mf.text);

	/* Nothing kept: nothing proves the new file another build (a copy or a
	 * touch changes its time too), so it names the trace, and one line
	 * says the file differs. */
	snprintf(want, sizeof(want), "%s/.ada-symbols", tc->trace);
	assert_int_equal(proc_rm_rf(want), 0);
	assert_int_equal(symbolize(force, &err), 0);
	snprintf(want, sizeof(want), "ada-symbolize: %s: its size, modification time or inode "
		 "differ from the run's and no symbols were kept for it (it has no build-id): "
		 "named from the file as it is now\n", exe);
	assert_true(!strncmp(err, want, strlen(want)));
	assert_null(strstr(err + strlen(want), "ada-symbolize: "));
	free(err);
	tr_symbolize(tc, NULL);
	assert_non_null(strstr(tc->replay.out, "outer_renamed"));
	tr_pass(tc);
}

#define T(name) cmocka_unit_test_setup_teardown(name, tr_setup, tr_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(a_rebuild_keeps_the_trace_readable),
		T(a_deleted_binary_is_named_from_the_runtimes_symbols),
		T(a_binary_without_lines_is_named_as_it_was),
		T(a_moved_trace_is_named),
		T(without_kept_symbols_a_gone_binary_is_an_error),
		T(a_deleted_binary_without_build_id_is_named),
		T(a_rebuild_without_build_id_keeps_the_runs_names),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
