/* damaged_trace.h - what test_symbolize_errors.c and test_corrupt_frames.c
 * share.
 *
 * The group's setup (dt_group_setup) builds a small program with bin/adacc,
 * runs it once with ADA_OUTPUT=<dir>/trace and converts a pristine copy of
 * that trace ("full"). Each test then copies the raw trace (dt_copy_case),
 * damages the copy in one way and runs ada-symbolize on it, then
 * `ada-symbolize --check` (which converts first).
 *
 * The directory is removed at the end unless a test failed (its path is
 * printed) or ADA_TEST_KEEP is set.
 *
 * Like tracerun.h, the dt_* functions that check fail the running cmocka
 * test themselves, with the reason.
 */
#ifndef ADA_TEST_DAMAGED_TRACE_H
#define ADA_TEST_DAMAGED_TRACE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/proc.h"
#include "lib/tracee.h"

#define DT_TOOL_TIMEOUT_MS 60000

/* main -> burst x40 -> leaf x2000 (one burst with an argument); see
 * damaged_trace.c. */
extern const char dt_program[];

struct dt_fixture {
	char *dir;
	char trace[PATH_MAX];    /* the raw trace, never converted */
	char pid_rel[256];       /* session_<time>/pid_<pid>, inside trace */
	char full[PATH_MAX + 256]; /* pid directory of the converted pristine copy */
	struct tracee_event *full_ev;
	size_t full_n;
	bool ready;
	int failed;              /* tests that did not reach their end */
};

extern struct dt_fixture dt_fx;

/* A damaged copy: root = <dir>/<name>, pid = its pid directory. */
struct damaged {
	char root[PATH_MAX];
	char pid[PATH_MAX + 256];
	char meta[PATH_MAX + 300];
	char thread0[PATH_MAX + 300];
};

/* A record of process.meta: 8-byte header (type, size), payload, padding. */
struct meta_rec {
	size_t off;
	uint32_t type, size;
};

/* Builds dt_program with -D`variant` as <dir>/<name> and runs it (with
 * `arg` if not NULL) into <dir>/<name>.trace, whose path goes to trace;
 * -1 (and a message) if it could not. */
int dt_build_and_run(const char *name, const char *variant, const char *arg, char *trace,
		     size_t size);

/* The group's setup and teardown (see above). */
int dt_group_setup(void **state);
int dt_group_teardown(void **state);

/* Every test counts as failed until it says it passed (PASSED()). */
int dt_test_setup(void **state);

#define PASSED() (dt_fx.failed--)

/* Fails unless the group's setup succeeded. */
void dt_need_fixture(void);

/* A fresh copy of the raw trace at <dir>/<name>. */
void dt_copy_case(const char *name, struct damaged *d);

/* Runs ada-symbolize [option] path in <dir>. */
void dt_symbolize(const char *option, const char *path, struct proc_result *res);

/* Fails if the tool was killed by a signal or timed out. */
void dt_expect_no_signal(const struct proc_result *res, const char *what);

/* Exit status 1, and stderr one line naming `file` with one of `phrases`
 * (NULL-terminated, any case). */
void dt_expect_one_error(const struct proc_result *res, const char *what, const char *file,
			 const char *const phrases[]);

/* Both the conversion and --check on `path` fail with that one message. */
void dt_expect_error_both_ways(const char *path, const char *file, const char *const phrases[]);

/* Byte surgery on a file. */
void dt_write_bytes(const char *path, const void *buf, size_t len);
void dt_patch_byte(const char *path, size_t off, uint8_t value);
void dt_cut_file(const char *path, size_t len);

/* The records of process.meta (buf), at most max; how many. */
size_t dt_meta_records(const char *buf, size_t len, struct meta_rec *recs, size_t max);

/* process.meta without its records of `type`: with END and THREAD_END gone
 * it is what a process SIGKILLed before its exit leaves. */
void dt_drop_meta_records(const char *path, uint32_t type);

/* The first record of `type` in process.meta. */
struct meta_rec dt_meta_record(const char *path, uint32_t type);

#endif
