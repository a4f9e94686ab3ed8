/* launch_mem.c - the memory `ada record` shares with the program it
 * starts (runtime/launch.h): made before the program runs, so that the
 * launcher's recorder reads the program's rings where the program's
 * threads write them.
 *
 * One memfd: the header, then the program's shared section, then the
 * arena. The arena is as long as the program's start-up reserves (the
 * same configuration read from the same environment, by the same
 * runtime, linked in here); the program maps it at the address it has
 * here, so the pointers in it hold in both. Not where the kernel would put
 * it: that is near this process's mmap base, and the program's libraries
 * are near its own, a random place in the same terabyte, so one run in a
 * hundred found the address taken (the program then forks its own
 * recorder). A random place between 32 and 64 TiB instead, which nothing
 * of a program's usual layout takes (the executable and its heap are near
 * 85 TiB, the libraries and the stack near 128, ASan's shadow below 16).
 * The section goes over this image's own (its contents are the
 * program's once it adopted them). The descriptor is the only thing the
 * program inherits; its start-up closes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "ada_internal.h"
#include "launcher.h"

static const char *env_get(const char *name)
{
	return getenv(name);
}

#define ARENA_LO (32ull << 40)
#define ARENA_SPAN (32ull << 40)
#define ARENA_ALIGN (2ull << 20)

/* The arena, len bytes of fd at off, as the comment above says. */
static void *arena_map(int fd, off_t off, size_t len)
{
	const int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_NORESERVE;

	for (int i = 0; i < 8 && len < ARENA_SPAN; i++) {
		uint64_t r = 0;
		void *want, *p;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL) << i;
		want = (void *)(uintptr_t)((ARENA_LO + r % (ARENA_SPAN - len)) & ~(ARENA_ALIGN - 1));
		p = mmap(want, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
		if (p == want)
			return p;
		if (p != MAP_FAILED) /* a kernel that took the address as a hint */
			munmap(p, len);
	}
	return mmap(NULL, len, prot, flags, fd, off);
}

int ada_cli_mem_make(struct ada_cli_mem *m)
{
	size_t section = ada_shared_len(), arena;
	struct ada_launch *h;
	void *a;
	int err;

	/* A bad ADA_* value is the program's to say: this copy's lines wait
	 * in a buffer nobody prints. */
	ada_warn_all_pending();
	ada_config_load(&ada_rt.cfg, env_get);
	m->disabled = ada_rt.cfg.disabled;
	snprintf(m->output, sizeof(m->output), "%s", ada_rt.cfg.output);
	arena = ada_arena_len(ada_thread_kit_bytes(), true);
	m->fd = memfd_create("ada-record", MFD_CLOEXEC);
	if (m->fd < 0)
		return -errno;
	if (ftruncate(m->fd, (off_t)(ADA_LAUNCH_PAGE + section + arena)) < 0)
		goto fail;
	h = mmap(NULL, ADA_LAUNCH_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (h == MAP_FAILED)
		goto fail;
	a = arena_map(m->fd, (off_t)(ADA_LAUNCH_PAGE + section), arena);
	if (a == MAP_FAILED || (err = ada_shared_map_over(m->fd, ADA_LAUNCH_PAGE)) < 0) {
		err = a == MAP_FAILED ? errno : -err;
		munmap(h, ADA_LAUNCH_PAGE);
		errno = err;
		goto fail;
	}
	h->magic = ADA_LAUNCH_MAGIC;
	snprintf(h->version, sizeof(h->version), "%s", ADA_VERSION);
	h->layout = ada_launch_layout();
	h->section_off = ADA_LAUNCH_PAGE;
	h->section_len = section;
	h->arena_off = ADA_LAUNCH_PAGE + section;
	h->arena_len = arena;
	h->arena_addr = (uintptr_t)a;
	h->launcher_pid = (uint32_t)getpid();
	m->hdr = h;
	return 0;
fail:
	err = -errno;
	close(m->fd);
	m->fd = -1;
	return err;
}
