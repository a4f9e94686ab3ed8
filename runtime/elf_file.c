/* elf_file.c - a loaded module's file, read by the runtime: its sections
 * and its function symbols.
 *
 * func: triggers (trigger_funcs.c) and patchable mode's selection
 * (mcount/patch.c) need the names of a module's functions, which the
 * loaded image does not keep (.symtab is not loaded): the file is mapped
 * read-only for as long as it is read. The recorder or a pass of the
 * program's (start-up, a dlopen): it allocates and makes
 * system calls. Its descriptors are opened apart (apart.c): in a program
 * thread, one would take a number the program's own open expects.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_file.h"

struct map_req {
	const char *path;
	struct ada_elf *e;
};

/* Apart: the mapping outlives the descriptor (and the task: the memory is
 * the program's). */
static int map_file(void *arg)
{
	struct map_req *r = arg;
	struct stat st;
	int fd = open(r->path ? r->path : "/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr)) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p != MAP_FAILED) {
			r->e->file = p;
			r->e->size = (size_t)st.st_size;
		}
	}
	close(fd);
	return r->e->file ? 0 : -1;
}

int ada_elf_open(const char *path, uint64_t bias, struct ada_elf *e)
{
	struct map_req r = { path, e };
	const Elf64_Ehdr *eh;

	memset(e, 0, sizeof(*e));
	if (ada_apart(map_file, &r) < 0 || !e->file)
		return -1;
	eh = (const void *)e->file;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > e->size) {
		ada_elf_close(e);
		return -1;
	}
	e->bias = bias;
	return 0;
}

void ada_elf_close(struct ada_elf *e)
{
	if (e->file && !e->in_memory)
		munmap((void *)e->file, e->size);
	memset(e, 0, sizeof(*e));
}

int ada_elf_vdso(struct ada_elf *e)
{
	const Elf64_Ehdr *eh = (const void *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	uint64_t end;

	memset(e, 0, sizeof(*e));
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum > 256)
		return -1;
	/* The image ends with its section headers; a page or two, all mapped. */
	end = eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	if (end > 65536)
		return -1;
	e->file = (const uint8_t *)eh;
	e->size = end;
	e->in_memory = true;
	return 0;
}

static const Elf64_Shdr *shdr(const struct ada_elf *e, unsigned i)
{
	const Elf64_Ehdr *eh = (const void *)e->file;

	return i < eh->e_shnum ? (const void *)(e->file + eh->e_shoff + i * sizeof(Elf64_Shdr))
			       : NULL;
}

/* The NUL-terminated string at off in string table section i, or NULL. */
static const char *string_at(const struct ada_elf *e, unsigned i, uint64_t off)
{
	const Elf64_Shdr *s = shdr(e, i);

	if (!s || s->sh_offset + s->sh_size > e->size || off >= s->sh_size ||
	    !memchr(e->file + s->sh_offset + off, '\0', s->sh_size - off))
		return NULL;
	return (const char *)e->file + s->sh_offset + off;
}

const Elf64_Shdr *ada_elf_section(const struct ada_elf *e, uint32_t type, const char *name)
{
	const Elf64_Ehdr *eh = (const void *)e->file;

	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = shdr(e, i);
		const char *n;

		if (sh->sh_type != type)
			continue;
		if (!name)
			return sh;
		n = string_at(e, eh->e_shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return sh;
	}
	return NULL;
}

static int bind_rank(unsigned bind)
{
	return bind == STB_GLOBAL || bind == STB_GNU_UNIQUE ? 0 : bind == STB_WEAK ? 1 : 2;
}

size_t ada_elf_functions(const struct ada_elf *e, ada_elf_func_fn fn, void *arg)
{
	const Elf64_Shdr *sym = ada_elf_section(e, SHT_SYMTAB, NULL);
	size_t n = 0;

	if (!sym)
		sym = ada_elf_section(e, SHT_DYNSYM, NULL);
	if (!sym || sym->sh_offset + sym->sh_size > e->size)
		return 0;
	for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sym->sh_size; off += sizeof(Elf64_Sym)) {
		const Elf64_Sym *s = (const void *)(e->file + sym->sh_offset + off);
		unsigned type = ELF64_ST_TYPE(s->st_info);
		const char *name;

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
		    !s->st_value)
			continue;
		name = string_at(e, sym->sh_link, s->st_name);
		if (!name)
			continue;
		fn(name, e->bias + s->st_value, s->st_size, bind_rank(ELF64_ST_BIND(s->st_info)), arg);
		n++;
	}
	return n;
}

struct find_req {
	const char *path;
	uint32_t type;
	const char *name;
	Elf64_Shdr *out;
};

/* Apart, reading with pread into the calling thread's heap. */
static int find_section(void *arg)
{
	const struct find_req *r = arg;
	const char *path = r->path, *name = r->name;
	uint32_t type = r->type;
	Elf64_Shdr *out = r->out;
	size_t want = strlen(name) + 1;
	Elf64_Shdr *sh = NULL;
	Elf64_Ehdr eh;
	char *names = NULL;
	int fd = open(path ? path : "/proc/self/exe", O_RDONLY | O_CLOEXEC), found = -1;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !eh.e_shnum || eh.e_shstrndx >= eh.e_shnum || !(sh = calloc(eh.e_shnum, sizeof(*sh))) ||
	    pread(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff) !=
		    (ssize_t)(eh.e_shnum * sizeof(*sh)) ||
	    !(names = malloc(sh[eh.e_shstrndx].sh_size + 1)) ||
	    pread(fd, names, sh[eh.e_shstrndx].sh_size, (off_t)sh[eh.e_shstrndx].sh_offset) !=
		    (ssize_t)sh[eh.e_shstrndx].sh_size)
		goto out;
	for (unsigned i = 0; i < eh.e_shnum && found < 0; i++)
		if (sh[i].sh_type == type && sh[i].sh_name + want <= sh[eh.e_shstrndx].sh_size &&
		    !memcmp(names + sh[i].sh_name, name, want)) {
			*out = sh[i];
			found = 0;
		}
out:
	free(names);
	free(sh);
	close(fd);
	return found;
}

int ada_elf_find_section(const char *path, uint32_t type, const char *name, Elf64_Shdr *out)
{
	struct find_req r = { path, type, name, out };

	return ada_apart(find_section, &r);
}
