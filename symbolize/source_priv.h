/* source_priv.h - what source.c (raw traces) and source_atf.c (ATF only)
 * share behind struct src_process.
 */
#ifndef ADA_SOURCE_PRIV_H
#define ADA_SOURCE_PRIV_H

#include "convert.h"
#include "source.h"

struct json_doc;

struct src_raw {
	char *dir;
	struct src_func *funcs;
	size_t nfuncs;
	struct src_thread *threads;
	/* raw trace */
	struct conv_process cp;
	uint32_t *dense_of_choice;           /* cp.choices[c] → dense id */
	const struct raw_thread **raw_of;    /* threads[i] → its raw record */
	/* ATF only */
	bool atf_only;
	struct json_doc *manifest;
	uint64_t *func_ids;                  /* dense id → ATF function_id, ascending */
	uint32_t *atf_thread_ids;
	struct const_files *consts;          /* src_read_const's files, once asked */
};

/* const_read.c */
void src_const_free(struct const_files *cf);
/* Whether the file at path is the run's build of an ATF module: its
 * build-id is the manifest's uuid (hex; a module without one is not
 * trusted: nothing says it is the same). */
bool src_same_build(const char *path, const char *uuid);

struct src_atf_stream;
struct src_async;

/* source.c: one raw thread file of cp as a stream (also the conversion's:
 * dense_of_choice NULL, lz4's checksums checked). */
struct src_stream *src_raw_stream_open(struct conv_process *cp, const struct raw_thread *rt,
				       const uint32_t *dense_of_choice, bool checksums);
/* Its raw decoder, for what the conversion reads once it has ended. */
struct raw_stream *src_stream_raw(const struct src_stream *s);
/* source.c: the next event, decoded in the caller's thread. */
int src_next_sync(struct src_stream *s, struct src_event *ev);
/* Up to max events into ev[] as src_next_sync gives them, event i's
 * registers into regs[i] and fregs[i]: the number, 0 at the end, negative
 * errno; *with_regs whether any of them has registers. Their stack windows
 * stay valid until the next call. */
int src_fill(struct src_stream *s, struct src_event *ev, uint64_t (*regs)[8], uint64_t (*fregs)[8],
	     size_t max, bool *with_regs);

/* source_async.c: s decoded by a thread of its own (NULL if none could be
 * started: decode in the caller's then); src_next takes from it. */
struct src_async *src_async_start(struct src_stream *s);
/* 1 and the next batch of events, [*first, *first + *n) with *n > 0 (the
 * one before is handed back: valid until the next call), 0 at the end,
 * negative errno on an error. */
int src_async_batch(struct src_async *a, const struct src_event **first, size_t *n);
void src_async_stop(struct src_async *a);

/* source_atf.c */
int src_atf_open(const char *pid_dir, struct src_process *p, struct src_raw *r);
void src_atf_free(struct src_raw *r);
struct src_atf_stream *src_atf_stream_open(struct src_process *p, struct src_raw *r, size_t i);
int src_atf_next(struct src_atf_stream *s, struct src_event *ev);
void src_atf_stream_close(struct src_atf_stream *s);

#endif
