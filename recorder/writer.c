/* writer.c - the recorder's loop: drains every thread's ring to
 * raw/thread_<N>.lz4.
 *
 * It runs in the recorder process (recorder.c), which the program forked
 * at start-up. Each drain of a ring becomes one complete LZ4 frame appended to the
 * thread's file, so a crash or SIGKILL leaves a file that decodes up to its
 * last whole frame, and an event reaches the disk within one writer interval
 * (ADA_FLUSH_MS, 10 ms by default) of being recorded. Encoding and
 * compression happen here, never in the traced threads.
 *
 * Flushes the program asks for and the end of the trace are in final.c;
 * the thread files themselves (opening, frames, the THREAD records) in
 * writer_files.c; the process around the loop in process.c.
 *
 * Its lock serialises its loop with the recorder's watchdog. The traced
 * threads never take it: they only publish their ring head and read back
 * the tail.
 */
#include <lz4frame.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "window.h"
#include "writer.h"

/* Slots per frame: bounds the encode buffer and keeps one drain short enough
 * that a flushing caller does not wait long. A thread with a detail ring
 * drains fewer per frame: each slot may carry up to ADA_ENC_DETAIL_MAX bytes. */
#define DRAIN_MAX 65536
#define DETAIL_DRAIN_MAX 4096
#define CLOCK_EVERY_NS 1000000000ull

struct ada_writer ada_w = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int buffers_init(void);

/* Encodes slots [tail, tail+n) of td's ring, plus LOST notes for drops the
 * thread counted since the last frame, into ada_w.enc_buf. behind: the index
 * ring is filling faster than the writer empties it, so the slots' detail
 * records are consumed without being written (counted as detail_full):
 * every event is kept, the registers of some are not. */
static size_t encode_batch(struct ada_thread *td, struct ada_writer_stream *ws,
			   const struct ada_slot *ring, uint64_t tail, size_t n, bool behind,
			   const struct ada_writer_cut *cut)
{
	uint64_t from = cut ? cut->lo : tail; /* the first slot's position */
	uint64_t slots = td->mask + 1, first = from & td->mask;
	size_t part;
	/* Acquire: the thread sets its detail ring up at its first record,
	 * while we may be draining; its mask was stored before it. */
	uint8_t *dring = __atomic_load_n(&td->dring, __ATOMIC_ACQUIRE);
	/* The records of the slots we drain were published before them (the
	 * acquire of head in drain_thread covers them). In window mode only
	 * the windows' records are written, and checked against the thread
	 * writing over them. */
	if (cut) /* ring mode: the records as copied with the slots */
		dring = (uint8_t *)cut->dring;
	struct ada_enc_detail dl = { .ring = dring, .mask = dring ? td->dmask : 0,
				     .rec_bytes = dring ? (uint32_t)td->drec_bytes : 0, .pos = from,
				     .skip = behind };
	uint8_t *p = ada_w.enc_buf;
	uint64_t dropped = ws->enc.dropped;

	if (dring && (ada_window_mode(td) || ada_rt.cfg.ring_mode)) {
		dl.head = cut ? cut->dhead : &td->rh->head;
		dl.win = td->windows ? td->windows->win : NULL;
		dl.nwin = td->windows ? td->windows->n : 0;
		/* Ring mode: the detail ring holds the newest records only. */
		dl.from = cut ? cut->detail_from : 0;
	}
	size_t len;
	unsigned r;

	if (cut)
		n -= (size_t)(cut->lo - tail); /* the slots after the cut */
	part = n < slots - first ? n : (size_t)(slots - first);
	p += ada_encode_sync(&ws->enc, cut ? ws->enc.last_tsc : n ? ring[first].tsc : ws->enc.last_tsc,
			     tail, p);
	for (r = 0; r < ADA_DROP_NREASONS; r++) {
		uint64_t seen = __atomic_load_n(&td->rh->dropped[r], __ATOMIC_RELAXED);

		if (seen > ws->lost_seen[r])
			p += ada_encode_lost(r, seen - ws->lost_seen[r], p);
		ws->lost_seen[r] = seen;
	}
	if (cut && cut->lo > tail) {
		len = ada_encode_cut(&ws->enc, &ada_w.dict, cut->skip, cut->calls, cut->k, cut->tsc, p);
		if (len == (size_t)-1)
			return 0;
		p += len;
	}
	len = ada_encode_slots(&ws->enc, &ada_w.dict, ring + first, part, p, &dl);
	if (len == (size_t)-1)
		return 0;
	p += len;
	if (part < n) {
		dl.pos = from + part;
		len = ada_encode_slots(&ws->enc, &ada_w.dict, ring, n - part, p, &dl);
		if (len == (size_t)-1)
			return 0;
		p += len;
	}
	if (ws->enc.dropped != dropped) /* positions the frame holds no event for */
		p += ada_encode_skip(ws->enc.dropped - dropped, p);
	/* Records not written: left out while behind, or (window mode) gone
	 * from the ring before the writer came to them. */
	if (dl.skipped + dl.lost) {
		p += ada_encode_lost(ADA_DROP_DETAIL_FULL, dl.skipped + dl.lost, p);
		ws->details_skipped += dl.skipped + dl.lost;
		__atomic_store_n(&ada_rt.say_at_end, true, __ATOMIC_RELEASE);
	}
	return (size_t)(p - ada_w.enc_buf);
}

