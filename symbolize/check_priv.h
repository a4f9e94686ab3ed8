/* check_priv.h - what atf_check.c (the spec's files) and atf_check_lanes.c
 * (ada's lanes.atf) share: the checker's state, the manifest's, and the
 * reporting of violations.
 */
#ifndef ADA_CHECK_PRIV_H
#define ADA_CHECK_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "atf.h"
#include "json.h"
#include "trace_dir.h"

#define MAX_LINES_PER_FILE 20

struct checker {
	FILE *out;
	char file[PATH_MAX];  /* the file the next violations are about */
	unsigned shown, hidden;
	int violations;
	uint64_t files, events;
	int err;              /* first I/O error, returned at the end */
	uint64_t *frames;     /* function_id of each open frame, reused per thread */
	size_t cap;
};

/* What one pid directory's manifest says, for the thread checks. */
struct pid_ctx {
	const char *dir;
	struct json_doc *doc;         /* NULL when the manifest is unusable */
	const struct json_value *m;
	struct ada_trace_symbols syms;
	uint64_t time_start, time_end;
	bool has_times;
	uint64_t clock_type;
	bool has_clock;
};

/* The violations that follow are about the file at path. */
void begin_file(struct checker *c, const char *path);
/* One line "<file>: <what>" (at most MAX_LINES_PER_FILE a file). */
__attribute__((format(printf, 2, 3)))
void violation(struct checker *c, const char *fmt, ...);
/* A file that could not be read: a violation when it is missing or not ATF,
 * an I/O error otherwise. */
void unreadable(struct checker *c, int err, const char *why);
/* dir/name in buf (truncated if too long: then it fails to open). */
void make_path(char *buf, size_t size, const char *dir, const char *name);
/* The manifest's entry of thread id, NULL if none. */
const struct json_value *thread_entry(const struct pid_ctx *p, uint32_t id);

/* atf_check_lanes.c: thread_<tid>/lanes.atf in tdir, if there is one,
 * against itself, the manifest and the thread's index (idx; NULL when it
 * could not be read: then the links are not checked). */
void check_lanes(struct checker *c, const struct pid_ctx *p, const char *tdir, uint32_t tid,
		 const struct atf_index_file *idx);

#endif
