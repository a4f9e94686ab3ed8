/* writer.c - the writer thread: drains every thread's ring to raw/thread_<N>.lz4.
 *
 * Each drain of a ring becomes one complete LZ4 frame appended to the
 * thread's file, so a crash or SIGKILL leaves a file that decodes up to its
 * last whole frame, and an event reaches the disk within one writer interval
 * (ADA_FLUSH_MS, 10 ms by default) of being recorded. Encoding and
 * compression happen here, never in the traced threads.
 *
 * One lock serialises drains between this thread and the rare callers that
 * must flush synchronously (exec, exit, fork). The traced threads never take
 * it: they only publish their ring head and read back the tail.
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "ada_internal.h"
#include "encode.h"

/* Slots per frame: bounds the encode buffer and keeps one drain short enough
 * that a flushing caller does not wait long. A thread with a detail ring
 * drains fewer per frame: each slot may carry up to ADA_ENC_DETAIL_MAX bytes. */
#define DRAIN_MAX 65536
#define DETAIL_DRAIN_MAX 4096
#define CLOCK_EVERY_NS 1000000000ull

struct ada_writer_stream {
	int fd;
	struct ada_enc_stream enc;
	uint64_t events;
	uint64_t lost_seen[ADA_DROP_NREASONS]; /* td->dropped already noted in the stream */
	uint64_t write_lost;                   /* slots lost to a failed encode or write */
	uint64_t details_skipped;              /* detail records left out (behind) */
};

static struct {
	pthread_mutex_t lock;
	pthread_t thread;
	bool running, stop;
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
	bool io_failed;
	/* A thread that must not do the writer's work itself (a fatal signal's
	 * handler, _exit, exec: all may run in a signal handler) asks for it
	 * (flush_req, flush_how) and waits for the writer to say it is done
	 * (flush_done, a futex word). */
	uint32_t flush_req, flush_done, flush_how;
} W = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void io_error(const char *what)
{
	if (!W.io_failed)
		ada_warn("cannot write %s in %s: %s; later events are lost", what, ada_rt.raw_dir,
			 strerror(errno));
	W.io_failed = true;
}

/* The thread's name as the kernel has it now (pthread_setname_np or prctl). */
static void read_comm(uint32_t tid, char name[16])
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, 15);
	close(fd);
	while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
		name[--n] = '\0';
}

static struct ada_writer_stream *stream_open(struct ada_thread *td)
{
	struct ada_writer_stream *ws = calloc(1, sizeof(*ws));
	struct ada_meta_thread mt = { .ordinal = td->ordinal, .os_tid = td->os_tid,
				      .start_tsc = td->start_tsc };
	char path[4500];

	if (!ws)
		return NULL;
	snprintf(path, sizeof(path), "%s/thread_%u.lz4", ada_rt.raw_dir, td->ordinal);
	ws->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (ws->fd < 0) {
		io_error(path);
		free(ws);
		return NULL;
	}
	read_comm(td->os_tid, mt.name);
	ada_meta_write(ADA_META_THREAD, &mt, sizeof(mt), NULL, 0);
	if (td->is_stack) {
		struct ada_meta_stack ms = { .ordinal = td->ordinal, .host = td->host_ordinal,
					     .lo = td->stack_lo, .hi = td->stack_lo + td->stack_span };

		ada_meta_write(ADA_META_STACK, &ms, sizeof(ms), NULL, 0);
	}
	W.streams++;
	return ws;
}

/* New fids go to process.meta before any frame that uses them. */
static void flush_fids(void)
{
	struct ada_fdict *d = &W.dict;
	struct ada_meta_funcs mf = { .first_fid = d->pending_first, .count = (uint32_t)d->npending };

	if (!d->npending)
		return;
	ada_meta_write(ADA_META_FUNCS, &mf, sizeof(mf), d->pending, d->npending * sizeof(uint64_t));
	d->pending_first += (uint32_t)d->npending;
	d->npending = 0;
}

static int write_frame(struct ada_writer_stream *ws, size_t len)
{
	size_t n = LZ4F_compressBegin(W.cctx, W.lz4_buf, W.lz4_cap, &W.prefs), total;

	if (LZ4F_isError(n))
		goto lz4_fail;
	total = n;
	n = LZ4F_compressUpdate(W.cctx, W.lz4_buf + total, W.lz4_cap - total, W.enc_buf, len, NULL);
	if (LZ4F_isError(n))
		goto lz4_fail;
	total += n;
	n = LZ4F_compressEnd(W.cctx, W.lz4_buf + total, W.lz4_cap - total, NULL);
	if (LZ4F_isError(n))
		goto lz4_fail;
	total += n;
	if (ada_write_all(ws->fd, W.lz4_buf, total) < 0) {
		io_error("a thread file");
		return -1;
	}
	return 0;
lz4_fail:
	ada_warn("lz4 compression failed: %s", LZ4F_getErrorName(n));
	return -1;
}

