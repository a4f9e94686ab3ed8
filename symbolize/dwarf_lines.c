/* dwarf_lines.c - source file and line of functions, read with libdw.
 *
 * "main at app.c:12" should name the line where main is declared, so the
 * subprogram DIE's DW_AT_decl_file/decl_line come first, read through
 * DW_AT_specification and DW_AT_abstract_origin. The line table
 * entry of the address is the fallback: synthetic entries, and functions
 * without a DIE of their own (GNU C nested functions, hand-written assembly).
 *
 * dwarf_addrdie() would find the CU of an address, but libdw 0.188 reads
 * only .debug_aranges for it, which clang 14 does not emit. So the CUs' own address
 * ranges are indexed once, and each CU's functions the first time an
 * address lands in it: a few wanted addresses touch only their own CUs.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symtab_priv.h"

struct cu_range {
	Dwarf_Addr lo, hi;
	size_t cu;
};

struct fn_line {
	Dwarf_Addr addr;  /* start of one of the function's ranges */
	const char *file; /* libdw's string, valid until dwarf_end */
	int line;
	Dwarf_Off die;    /* the function's DIE, for its parameters */
};

struct cu {
	Dwarf_Die die;
	struct fn_line *fns; /* sorted by addr once indexed */
	size_t nfns, fns_cap;
	bool indexed;
};

struct dw_index {
	Dwarf *dw;
	struct cu *cus;
	size_t ncus, cus_cap;
	struct cu_range *ranges; /* sorted by lo */
	size_t nranges, ranges_cap;
};

/* arr, holding n elements of *cap, with room for one more: the same or a
 * moved array, or NULL (arr is then untouched). */
static void *grow(void *arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return arr;
	ncap = *cap ? 2 * *cap : 16;
	p = reallocarray(arr, ncap, elem);
	if (p)
		*cap = ncap;
	return p;
}

/* Code the linker discarded (--gc-sections, COMDAT duplicates) keeps its
 * DWARF with a start of 0: it would claim addresses of real code. */
static bool real_range(Dwarf_Addr lo, Dwarf_Addr hi)
{
	return lo != 0 && lo < hi;
}

static int addr_cmp(Dwarf_Addr a, Dwarf_Addr b)
{
	return a < b ? -1 : a > b;
}

static int range_cmp(const void *a, const void *b)
{
	return addr_cmp(((const struct cu_range *)a)->lo, ((const struct cu_range *)b)->lo);
}

static int fn_cmp(const void *a, const void *b)
{
	return addr_cmp(((const struct fn_line *)a)->addr, ((const struct fn_line *)b)->addr);
}

/* ---- CU index ------------------------------------------------------------ */

static int add_cu(struct dw_index *ix, Dwarf_Die *cudie)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	void *p;

	p = grow(ix->cus, &ix->cus_cap, ix->ncus, sizeof(*ix->cus));
	if (!p)
		return -ENOMEM;
	ix->cus = p;
	ix->cus[ix->ncus] = (struct cu){ .die = *cudie };
	while ((off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		if (!real_range(lo, hi))
			continue;
		p = grow(ix->ranges, &ix->ranges_cap, ix->nranges, sizeof(*ix->ranges));
		if (!p)
			return -ENOMEM;
		ix->ranges = p;
		ix->ranges[ix->nranges++] = (struct cu_range){ .lo = lo, .hi = hi, .cu = ix->ncus };
	}
	ix->ncus++;
	return 0;
}

static int index_cus(struct dw_index *ix)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cudie;
	int err;

	/* Type units and partial units hold no code of their own. */
	while (dwarf_get_units(ix->dw, unit, &unit, NULL, NULL, &cudie, NULL) == 0) {
		if (dwarf_tag(&cudie) != DW_TAG_compile_unit)
			continue;
		err = add_cu(ix, &cudie);
		if (err)
			return err;
	}
	if (ix->nranges)
		qsort(ix->ranges, ix->nranges, sizeof(*ix->ranges), range_cmp);
	return 0;
}

static struct cu *cu_of(struct dw_index *ix, Dwarf_Addr addr)
{
	size_t lo = 0, hi = ix->nranges, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ix->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= ix->ranges[lo - 1].hi)
		return NULL;
	return &ix->cus[ix->ranges[lo - 1].cu];
}

/* ---- per-CU function index ----------------------------------------------- */

