/* fuzz_atf.c - libFuzzer target: the ATF reader, the validator and the
 * views (symbolize/atf_reader.c, atf_check.c, view_replay.c, view_dump.c), as
 * `ada-symbolize --check`, `--replay` and `--dump-stack` read a converted
 * process: manifest.json, thread_0/index.atf, thread_0/detail.atf. The views
 * run whatever the validator said: `--replay` alone does not validate.
 *
 * Input (fuzz_input.h): a flag byte, then manifest.json and index.atf as
 * length-prefixed parts, then detail.atf (no file when empty). Flag bit 0
 * (index) and bit 1 (detail) make the harness write the file's footer CRC
 * over its events section first, as the writer does: mutations then reach
 * the event and record checks instead of dying at the CRC.
 */
#include <stdint.h>

#include "atf.h"
#include "check.h"
#include "fuzz_input.h"
#include "views.h"

/* The CRC at footer offset 4, over the bytes between header and footer. */
static void fix_crc(uint8_t *p, size_t len)
{
	uint32_t crc;

	if (len < ATF_HEADER_SIZE + ATF_FOOTER_SIZE)
		return;
	crc = atf_crc32(0, p + ATF_HEADER_SIZE, len - ATF_HEADER_SIZE - ATF_FOOTER_SIZE);
	for (int i = 0; i < 4; i++)
		p[len - ATF_FOOTER_SIZE + 4 + (size_t)i] = (uint8_t)(crc >> 8 * i);
}

/* The part as a file of dir, its CRC written when fix. */
static void write_part(const char *dir, const char *name, const uint8_t *p, size_t len, int fix)
{
	uint8_t *copy = malloc(len + 1);

	if (!copy)
		abort();
	memcpy(copy, p, len);
	if (fix)
		fix_crc(copy, len);
	fuzz_write(dir, name, copy, len);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *tdir;
	char pid_dir[512], detail[600];
	struct fuzz_input in = { data, size };
	const uint8_t *manifest, *index, *det;
	size_t manifest_len, index_len, det_len;
	const struct ada_dump_options dump = { .stack = true };
	uint8_t flags;
	int violations;
	FILE *out;

	if (!tdir)
		tdir = fuzz_dir("pid_1/thread_0");
	flags = fuzz_byte(&in);
	fuzz_take(&in, 0, &manifest, &manifest_len);
	fuzz_take(&in, 0, &index, &index_len);
	fuzz_take(&in, 1, &det, &det_len);
	snprintf(pid_dir, sizeof(pid_dir), "%.*s", (int)(strrchr(tdir, '/') - tdir), tdir);
	snprintf(detail, sizeof(detail), "%s/detail.atf", tdir);
	fuzz_write(pid_dir, "manifest.json", manifest, manifest_len);
	write_part(tdir, "index.atf", index, index_len, flags & 1);
	unlink(detail);
	if (det_len)
		write_part(tdir, "detail.atf", det, det_len, flags & 2);
	out = fopen("/dev/null", "w");
	if (!out)
		abort();
	(void)ada_check_path(pid_dir, out, &violations);
	(void)ada_view_replay(pid_dir, out);
	(void)ada_view_dump(pid_dir, &dump, out);
	fclose(out);
	return 0;
}
