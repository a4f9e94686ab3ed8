/* trigger_funcs.c - func:GLOB triggers as address ranges.
 *
 * The writer reads the symbol table of each loaded module's file (.symtab,
 * or .dynsym where the file is stripped) and keeps the ranges of the
 * functions whose names match a glob: a CALL is a trigger when its address
 * falls in one, found with a binary search on the writer's side. Names are
 * the symbols' own (mangled for C++: func:*parse* matches them). Resolved
 * again whenever the loader's load and unload counts move (a dlopen or a
 * dlclose); in a recorder process, which cannot see the program's loader,
 * whenever the modules recorded change (modmap.c).
 */
#include <fnmatch.h>
#include <link.h>
#include <stdlib.h>

#include "elf_file.h"
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
	uint64_t generation;           /* a recorder's: modmap.c's count */
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

/* A function of a module: a range if its name matches a glob. */
static void match_function(const char *name, uint64_t addr, uint64_t size, int rank, void *arg)
{
	(void)arg;
	(void)rank;
	for (unsigned i = 0; i < ada_rt.cfg.trigger.nfuncs; i++) {
		const struct ada_trigger_func *f = &ada_rt.cfg.trigger.funcs[i];

		if (!fnmatch(f->glob, name, 0)) {
			range_add(addr, addr + (size ?: 1), f);
			return;
		}
	}
}

static void module_ranges(const char *path, uint64_t bias, void *arg)
{
	struct ada_elf e;

	(void)arg;
	if (ada_elf_open(path, bias, &e) == 0) {
		ada_elf_functions(&e, match_function, NULL);
		ada_elf_close(&e);
	}
}

static int each_module(struct dl_phdr_info *info, void *ns, void *arg)
{
	/* The executable has no name (the vdso has one, and no file). */
	(void)ns;
	module_ranges(info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL, info->dlpi_addr,
		      arg);
	return 0;
}

/* Whether the modules changed since the ranges were made. */
static bool modules_moved(void)
{
	unsigned long long counts[2] = { 0, 0 };

	if (ada_recorder_self()) {
		/* What threads queued (a dlopen's MODULE) is the list's; without
		 * the dynamic hooks nothing is queued: the program's maps, read
		 * once its size moved (a CALL into a library just loaded is
		 * looked at with the library known, its pre-roll still there). */
		ada_meta_queue_flush();
		ada_modmap_look_if_moved();
		if (ranges.resolved && ada_modmap_generation() == ranges.generation)
			return false;
		ranges.generation = ada_modmap_generation();
		return true;
	}
	ada_loader_counts(counts);
	if (ranges.resolved && counts[0] == ranges.adds && counts[1] == ranges.subs)
		return false;
	ranges.adds = counts[0];
	ranges.subs = counts[1];
	return true;
}

static int by_lo(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void ada_trigger_resolve(void)
{
	if (!ada_rt.cfg.trigger.nfuncs || !modules_moved())
		return;
	ranges.n = 0;
	if (ada_recorder_self())
		ada_modmap_each_live(module_ranges, NULL);
	else
		ada_modules_each(each_module, NULL);
	if (ranges.n) /* none yet (a library to come): no array, and qsort's may not be NULL */
		qsort(ranges.r, ranges.n, sizeof(*ranges.r), by_lo);
	ranges.max_hi = 0;
	for (size_t i = 0; i < ranges.n; i++)
		if (ranges.r[i].hi > ranges.max_hi)
			ranges.max_hi = ranges.r[i].hi;
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
