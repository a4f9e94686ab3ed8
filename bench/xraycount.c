/* xraycount.c - count the function events in LLVM XRay log files.
 *
 *   xraycount FILE...
 *
 * Prints "events <n> records <r> bytes <b>" to stdout: n function entries and
 * exits (tail exits included) over every FILE, r records of any kind, b the
 * files' size. Reads the two formats compiler-rt 14 writes (llvm/docs/
 * XRayFDRFormat.rst, compiler-rt/include/xray/xray_records.h):
 *
 *   every file   a 32-byte header: u16 version, u16 type (0 basic, 1 FDR),
 *                u32 flags, u64 cycle frequency, 16 bytes of mode data
 *   basic        32-byte records: u16 record type (0 a function event, 1 an
 *                argument payload), u8 cpu, u8 entry type, i32 function id,
 *                u64 tsc, u32 tid, u32 pid, 8 bytes of padding
 *   FDR (v5)     per buffer: a BufferExtents metadata record (16 bytes, its
 *                first u64 of data the buffer's length), then that many
 *                bytes of records. A metadata record is 16 bytes, bit 0 of
 *                its first byte set, its kind in the other 7 bits; custom
 *                and typed event markers (kinds 5 and 8) are followed by
 *                their payload (i32 size in the data). A function record is
 *                8 bytes, bit 0 clear, bits 1-3 its kind (0 entry, 1 exit,
 *                2 tail exit, 3 entry with arguments).
 *
 * Exits 1 on a file it cannot read or parse. bench/run.sh checks the count
 * once against `llvm-xray convert` on a short run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HEADER = 32, BASIC_RECORD = 32, META = 16, FUNC = 8 };
enum { KIND_CUSTOM = 5, KIND_EXTENTS = 7, KIND_TYPED = 8 };

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			unsigned char *p;

			cap = cap ? 2 * cap : 1 << 20;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

/* The records of one FDR buffer, buf[0..len): -1 if malformed. */
static int fdr_buffer(const unsigned char *buf, size_t len, uint64_t *events, uint64_t *records)
{
	size_t i = 0;

	while (i < len) {
		if (!(buf[i] & 1)) {
			if (i + FUNC > len)
				return -1;
			if (((buf[i] >> 1) & 7) <= 3)
				(*events)++;
			i += FUNC;
		} else {
			int kind = buf[i] >> 1;
			int32_t size = 0;

			if (i + META > len)
				return -1;
			if (kind == KIND_CUSTOM || kind == KIND_TYPED) {
				memcpy(&size, buf + i + 1, sizeof(size));
				if (size < 0)
					return -1;
			}
			i += META + (size_t)size;
		}
		(*records)++;
	}
	return i == len ? 0 : -1;
}

static int count(const char *path, uint64_t *events, uint64_t *records, uint64_t *bytes)
{
	size_t len, i;
	uint16_t type;
	unsigned char *buf = slurp(path, &len);
	int rc = -1;

	if (!buf || len < HEADER)
		goto out;
	*bytes += len;
	memcpy(&type, buf + 2, sizeof(type));
	if (type == 0) { /* basic */
		if ((len - HEADER) % BASIC_RECORD)
			goto out;
		for (i = HEADER; i < len; i += BASIC_RECORD) {
			uint16_t rt;

			memcpy(&rt, buf + i, sizeof(rt));
			*events += rt == 0;
			(*records)++;
		}
		rc = 0;
	} else if (type == 1) { /* FDR: buffer after buffer */
		for (i = HEADER; i < len;) {
			uint64_t extents;

			if (i + META > len || !(buf[i] & 1) || buf[i] >> 1 != KIND_EXTENTS)
				goto out;
			memcpy(&extents, buf + i + 1, sizeof(extents));
			i += META;
			(*records)++;
			if (extents > len - i || fdr_buffer(buf + i, extents, events, records))
				goto out;
			i += extents;
		}
		rc = 0;
	}
out:
	if (rc)
		fprintf(stderr, "xraycount: %s: cannot read or parse\n", path);
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t events = 0, records = 0, bytes = 0;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: xraycount FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (count(argv[i], &events, &records, &bytes))
			return 1;
	printf("events %llu records %llu bytes %llu\n", (unsigned long long)events,
	       (unsigned long long)records, (unsigned long long)bytes);
	return 0;
}