/* Encodes slots [tail, tail+n) of td's ring, plus LOST notes for drops the
 * thread counted since the last frame, into W.enc_buf. behind: the index
 * ring is filling faster than the writer empties it, so the slots' detail
 * records are consumed without being written (counted as detail_full):
 * every event is kept, the registers of some are not. */
static size_t encode_batch(struct ada_thread *td, struct ada_writer_stream *ws, uint64_t tail,
			   size_t n, bool behind)
{
	uint64_t slots = td->mask + 1, first = tail & td->mask;
	size_t part = n < slots - first ? n : (size_t)(slots - first);
	/* Acquire: the records of the slots we drain were published before
	 * them; this covers them (and maybe more, which stay for later). */
	struct ada_enc_detail dl = { .ring = td->dring, .mask = td->dmask, .tail = td->dtail,
				     .head = __atomic_load_n(&td->dhead, __ATOMIC_ACQUIRE),
				     .pos = tail, .skip = behind };
	uint8_t *p = W.enc_buf;
	uint64_t dropped = ws->enc.dropped;
	size_t len;
	unsigned r;

	p += ada_encode_sync(&ws->enc, n ? td->ring[first].tsc : ws->enc.last_tsc, tail, p);
	for (r = 0; r < ADA_DROP_NREASONS; r++) {
		uint64_t seen = __atomic_load_n(&td->rh->dropped[r], __ATOMIC_RELAXED);

		if (seen > ws->lost_seen[r])
			p += ada_encode_lost(r, seen - ws->lost_seen[r], p);
		ws->lost_seen[r] = seen;
	}
	len = ada_encode_slots(&ws->enc, &W.dict, td->ring + first, part, p, &dl);
	if (len == (size_t)-1)
		return 0;
	p += len;
	if (part < n) {
		dl.pos = tail + part;
		len = ada_encode_slots(&ws->enc, &W.dict, td->ring, n - part, p, &dl);
		if (len == (size_t)-1)
			return 0;
		p += len;
	}
	if (ws->enc.dropped != dropped) /* positions the frame holds no event for */
		p += ada_encode_skip(ws->enc.dropped - dropped, p);
	if (dl.skipped) {
		p += ada_encode_lost(ADA_DROP_DETAIL_FULL, dl.skipped, p);
		ws->details_skipped += dl.skipped;
	}
	/* Release: our reads of these records are done; the thread may reuse
	 * their bytes. */
	__atomic_store_n(&td->dtail, dl.tail, __ATOMIC_RELEASE);
	return (size_t)(p - W.enc_buf);
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

	if (td->cutting && head > td->cut)
		head = td->cut;
	/* The index lane comes first: with a quarter of the ring waiting,
	 * detail records (~15 times the bytes of their events) are left out
	 * until the writer has caught up. */
	bool behind = td->dring && head - tail > (td->mask + 1) / 4;
	size_t max = td->dring && !behind ? DETAIL_DRAIN_MAX : DRAIN_MAX, len;
	size_t n = head - tail < max ? (size_t)(head - tail) : max;

	*cut = head - tail > max;
	if (!ws) {
		if (!n)
			return 0;
		ws = td->ws = stream_open(td);
		if (!ws)
			goto consumed;
	}
	if (!n && !has_new_drops(td, ws))
		return 0;
	len = encode_batch(td, ws, tail, n, behind);
	flush_fids();
	if (!len || W.io_failed || write_frame(ws, len) < 0) {
		ws->write_lost += n; /* told in the thread's end record */
	} else {
		ws->events += n;
		sample_latency(td, tail, n);
	}
consumed:
	/* Release: our reads of these slots are done before the producer may
	 * reuse them. */
	__atomic_store_n(&td->rh->tail, tail + n, __ATOMIC_RELEASE);
	if (n)
		ada_ring_wake(td);
	return n;
}

