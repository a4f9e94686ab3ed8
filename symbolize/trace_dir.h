/* trace_dir.h - finding the traced processes under an output directory and
 * the function names of their manifests; shared by the validator and views.
 */
#ifndef ADA_TRACE_DIR_H
#define ADA_TRACE_DIR_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

struct ada_trace_pid {
	char *dir;     /* .../pid_<pid> */
	uint64_t pid;  /* from the directory name; 0 if it has another name */
};

/* PATH is an output root (holding session_<time>/pid_<pid>/), a session
 * directory (holding pid_<pid>/) or a pid directory (named pid_<pid> or holding
 * manifest.json). Fills the pid
 * directories, sessions in name order and pids ascending within each.
 * Returns 0 or a negative errno (-ENOENT with a message when there are none). */
int ada_trace_find_pids(const char *path, struct ada_trace_pid **out, size_t *n);

/* What the tools read for a PATH given on their command line: an output root
 * holding several session_<time> directories stands for its latest session
 * (the last by name: the runtime names a session by its start time, second
 * and _<N>) and the earlier sessions holding a pid_<P> of a session picked
 * (an exec'd image keeps its pid and starts a session of its own), said in
 * one line on stderr, unless all; any other PATH (a session, a pid
 * directory, a root of one session or all of whose sessions are picked) is
 * itself. *out is a NULL-terminated malloc'd array (ada_trace_free_paths).
 * Returns how many paths, or a negative errno (message printed). */
int ada_trace_choose(const char *path, bool all, char ***out);
void ada_trace_free_paths(char **paths);
void ada_trace_free_pids(struct ada_trace_pid *pids, size_t n);

/* Thread directories of a pid directory: the N of every "thread_<N>" entry
 * (decimal, no leading zeros), ascending. Returns 0 or a negative errno. */
int ada_trace_find_threads(const char *pid_dir, uint32_t **ids, size_t *n);

/* The manifest's "threads" entries in ascending "id" order, as a malloc'd
 * array of pointers into the manifest (NULL and *n = 0 when there are none
 * or memory ran out: -ENOMEM is returned then). */
int ada_trace_sorted_threads(const struct json_value *manifest, const struct json_value ***out,
			     size_t *n);

/* "0x" followed by 1..16 hex digits, nothing else. */
bool ada_trace_parse_hex(const char *s, uint64_t *out);

/* The manifest's symbols by function_id. Entries whose function_id is not a
 * valid hex string are left out (the validator reports them). */
struct ada_trace_symbol {
	uint64_t function_id;
	const char *display;            /* "demangled" if present, else "name";
					 * without a symbol version ("@GLIBC_2.2.5") */
	char *own;                      /* display's copy, when it had a version */
	const struct json_value *json;  /* the manifest entry */
};

struct ada_trace_symbols {
	struct ada_trace_symbol *v;     /* sorted by function_id */
	size_t n;
};

int ada_trace_load_symbols(const struct json_value *manifest, struct ada_trace_symbols *out);
const struct ada_trace_symbol *ada_trace_find_symbol(const struct ada_trace_symbols *s,
						     uint64_t function_id);
void ada_trace_free_symbols(struct ada_trace_symbols *s);

/* How the views mark a frame a thread's record ended inside (the thread's
 * last open_at_end events, EXCEPTIONs the converter made): "(open at
 * exit)", "(open at exec)", "(open at crash)" or "(open when killed)" after
 * the manifest's "end"; "(unwound)" for a thread that ended inside them
 * (pthread_exit, a cancellation), as for EXCEPTIONs from the stream. */
const char *ada_trace_open_mark(const struct json_value *thread, uint64_t *n);

/* A view's line before a thread's events: "# pid P thread N tid T", and for
 * a coroutine stack's thread " stack LO-HI of thread H". Returns N. */
uint64_t ada_trace_thread_header(FILE *out, uint64_t pid, const struct json_value *thread);

#endif
