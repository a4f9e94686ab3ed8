/* writer_files.c - the writer's thread files: raw/thread_<N>.lz4, one per
 * thread that recorded, each drain of its ring appended as one complete LZ4
 * frame (writer.c encodes it), and the THREAD and THREAD_END records that
 * name and close it in process.meta.
 *
 * The files are in the recorder's descriptor table, kept open between
 * frames. A file that cannot be written loses that thread's later frames,
 * counted (no_buffer).
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window.h"
#include "writer.h"

static void thread_file_path(char *buf, size_t len, uint32_t ordinal)
{
	snprintf(buf, len, "%s/thread_%u.lz4", ada_rt.raw_dir, ordinal);
}

/* A thread file that cannot be written: that thread's later frames are
 * counted (no_buffer in its end record), not written. One line, once. */
static void stream_failed(struct ada_thread *td, const char *path, int err)
{
	td->ws->failed = true;
	ada_write_failed("cannot write %s: %s: thread %u's events from then on were lost (counted "
			 "as no_buffer)", path, strerror(err), td->ordinal);
}

/* Closes every thread file the recorder holds (they reopen when written):
 * how many were open. A program of many threads may have more than its
 * RLIMIT_NOFILE, which the recorder inherited. */
static unsigned fds_release(void)
{
	struct ada_thread *td;
	unsigned n = 0;

	for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = td->next)
		if (td->ws && td->ws->fd >= 0) {
			close(td->ws->fd);
			td->ws->fd = -1;
			n++;
		}
	return n;
}

/* A thread file is never 0, 1 or 2 where another number is free: in the
 * writer's own table those are closed, and whatever writes to stderr on
 * this thread (a sanitizer's report, a library's message) would land in the
 * middle of its compressed frames. */
static int above_stdio(int fd)
{
	int high;

	if (fd > 2)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (high < 0)
		return fd; /* RLIMIT_NOFILE 3 or less: the low number it is */
	close(fd);
	return high;
}

/* td's thread file, opened (created) if it is not. With too many open, the
 * others are closed first: a thread file costs a reopen, not events. */
static int stream_fd(struct ada_thread *td, bool create)
{
	struct ada_writer_stream *ws = td->ws;
	int flags = O_WRONLY | O_APPEND | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0);
	char path[4500];

	if (ws->fd >= 0)
		return ws->fd;
	thread_file_path(path, sizeof(path), td->ordinal);
	ws->fd = open(path, flags, 0644);
	if (ws->fd < 0 && (errno == EMFILE || errno == ENFILE) && fds_release())
		ws->fd = open(path, flags, 0644);
	if (ws->fd < 0)
		stream_failed(td, path, errno);
	else
		ws->fd = above_stdio(ws->fd);
	return ws->fd;
}

/* The thread's name as the kernel has it now (pthread_setname_np or prctl);
 * a recorder whose program has ended (its exit does not wait for the
 * recorder) takes the name the program had at its fork. Ended may mean
 * between the open and the read: the read then fails (ESRCH) or reads
 * nothing, and the thread got no name (test_sessions, once under load). */
static void read_comm(uint32_t tid, char name[16])
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", ada_rt.pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, name, 15);
		close(fd);
	}
	while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
		name[--n] = '\0';
	if (n <= 0)
		snprintf(name, 16, "%s", ada_recorder_program_name());
}

struct ada_writer_stream *ada_writer_stream_open(struct ada_thread *td)
{
	struct ada_writer_stream *ws = calloc(1, sizeof(*ws));
	struct ada_meta_thread mt = { .ordinal = td->ordinal, .os_tid = td->os_tid,
				      .start_tsc = td->start_tsc };

	if (!ws)
		return NULL;
	/* A file that cannot be created still gets a stream: its frames are
	 * counted as lost in the thread's end record. The records first: a
	 * recorder killed in between leaves a thread without a file (nothing
	 * written), not a file process.meta does not name. */
	ws->fd = -1;
	td->ws = ws;
	read_comm(td->os_tid, mt.name);
	ada_meta_write(ADA_META_THREAD, &mt, sizeof(mt), NULL, 0);
	if (td->is_stack) {
		struct ada_meta_stack ms = { .ordinal = td->ordinal, .host = td->host_ordinal,
					     .lo = td->stack_lo, .hi = td->stack_lo + td->stack_span };

		ada_meta_write(ADA_META_STACK, &ms, sizeof(ms), NULL, 0);
	}
	stream_fd(td, true);
	ada_w.streams++;
	return ws;
}

