/* atf_sink.c - buffers of ATF bytes checksummed and written to their file.
 *
 * An index-only conversion spent about half its time outside the decoding:
 * the kernel's copy of the bytes into the page cache (32 bytes an event,
 * 640 MB for 20 M events) and the CRC-32 of them. Both run here on a thread
 * of the sink's own, beside the thread that decodes and serializes, so a
 * conversion takes the longer of the two instead of their sum. The thread
 * starts when the first buffer fills: a small file (under 256 KiB) is written
 * at close by the caller, and a trace of a thousand short threads does not
 * start a thousand threads.
 *
 * Buffers go round a ring of ATF_SINK_NBUF: the writer fills one while the
 * flusher writes the ones handed over before, in order, so the CRC and the
 * file are the same as written synchronously. The writer waits only when
 * every other buffer is still queued (the disk slower than the decoding).
 * After an error the flusher drops what it is handed; the writer sees the
 * sticky error at its next hand-over and stops.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atf.h"
#include "atf_sink.h"

int atf_write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int atf_sink_fail(struct atf_sink *s, int err)
{
	int none = 0;

	if (__atomic_compare_exchange_n(&s->err, &none, err, false, __ATOMIC_RELAXED,
					__ATOMIC_RELAXED))
		fprintf(stderr, "ada-symbolize: %s: %s\n", s->path, strerror(-err));
	return __atomic_load_n(&s->err, __ATOMIC_RELAXED);
}

static uint8_t *sink_buf(struct atf_sink *s, uint64_t n)
{
	return s->bufs + (size_t)(n % ATF_SINK_NBUF) * ATF_SINK_BUF;
}

/* Checksums and writes one buffer: on the flusher once it started, on the
 * writer's thread before (and after it was joined). */
static void write_out(struct atf_sink *s, const uint8_t *p, size_t n)
{
	int err;

	if (!n || __atomic_load_n(&s->err, __ATOMIC_RELAXED))
		return;
	s->crc = atf_crc32(s->crc, p, n);
	err = atf_write_all(s->fd, p, n);
	if (err)
		atf_sink_fail(s, err);
	else
		s->bytes += n;
}

static void *flusher(void *arg)
{
	struct atf_sink *s = arg;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (s->flushed == s->filled && !s->closing)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->flushed == s->filled)
			break; /* closing, and nothing left */
		uint64_t i = s->flushed;
		size_t n = s->lens[i % ATF_SINK_NBUF];

		pthread_mutex_unlock(&s->mu);
		write_out(s, sink_buf(s, i), n);
		pthread_mutex_lock(&s->mu);
		s->flushed++;
		pthread_cond_broadcast(&s->cv); /* the writer may wait for a free buffer */
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct atf_sink *atf_sink_open(const char *path)
{
	static const uint8_t placeholder[ATF_HEADER_SIZE];
	struct atf_sink *s = calloc(1, sizeof(*s));
	int err;

	/* Untouched pages of the ring cost nothing: a small file uses one. */
	if (!s || !(s->path = strdup(path)) ||
	    !(s->bufs = malloc((size_t)ATF_SINK_NBUF * ATF_SINK_BUF))) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, strerror(ENOMEM));
		if (s)
			free(s->path);
		free(s);
		return NULL;
	}
	s->buf = s->bufs;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	err = s->fd < 0 ? -errno : atf_write_all(s->fd, placeholder, sizeof(placeholder));
	if (err) {
		atf_sink_fail(s, err);
		if (s->fd >= 0)
			close(s->fd);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
		free(s->bufs);
		free(s->path);
		free(s);
		return NULL;
	}
	return s;
}

int atf_sink_flush(struct atf_sink *s)
{
	/* The first full buffer starts the flusher; if no thread can be had,
	 * every buffer is written here, as before there was one. */
	if (!s->tried) {
		s->tried = true;
		s->started = pthread_create(&s->thread, NULL, flusher, s) == 0;
	}
	if (!s->started) {
		write_out(s, s->buf, s->len);
		s->len = 0;
		return __atomic_load_n(&s->err, __ATOMIC_RELAXED);
	}
	pthread_mutex_lock(&s->mu);
	s->lens[s->filled % ATF_SINK_NBUF] = s->len;
	s->filled++;
	pthread_cond_broadcast(&s->cv);
	while (s->filled - s->flushed >= ATF_SINK_NBUF)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	s->buf = sink_buf(s, s->filled);
	s->len = 0;
	return __atomic_load_n(&s->err, __ATOMIC_RELAXED);
}

void atf_sink_drain(struct atf_sink *s)
{
	if (!s->started) {
		write_out(s, s->buf, s->len);
		s->len = 0;
		return;
	}
	if (s->len)
		atf_sink_flush(s);
	pthread_mutex_lock(&s->mu);
	s->closing = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
}

static int patch_header(int fd, const uint8_t header[ATF_HEADER_SIZE])
{
	ssize_t k;

	do
		k = pwrite(fd, header, ATF_HEADER_SIZE, 0);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	return k == ATF_HEADER_SIZE ? 0 : -EIO;
}

/* The partial file is removed on any failure: it could only fail validation
 * later. */
int atf_sink_close(struct atf_sink *s, const uint8_t header[ATF_HEADER_SIZE],
		   const uint8_t footer[ATF_FOOTER_SIZE])
{
	int err = s->err;

	if (!err)
		err = atf_write_all(s->fd, footer, ATF_FOOTER_SIZE);
	if (!err)
		err = patch_header(s->fd, header);
	if (close(s->fd) && !err)
		err = -errno;
	if (err) {
		atf_sink_fail(s, err);
		unlink(s->path);
	}
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->bufs);
	free(s->path);
	free(s);
	return err;
}