void ada_writer_keep_symbols(bool even_unrecorded)
{
	uint32_t late = __atomic_load_n(&ada_rt.modules_late, __ATOMIC_ACQUIRE);

	ada_meta_queue_flush(); /* the MODULE records counted: noted */
	if (ada_w.streams || even_unrecorded) /* one that records nothing leaves nothing */
		ada_symbols_keep();
	__atomic_store_n(&ada_rt.modules_kept, late, __ATOMIC_RELEASE);
}

static bool has_new_drops(const struct ada_thread *td, const struct ada_writer_stream *ws)
{
	unsigned r;

	for (r = 0; r < ADA_DROP_NREASONS; r++)
		if (__atomic_load_n(&td->rh->dropped[r], __ATOMIC_RELAXED) != ws->lost_seen[r])
			return true;
	return false;
}

/* The slots are still ours (tail not yet released): time them against now. */
static void sample_latency(const struct ada_thread *td, uint64_t tail, size_t n)
{
	uint64_t now = ada_arch_ticks();
	size_t i;

	for (i = 0; i < n; i += ADA_LATENCY_EVERY) {
		uint64_t tsc = td->ring[(tail + i) & td->mask].tsc;

		ada_latency_add(now > tsc ? now - tsc : 0);
	}
}

/* One frame of td's positions [tail, tail + n) from ring (td->ring, or a
 * copy indexed alike), after a ring-mode cut if any. */
static void write_positions(struct ada_thread *td, const struct ada_slot *ring, uint64_t tail,
			    size_t n, bool behind, const struct ada_writer_cut *cut)
{
	/* What program threads recorded before these events (a module a dlopen
	 * brought, a hooked function's name) goes first. */
	ada_meta_queue_flush();
	struct ada_writer_stream *ws = td->ws;
	size_t len = encode_batch(td, ws, ring, tail, n, behind, cut);

	ada_writer_flush_fids();
	if (!len || ws->failed || ada_writer_write_frame(td, len) < 0) {
		ws->write_lost += n; /* told in the thread's end record */
		__atomic_store_n(&ada_rt.say_at_end, true, __ATOMIC_RELEASE);
	} else {
		ws->events += n;
		if (!cut)
			sample_latency(td, tail, n);
	}
}

struct ada_writer_stream *ada_writer_stream_of(struct ada_thread *td)
{
	return td->ws ? td->ws : ada_writer_stream_open(td);
}

void ada_writer_frame(struct ada_thread *td, const struct ada_slot *ring, uint64_t tail,
		      size_t n, const struct ada_writer_cut *cut)
{
	write_positions(td, ring, tail, n, false, cut);
}

/* One frame from td's ring, up to its head or its cut (a final or crash
 * flush drains to where the rings were when it began, not after threads
 * that keep calling). Returns the number of slots consumed; *cut says
 * whether the frame's limit left slots behind. */
