/* proc_maps.c - the program's loaded ELF images as a recorder process sees
 * them: /proc/PID/maps and the files themselves.
 *
 * A recorder cannot walk the program's loader list (its copy of the
 * program's memory stopped at the fork), and reading the program's memory
 * needs ptrace rights a process that is not the program's ancestor lacks
 * under Yama. The maps file needs only read rights (the same user): an image
 * is a file with a mapping at offset 0 and an executable one; its program
 * headers (for the load bias, the span and the build-id) are read from the
 * file, as the kernel mapped it. Without the dynamic hooks the recorder looks
 * every 10 ms.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ada_internal.h"
#include "raw_format.h"

#define DELETED " (deleted)"
#define PHDRS_MAX 64

struct image {
	uint64_t start;     /* the mapping of file offset 0 */
	uint64_t end;       /* the last mapping of the file after it */
	uint64_t dev, ino;
	bool exec;
	bool deleted;
	char path[4096];
};

static bool pread_all(int fd, void *buf, size_t len, off_t at)
{
	return pread(fd, buf, len, at) == (ssize_t)len;
}

/* The program headers of a 64-bit ELF image (an executable or a shared
 * object) of this machine: how many, 0 if the file is none. */
static int read_phdrs(int fd, Elf64_Phdr ph[PHDRS_MAX])
{
	Elf64_Ehdr eh;

	if (!pread_all(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum == 0 || eh.e_phnum > PHDRS_MAX ||
	    (eh.e_type != ET_DYN && eh.e_type != ET_EXEC) ||
	    !pread_all(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), (off_t)eh.e_phoff))
		return 0;
	return eh.e_phnum;
}

/* The image's record from its file: its build-id, its PT_LOAD span in
 * ELF addresses, its bias from where offset 0 is mapped. False if the file
 * is not a 64-bit ELF image of this machine whose first PT_LOAD maps offset 0. */
static bool describe_file(int fd, uint64_t start, struct ada_meta_module *m)
{
	Elf64_Phdr ph[PHDRS_MAX];
	uint64_t lo = UINT64_MAX, hi = 0, first_vaddr = UINT64_MAX;
	bool first_at_0 = false;
	int n = read_phdrs(fd, ph);

	if (!n)
		return false;
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < n; i++) {
		if (ph[i].p_type == PT_LOAD) {
			if (first_vaddr == UINT64_MAX) {
				first_vaddr = ph[i].p_vaddr;
				first_at_0 = ph[i].p_offset < 4096;
			}
			if (ph[i].p_vaddr < lo)
				lo = ph[i].p_vaddr;
			if (ph[i].p_vaddr + ph[i].p_memsz > hi)
				hi = ph[i].p_vaddr + ph[i].p_memsz;
		} else if (ph[i].p_type == PT_NOTE && !m->build_id_len && ph[i].p_filesz <= 65536) {
			uint8_t *note = malloc(ph[i].p_filesz);

			if (note && pread_all(fd, note, ph[i].p_filesz, (off_t)ph[i].p_offset))
				m->build_id_len = ada_build_id_from_note(note, ph[i].p_filesz, m->build_id);
			free(note);
		}
	}
	if (!first_at_0)
		return false;
	m->vaddr_lo = lo & ~(uint64_t)4095;
	m->vaddr_hi = hi;
	m->bias = start - (first_vaddr & ~(uint64_t)4095);
	return true;
}

/* The image's file: by its path, or, once unlinked, through the mapping
 * itself (/proc/PID/map_files, which needs more rights: without them the
 * image is not recorded). */
static int open_image(uint32_t pid, const struct image *im)
{
	char path[64];

	if (!im->deleted)
		return open(im->path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid, im->start,
		 im->end);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void image_done(uint32_t pid, struct image *im, const struct ada_image_visitor *v)
{
	struct ada_meta_module m;
	bool described = false;
	int fd;

	if (!im->ino || !im->exec || v->known(im->start, v->arg))
		return;
	fd = open_image(pid, im);
	if (fd >= 0) {
		described = describe_file(fd, im->start, &m);
		close(fd);
	}
	v->found(im->start, im->path, described ? &m : NULL, v->arg);
}

int ada_proc_images(uint32_t pid, const struct ada_image_visitor *v)
{
	char path[64], line[4200];
	struct image *im = calloc(1, sizeof(*im)); /* no image yet: ino 0 */
	unsigned images = 0;
	FILE *f;

	if (!im)
		return -1;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		free(im);
		return -1;
	}
	/* An image's mappings are adjacent, the one of offset 0 first. */
	while (fgets(line, sizeof(line), f)) {
		uint64_t lo, hi, off, ino;
		unsigned maj, min;
		char perms[8];
		int pos = 0;
		size_t len;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &lo, &hi,
			   perms, &off, &maj, &min, &ino, &pos) < 7 || !pos)
			continue;
		len = strcspn(line + pos, "\n");
		line[pos + len] = '\0';
		if (im->ino && ino == im->ino && ((uint64_t)maj << 32 | min) == im->dev && off) {
			im->end = hi;
			im->exec |= perms[2] == 'x';
			continue;
		}
		image_done(pid, im, v);
		im->ino = 0;
		if (off || !ino || line[pos] != '/' || len >= sizeof(im->path))
			continue;
		images++;
		im->start = lo;
		im->end = hi;
		im->dev = (uint64_t)maj << 32 | min;
		im->ino = ino;
		im->exec = perms[2] == 'x';
		memcpy(im->path, line + pos, len + 1);
		im->deleted = len > strlen(DELETED) && !strcmp(im->path + len - strlen(DELETED), DELETED);
		if (im->deleted)
			im->path[len - strlen(DELETED)] = '\0';
	}
	image_done(pid, im, v);
	/* A read error midway leaves the list incomplete: nothing may be
	 * taken for unloaded from it. Nor from an empty one: the process has
	 * ended (a zombie's maps are empty), its executable no longer mapped
	 * (a recorder's final flush took every module for unloaded, and its
	 * function triggers with them, once on a busy machine). */
	int err = ferror(f) || !images ? -1 : 0;

	fclose(f);
	free(im);
	return err;
}

/* ---- the program's modules as the loader would list them ------------------------- */

struct each_program {
	ada_module_fn *fn;
	void *arg;
	int stop;
};

static void each_live(const char *path, uint64_t bias, void *arg)
{
	struct each_program *e = arg;
	Elf64_Phdr ph[PHDRS_MAX];
	struct dl_phdr_info info = { .dlpi_addr = bias, .dlpi_name = path, .dlpi_phdr = ph };
	int fd;

	if (e->stop || path[0] != '/' || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	info.dlpi_phnum = (ElfW(Half))read_phdrs(fd, ph);
	close(fd);
	if (info.dlpi_phnum)
		e->stop = e->fn(&info, NULL, e->arg);
}

int ada_program_modules_each(ada_module_fn *fn, void *arg)
{
	struct each_program e = { fn, arg, 0 };

	ada_modmap_each_live(each_live, &e);
	return 0;
}
