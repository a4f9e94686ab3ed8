/* dynscan.c - a loaded module's PLT/GOT slots, from memory.
 *
 * Everything is read from the mapped image: the dynamic section, the
 * dynamic symbol and string tables, the relocations and the version needs
 * are all in PT_LOAD segments. No file is opened (the library may have been
 * replaced or deleted on disk since it was loaded) and no ELF library is
 * needed in the traced process.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "dynscan.h"

/* glibc relocates the dynamic section's pointers in place, other loaders
 * (and the vDSO) do not: a value below the load bias is still relative. */
static uintptr_t dyn_ptr(const struct ada_dyn_module *m, ElfW(Addr) v)
{
	return v < m->bias ? m->bias + v : v;
}

int ada_dyn_parse(const struct dl_phdr_info *info, struct ada_dyn_module *m)
{
	const ElfW(Dyn) *d;
	size_t pltrelsz = 0, relasz = 0, relaent = sizeof(ElfW(Rela));
	int pltrel = DT_RELA, i;

	memset(m, 0, sizeof(*m));
	m->bias = info->dlpi_addr;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = m->bias + ph->p_vaddr;

		if (ph->p_type == PT_DYNAMIC) {
			m->dynamic = (const ElfW(Dyn) *)start;
		} else if (ph->p_type == PT_GNU_RELRO) {
			/* The loader protects whole pages only, rounding the end down. */
			m->relro_lo = start & ~(uintptr_t)4095;
			m->relro_hi = (start + ph->p_memsz) & ~(uintptr_t)4095;
		}
	}
	if (!m->dynamic)
		return -1;
	for (d = m->dynamic; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: m->symtab = (const void *)dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_STRTAB: m->strtab = (const void *)dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_STRSZ: m->strsz = d->d_un.d_val; break;
		case DT_JMPREL: m->jmprel = (const void *)dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
		case DT_PLTREL: pltrel = (int)d->d_un.d_val; break;
		case DT_RELA: m->rela = (const void *)dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_RELASZ: relasz = d->d_un.d_val; break;
		case DT_RELAENT: relaent = d->d_un.d_val; break;
		case DT_VERSYM: m->versym = (const void *)dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_VERNEED: m->verneed = (const void *)dyn_ptr(m, d->d_un.d_ptr); break;
		case DT_VERNEEDNUM: m->nverneed = d->d_un.d_val; break;
		case DT_SYMBOLIC: m->symbolic = true; break;
		case DT_FLAGS: m->symbolic |= (d->d_un.d_val & DF_SYMBOLIC) != 0; break;
		default: break;
		}
	}
	/* x86_64 and aarch64 use RELA only; anything else is not ours to patch. */
	if (!m->symtab || !m->strtab || pltrel != DT_RELA || relaent != sizeof(ElfW(Rela)))
		return -1;
	m->njmprel = m->jmprel ? pltrelsz / sizeof(ElfW(Rela)) : 0;
	m->nrela = m->rela ? relasz / sizeof(ElfW(Rela)) : 0;
	m->exec = m->bias == 0;
	return 0;
}

/* The version a reference needs: its versym index, found among the
 * module's version needs. Indices 0 and 1 are "local" and "global": none. */
static const char *version_of(const struct ada_dyn_module *m, size_t sym)
{
	const ElfW(Verneed) *vn = m->verneed;
	ElfW(Half) idx;
	size_t i;

	if (!m->versym || !vn)
		return NULL;
	idx = m->versym[sym] & 0x7fff;
	if (idx < 2)
		return NULL;
	for (i = 0; i < m->nverneed; i++) {
		const ElfW(Vernaux) *va = (const void *)((const char *)vn + vn->vn_aux);

		for (unsigned a = 0; a < vn->vn_cnt; a++) {
			if (va->vna_other == idx)
				return va->vna_name < m->strsz ? m->strtab + va->vna_name : NULL;
			va = (const void *)((const char *)va + va->vna_next);
		}
		if (!vn->vn_next)
			break;
		vn = (const void *)((const char *)vn + vn->vn_next);
	}
	return NULL;
}

static bool fill(const struct ada_dyn_module *m, const ElfW(Rela) *r, struct ada_dyn_slot *out)
{
	size_t sym = ELF64_R_SYM(r->r_info);
	const ElfW(Sym) *s = &m->symtab[sym];

	if (!sym || s->st_name >= m->strsz)
		return false;
	out->got = (uintptr_t *)(m->bias + r->r_offset);
	out->name = m->strtab + s->st_name;
	out->version = version_of(m, sym);
	out->undefined = s->st_shndx == SHN_UNDEF;
	out->own = s->st_value ? m->bias + s->st_value : 0;
	return *out->name != '\0';
}

