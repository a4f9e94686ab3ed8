/* thread.h - per-thread state and the recording fast path.
 *
 * Each traced thread owns one struct ada_thread: a single-producer ring of
 * 16-byte slots that the recorder drains, and a shadow stack of the frames
 * the thread is in. The state is allocated (not TLS) because the recorder
 * keeps reading it after the thread has exited; TLS holds a pointer. The
 * ring and its positions (head, tail) and drop counts are in memory the
 * recorder shares (pool.c), so that they outlive the process.
 *
 * Balance by construction: a CALL is written only when the ring has room for
 * it *and* for the RETURN of every frame still open, so a RETURN always finds
 * a slot. A CALL that cannot be written skips its whole subtree (counted), so
 * the recorded frames are always a prefix of the real stack: a frame is
 * recorded exactly when its depth is at most record_limit.
 */
#ifndef ADA_THREAD_H
#define ADA_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "raw_format.h"
#include "thread_layout.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define ADA_HIDDEN __attribute__((visibility("hidden")))
/* A hook's C entry, called from its assembly (mcount/<arch>/): in the
 * hooks' section, ada_hooks, with the assembly (asm.h's HOOKS_TEXT), so
 * that a counter sample that interrupts its prologue or epilogue, outside
 * the guard, is known for ada's own work in any build (own_code.c). */
#define ADA_HOOK_TEXT __attribute__((section("ada_hooks")))
#include "shared.h"

/* One ring slot as the hook writes it. The kind rides in the top two bits of
 * the address word, and bit 61 says a detail record goes with it: user-space
 * addresses on x86_64 and arm64 stay below 2^56. */
struct ada_slot {
	uint64_t tsc;
	uint64_t word; /* addr | detail << 61 | kind << 62 */
};
#define ADA_SLOT_DETAIL (1ull << 61)
#define ADA_SLOT_ADDR(w) ((w) & (ADA_SLOT_DETAIL - 1))
#define ADA_SLOT_KIND(w) ((unsigned)((w) >> 62))

/* A thread's detail ring (fentry/mcount modes) holds one record for each of
 * the last `records` index positions: position p's registers and stack
 * window are at record p & (records - 1), in 8-byte words (the writer may
 * read a record while the thread overwrites it, and checks afterwards: see
 * encode.c and hijack.c's put_words). The record's words: */
enum {
	ADA_DREC_REGS = 0,   /* 8 words: argument or return registers */
	ADA_DREC_LR = 8,     /* the real return address */
	ADA_DREC_FP = 9,
	ADA_DREC_SP = 10,    /* the address of the return-address slot */
	ADA_DREC_STACK_SIZE = 11, /* bytes of stack that follow, a multiple of 8 */
	/* 8 words: the FP argument registers at a CALL (x86_64: xmm0..xmm7,
	 * their low 64 bits), the FP return registers at a RETURN (xmm0,
	 * xmm1, then zeros). After the words the encoder copies into DETAIL
	 * as they are, so that one loop still copies those. */
	ADA_DREC_FREGS = 12,
	ADA_DREC_STACK = 20, /* then the stack window, from sp up */
};

/* A frame the thread is in, recorded or not: what its exit must match. */
struct ada_frame {
	uintptr_t fn;
	uintptr_t site; /* the function's return address (fentry: the real one) */
	uintptr_t sp;   /* cyg: the function's stack pointer at the enter hook;
			 * fentry/mcount: the address of its return-address slot
			 * (aarch64 mcount: its caller's frame pointer, arch.h) */
	uintptr_t slot; /* aarch64 mcount: the address of its return-address
			 * slot; else unused (32 bytes a frame: the fast paths
			 * find one with a shift) */
};

/* ada_self.busy: a hook that fires inside a hook lost its event (a signal handler
 * ran there: counted); inside the runtime's own calls into libraries (through
 * hooked PLT slots) there was no event of the program's to lose. A hook's
 * guard is its frame position itself (ADA_BUSY_HOOK is 0: positions are
 * 8-byte aligned, and the runtime's guard has ADA_BUSY_RUNTIME in the low
 * bits), taken and dropped with one store: a signal between two stores
 * (kind, then position) once saw the kind with the previous hook's
 * position, judged the guard left behind by a longjmp, took it and dropped
 * it on return, and the interrupted hook went on unguarded. */
enum { ADA_BUSY_HOOK = 0, ADA_BUSY_RUNTIME = 2, ADA_BUSY_KIND = 7 };

