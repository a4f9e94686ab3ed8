/* frame.c - one drain's encoded bytes → one complete LZ4 frame (frame.h). */
#include <stdint.h>
#include <string.h>

#include "frame.h"

void ada_frame_prefs(LZ4F_preferences_t *prefs)
{
	memset(prefs, 0, sizeof(*prefs));
	prefs->frameInfo.blockSizeID = LZ4F_max1MB;
	prefs->frameInfo.blockMode = LZ4F_blockIndependent;
	/* A checksum of each block as stored (xxHash32), not of the content:
	 * a byte of the file damaged is found all the same, and the stored
	 * bytes are 2-3 times fewer than the encoded ones (xxHash costs ~2
	 * instructions a byte): 13.0 -> 10.5 lz4 instructions an event on
	 * bench/micro.c's stream, 23.3 -> 20.3 on Lua's (bench/encbench.c,
	 * same bytes an event). What it does not see is lz4 itself compressing
	 * wrongly. */
	prefs->frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
	/* lz4's fast acceleration 4 (a negative level): the writer's CPU is the
	 * program's too. Lua 5.4's workload (issue 22, callgrind): 163 -> 117
	 * writer instructions an event for 14.5 % more bytes (1.45 -> 1.66 an
	 * event); bench/micro.c's regular stream, 0.4 % more. */
	prefs->compressionLevel = -4;
	/* Each drain's input is compressed whole, straight into the caller's
	 * buffer: with autoFlush lz4 keeps no block buffer of its own, which it
	 * otherwise allocates and zeroes anew (1 MiB) for every frame, since
	 * LZ4F_compressEnd forgets it: ~1 M instructions a drain. */
	prefs->autoFlush = 1;
}

size_t ada_frame_compress(LZ4F_cctx *cctx, const LZ4F_preferences_t *prefs, const void *src,
			  size_t len, void *dst, size_t cap)
{
	uint8_t *out = dst;
	size_t total, n = LZ4F_compressBegin(cctx, out, cap, prefs);

	if (LZ4F_isError(n))
		return n;
	total = n;
	n = LZ4F_compressUpdate(cctx, out + total, cap - total, src, len, NULL);
	if (LZ4F_isError(n))
		return n;
	total += n;
	n = LZ4F_compressEnd(cctx, out + total, cap - total, NULL);
	if (LZ4F_isError(n))
		return n;
	return total + n;
}
