/* fuzz_input.h - what the libFuzzer harnesses share: an input cut into
 * files, and a scratch directory to write them in.
 *
 * An input holding several files gives each but the last as a 4-byte
 * little-endian length, then that many bytes (cut to what is left); the last
 * file takes the rest. tests/fuzz/seeds.py packs real traces the same way.
 */
#ifndef ADA_FUZZ_INPUT_H
#define ADA_FUZZ_INPUT_H

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fuzz_input {
	const uint8_t *p;
	size_t left;
};

/* The next length-prefixed part, or the rest when `last`. */
static inline void fuzz_take(struct fuzz_input *in, int last, const uint8_t **part, size_t *len)
{
	uint32_t n = 0;

	if (!last) {
		size_t k = in->left < 4 ? in->left : 4;

		memcpy(&n, in->p, k);
		in->p += k;
		in->left -= k;
	}
	*len = last || n > in->left ? in->left : n;
	*part = in->p;
	in->p += *len;
	in->left -= *len;
}

/* The next byte (a harness's flags), 0 past the end. */
static inline uint8_t fuzz_byte(struct fuzz_input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

/* dir/name holds exactly the n bytes at p. An I/O error aborts: it is the
 * harness's failure, not the reader's. */
static inline void fuzz_write(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		abort();
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		abort();
}

static char fuzz_root[256];

static int fuzz_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void fuzz_remove_root(void)
{
	nftw(fuzz_root, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* root/sub, made at the first call for sub (root, under $TMPDIR or /tmp,
 * at the first call of the process, and removed with everything in it when
 * the process exits). The caller keeps the path: a call makes a new one. */
static inline const char *fuzz_dir(const char *sub)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (!fuzz_root[0]) {
		snprintf(fuzz_root, sizeof(fuzz_root), "%s/ada-fuzz.XXXXXX", tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_root))
			abort();
		atexit(fuzz_remove_root);
	}
	if (asprintf(&dir, "%s/%s", fuzz_root, sub) < 0)
		abort();
	for (char *s = dir + strlen(fuzz_root) + 1;; *s++ = '/') {
		s = strchr(s, '/');
		if (s)
			*s = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			abort();
		if (!s)
			return dir;
	}
}

#endif
