/* frame.h - one drain's encoded bytes → one complete LZ4 frame.
 *
 * The writer (writer_files.c) and the encoder's benchmark (bench/encbench.c)
 * compress through these, so the benchmark measures the frames the recorder
 * writes, with its settings.
 */
#ifndef ADA_FRAME_H
#define ADA_FRAME_H

#include <lz4frame.h>
#include <stddef.h>

/* The frame settings: the preferences LZ4F_compressBegin is given. */
void ada_frame_prefs(LZ4F_preferences_t *prefs);
/* Compresses src[0, len) into one whole frame at dst (cap bytes, at least
 * LZ4F_compressBound(len, prefs) + LZ4F_HEADER_SIZE_MAX): its size, or an
 * lz4 error code (LZ4F_isError). */
size_t ada_frame_compress(LZ4F_cctx *cctx, const LZ4F_preferences_t *prefs, const void *src,
			  size_t len, void *dst, size_t cap);

#endif
