/* crc32.c - zlib's CRC-32 (reflected poly 0xEDB88320, init and xorout
 * 0xFFFFFFFF), the checksum of ATF footers.
 *
 * Slicing-by-8: eight 256-entry tables let the loop fold 8 input bytes per
 * step with independent lookups, about 1 cycle per byte, so checksumming a
 * 32-byte index event costs a few nanoseconds next to the ~100 ns budget the
 * symbolizer has per event.
 */
#include <stddef.h>
#include <stdint.h>

#include "atf.h"

#define CRC32_POLY 0xEDB88320u

/* crc_table[0] is the classic byte-at-a-time table; crc_table[k][b] is the
 * CRC of byte b followed by k zero bytes, which is what slicing needs. */
static uint32_t crc_table[8][256];

/* Built once at load time, before any thread can call atf_crc32: no lazy
 * check on the hot path and no race. */
__attribute__((constructor)) static void crc32_init(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int bit = 0; bit < 8; bit++)
			c = (c & 1) ? (c >> 1) ^ CRC32_POLY : c >> 1;
		crc_table[0][b] = c;
	}
	for (int k = 1; k < 8; k++)
		for (uint32_t b = 0; b < 256; b++) {
			uint32_t prev = crc_table[k - 1][b];
			crc_table[k][b] = (prev >> 8) ^ crc_table[0][prev & 0xFF];
		}
}

/* Byte-wise so it is right on any host; compilers fold it into one load. */
static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint32_t atf_crc32(uint32_t crc, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	crc = ~crc;
	for (; n >= 8; p += 8, n -= 8) {
		uint32_t lo = load_le32(p) ^ crc;
		uint32_t hi = load_le32(p + 4);
		crc = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^
		      crc_table[5][(lo >> 16) & 0xFF] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xFF] ^ crc_table[2][(hi >> 8) & 0xFF] ^
		      crc_table[1][(hi >> 16) & 0xFF] ^ crc_table[0][hi >> 24];
	}
	for (; n; p++, n--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p) & 0xFF];
	return ~crc;
}