static void thread_end_record(struct ada_thread *td, uint32_t flags)
{
	struct ada_writer_stream *ws = td->ws;
	struct ada_meta_thread_end te = { .ordinal = td->ordinal, .flags = flags,
					  .end_tsc = td->end_tsc ? td->end_tsc : ada_arch_ticks() };
	unsigned r;

	for (r = 0; r < ADA_DROP_NREASONS; r++)
		te.dropped[r] = td->rh->dropped[r];
	te.waits = td->rh->waits;
	te.wait_ns = td->rh->wait_ns;
	if (ws) {
		te.dropped[ADA_DROP_NO_BUFFER] += ws->write_lost;
		te.dropped[ADA_DROP_DETAIL_FULL] += ws->details_skipped;
	}
	te.events = ws ? ws->events : 0;
	ada_meta_write(ADA_META_THREAD_END, &te, sizeof(te), NULL, 0);
	for (r = 0; r < ADA_DROP_NREASONS; r++)
		W.totals[r] += te.dropped[r];
	W.kept += te.events;
	W.waits += te.waits;
	W.wait_ns += te.wait_ns;
}

static void stream_close(struct ada_thread *td)
{
	if (!td->ws)
		return;
	close(td->ws->fd);
	ada_enc_stream_free(&td->ws->enc);
	free(td->ws);
	td->ws = NULL;
}

/* An exited thread whose ring is empty: write its end, free its state. The
 * writer is the only one that removes from the registry; producers only push
 * at the head, so an interior unlink needs no atomics, the head one a CAS. */
static void thread_retire(struct ada_thread *td, struct ada_thread *prev)
{
	struct ada_thread *expected = td;

	thread_end_record(td, ADA_TEND_EXITED);
	stream_close(td);
	if (prev)
		prev->next = td->next;
	else if (!__atomic_compare_exchange_n(&ada_rt.threads, &expected, td->next, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		for (prev = expected; prev->next != td; prev = prev->next)
			;
		prev->next = td->next;
	}
	ada_ring_retire(td);
	if (td->shadow)
		munmap(td->shadow, td->shadow_bytes);
	if (td->dring)
		munmap(td->dring, td->dring_bytes);
	if (td->orphans)
		munmap(td->orphans, td->orphans_bytes);
	munmap(td, sizeof(*td));
}

/* One pass over every thread. Returns the slots consumed. *headroom (if
 * not NULL) becomes the smallest, over the threads that had events, of
 * (a quarter of their ring) / (slots drained now): how many intervals like
 * the last one it takes them to fill a quarter of their ring. */
static size_t drain_all(double *headroom)
{
	struct ada_thread *td, *prev = NULL, *next;
	size_t total = 0;

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
static void drain_cut(void)
{
	struct ada_thread *td;

	for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = td->next) {
		td->cut = __atomic_load_n(&td->rh->head, __ATOMIC_ACQUIRE);
		td->cutting = true;
	}
	/* Threads that start meanwhile are not cut: at most 1024 passes. */
	for (unsigned pass = 0; drain_all(NULL) > 0 && pass < 1024; pass++)
		;
	for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = td->next)
		td->cutting = false;
}

static void clock_point(void)
{
	struct ada_meta_clock c;

	ada_clock_sample(&c);
	ada_meta_write(ADA_META_CLOCK, &c, sizeof(c), NULL, 0);
	W.last_clock_ns = c.boottime_ns;
}

/* Passes with nothing to drain before the writer slows to the flush interval. */
#define IDLE_PASSES 100
#define BUSY_WAIT_MAX_NS 1000000ull /* while events flow */
/* Shorter sleeps than this are not reliable (timer slack is 50 us, and the
 * scheduler adds its own delay): yield the CPU instead. */
#define SLEEP_MIN_NS 200000ull
#define HOUSEKEEPING_NS 10000000ull /* module scan, clock pairs */

static void end_record(uint32_t how);
static void final_flush(uint32_t how);
static void remove_empty_trace(void);

/* Another thread asked for a flush (ada_writer_request). */
static void flush_if_asked(void)
{
	uint32_t req = __atomic_load_n(&W.flush_req, __ATOMIC_ACQUIRE);
	struct ada_thread *td;

	if (req == W.flush_done)
		return;
	switch (__atomic_load_n(&W.flush_how, __ATOMIC_RELAXED)) {
	case ADA_FLUSH_EXEC:
		drain_cut();
		/* Nothing is left to recover: the new image maps none of the
		 * rings. (If the exec fails, the threads go on without files.) */
		for (td = ada_rt.threads; td; td = td->next)
			ada_ring_remove(td);
		ada_ring_pool_empty(true);
		end_record(ADA_END_EXEC);
		if (!W.streams)
			remove_empty_trace();
		break;
	case ADA_FLUSH__EXIT:
		final_flush(ADA_END__EXIT);
		W.stop = true; /* the process ends now */
		break;
	default:
		drain_cut();
	}
	__atomic_store_n(&W.flush_done, req, __ATOMIC_RELEASE);
	ada_futex_wake(&W.flush_done);
}

