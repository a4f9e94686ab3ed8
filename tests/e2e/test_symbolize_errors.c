/* test_symbolize_errors.c - ada-symbolize on bad input.
 *
 * The group's setup builds a small program with bin/adacc, runs it once with
 * ADA_OUTPUT=<dir>/trace and converts a pristine copy of that trace ("full").
 * Each test then copies the raw trace, damages the copy in one way and runs
 * ada-symbolize on it, then `ada-symbolize --check` (which converts first).
 *
 * What a damaged input must give: exit status 1 from a normal exit (never a
 * signal), and stderr exactly one line that names the damaged file (or the
 * binary, or the directory given) and says what is wrong with it.
 *
 * A thread file cut short by a crash or SIGKILL (no END and no THREAD_END
 * in process.meta) is not damage: it converts up to its last complete LZ4
 * frame with the frames left open closed by EXCEPTION events (the summary
 * says they were open at the end, not unwound). After a clean exit the same
 * cut is an error, as is any count the writer recorded that the files
 * contradict.
 *
 * Usage errors exit 2 with the usage text on stderr.
 *
 * The directory is removed at the end unless a test failed (its path is
 * printed) or ADA_TEST_KEEP is set.
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
#include <lz4frame.h>

#include "lib/proc.h"
#include "lib/tracee.h"

#define RUN_TIMEOUT_MS 20000
#define TOOL_TIMEOUT_MS 60000

/* main -> burst x40 -> leaf x2000, with a 2 ms sleep after each burst so the
 * writer (which drains every millisecond while events flow) writes the
 * thread's events as many LZ4 frames. With an argument: one burst only.
 * VARIANT changes the code, and so the build-id, not the call tree. */
static const char program[] =
	"#include <time.h>\n"
	"#ifndef VARIANT\n"
	"#define VARIANT 0\n"
	"#endif\n"
	"static volatile unsigned long sink;\n"
	"__attribute__((noinline)) static void leaf(unsigned long i) { sink += i * (VARIANT + 1); }\n"
	"__attribute__((noinline)) static void burst(int n) { for (int i = 0; i < n; i++) leaf(i); }\n"
	"int main(int argc, char **argv) {\n"
	"	struct timespec ts = { 0, 2000000 };\n"
	"	(void)argv;\n"
	"	for (int k = 0; k < (argc > 1 ? 1 : 40); k++) {\n"
	"		burst(2000);\n"
	"		nanosleep(&ts, NULL);\n"
	"	}\n"
	"	return 0;\n"
	"}\n";

struct fixture {
	char *dir;
	char trace[PATH_MAX];    /* the raw trace, never converted */
	char pid_rel[256];       /* session_<time>/pid_<pid>, inside trace */
	char full[PATH_MAX + 256]; /* pid directory of the converted pristine copy */
	struct tracee_event *full_ev;
	size_t full_n;
	bool ready;
	int failed;              /* tests that did not reach their end */
};

static struct fixture fx;

/* A damaged copy: root = <dir>/<name>, pid = its pid directory. */
struct damaged {
	char root[PATH_MAX];
	char pid[PATH_MAX + 256];
	char meta[PATH_MAX + 300];
	char thread0[PATH_MAX + 300];
};

/* ---- setup ------------------------------------------------------------------ */

static int build_and_run(const char *name, const char *variant, const char *arg, char *trace,
			 size_t size)
{
	char exe[PATH_MAX], output[PATH_MAX + 16], why[64];
	const char *const flags[] = { "-O0", "-g", variant, NULL };
	struct proc_result res;
	int ret;

	if (tracee_build(fx.dir, name, program, TRACEE_ADACC, flags) < 0)
		return -1;
	snprintf(exe, sizeof(exe), "%s/%s", fx.dir, name);
	snprintf(trace, size, "%s/%s.trace", fx.dir, name);
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", trace);

	const char *const argv[] = { exe, arg, NULL };
	const char *const env[] = { output, NULL };

	ret = proc_run(argv, env, fx.dir, RUN_TIMEOUT_MS, &res);
	if (ret == 0 && proc_exit_code(&res) != 0) {
		print_error("%s: %s\n%s", exe, proc_describe(&res, why, sizeof(why)), res.err);
		ret = -1;
	}
	proc_result_free(&res);
	return ret;
}

