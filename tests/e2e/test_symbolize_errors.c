/* test_symbolize_errors.c - ada-symbolize on bad input: usage and paths,
 * process.meta, the binary. (Damaged thread files: test_corrupt_frames.c.)
 *
 * The fixture (damaged_trace.h): the group's setup runs a small traced
 * program once; each test damages a copy of its raw trace in one way and
 * runs ada-symbolize on it, then `ada-symbolize --check`.
 *
 * What a damaged input must give: exit status 1 from a normal exit (never a
 * signal), and stderr exactly one line that names the damaged file (or the
 * binary, or the directory given) and says what is wrong with it.
 *
 * Usage errors exit 2 with the usage text on stderr.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e/damaged_trace.h"
#include "lib/capture.h"
#include "lib/proc.h"
#include "lib/tracee.h"

/* ---- usage and paths ------------------------------------------------------------ */

static void no_arguments_exit_2_with_usage(void **state)
{
	const char *const argv[] = { TRACEE_SYMBOLIZE, NULL };
	struct proc_result res;

	(void)state;
	if (proc_run(argv, NULL, NULL, DT_TOOL_TIMEOUT_MS, &res) < 0)
		fail_msg("cannot run %s", TRACEE_SYMBOLIZE);
	dt_expect_no_signal(&res, "ada-symbolize");
	assert_int_equal(WEXITSTATUS(res.wstatus), 2);
	assert_non_null(strstr(res.err, "usage: ada-symbolize"));
	assert_int_equal(res.out_len, 0);
	proc_result_free(&res);
	PASSED();
}

static void unknown_option_exits_2_with_usage(void **state)
{
	struct proc_result res;

	(void)state;
	dt_need_fixture();
	dt_symbolize("--no-such-option", dt_fx.trace, &res);
	dt_expect_no_signal(&res, "ada-symbolize --no-such-option");
	assert_int_equal(WEXITSTATUS(res.wstatus), 2);
	assert_non_null(strstr(res.err, "no-such-option"));
	assert_non_null(strstr(res.err, "usage: ada-symbolize"));
	assert_int_equal(res.out_len, 0);
	proc_result_free(&res);
	PASSED();
}

/* --limit caps what --dump prints: alone it means nothing, and says so. */
static void limit_without_dump_exits_2_with_one_line(void **state)
{
	struct proc_result res;

	(void)state;
	dt_need_fixture();
	dt_symbolize("--limit=5", dt_fx.trace, &res);
	dt_expect_no_signal(&res, "ada-symbolize --limit=5");
	assert_int_equal(WEXITSTATUS(res.wstatus), 2);
	assert_string_equal(res.err, "ada-symbolize: --limit works with --dump only (it caps the "
				     "events --dump prints per thread)\n");
	assert_int_equal(res.out_len, 0);
	proc_result_free(&res);
	PASSED();
}

static void version_is_one_line(void **state)
{
	const char *const argv[] = { TRACEE_SYMBOLIZE, "--version", NULL };
	struct proc_result res;

	(void)state;
	if (proc_run(argv, NULL, NULL, DT_TOOL_TIMEOUT_MS, &res) < 0)
		fail_msg("cannot run %s", TRACEE_SYMBOLIZE);
	assert_int_equal(WEXITSTATUS(res.wstatus), 0);
	assert_string_equal(res.out, "ada-symbolize (ada) " ADA_VERSION "\n");
	assert_string_equal(res.err, "");
	proc_result_free(&res);
	PASSED();
}

/* A directory given as "dir/" (or "dir//") is dir: every path printed under
 * it has one slash between its parts, a pid directory given so is one. */
