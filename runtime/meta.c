/* meta.c - raw/process.meta: a record log of everything but the events.
 *
 * Records are appended with one writev() each on an O_APPEND descriptor, so
 * a record is never interleaved with another and a crash leaves at most the
 * last one cut short (the reader stops there).
 *
 * Descriptors: the writer (thread or recorder) creates the file and holds
 * one in its own descriptor table (writer.c); a program thread queues its
 * records (start-up's, a dlopen's, a fork child's) and opens the file for
 * a record only where it must not wait (a fatal signal's handler), so that
 * ada keeps nothing in the program's table for the program to close, reuse
 * or count against its RLIMIT_NOFILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ada_internal.h"

static char meta_path[4500];
static void queue_start(void);
/* The writer's descriptor; -1 on every other thread. */
static __thread int meta_fd __attribute__((tls_model("initial-exec"))) = -1;

void ada_meta_name(const char *raw_dir)
{
	queue_start();
	snprintf(meta_path, sizeof(meta_path), "%s/process.meta", raw_dir);
}

int ada_meta_create(void)
{
	struct ada_meta_file_header h = { .version = ADA_RAW_VERSION, .arch = ADA_ARCH_ID,
					  .endian = 1, .header_size = sizeof(h) };
	int fd, err;
	/* The sizes RAW_FORMAT.md gives. */
	_Static_assert(sizeof(struct ada_meta_file_header) == 16, "meta header");
	_Static_assert(sizeof(struct ada_meta_rec) == 8, "record header");
	_Static_assert(sizeof(struct ada_meta_process) == 48, "PROCESS");
	_Static_assert(sizeof(struct ada_meta_clock) == 24, "CLOCK");
	_Static_assert(sizeof(struct ada_meta_module) == 72, "MODULE");
	_Static_assert(sizeof(struct ada_meta_unload) == 16, "UNLOAD");
	_Static_assert(sizeof(struct ada_meta_funcs) == 8, "FUNCS");
	_Static_assert(sizeof(struct ada_meta_thread) == 32, "THREAD");
	_Static_assert(sizeof(struct ada_meta_thread_end) == 40 + 8 * ADA_DROP_NREASONS + 8 + 8 * ADA_SAMPLE_LOST_NREASONS, "THREAD_END");
	_Static_assert(offsetof(struct ada_meta_thread_end, samples) == ADA_META_THREAD_END_V3, "THREAD_END v3");
	_Static_assert(sizeof(struct ada_meta_crash) == 32, "CRASH");
	_Static_assert(sizeof(struct ada_meta_recovered) == 32, "RECOVERED");
	_Static_assert(sizeof(struct ada_meta_ring) == 8, "RING");
	_Static_assert(sizeof(struct ada_ring_header) == 256, "ring header");
	_Static_assert(offsetof(struct ada_ring_header, head) == 64, "ring head");
	_Static_assert(offsetof(struct ada_ring_header, tail) == 192, "ring tail");
	_Static_assert(sizeof(struct ada_meta_latency) == 16 + 4 * ADA_LATENCY_BUCKETS, "LATENCY");
	char tmp[sizeof(meta_path) + 8];
	bool recorder = ada_recorder_self();

	memcpy(h.magic, ADA_META_MAGIC, sizeof(h.magic));
	/* A recorder makes it while ada-symbolize may already look (a program
	 * killed at once): under another name, locked, then renamed, so that
	 * process.meta is there only with its lock held (ada-symbolize waits
	 * for it), its descriptor kept (the lock goes with it). */
	snprintf(tmp, sizeof(tmp), "%s%s", meta_path, recorder ? ".new" : "");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0 && recorder)
		flock(fd, LOCK_EX);
	if (fd < 0 || ada_write_all(fd, &h, sizeof(h)) < 0 ||
	    (recorder && rename(tmp, meta_path) < 0)) {
		err = errno;
		ada_warn("cannot create %s: %s; tracing off", meta_path, strerror(err));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -err;
	}
	if (recorder)
		meta_fd = fd;
	else
		close(fd);
	return 0;
}

void ada_meta_hold(void)
{
	if (meta_fd < 0)
		meta_fd = open(meta_path, O_WRONLY | O_APPEND | O_CLOEXEC);
}

void ada_meta_lock(void)
{
	if (meta_fd >= 0)
		flock(meta_fd, LOCK_EX);
}

void ada_meta_release(void)
{
	if (meta_fd >= 0)
		close(meta_fd);
	meta_fd = -1;
}

/* The writer's descriptor, or one opened for this record (*opened); -1
 * with errno EBADF before the file exists. A record written straight in
 * from a program thread (a crash in the first call) while a recorder is
 * still making the file waits for it a while (a futex: signal-safe). */
