/* elf_symbols.c - function symbols, GNU build-id and separate debug file of
 * one ELF file, read with libelf.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raw_format.h"
#include "symtab_priv.h"

/* Where distributions install separate debug files (gdb's default too). */
#define ADA_DEBUG_ROOT "/usr/lib/debug"

int ada_libelf_open(const char *path, int *fdp, Elf **elfp)
{
	Elf *elf;
	int fd, err;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		fprintf(stderr, "ada-symbolize: %s: libelf version mismatch (%s)\n", path,
			elf_errmsg(-1));
		return -EINVAL;
	}
	/* The vDSO's module has no file (runtime/raw_format.h): nothing to
	 * say of its absence. */
	if (!strcmp(path, ADA_VDSO_PATH))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "ada-symbolize: %s: cannot open (%s)\n", path, strerror(-err));
		return err;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		fprintf(stderr, "ada-symbolize: %s: cannot read ELF (%s)\n", path, elf_errmsg(-1));
		err = -EINVAL;
		goto err_close;
	}
	/* libelf opens any file; anything but ELF is ELF_K_NONE or ELF_K_AR. */
	if (elf_kind(elf) != ELF_K_ELF) {
		fprintf(stderr, "ada-symbolize: %s: not an ELF file\n", path);
		err = -ENOEXEC;
		goto err_end;
	}
	*fdp = fd;
	*elfp = elf;
	return 0;

err_end:
	elf_end(elf);
err_close:
	close(fd);
	return err;
}

void ada_libelf_close(int fd, Elf *elf)
{
	elf_end(elf);
	close(fd);
}

/* The next section after scn (NULL: the first) of this type (SHT_NULL: any)
 * and, if name is not NULL, this name. */
static Elf_Scn *next_scn(Elf *elf, Elf_Scn *scn, GElf_Word type, const char *name)
{
	GElf_Shdr shdr;
	const char *sname;
	size_t shstrndx;

	if (name && elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (type != SHT_NULL && shdr.sh_type != type)
			continue;
		if (!name)
			return scn;
		sname = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (sname && !strcmp(sname, name))
			return scn;
	}
	return NULL;
}

Elf_Scn *ada_elf_find_scn(Elf *elf, GElf_Word type, const char *name)
{
	return next_scn(elf, NULL, type, name);
}

/* A stripped file or a debug file's placeholder has no .debug_info contents
 * (SHT_NOBITS), which the type test excludes. */
bool ada_elf_has_dwarf(Elf *elf)
{
	return ada_elf_find_scn(elf, SHT_PROGBITS, ".debug_info") ||
	       ada_elf_find_scn(elf, SHT_PROGBITS, ".zdebug_info");
}

/* ---- function symbols ---------------------------------------------------- */

/* Which alias names a function: the exported name over a weak one over a
 * file-local one (symtab.h), a public one over a reserved one (preference). */
static int bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

static bool is_func(const GElf_Sym *sym)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_shndx != SHN_UNDEF &&
	       sym->st_value != 0;
}

/* A name reserved to the implementation (__x, _X; not C++'s mangled _Z...)
 * names a function only when no public name does: glibc's calloc is a weak
 * alias of the global __libc_calloc, puts of _IO_puts, and a program calls
 * calloc and puts. Local names still come last. */
static int preference(const struct raw_sym *s)
{
	bool reserved = s->name[0] == '_' &&
			(s->name[1] == '_' || (s->name[1] >= 'A' && s->name[1] < 'Z'));

	return s->rank <= 1 ? 2 * reserved + s->rank : 4 + s->rank;
}

/* Address order, then the preferred alias first; the name comparison only
 * makes the order total, so that two loads give the same table (and hash). */