static int group_setup(void **state)
{
	char full_root[PATH_MAX], index[PATH_MAX + 300], why[64];
	struct proc_result res;
	char *pid;

	(void)state;
	fx.dir = proc_mkdtemp("ada-e2e-errors-");
	if (!fx.dir) {
		print_error("mkdtemp: %s\n", strerror(errno));
		return 0;
	}
	if (build_and_run("prog", "-DVARIANT=0", NULL, fx.trace, sizeof(fx.trace)) < 0)
		return 0;
	pid = tracee_pid_dir(fx.trace);
	if (!pid)
		return 0;
	snprintf(fx.pid_rel, sizeof(fx.pid_rel), "%s", pid + strlen(fx.trace) + 1);
	free(pid);

	snprintf(full_root, sizeof(full_root), "%s/full", fx.dir);
	snprintf(fx.full, sizeof(fx.full), "%s/%s", full_root, fx.pid_rel);
	if (tracee_copy_tree(fx.trace, full_root) < 0)
		return 0;

	const char *const argv[] = { TRACEE_SYMBOLIZE, full_root, NULL };

	if (proc_run(argv, NULL, fx.dir, TOOL_TIMEOUT_MS, &res) < 0 || proc_exit_code(&res) != 0) {
		print_error("ada-symbolize %s: %s\n%s", full_root,
			    proc_describe(&res, why, sizeof(why)), res.err);
		proc_result_free(&res);
		return 0;
	}
	proc_result_free(&res);
	snprintf(index, sizeof(index), "%s/thread_0/index.atf", fx.full);
	if (tracee_read_index(index, &fx.full_ev, &fx.full_n) < 0)
		return 0;
	fx.ready = true;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (fx.dir && (fx.failed || getenv("ADA_TEST_KEEP")))
		print_message("kept %s\n", fx.dir);
	else if (fx.dir && proc_rm_rf(fx.dir) < 0)
		print_error("cannot remove %s\n", fx.dir);
	free(fx.dir);
	free(fx.full_ev);
	return 0;
}

/* Every test counts as failed until it says it passed. */
static int test_setup(void **state)
{
	(void)state;
	fx.failed++;
	return 0;
}

#define PASSED() (fx.failed--)

static void need_fixture(void)
{
	if (!fx.ready)
		fail_msg("the traced program could not be built, run or converted (see above)");
}

/* A fresh copy of the raw trace at <dir>/<name>. */
static void copy_case(const char *name, struct damaged *d)
{
	need_fixture();
	snprintf(d->root, sizeof(d->root), "%s/%s", fx.dir, name);
	snprintf(d->pid, sizeof(d->pid), "%s/%s", d->root, fx.pid_rel);
	snprintf(d->meta, sizeof(d->meta), "%s/raw/process.meta", d->pid);
	snprintf(d->thread0, sizeof(d->thread0), "%s/raw/thread_0.lz4", d->pid);
	if (tracee_copy_tree(fx.trace, d->root) < 0)
		fail_msg("cannot copy %s", fx.trace);
}

/* ---- running the tool and looking at what it said ------------------------------ */

static void symbolize(const char *option, const char *path, struct proc_result *res)
{
	const char *argv[4] = { TRACEE_SYMBOLIZE };
	size_t n = 1;

	if (option)
		argv[n++] = option;
	argv[n++] = path;
	argv[n] = NULL;
	if (proc_run(argv, NULL, fx.dir, TOOL_TIMEOUT_MS, res) < 0)
		fail_msg("cannot run %s", TRACEE_SYMBOLIZE);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* NULL-terminated list of phrases; true if text holds one (any case). */
static bool has_phrase(const char *text, const char *const phrases[])
{
	for (size_t i = 0; phrases[i]; i++)
		if (strcasestr(text, phrases[i]))
			return true;
	return false;
}

static void expect_no_signal(const struct proc_result *res, const char *what)
{
	char why[64];

	if (res->timed_out || !WIFEXITED(res->wstatus))
		fail_msg("%s: %s (must exit normally)\nstderr:\n%s", what,
			 proc_describe(res, why, sizeof(why)), res->err);
}

/* Exit status 1, and stderr one line naming `file` with one of `phrases`. */
static void expect_one_error(const struct proc_result *res, const char *what, const char *file,
			     const char *const phrases[])
{
	char why[64];

	expect_no_signal(res, what);
	if (WEXITSTATUS(res->wstatus) != 1)
		fail_msg("%s: %s, expected exit status 1\nstdout:\n%sstderr:\n%s", what,
			 proc_describe(res, why, sizeof(why)), res->out, res->err);
	if (count_lines(res->err) != 1 || res->err[res->err_len - 1] != '\n')
		fail_msg("%s: stderr should be exactly one line, got:\n%s", what, res->err);
	if (!strstr(res->err, file))
		fail_msg("%s: the message does not name %s:\n%s", what, file, res->err);
	if (!has_phrase(res->err, phrases))
		fail_msg("%s: the message does not say what is wrong (expected \"%s\"...):\n%s",
			 what, phrases[0], res->err);
	if (strstr(res->out, ": OK"))
		fail_msg("%s: a trace it refused was declared OK:\n%s", what, res->out);
}

/* Both the conversion and --check on `path` fail with that one message. */
static void expect_error_both_ways(const char *path, const char *file, const char *const phrases[])
{
	struct proc_result res;

	symbolize(NULL, path, &res);
	expect_one_error(&res, "ada-symbolize", file, phrases);
	proc_result_free(&res);
	symbolize("--check", path, &res);
	expect_one_error(&res, "ada-symbolize --check", file, phrases);
	proc_result_free(&res);
}

static void write_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "we");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		fail_msg("cannot write %s: %s", path, strerror(errno));
}

