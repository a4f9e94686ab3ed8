/* shared.c - mapping the `ada_shared` section shared, and back to the
 * process's own pages in a fork child (shared.h says what is in it). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "shared.h"

/* The linker's bounds of the section; hidden, so that a second copy of
 * libada (dlmopen) maps its own. */
extern uint8_t __start_ada_shared[] __attribute__((visibility("hidden")));
extern uint8_t __stop_ada_shared[] __attribute__((visibility("hidden")));

int ada_shared_on;

/* The section's pages replaced by fresh shared ones with the same
 * contents: copied out to a private mapping first, then back. */
static int remap(void)
{
	size_t len = (size_t)(__stop_ada_shared - __start_ada_shared);
	void *copy, *p;
	int err = 0;

	if (!len)
		return 0;
	copy = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return -errno;
	memcpy(copy, __start_ada_shared, len);
	p = mmap(__start_ada_shared, len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		err = -errno; /* the old pages are still there: nothing lost */
	else
		memcpy(__start_ada_shared, copy, len);
	munmap(copy, len);
	return err;
}

int ada_shared_start(void)
{
	int err = remap();

	ada_shared_on = !err;
	return err;
}

int ada_shared_rehome(void)
{
	if (!ada_shared_on)
		return 0;
	/* Shared again, the child's own: its recorder will map it. */
	return remap();
}
