/* const_read.c - bytes of a traced process's read-only memory, from the
 * files its modules were loaded from: a string literal an argument points
 * at ("open(path="/etc/passwd")") is in the trace nowhere, but it is in the
 * binary, at the same place for every run of that build.
 *
 * Only a module whose file is the run's own (resolve.c checked its build-id,
 * or its size, time and inode; for a trace that has ATF only, its build-id
 * against the manifest's uuid) is read, and only its loaded segments that
 * are not writable: what they held then is what the file holds now.
 */
#include <fcntl.h>
#include <stdio.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "source_priv.h"
#include "symtab.h"
#include "trace_dir.h"

struct const_seg {
	uint64_t vaddr, filesz, offset;
};

struct const_file {
	const char *path;       /* the module's, as the trace names it */
	uint64_t bias, lo, hi;  /* process address = vaddr + bias; vaddrs [lo, hi) */
	bool runs;              /* the file at path is the run's build */
	int fd;                 /* -2: not opened yet; -1: not readable */
	struct const_seg *segs; /* read-only PT_LOADs */
	size_t nsegs;
};

struct const_files {
	struct const_file *files; /* one per module of the process */
	size_t n;
};

static void open_file(struct const_file *f)
{
	Elf *elf;
	size_t n;

	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
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

bool src_same_build(const char *path, const char *uuid)
{
	uint8_t id[32];
	char hex[65] = "";
	int n = uuid && *uuid ? ada_elf_build_id(path, id) : 0;

	for (int b = 0; b < n; b++)
		sprintf(hex + 2 * b, "%02x", id[b]);
	return n > 0 && !strcmp(hex, uuid);
}

/* The process's modules, from the raw trace's records or the manifest. */
static struct const_files *list_files(struct src_raw *r)
{
	const struct json_value *mods = r->atf_only ? json_get(json_root(r->manifest), "modules") : NULL;
	struct const_files *cf = calloc(1, sizeof(*cf));
	size_t n = r->atf_only ? 0 : r->cp.nmodules;

	while (r->atf_only && json_at(mods, n))
		n++;
	if (!cf || !(cf->files = calloc(n ? n : 1, sizeof(*cf->files)))) {
		free(cf);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct const_file *f = &cf->files[cf->n];
		const struct json_value *m = r->atf_only ? json_at(mods, i) : NULL;
		uint64_t base = 0, size = 0;

		f->fd = -2;
		if (!m) {
			const struct conv_module *cm = &r->cp.modules[i];

			if (!cm->raw)
				continue;
			f->path = cm->raw->path;
			f->bias = cm->raw->m.bias;
			f->lo = cm->raw->m.vaddr_lo;
			f->hi = cm->raw->m.vaddr_hi;
			f->runs = cm->file_is_runs;
		} else {
			f->path = json_string(json_get(m, "path"));
			ada_trace_parse_hex(json_string(json_get(m, "load_bias")), &f->bias);
			ada_trace_parse_hex(json_string(json_get(m, "base_address")), &base);
			json_u64(json_get(m, "size"), &size);
			f->lo = base - f->bias;
			f->hi = f->lo + size;
			f->runs = f->path && src_same_build(f->path, json_string(json_get(m, "uuid")));
		}
		cf->n++;
	}
	return cf;
}

size_t src_read_const(struct src_process *p, uint64_t addr, void *buf, size_t len)
{
	struct src_raw *r = p->priv;
	struct const_files *cf;

	if (!r->consts && !(r->consts = list_files(r)))
		return 0;
	cf = r->consts;
	for (size_t i = 0; i < cf->n; i++) {
		struct const_file *f = &cf->files[i];
		uint64_t vaddr;

		if (!f->runs || addr < f->bias)
			continue;
		vaddr = addr - f->bias;
		if (vaddr < f->lo || vaddr >= f->hi)
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