static void patch_byte(const char *path, size_t off, uint8_t value)
{
	size_t len;
	char *buf = proc_read_file(path, &len);

	if (!buf || off >= len)
		fail_msg("cannot read %s, or it is shorter than %zu bytes", path, off + 1);
	buf[off] = (char)value;
	write_bytes(path, buf, len);
	free(buf);
}

static void cut_file(const char *path, size_t len)
{
	if (truncate(path, (off_t)len) < 0)
		fail_msg("truncate %s: %s", path, strerror(errno));
}

/* ---- usage and paths ------------------------------------------------------------ */

static void no_arguments_exit_2_with_usage(void **state)
{
	const char *const argv[] = { TRACEE_SYMBOLIZE, NULL };
	struct proc_result res;

	(void)state;
	if (proc_run(argv, NULL, NULL, TOOL_TIMEOUT_MS, &res) < 0)
		fail_msg("cannot run %s", TRACEE_SYMBOLIZE);
	expect_no_signal(&res, "ada-symbolize");
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
	need_fixture();
	symbolize("--no-such-option", fx.trace, &res);
	expect_no_signal(&res, "ada-symbolize --no-such-option");
	assert_int_equal(WEXITSTATUS(res.wstatus), 2);
	assert_non_null(strstr(res.err, "no-such-option"));
	assert_non_null(strstr(res.err, "usage: ada-symbolize"));
	assert_int_equal(res.out_len, 0);
	proc_result_free(&res);
	PASSED();
}

static void directory_without_trace_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "no pid_", "no raw trace", "no trace", NULL };
	char empty[PATH_MAX];

	(void)state;
	need_fixture();
	snprintf(empty, sizeof(empty), "%s/empty", fx.dir);
	if (mkdir(empty, 0755) < 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", empty, strerror(errno));
	expect_error_both_ways(empty, empty, phrases);
	PASSED();
}

static void missing_directory_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "No such file or directory", NULL };
	char missing[PATH_MAX];

	(void)state;
	need_fixture();
	snprintf(missing, sizeof(missing), "%s/does-not-exist", fx.dir);
	expect_error_both_ways(missing, missing, phrases);
	PASSED();
}

/* ---- process.meta --------------------------------------------------------------- */

static void missing_process_meta_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "missing", "No such file", NULL };
	struct damaged d;

	(void)state;
	copy_case("no-meta", &d);
	if (unlink(d.meta) < 0)
		fail_msg("rm %s: %s", d.meta, strerror(errno));
	expect_error_both_ways(d.root, d.meta, phrases);
	expect_error_both_ways(d.pid, d.meta, phrases);
	PASSED();
}

static void process_meta_cut_inside_header_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "truncated", "too short", "empty", NULL };
	static const size_t cuts[] = { 0, 5, 15 };
	struct damaged d;

	(void)state;
	copy_case("meta-cut-header", &d);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		cut_file(d.meta, cuts[i]);
		expect_error_both_ways(d.root, d.meta, phrases);
	}
	PASSED();
}