static void directories_given_with_slashes_print_with_one(void **state)
{
	static const char *const phrases[] = { "missing", "No such file", NULL };
	char path[PATH_MAX + 300];
	struct proc_result res;
	struct damaged d;

	(void)state;
	dt_copy_case("slashes-missing-meta", &d);
	if (unlink(d.meta) < 0)
		fail_msg("rm %s: %s", d.meta, strerror(errno));
	snprintf(path, sizeof(path), "%s/", d.pid);
	dt_expect_error_both_ways(path, d.meta, phrases);
	snprintf(path, sizeof(path), "%s/", d.root);
	dt_expect_error_both_ways(path, d.meta, phrases);

	dt_copy_case("slashes", &d);
	snprintf(path, sizeof(path), "%s//", d.root);
	dt_symbolize(NULL, path, &res);
	dt_expect_no_signal(&res, "ada-symbolize DIR//");
	assert_int_equal(WEXITSTATUS(res.wstatus), 0);
	if (!strstr(res.out, d.pid) || strstr(res.out, "//"))
		fail_msg("the summary does not name %s with single slashes:\n%s", d.pid, res.out);
	proc_result_free(&res);
	PASSED();
}

static void directory_without_trace_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "no pid_", "no raw trace", "no trace", NULL };
	char empty[PATH_MAX];

	(void)state;
	dt_need_fixture();
	snprintf(empty, sizeof(empty), "%s/empty", dt_fx.dir);
	if (mkdir(empty, 0755) < 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", empty, strerror(errno));
	dt_expect_error_both_ways(empty, empty, phrases);
	PASSED();
}

static void missing_directory_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "No such file or directory", NULL };
	char missing[PATH_MAX];

	(void)state;
	dt_need_fixture();
	snprintf(missing, sizeof(missing), "%s/does-not-exist", dt_fx.dir);
	dt_expect_error_both_ways(missing, missing, phrases);
	PASSED();
}

/* ---- process.meta --------------------------------------------------------------- */

static void missing_process_meta_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "missing", "No such file", NULL };
	struct damaged d;

	(void)state;
	dt_copy_case("no-meta", &d);
	if (unlink(d.meta) < 0)
		fail_msg("rm %s: %s", d.meta, strerror(errno));
	dt_expect_error_both_ways(d.root, d.meta, phrases);
	dt_expect_error_both_ways(d.pid, d.meta, phrases);
	PASSED();
}

/* A process killed while ada's start-up was making its trace (a test
 * suite's child killed at once: libuv's, under load) leaves raw/ with an
 * empty process.meta, or none: it recorded nothing. Beside a whole process
 * of the session, both are skipped with one line each, the whole one is
 * converted, and the exit status is 0. */
static void process_killed_while_its_trace_was_made_is_skipped(void **state)
{
	char session[PATH_MAX + 256], *slash, dir[2][PATH_MAX + 320], path[3 * PATH_MAX];
	struct proc_result res;
	struct damaged d;

	(void)state;
	dt_copy_case("killed-at-start", &d);
	snprintf(session, sizeof(session), "%s", d.pid);
	if (!(slash = strrchr(session, '/')))
		fail_msg("no session in %s", d.pid);
	*slash = '\0';
	for (int i = 0; i < 2; i++) {
		snprintf(dir[i], sizeof(dir[i]), "%s/pid_%d", session, 999990 + i);
		snprintf(path, sizeof(path), "%s/raw", dir[i]);
		if (mkdir(dir[i], 0755) < 0 || mkdir(path, 0755) < 0)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		if (i == 0) { /* killed after creating process.meta, before its header */
			snprintf(path, sizeof(path), "%s/raw/process.meta", dir[i]);
			dt_write_bytes(path, "", 0);
		}
	}
	dt_symbolize(NULL, d.root, &res);
	dt_expect_no_signal(&res, "ada-symbolize");
	if (!WIFEXITED(res.wstatus) || WEXITSTATUS(res.wstatus) != 0)
		fail_msg("exit status %d, expected 0; stderr:\n%s", WEXITSTATUS(res.wstatus), res.err);
	for (int i = 0; i < 2; i++)
		if (!strstr(res.err, dir[i]) || !strstr(res.err, "nothing recorded, skipped"))
			fail_msg("stderr does not say %s was skipped:\n%s", dir[i], res.err);
	if (count_lines(res.err) != 2)
		fail_msg("expected two lines on stderr:\n%s", res.err);
	snprintf(path, sizeof(path), "%s/manifest.json", d.pid);
	if (access(path, F_OK) != 0)
		fail_msg("the whole process was not converted: no %s", path);
	proc_result_free(&res);
	PASSED();
}