/* ADA_TS_VFORK: a vfork child runs on this thread's memory (thread.c's
 * ada_vfork_enter): nothing is recorded, nothing set up. */
enum ada_thread_state { ADA_TS_NONE = 0, ADA_TS_INIT, ADA_TS_LIVE, ADA_TS_DEAD, ADA_TS_OFF,
			ADA_TS_VFORK };

struct ada_writer_stream; /* the writer's private encoding state (writer.c) */
struct ada_orphan;        /* mcount/hijack.c */
struct ada_windows;       /* recorder/window.h */

struct ada_thread {
	/* --- producer: written only by the traced thread ------------------------ */
	struct ada_slot *ring;
	/* The ring file's header: rh->head is the next slot to write, release-
	 * stored after each slot, so the writer's acquire load of it sees the
	 * slot's contents (the writer reads it once per pass: one miss per pass,
	 * not per event); rh->tail is the writer's; rh->dropped counts by reason. */
	struct ada_ring_header *rh;
	uint64_t mask;          /* slots - 1 */
	uint64_t limit;         /* the producer looks at rh->tail again at this head
				 * (ring mode: UINT64_MAX, or where a snapshot holds
				 * it, set by the writer: atomic) */
	uint32_t depth;         /* frames entered, recorded or not */
	uint32_t record_limit;  /* frames deeper than this are not recorded */
	/* The fast paths' one depth check: the lesser of record_limit and
	 * shadow_cap (ada_set_record_limit keeps it so). Deeper frames, and a
	 * shadow stack read past its end, are the C paths' to handle. */
	uint32_t fast_cap;
	uint32_t skip_from;     /* depth whose CALL found the ring full, or 0 */
	bool skip_by_request;   /* that skip is ada_disable's or ada_thread_ignore's:
				 * not a loss, not counted */
	bool ignored;           /* ada_thread_ignore(): nothing more from this thread */
	/* ADA_GRAPH (patchable mode): outside every graph function's call, the
	 * hooks return at once (no frame kept, no return hijacked); inside, from
	 * the graph function's frame at graph_depth down, they record. */
	bool graph_gate;
	uint32_t graph_depth;   /* the graph function's frame, or 0 outside */
	/* The stack this state records (runtime/stacks.c): a thread's own
	 * stack, or a coroutine stack that threads switch to. A hook whose
	 * frame position is outside it has run on another stack. */
	uintptr_t stack_lo, stack_span;
	uint32_t shadow_cap;
	uint32_t resyncs;       /* frames closed because their exit was skipped */
	struct ada_frame *shadow;
	struct ada_orphan *orphans; /* hijack.c: return addresses of frames closed as
				     * abandoned, by slot; NULL until the first */
	uint64_t orphans_bytes;
	uint64_t wait_progress; /* the writer's progress count when a wait gave up,
				 * UINT64_MAX if none did */
	/* The detail ring (fentry/mcount modes; NULL when ADA_DETAIL=off). */
	uint8_t *dring;
	uint64_t dmask;         /* records - 1 */
	uint64_t drec_bytes;    /* bytes a record: header words and the stack window (64-bit:
				 * the fast paths multiply by it in memory) */
	uint32_t stack_bytes;   /* the window copied with each record */
	/* The producer looks at the writer again at this position
	 * (ada_detail_room_slow): with ADA_DETAIL=all, positions below it have
	 * had their records consumed; in window mode the ring rolls over, and
	 * this only bounds how far it may run ahead of a window's writing. */
	uint64_t dlimit;
	/* The highest frame position whose stack window lies in the state's
	 * stack, for the fast paths' one check before they copy it (set by
	 * ada_window_bound): 0 when the window is not the default size (C
	 * copies it), every position when there is none. */
	uintptr_t dwin_top;
	uint32_t max_limit;     /* record_limit when nothing is being skipped */

	/* --- shared with the writer --------------------------------------------- */
	_Alignas(64) uint32_t exited;        /* set (release) by the thread's key destructor */
	uint32_t dwindow;       /* not 0: the writer has a window of this thread to
				 * write (a count of the triggers posted: marks.c) */