static int meta_fd_get(bool *opened)
{
	*opened = meta_fd < 0;
	if (!*opened)
		return meta_fd;
	if (!meta_path[0]) {
		errno = EBADF;
		return -1;
	}
	for (int i = 0; i < 1000 && !__atomic_load_n(&ada_rt.files_made, __ATOMIC_ACQUIRE) &&
			__atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE) && !ada_recorder_self();
	     i++)
		ada_futex_wait(&ada_rt.files_made, 0, 1000000);
	return open(meta_path, O_WRONLY | O_APPEND | O_CLOEXEC);
}

static void meta_fd_put(int fd, bool opened)
{
	if (opened && fd >= 0)
		close(fd);
}

/* process.meta cannot be written: what and why, on the exit line (nothing
 * before it exists: tracing is off). */
static int meta_failed(ssize_t n)
{
	if (!meta_path[0])
		return -EBADF;
	ada_write_failed("cannot write %s: %s: the trace's records from then on were lost",
			 meta_path, n < 0 ? strerror(errno) : "disk full");
	return -EIO;
}

/* ---- program threads' records: queued for the writer ---------------------------
 *
 * After start-up a program thread that has a record to write (a module a
 * dlopen brought, the dynamic hooks' and the patch passes' totals) does
 * not open process.meta in the program's table: it appends the record to
 * this queue and wakes the writer, which writes the queue before anything
 * else it writes (each pass, each frame: a record a thread queued before an
 * event reaches the file before the frame holding the event). Records go
 * straight to the file where no writer runs (start-up, a fork child's
 * handler, after the final flush) and from a fatal signal's handler, which
 * must not wait for a lock (ada_meta_write_direct).
 *
 * The queue is shared with a recorder process (shared.h): its state in the
 * shared section, its bytes in the arena, and its lock process-shared and
 * robust, so that a thread the process's end killed while it held the lock
 * does not stop the recorder's last flush. A full queue waits for the
 * writer to empty it. */
#define QUEUE_CAP (1u << 20)

struct meta_queue {
	pthread_mutex_t lock;
	bool early;       /* start-up's records, queued before the recorder runs */
	uint8_t *buf;     /* QUEUE_CAP bytes, mapped at the first record */
	size_t len;
	uint32_t pending; /* len != 0, read without the lock */
	uint32_t emptied; /* futex word: bumped each time the writer empties it */
};
static ADA_SHARED_VAR(struct meta_queue, Q);
#define Q (Q_area.v)

static __thread bool on_writer __attribute__((tls_model("initial-exec")));

void ada_meta_on_writer(void)
{
	on_writer = true;
}

/* The lock, whoever held it before: a holder that died (the process's end
 * killed it mid-record) left a record cut short, which is dropped. */
static void queue_lock(void)
{
	if (pthread_mutex_lock(&Q.lock) == EOWNERDEAD) {
		pthread_mutex_consistent(&Q.lock);
		Q.len = 0;
	}
}

static void queue_init(void)
{
	ada_mutex_init_shared(&Q.lock);
	Q.len = 0;
	Q.pending = 0;
}

/* At the file's creation: the queue, unless it holds records already (an
 * exec that failed makes the file again). */
static void queue_start(void)
{
	if (!Q.buf)
		queue_init();
}

/* Waits (the lock not held) until the writer has emptied the queue since
 * `seen`; false if no writer runs any more. */
static bool queue_wait(uint32_t seen)
{
	while (__atomic_load_n(&Q.emptied, __ATOMIC_ACQUIRE) == seen) {
		if (!__atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE))
			return false;
		ada_writer_kick();
		ada_futex_wait(&Q.emptied, seen, 1000000);
	}
	return true;
}

/* Queues a record (encoded: bytes, extra NULL; else encoded here) if a
 * writer runs and this is not it; false to write it now. Where no recorder
 * runs (rings_only.c) the queue holds records for the image's end, and one
 * it cannot hold is not written by the thread either (it would open
 * process.meta in the program's table): counted, said at the end. */