static void process_meta_cut_inside_header_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "truncated", "too short", "empty", NULL };
	static const size_t cuts[] = { 0, 5, 15 };
	struct damaged d;

	(void)state;
	dt_copy_case("meta-cut-header", &d);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		dt_cut_file(d.meta, cuts[i]);
		dt_expect_error_both_ways(d.root, d.meta, phrases);
	}
	PASSED();
}

static void process_meta_cut_after_header_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "not a complete", "truncated", "incomplete", NULL };
	struct damaged d;

	(void)state;
	dt_copy_case("meta-cut-records", &d);
	dt_cut_file(d.meta, 16 + 4); /* the header and half a record header */
	dt_expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

static void process_meta_bad_magic_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "magic", "not an ada raw trace", NULL };
	struct damaged d;

	(void)state;
	dt_copy_case("meta-magic", &d);
	dt_patch_byte(d.meta, 0, 'X');
	dt_expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

static void process_meta_newer_version_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "version", NULL };
	struct damaged d;

	(void)state;
	dt_copy_case("meta-version", &d);
	dt_patch_byte(d.meta, 8, 99); /* struct ada_meta_file_header.version, LE */
	dt_expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

/* Runs ada-symbolize on d with byte `off` of process.meta flipped; says why
 * and returns false if it died of a signal or failed without a word. */
static bool survives_flip(const struct damaged *d, char *meta, size_t len, size_t off)
{
	struct proc_result res;
	char why[64];
	int code;
	bool ok;

	meta[off] ^= (char)0xff;
	dt_write_bytes(d->meta, meta, len);
	meta[off] ^= (char)0xff;
	dt_symbolize("-q", d->root, &res);
	code = proc_exit_code(&res);
	ok = code == 0 || (code == 1 && res.err_len > 0);
	if (!ok)
		print_error("process.meta byte %zu flipped: %s\nstderr:\n%s", off,
			    proc_describe(&res, why, sizeof(why)), res.err);
	proc_result_free(&res);
	return ok;
}

/* For the first record of each type: flips the low and the high byte of its
 * type and size, and the high byte of each 32-bit word of the first 64
 * payload bytes (where the fixed fields are; not in CONFIG's strings or in
 * types the reader skips). Whatever the tool makes of it, it must exit 0 or
 * 1 and never die of a signal. A short trace keeps each run quick. */
static void process_meta_field_flips_never_crash(void **state)
{
	struct meta_rec recs[64];
	char trace[PATH_MAX], *meta, *pid;
	struct damaged d;
	size_t len, n, flips = 0, bad = 0;
	uint64_t seen = 0;

	(void)state;
	dt_need_fixture();
	if (dt_build_and_run("flips", "-DVARIANT=0", "short", trace, sizeof(trace)) < 0)
		fail_msg("could not build or run the program");
	pid = tracee_pid_dir(trace);
	if (!pid)
		fail_msg("no pid directory in %s", trace);
	snprintf(d.root, sizeof(d.root), "%s", trace);
	snprintf(d.meta, sizeof(d.meta), "%s/raw/process.meta", pid);
	d.pid[0] = d.thread0[0] = '\0';
	free(pid);
	meta = proc_read_file(d.meta, &len);
	if (!meta)
		fail_msg("%s: %s", d.meta, strerror(errno));
	n = dt_meta_records(meta, len, recs, 64);
	for (size_t r = 0; r < n; r++) {
		size_t rec = recs[r].off, payload = rec + 8;
		bool fields = recs[r].type >= 1 && recs[r].type <= 8 && recs[r].type != 7;
		size_t end = payload + (!fields ? 0 : recs[r].size < 64 ? recs[r].size : 64);

		if (recs[r].type < 64 && (seen & 1ull << recs[r].type))
			continue;
		seen |= recs[r].type < 64 ? 1ull << recs[r].type : 0;
		for (size_t off = rec; off < rec + 8; off += 4) {
			bad += !survives_flip(&d, meta, len, off);
			bad += !survives_flip(&d, meta, len, off + 3);
			flips += 2;
		}
		for (size_t off = payload; off + 3 < end; off += 4) {
			bad += !survives_flip(&d, meta, len, off + 3);
			flips++;
		}
	}
	free(meta);
	if (bad)
		fail_msg("%zu of %zu flips of process.meta made ada-symbolize crash or fail silently",
			 bad, flips);
	PASSED();
}