static size_t drain_thread(struct ada_thread *td, bool *cut)
{
	struct ada_writer_stream *ws = td->ws;
	/* Acquire: pairs with the producer's release of head; the slots below
	 * it are fully written. */
	uint64_t head = __atomic_load_n(&td->rh->head, __ATOMIC_ACQUIRE), tail = td->rh->tail;

	if (ada_rt.cfg.ring_mode) {
		/* Acquire: a snapshot posted before the thread ended is seen
		 * below, and taken before its end is written (the thread is
		 * retired after this drain, and a later pass would not find it:
		 * test_ring's snapshot once missed a thread that ended first). */
		bool exited = __atomic_load_n(&td->exited, __ATOMIC_ACQUIRE);

		*cut = false;
		if (exited)
			ada_marks_take();
		return ada_ring_drain(td, exited ? "thread exit" : td->cutting ? "process end" : NULL);
	}
	if (td->cutting && head > td->cut)
		head = td->cut;
	/* The image's end was asked for (runtime/flush.c): its trace ends there, in
	 * every pass from then on, not only the final flush's. */
	if (__atomic_load_n(&td->end_set, __ATOMIC_ACQUIRE) && head > td->end_at)
		head = td->end_at;
	bool details = __atomic_load_n(&td->dring, __ATOMIC_ACQUIRE) != NULL; /* see encode_batch */
	bool window = details && ada_window_mode(td) && ada_windows_of(td), behind = false;
	/* The triggers posted so far for this thread (a count, marks.c): one
	 * posted from here on is not cleared below. */
	uint32_t posted = __atomic_load_n(&td->dwindow, __ATOMIC_ACQUIRE);

	if (window) {
		/* Triggers first, then the newest pre-roll stays for them (all
		 * of it goes once the thread has ended, or at a cut). A mark
		 * posted before head was read is taken now: the thread's head
		 * stood still while it posted, so its pre-roll is unwritten. */
		ada_marks_take();
		ada_trigger_refresh();
		ada_window_scan(td, td->windows, head);
		ada_window_resolve(td, td->windows, tail, head);
		if (!td->cutting && !__atomic_load_n(&td->exited, __ATOMIC_ACQUIRE))
			head = ada_window_hold(td, td->windows, tail, head);
		details = ada_window_overlaps(td->windows, tail, tail + DRAIN_MAX);
	} else {
		/* The index lane comes first: with a quarter of the ring
		 * waiting, detail records (~15 times the bytes of their events)
		 * are left out until the writer has caught up. */
		behind = details && head - tail > (td->mask + 1) / 4;
	}
	size_t max = details && !behind ? DETAIL_DRAIN_MAX : DRAIN_MAX;
	size_t n = head - tail < max ? (size_t)(head - tail) : max;

	*cut = head - tail > max;
	if (!ws) {
		if (!n)
			return 0;
		ws = ada_writer_stream_open(td);
		if (!ws)
			goto consumed;
	}
	if (!n && !has_new_drops(td, ws))
		return 0;
	write_positions(td, td->ring, tail, n, behind, NULL);
consumed:
	if (window) {
		ada_window_close(td, td->windows, tail + n, false);
		/* Release: the thread, which may wait for us while it is set,
		 * sees the windows' state as of this drain. Cleared only if no
		 * trigger was posted meanwhile: a snapshot posted after the
		 * marks were taken above was once cleared here, and the thread,
		 * no longer holding back, overwrote its window's records before
		 * the next drain opened the window (test_windows lost all 21,
		 * one run in 40). */
		if (td->windows->n != 0)
			__atomic_store_n(&td->dwindow, posted ? posted : 1, __ATOMIC_RELEASE);
		else
			__atomic_compare_exchange_n(&td->dwindow, &posted, 0, false, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED);
	}
	/* Release: our reads of these slots are done before the producer may
	 * reuse them. */
	__atomic_store_n(&td->rh->tail, tail + n, __ATOMIC_RELEASE);
	if (n)
		ada_ring_wake(td);
	return n;
}

/* An exited thread whose ring is empty: write its end, free its state. The
 * writer is the only one that removes from the registry; producers only push
 * at the head, so an interior unlink needs no atomics, the head one a CAS. */