static bool is_func_glob_dat(const struct ada_dyn_module *m, const ElfW(Rela) *r)
{
	unsigned type;

	if (ELF64_R_TYPE(r->r_info) != ADA_ARCH_R_GLOB_DAT)
		return false;
	type = ELF64_ST_TYPE(m->symtab[ELF64_R_SYM(r->r_info)].st_info);
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* Marks the slot a `call/jmp *rel32(%rip)` at c goes through, if it is one
 * of m's GLOB_DAT slots. */
static void note_call(struct ada_dyn_module *m, const uint8_t *c)
{
	int32_t rel;
	uintptr_t slot;

	memcpy(&rel, c + 2, 4);
	slot = (uintptr_t)c + 6 + (intptr_t)rel;
	if (slot >= m->called_lo && slot < m->called_hi && !((slot - m->called_lo) & 7))
		m->called[(slot - m->called_lo) / 8] = 1;
}

/* ff 15 rel32 = call *rel32(%rip), ff 25 rel32 = jmp *rel32(%rip): the slot
 * is at the next instruction + rel32. A stray match in data or
 * mid-instruction would need to hit a slot's exact address. The text of
 * every library is scanned at start-up (libc's is 1.5 MiB): sixteen bytes
 * at a time, a byte loop only where an 0xff is followed by 0x15 or 0x25. */
__attribute__((target("sse2"))) static void scan_text(struct ada_dyn_module *m, const uint8_t *c, const uint8_t *end)
{
	typedef uint8_t v16 __attribute__((vector_size(16)));
	const v16 zero = { 0 }, ff = zero + 0xff, x15 = zero + 0x15, x25 = zero + 0x25;

	for (; c <= end && end - c >= 15; c += 16) { /* c .. c + 15 all may start one */
		v16 a, b, hit;
		uint64_t w[2];

		memcpy(&a, c, 16);
		memcpy(&b, c + 1, 16);
		hit = (v16)((a == ff) & ((b == x15) | (b == x25)));
		memcpy(w, &hit, 16);
		if (!(w[0] | w[1]))
			continue;
		for (int i = 0; i < 16; i++)
			if (hit[i])
				note_call(m, c + i);
	}
	for (; c <= end; c++)
		if (c[0] == 0xff && (c[1] == 0x15 || c[1] == 0x25))
			note_call(m, c);
}

void ada_dyn_find_calls(const struct dl_phdr_info *info, struct ada_dyn_module *m, bool cached)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	size_t i;
	int ph;

	for (i = 0; i < m->nrela; i++) {
		uintptr_t got = m->bias + m->rela[i].r_offset;

		if (is_func_glob_dat(m, &m->rela[i])) {
			lo = got < lo ? got : lo;
			hi = got + 8 > hi ? got + 8 : hi;
		}
	}
	if (lo >= hi || !(m->called = calloc((hi - lo) / 8, 1)))
		return;
	m->called_lo = lo;
	m->called_hi = hi;
	if (cached && ada_dyn_calls_load(info, m))
		return;
	for (ph = 0; ph < info->dlpi_phnum; ph++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[ph];
		const uint8_t *c;

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X) || p->p_filesz < 6)
			continue;
		c = (const uint8_t *)(m->bias + p->p_vaddr);
		/* the last opcode byte that leaves room for its rel32 */
		scan_text(m, c, c + p->p_filesz - 6);
	}
	if (cached)
		ada_dyn_calls_save(info, m);
}

void ada_dyn_release(struct ada_dyn_module *m)
{
	free(m->called);
	m->called = NULL;
}

bool ada_dyn_next_slot(const struct ada_dyn_module *m, size_t *cursor, struct ada_dyn_slot *out)
{
	while (*cursor < m->njmprel) {
		const ElfW(Rela) *r = &m->jmprel[(*cursor)++];

		if (ELF64_R_TYPE(r->r_info) == ADA_ARCH_R_JUMP_SLOT && fill(m, r, out))
			return true;
	}
	while (m->called && *cursor - m->njmprel < m->nrela) {
		const ElfW(Rela) *r = &m->rela[(*cursor)++ - m->njmprel];
		uintptr_t got = m->bias + r->r_offset;

		if (is_func_glob_dat(m, r) && got >= m->called_lo && got < m->called_hi &&
		    m->called[(got - m->called_lo) / 8] && fill(m, r, out))
			return true;
	}
	return false;
}

static bool imports_one(const struct ada_dyn_module *m, const ElfW(Rela) *r, const char *const *names,
			size_t n)
{
	size_t sym = ELF64_R_SYM(r->r_info);
	const ElfW(Sym) *s = &m->symtab[sym];

	if (!sym || s->st_shndx != SHN_UNDEF || s->st_name >= m->strsz)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m->strtab + s->st_name, names[i]))
			return true;
	return false;
}

bool ada_dyn_imports(const struct ada_dyn_module *m, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < m->njmprel; i++)
		if (imports_one(m, &m->jmprel[i], names, n))
			return true;
	for (i = 0; i < m->nrela; i++)
		if (imports_one(m, &m->rela[i], names, n))
			return true;
	return false;
}