/* struct ada_meta_module.build_id_len larger than its 32-byte array. */
static void module_build_id_len_too_large_is_one_error(void **state)
{
	static const char *const phrases[] = { "corrupt", NULL };
	struct meta_rec recs[64];
	struct damaged d;
	size_t len, n, r;
	char *meta;

	(void)state;
	dt_copy_case("meta-build-id-len", &d);
	meta = proc_read_file(d.meta, &len);
	if (!meta)
		fail_msg("%s: %s", d.meta, strerror(errno));
	n = dt_meta_records(meta, len, recs, 64);
	for (r = 0; r < n && recs[r].type != 3; r++)
		;
	if (r == n)
		fail_msg("%s: no MODULE record", d.meta);
	meta[recs[r].off + 8 + 4] = (char)0xff; /* build_id_len = 255 */
	meta[recs[r].off + 8 + 7] = (char)0x7f; /* ... or 0x7f0000ff */
	dt_write_bytes(d.meta, meta, len);
	free(meta);
	dt_expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

/* A size no writer writes, in the middle of the file: taken for a record
 * cut short, it would drop every record after it (the threads, their ends,
 * END) and convert "0 threads, 0 events". */
static void record_size_larger_than_any_record_is_one_error(void **state)
{
	struct meta_rec thread;
	struct damaged d;
	char phrase[96];
	const char *const phrases[] = { phrase, NULL };
	const uint32_t size = 0xfffffff0u;
	size_t len;
	char *meta;

	(void)state;
	dt_copy_case("meta-record-size", &d);
	thread = dt_meta_record(d.meta, 5); /* ADA_META_THREAD */
	meta = proc_read_file(d.meta, &len);
	memcpy(meta + thread.off + 4, &size, 4);
	dt_write_bytes(d.meta, meta, len);
	free(meta);
	snprintf(phrase, sizeof(phrase), "at offset %zu: size 4294967280 (0xfffffff0)", thread.off);
	dt_expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

/* One process, one PROCESS record: a second one (here a copy of the first,
 * appended) makes the file say two things about its process. */
static void second_process_record_is_one_error(void **state)
{
	static const char *const phrases[] = { "a second PROCESS record", NULL };
	struct meta_rec proc;
	struct damaged d;
	size_t len;
	char *meta;

	(void)state;
	dt_copy_case("meta-second-process", &d);
	proc = dt_meta_record(d.meta, 1); /* ADA_META_PROCESS */
	meta = proc_read_file(d.meta, &len);
	meta = realloc(meta, len + 8 + proc.size + 8);
	if (!meta)
		fail_msg("out of memory");
	memcpy(meta + len, meta + proc.off, 8 + ((proc.size + 7u) & ~7u));
	dt_write_bytes(d.meta, meta, len + 8 + ((proc.size + 7u) & ~7u));
	free(meta);
	dt_expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

static void wrong_architecture_is_one_error_naming_the_binary(void **state)
{
	static const char *const phrases[] = { "architecture", NULL };
	char prog[PATH_MAX];
	struct damaged d;

	(void)state;
	dt_copy_case("meta-arch", &d);
	dt_patch_byte(d.meta, 12, 2); /* struct ada_meta_file_header.arch = arm64 */
	snprintf(prog, sizeof(prog), "%s/prog", dt_fx.dir);
	dt_expect_error_both_ways(d.root, prog, phrases);
	PASSED();
}

/* ---- the binary ----------------------------------------------------------------- */

/* Without the symbols kept with the trace (their directory removed: the
 * cases where they name the trace are tests/e2e/test_kept.c's), a changed
 * or deleted binary is an error naming it. */
static void forget_kept_symbols(const char *trace)
{
	char kept[PATH_MAX + 32];

	snprintf(kept, sizeof(kept), "%s/.ada-symbols", trace);
	if (proc_rm_rf(kept) < 0)
		fail_msg("rm -r %s: %s", kept, strerror(errno));
}

static void changed_binary_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "changed", NULL };
	const char *const flags[] = { "-O0", "-g", "-DVARIANT=1", NULL };
	char trace[PATH_MAX], prog[PATH_MAX];

	(void)state;
	dt_need_fixture();
	if (dt_build_and_run("changed", "-DVARIANT=0", "short", trace, sizeof(trace)) < 0)
		fail_msg("could not build or run the program");
	forget_kept_symbols(trace);
	/* The same path, different code: a different build-id. */
	if (tracee_build(dt_fx.dir, "changed", dt_program, TRACEE_ADACC, flags) < 0)
		fail_msg("could not rebuild the program");
	snprintf(prog, sizeof(prog), "%s/changed", dt_fx.dir);
	dt_expect_error_both_ways(trace, prog, phrases);
	PASSED();
}

/* The process is skipped with one line; with nothing else to convert,
 * the run fails (a deleted binary among others: tests/e2e/test_sessions.c). */
static void deleted_binary_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "no longer exists", NULL };
	char trace[PATH_MAX], prog[PATH_MAX];

	(void)state;
	dt_need_fixture();
	if (dt_build_and_run("deleted", "-DVARIANT=0", "short", trace, sizeof(trace)) < 0)
		fail_msg("could not build or run the program");
	forget_kept_symbols(trace);
	snprintf(prog, sizeof(prog), "%s/deleted", dt_fx.dir);
	if (unlink(prog) < 0)
		fail_msg("rm %s: %s", prog, strerror(errno));
	dt_expect_error_both_ways(trace, prog, phrases);
	PASSED();
}

