/* dyncache.c - which GOT slots a module's code calls through, kept per
 * build in the output directory.
 *
 * Finding them means reading the module's whole text (libc's is 1.4 MiB:
 * a fifth of a millisecond, and every page of it faulted in) in every
 * traced process's start-up. The answer depends on the build alone, so
 * the first process that scans a build leaves it beside the kept symbols,
 * <output>/.ada-symbols/<build-id>.calls, and the next ones read it: one
 * small file, opened and closed at start-up like process.meta. A module
 * without a build-id is scanned each time. The file is written to a name
 * of its own and renamed, so a reader sees it whole or not at all; one that
 * does not match (another size of the slot range) is ignored.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ada_internal.h"
#include "dynscan.h"
#include "kept_symbols.h"

#define CALLS_MAGIC "ADACALL1"
#define CALLS_MAX 65536 /* slots called through: far more than any library has */

struct calls_header {
	char magic[8];
	uint64_t lo, hi;   /* the slot range, less the bias */
	uint32_t n, pad;   /* then n uint32_t: called slots, in 8-byte steps from lo */
};

/* The cache file's path for the module (named as its kept symbols are),
 * false if it has no build-id. */
static bool calls_path(const struct dl_phdr_info *info, char *out, size_t len)
{
	uint8_t id[32];
	uint32_t n = ada_build_id_of(info, id);
	char name[65];

	return n && snprintf(out, len, "%s/" ADA_KEPT_DIR "/%s.calls", ada_rt.cfg.output,
			     ada_kept_name(name, id, n, NULL, NULL)) < (int)len;
}

bool ada_dyn_calls_load(const struct dl_phdr_info *info, struct ada_dyn_module *m)
{
	char path[4200];
	struct calls_header h;
	uint32_t *idx = NULL;
	size_t slots = (m->called_hi - m->called_lo) / 8;
	bool ok = false;
	int fd;

	if (!calls_path(info, path, sizeof(path)) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	if (read(fd, &h, sizeof(h)) == sizeof(h) && !memcmp(h.magic, CALLS_MAGIC, 8) &&
	    h.lo == m->called_lo - m->bias && h.hi == m->called_hi - m->bias && h.n <= CALLS_MAX &&
	    (idx = malloc((h.n ?: 1) * sizeof(*idx))) &&
	    read(fd, idx, h.n * sizeof(*idx)) == (ssize_t)(h.n * sizeof(*idx))) {
		ok = true;
		for (uint32_t i = 0; i < h.n && ok; i++)
			ok = idx[i] < slots;
		for (uint32_t i = 0; i < h.n && ok; i++)
			m->called[idx[i]] = 1;
	}
	free(idx);
	close(fd);
	return ok;
}

void ada_dyn_calls_save(const struct dl_phdr_info *info, const struct ada_dyn_module *m)
{
	char path[4200], tmp[4300];
	size_t slots = (m->called_hi - m->called_lo) / 8;
	struct calls_header h = { .lo = m->called_lo - m->bias, .hi = m->called_hi - m->bias };
	uint32_t *idx;
	int fd;

	if (!calls_path(info, path, sizeof(path)) || !(idx = malloc((slots ?: 1) * sizeof(*idx))))
		return;
	for (size_t i = 0; i < slots && h.n < CALLS_MAX; i++)
		if (m->called[i])
			idx[h.n++] = (uint32_t)i;
	memcpy(h.magic, CALLS_MAGIC, 8);
	snprintf(tmp, sizeof(tmp), "%s/" ADA_KEPT_DIR, ada_rt.cfg.output);
	mkdir(tmp, 0755);
	snprintf(tmp, sizeof(tmp), "%s.%u.tmp", path, (unsigned)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0) {
		bool ok = ada_write_all(fd, &h, sizeof(h)) == 0 &&
			  ada_write_all(fd, idx, h.n * sizeof(*idx)) == 0;

		close(fd);
		if (!ok || rename(tmp, path) < 0)
			unlink(tmp);
	}
	free(idx);
}