static int raw_sym_cmp(const void *pa, const void *pb)
{
	const struct raw_sym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (preference(a) != preference(b))
		return preference(a) - preference(b);
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int collect_syms(Elf *elf, Elf_Scn *scn, const char *path, struct raw_sym **out,
			size_t *nout)
{
	struct raw_sym *syms;
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	Elf_Data *data;
	GElf_Sym sym;
	size_t i, n, nsyms = 0;

	if (!gelf_getehdr(elf, &ehdr) || !gelf_getshdr(scn, &shdr) ||
	    !(data = elf_getdata(scn, NULL))) {
		fprintf(stderr, "ada-symbolize: %s: cannot read symbol table (%s)\n", path,
			elf_errmsg(-1));
		return -EINVAL;
	}
	n = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
	syms = calloc(n ? n : 1, sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct raw_sym *rs = &syms[nsyms];

		if (!gelf_getsym(data, i, &sym) || !is_func(&sym))
			continue;
		rs->name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		if (!rs->name || !*rs->name)
			continue;
		rs->addr = sym.st_value;
		/* Thumb functions have bit 0 set in st_value; their code,
		 * and every IP recorded in it, starts at the even address. */
		if (ehdr.e_machine == EM_ARM)
			rs->addr &= ~(GElf_Addr)1;
		rs->size = sym.st_size;
		rs->len = strlen(rs->name);
		rs->rank = bind_rank(GELF_ST_BIND(sym.st_info));
		nsyms++;
	}
	*out = syms;
	*nout = nsyms;
	return 0;
}

/* Keeps the first (preferred) symbol of each address. The size is the
 * largest among the aliases, so that an alias declared without st_size
 * cannot shrink the function to its first byte. */
static int collapse_aliases(const struct raw_sym *syms, size_t n, struct ada_func **out,
			    size_t *nout)
{
	struct ada_func *funcs, *f;
	size_t i, j, nfuncs = 0;

	funcs = calloc(n ? n : 1, sizeof(*funcs));
	if (!funcs)
		return -ENOMEM;
	for (i = 0; i < n; i = j) {
		f = &funcs[nfuncs++];
		f->addr = syms[i].addr;
		f->size = syms[i].size;
		for (j = i + 1; j < n && syms[j].addr == f->addr; j++)
			if (syms[j].size > f->size)
				f->size = syms[j].size;
		f->name = strdup(syms[i].name);
		if (!f->name) {
			ada_funcs_free(funcs, nfuncs);
			return -ENOMEM;
		}
		f->demangled = ada_demangle(f->name);
	}
	*out = funcs;
	*nout = nfuncs;
	return 0;
}

int ada_funcs_from_syms(struct raw_sym *syms, size_t n, struct ada_func **funcs, size_t *nfuncs)
{
	qsort(syms, n, sizeof(*syms), raw_sym_cmp);
	return collapse_aliases(syms, n, funcs, nfuncs);
}

/* Reads the functions of one symbol table (.symtab or .dynsym), sorted by
 * address, one entry per address. */
int ada_elf_read_funcs(Elf *elf, Elf_Scn *symtab, const char *path, struct ada_func **funcs,
		       size_t *nfuncs)
{
	struct raw_sym *syms;
	size_t nsyms;
	int err;

	err = collect_syms(elf, symtab, path, &syms, &nsyms);
	if (err)
		return err;
	err = ada_funcs_from_syms(syms, nsyms, funcs, nfuncs);
	free(syms);
	return err;
}

/* ---- build-id ------------------------------------------------------------ */

static uint32_t note_build_id(Elf_Data *data, uint8_t out[32])
{
	size_t off = 0, next, name_off, desc_off;
	const char *base = data->d_buf;
	GElf_Nhdr nhdr;
	uint32_t len;

	while ((next = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(base + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) &&
		    nhdr.n_descsz > 0) {
			/* sha1 (20) and md5/uuid (16) fit; a longer
			 * --build-id=0x... is kept to its first 32 bytes. */
			len = nhdr.n_descsz < 32 ? nhdr.n_descsz : 32;
			memcpy(out, base + desc_off, len);
			return len;
		}
		off = next;
	}
	return 0;
}

/* Note sections first; the PT_NOTE segments serve files without section
 * headers (sstrip). A debug file keeps its note sections but not the
 * contents its program headers point to, so segments are never read when
 * sections exist. */
uint32_t ada_elf_read_build_id(Elf *elf, uint8_t out[32])
{
	Elf_Scn *scn = NULL;
	GElf_Phdr phdr;
	Elf_Data *data;
	size_t i, n;
	uint32_t len;

	while ((scn = next_scn(elf, scn, SHT_NOTE, NULL)))
		if ((data = elf_getdata(scn, NULL)) && (len = note_build_id(data, out)))
			return len;
	if (elf_getshdrnum(elf, &n) || n > 0 || elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &phdr) || phdr.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, phdr.p_offset, phdr.p_filesz,
					    phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (data && (len = note_build_id(data, out)))
			return len;
	}
	return 0;
}

int ada_elf_build_id(const char *path, uint8_t out[32])
{
	Elf *elf;
	int fd, err;
	uint32_t len;

	err = ada_libelf_open(path, &fd, &elf);
	if (err)
		return err;
	len = ada_elf_read_build_id(elf, out);
	ada_libelf_close(fd, elf);
	return (int)len;
}

/* ---- separate debug file ------------------------------------------------- */

