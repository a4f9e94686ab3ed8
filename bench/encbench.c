/* encbench.c - the recorder's encoder and lz4 frames on a fixed input.
 *
 *   encbench capture RAWDIR [ORDINAL] > FILE.slots
 *   encbench FILE.slots [OUT.enc]
 *
 * Why: the recorder's cost per event depends on the events' timestamps (a
 * delta that fits the tag's six spare bits costs no varint), and under
 * callgrind a traced program runs ~50 times slower, so its deltas, its
 * encoded bytes (3.0 an event against 1.5 natively on bench/micro.c) and
 * the encoder's instructions are not the native ones. A trace recorded
 * natively is the fixed input instead: `capture` reads one thread of it
 * (thread 0 by default) back into the ring slots the program wrote (16
 * bytes each: its tick, its address word; a close's address is its frame's,
 * as the hooks write it; ALLOC, SAMPLE and BLOCK records and detail flags
 * are left out), and the second form runs the recorder's path over them:
 * drains of 65536 slots (writer.c's DRAIN_MAX), each a SYNC and POS, the
 * slots through ada_encode_slots, and one LZ4 frame (frame.c, the writer's
 * settings). It prints the events, bytes an event encoded and compressed,
 * and the encoder's and lz4's ns an event (clock_gettime around each, this
 * process's CPU); OUT.enc gets the encoded bytes of every drain, to compare
 * an encoder's output with another's (cmp). Count its instructions with
 * callgrind (ada_encode_slots and the LZ4F_ functions, inclusive), time it
 * with farm-bench.
 *
 * Built by `make ADA_INNER=1 build/bench/encbench`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "encode.h"
#include "frame.h"
#include "raw.h"

#define DRAIN 65536

static int capture(const char *dir, uint32_t ordinal)
{
	struct raw_process p;
	struct raw_stream *s;
	struct raw_event ev[RAW_READ_MAX];
	int n, i;

	if (raw_process_load(dir, &p) < 0)
		return 1;
	s = raw_stream_open(dir, ordinal, p.nfids, p.version);
	if (!s)
		return 1;
	while ((n = raw_stream_read(s, ev, RAW_READ_MAX)) > 0)
		for (i = 0; i < n; i++) {
			struct ada_slot slot = { .tsc = ev[i].tsc };

			if (ev[i].kind > ADA_RAW_EXCEPTION || !ev[i].fid || ev[i].fid > p.nfids)
				continue;
			slot.word = p.fid_addr[ev[i].fid] | (uint64_t)ev[i].kind << 62;
			if (fwrite(&slot, sizeof(slot), 1, stdout) != 1)
				return 1;
		}
	raw_stream_close(s);
	raw_process_free(&p);
	return n < 0 || fflush(stdout) ? 1 : 0;
}

static uint64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static struct ada_slot *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	struct ada_slot *slots;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	*n = (size_t)len / sizeof(*slots);
	slots = malloc(*n * sizeof(*slots) + 1);
	if (!slots || fread(slots, sizeof(*slots), *n, f) != *n)
		return NULL;
	fclose(f);
	return slots;
}

static int run(const char *path, const char *out_path)
{
	struct ada_enc_stream enc = { 0 };
	struct ada_fdict dict;
	LZ4F_preferences_t prefs;
	LZ4F_cctx *cctx;
	size_t n = 0, i, enc_cap = ada_encode_bound(DRAIN), lz4_cap;
	uint64_t enc_bytes = 0, lz4_bytes = 0, enc_ns = 0, lz4_ns = 0;
	struct ada_slot *slots = load(path, &n);
	uint8_t *buf, *lz4;
	FILE *out = out_path ? fopen(out_path, "wb") : NULL;

	ada_frame_prefs(&prefs);
	lz4_cap = LZ4F_compressBound(enc_cap, &prefs) + LZ4F_HEADER_SIZE_MAX;
	buf = malloc(enc_cap);
	lz4 = malloc(lz4_cap);
	if (!slots || !buf || !lz4 || (out_path && !out) || ada_fdict_init(&dict) < 0 ||
	    LZ4F_isError(LZ4F_createCompressionContext(&cctx, LZ4F_VERSION))) {
		fprintf(stderr, "encbench: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i += DRAIN) {
		size_t k = n - i < DRAIN ? n - i : DRAIN, len, z;
		uint64_t t0 = cpu_ns(), t1, t2;

		len = ada_encode_sync(&enc, slots[i].tsc, i, buf);
		z = ada_encode_slots(&enc, &dict, slots + i, k, buf + len, NULL);
		if (z == (size_t)-1)
			return 1;
		len += z;
		t1 = cpu_ns();
		z = ada_frame_compress(cctx, &prefs, buf, len, lz4, lz4_cap);
		t2 = cpu_ns();
		if (LZ4F_isError(z))
			return 1;
		enc_ns += t1 - t0;
		lz4_ns += t2 - t1;
		enc_bytes += len;
		lz4_bytes += z;
		if (out && fwrite(buf, 1, len, out) != len)
			return 1;
	}
	if (out && fclose(out))
		return 1;
	printf("events %zu mismatches %llu encoded %.3f B/event lz4 %.3f B/event encode %.2f ns/event lz4 %.2f ns/event\n",
	       n, (unsigned long long)enc.mismatches, (double)enc_bytes / (double)n,
	       (double)lz4_bytes / (double)n, (double)enc_ns / (double)n, (double)lz4_ns / (double)n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "capture"))
		return capture(argv[2], argc == 4 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0);
	if (argc == 2 || argc == 3)
		return run(argv[1], argc == 3 ? argv[2] : NULL);
	fprintf(stderr, "usage: encbench capture RAWDIR [ORDINAL] > FILE.slots\n"
			"       encbench FILE.slots [OUT.enc]\n");
	return 2;
}