/* dwarf_decl_file() of libdw 0.188 reads file index 0 as "no file", as
 * DWARF 4 defined it; DWARF 5 made 0 the CU's primary source file, and
 * clang names it so when the source lies outside the compilation directory. */
static const char *decl_file(Dwarf_Die *fn)
{
	Dwarf_Attribute attr;
	Dwarf_Half version;
	Dwarf_Files *files;
	Dwarf_Die cudie;
	Dwarf_Word idx;
	size_t nfiles;

	/* integrate: the attribute may sit on the DIE's specification or
	 * abstract origin, and attr.cu is then the CU that holds it */
	if (dwarf_formudata(dwarf_attr_integrate(fn, DW_AT_decl_file, &attr), &idx) ||
	    !dwarf_cu_die(attr.cu, &cudie, &version, NULL, NULL, NULL, NULL, NULL) ||
	    (idx == 0 && version < 5) || dwarf_getsrcfiles(&cudie, &files, &nfiles) ||
	    idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* dwarf_getfuncs callback: every range start of a function with code gets
 * its declaration, so that a part split off by the compiler (foo.cold)
 * carries foo's line too. */
static int add_fn(Dwarf_Die *fn, void *arg)
{
	struct cu *cu = arg;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	const char *file;
	void *p;
	int line;

	file = decl_file(fn);
	if (!file || dwarf_decl_line(fn, &line) || line <= 0)
		return DWARF_CB_OK;
	while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0) {
		if (!real_range(lo, hi))
			continue;
		p = grow(cu->fns, &cu->fns_cap, cu->nfns, sizeof(*cu->fns));
		if (!p)
			return DWARF_CB_ABORT;
		cu->fns = p;
		cu->fns[cu->nfns++] = (struct fn_line){ .addr = lo, .file = file, .line = line,
							  .die = dwarf_dieoffset(fn) };
	}
	return DWARF_CB_OK;
}

/* A CU that fails to index part-way keeps what it found: the line table
 * still answers for the rest. */
static void index_fns(struct cu *cu)
{
	cu->indexed = true;
	dwarf_getfuncs(&cu->die, add_fn, cu, 0);
	if (cu->nfns)
		qsort(cu->fns, cu->nfns, sizeof(*cu->fns), fn_cmp);
}

/* ---- lookup -------------------------------------------------------------- */

/* Drops "." segments and doubled slashes, in place ("./a/./b//c" → "a/b/c"). */
static void drop_dots(char *p)
{
	char *in = p, *out = p;
	bool absolute = *p == '/';

	while (*in) {
		size_t n = strcspn(in, "/");

		if (n == 1 && in[0] == '.') {
			in += 1;
		} else if (n) {
			if (out != p || absolute)
				*out++ = '/';
			memmove(out, in, n);
			out += n;
			in += n;
		}
		while (*in == '/')
			in++;
	}
	if (out == p && absolute)
		*out++ = '/';
	*out = '\0';
}

/* Whether relative file already begins with relative dir (both without
 * their "." segments). */
static bool under(const char *dir, const char *file)
{
	char *d = strdup(dir), *f = strdup(file);
	bool yes = false;

	if (d && f) {
		size_t n;

		drop_dots(d);
		drop_dots(f);
		n = strlen(d);
		yes = n && !strncmp(f, d, n) && f[n] == '/';
	}
	free(d);
	free(f);
	return yes;
}

char *ada_source_path(const char *dir, const char *file)
{
	char *path;

	if (file[0] == '/' || !dir || (dir[0] != '/' && under(dir, file)))
		path = strdup(file);
	else if (asprintf(&path, "%s/%s", dir, file) < 0)
		path = NULL;
	if (path)
		drop_dots(path);
	return path;
}

/* DWARF names a file relative to the CU's compilation directory unless it
 * is absolute; gcc usually records absolute directories, clang relative
 * ones, so joining makes one binary read the same from either compiler. */
static void set_line(struct ada_func *f, struct cu *cu, const char *file, int line)
{
	Dwarf_Attribute attr;
	const char *dir;

	if (!file || line <= 0)
		return;
	dir = file[0] == '/' ? NULL : dwarf_formstring(dwarf_attr(&cu->die, DW_AT_comp_dir, &attr));
	f->file = ada_source_path(dir, file);
	f->line = f->file ? (uint32_t)line : 0;
}

/* The parameters of the function of DIE fn->die (sig.h). A clone gcc made (foo.isra.0, foo.constprop.0) takes other parameters than
 * its source declares, and a part split off (foo.cold) is no function's
 * entry: those keep their raw registers. */
static void fill_sig(struct dw_index *ix, struct ada_func *f, const struct fn_line *fn)
{
	Dwarf_Die die;

	if (f->sig || strchr(f->name, '.') || !dwarf_offdie(ix->dw, fn->die, &die))
		return;
	f->sig = ada_dwarf_sig(&die);
}

static void fill_one(struct dw_index *ix, struct ada_func *f)
{
	struct fn_line key = { .addr = f->addr }, *fn;
	struct cu *cu = cu_of(ix, f->addr);
	Dwarf_Line *dl;
	int line;

	if (!cu)
		return;
	if (!cu->indexed)
		index_fns(cu);
	fn = cu->nfns ? bsearch(&key, cu->fns, cu->nfns, sizeof(*cu->fns), fn_cmp) : NULL;
	if (fn) {
		set_line(f, cu, fn->file, fn->line);
		fill_sig(ix, f, fn);
		return;
	}
	dl = dwarf_getsrc_die(&cu->die, f->addr);
	if (dl && !dwarf_lineno(dl, &line))
		set_line(f, cu, dwarf_linesrc(dl, NULL, NULL), line);
}

static void index_free(struct dw_index *ix)
{
	size_t i;

	for (i = 0; i < ix->ncus; i++)
		free(ix->cus[i].fns);
	free(ix->cus);
	free(ix->ranges);
}

/* ---- files kept open ------------------------------------------------------ */

/* One ada-symbolize run names process after process, and the processes of
 * a test suite share their binaries (libc, the library under test): each
 * file's DWARF is opened and its CUs indexed once, and kept for the next
 * process. libc's separate debug file is compressed, and inflating it again
 * for each process was 60 % of converting a small one (json-c's ctest: 33
 * processes, 2.5 s). A file is known by device, inode, size and time, so a
 * rebuilt one is read anew. */
#define OPEN_FILES 8

struct dw_file {
	struct dw_index ix;
	int fd;
	struct stat st;
	unsigned long used; /* when last used: the oldest goes first */
};

static struct dw_file files[OPEN_FILES];
static unsigned long uses;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

static void file_close(struct dw_file *f)
{
	index_free(&f->ix);
	dwarf_end(f->ix.dw);
	close(f->fd);
	memset(f, 0, sizeof(*f));
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The open file of dwarf_path, opened and indexed if it is not; NULL if it
 * cannot be read. Under files_lock. */
static struct dw_index *file_index(const char *dwarf_path)
{
	struct dw_file *f = &files[0];
	struct stat st;
	size_t i;

	if (stat(dwarf_path, &st) < 0)
		return NULL;
	for (i = 0; i < OPEN_FILES; i++) {
		if (files[i].ix.dw && same_file(&files[i].st, &st)) {
			files[i].used = ++uses;
			return &files[i].ix;
		}
		if (files[i].used < f->used)
			f = &files[i];
	}
	if (f->ix.dw)
		file_close(f);
	f->fd = open(dwarf_path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return NULL;
	f->ix.dw = dwarf_begin(f->fd, DWARF_C_READ);
	if (!f->ix.dw) {
		/* The file was seen to have .debug_info: worth one line. */
		fprintf(stderr, "ada-symbolize: %s: cannot read DWARF (%s)\n", dwarf_path,
			dwarf_errmsg(-1));
		close(f->fd);
		memset(f, 0, sizeof(*f));
		return NULL;
	}
	if (index_cus(&f->ix)) {
		file_close(f);
		return NULL;
	}
	f->st = st;
	f->used = ++uses;
	return &f->ix;
}

void ada_dwarf_fill_lines(struct ada_func *funcs, size_t nfuncs, const bool *wanted,
			  const char *dwarf_path)
{
	struct dw_index *ix;

	pthread_mutex_lock(&files_lock);
	ix = file_index(dwarf_path);
	for (size_t i = 0; ix && i < nfuncs; i++)
		if ((!wanted || wanted[i]) && !funcs[i].file)
			fill_one(ix, &funcs[i]);
	pthread_mutex_unlock(&files_lock);
}