static char *by_build_id(const uint8_t *id, uint32_t len)
{
	char buf[sizeof(ADA_DEBUG_ROOT "/.build-id/xx/.debug") + 2 * 32], *p;
	uint32_t i;

	p = buf + sprintf(buf, ADA_DEBUG_ROOT "/.build-id/%02x/", id[0]);
	for (i = 1; i < len; i++)
		p += sprintf(p, "%02x", id[i]);
	strcpy(p, ".debug");
	return access(buf, R_OK) ? NULL : strdup(buf);
}

/* A debuglink names a file, not a version of it: when both files carry a
 * build-id they must agree. (gdb checks the link's CRC instead, which means
 * reading the whole debug file.) */
static bool same_build_id(const char *path, const uint8_t *id, uint32_t len)
{
	uint8_t other[32];
	int n;

	if (access(path, R_OK))
		return false;
	n = ada_elf_build_id(path, other);
	if (n < 0)
		return false;
	return !len || !n || ((uint32_t)n == len && !memcmp(other, id, len));
}

/* .gnu_debuglink is a file name, looked for where gdb looks: beside the
 * file, in .debug/ beside it, and under the debug root + the file's directory. */
static char *by_debuglink(Elf *elf, const char *path, const uint8_t *id, uint32_t len)
{
	static const char *const fmts[] = { "%.*s/%s", "%.*s/.debug/%s", ADA_DEBUG_ROOT "%.*s/%s" };
	Elf_Scn *scn = ada_elf_find_scn(elf, SHT_PROGBITS, ".gnu_debuglink");
	char *real, *found = NULL, cand[PATH_MAX];
	const char *link;
	Elf_Data *data;
	int dirlen;
	size_t i;

	if (!scn || !(data = elf_getdata(scn, NULL)) || !data->d_size ||
	    !memchr(data->d_buf, 0, data->d_size))
		return NULL;
	link = data->d_buf;
	real = realpath(path, NULL); /* absolute, so it has a '/' */
	if (!real)
		return NULL;
	dirlen = strrchr(real, '/') - real;
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]) && !found; i++) {
		if (snprintf(cand, sizeof(cand), fmts[i], dirlen, real, link) >= (int)sizeof(cand))
			continue;
		/* A link naming the file itself would give nothing new. */
		if (strcmp(cand, real) && same_build_id(cand, id, len))
			found = strdup(cand);
	}
	free(real);
	return found;
}

/* The debug file a distribution (or objcopy --only-keep-debug) made for a
 * stripped file: malloc'd path, or NULL. */
char *ada_elf_find_debug_file(Elf *elf, const char *path, const uint8_t *build_id,
			      uint32_t build_id_len)
{
	char *found = NULL;

	if (build_id_len >= 2)
		found = by_build_id(build_id, build_id_len);
	return found ? found : by_debuglink(elf, path, build_id, build_id_len);
}

/* Which instrumentation hooks a module calls, from the undefined symbols of
 * its dynamic symbol table: an object built by adacc in cyg mode imports
 * __cyg_profile_func_enter, in fentry mode __fentry__ (or, built by gcc,
 * __ada_fentry_nohijack: cc-wrapper/mode.c), in mcount mode mcount
 * (_mcount on aarch64, where gcc's -pg calls that).
 * A module linked with the static runtime defines them instead (all three)
 * and gets ADA_HOOK_STATIC. */
unsigned ada_elf_hooks(const char *path)
{
	static const struct { const char *name; unsigned bit; } hooks[] = {
		{ "__cyg_profile_func_enter", ADA_HOOK_CYG },
		{ "__fentry__", ADA_HOOK_FENTRY },
		{ "__ada_fentry_nohijack", ADA_HOOK_FENTRY },
		{ "mcount", ADA_HOOK_MCOUNT },
		{ "_mcount", ADA_HOOK_MCOUNT },
	};
	unsigned found = 0;
	Elf_Scn *scn;
	Elf_Data *data;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	if (ada_libelf_open(path, &fd, &elf) < 0)
		return 0;
	scn = ada_elf_find_scn(elf, SHT_DYNSYM, ".dynsym");
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (data && gelf_getshdr(scn, &sh) && sh.sh_entsize) {
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			for (size_t h = 0; h < sizeof(hooks) / sizeof(hooks[0]); h++)
				if (!strcmp(name, hooks[h].name))
					found |= sym.st_shndx == SHN_UNDEF ? hooks[h].bit : ADA_HOOK_STATIC;
		}
	}
	/* adacc --ada-mode=patchable: no hook is imported, the sites are listed. */
	if (ada_elf_find_scn(elf, SHT_PROGBITS, "__patchable_function_entries"))
		found |= ADA_HOOK_PATCHABLE;
	ada_libelf_close(fd, elf);
	return found;
}