/* Sleeps up to wait_ns, or until a thread kicks (ada_writer_kick). */
static void writer_sleep(uint64_t wait_ns)
{
	pthread_mutex_unlock(&W.lock);
	if (wait_ns < SLEEP_MIN_NS)
		sched_yield();
	else
		ada_futex_wait(&ada_rt.writer_kick, 0, wait_ns);
	if (ada_rt.cfg.writer_delay_us)
		usleep(ada_rt.cfg.writer_delay_us);
	pthread_mutex_lock(&W.lock);
}

static void *writer_main(void *arg)
{
	uint64_t pass_start = ada_now_ns(CLOCK_MONOTONIC), housekeeping = 0;
	unsigned idle = 0;

	(void)arg;
	ada_thread_untraced();
	prctl(PR_SET_NAME, "ada-writer");
	pthread_mutex_lock(&W.lock);
	while (!W.stop) {
		double headroom = 1e9;
		size_t n;
		uint64_t now, interval, wait_ns;

		/* Before the pass: a kick during it is not lost (the sleep
		 * below returns at once). */
		__atomic_store_n(&ada_rt.writer_kick, 0, __ATOMIC_SEQ_CST);
		flush_if_asked();
		if (W.stop)
			break;
		n = drain_all(&headroom);
		now = ada_now_ns(CLOCK_MONOTONIC);
		interval = now - pass_start;
		pass_start = now;

		if (now - housekeeping >= HOUSEKEEPING_NS) {
			housekeeping = now;
			ada_modmap_scan(false);
			if (ada_now_ns(CLOCK_BOOTTIME) - W.last_clock_ns >= CLOCK_EVERY_NS)
				clock_point();
			/* main ended by pthread_exit and every other program
			 * thread has ended too: the process ends, as it would
			 * without ada, by exit(0) from its last thread (atexit
			 * handlers, destructors, ours with the final flush). */
			if (__atomic_load_n(&ada_rt.main_exited, __ATOMIC_ACQUIRE) &&
			    ada_only_thread_left()) {
				pthread_mutex_unlock(&W.lock);
				exit(0);
			}
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
	pthread_mutex_unlock(&W.lock);
	return NULL;
}

void ada_writer_kick(void)
{
	if (!__atomic_exchange_n(&ada_rt.writer_kick, 1, __ATOMIC_SEQ_CST))
		ada_futex_wake(&ada_rt.writer_kick);
}

/* Async-signal-safe: atomics, futex and clock_gettime only. */
bool ada_writer_request(uint32_t how, uint64_t timeout_ns)
{
	uint64_t start = ada_now_ns(CLOCK_MONOTONIC);
	uint32_t req;

	if (!__atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE))
		return false;
	__atomic_store_n(&W.flush_how, how, __ATOMIC_RELAXED);
	req = __atomic_add_fetch(&W.flush_req, 1, __ATOMIC_ACQ_REL);
	ada_writer_kick();
	for (;;) {
		uint32_t done = __atomic_load_n(&W.flush_done, __ATOMIC_ACQUIRE);

		if ((int32_t)(done - req) >= 0)
			return true;
		if (ada_now_ns(CLOCK_MONOTONIC) - start >= timeout_ns)
			return false;
		ada_futex_wait(&W.flush_done, done, 1000000);
	}
}

static int buffers_init(void)
{
	size_t enc_cap = ada_encode_bound(DRAIN_MAX) + ADA_ENC_SKIP_MAX + ADA_DROP_NREASONS * ADA_ENC_LOST_MAX +
			 DETAIL_DRAIN_MAX * ADA_ENC_DETAIL_MAX;

	memset(&W.prefs, 0, sizeof(W.prefs));
	W.prefs.frameInfo.blockSizeID = LZ4F_max1MB;
	W.prefs.frameInfo.blockMode = LZ4F_blockIndependent;
	W.prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	W.lz4_cap = LZ4F_compressBound(enc_cap, &W.prefs) + LZ4F_HEADER_SIZE_MAX;
	W.enc_buf = malloc(enc_cap);
	W.lz4_buf = malloc(W.lz4_cap);
	if (!W.enc_buf || !W.lz4_buf || LZ4F_isError(LZ4F_createCompressionContext(&W.cctx, LZ4F_VERSION)) ||
	    ada_fdict_init(&W.dict) < 0)
		return -1;
	return 0;
}

static int thread_spawn(void)
{
	sigset_t all, old;
	int err;

	/* The writer must never receive the program's signals: create it with
	 * every signal blocked (it inherits the mask). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&W.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	W.running = true;
	__atomic_store_n(&ada_rt.writer_live, true, __ATOMIC_RELEASE);
	return 0;
}

int ada_writer_start(void)
{
	if (!W.enc_buf && buffers_init() < 0) {
		ada_warn("cannot allocate the writer's buffers; tracing off");
		return -ENOMEM;
	}
	W.stop = false;
	clock_point();
	return thread_spawn();
}

/* The image ends (exit, _exit, exec) with its rings written. */
static void end_record(uint32_t how)
{
	struct ada_meta_end end = { .how = how };

	clock_point();
	end.end_tsc = ada_arch_ticks();
	end.end_boottime_ns = ada_now_ns(CLOCK_BOOTTIME);
	ada_meta_write(ADA_META_END, &end, sizeof(end), NULL, 0);
}

/* A process none of whose threads recorded anything (the middle process of
 * a daemon's double fork, a child that execs or exits at once) leaves no
 * trace at all, rather than a pid directory with no thread in it: its
 * process.meta, raw/ and pid_<pid>/ go, and the session directory too if
 * nothing else is in it (rmdir fails otherwise). */
static void remove_empty_trace(void)
{
	char path[sizeof(ada_rt.raw_dir) + 16], *slash;

	snprintf(path, sizeof(path), "%s/process.meta", ada_rt.raw_dir);
	unlink(path);
	rmdir(ada_rt.raw_dir);
	rmdir(ada_rt.pid_dir);
	snprintf(path, sizeof(path), "%s", ada_rt.pid_dir);
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		rmdir(path);
	}
}

/* The end of the image's trace, under the lock, the writer loop over. */
static void final_flush(uint32_t how)
{
	struct ada_thread *td;

	ada_modmap_scan(false);
	drain_cut();
	/* Threads still running at exit: their trace ends here. Those waiting
	 * for room stop waiting (and drop: nobody drains any more). */
	__atomic_store_n(&ada_rt.writer_live, false, __ATOMIC_RELEASE);
	for (td = ada_rt.threads; td; td = td->next) {
		thread_end_record(td, ADA_TEND_FINAL);
		stream_close(td);
		ada_ring_remove(td);
		__atomic_fetch_add(&td->rh->wake, 1, __ATOMIC_RELEASE);
		ada_futex_wake(&td->rh->wake);
	}
	ada_ring_pool_empty(true);
	ada_latency_record();
	end_record(how);
	if (!W.streams)
		remove_empty_trace();
	if (!ada_rt.cfg.quiet)
		ada_drop_report(W.totals, W.kept, W.waits, W.wait_ns);
}

void ada_writer_stop(void)
{
	if (!W.enc_buf)
		return;
	if (W.running) {
		pthread_mutex_lock(&W.lock);
		W.stop = true;
		pthread_mutex_unlock(&W.lock);
		ada_writer_kick();
		/* exit() may come from the writer itself (main's pthread_exit). */
		if (!pthread_equal(W.thread, pthread_self()))
			pthread_join(W.thread, NULL);
		W.running = false;
	}
	pthread_mutex_lock(&W.lock);
	final_flush(ADA_END_EXIT);
	pthread_mutex_unlock(&W.lock);
}

/* fork: the prepare handler takes the lock so the child never inherits a
 * half-written frame or a lock held by a thread that does not exist there. */
void ada_writer_fork_prepare(void)
{
	if (W.enc_buf)
		pthread_mutex_lock(&W.lock);
}

void ada_writer_fork_parent(void)
{
	if (W.enc_buf)
		pthread_mutex_unlock(&W.lock);
}

/* In the child: the parent's files and dictionary belong to the parent. */
void ada_writer_after_fork(void)
{
	struct ada_thread *td;

	if (!W.enc_buf)
		return;
	pthread_mutex_init(&W.lock, NULL);
	for (td = ada_rt.threads; td; td = td->next)
		stream_close(td);
	ada_fdict_free(&W.dict);
	ada_fdict_init(&W.dict);
	memset(W.totals, 0, sizeof(W.totals));
	W.kept = W.waits = W.wait_ns = 0;
	W.streams = 0;
	ada_latency_reset();
	W.running = false;
	W.flush_req = W.flush_done = 0;
	ada_rt.writer_live = false;
	W.io_failed = false;
}
