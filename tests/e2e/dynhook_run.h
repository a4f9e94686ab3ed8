/* dynhook_run.h - how the test_dynhook*.c tests build and run their
 * programs and check their traces.
 *
 * The programs are tests/e2e/progs/dynhook/ (DH_PROGS); each is built with
 * plain gcc (or g++) and with bin/adacc (adac++), in fentry mode unless the
 * test says otherwise; both runs must exit alike and print the same stdout.
 * Every trace must pass `ada-symbolize --check`, each thread's index.atf
 * must hold as many CALLs as RETURNs and EXCEPTIONs together, and nothing
 * may be dropped.
 *
 * Like tracerun.h, the dh_* functions fail the running cmocka test
 * themselves, with the reason.
 */
#ifndef ADA_TEST_DYNHOOK_RUN_H
#define ADA_TEST_DYNHOOK_RUN_H

#include <stddef.h>

#include "lib/tracerun.h"

#define DH_PROGS "tests/e2e/progs/dynhook/"

/* Every thread of every process of the trace is balanced; returns the
 * number of processes. */
size_t dh_expect_balanced(const char *trace);

/* dh_expect_direct_tree() for a trace of several processes (tc->replay holds
 * them all), the program's functions taken from every manifest. */
void dh_expect_direct_trees(const struct tr_case *tc, const char *trace, const char *expected);

/* Runs <exe>.plain and <exe> (args for each, env for the traced one) into
 * the trace <dir>/<name>; both must exit with status and print the same.
 * Then: symbolized, --check passes, balanced, the manifest loaded, no drops.
 * tc->replay holds the call trees. */
void dh_run_args(struct tr_case *tc, const char *exe, const char *name,
		 const char *const plain_args[], const char *const traced_args[],
		 const char *const env[], int status);

/* dh_run_args() with no arguments. */
void dh_run(struct tr_case *tc, const char *exe, const char *name, const char *const env[],
	    int status);

/* <dir>/<sub>. */
void dh_make_dir(const struct tr_case *tc, const char *sub);

/* <dir>/<sub>/libplain.so with gcc -O2 and extra flags. */
void dh_build_libplain(const struct tr_case *tc, const char *sub, const char *const extra[]);

/* <dir>/<sub>/<name>.plain (gcc) and <dir>/<sub>/<name> (adacc in `mode`)
 * from prog, linked with <sub>/libplain.so, both with extra flags. */
void dh_build_against_libplain(const struct tr_case *tc, const char *sub, const char *prog,
			       const char *name, const char *mode, const char *const extra[]);

/* <dir>/<name>.plain (gcc) and <dir>/<name> (adacc in fentry mode) from
 * DH_PROGS <name>.c, both -O2 with extra flags (NULL-terminated, may be NULL). */
void dh_build_fentry_pair(const struct tr_case *tc, const char *name,
			  const char *const extra[]);

/* The output of a tool run in the case directory (fails the test unless it
 * exits 0), malloc'd. */
char *dh_tool_output(const struct tr_case *tc, const char *const argv[]);

/* The line of text that ends with "  name" (a view's row of a function or
 * a call path); fails the test if none does. */
const char *dh_line_ending(const char *text, const char *name);

/* The numeric value of key in the manifest's "dynamic_hooks" object. */
double dh_hooks_value(const struct tr_case *tc, const char *key);

/* Fails unless the manifest's module whose path ends with suffix has the
 * "mode" `want`. */
void dh_expect_module_mode(const struct tr_case *tc, const char *suffix, const char *want);

/* tr_teardown(), after freeing dh_scratch. */
int dh_teardown(void **state);

#endif
