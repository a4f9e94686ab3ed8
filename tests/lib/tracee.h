/* tracee.h - small traced programs for end-to-end tests: build one from
 * source text, run it in the background, stop it with a signal, find its
 * trace, and read the events ada-symbolize wrote for it.
 *
 * Errors are printed to stderr with what failed; the functions return 0 or a
 * negative number (a negative errno where there is one).
 */
#ifndef ADA_TEST_TRACEE_H
#define ADA_TEST_TRACEE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TRACEE_ADACC ADA_ROOT "/bin/adacc"
#define TRACEE_SYMBOLIZE ADA_ROOT "/bin/ada-symbolize"

/* Writes `source` to <dir>/<name>.c and compiles it with `compiler` (gcc or
 * TRACEE_ADACC) and `flags` (NULL-terminated, may be NULL) into <dir>/<name>. */
int tracee_build(const char *dir, const char *name, const char *source, const char *compiler,
		 const char *const flags[]);

/* Removes the ADA_* variables of the developer's environment (ADA_DISABLE,
 * ADA_OUTPUT, ...) so they do not reach the traced programs, the tests' own
 * ADA_TEST_* too (the runtime would warn about them): read them first. */
void tracee_scrub_environment(void);

/* The one <trace>/session_* /pid_* directory, malloc'd; NULL (with the reason
 * printed) if there is not exactly one session holding exactly one pid. */
char *tracee_pid_dir(const char *trace);

/* cp -a src dst. */
int tracee_copy_tree(const char *src, const char *dst);

/* Waits until the trace in `trace` is complete: a recorder finishes it
 * after its program ended, holding a lock on the pid directory until then
 * (runtime/recorder.c). Programs still running are not waited for. 0, or
 * -1 after 30 s. ada-symbolize waits so too (symbolize/raw_meta.c's
 * lock_wait), which the tests do not link. */
int tracee_settle(const char *trace);

/* ---- a program running in the background ------------------------------------ */

struct tracee {
	pid_t pid;
	int out_fd;      /* read end of its stdout; its stderr is ours */
	char out[4096];  /* what it printed so far, NUL-terminated */
	size_t out_len;
};

/* Starts argv in cwd with `env` applied ("NAME=value" entries), stdin from
 * /dev/null, stdout into a pipe. */
int tracee_start(const char *const argv[], const char *const env[], const char *cwd,
		 struct tracee *t);

/* Reads its stdout until `text` has appeared. -ETIMEDOUT after timeout_ms,
 * -EPIPE if it closed stdout (exited) first. */
int tracee_wait_for(struct tracee *t, const char *text, int timeout_ms);

/* Sends `sig` (0: none) and waits for it; *wstatus as from waitpid(). A
 * program still running after timeout_ms gets SIGKILL and -ETIMEDOUT. */
int tracee_stop(struct tracee *t, int sig, int timeout_ms, int *wstatus);

/* ---- ATF v2 index files ------------------------------------------------------ */

/* One 32-byte index event, as on disk (little-endian, as the host). */
struct tracee_event {
	uint64_t timestamp_ns;
	uint64_t function_id;
	uint32_t thread_id;
	uint32_t kind;        /* 1 CALL, 2 RETURN, 3 EXCEPTION */
	uint32_t call_depth;
	uint32_t detail_seq;
};

enum { TRACEE_CALL = 1, TRACEE_RETURN = 2, TRACEE_EXCEPTION = 3 };

/* Reads the events of an index.atf into a malloc'd array. Checks only what
 * it needs to find them (magic, event size, count against the file size). */
int tracee_read_index(const char *path, struct tracee_event **ev, size_t *n);

/* ---- LZ4 frames (lz4's frame format), to damage raw thread files ------------ */

struct tracee_lz4_frame {
	size_t start, end;       /* [start, end) in the file */
	size_t block;            /* offset of the first data block's size field */
	uint32_t block_size;     /* its size word (bit 31: stored uncompressed) */
};

/* Splits a buffer of concatenated LZ4 frames. Returns the number of frames
 * (up to max) or -1 if the buffer is not whole frames back to back. */
int tracee_lz4_frames(const uint8_t *buf, size_t len, struct tracee_lz4_frame *frames,
		      size_t max);

#endif
