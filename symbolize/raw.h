/* raw.h - reading the raw trace written by libada (runtime/raw_format.h).
 *
 * raw_meta.c loads a process's process.meta whole (it is small: no events);
 * raw_stream.c decodes one thread file incrementally, frame by frame, so a
 * trace of any length passes through bounded memory.
 */
#ifndef ADA_RAW_H
#define ADA_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "raw_format.h"

/* One load of a module: from its MODULE record to its UNLOAD record. */
struct raw_module {
	struct ada_meta_module m;
	char *path;
	bool unloaded;               /* an UNLOAD record names it */
	uint64_t unload_tsc;
	bool has_file;               /* a FILE record names it (no build-id) */
	struct ada_meta_file file;
};

struct raw_thread {
	struct ada_meta_thread t;
	bool registered;             /* a THREAD record was found */
	bool ended;                  /* a THREAD_END record was found */
	bool has_waits;              /* ... with version 3's waits and wait_ns */
	struct ada_meta_thread_end end;
	bool recovered;              /* RECOVERED records were found: their sums */
	struct ada_meta_recovered rec;
	bool is_stack;               /* a STACK record: a coroutine stack's events */
	struct ada_meta_stack stack;
};

/* A thread's ring file (ADA_META_RING), for recovery after an unclean end. */
struct raw_ring {
	uint32_t ordinal;
	char *path;
};

/* A library function reached through hooked PLT/GOT slots (ADA_META_HOOKED):
 * the name the calling module used for it. */
struct raw_hooked {
	uint64_t addr;               /* process address */
	char *name;
	size_t seq;                  /* file order: the first record of an address wins */
};

/* A detail window (ADA_META_WINDOW): thread w.ordinal's events at positions
 * [w.first_pos, w.last_pos] were written with the detail records the ring
 * still held. */
struct raw_window {
	struct ada_meta_window w;
	char *label;                 /* the record's label bytes, NUL added */
	size_t offset;               /* of the record in process.meta, for messages */
};

/* Which of the thread's events are at a window's first and last positions:
 * their ordinals in the stream, from 0, as index.atf numbers them
 * (raw_stream_window_edges); has_*: the stream held one there. */
struct raw_window_edges {
	uint64_t first_event, last_event;
	bool has_first, has_last;
};

struct raw_process {
	char *dir;                   /* the raw/ directory */
	uint32_t version;            /* 2 to 4 (ADA_RAW_VERSION) */
	uint8_t arch;
	struct ada_meta_process proc;
	char *exe;
	char *cmdline;               /* argv joined with spaces */
	char *config;                /* "key=value" strings joined with spaces */
	char *producer;              /* the recording libada's version; NULL before 0.15.0 */
	struct ada_meta_clock *clocks;
	size_t nclocks;
	struct raw_module *modules;  /* in file order: the order they were loaded */
	size_t nmodules;
	uint64_t *fid_addr;          /* fid_addr[fid], fid 1..nfids */
	size_t nfids;
	struct raw_thread *threads;  /* sorted by ordinal */
	size_t nthreads;
	bool clean_end;              /* ADA_META_END present */
	struct ada_meta_end end;
	bool truncated;              /* the file ended inside a record */
	size_t meta_end;             /* bytes up to the end of the last whole record */
	bool has_latency;
	struct ada_meta_latency latency;
	struct raw_hooked *hooked;   /* sorted by addr, one per address */
	size_t nhooked;
	bool has_dynhook;            /* an ADA_META_DYNHOOK record was found */
	struct ada_meta_dynhook dynhook; /* the last one: the totals at the end */
	bool has_patched;            /* an ADA_META_PATCHED record was found */
	struct ada_meta_patched patched; /* the last one */
	struct raw_ring *rings;      /* in file order */
	size_t nrings;
	bool crashed;                /* an ADA_META_CRASH record was found */
	struct ada_meta_crash crash; /* the first: the signal that ended the process */
	struct raw_window *windows;  /* in file order */
	size_t nwindows;
};

/* Loads <raw_dir>/process.meta. Returns 0, or a negative errno after printing
 * one line naming the file and the problem. */
int raw_process_load(const char *raw_dir, struct raw_process *p);
void raw_process_free(struct raw_process *p);
const struct raw_thread *raw_process_thread(const struct raw_process *p, uint32_t ordinal);
/* The name a HOOKED record gives the function at process address addr, or
 * NULL. Binary search. */
const char *raw_process_hooked_name(const struct raw_process *p, uint64_t addr);

/* ---- one thread's event stream --------------------------------------------- */

