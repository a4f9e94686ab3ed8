/* fuzz_raw.c - libFuzzer target: the raw-trace reader (symbolize/raw_meta.c,
 * raw_stream.c, clock_map.c), as ada-symbolize reads a process's
 * process.meta and its thread 0 file.
 *
 * Input (fuzz_input.h): a flag byte, then process.meta as a length-prefixed
 * part, then thread_0.lz4. With flag bit 0 the thread part is the
 * decompressed event stream instead, which the harness cuts into frames
 * where a SYNC is followed by POS (the writer's frame start) and compresses
 * one LZ4 frame each, with a content checksum as the writer does: mutations
 * then reach the event decoder instead of dying at the checksum.
 */
#include <lz4frame.h>
#include <stdint.h>

#include "fuzz_input.h"
#include "raw.h"

#define SYNC_TAG (ADA_RAW_CONTROL | ADA_CTL_SYNC << 2)
#define POS_TAG (ADA_RAW_CONTROL | ADA_CTL_POS << 2)

static void write_frames(const char *dir, const uint8_t *p, size_t len)
{
	LZ4F_preferences_t prefs = { .frameInfo = { .blockMode = LZ4F_blockIndependent,
						    .contentChecksumFlag = LZ4F_contentChecksumEnabled } };
	char path[512];
	size_t start = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/thread_0.lz4", dir);
	if (!(f = fopen(path, "wb")))
		abort();
	for (i = 1; i <= len; i++) {
		size_t cap, n;
		uint8_t *out;

		if (i < len && !(p[i] == SYNC_TAG && i + 9 < len && p[i + 9] == POS_TAG))
			continue;
		cap = LZ4F_compressFrameBound(i - start, &prefs);
		out = malloc(cap);
		n = out ? LZ4F_compressFrame(out, cap, p + start, i - start, &prefs) : 0;
		if (!out || LZ4F_isError(n) || fwrite(out, 1, n, f) != n)
			abort();
		free(out);
		start = i;
	}
	if (fclose(f))
		abort();
}

/* Everything convert.c asks of a stream, with its times converted. */
static void read_thread(struct raw_process *p, const char *dir)
{
	const struct raw_thread *t = raw_process_thread(p, 0);
	struct raw_stream *s = raw_stream_open(dir, 0, p->nfids, p->version);
	struct clock_map clock;
	struct raw_event ev[64];
	size_t seg = 0;
	uint64_t pos, sum = 0;
	int r;

	if (!s)
		return;
	clock_map_init(&clock, p);
	(void)clock_map_ns_per_tick(&clock);
	if (t && t->recovered)
		raw_stream_allow_gap(s, t->rec.lost);
	/* In batches, as the views read (raw_stream_read; its slow path is
	 * raw_stream_next). */
	while ((r = raw_stream_read(s, ev, sizeof(ev) / sizeof(ev[0]))) > 0) {
		for (int i = 0; i < r; i++) {
			sum += clock_map_ns(&clock, ev[i].tsc, &seg) + p->fid_addr[ev[i].fid];
			if (ev[i].detail)
				for (unsigned k = 0; k < ev[i].detail->stack_size; k++)
					sum += ev[i].stack[k];
		}
	}
	if (r == 0 && t)
		(void)raw_stream_verify(s, p, t);
	(void)raw_stream_position(s, &pos);
	for (unsigned d = raw_stream_open_frames(s); d; d--)
		sum += p->fid_addr[raw_stream_pop(s)];
	(void)raw_process_hooked_name(p, sum);
	raw_stream_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *dir;
	struct fuzz_input in = { data, size };
	const uint8_t *meta, *thread;
	size_t meta_len, thread_len;
	struct raw_process p;
	uint8_t flags;

	if (!dir)
		dir = fuzz_dir("pid_1/raw");
	flags = fuzz_byte(&in);
	fuzz_take(&in, 0, &meta, &meta_len);
	fuzz_take(&in, 1, &thread, &thread_len);
	fuzz_write(dir, "process.meta", meta, meta_len);
	if (flags & 1)
		write_frames(dir, thread, thread_len);
	else
		fuzz_write(dir, "thread_0.lz4", thread, thread_len);
	if (raw_process_load(dir, &p) == 0) {
		read_thread(&p, dir);
		raw_process_free(&p);
	}
	return 0;
}