static void process_meta_cut_after_header_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "not a complete", "truncated", "incomplete", NULL };
	struct damaged d;

	(void)state;
	copy_case("meta-cut-records", &d);
	cut_file(d.meta, 16 + 4); /* the header and half a record header */
	expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

static void process_meta_bad_magic_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "magic", "not an ada raw trace", NULL };
	struct damaged d;

	(void)state;
	copy_case("meta-magic", &d);
	patch_byte(d.meta, 0, 'X');
	expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

static void process_meta_newer_version_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "version", NULL };
	struct damaged d;

	(void)state;
	copy_case("meta-version", &d);
	patch_byte(d.meta, 8, 99); /* struct ada_meta_file_header.version, LE */
	expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

/* A record of process.meta: 8-byte header (type, size), payload, padding. */
struct meta_rec {
	size_t off;
	uint32_t type, size;
};

static size_t meta_records(const char *buf, size_t len, struct meta_rec *recs, size_t max)
{
	size_t off = 16, n = 0; /* after struct ada_meta_file_header */

	while (off + 8 <= len && n < max) {
		memcpy(&recs[n].type, buf + off, 4);
		memcpy(&recs[n].size, buf + off + 4, 4);
		recs[n].off = off;
		if (recs[n].size > len - off - 8)
			break;
		off += 8 + ((recs[n].size + 7u) & ~7u);
		n++;
	}
	return n;
}

/* process.meta without its records of `type`: with END and THREAD_END gone
 * it is what a process SIGKILLed before its exit leaves. */
static void drop_meta_records(const char *path, uint32_t type)
{
	struct meta_rec recs[1024];
	size_t len, n, out = 16;
	char *meta = proc_read_file(path, &len);

	if (!meta)
		fail_msg("%s: %s", path, strerror(errno));
	n = meta_records(meta, len, recs, 1024);
	for (size_t r = 0; r < n; r++) {
		size_t size = 8 + ((recs[r].size + 7u) & ~7u);

		if (recs[r].type == type)
			continue;
		memmove(meta + out, meta + recs[r].off, size);
		out += size;
	}
	write_bytes(path, meta, out);
	free(meta);
}

/* The first record of `type` in process.meta. */
static struct meta_rec meta_record(const char *path, uint32_t type)
{
	struct meta_rec recs[1024];
	size_t len, n, r;
	char *meta = proc_read_file(path, &len);

	if (!meta)
		fail_msg("%s: %s", path, strerror(errno));
	n = meta_records(meta, len, recs, 1024);
	free(meta);
	for (r = 0; r < n && recs[r].type != type; r++)
		;
	if (r == n)
		fail_msg("%s: no record of type %u", path, type);
	return recs[r];
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
	write_bytes(d->meta, meta, len);
	meta[off] ^= (char)0xff;
	symbolize("-q", d->root, &res);
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
	need_fixture();
	if (build_and_run("flips", "-DVARIANT=0", "short", trace, sizeof(trace)) < 0)
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
	n = meta_records(meta, len, recs, 64);
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
	copy_case("meta-build-id-len", &d);
	meta = proc_read_file(d.meta, &len);
	if (!meta)
		fail_msg("%s: %s", d.meta, strerror(errno));
	n = meta_records(meta, len, recs, 64);
	for (r = 0; r < n && recs[r].type != 3; r++)
		;
	if (r == n)
		fail_msg("%s: no MODULE record", d.meta);
	meta[recs[r].off + 8 + 4] = (char)0xff; /* build_id_len = 255 */
	meta[recs[r].off + 8 + 7] = (char)0x7f; /* ... or 0x7f0000ff */
	write_bytes(d.meta, meta, len);
	free(meta);
	expect_error_both_ways(d.root, d.meta, phrases);
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
	copy_case("meta-record-size", &d);
	thread = meta_record(d.meta, 5); /* ADA_META_THREAD */
	meta = proc_read_file(d.meta, &len);
	memcpy(meta + thread.off + 4, &size, 4);
	write_bytes(d.meta, meta, len);
	free(meta);
	snprintf(phrase, sizeof(phrase), "at offset %zu: size 4294967280 (0xfffffff0)", thread.off);
	expect_error_both_ways(d.root, d.meta, phrases);
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
	copy_case("meta-second-process", &d);
	proc = meta_record(d.meta, 1); /* ADA_META_PROCESS */
	meta = proc_read_file(d.meta, &len);
	meta = realloc(meta, len + 8 + proc.size + 8);
	if (!meta)
		fail_msg("out of memory");
	memcpy(meta + len, meta + proc.off, 8 + ((proc.size + 7u) & ~7u));
	write_bytes(d.meta, meta, len + 8 + ((proc.size + 7u) & ~7u));
	free(meta);
	expect_error_both_ways(d.root, d.meta, phrases);
	PASSED();
}