/* New fids go to process.meta before any frame that uses them. */
void ada_writer_flush_fids(void)
{
	struct ada_fdict *d = &ada_w.dict;
	struct ada_meta_funcs mf = { .first_fid = d->pending_first, .count = (uint32_t)d->npending };

	if (!d->npending)
		return;
	ada_meta_write(ADA_META_FUNCS, &mf, sizeof(mf), d->pending, d->npending * sizeof(uint64_t));
	d->pending_first += (uint32_t)d->npending;
	d->npending = 0;
}

int ada_writer_write_frame(struct ada_thread *td, size_t len)
{
	struct ada_writer_stream *ws = td->ws;
	char path[4500];
	int fd, err;
	size_t total = ada_frame_compress(ada_w.cctx, &ada_w.prefs, ada_w.enc_buf, len, ada_w.lz4_buf, ada_w.lz4_cap);

	if (LZ4F_isError(total))
		goto lz4_fail;
	fd = stream_fd(td, false);
	if (fd < 0)
		return -1;
	if (ada_write_all(fd, ada_w.lz4_buf, total) < 0) {
		/* A part of the frame (disk full, RLIMIT_FSIZE) would make the
		 * rest of the file unreadable: cut it off. */
		err = errno;
		if (ftruncate(fd, ws->size) < 0)
			err = errno;
		thread_file_path(path, sizeof(path), td->ordinal);
		stream_failed(td, path, err);
		return -1;
	}
	ws->size += (off_t)total;
	return 0;
lz4_fail:
	ada_warn("lz4 compression failed: %s", LZ4F_getErrorName(total));
	return -1;
}

void ada_writer_thread_end(struct ada_thread *td, uint32_t flags)
{
	struct ada_writer_stream *ws = td->ws;
	/* Acquire: a thread that ended stored its end time before it said so;
	 * one still running (a final flush) ends here. Its counters are its
	 * own to write: read atomically, as they are being written. */
	bool ended = __atomic_load_n(&td->exited, __ATOMIC_ACQUIRE) && td->end_tsc;
	struct ada_meta_thread_end te = { .ordinal = td->ordinal, .flags = flags,
					  .end_tsc = ended ? td->end_tsc : ada_arch_ticks() };
	unsigned r;

	for (r = 0; r < ADA_DROP_NREASONS; r++)
		te.dropped[r] = __atomic_load_n(&td->rh->dropped[r], __ATOMIC_RELAXED);
	te.waits = __atomic_load_n(&td->rh->waits, __ATOMIC_RELAXED);
	te.wait_ns = __atomic_load_n(&td->rh->wait_ns, __ATOMIC_RELAXED);
	te.samples = __atomic_load_n(&td->rh->samples, __ATOMIC_RELAXED);
	for (r = 0; r < ADA_SAMPLE_LOST_NREASONS; r++)
		te.samples_lost[r] = __atomic_load_n(&td->rh->samples_lost[r], __ATOMIC_RELAXED);
	if (ws) {
		te.dropped[ADA_DROP_NO_BUFFER] += ws->write_lost;
		te.dropped[ADA_DROP_DETAIL_FULL] += ws->details_skipped;
	}
	te.events = ws ? ws->events : 0;
	if (td->windows) /* their records come before the thread's end */
		ada_window_close(td, td->windows, td->rh->tail, true);
	ada_meta_write(ADA_META_THREAD_END, &te, sizeof(te), NULL, 0);
	for (r = 0; r < ADA_DROP_NREASONS; r++)
		ada_w.totals[r] += te.dropped[r];
	ada_w.kept += te.events;
	ada_w.waits += te.waits;
	ada_w.wait_ns += te.wait_ns;
}

void ada_writer_stream_close(struct ada_thread *td)
{
	if (!td->ws)
		return;
	if (td->ws->fd >= 0)
		close(td->ws->fd);
	ada_enc_stream_free(&td->ws->enc);
	free(td->ws);
	td->ws = NULL;
}
