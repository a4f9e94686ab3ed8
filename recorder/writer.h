/* writer.h - the recorder's writing state, shared by the files of
 * recorder/: writer.c (the loop and its drains), final.c (the flushes the
 * program asks for, the end of an image's trace), writer_files.c,
 * snapshot.c and process.c. */
#ifndef ADA_WRITER_H
#define ADA_WRITER_H

#include <lz4frame.h>
#include <sys/types.h>

#include "ada_internal.h"
#include "encode.h"
#include "frame.h"

struct ada_writer_stream {
	int fd;      /* -1 while closed: reopened (O_APPEND) at the next frame */
	bool failed; /* a write failed: later frames are counted, not written */
	off_t size;  /* bytes of whole frames in the file */
	struct ada_enc_stream enc;
	uint64_t events;
	uint64_t lost_seen[ADA_DROP_NREASONS]; /* td->dropped already noted in the stream */
	uint64_t write_lost;                   /* slots lost to a failed encode or write */
	uint64_t details_skipped;              /* detail records left out (behind) */
};
struct ada_writer {
	pthread_mutex_t lock;
	bool stop;
	struct ada_fdict dict;
	LZ4F_cctx *cctx;
	LZ4F_preferences_t prefs;
	uint8_t *enc_buf, *lz4_buf;
	size_t lz4_cap;
	uint64_t last_clock_ns;
	uint64_t totals[ADA_DROP_NREASONS]; /* of threads already finished */
	uint64_t kept;
	uint64_t waits, wait_ns; /* of threads already finished */
	uint32_t streams;        /* thread files opened: threads that recorded */
	bool trace_removed; /* by an exec flush: nothing was recorded */
	bool exec_flushed;  /* the image's trace ended at an exec (a recorder goes
			     * once the exec is done) */
};
ADA_HIDDEN extern struct ada_writer ada_w;
/* The recorder's loop (recorder/process.c runs it once set up): makes the
 * trace's files, drains every ring until the program's trace is done. */
ADA_HIDDEN void ada_writer_loop(void);

/* A ring-mode cut before a frame's slots (snapshot.c): the positions from
 * the frame's start to lo are gone (ada_encode_cut). */
struct ada_writer_cut {
	uint64_t lo;            /* the first slot's position */
	uint64_t skip;          /* positions passed over: lo - start - open frames - k */
	const uint64_t *calls;  /* the frames entered before lo, innermost first */
	size_t k;
	uint64_t tsc;           /* lo's time: the calls' */
	uint64_t detail_from;   /* the first position whose record the detail ring holds */
	const uint8_t *dring;   /* the records, copied (indexed as in the detail ring) */
	const uint64_t *dhead;  /* the thread's head once they were */
};
/* td's stream, opened at its first use; NULL if memory ran out. */
ADA_HIDDEN struct ada_writer_stream *ada_writer_stream_of(struct ada_thread *td);
/* One frame of td's positions [tail, tail + n) from ring (td->ring or a
 * copy indexed alike), after cut (NULL: none), to td's thread file. */
ADA_HIDDEN void ada_writer_frame(struct ada_thread *td, const struct ada_slot *ring, uint64_t tail,
				 size_t n, const struct ada_writer_cut *cut);
/* Ring mode: writes what td's snapshots want of its ring (snapshot.c);
 * returns the positions consumed. end (NULL while the thread's record goes
 * on): all of it is written, under a window of that label if no
 * snapshot's covers it. */
ADA_HIDDEN size_t ada_ring_drain(struct ada_thread *td, const char *end);

/* Drains every ring up to where its head is now (writer.c). */
ADA_HIDDEN void ada_writer_drain_cut(void);
/* td's THREAD_END record, its counts added to the process totals. */
ADA_HIDDEN void ada_writer_thread_end(struct ada_thread *td, uint32_t flags);
/* writer_files.c: td's stream (its THREAD record, its file), or NULL (no
 * memory); new function ids to process.meta ahead of the frame that uses
 * them; the frame of len bytes in ada_w.enc_buf compressed and appended to
 * td's file (0, or -1: not written, the file's failure said once). */
ADA_HIDDEN struct ada_writer_stream *ada_writer_stream_open(struct ada_thread *td);
ADA_HIDDEN void ada_writer_flush_fids(void);
ADA_HIDDEN int ada_writer_write_frame(struct ada_thread *td, size_t len);
ADA_HIDDEN void ada_writer_stream_close(struct ada_thread *td);
/* A CLOCK record (a TSC / boottime pair) now. */
ADA_HIDDEN void ada_writer_clock_point(void);
/* A recorder's program died without the exit flush: its trace ends (final.c). */
ADA_HIDDEN void ada_writer_end_dead(void);
/* Does the flush another thread asked for, if any (final.c). */
ADA_HIDDEN void ada_writer_flush_if_asked(void);

#endif
