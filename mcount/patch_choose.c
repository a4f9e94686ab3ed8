/* patch_choose.c - which functions patchable mode patches, as what
 * (mcount/patch.c writes them): by name, from each module's symbol table,
 * against the lists of name globs the variables give.
 *
 *   trace_on / trace_off  func:GLOB:trace_on|off in ADA_TRIGGER
 *   graph                 ADA_GRAPH
 *   plain                 ADA_FILTER's (all when empty), less ADA_NOTRACE's
 *
 * The first that matches any of a function's names wins, in that order.
 * And which modules have sites to patch at all.
 */
#include <fnmatch.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"
#include "patch.h"

void ada_globs_set(struct globs *gl, const char *var, const char *list)
{
	char *save = NULL;

	memset(gl, 0, sizeof(*gl));
	gl->var = var;
	snprintf(gl->src, sizeof(gl->src), "%s", list);
	snprintf(gl->buf, sizeof(gl->buf), "%s", list);
	for (char *t = strtok_r(gl->buf, ",", &save); t && gl->n < GLOBS_MAX;
	     t = strtok_r(NULL, ",", &save))
		gl->g[gl->n++] = t;
}

static bool globs_match(struct globs *gl, const char *name)
{
	bool any = false;

	for (unsigned i = 0; i < gl->n; i++)
		if (!fnmatch(gl->g[i], name, 0)) {
			gl->matched[i]++;
			any = true;
		}
	return any;
}

/* The first glob of gl that matched nothing, or NULL. */
const char *ada_globs_unmatched(const struct globs *gl)
{
	for (unsigned i = 0; i < gl->n; i++)
		if (!gl->matched[i])
			return gl->g[i];
	return NULL;
}

static bool any_globs(const struct patch_choice *c)
{
	return c->filter.n || c->notrace.n || c->graph.n || c->trace_on.n || c->trace_off.n;
}

static uint8_t kind_of(struct patch_choice *c, const char *name)
{
	if (globs_match(&c->trace_on, name))
		return PATCH_TRACE_ON;
	if (globs_match(&c->trace_off, name))
		return PATCH_TRACE_OFF;
	if (globs_match(&c->graph, name))
		return PATCH_GRAPH;
	if (c->filter.n && !globs_match(&c->filter, name))
		return PATCH_NONE;
	return globs_match(&c->notrace, name) ? PATCH_NONE : PATCH_PLAIN;
}

struct named {
	struct patch_choice *c;
	struct {
		uintptr_t addr;
		uint8_t kind;
	} *f;
	size_t n, cap;
};

static void name_one(const char *name, uint64_t addr, uint64_t size, int rank, void *arg)
{
	struct named *nm = arg;

	(void)size;
	(void)rank;
	if (nm->n == nm->cap) {
		size_t cap = nm->cap ? 2 * nm->cap : 1024;
		void *f = realloc(nm->f, cap * sizeof(*nm->f));

		if (!f)
			return;
		nm->f = f;
		nm->cap = cap;
	}
	nm->f[nm->n].addr = addr;
	nm->f[nm->n++].kind = kind_of(nm->c, name);
}

int ada_patch_by_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Each site's kind into out[]: from the names of the functions at its
 * entry (the strongest kind of their aliases; the file's symbol table is
 * read only when some glob is set), or, with no name, plain unless
 * ADA_FILTER chooses. */
void ada_patch_kinds(struct patch_choice *c, const char *path, uintptr_t bias,
		     const uintptr_t *sites, size_t n, uint8_t *out)
{
	struct named nm = { c, NULL, 0, 0 };
	struct ada_elf e;
	size_t j = 0;

	if (any_globs(c) && ada_elf_open(path, bias, &e) == 0) {
		ada_elf_functions(&e, name_one, &nm);
		ada_elf_close(&e);
		qsort(nm.f, nm.n, sizeof(*nm.f), ada_patch_by_addr);
	}
	for (size_t i = 0; i < n; i++) {
		uintptr_t fn = sites[i] + PATCH_PAD;
		int k = -1;

		while (j < nm.n && nm.f[j].addr < fn)
			j++;
		for (size_t a = j; a < nm.n && nm.f[a].addr == fn; a++)
			if (nm.f[a].kind > k)
				k = nm.f[a].kind;
		out[i] = k >= 0 ? (uint8_t)k : c->filter.n ? PATCH_NONE : PATCH_PLAIN;
	}
	free(nm.f);
}

/* ---- which modules ---------------------------------------------------------------- */

/* The module's site table, if its file has one. */
bool ada_patch_site_table(const char *path, Elf64_Shdr *sh)
{
	return ada_elf_find_section(path, SHT_PROGBITS, ADA_PATCHABLE_SECTION, sh) == 0 &&
	       sh->sh_size;
}

/* The libraries the runtime calls itself: libc (and an older glibc's
 * libpthread and libdl), the loader, and lz4 for the writer's frames. A
 * patched entry there would have ada record its own work, and adacc builds
 * none of them; passing them by name spares every start the open and the
 * section headers of each (15 system calls; 15-30 us here, in page cache). */
static bool runtime_dependency(const char *path)
{
	static const char *const names[] = { "libc.so.6", "libpthread.so.0", "libdl.so.2",
					     "liblz4.so.1", NULL };
	const char *base = strrchr(path, '/') + 1;

	if (!strncmp(base, "ld-linux-", 9)) /* ld-linux-x86-64.so.2, ld-linux-aarch64.so.1 */
		return true;
	for (int i = 0; names[i]; i++)
		if (!strcmp(base, names[i]))
			return true;
	return false;
}

/* Modules whose file is not worth opening (a few dozen microseconds each of
 * start-up): libada.so itself, never built patchable (libada.a is part of
 * an executable: the executable, unnamed, is looked at), the libraries it
 * calls itself, and the vDSO, which has no file ("linux-vdso.so.1": no
 * path). */
bool ada_patch_never(const struct dl_phdr_info *info)
{
	uintptr_t self = (uintptr_t)ada_patch_never;

	if (!info->dlpi_name || !*info->dlpi_name)
		return false;
	if (!strchr(info->dlpi_name, '/') || runtime_dependency(info->dlpi_name))
		return true;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && self >= info->dlpi_addr + ph->p_vaddr &&
		    self < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
			return true;
	}
	return false;
}