static void wrong_architecture_is_one_error_naming_the_binary(void **state)
{
	static const char *const phrases[] = { "architecture", NULL };
	char prog[PATH_MAX];
	struct damaged d;

	(void)state;
	copy_case("meta-arch", &d);
	patch_byte(d.meta, 12, 2); /* struct ada_meta_file_header.arch = arm64 */
	snprintf(prog, sizeof(prog), "%s/prog", fx.dir);
	expect_error_both_ways(d.root, prog, phrases);
	PASSED();
}

/* ---- thread_<N>.lz4 -------------------------------------------------------------- */

static struct tracee_lz4_frame frames[4096];

/* The frames of a thread file; at least `min` of them or the test fails. */
static size_t read_frames(const char *path, uint8_t **buf, size_t *len, size_t min)
{
	int n;

	*buf = (uint8_t *)proc_read_file(path, len);
	if (!*buf)
		fail_msg("%s: %s", path, strerror(errno));
	n = tracee_lz4_frames(*buf, *len, frames, sizeof(frames) / sizeof(frames[0]));
	if (n < 0)
		fail_msg("%s: not a sequence of whole LZ4 frames", path);
	if ((size_t)n < min)
		fail_msg("%s: %d LZ4 frames; the test needs %zu (did the writer change?)", path, n,
			 min);
	return (size_t)n;
}

/* Offset of a byte that is copied to the output as it is: the first literal
 * of the frame's first block (or its first byte if stored uncompressed). */
static size_t literal_of(const uint8_t *buf, const struct tracee_lz4_frame *f)
{
	size_t p = f->block + 4, q = p + 1;
	size_t lits = buf[p] >> 4;

	if (f->block_size & 0x80000000u)
		return p;
	if (lits == 15)
		while (buf[q++] == 255)
			;
	return lits ? q : p; /* no literal: the token itself */
}

