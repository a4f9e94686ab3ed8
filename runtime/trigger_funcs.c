/* trigger_funcs.c - func:GLOB triggers as address ranges.
 *
 * The writer reads the symbol table of each loaded module's file (.symtab,
 * or .dynsym where the file is stripped) and keeps the ranges of the
 * functions whose names match a glob: a CALL is a trigger when its address
 * falls in one, found with a binary search on the writer's side. Names are
 * the symbols' own (mangled for C++: func:*parse* matches them). Resolved
 * again whenever the loader's load and unload counts move (a dlopen or a
 * dlclose).
 */
#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ada_internal.h"
#include "trigger.h"

struct func_range {
	uint64_t lo, hi;
	const struct ada_trigger_func *trig;
};

static struct {
	struct func_range *r;
	size_t n, cap;
	uint64_t max_hi;
	unsigned long long adds, subs; /* the loader's counts when last resolved */
	bool resolved;
} ranges;

static void range_add(uint64_t lo, uint64_t hi, const struct ada_trigger_func *trig)
{
	if (ranges.n == ranges.cap) {
		size_t cap = ranges.cap ? ranges.cap * 2 : 64;
		struct func_range *r = realloc(ranges.r, cap * sizeof(*r));

		if (!r)
			return;
		ranges.r = r;
		ranges.cap = cap;
	}
	ranges.r[ranges.n++] = (struct func_range){ lo, hi, trig };
}

/* The section of type `type` in a mapped ELF file, or NULL. */
static const Elf64_Shdr *section(const uint8_t *file, size_t size, uint32_t type)
{
	const Elf64_Ehdr *eh = (const void *)file;

	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		return NULL;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = (const void *)(file + eh->e_shoff + i * sizeof(Elf64_Shdr));

		if (sh->sh_type == type)
			return sh;
	}
	return NULL;
}

/* The matching functions of one mapped file, loaded at bias. */
static void scan_symbols(const uint8_t *file, size_t size, uint64_t bias)
{
	const Elf64_Ehdr *eh = (const void *)file;
	const Elf64_Shdr *sym, *str;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return;
	sym = section(file, size, SHT_SYMTAB);
	if (!sym)
		sym = section(file, size, SHT_DYNSYM);
	if (!sym || sym->sh_link >= eh->e_shnum || sym->sh_offset + sym->sh_size > size)
		return;
	str = (const void *)(file + eh->e_shoff + sym->sh_link * sizeof(Elf64_Shdr));
	if (str->sh_offset + str->sh_size > size)
		return;
	for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sym->sh_size; off += sizeof(Elf64_Sym)) {
		const Elf64_Sym *s = (const void *)(file + sym->sh_offset + off);
		unsigned type = ELF64_ST_TYPE(s->st_info);
		const char *name;

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
		    !s->st_value || s->st_name >= str->sh_size)
			continue;
		name = (const char *)file + str->sh_offset + s->st_name;
		if (!memchr(name, '\0', str->sh_size - s->st_name))
			continue;
		for (unsigned i = 0; i < ada_rt.cfg.trigger.nfuncs; i++) {
			const struct ada_trigger_func *f = &ada_rt.cfg.trigger.funcs[i];

			if (!fnmatch(f->glob, name, 0)) {
				range_add(bias + s->st_value, bias + s->st_value + (s->st_size ?: 1), f);
				break;
			}
		}
	}
}

static int each_module(struct dl_phdr_info *info, void *ns, void *arg)
{
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL;
	struct stat st;
	void *file;
	int fd;

	(void)ns;
	(void)arg;
	if (!path) /* the executable (the vdso has a name, and no file) */
		path = "/proc/self/exe";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (file != MAP_FAILED) {
			scan_symbols(file, (size_t)st.st_size, info->dlpi_addr);
			munmap(file, (size_t)st.st_size);
		}
	}
	close(fd);
	return 0;
}

static int count_loads(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	((unsigned long long *)arg)[0] = info->dlpi_adds;
	((unsigned long long *)arg)[1] = info->dlpi_subs;
	return 1;
}

static int by_lo(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void ada_trigger_resolve(void)
{
	unsigned long long counts[2] = { 0, 0 };

	if (!ada_rt.cfg.trigger.nfuncs)
		return;
	dl_iterate_phdr(count_loads, counts);
	if (ranges.resolved && counts[0] == ranges.adds && counts[1] == ranges.subs)
		return;
	ranges.n = 0;
	ada_modules_each(each_module, NULL);
	qsort(ranges.r, ranges.n, sizeof(*ranges.r), by_lo);
	ranges.max_hi = 0;
	for (size_t i = 0; i < ranges.n; i++)
		if (ranges.r[i].hi > ranges.max_hi)
			ranges.max_hi = ranges.r[i].hi;
	ranges.adds = counts[0];
	ranges.subs = counts[1];
	ranges.resolved = true;
}

/* After the writer read a thread's head: a library whose functions that
 * thread called before the head was stored was loaded before then, so the
 * loader's counts, read now, show it. One dl_iterate_phdr call (its first
 * module only) when function triggers are configured, none otherwise. */
void ada_trigger_refresh(void)
{
	if (ada_rt.cfg.trigger.nfuncs)
		ada_trigger_resolve();
}

bool ada_trigger_funcs_any(void)
{
	return ranges.n > 0;
}

const struct ada_trigger_func *ada_trigger_func_at(uint64_t addr)
{
	size_t lo = 0, hi = ranges.n;

	if (!ranges.n || addr < ranges.r[0].lo || addr >= ranges.max_hi)
		return NULL;
	while (lo < hi) { /* the last range starting at or below addr */
		size_t mid = (lo + hi) / 2;

		if (ranges.r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < ranges.r[lo - 1].hi ? ranges.r[lo - 1].trig : NULL;
}
