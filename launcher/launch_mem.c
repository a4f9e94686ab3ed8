/* launch_mem.c - the memory `ada record` shares with the program it
 * starts (runtime/launch.h): made before the program runs, so that the
 * launcher's recorder reads the program's rings where the program's
 * threads write them.
 *
 * One memfd: the header, then the program's shared section, then the
 * arena. The arena is as long as the program's start-up reserves (the
 * same configuration read from the same environment, by the same
 * runtime, linked in here), and mapped where the kernel puts it: the
 * program maps it at that address, so the pointers in it hold in both.
 * The section goes over this image's own (its contents are the
 * program's once it adopted them). The descriptor is the only thing the
 * program inherits; its start-up closes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ada_internal.h"
#include "launcher.h"

static const char *env_get(const char *name)
{
	return getenv(name);
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
	arena = ada_arena_len(ada_thread_kit_bytes(), true);
	m->fd = memfd_create("ada-record", MFD_CLOEXEC);
	if (m->fd < 0)
		return -errno;
	if (ftruncate(m->fd, (off_t)(ADA_LAUNCH_PAGE + section + arena)) < 0)
		goto fail;
	h = mmap(NULL, ADA_LAUNCH_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (h == MAP_FAILED)
		goto fail;
	a = mmap(NULL, arena, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, m->fd,
		 (off_t)(ADA_LAUNCH_PAGE + section));
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