/* A block the malloc family allocated or freed (ADA_CTL_ALLOC). */
struct raw_alloc {
	uint64_t ptr;
	uint64_t size;     /* asked for; 0 for a block freed */
	uint8_t op;        /* enum ada_alloc_op: which function */
	bool freed;
};

/* raw_event.kind of an ALLOC (raw_stream_want_allocs): no frame opens or
 * closes; depth and fid are the innermost open frame's (0 if none), tsc
 * the event's before it. */
#define RAW_EV_ALLOC 4

/* A counter sample (ADA_CTL_SAMPLE, ADA_COUNTERS): the thread's totals
 * since it started when its timer interrupted it, and where. */
struct raw_sample {
	uint32_t ip_fid;   /* the interrupted address, through FUNCS; 0 unknown */
	uint64_t cpu_ns;   /* CLOCK_THREAD_CPUTIME_ID */
	uint64_t minflt, majflt;
	uint32_t nvcsw, nivcsw; /* voluntary, involuntary context switches */
};

/* raw_event.kind of a SAMPLE (raw_stream_want_samples): as an ALLOC, inside
 * the open frames; tsc is the sample's own. */
#define RAW_EV_SAMPLE 5

/* A wait or a release (ADA_CTL_BLOCK, ADA_BLOCKING): which function, its
 * object, and for a wait the tick before the call (raw_event.tsc is the
 * tick after it; of a release, before it: start_tsc too). */
struct raw_block {
	uint64_t obj;
	uint64_t start_tsc;
	uint8_t op;        /* enum ada_block_op */
};

/* raw_event.kind of a BLOCK (raw_stream_want_blocks): as a SAMPLE. */
#define RAW_EV_BLOCK 6

struct raw_event {
	uint64_t tsc;
	uint32_t fid;      /* CALL: the function; RETURN/EXCEPTION: the frame closed */
	uint8_t kind;      /* ADA_RAW_CALL, ADA_RAW_RETURN, ADA_RAW_EXCEPTION, RAW_EV_ALLOC */
	uint32_t depth;    /* 1-based depth of the frame opened or closed */
	union {
		struct raw_alloc alloc;   /* RAW_EV_ALLOC */
		struct raw_sample sample; /* RAW_EV_SAMPLE */
		struct raw_block block;   /* RAW_EV_BLOCK */
	};
	/* The event's DETAIL record (fentry/mcount modes), NULL if it has none:
	 * registers, lr, fp, sp, and detail->stack_size bytes of stack at
	 * `stack`. Both stay valid until the next raw_stream_next call. */
	const struct ada_raw_detail *detail;
	const uint8_t *stack;
	/* Its FREGS words (version 4: 8 u64, ADA_CTL_FREGS), NULL if it has
	 * none (no DETAIL, or a trace from before them); valid as long. */
	const uint64_t *fregs;
};

struct raw_stream;

/* Opens <raw_dir>/thread_<N>.lz4, written in raw format `version` (the
 * meta file's: 3 checks every frame's POS). NULL (message printed) on
 * failure. */
struct raw_stream *raw_stream_open(const char *raw_dir, uint32_t ordinal, size_t nfids,
				   uint32_t version);
/* Next event: 1, 0 at the end of the stream, negative on an error that ends
 * it early (the message, naming the file, was printed; events so far stand).
 * A file cut short inside a frame is not an error: raw_stream_truncated()
 * tells, and the stream ends at the last whole frame. */
int raw_stream_next(struct raw_stream *s, struct raw_event *ev);
/* The same for up to max events at once, at most RAW_READ_MAX (one call
 * an event costs as much as decoding it): the number read, 0 at the end,
 * negative errno on an error (after the events before it). The events'
 * records and stack bytes stay valid until the next call. Not to be mixed
 * with raw_stream_next on one stream. */
#define RAW_READ_MAX 64
int raw_stream_read(struct raw_stream *s, struct raw_event *ev, size_t max);
/* Once the stream has ended (raw_stream_next returned 0): what the file
 * held against what process.meta says the writer wrote for thread t. A file
 * cut inside a frame is an error when the process exited cleanly (not by an
 * exec) or the thread's end is recorded; THREAD_END's event count must equal the events
 * (and SKIP positions) read, and no LOST note may exceed its drop totals;
 * each window (raw_stream_expect_windows) lies within the positions read
 * and holds as many DETAIL records as it says it kept.
 * 0, or -EINVAL after one line naming the file and both numbers. */
int raw_stream_verify(const struct raw_stream *s, const struct raw_process *p,
		      const struct raw_thread *t);
/* Counts the DETAIL records read inside each of thread `ordinal`'s windows
 * (p's WINDOW records; p must outlive the stream), for raw_stream_verify.
 * 0 or -ENOMEM. */
