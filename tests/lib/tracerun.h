/* tracerun.h - one traced program per test, for the runtime's end-to-end tests.
 *
 * A test builds a small program twice in a scratch directory, with gcc
 * ("plain") and with bin/adacc ("traced"), runs both, and looks at what the
 * traced run left: its output next to the plain run's, the symbolized trace
 * (--check must pass), its --replay call tree and its manifest.json.
 *
 * The tr_* functions that can fail fail the running cmocka test themselves,
 * with the reason and the commands' output, so a test reads as a list of
 * facts. Everything they allocate hangs off the struct tr_case, which the
 * group's teardown releases; its directory is kept (and named) if the test
 * did not reach tr_pass(), or if ADA_TEST_KEEP was set.
 */
#ifndef ADA_TEST_TRACERUN_H
#define ADA_TEST_TRACERUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/proc.h"

#define TR_BUILD_TIMEOUT_MS 120000
#define TR_RUN_TIMEOUT_MS 20000
#define TR_TOOL_TIMEOUT_MS 60000

/* Drop reasons in the order manifest.json lists them. */
enum tr_drop { TR_RING_FULL, TR_MAX_DEPTH, TR_REENTRANT, TR_NO_BUFFER, TR_AFTER_EXIT,
	       TR_UNMATCHED, TR_NDROPS };
extern const char *const tr_drop_names[TR_NDROPS];

struct tr_thread {
	uint64_t id, events, open_at_end;
	uint64_t dropped[TR_NDROPS];
	char end[48];          /* "exited", "running at exit", ... */
};

struct tr_module {
	char path[4096];
	char uuid[80];         /* the build-id in hex, "" if none */
};

struct tr_manifest {
	char *text;
	bool clean_exit;
	uint64_t events;
	uint64_t dropped[TR_NDROPS];   /* the process totals */
	uint64_t waits;                /* times threads waited for room: "waits" "count" */
	struct tr_thread *threads;
	size_t nthreads;
	struct tr_module *modules;
	size_t nmodules;
	char config[4200];
};

struct tr_case {
	char *dir;                      /* scratch directory */
	char trace[4200];               /* dir/trace, the traced run's ADA_OUTPUT */
	bool passed;
	struct proc_result plain, traced, sym, check, replay;
	struct tr_manifest mf;
};

/* cmocka setup/teardown: state is a struct tr_case (calloc'd here). */
int tr_setup(void **state);
int tr_teardown(void **state);

/* Reads this test's own ADA_TEST_KEEP, then removes every
 * ADA_* variable from our environment: a developer's settings must not reach
 * the traced programs, and the runtime warns about any ADA_* it does not know
 * (ADA_TEST_* included). Call it first thing in main(). */
void tr_scrub_environment(void);

/* "<dir>/<name>" in buf (PATH_MAX bytes); returns buf. */
const char *tr_path(const struct tr_case *tc, const char *name, char *buf);

#define TR_ADACC ADA_ROOT "/bin/adacc"
#define TR_ADACXX ADA_ROOT "/bin/adac++"

/* Runs a compiler command line (NULL-terminated) in the case directory, with
 * env as for proc_run(); fails the test if it does not exit 0. */
void tr_compile(const struct tr_case *tc, const char *const argv[], const char *const env[]);

/* Compiles `prog` into <dir>/<out>: "cc -g -pthread -o <dir>/<out> <source>
 * flags...". prog is tests/e2e/progs/<prog>.c, or if it holds a '/' a path
 * relative to the repository; flags is NULL-terminated (may be NULL). */
void tr_build(const struct tr_case *tc, const char *const env[], const char *cc, const char *prog,
	      const char *out, const char *const flags[]);

/* tr_build() with gcc into <out>.plain and with bin/adacc into <out>. */
void tr_build_pair(const struct tr_case *tc, const char *prog, const char *out,
		   const char *const flags[]);

