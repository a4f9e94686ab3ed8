/* crc32.c - the checksum of ATF footers: zlib's CRC-32 (reflected poly
 * 0xEDB88320, init and xorout 0xFFFFFFFF), computed by ISA-L.
 *
 * ISA-L's crc32_gzip_refl is the same function (same check value, same
 * chaining: pass the previous result to continue) folded with carry-less
 * multiplication, the instruction set picked when the library loads. It
 * measured 11.5 GB/s here against 3.7 for zlib's crc32_z, which it replaces:
 * the checksum was 16-20 % of a conversion.
 */
#include <isa-l/crc.h>

#include "atf.h"

uint32_t atf_crc32(uint32_t crc, const void *buf, size_t n)
{
	return crc32_gzip_refl(crc, buf, n);
}
