/* symtab.c - one module's function table: load, lookup, synthetic entries,
 * finalize, hash. The ELF, DWARF and demangling work is done by
 * elf_symbols.c, dwarf_lines.c and demangle.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sig.h"
#include "symtab_priv.h"

#define FNV64_OFFSET 0xcbf29ce484222325ull
#define FNV64_PRIME 0x100000001b3ull

void ada_funcs_free(struct ada_func *funcs, size_t nfuncs)
{
	size_t i;

	for (i = 0; i < nfuncs; i++) {
		free(funcs[i].name);
		free(funcs[i].demangled);
		free(funcs[i].file);
		ada_sig_free(funcs[i].sig);
	}
	free(funcs);
}

static void pending_free(struct ada_symtab_priv *p)
{
	size_t i;

	for (i = 0; i < p->npending; i++)
		free(p->pending[i].name);
	p->npending = 0;
}

void ada_symtab_free(struct ada_symtab *st)
{
	struct ada_symtab_priv *p;

	if (!st)
		return;
	p = st->priv;
	ada_funcs_free(st->funcs, st->nfuncs);
	if (p) {
		free(p->reach);
		pending_free(p);
		free(p->pending);
		free(p->dwarf_path);
		free(p);
	}
	free(st->path);
	free(st);
}

/* Must run whenever funcs changes: lookup depends on it. */
static int index_reach(struct ada_symtab *st)
{
	struct ada_symtab_priv *p = st->priv;
	uint64_t end, reach = 0;
	size_t i;

	free(p->reach);
	p->reach = calloc(st->nfuncs ? st->nfuncs : 1, sizeof(*p->reach));
	if (!p->reach)
		return -ENOMEM;
	for (i = 0; i < st->nfuncs; i++) {
		end = ada_func_end(&st->funcs[i]);
		if (end > reach)
			reach = end;
		p->reach[i] = reach;
	}
	return 0;
}

/* ---- load ---------------------------------------------------------------- */

/* A stripped module may have a separate debug file with the .symtab (then
 * static functions have names too) and the DWARF it lacks. */
static int load_debug_file(struct ada_symtab *st, const char *debug, bool want_syms,
			   bool want_dwarf)
{
	struct ada_symtab_priv *p = st->priv;
	Elf_Scn *symtab;
	Elf *elf;
	int fd, err;

	err = ada_libelf_open(debug, &fd, &elf);
	if (err)
		return err;
	if (want_dwarf && ada_elf_has_dwarf(elf) && !(p->dwarf_path = strdup(debug)))
		err = -ENOMEM;
	symtab = want_syms ? ada_elf_find_scn(elf, SHT_SYMTAB, NULL) : NULL;
	if (!err && symtab)
		err = ada_elf_read_funcs(elf, symtab, debug, &st->funcs, &st->nfuncs);
	ada_libelf_close(fd, elf);
	return err;
}

static int load_symbols(struct ada_symtab *st, Elf *elf)
{
	struct ada_symtab_priv *p = st->priv;
	Elf_Scn *symtab = ada_elf_find_scn(elf, SHT_SYMTAB, NULL);
	bool has_dwarf = ada_elf_has_dwarf(elf);
	char *debug = NULL;
	int err = 0;

	if (has_dwarf && !(p->dwarf_path = strdup(st->path)))
		return -ENOMEM;
	if (!symtab || !has_dwarf)
		debug = ada_elf_find_debug_file(elf, st->path, st->build_id, st->build_id_len);
	/* An unreadable debug file costs names and lines, not the module. */
	if (debug && load_debug_file(st, debug, !symtab, !has_dwarf) == -ENOMEM)
		err = -ENOMEM;
	free(debug);
	if (err || st->funcs)
		return err;
	if (!symtab)
		symtab = ada_elf_find_scn(elf, SHT_DYNSYM, NULL);
	/* Neither table (a stripped static binary): every address will get a
	 * synthetic entry. */
	if (!symtab)
		return 0;
	return ada_elf_read_funcs(elf, symtab, st->path, &st->funcs, &st->nfuncs);
}

static int load_elf(struct ada_symtab *st, Elf *elf)
{
	GElf_Ehdr ehdr;
	int err;

	if (!gelf_getehdr(elf, &ehdr)) {
		fprintf(stderr, "ada-symbolize: %s: cannot read ELF header (%s)\n", st->path,
			elf_errmsg(-1));
		return -EINVAL;
	}
	/* Symbol values are virtual addresses only once linked. */
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) {
		fprintf(stderr, "ada-symbolize: %s: not an executable or shared object\n",
			st->path);
		return -ENOEXEC;
	}
	st->machine = ehdr.e_machine;
	st->build_id_len = ada_elf_read_build_id(elf, st->build_id);
	err = load_symbols(st, elf);
	return err ? err : index_reach(st);
}

