/* proc.h - run programs and handle scratch directories, for end-to-end tests.
 *
 * proc_run() is what a test needs from a shell: run a command with a few
 * environment changes, in a directory, with a deadline, and get back its
 * stdout, stderr and wait status. Nothing is written to the terminal.
 */
#ifndef ADA_TEST_PROC_H
#define ADA_TEST_PROC_H

#include <stdbool.h>
#include <stddef.h>

struct proc_result {
	char *out;       /* stdout, NUL-terminated (NULL only if out of memory) */
	size_t out_len;
	char *err;       /* stderr, likewise */
	size_t err_len;
	int wstatus;     /* as returned by waitpid() */
	bool timed_out;  /* the deadline passed and the process group was killed */
};

/* Runs argv[0] (searched in PATH) with arguments argv[1..], NULL-terminated.
 * The environment is ours with `env` applied in order: "NAME=value" sets
 * NAME, a bare "NAME" removes it; env may be NULL. The program runs in `cwd`
 * (NULL: ours), reads /dev/null and leads a new process group, which is
 * killed with SIGKILL if it is not done after timeout_ms.
 *
 * Returns 0 once the program has been waited for, whatever its status; a
 * program that cannot be executed exits 127 with the reason on its stderr,
 * as in a shell. Returns a negative errno if no process could be started;
 * *res then says exit status 127 too. Release *res with proc_result_free()
 * in both cases. */
int proc_run(const char *const argv[], const char *const env[], const char *cwd,
	     int timeout_ms, struct proc_result *res);

void proc_result_free(struct proc_result *res);

/* The exit status, 128 + the signal number for a killed process (as a shell
 * reports it), or -1 if it timed out. */
int proc_exit_code(const struct proc_result *res);

/* "exit status 7", "killed by signal 11 (Segmentation fault)" or
 * "timed out", in buf; returns buf. */
const char *proc_describe(const struct proc_result *res, char *buf, size_t size);

/* argv joined by spaces, for messages; returns buf (truncated to fit). */
const char *proc_cmdline(const char *const argv[], char *buf, size_t size);

/* Creates a fresh directory "$TMPDIR/<prefix>XXXXXX" (TMPDIR defaults to
 * /tmp). Returns its malloc'd path, or NULL with errno set. */
char *proc_mkdtemp(const char *prefix);

/* Removes path and everything below it, without following symbolic links.
 * A missing path is not an error. Returns 0 or a negative errno. */
int proc_rm_rf(const char *path);

/* Reads a whole file into a malloc'd, NUL-terminated buffer; *len (if not
 * NULL) gets its size. Returns NULL with errno set on failure. */
char *proc_read_file(const char *path, size_t *len);

#endif