static void corrupt_lz4_frame_is_one_error_naming_the_file(void **state)
{
	static const char *const phrases[] = { "corrupt", "checksum", "decompress", NULL };
	struct damaged d;
	uint8_t *buf;
	size_t len, n, at;

	(void)state;
	copy_case("lz4-corrupt", &d);
	n = read_frames(d.thread0, &buf, &len, 3);
	at = literal_of(buf, &frames[n / 2]);
	buf[at] ^= 0x55;
	write_bytes(d.thread0, buf, len);
	free(buf);
	expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

/* The events of <pid>/thread_0/index.atf, malloc'd. */
static struct tracee_event *events_of(const char *pid, size_t *n)
{
	char index[PATH_MAX + 300];
	struct tracee_event *ev;

	snprintf(index, sizeof(index), "%s/thread_0/index.atf", pid);
	if (tracee_read_index(index, &ev, n) < 0)
		fail_msg("cannot read %s", index);
	return ev;
}

/* Converts a copy whose thread_0.lz4 is cut at `cut` bytes and whose
 * process.meta has lost its END and THREAD_END records, as a SIGKILL leaves
 * them: exit 0, --check passes, and the events are a prefix of the full
 * trace's followed by EXCEPTIONs that close every frame still open,
 * innermost first. */
static struct tracee_event *convert_cut(const char *name, size_t cut, size_t *n)
{
	struct proc_result res;
	struct damaged d;
	struct tracee_event *ev;
	uint64_t open_fid[256];
	size_t k, depth = 0;
	char why[64];

	copy_case(name, &d);
	drop_meta_records(d.meta, 8);  /* ADA_META_END */
	drop_meta_records(d.meta, 6);  /* ADA_META_THREAD_END */
	cut_file(d.thread0, cut);
	symbolize(NULL, d.root, &res);
	if (proc_exit_code(&res) != 0)
		fail_msg("%s cut at %zu: %s\n%s", d.thread0, cut,
			 proc_describe(&res, why, sizeof(why)), res.err);
	if (!strstr(res.out, "frames open "))
		fail_msg("%s cut at %zu: the summary does not say frames were left open:\n%s",
			 d.thread0, cut, res.out);
	proc_result_free(&res);
	symbolize("--check", d.root, &res);
	if (proc_exit_code(&res) != 0)
		fail_msg("--check on %s cut at %zu: %s\n%s%s", d.thread0, cut,
			 proc_describe(&res, why, sizeof(why)), res.out, res.err);
	proc_result_free(&res);

	ev = events_of(d.pid, n);
	for (k = *n; k > 0 && ev[k - 1].kind == TRACEE_EXCEPTION; k--)
		;
	if (k == 0 || k >= fx.full_n)
		fail_msg("cut at %zu: %zu events before the closing EXCEPTIONs, the full trace has %zu",
			 cut, k, fx.full_n);
	if (memcmp(ev, fx.full_ev, k * sizeof(*ev)) != 0)
		fail_msg("cut at %zu: the events are not a prefix of the full trace's", cut);
	for (size_t i = 0; i < k; i++) {
		if (ev[i].kind == TRACEE_CALL && depth < 256)
			open_fid[depth++] = ev[i].function_id;
		else if (ev[i].kind != TRACEE_CALL && depth)
			depth--;
	}
	if (depth == 0 || *n - k != depth)
		fail_msg("cut at %zu: %zu frames open, %zu closing EXCEPTIONs", cut, depth, *n - k);
	for (size_t i = k; i < *n; i++, depth--) {
		if (ev[i].call_depth != depth || ev[i].function_id != open_fid[depth - 1] ||
		    ev[i].timestamp_ns != ev[k - 1].timestamp_ns)
			fail_msg("cut at %zu: EXCEPTION %zu closes depth %u fid 0x%llx at %llu, expected depth %zu fid 0x%llx at %llu",
				 cut, i, ev[i].call_depth, (unsigned long long)ev[i].function_id,
				 (unsigned long long)ev[i].timestamp_ns, depth,
				 (unsigned long long)open_fid[depth - 1],
				 (unsigned long long)ev[k - 1].timestamp_ns);
	}

	symbolize("--replay", d.root, &res);
	/* No END record: the process was killed with main open. */
	if (proc_exit_code(&res) != 0 || !strstr(res.out, "\nmain (open when killed)\n"))
		fail_msg("--replay on %s cut at %zu: no \"main (open when killed)\":\n%s%s", d.thread0,
			 cut, res.out, res.err);
	proc_result_free(&res);
	return ev;
}

static void lz4_cut_mid_frame_converts_the_complete_frames(void **state)
{
	struct damaged d;
	uint8_t *buf;
	size_t len, n, k, whole_n;
	struct tracee_event *whole;

	(void)state;
	copy_case("lz4-frames", &d);
	n = read_frames(d.thread0, &buf, &len, 3);
	free(buf);
	k = n / 2; /* frames 0..k complete, k+1 cut */

	const struct {
		const char *name;
		size_t cut;
	} cuts[] = {
		{ "cut-in-magic", frames[k + 1].start + 3 },
		{ "cut-in-header", frames[k + 1].block - 1 },
		{ "cut-in-block", frames[k + 1].block + 4 + (frames[k + 1].block_size & 0x7fffffffu) / 2 },
		{ "cut-in-checksum", frames[k + 1].end - 2 },
	};

	whole = convert_cut("cut-at-frame-end", frames[k].end, &whole_n);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct tracee_event *ev;
		size_t ev_n;

		ev = convert_cut(cuts[i].name, cuts[i].cut, &ev_n);
		if (ev_n != whole_n || memcmp(ev, whole, ev_n * sizeof(*ev)) != 0)
			fail_msg("%s (byte %zu): %zu events; cut after frame %zu: %zu events; they must be the same",
				 cuts[i].name, cuts[i].cut, ev_n, k, whole_n);
		free(ev);
	}
	free(whole);
	PASSED();
}

/* A copy of the trace, its process exited cleanly, with thread_0.lz4 cut
 * inside frame k (mid) or after it (!mid): the message names the file and
 * the byte where the frame started, or the counts. */
