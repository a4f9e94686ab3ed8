/* const_read.c - bytes of a traced process's read-only memory, from the
 * files its modules were loaded from: a string literal an argument points
 * at ("open(path="/etc/passwd")") is in the trace nowhere, but it is in the
 * binary, at the same place for every run of that build.
 *
 * Only a module whose file is the run's own (resolve.c checked its build-id,
 * or its size, time and inode) is read, and only its loaded segments that
 * are not writable: what they held then is what the file holds now.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source_priv.h"

struct const_seg {
	uint64_t vaddr, filesz, offset;
};

struct const_file {
	const struct conv_module *cm;
	int fd;                 /* -1: not readable */
	struct const_seg *segs; /* read-only PT_LOADs */
	size_t nsegs;
};

struct const_files {
	struct const_file *files; /* one per module of the process, opened when first asked */
	size_t n;
};

static void open_file(struct const_file *f)
{
	Elf *elf;
	size_t n;

	f->fd = open(f->cm->raw->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &n) == 0 && (f->segs = calloc(n ? n : 1, sizeof(*f->segs))))
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && !(ph.p_flags & PF_W))
				f->segs[f->nsegs++] = (struct const_seg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
		}
	elf_end(elf);
	if (!f->nsegs) {
		close(f->fd);
		f->fd = -1;
	}
}

void src_const_free(struct const_files *cf)
{
	if (!cf)
		return;
	for (size_t i = 0; i < cf->n; i++) {
		if (cf->files[i].fd >= 0)
			close(cf->files[i].fd);
		free(cf->files[i].segs);
	}
	free(cf->files);
	free(cf);
}

size_t src_read_const(struct src_process *p, uint64_t addr, void *buf, size_t len)
{
	struct src_raw *r = p->priv;
	struct const_files *cf;

	if (r->atf_only)
		return 0;
	if (!r->consts) {
		if (!(r->consts = calloc(1, sizeof(*r->consts))) ||
		    !(r->consts->files = calloc(r->cp.nmodules ? r->cp.nmodules : 1,
						sizeof(*r->consts->files))))
			return 0;
		r->consts->n = r->cp.nmodules;
		for (size_t i = 0; i < r->consts->n; i++)
			r->consts->files[i] = (struct const_file){ .cm = &r->cp.modules[i], .fd = -2 };
	}
	cf = r->consts;
	for (size_t i = 0; i < cf->n; i++) {
		struct const_file *f = &cf->files[i];
		const struct raw_module *rm = f->cm->raw;
		uint64_t vaddr;

		if (!rm || !f->cm->file_is_runs || addr < rm->m.bias)
			continue;
		vaddr = addr - rm->m.bias;
		if (vaddr < rm->m.vaddr_lo || vaddr >= rm->m.vaddr_hi)
			continue;
		if (f->fd == -2)
			open_file(f);
		for (size_t k = 0; f->fd >= 0 && k < f->nsegs; k++) {
			const struct const_seg *s = &f->segs[k];
			ssize_t got;

			if (vaddr < s->vaddr || vaddr >= s->vaddr + s->filesz)
				continue;
			if (len > s->vaddr + s->filesz - vaddr)
				len = s->vaddr + s->filesz - vaddr;
			got = pread(f->fd, buf, len, (off_t)(s->offset + vaddr - s->vaddr));
			return got > 0 ? (size_t)got : 0;
		}
	}
	return 0;
}