static bool queue(uint32_t type, const void *payload, size_t len, const void *extra,
		  size_t extra_len, bool encoded)
{
	size_t need = encoded ? len : sizeof(struct ada_meta_rec) + ((len + extra_len + 7) & ~(size_t)7);
	bool done = false;

	if (on_writer || (need > QUEUE_CAP && !ada_rt.rings_only))
		return false;
	for (;;) {
		uint32_t seen = __atomic_load_n(&Q.emptied, __ATOMIC_ACQUIRE);
		bool full = false;

		queue_lock();
		if (!Q.buf)
			Q.buf = ada_map_zeroed(QUEUE_CAP);
		/* Under the lock: the final flush stops the writer, then empties
		 * the queue under it, so no record is left behind in it. */
		if ((Q.early || ada_rt.rings_only ||
		     __atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE)) && Q.buf) {
			full = QUEUE_CAP - Q.len < need;
			if (!full) {
				if (encoded)
					memcpy(Q.buf + Q.len, payload, len);
				else
					ada_meta_encode(Q.buf + Q.len, need, type, payload, len, extra,
							extra_len);
				Q.len += need;
				__atomic_store_n(&Q.pending, 1, __ATOMIC_RELEASE);
				done = true;
			}
		}
		pthread_mutex_unlock(&Q.lock);
		if (!full || ada_rt.rings_only || !queue_wait(seen))
			break;
	}
	if (done)
		ada_writer_kick();
	else if (ada_rt.rings_only)
		__atomic_fetch_add(&ada_rt.records_dropped, 1, __ATOMIC_RELAXED);
	return done || ada_rt.rings_only;
}

static int write_encoded(const void *buf, size_t len);

void (*ada_meta_queue_reader)(const uint8_t *buf, size_t len);

void ada_meta_queue_flush(void)
{
	if (!__atomic_load_n(&Q.pending, __ATOMIC_ACQUIRE))
		return;
	queue_lock();
	if (Q.len && ada_meta_queue_reader)
		ada_meta_queue_reader(Q.buf, Q.len);
	if (Q.len)
		write_encoded(Q.buf, Q.len);
	Q.len = 0;
	__atomic_store_n(&Q.pending, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&Q.emptied, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&Q.lock);
	ada_futex_wake(&Q.emptied);
}

void ada_meta_defer(bool on)
{
	Q.early = on;
}

void ada_meta_queue_forget(void)
{
	queue_init(); /* a fork child: the parent may have held the lock */
}

int ada_meta_write(uint32_t type, const void *payload, size_t len, const void *extra,
		   size_t extra_len)
{
	if (queue(type, payload, len, extra, extra_len, false))
		return 0;
	/* The writer's own record after the queue: a module's UNLOAD from its
	 * scan must follow the MODULE a thread queued for it. */
	if (on_writer)
		ada_meta_queue_flush();
	return ada_meta_write_direct(type, payload, len, extra, extra_len);
}

int ada_meta_write_direct(uint32_t type, const void *payload, size_t len, const void *extra,
			  size_t extra_len)
{
	static const uint8_t zeros[8];
	struct ada_meta_rec rec = { .type = type, .size = (uint32_t)(len + extra_len) };
	struct iovec iov[4] = {
		{ &rec, sizeof(rec) },
		{ (void *)payload, len },
		{ (void *)extra, extra_len },
		{ (void *)zeros, (8 - (len + extra_len) % 8) % 8 },
	};
	size_t total = sizeof(rec) + len + extra_len + iov[3].iov_len;
	bool opened;
	int fd = meta_fd_get(&opened);
	ssize_t n = -1;

	if (fd >= 0) {
		do
			n = writev(fd, iov, 4);
		while (n < 0 && errno == EINTR);
	}
	meta_fd_put(fd, opened);
	return n == (ssize_t)total ? 0 : meta_failed(n);
}

size_t ada_meta_encode(uint8_t *buf, size_t cap, uint32_t type, const void *payload, size_t len,
		       const void *extra, size_t extra_len)
{
	struct ada_meta_rec rec = { .type = type, .size = (uint32_t)(len + extra_len) };
	size_t padded = (len + extra_len + 7) & ~(size_t)7, total = sizeof(rec) + padded;

	if (total > cap)
		return 0;
	memcpy(buf, &rec, sizeof(rec));
	memcpy(buf + sizeof(rec), payload, len);
	if (extra_len)
		memcpy(buf + sizeof(rec) + len, extra, extra_len);
	memset(buf + sizeof(rec) + len + extra_len, 0, padded - len - extra_len);
	return total;
}

int ada_meta_write_encoded(const void *buf, size_t len)
{
	if (queue(0, buf, len, NULL, 0, true))
		return 0;
	if (on_writer)
		ada_meta_queue_flush();
	return write_encoded(buf, len);
}

static int write_encoded(const void *buf, size_t len)
{
	bool opened;
	int fd = meta_fd_get(&opened);
	int err = fd < 0 ? -1 : ada_write_all(fd, buf, len);

	meta_fd_put(fd, opened);
	return err < 0 ? meta_failed(-1) : 0;
}