static void thread_retire(struct ada_thread *td, struct ada_thread *prev)
{
	struct ada_thread *expected = td;

	ada_writer_thread_end(td, ADA_TEND_EXITED);
	ada_writer_stream_close(td);
	if (prev)
		prev->next = td->next;
	else if (!__atomic_compare_exchange_n(&ada_rt.threads, &expected, td->next, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		for (prev = expected; prev->next != td; prev = prev->next)
			;
		prev->next = td->next;
	}
	ada_ring_unmap(td);
	ada_unmap(td->shadow ? td->shadow - 1 : NULL, td->shadow_bytes); /* and its shadow[-1] */
	ada_unmap(td->dring, td->dring_bytes);
	ada_unmap(td->orphans, td->orphans_bytes);
	ada_windows_free(td);
	ada_unmap(td, sizeof(*td));
}

/* One pass over every thread. Returns the slots consumed. *headroom (if
 * not NULL) becomes the smallest, over the threads that had events, of
 * (a quarter of their ring) / (slots drained now): how many intervals like
 * the last one it takes them to fill a quarter of their ring. */
static size_t drain_all(double *headroom)
{
	struct ada_thread *td, *prev = NULL, *next;
	size_t total = 0;

	ada_marks_take();
	ada_meta_queue_flush();

	for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = next) {
		/* Acquire: once exited is seen, so is every slot before it. */
		uint32_t exited = __atomic_load_n(&td->exited, __ATOMIC_ACQUIRE);
		bool cut;
		size_t n = drain_thread(td, &cut);

		next = td->next;
		total += n;
		if (headroom && n) {
			/* A drain cut at its maximum left more behind: no headroom. */
			double h = cut ? 0 : (double)(td->mask + 1) / 4 / (double)n;

			if (h < *headroom)
				*headroom = h;
		}
		if (exited && td->rh->tail == __atomic_load_n(&td->rh->head, __ATOMIC_ACQUIRE)) {
			thread_retire(td, prev);
			continue;
		}
		prev = td;
	}
	/* A thread waiting for room watches this move. */
	__atomic_fetch_add(&ada_rt.writer_progress, 1, __ATOMIC_RELAXED);
	return total;
}

/* Drains every ring up to where its head is now, however fast threads go
 * on calling: a flush at exit, exec or a crash ends in bounded time. */
void ada_writer_drain_cut(void)
{
	struct ada_thread *td;

	for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = td->next) {
		td->cut = __atomic_load_n(&td->rh->head, __ATOMIC_ACQUIRE);
		/* drain_thread stops at end_at too; the cut needs it for
		 * ring mode's hold, which must not keep what the exit left out. */
		if (__atomic_load_n(&td->end_set, __ATOMIC_ACQUIRE) && td->end_at < td->cut)
			td->cut = td->end_at;
		td->cutting = true;
		if (ada_rt.cfg.ring_mode) /* every ring held before any is written */
			ada_ring_hold(td, td->cut);
	}
	/* Threads that start meanwhile are not cut: at most 1024 passes. */
	for (unsigned pass = 0; drain_all(NULL) > 0 && pass < 1024; pass++)
		;
	for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = td->next)
		td->cutting = false;
}

void ada_writer_clock_point(void)
{
	struct ada_meta_clock c;

	ada_clock_sample(&c);
	ada_meta_write(ADA_META_CLOCK, &c, sizeof(c), NULL, 0);
	ada_w.last_clock_ns = c.boottime_ns;
}

/* A recorder's program has ended: by a kill or a crash (the rings are
 * drained to their ends and the trace closed, as the exit flush would), or
 * by an exec whose flush was done and whose new image no longer maps the
 * arena (nothing left to write). */
static bool recorder_done(void)
{
	if (ada_w.exec_flushed)
		return ada_recorder_image_gone(ada_arena_base());
	if (!ada_recorder_program_gone())
		return false;
	ada_writer_end_dead();
	return true;
}

/* Passes with nothing to drain before the writer slows to the flush interval. */
#define IDLE_PASSES 100
#define BUSY_WAIT_MAX_NS 1000000ull /* while events flow */
/* Shorter sleeps than this are not reliable (timer slack is 50 us, and the
 * scheduler adds its own delay): yield the CPU instead. */
#define SLEEP_MIN_NS 200000ull
#define HOUSEKEEPING_NS 10000000ull /* module scan, clock pairs */

/* The writer, its files not made (said, with "tracing off"): nothing of the
 * trace is left, no thread waits for it (writer_running's other half), and
 * the program says its lines at its end. */
static void writer_gives_up(void)
{
	ada_trace_remove();
	__atomic_store_n(&ada_rt.writer_failed, true, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ada_rt.writer_live, false, __ATOMIC_SEQ_CST);
}

/* Sleeps up to wait_ns, or until a thread kicks (ada_writer_kick). */
static void writer_sleep(uint64_t wait_ns)
{
	/* It looks for the program's end at least every flush interval:
	 * nothing wakes it then. */
	if (wait_ns > ada_rt.cfg.flush_ms * 1000000ull)
		wait_ns = ada_rt.cfg.flush_ms * 1000000ull;
	pthread_mutex_unlock(&ada_w.lock);
	if (wait_ns < SLEEP_MIN_NS)
		sched_yield();
	else
		ada_futex_wait(&ada_rt.writer_kick, 0, wait_ns);
	if (ada_rt.cfg.writer_delay_us)
		usleep(ada_rt.cfg.writer_delay_us);
	pthread_mutex_lock(&ada_w.lock);
}