int raw_stream_expect_windows(struct raw_stream *s, const struct raw_process *p, uint32_t ordinal);
/* Once the stream has ended: the events at the edges of the windows
 * raw_stream_expect_windows gave it, into edges[i] for p->windows[i]
 * (others untouched). */
void raw_stream_window_edges(const struct raw_stream *s, const struct raw_process *p,
			     struct raw_window_edges *edges);
/* Frames still open at the end (0 when balanced). */
uint32_t raw_stream_open_frames(const struct raw_stream *s);
/* The innermost open frame's fid (for closing it), 0 if none. Pops it. */
uint32_t raw_stream_pop(struct raw_stream *s);
/* The open frames' fids, outermost first (raw_stream_open_frames of them). */
const uint32_t *raw_stream_open_fids(const struct raw_stream *s);
/* Version 3: the ring position after the last whole frame read (its POS +
 * its events), once the stream has ended; false before any POS was read. */
bool raw_stream_position(const struct raw_stream *s, uint64_t *pos);
/* The frame recovery appended after positions it could not recover starts
 * `lost` positions after the file's last (RECOVERED's lost): that one jump
 * is not a missing frame. */
void raw_stream_allow_gap(struct raw_stream *s, uint64_t lost);
/* Bytes of the file up to the end of the last whole frame read. */
uint64_t raw_stream_whole_end(const struct raw_stream *s);
bool raw_stream_truncated(const struct raw_stream *s);
uint64_t raw_stream_last_tsc(const struct raw_stream *s);
/* LOST notes seen in the stream, per reason. */
const uint64_t *raw_stream_lost(const struct raw_stream *s);
/* Leaves lz4's checksum of each frame's content (xxHash of every byte)
 * unchecked: the views do, for speed (a quarter of their time); the
 * conversion and --check keep it. The structure is still checked. */
void raw_stream_skip_checksums(struct raw_stream *s);
/* ALLOC records (version 5, ADA_ALLOC) are returned as RAW_EV_ALLOC events;
 * without this they are passed over (their positions counted). */
void raw_stream_want_allocs(struct raw_stream *s);
/* SAMPLE records (version 6, ADA_COUNTERS) are returned as RAW_EV_SAMPLE
 * events; without this they are passed over (their positions counted). */
void raw_stream_want_samples(struct raw_stream *s);
/* BLOCK records (version 7, ADA_BLOCKING) likewise, as RAW_EV_BLOCK. */
void raw_stream_want_blocks(struct raw_stream *s);
void raw_stream_close(struct raw_stream *s);

/* ---- ticks → CLOCK_BOOTTIME ns --------------------------------------------- */
struct clock_map {
	const struct ada_meta_clock *pts; /* sorted by tsc */
	size_t n;
	double fallback_ns_per_tick;
};
void clock_map_init(struct clock_map *c, struct raw_process *p);
/* Nanoseconds per tick over the whole recording (for durations). */
double clock_map_ns_per_tick(const struct clock_map *c);
/* A duration of `ticks` in nanoseconds at that rate, within a u64. */
uint64_t clock_map_duration_ns(const struct clock_map *c, uint64_t ticks);
/* *seg: the caller's cursor, 0 to start; ticks of one stream never decrease. */
uint64_t clock_map_ns(const struct clock_map *c, uint64_t tsc, size_t *seg);
/* The same, for a stream's every event: zero-initialise the cursor. It
 * keeps the segment's rate as a 32.32 fixed-point multiplier, so the next
 * event of the segment costs a multiply and a shift, inline (the kernel's
 * clocksource arithmetic). It may differ from clock_map_ns by a nanosecond
 * (the rate's rounding: under 0.4 ns a second of ticks); the conversion and
 * the views both use it, so they agree with each other to the ns. */
struct clock_cursor {
	size_t seg;
	bool valid;
	uint64_t base_tsc;     /* the segment's first pair: ticks from here */
	uint64_t span;         /* to base_tsc + span (the next pair, or forever) */
	uint64_t base_ns;      /* its time, */
	uint64_t mult;         /* and ns per tick << 32 */
};
uint64_t clock_map_ns_cursor(const struct clock_map *c, uint64_t tsc, struct clock_cursor *k);

static inline uint64_t clock_map_ns_fast(const struct clock_map *c, uint64_t tsc,
					 struct clock_cursor *k)
{
	if (__builtin_expect(k->valid && tsc - k->base_tsc < k->span, 1))
		return k->base_ns +
		       (uint64_t)(((unsigned __int128)(tsc - k->base_tsc) * k->mult) >> 32);
	return clock_map_ns_cursor(c, tsc, k);
}

#endif