/* tr_build_pair() of `prog` into <dir>/<prog>-<mode> (its name in out, len
 * bytes), with adacc in mode `mode`. */
void tr_build_mode_pair(const struct tr_case *tc, const char *prog, const char *mode, char *out,
			size_t len, const char *const flags[]);

/* A shared library beside its plain build: makes <dir>/plain and
 * <dir>/traced, and builds `prog` into plain/<lib> with gcc and plain_flags
 * and into traced/<lib> with bin/adacc (env as for tr_build) and
 * traced_flags. */
void tr_build_lib_pair(const struct tr_case *tc, const char *prog, const char *lib,
		       const char *const env[], const char *const plain_flags[],
		       const char *const traced_flags[]);

/* Runs argv (argv[0] a name in the case directory) in the case directory; env
 * as for proc_run(). Fails the test if it cannot be started or times out. */
void tr_run(const struct tr_case *tc, const char *const argv[], const char *const env[],
	    struct proc_result *res);

/* tr_run() of a host tool (nm, objdump): never behind qemu, whatever the
 * target (lib/target.h). */
void tr_run_host(const struct tr_case *tc, const char *const argv[], struct proc_result *res);

/* Runs <out>.plain and <out> with args (NULL-terminated, may be NULL), the
 * traced one with env and ADA_OUTPUT=<dir>/trace (unless env sets or removes
 * ADA_OUTPUT itself); fails the test unless both
 * exit with `status` and print the same stdout. The results stay in
 * tc->plain and tc->traced. */
void tr_run_pair(struct tr_case *tc, const char *out, const char *const args[],
		 const char *const env[], int status);

/* The same, with different arguments for the plain and the traced program. */
void tr_run_pair_args(struct tr_case *tc, const char *out, const char *const plain_args[],
		      const char *const traced_args[], const char *const env[], int status);

/* ada-symbolize, --check and --replay on `trace` (tc->trace if NULL); fails
 * the test unless all exit 0. tc->replay.out holds the call trees. */
void tr_symbolize(struct tr_case *tc, const char *trace);

/* A case of its own (tr_setup) holding `prog` built at -O0 in adacc mode
 * `mode`, run (env: one "NAME=value" or NULL) and symbolized: what the
 * views' tests start from. Release it with tr_teardown. */
struct tr_case *tr_traced_case(const char *prog, const char *out, const char *mode,
			       const char *env);

/* Fails the test unless the replay's call tree (threads sorted, headers
 * dropped, as calltree.h) equals `expected` (blocks separated by
 * "--- thread" lines) and shows `npids` processes. */
void tr_expect_tree(const char *replay, const char *expected, size_t npids);

/* Loads the manifest.json of the only pid_* directory under trace (tc->trace
 * if NULL) into tc->mf; fails the test if there is not exactly one. */
void tr_load_manifest(struct tr_case *tc, const char *trace);

/* The value of "key" in the manifest text [s, end): a string's characters,
 * or a bare value (number, true, ...) up to ',', '}' or the line's end, into
 * buf. False if the key is not there. */
bool tr_json_value(const char *s, const char *end, const char *key, char *buf, size_t size);

/* The first line of the manifest's array "key" (ada-symbolize writes one
 * element per line); *close is the end of its last line. Fails the test if
 * there is no such array. */
const char *tr_json_array(const char *text, const char *key, const char **close);

/* Lines of text containing every one of the NULL-terminated needles. */
size_t tr_count_lines(const char *text, const char *const needles[]);

/* Entries of dir whose names start with prefix; -1 if dir cannot be read. */
long tr_count_entries(const char *dir, const char *prefix);

/* The test got to its end: its directory may go. */
void tr_pass(struct tr_case *tc);

/* Whether `tool --version` runs (clang, gdb, ...). */
bool tr_have_tool(const char *tool);
/* Skips the running test, with a message, unless `tool` is installed. */
void tr_require_tool(struct tr_case *tc, const char *tool);

#endif