/* A table with no file behind it: every entry will be synthetic. */
static struct ada_symtab *symtab_alloc(const char *path)
{
	struct ada_symtab *st = calloc(1, sizeof(*st));

	if (!st || !(st->priv = calloc(1, sizeof(struct ada_symtab_priv))) ||
	    !(st->path = strdup(path))) {
		ada_symtab_free(st);
		return NULL;
	}
	return st;
}

struct ada_symtab *ada_symtab_empty(const char *name)
{
	return symtab_alloc(name);
}

bool ada_symtab_has_lines(const struct ada_symtab *st)
{
	for (size_t i = 0; i < st->nfuncs; i++)
		if (st->funcs[i].file)
			return true;
	return false;
}

int ada_symtab_of_funcs(const char *path, struct ada_func *funcs, size_t nfuncs,
			struct ada_symtab **out)
{
	struct ada_symtab *st = symtab_alloc(path);

	*out = NULL;
	if (!st) {
		ada_funcs_free(funcs, nfuncs);
		return -ENOMEM;
	}
	st->funcs = funcs;
	st->nfuncs = nfuncs;
	if (index_reach(st) < 0) {
		ada_symtab_free(st);
		return -ENOMEM;
	}
	*out = st;
	return 0;
}

int ada_symtab_load(const char *path, struct ada_symtab **out)
{
	struct ada_symtab *st;
	Elf *elf;
	int fd, err;

	*out = NULL;
	err = ada_libelf_open(path, &fd, &elf);
	if (err)
		return err;
	st = symtab_alloc(path);
	err = st ? load_elf(st, elf) : -ENOMEM;
	ada_libelf_close(fd, elf);
	if (err) {
		ada_symtab_free(st);
		return err;
	}
	*out = st;
	return 0;
}

/* ---- lookup -------------------------------------------------------------- */

