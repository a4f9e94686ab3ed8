/* meta.c - raw/process.meta: a record log of everything but the events.
 *
 * Records are appended with one writev() each on an O_APPEND descriptor, so
 * a record is never interleaved with another and a crash leaves at most the
 * last one cut short (the reader stops there).
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ada_internal.h"

static int meta_fd = -1;

int ada_meta_open(const char *raw_dir)
{
	struct ada_meta_file_header h = { .version = ADA_RAW_VERSION, .arch = ADA_ARCH_ID,
					  .endian = 1, .header_size = sizeof(h) };
	char path[4500];

	/* The sizes RAW_FORMAT.md gives. */
	_Static_assert(sizeof(struct ada_meta_file_header) == 16, "meta header");
	_Static_assert(sizeof(struct ada_meta_rec) == 8, "record header");
	_Static_assert(sizeof(struct ada_meta_process) == 48, "PROCESS");
	_Static_assert(sizeof(struct ada_meta_clock) == 24, "CLOCK");
	_Static_assert(sizeof(struct ada_meta_module) == 72, "MODULE");
	_Static_assert(sizeof(struct ada_meta_unload) == 16, "UNLOAD");
	_Static_assert(sizeof(struct ada_meta_funcs) == 8, "FUNCS");
	_Static_assert(sizeof(struct ada_meta_thread) == 32, "THREAD");
	_Static_assert(sizeof(struct ada_meta_thread_end) == 40 + 8 * ADA_DROP_NREASONS, "THREAD_END");
	_Static_assert(sizeof(struct ada_meta_crash) == 32, "CRASH");
	_Static_assert(sizeof(struct ada_meta_recovered) == 32, "RECOVERED");
	_Static_assert(sizeof(struct ada_meta_ring) == 8, "RING");
	_Static_assert(sizeof(struct ada_ring_header) == 256, "ring header");
	_Static_assert(offsetof(struct ada_ring_header, head) == 64, "ring head");
	_Static_assert(offsetof(struct ada_ring_header, tail) == 192, "ring tail");
	_Static_assert(sizeof(struct ada_meta_latency) == 16 + 4 * ADA_LATENCY_BUCKETS, "LATENCY");
	memcpy(h.magic, ADA_META_MAGIC, sizeof(h.magic));
	snprintf(path, sizeof(path), "%s/process.meta", raw_dir);
	meta_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (meta_fd < 0) {
		ada_warn("cannot create %s: %s; tracing off", path, strerror(errno));
		return -errno;
	}
	return ada_write_all(meta_fd, &h, sizeof(h));
}

void ada_meta_close(void)
{
	if (meta_fd >= 0)
		close(meta_fd);
	meta_fd = -1;
}

int ada_meta_write(uint32_t type, const void *payload, size_t len, const void *extra,
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
	ssize_t n;

	if (meta_fd < 0)
		return -EBADF;
	do
		n = writev(meta_fd, iov, 4);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)total) {
		ada_warn("short write to process.meta: %s", n < 0 ? strerror(errno) : "disk full?");
		return -EIO;
	}
	return 0;
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
	if (meta_fd < 0)
		return -EBADF;
	return ada_write_all(meta_fd, buf, len);
}