	/* --- registry and writer side ------------------------------------------- */
	_Alignas(64) uint32_t ordinal;
	uint32_t os_tid;
	uint64_t start_tsc, end_tsc;
	uint64_t ring_bytes, shadow_bytes, dring_bytes; /* ring_bytes: the mapping, header too */
	struct ada_thread *next; /* registry list, newest first */
	struct ada_writer_stream *ws;
	struct ada_windows *windows; /* the writer's detail windows (window.c), or NULL */
	uint64_t cut;           /* with cutting: a flush drains up to this position */
	bool cutting;
	/* The image's end asked for (exit, _exit): the ring's head then. A
	 * recorder's final flush, which may come after the program is gone,
	 * drains no further: the trace ends where it was asked to, as when
	 * the program waited for the flush (flush.c). */
	bool end_set;
	uint64_t end_at;
	bool is_stack;          /* records a coroutine stack, not a thread's own */
	bool tsc_off;           /* its rdtsc faults (crash.c emulates it): it may be in
				 * seccomp's strict mode, so it makes no system call */
	uint32_t host_ordinal;  /* is_stack: the thread that first ran on it */
};

/* What a thread's hooks start from, in one TLS block (one address to find).
 * The reentrancy guard is the thread's, not its state's: a state moves to
 * whichever thread runs on its stack. */
struct ada_self {
	struct ada_thread *td; /* the state of the stack the thread runs on */
	uintptr_t busy;        /* 0; or inside a hook, its frame position |
				* ADA_BUSY_HOOK; or ADA_BUSY_RUNTIME while the
				* runtime calls out */
};

ADA_HIDDEN extern __thread struct ada_self ada_self __attribute__((tls_model("initial-exec")));

/* Takes or restores the guard: one store a signal handler sees whole. */
static inline __attribute__((always_inline)) void ada_busy_set(uintptr_t busy)
{
	__asm__ volatile("" ::: "memory");
	__atomic_store_n(&ada_self.busy, busy, __ATOMIC_RELAXED);
	__asm__ volatile("" ::: "memory");
}

ADA_HIDDEN struct ada_thread *ada_thread_init_slow(void);
ADA_HIDDEN int ada_ring_refresh_slow(struct ada_thread *td, uint32_t depth);
/* Whether n slots more fit the ring with the RETURNs of the depth frames
 * open, waiting for the writer as a CALL does; skips and counts nothing
 * (mcount/alloc.c's ALLOC slots, written inside an open frame). */
ADA_HIDDEN int ada_ring_fit_slow(struct ada_thread *td, uint32_t n, uint32_t depth);
ADA_HIDDEN void ada_enter_skipped_slow(struct ada_thread *td, uint32_t depth);
ADA_HIDDEN void ada_exit_skipped_slow(struct ada_thread *td, uint32_t depth);
ADA_HIDDEN int ada_enter_resync_slow(struct ada_thread *td, uintptr_t sp, uintptr_t site,
				      uintptr_t fn);
ADA_HIDDEN void ada_close_abandoned(struct ada_thread *td);
/* Whether sp lies in the thread's own stack mapping. No system call after
 * the thread's first use (which asks pthread_getattr_np). */
ADA_HIDDEN int ada_in_thread_stack(struct ada_thread *td, uintptr_t sp);
/* Whether the thread runs on its own stack at sp: in it, and not on an
 * alternate signal stack the program placed inside it. Asks sigaltstack():
 * for slow paths only. */
ADA_HIDDEN int ada_on_thread_stack(struct ada_thread *td, uintptr_t sp);
/* Whether sp is on the alternate signal stack a handler is running on now;
 * if so and range is not NULL, that stack's [lo, hi) in it. */
ADA_HIDDEN int ada_on_signal_stack(uintptr_t sp, uintptr_t range[2]);
ADA_HIDDEN uint32_t ada_exit_resync_slow(struct ada_thread *td, uintptr_t fn, uintptr_t site);
/* The guard is held by a hook: whether that hook was left without
 * releasing it (a siglongjmp out of a signal handler that interrupted it),
 * seen from a hook at frame position pos. */
ADA_HIDDEN int ada_guard_left_slow(struct ada_thread *td, uintptr_t pos, uintptr_t busy);
/* A hook at frame position pos, outside td's stack: the thread runs on
 * another stack (a coroutine switch, a signal stack). Returns the state to
 * record into, made current; td itself when pos is to nest in it. */
ADA_HIDDEN struct ada_thread *ada_stack_switch_slow(struct ada_thread *td, uintptr_t pos);

/* The state of the stack that frame position pos is on. */
static inline __attribute__((always_inline)) struct ada_thread *
ada_stack_state(struct ada_thread *td, uintptr_t pos)
{
	if (unlikely(pos - td->stack_lo >= td->stack_span))
		td = ada_stack_switch_slow(td, pos);
	return td;
}

