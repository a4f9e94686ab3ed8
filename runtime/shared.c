/* shared.c - mapping the `ada_shared` section shared, and back to the
 * process's own pages in a fork child (shared.h says what is in it). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "shared.h"

/* The linker's bounds of the section; hidden, so that a second copy of
 * libada (dlmopen) maps its own. */
extern uint8_t __start_ada_shared[] __attribute__((visibility("hidden")));
extern uint8_t __stop_ada_shared[] __attribute__((visibility("hidden")));

int ada_shared_on;

static bool page_zero(const uint8_t *p, size_t page)
{
	const uint64_t *w = (const uint64_t *)p;

	for (size_t i = 0; i < page / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

/* The section's pages replaced by fresh shared ones with the same
 * contents: a shared mapping made elsewhere (anonymous, or fd's pages at
 * off: `ada record`'s), the pages that hold anything copied into it (most
 * are padding, zero: left untouched, they cost no page until used), then
 * moved onto the section in one step. */
static int remap(int fd, off_t off)
{
	size_t len = (size_t)(__stop_ada_shared - __start_ada_shared), page = ADA_SHARED_PAGE;
	uint8_t *fresh;
	void *p;

	if (!len)
		return 0;
	fresh = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_SHARED | (fd < 0 ? MAP_ANONYMOUS : 0), fd, off);
	if (fresh == MAP_FAILED)
		return -errno;
	for (size_t at = 0; at < len; at += page)
		if (!page_zero(__start_ada_shared + at, page))
			memcpy(fresh + at, __start_ada_shared + at, page);
	p = mremap(fresh, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, __start_ada_shared);
	if (p == MAP_FAILED) {
		int err = -errno; /* the old pages are still there: nothing lost */

		munmap(fresh, len);
		return err;
	}
	return 0;
}

int ada_shared_start(void)
{
	int err = remap(-1, 0);

	ada_shared_on = !err;
	return err;
}

int ada_shared_rehome(void)
{
	if (!ada_shared_on)
		return 0;
	/* Shared again, the child's own: its recorder will map it. */
	return remap(-1, 0);
}

uintptr_t ada_shared_base(void)
{
	return (uintptr_t)__start_ada_shared;
}

size_t ada_shared_len(void)
{
	return (size_t)(__stop_ada_shared - __start_ada_shared);
}

int ada_shared_adopt(int fd, off_t off)
{
	int err = remap(fd, off);

	ada_shared_on = !err;
	return err;
}

int ada_shared_map_over(int fd, off_t off)
{
	size_t len = ada_shared_len();

	/* Its own contents do not matter: the program's replace them. */
	if (len && mmap(__start_ada_shared, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
			off) == MAP_FAILED)
		return -errno;
	ada_shared_on = 1;
	return 0;
}
