/* damaged_trace.c - what test_symbolize_errors.c and test_corrupt_frames.c
 * share: one traced program run once per group, damaged copies of its raw
 * trace, ada-symbolize run on them and what it said. See damaged_trace.h.
 */
#include "e2e/damaged_trace.h"

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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracee.h"

#define DT_RUN_TIMEOUT_MS 20000

/* main -> burst x40 -> leaf x2000, with a 2 ms sleep after each burst so the
 * writer (which drains every millisecond while events flow) writes the
 * thread's events as many LZ4 frames. With an argument: one burst only.
 * VARIANT changes the code, and so the build-id, not the call tree. */
const char dt_program[] =
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

struct dt_fixture dt_fx;

/* ---- setup ------------------------------------------------------------------ */

int dt_build_and_run(const char *name, const char *variant, const char *arg, char *trace,
		     size_t size)
{
	char exe[PATH_MAX], output[PATH_MAX + 16], why[64];
	const char *const flags[] = { "-O0", "-g", variant, NULL };
	struct proc_result res;
	int ret;

	if (tracee_build(dt_fx.dir, name, dt_program, TRACEE_ADACC, flags) < 0)
		return -1;
	snprintf(exe, sizeof(exe), "%s/%s", dt_fx.dir, name);
	snprintf(trace, size, "%s/%s.trace", dt_fx.dir, name);
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", trace);

	const char *const argv[] = { exe, arg, NULL };
	const char *const env[] = { output, NULL };

	ret = proc_run(argv, env, dt_fx.dir, DT_RUN_TIMEOUT_MS, &res);
	if (ret == 0 && proc_exit_code(&res) != 0) {
		print_error("%s: %s\n%s", exe, proc_describe(&res, why, sizeof(why)), res.err);
		ret = -1;
	}
	proc_result_free(&res);
	return ret;
}

int dt_group_setup(void **state)
{
	char full_root[PATH_MAX], index[PATH_MAX + 300], why[64];
	struct proc_result res;
	char *pid;

	(void)state;
	dt_fx.dir = proc_mkdtemp("ada-e2e-errors-");
	if (!dt_fx.dir) {
		print_error("mkdtemp: %s\n", strerror(errno));
		return 0;
	}
	if (dt_build_and_run("prog", "-DVARIANT=0", NULL, dt_fx.trace, sizeof(dt_fx.trace)) < 0)
		return 0;
	pid = tracee_pid_dir(dt_fx.trace);
	if (!pid)
		return 0;
	snprintf(dt_fx.pid_rel, sizeof(dt_fx.pid_rel), "%s", pid + strlen(dt_fx.trace) + 1);
	free(pid);

	snprintf(full_root, sizeof(full_root), "%s/full", dt_fx.dir);
	snprintf(dt_fx.full, sizeof(dt_fx.full), "%s/%s", full_root, dt_fx.pid_rel);
	if (tracee_copy_tree(dt_fx.trace, full_root) < 0)
		return 0;

	const char *const argv[] = { TRACEE_SYMBOLIZE, full_root, NULL };

	if (proc_run(argv, NULL, dt_fx.dir, DT_TOOL_TIMEOUT_MS, &res) < 0 ||
	    proc_exit_code(&res) != 0) {
		print_error("ada-symbolize %s: %s\n%s", full_root,
			    proc_describe(&res, why, sizeof(why)), res.err);
		proc_result_free(&res);
		return 0;
	}
	proc_result_free(&res);
	snprintf(index, sizeof(index), "%s/thread_0/index.atf", dt_fx.full);
	if (tracee_read_index(index, &dt_fx.full_ev, &dt_fx.full_n) < 0)
		return 0;
	dt_fx.ready = true;
	return 0;
}

int dt_group_teardown(void **state)
{
	(void)state;
	if (dt_fx.dir && (dt_fx.failed || getenv("ADA_TEST_KEEP")))
		print_message("kept %s\n", dt_fx.dir);
	else if (dt_fx.dir && proc_rm_rf(dt_fx.dir) < 0)
		print_error("cannot remove %s\n", dt_fx.dir);
	free(dt_fx.dir);
	free(dt_fx.full_ev);
	return 0;
}

/* Every test counts as failed until it says it passed. */
int dt_test_setup(void **state)
{
	(void)state;
	dt_fx.failed++;
	return 0;
}