static void cut_after_a_clean_exit(const char *name, bool mid)
{
	struct damaged d;
	uint8_t *buf;
	size_t len, k;
	char phrase[96];
	const char *const phrases[] = { phrase, NULL };

	copy_case(name, &d);
	k = read_frames(d.thread0, &buf, &len, 3) / 2;
	free(buf);
	if (mid) {
		cut_file(d.thread0, frames[k].block + 4 + (frames[k].block_size & 0x7fffffffu) / 2);
		snprintf(phrase, sizeof(phrase), "cut short inside the frame at byte %zu",
			 frames[k].start);
	} else {
		cut_file(d.thread0, frames[k].end);
		snprintf(phrase, sizeof(phrase), "THREAD_END says %zu were written", fx.full_n);
	}
	expect_error_both_ways(d.root, d.thread0, phrases);
}

/* After a clean exit every frame was written whole: a thread file cut inside
 * one lost events no crash explains. */
static void lz4_cut_mid_frame_after_a_clean_exit_is_one_error(void **state)
{
	(void)state;
	cut_after_a_clean_exit("lz4-cut-clean", true);
	PASSED();
}

/* Whole frames gone from the end: the file reads cleanly, but THREAD_END
 * says how many events the writer wrote. */
static void lz4_cut_at_a_frame_end_after_a_clean_exit_is_one_error(void **state)
{
	(void)state;
	cut_after_a_clean_exit("lz4-cut-frames", false);
	PASSED();
}

/* thread_0.lz4 with frame k written twice (repeat) or left out. */
static void repeat_or_drop_frame(const char *path, size_t k, bool repeat)
{
	uint8_t *buf, *out;
	size_t len, n, flen;

	n = read_frames(path, &buf, &len, 3);
	if (k + 1 >= n)
		fail_msg("%s: frame %zu is the last", path, k);
	flen = frames[k].end - frames[k].start;
	out = malloc(len + flen);
	if (!out)
		fail_msg("out of memory");
	if (repeat) { /* ... frame k, frame k, ... */
		memcpy(out, buf, frames[k].end);
		memcpy(out + frames[k].end, buf + frames[k].start, len - frames[k].start);
	} else {
		memcpy(out, buf, frames[k].start);
		memcpy(out + frames[k].start, buf + frames[k].end, len - frames[k].end);
	}
	write_bytes(path, out, repeat ? len + flen : len - flen);
	free(out);
	free(buf);
}

static void repeated_frame_is_one_error_naming_the_file(void **state)
{
	static const char *const phrases[] = { "a frame written twice", NULL };
	struct damaged d;

	(void)state;
	copy_case("lz4-repeated", &d);
	repeat_or_drop_frame(d.thread0, 2, true);
	expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

static void missing_middle_frame_is_one_error_naming_the_file(void **state)
{
	static const char *const phrases[] = { "a frame missing before it", NULL };
	struct damaged d;

	(void)state;
	copy_case("lz4-dropped", &d);
	repeat_or_drop_frame(d.thread0, 2, false);
	expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

/* Replaces thread_0.lz4 with one valid LZ4 frame (content checksum on, as
 * the runtime writes) holding `len` bytes of events. */
static void write_thread_frame(const struct damaged *d, const uint8_t *events, size_t len)
{
	LZ4F_preferences_t prefs = { .frameInfo = { .contentChecksumFlag = LZ4F_contentChecksumEnabled } };
	size_t cap = LZ4F_compressFrameBound(len, &prefs), n;
	uint8_t *out = malloc(cap);

	if (!out)
		fail_msg("out of memory");
	n = LZ4F_compressFrame(out, cap, events, len, &prefs);
	if (LZ4F_isError(n))
		fail_msg("LZ4F_compressFrame: %s", LZ4F_getErrorName(n));
	write_bytes(d->thread0, out, n);
	free(out);
}

/* A SYNC record, POS 0, then a RETURN: nothing is open for it to close. */
static void return_without_call_is_one_error_naming_the_file(void **state)
{
	static const char *const phrases[] = { "no open call", NULL };
	static const uint8_t events[] = { 3, 1, 0, 0, 0, 0, 0, 0, 0, 3 | 3 << 2, 0, 1 | 5 << 2 };
	struct damaged d;

	(void)state;
	copy_case("lz4-return", &d);
	write_thread_frame(&d, events, sizeof(events));
	expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

/* Frames of pseudo-random event bytes, intact as LZ4: the event decoder
 * must reject or accept them, never crash. */
static void random_events_never_crash(void **state)
{
	uint8_t events[600];
	uint32_t x = 12345;
	struct damaged d;

	(void)state;
	copy_case("lz4-random", &d);
	for (int round = 0; round < 30; round++) {
		struct proc_result res;
		char what[64];
		int code;

		/* Start with a SYNC and POS 0 so the bytes after them are read
		 * as events. */
		events[0] = 3;
		for (size_t i = 1; i < sizeof(events); i++) {
			x = x * 1103515245u + 12345u;
			events[i] = (uint8_t)(x >> 16);
			/* mostly small fids and deltas, so calls nest deep */
			if (round % 2 && i > 10 && (events[i] & 3) == 0)
				events[i] &= 0x0f;
		}
		events[9] = 3 | 3 << 2;
		events[10] = 0;
		write_thread_frame(&d, events, sizeof(events));
		symbolize("-q", d.root, &res);
		snprintf(what, sizeof(what), "random events, round %d", round);
		expect_no_signal(&res, what);
		code = WEXITSTATUS(res.wstatus);
		if (code != 0 && (code != 1 || res.err_len == 0))
			fail_msg("%s: exit status %d, stderr:\n%s", what, code, res.err);
		proc_result_free(&res);
	}
	PASSED();
}

static void missing_thread_file_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "missing", "No such file", NULL };
	struct damaged d;

	(void)state;
	copy_case("lz4-missing", &d);
	if (unlink(d.thread0) < 0)
		fail_msg("rm %s: %s", d.thread0, strerror(errno));
	expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

/* ---- the binary ----------------------------------------------------------------- */

static void changed_binary_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "changed", NULL };
	const char *const flags[] = { "-O0", "-g", "-DVARIANT=1", NULL };
	char trace[PATH_MAX], prog[PATH_MAX];

	(void)state;
	need_fixture();
	if (build_and_run("changed", "-DVARIANT=0", "short", trace, sizeof(trace)) < 0)
		fail_msg("could not build or run the program");
	/* The same path, different code: a different build-id. */
	if (tracee_build(fx.dir, "changed", program, TRACEE_ADACC, flags) < 0)
		fail_msg("could not rebuild the program");
	snprintf(prog, sizeof(prog), "%s/changed", fx.dir);
	expect_error_both_ways(trace, prog, phrases);
	PASSED();
}