void ada_writer_loop(void)
{
	uint64_t pass_start = ada_now_ns(CLOCK_MONOTONIC), housekeeping = 0;
	unsigned idle = 0;

	ada_thread_untraced();
	/* A process of its own, every descriptor closed (recorder.c): no
	 * stderr of the program's here, no number of the program's to take. */
	ada_warn_private_fds();
	ada_apart_own_table();
	ada_meta_on_writer();
	if (ada_process_files() < 0) {
		writer_gives_up();
		return;
	}
	ada_meta_hold();
	/* Until the recorder has written the trace's end: ada-symbolize waits
	 * for it once the program has ended (raw_meta.c). */
	ada_meta_lock();
	if (buffers_init() < 0) {
		ada_warn("cannot allocate the recorder's buffers; nothing is written");
		writer_gives_up();
		return;
	}
	ada_trigger_resolve();
	pthread_mutex_lock(&ada_w.lock);
	while (!ada_w.stop) {
		double headroom = 1e9;
		size_t n;
		uint64_t now, interval, wait_ns;

		/* Before the pass: a kick during it is not lost (the sleep
		 * below returns at once). */
		__atomic_store_n(&ada_rt.writer_kick, 0, __ATOMIC_SEQ_CST);
		ada_writer_flush_if_asked();
		if (!ada_w.stop && ada_passes.sync)
			ada_passes.sync(); /* ada_enable/ada_disable in patchable mode */
		if (ada_w.stop)
			break;
		if (recorder_done())
			break;
		__atomic_store_n(&ada_rt.writer_ticks, ada_arch_ticks(), __ATOMIC_RELAXED);
		n = drain_all(&headroom);
		now = ada_now_ns(CLOCK_MONOTONIC);
		interval = now - pass_start;
		pass_start = now;

		if (now - housekeeping >= HOUSEKEEPING_NS) {
			housekeeping = now;
			ada_modmap_look();
			ada_writer_keep_symbols(false);
			ada_trigger_resolve(); /* a dlopen may bring functions to trigger on */
			if (ada_passes.modules) /* or patchable ones */
				ada_passes.modules();
			ada_control_poll();    /* a command from ada-ctl */
			if (ada_now_ns(CLOCK_BOOTTIME) - ada_w.last_clock_ns >= CLOCK_EVERY_NS)
				ada_writer_clock_point();
		}
		/* While events flow, sleep until the fastest-filling ring would be a
		 * quarter full at the last interval's rate (at most 1 ms), or just
		 * yield when that is too short to sleep for: so a ring needs to
		 * hold a fraction of a millisecond of events. A thread whose ring
		 * passes half full wakes the writer early. After IDLE_PASSES
		 * empty passes, wake every flush interval, so an idle program is
		 * not woken 1000 times a second. */
		idle = n ? 0 : idle + 1;
		if (n) {
			double fill_ns = headroom * (double)interval;

			wait_ns = fill_ns < (double)BUSY_WAIT_MAX_NS ? (uint64_t)fill_ns : BUSY_WAIT_MAX_NS;
		} else {
			wait_ns = idle < IDLE_PASSES ? BUSY_WAIT_MAX_NS : ada_rt.cfg.flush_ms * 1000000ull;
		}
		writer_sleep(wait_ns);
	}
	pthread_mutex_unlock(&ada_w.lock);
}

static int buffers_init(void)
{
	size_t enc_cap = ada_encode_bound(DRAIN_MAX) + ADA_ENC_SKIP_MAX + ADA_DROP_NREASONS * ADA_ENC_LOST_MAX +
			 DETAIL_DRAIN_MAX * ADA_ENC_DETAIL_MAX;

	ada_frame_prefs(&ada_w.prefs);
	ada_w.lz4_cap = LZ4F_compressBound(enc_cap, &ada_w.prefs) + LZ4F_HEADER_SIZE_MAX;
	ada_w.enc_buf = malloc(enc_cap);
	ada_w.lz4_buf = malloc(ada_w.lz4_cap);
	if (!ada_w.enc_buf || !ada_w.lz4_buf || LZ4F_isError(LZ4F_createCompressionContext(&ada_w.cctx, LZ4F_VERSION)) ||
	    ada_fdict_init(&ada_w.dict) < 0)
		return -1;
	return 0;
}