/* ---- main ------------------------------------------------------------------------ */

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup(fn, dt_test_setup)
		T(no_arguments_exit_2_with_usage),
		T(unknown_option_exits_2_with_usage),
		T(limit_without_dump_exits_2_with_one_line),
		T(version_is_one_line),
		T(directories_given_with_slashes_print_with_one),
		T(directory_without_trace_is_one_error_naming_it),
		T(missing_directory_is_one_error_naming_it),
		T(missing_process_meta_is_one_error_naming_it),
		T(process_killed_while_its_trace_was_made_is_skipped),
		T(process_meta_cut_inside_header_is_one_error_naming_it),
		T(process_meta_cut_after_header_is_one_error_naming_it),
		T(process_meta_bad_magic_is_one_error_naming_it),
		T(process_meta_newer_version_is_one_error_naming_it),
		T(process_meta_field_flips_never_crash),
		T(module_build_id_len_too_large_is_one_error),
		T(record_size_larger_than_any_record_is_one_error),
		T(second_process_record_is_one_error),
		T(wrong_architecture_is_one_error_naming_the_binary),
		T(changed_binary_is_one_error_naming_it),
		T(deleted_binary_is_one_error_naming_it),
#undef T
	};

	tracee_scrub_environment();
	return cmocka_run_group_tests_name("ada-symbolize on bad input", tests, dt_group_setup,
					   dt_group_teardown);
}