/* Adds n to one of the thread's counters in its ring header (drops by
 * reason, waits), which the writer reads while the thread runs: each
 * drain's LOST notes, the final flush's THREAD_END. The thread is their
 * only writer, so a relaxed load and store do (no locked add); atomic, so
 * that the writer's reads are not a data race (a compiler may tear, cache
 * or merge a plain counter: ThreadSanitizer reported these). */
static inline __attribute__((always_inline)) void ada_count(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* Sets how deep frames are recorded, and the fast paths' bound with it. */
static inline __attribute__((always_inline)) void ada_set_record_limit(struct ada_thread *td,
									uint32_t limit)
{
	td->record_limit = limit;
	td->fast_cap = limit < td->shadow_cap ? limit : td->shadow_cap;
}

/* dwin_top for the state's stack and window size (thread_layout.h's
 * ADA_STACK_DEFAULT is the size the fast paths copy). */
static inline void ada_window_bound(struct ada_thread *td)
{
	uintptr_t hi = td->stack_lo + td->stack_span;

	if (hi < td->stack_lo) /* an unknown stack: all of memory */
		hi = UINTPTR_MAX;
	if (td->stack_bytes == 0)
		td->dwin_top = UINTPTR_MAX;
	else if (td->stack_bytes == ADA_STACK_DEFAULT && hi >= ADA_STACK_DEFAULT)
		td->dwin_top = hi - ADA_STACK_DEFAULT;
	else
		td->dwin_top = 0;
}

/* Returns the thread's state with the guard taken, or NULL if this event is
 * not to be recorded (tracing off, thread not set up, or a hook that fired
 * while the thread was already inside the runtime — a signal handler). pos
 * is the position of the frame the hook is about: the traced function's
 * return-address slot (fentry, mcount, PLT hooks) or its stack pointer at
 * the hook (cyg). A reentrant hook counts `events` dropped: 1 for each of
 * cyg's two hooks, 2 for an entry hook whose return is then not hijacked
 * (its RETURN is lost with its CALL). */
static inline __attribute__((always_inline)) struct ada_thread *ada_hook_begin(uintptr_t pos,
									      unsigned events)
{
	struct ada_thread *td = ada_self.td;
	uintptr_t busy;

	if (unlikely(!td)) {
		td = ada_thread_init_slow();
		if (!td)
			return NULL;
	}
	busy = __atomic_load_n(&ada_self.busy, __ATOMIC_RELAXED);
	if (unlikely(busy)) {
		if (busy & ADA_BUSY_RUNTIME)
			return NULL;
		if (!ada_guard_left_slow(td, pos, busy)) {
			ada_count(&td->rh->dropped[ADA_DROP_REENTRANT], events);
			return NULL;
		}
	}
	/* The guard must be set before the state it protects is touched, and a
	 * signal handler runs on this CPU: a compiler barrier is enough. */
	ada_busy_set(pos | ADA_BUSY_HOOK);
	return ada_stack_state(td, pos);
}

static inline __attribute__((always_inline)) void ada_hook_end(struct ada_thread *td)
{
	(void)td;
	ada_busy_set(0);
}

/* Called where frames close (returns, abandoned frames): once the graph
 * function's frame is gone the thread is outside its call again. */
static inline __attribute__((always_inline)) void ada_graph_left(struct ada_thread *td)
{
	if (unlikely(td->depth < td->graph_depth)) {
		td->graph_depth = 0;
		td->graph_gate = true;
	}
}

/* Appends a slot. The caller has made sure there is room. */
static inline __attribute__((always_inline)) void
ada_ring_put(struct ada_thread *td, uint64_t tsc, uint64_t word)
{
	uint64_t head = td->rh->head;
	struct ada_slot *slot = &td->ring[head & td->mask];

	/* Relaxed atomic stores (plain moves): in ring mode the writer copies
	 * slots the thread may be writing over, and finds out afterwards. */
	__atomic_store_n(&slot->tsc, tsc, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->word, word, __ATOMIC_RELAXED);
	/* Orders the slot stores before the new head: the writer (and a
	 * recovery after the process died) reads the slot only after its
	 * acquire load of head covers it. */
	__atomic_store_n(&td->rh->head, head + 1, __ATOMIC_RELEASE);
}

/* ada_disable() (runtime/marks.c): calls are not recorded while it is set.
 * In the shared section (shared.h): the recorder applies ada-ctl's enable
 * and disable. The hooks' assembly reads it as ada_recording_off_area. */
ADA_SHARED_TYPE(ada_off_area, uint32_t);
ADA_HIDDEN extern union ada_off_area ada_recording_off_area;
#define ada_recording_off (ada_recording_off_area.v)
/* func:GLOB:trace_on / trace_off (patch.c's entries): recording off or on,
 * as ada_disable/ada_enable, when it is not so already (runtime/marks.c). */
ADA_HIDDEN void ada_trace_switch(bool off);

/* Whether recording is off for this thread: for the process (ada_disable)
 * or the thread (ada_thread_ignore). */
static inline __attribute__((always_inline)) bool ada_recording_is_off(const struct ada_thread *td)
{
	return __atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED) | td->ignored;
}

