/* hijack_run.h - what test_hijack*.c share: one program built and run in
 * fentry or mcount mode, next to its plain gcc build.
 *
 * Like tracerun.h (which they build on), the hj_* functions fail the running
 * cmocka test themselves, with the reason.
 */
#ifndef ADA_TEST_HIJACK_RUN_H
#define ADA_TEST_HIJACK_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/tracerun.h"

struct CMUnitTest;

/* The mode of the group being run: "fentry" (with gcc: returns seen by
 * __return__), "fentry-hijack" (--ada-returns=hijack, as with clang) or
 * "mcount". */
extern const char *hj_mode;

/* Whether the mode hijacks returns: a tail call then nests in its caller,
 * whose frame returns with it (else it follows its caller's return). */
bool hj_hijacks(void);

/* The mode the manifest names: fentry, whichever way returns are seen. */
const char *hj_manifest_mode(void);

/* Builds tests/e2e/progs/<prog>.c at `opt` into <dir>/<prog>.plain with gcc
 * and into <dir>/<prog> with bin/adacc in hj_mode, and makes sure
 * the traced build calls the mode's entry hook (and not cyg's). */
void hj_build(const struct tr_case *tc, const char *prog, const char *opt);

/* tr_run_pair(), then: stdout is `out` (if not NULL), no gmon.out appeared
 * in the working directory, and the trace symbolizes (tc->replay). */
void hj_run(struct tr_case *tc, const char *prog, const char *const args[],
	    const char *const env[], int status, const char *out);

/* Fails if <dir>/gmon.out exists: glibc's gprof ran. */
void hj_expect_no_gmon(const struct tr_case *tc);

/* Loads the manifest (one process) into tc->mf and fails unless it names
 * the mode (hj_mode) and counts exactly `max_depth` max_depth drops and no
 * other drop, reentrant ones excepted if `reentrant_ok`. */
void hj_expect_manifest(struct tr_case *tc, uint64_t max_depth, bool reentrant_ok);

/* The only session_* directory of tc->trace, in buf. */
void hj_only_session(const struct tr_case *tc, char *buf, size_t size);

/* Fails unless function `from` of <dir>/<prog> jumps to `to` (a tail call)
 * according to objdump. */
void hj_expect_jump(const struct tr_case *tc, const char *prog, const char *from,
		    const char *to);

/* Runs `tests` once per mode, as groups "<name> fentry" and "<name> mcount"
 * (with --target=aarch64, lib/target.h: mcount alone); returns the number
 * of failed tests. */
int hj_run_groups(const char *name, const struct CMUnitTest *tests, size_t n);

#endif
