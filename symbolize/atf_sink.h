/* atf_sink.h - where the ATF writers' bytes go (atf_sink.c).
 *
 * A writer serializes records into the sink's current buffer (buf, len) and
 * hands it over when full; the sink checksums the events section and writes
 * it to the file, on a thread of its own once the file outgrows one buffer.
 * Internal to atf_writer.c and atf_sink.c.
 */
#ifndef ADA_ATF_SINK_H
#define ADA_ATF_SINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ATF_SINK_BUF (256 * 1024) /* bytes a buffer holds */
#define ATF_SINK_NBUF 8           /* buffers: one filling, the rest queued or writing */

struct atf_sink {
	/* The writer's side: the buffer being filled. */
	uint8_t *buf;
	size_t len;
	int err; /* first error, sticky (atomic: the flusher sets it too) */

	/* Known to the writer once atf_sink_drain returned: the events
	 * section's CRC-32 and length. */
	uint32_t crc;
	uint64_t bytes;

	int fd;
	char *path;
	uint8_t *bufs; /* ATF_SINK_NBUF buffers of ATF_SINK_BUF bytes */
	size_t lens[ATF_SINK_NBUF];
	uint64_t filled;  /* buffers handed over */
	uint64_t flushed; /* buffers written (or dropped after an error) */
	bool tried, started, closing; /* the flusher: tried to start, running, told to end */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* Opens (truncates) path and writes the 64-byte header's placeholder; NULL
 * after printing the error. */
struct atf_sink *atf_sink_open(const char *path);

/* Hands the full buffer over and gives the writer the next one; returns the
 * sticky error, if any. */
int atf_sink_flush(struct atf_sink *s);

/* Room for n more bytes in the current buffer (n <= ATF_SINK_BUF), or the
 * sticky error. */
static inline int atf_sink_reserve(struct atf_sink *s, size_t n)
{
	int err = __atomic_load_n(&s->err, __ATOMIC_RELAXED);

	if (__builtin_expect(err != 0, 0))
		return err;
	if (__builtin_expect(s->len + n > ATF_SINK_BUF, 0))
		return atf_sink_flush(s);
	return 0;
}

/* Records the first error (printing it, with the path) and returns it. */
int atf_sink_fail(struct atf_sink *s, int err);

/* Writes what is buffered and waits until everything is on the file: crc
 * and bytes are final after it. */
void atf_sink_drain(struct atf_sink *s);

/* After atf_sink_drain: appends the footer, patches the header, closes and
 * frees. On any failure the partial file is removed. */
int atf_sink_close(struct atf_sink *s, const uint8_t header[64], const uint8_t footer[64]);

#endif