/* Whether the CALL of the frame at `depth` is to be written, recording
 * being on: not deeper than recorded, and room for it and the RETURN of
 * every open frame, this one included (depth counts unrecorded frames too:
 * a safe overestimate). The fentry path checks recording first, at entry
 * (mcount/hijack.c); cyg's through ada_call_admitted. */
static inline __attribute__((always_inline)) int
ada_call_room(struct ada_thread *td, uint32_t depth)
{
	if (unlikely(depth > td->record_limit)) {
		ada_enter_skipped_slow(td, depth);
		return 0;
	}
	if (unlikely(td->rh->head + depth + 1 > __atomic_load_n(&td->limit, __ATOMIC_RELAXED)) &&
	    !ada_ring_refresh_slow(td, depth))
		return 0;
	return 1;
}

/* ada_call_room, and recording on: when it is off, the frame and what it
 * calls are skipped, not counted. */
static inline __attribute__((always_inline)) int
ada_call_admitted(struct ada_thread *td, uint32_t depth)
{
	if (unlikely(ada_recording_is_off(td))) {
		ada_enter_skipped_slow(td, depth);
		return 0;
	}
	return ada_call_room(td, depth);
}

/* The CALL of the frame at `depth`, unless it is deeper than recorded. */
static inline __attribute__((always_inline)) void
ada_record_call(struct ada_thread *td, uint32_t depth, uintptr_t fn)
{
	if (ada_call_admitted(td, depth))
		ada_ring_put(td, ada_arch_ticks(), fn | (uint64_t)ADA_RAW_CALL << 62);
}

/* The RETURN of the frame at `depth`; its slot was reserved by its CALL. */
static inline __attribute__((always_inline)) void
ada_record_return(struct ada_thread *td, uint32_t depth, uintptr_t fn)
{
	if (unlikely(depth > td->record_limit)) {
		ada_exit_skipped_slow(td, depth);
		return;
	}
	ada_ring_put(td, ada_arch_ticks(), fn | (uint64_t)ADA_RAW_RETURN << 62);
}

/* A function was entered: fn is its address, site its return address. */
static inline __attribute__((always_inline)) void
ada_record_enter(struct ada_thread *td, uintptr_t fn, uintptr_t site, uintptr_t sp)
{
	uint32_t depth = td->depth + 1;

	/* A frame entered above the stack position of the frame we think is
	 * innermost means that frame was left without its exit hook (longjmp, or an
	 * exception with a compiler that skips exit hooks): close it first. At the
	 * same position it is either that, or a function inlined into the innermost
	 * one, whose hooks run in its frame and pass its return address as site
	 * (a recursive function inlined into itself too: the same function). */
	if (unlikely(depth > 1 && depth - 1 <= td->shadow_cap && sp >= td->shadow[depth - 2].sp) &&
	    (sp > td->shadow[depth - 2].sp || site != td->shadow[depth - 2].site))
		depth = ada_enter_resync_slow(td, sp, site, fn) + 1;

	td->depth = depth;
	if (likely(depth <= td->shadow_cap))
		td->shadow[depth - 1] = (struct ada_frame){ .fn = fn, .site = site, .sp = sp };
	ada_record_call(td, depth, fn);
}

/* A function is about to return. */
static inline __attribute__((always_inline)) void
ada_record_exit(struct ada_thread *td, uintptr_t fn, uintptr_t site)
{
	uint32_t depth = td->depth;

	if (likely(depth - 1 < td->shadow_cap)) {
		const struct ada_frame *f = &td->shadow[depth - 1];

		/* Not the innermost frame's function: frames above it were
		 * abandoned (its site need not match: see the slow path). */
		if (unlikely(f->fn != fn)) {
			depth = ada_exit_resync_slow(td, fn, site);
			if (!depth)
				return;
		}
	} else if (unlikely(depth == 0)) {
		ada_count(&td->rh->dropped[ADA_DROP_UNMATCHED], 1);
		return;
	}
	td->depth = depth - 1;
	ada_record_return(td, depth, fn);
}

#endif