static void deleted_binary_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "No such file", "missing", NULL };
	char trace[PATH_MAX], prog[PATH_MAX];

	(void)state;
	need_fixture();
	if (build_and_run("deleted", "-DVARIANT=0", "short", trace, sizeof(trace)) < 0)
		fail_msg("could not build or run the program");
	snprintf(prog, sizeof(prog), "%s/deleted", fx.dir);
	if (unlink(prog) < 0)
		fail_msg("rm %s: %s", prog, strerror(errno));
	expect_error_both_ways(trace, prog, phrases);
	PASSED();
}

/* ---- main ------------------------------------------------------------------------ */

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup(fn, test_setup)
		T(no_arguments_exit_2_with_usage),
		T(unknown_option_exits_2_with_usage),
		T(directory_without_trace_is_one_error_naming_it),
		T(missing_directory_is_one_error_naming_it),
		T(missing_process_meta_is_one_error_naming_it),
		T(process_meta_cut_inside_header_is_one_error_naming_it),
		T(process_meta_cut_after_header_is_one_error_naming_it),
		T(process_meta_bad_magic_is_one_error_naming_it),
		T(process_meta_newer_version_is_one_error_naming_it),
		T(process_meta_field_flips_never_crash),
		T(module_build_id_len_too_large_is_one_error),
		T(record_size_larger_than_any_record_is_one_error),
		T(second_process_record_is_one_error),
		T(wrong_architecture_is_one_error_naming_the_binary),
		T(corrupt_lz4_frame_is_one_error_naming_the_file),
		T(lz4_cut_mid_frame_converts_the_complete_frames),
		T(lz4_cut_mid_frame_after_a_clean_exit_is_one_error),
		T(lz4_cut_at_a_frame_end_after_a_clean_exit_is_one_error),
		T(repeated_frame_is_one_error_naming_the_file),
		T(missing_middle_frame_is_one_error_naming_the_file),
		T(return_without_call_is_one_error_naming_the_file),
		T(random_events_never_crash),
		T(missing_thread_file_is_one_error_naming_it),
		T(changed_binary_is_one_error_naming_it),
		T(deleted_binary_is_one_error_naming_it),
#undef T
	};

	tracee_scrub_environment();
	return cmocka_run_group_tests_name("ada-symbolize on bad input", tests, group_setup,
					   group_teardown);
}