long ada_symtab_lookup(const struct ada_symtab *st, uint64_t vaddr)
{
	const struct ada_symtab_priv *p = st->priv;
	size_t lo = 0, hi = st->nfuncs, mid;

	/* lo = the number of entries starting at or below vaddr */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (st->funcs[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The highest start first; stop once nothing earlier reaches vaddr. */
	while (lo-- > 0 && p->reach[lo] > vaddr)
		if (vaddr < ada_func_end(&st->funcs[lo]))
			return (long)lo;
	return -1;
}

/* ---- synthetic entries --------------------------------------------------- */

/* By address; for one address a name before none, then the first given. */
static int pending_cmp(const void *pa, const void *pb)
{
	const struct ada_pending *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (!a->name != !b->name)
		return a->name ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Sorts the pending entries and keeps the one pending_cmp puts first for
 * each address. */
static void pending_unique(struct ada_symtab_priv *p)
{
	size_t i, m = 0;

	if (p->npending < 2)
		return;
	qsort(p->pending, p->npending, sizeof(*p->pending), pending_cmp);
	for (i = 0; i < p->npending; i++) {
		if (m && p->pending[m - 1].addr == p->pending[i].addr)
			free(p->pending[i].name);
		else
			p->pending[m++] = p->pending[i];
	}
	p->npending = m;
}

/* The same unknown IP is usually reported once per event: deduplicating
 * before growing keeps pending within twice the distinct addresses. */
static int make_room(struct ada_symtab_priv *p)
{
	struct ada_pending *grown;
	size_t cap;

	pending_unique(p);
	if (p->npending < p->pending_cap / 2)
		return 0;
	cap = p->pending_cap ? 2 * p->pending_cap : 64;
	grown = realloc(p->pending, cap * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->pending = grown;
	p->pending_cap = cap;
	return 0;
}

void ada_symtab_add_synthetic(struct ada_symtab *st, uint64_t vaddr, const char *name)
{
	struct ada_symtab_priv *p = st->priv;
	long i = ada_symtab_lookup(st, vaddr);
	char *copy = NULL;
	int err;

	/* lookup returns the entry starting at vaddr when there is one (every
	 * entry holds its first byte, and the highest start comes first). */
	if (i >= 0 && (!name || st->funcs[i].addr == vaddr))
		return;
	if (name && !(copy = strdup(name))) {
		p->err = -ENOMEM;
		return;
	}
	if (p->npending == p->pending_cap) {
		err = make_room(p);
		if (err) {
			/* No return value here: finalize reports it. */
			free(copy);
			p->err = err;
			return;
		}
	}
	p->pending[p->npending++] = (struct ada_pending){ vaddr, copy, p->nadded++ };
}

/* The name is copied, not taken: pending keeps its own until the merge has
 * succeeded as a whole. */
static int synthetic_init(struct ada_func *f, const char *module, const struct ada_pending *e)
{
	const char *slash = strrchr(module, '/');

	memset(f, 0, sizeof(*f));
	f->addr = e->addr;
	f->synthetic = true;
	if (e->name) {
		if (!(f->name = strdup(e->name)))
			return -ENOMEM;
		f->demangled = ada_demangle(f->name);
		return 0;
	}
	if (asprintf(&f->name, "%s+0x%" PRIx64, slash ? slash + 1 : module, e->addr) < 0) {
		f->name = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Names every pending address first, so that running out of memory
 * leaves the table as it was; the merge itself cannot fail. */
static int merge_pending(struct ada_symtab *st)
{
	struct ada_symtab_priv *p = st->priv;
	struct ada_func *syn, *merged;
	size_t i, j, k, n;

	pending_unique(p);
	n = p->npending;
	if (!n)
		return 0;
	syn = calloc(n, sizeof(*syn));
	merged = calloc(st->nfuncs + n, sizeof(*merged));
	for (j = 0; syn && merged && j < n; j++)
		if (synthetic_init(&syn[j], st->path, &p->pending[j]))
			break;
	if (!syn || !merged || j < n) {
		ada_funcs_free(syn, syn ? j : 0);
		free(merged);
		return -ENOMEM;
	}
	/* No entry starts at a pending address (add_synthetic), so the order
	 * between equal addresses never arises. */
	for (i = j = k = 0; i < st->nfuncs || j < n;) {
		if (i == st->nfuncs || (j < n && syn[j].addr < st->funcs[i].addr))
			merged[k++] = syn[j++];
		else
			merged[k++] = st->funcs[i++];
	}
	free(syn);
	free(st->funcs);
	st->funcs = merged;
	st->nfuncs = k;
	pending_free(p);
	return 0;
}

/* ---- finalize ------------------------------------------------------------ */

static bool *mark_wanted(const struct ada_symtab *st, const uint64_t *want, size_t nwant)
{
	bool *wanted = calloc(st->nfuncs ? st->nfuncs : 1, sizeof(*wanted));
	size_t i;
	long idx;

	for (i = 0; wanted && i < nwant; i++) {
		idx = ada_symtab_lookup(st, want[i]);
		if (idx >= 0)
			wanted[idx] = true;
	}
	return wanted;
}

int ada_symtab_finalize(struct ada_symtab *st, const uint64_t *want, size_t nwant)
{
	struct ada_symtab_priv *p = st->priv;
	bool *wanted = NULL;
	int err;

	if (p->err)
		return p->err;
	err = merge_pending(st);
	if (!err)
		err = index_reach(st);
	if (err)
		return err;
	if (!p->dwarf_path)
		return 0;
	if (want && !(wanted = mark_wanted(st, want, nwant)))
		return -ENOMEM;
	ada_dwarf_fill_lines(st->funcs, st->nfuncs, wanted, p->dwarf_path);
	free(wanted);
	return 0;
}

/* ---- hash ---------------------------------------------------------------- */

static uint64_t fnv1a(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= FNV64_PRIME;
	}
	return h;
}

/* Little-endian whatever the host, so that the hash names the table. */
static uint64_t fnv1a_u64(uint64_t h, uint64_t v)
{
	unsigned char le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	return fnv1a(h, le, sizeof(le));
}

void ada_symtab_hash(const struct ada_symtab *st, char out[17])
{
	uint64_t h = FNV64_OFFSET;
	size_t i;

	for (i = 0; i < st->nfuncs; i++) {
		h = fnv1a_u64(h, st->funcs[i].addr);
		h = fnv1a_u64(h, st->funcs[i].size);
		/* the NUL too: ("ab","c") and ("a","bc") must differ */
		h = fnv1a(h, st->funcs[i].name, strlen(st->funcs[i].name) + 1);
	}
	snprintf(out, 17, "%016" PRIx64, h);
}