void dt_need_fixture(void)
{
	if (!dt_fx.ready)
		fail_msg("the traced program could not be built, run or converted (see above)");
}

/* A fresh copy of the raw trace at <dir>/<name>. */
void dt_copy_case(const char *name, struct damaged *d)
{
	dt_need_fixture();
	snprintf(d->root, sizeof(d->root), "%s/%s", dt_fx.dir, name);
	snprintf(d->pid, sizeof(d->pid), "%s/%s", d->root, dt_fx.pid_rel);
	snprintf(d->meta, sizeof(d->meta), "%s/raw/process.meta", d->pid);
	snprintf(d->thread0, sizeof(d->thread0), "%s/raw/thread_0.lz4", d->pid);
	if (tracee_copy_tree(dt_fx.trace, d->root) < 0)
		fail_msg("cannot copy %s", dt_fx.trace);
}

/* ---- running the tool and looking at what it said ------------------------------ */

void dt_symbolize(const char *option, const char *path, struct proc_result *res)
{
	const char *argv[4] = { TRACEE_SYMBOLIZE };
	size_t n = 1;

	if (option)
		argv[n++] = option;
	argv[n++] = path;
	argv[n] = NULL;
	if (proc_run(argv, NULL, dt_fx.dir, DT_TOOL_TIMEOUT_MS, res) < 0)
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

void dt_expect_no_signal(const struct proc_result *res, const char *what)
{
	char why[64];

	if (res->timed_out || !WIFEXITED(res->wstatus))
		fail_msg("%s: %s (must exit normally)\nstderr:\n%s", what,
			 proc_describe(res, why, sizeof(why)), res->err);
}

/* Exit status 1, and stderr one line naming `file` with one of `phrases`. */
void dt_expect_one_error(const struct proc_result *res, const char *what, const char *file,
			 const char *const phrases[])
{
	char why[64];

	dt_expect_no_signal(res, what);
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
void dt_expect_error_both_ways(const char *path, const char *file, const char *const phrases[])
{
	struct proc_result res;

	dt_symbolize(NULL, path, &res);
	dt_expect_one_error(&res, "ada-symbolize", file, phrases);
	proc_result_free(&res);
	dt_symbolize("--check", path, &res);
	dt_expect_one_error(&res, "ada-symbolize --check", file, phrases);
	proc_result_free(&res);
}

void dt_write_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "we");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		fail_msg("cannot write %s: %s", path, strerror(errno));
}

void dt_patch_byte(const char *path, size_t off, uint8_t value)
{
	size_t len;
	char *buf = proc_read_file(path, &len);

	if (!buf || off >= len)
		fail_msg("cannot read %s, or it is shorter than %zu bytes", path, off + 1);
	buf[off] = (char)value;
	dt_write_bytes(path, buf, len);
	free(buf);
}

void dt_cut_file(const char *path, size_t len)
{
	if (truncate(path, (off_t)len) < 0)
		fail_msg("truncate %s: %s", path, strerror(errno));
}

size_t dt_meta_records(const char *buf, size_t len, struct meta_rec *recs, size_t max)
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
void dt_drop_meta_records(const char *path, uint32_t type)
{
	struct meta_rec recs[1024];
	size_t len, n, out = 16;
	char *meta = proc_read_file(path, &len);

	if (!meta)
		fail_msg("%s: %s", path, strerror(errno));
	n = dt_meta_records(meta, len, recs, 1024);
	for (size_t r = 0; r < n; r++) {
		size_t size = 8 + ((recs[r].size + 7u) & ~7u);

		if (recs[r].type == type)
			continue;
		memmove(meta + out, meta + recs[r].off, size);
		out += size;
	}
	dt_write_bytes(path, meta, out);
	free(meta);
}

/* The first record of `type` in process.meta. */
struct meta_rec dt_meta_record(const char *path, uint32_t type)
{
	struct meta_rec recs[1024];
	size_t len, n, r;
	char *meta = proc_read_file(path, &len);

	if (!meta)
		fail_msg("%s: %s", path, strerror(errno));
	n = dt_meta_records(meta, len, recs, 1024);
	free(meta);
	for (r = 0; r < n && recs[r].type != type; r++)
		;
	if (r == n)
		fail_msg("%s: no record of type %u", path, type);
	return recs[r];
}
