/* patch.c - patchable mode: functions traced only once the runtime patches
 * them in.
 *
 * adacc --ada-mode=patchable compiles with -fpatchable-function-entry=7,5:
 * each function begins
 *
 *     A:    nop x5          before the function's symbol
 *     A+5:  nop; nop        its entry
 *
 * and its module's __patchable_function_entries section lists every A. A
 * function nobody patched costs its two NOPs. To trace one, the runtime
 * writes
 *
 *     A:    call stub       the module's stub: jmp *ada_patch_entry
 *     A+5:  jmp A           eb f9
 *
 * first the call, which no thread runs (nothing jumps to A before the jump
 * is there), then the jump as one 2-byte store, atomic on x86 within a
 * cache line (XRay patches its sleds the same way). A thread that was
 * between the two NOPs when the jump was written resumes at its second
 * byte, f9: stc, which sets the carry flag, that nobody relies on at a
 * function's entry, and runs on. Unpatching stores 66 90, a single 2-byte
 * NOP, so later patches never meet a thread inside an instruction. The
 * trampoline (mcount/<arch>/patch.S) takes the fentry path (the same
 * return hijacking, detail lane and all) and returns to A+7, past the jump.
 *
 * The call reaches ±2 GiB: each module gets a stub page next to it. Code
 * pages are made writable for the writes to them only, a page at a time.
 * Which functions: all of them, or those whose names match ADA_FILTER,
 * less those matching ADA_NOTRACE (names from the module's symbol table,
 * read from its file). Modules are patched at start-up and, when a pass
 * sees the set of modules change (a dlopen), the new ones.
 */
#include <fnmatch.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_file.h"

#define SECTION "__patchable_function_entries"
#define PAD 5 /* NOP bytes before the entry: the call */
#define GLOBS_MAX 64

ADA_HIDDEN void ada_patch_entry(void);

static const uint8_t nops[PAD + 2] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
static const uint8_t jump_back[2] = { 0xeb, 0x100 - (PAD + 2) }; /* jmp A */
static const uint8_t nop2[2] = { 0x66, 0x90 };

/* The globs of ADA_FILTER and ADA_NOTRACE, and how many functions each matched. */
struct globs {
	char buf[1024];
	const char *g[GLOBS_MAX];
	size_t matched[GLOBS_MAX];
	unsigned n;
};

static struct {
	pthread_mutex_t lock;  /* passes: start-up, after a dlopen, the writer's */
	struct globs filter, notrace;
	uintptr_t *seen;       /* bases of the modules looked at, as of the last pass */
	size_t nseen;
	struct ada_meta_patched stats; /* what process.meta is told */
	size_t npatched;       /* P.sites in use */
	unsigned long long adds, subs; /* the loader's counts at the last pass */
	uint8_t **sites;       /* patched, in address order within each module */
	uintptr_t (*segs)[2];  /* the patched modules' executable segments, page-aligned */
	size_t nsegs;
	size_t cap;
	bool off;              /* their entries are NOPs again (ada_disable) */
	bool started;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void globs_split(struct globs *gl, const char *list)
{
	char *save = NULL;

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

/* ---- which functions ---------------------------------------------------------- */

struct chosen {
	uintptr_t *addr;
	size_t n, cap;
};

static void choose(const char *name, uint64_t addr, uint64_t size, void *arg)
{
	struct chosen *c = arg;

	(void)size;
	if (P.filter.n && !globs_match(&P.filter, name))
		return;
	if (globs_match(&P.notrace, name))
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		uintptr_t *a = realloc(c->addr, cap * sizeof(*a));

		if (!a)
			return;
		c->addr = a;
		c->cap = cap;
	}
	c->addr[c->n++] = addr;
}

static int by_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static bool chosen_has(const struct chosen *c, uintptr_t fn)
{
	return bsearch(&fn, c->addr, c->n, sizeof(*c->addr), by_addr) != NULL;
}

/* ---- writing code ----------------------------------------------------------------- */

/* A page for the module's stub, within reach of a rel32 call from [lo, hi). */
static uint8_t *stub_near(uintptr_t lo, uintptr_t hi)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t step = 1u << 20;

	for (uintptr_t off = step; off < (1ull << 30); off += step) {
		uintptr_t tries[2] = { (hi + off) & ~(uintptr_t)(page - 1),
				       lo > off + (uintptr_t)page ? (lo - off) & ~(uintptr_t)(page - 1) : 0 };

		for (int i = 0; i < 2; i++) {
			void *p;

			if (!tries[i])
				continue;
			p = mmap((void *)tries[i], (size_t)page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == (void *)tries[i])
				return p;
			if (p != MAP_FAILED) /* a kernel that took the address as a hint */
				munmap(p, (size_t)page);
		}
	}
	return NULL;
}

/* jmp *0(%rip); .quad ada_patch_entry */
static uint8_t *stub_make(uintptr_t lo, uintptr_t hi)
{
	uint8_t *p = stub_near(lo, hi);
	uintptr_t target = (uintptr_t)ada_patch_entry;

	if (!p)
		return NULL;
	memcpy(p, (const uint8_t[]){ 0xff, 0x25, 0, 0, 0, 0 }, 6);
	memcpy(p + 6, &target, sizeof(target));
	if (mprotect(p, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC) < 0) {
		munmap(p, (size_t)sysconf(_SC_PAGESIZE));
		return NULL;
	}
	return p;
}

/* Code pages are writable (and still executable: other threads may be
 * running them) while sites in them are written, WINDOW bytes at most at
 * a time, and never beyond the module's executable segment: its other
 * pages (data, the heap after it) keep their own protection. */
#define WINDOW (64u << 10)

struct code_window {
	uintptr_t lo, hi; /* open: [lo, hi) */
};

/* The executable segment holding a: [*lo, *hi), page-aligned; false if none. */
static bool segment_of(uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
	for (size_t i = 0; i < P.nsegs; i++)
		if (a >= P.segs[i][0] && a < P.segs[i][1]) {
			*lo = P.segs[i][0];
			*hi = P.segs[i][1];
			return true;
		}
	return false;
}

static bool window_cover(struct code_window *w, uintptr_t a, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), seg_lo, seg_hi;

	if (w->hi && a >= w->lo && a + len <= w->hi)
		return true;
	if (w->hi)
		mprotect((void *)w->lo, w->hi - w->lo, PROT_READ | PROT_EXEC);
	w->hi = 0;
	if (!segment_of(a, &seg_lo, &seg_hi) || a + len > seg_hi)
		return false;
	w->lo = a & ~(page - 1);
	w->hi = (a + len + WINDOW + page - 1) & ~(page - 1);
	if (w->hi > seg_hi)
		w->hi = seg_hi;
	if (mprotect((void *)w->lo, w->hi - w->lo, PROT_READ | PROT_WRITE | PROT_EXEC) == 0)
		return true;
	w->hi = 0;
	return false;
}

static void window_close(struct code_window *w)
{
	if (w->hi)
		mprotect((void *)w->lo, w->hi - w->lo, PROT_READ | PROT_EXEC);
	w->hi = 0;
}

/* Patches the site at a to call stub; false if it does not hold what the
 * compiler put there (nor a patch or unpatch of ours). */
static bool site_patch(uint8_t *a, const uint8_t *stub, struct code_window *w)
{
	intptr_t dist = (intptr_t)stub - (intptr_t)(a + PAD);
	int32_t rel = (int32_t)dist;
	uint8_t call[PAD] = { 0xe8 };

	if (dist != rel || memcmp(a, nops, PAD) || (memcmp(a + PAD, nops, 2) && memcmp(a + PAD, nop2, 2)))
		return false;
	memcpy(call + 1, &rel, sizeof(rel));
	if (!window_cover(w, (uintptr_t)a, PAD + 2))
		return false;
	memcpy(a, call, PAD);
	/* The call is in place before the jump that leads to it (while
	 * recording is off, a 2-byte NOP until it is on: ada_patch_sync). */
	if (P.off)
		__atomic_store_n((uint16_t *)(a + PAD), (uint16_t)(nop2[0] | nop2[1] << 8),
				 __ATOMIC_RELEASE);
	else
		__atomic_store_n((uint16_t *)(a + PAD), (uint16_t)(jump_back[0] | jump_back[1] << 8),
				 __ATOMIC_RELEASE);
	return true;
}

/* The patched sites, for ada_disable/ada_enable to unpatch and patch again. */
static void site_keep(uint8_t *a)
{
	if (P.npatched == P.cap) {
		size_t cap = P.cap ? 2 * P.cap : 1024;
		uint8_t **s = realloc(P.sites, cap * sizeof(*s));

		if (!s)
			return; /* patched for good */
		P.sites = s;
		P.cap = cap;
	}
	P.sites[P.npatched++] = a;
	P.stats.patched++;
}

/* ---- one module ---------------------------------------------------------------- */

static int patch_module(struct dl_phdr_info *info, void *ns, void *arg)
{
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	struct chosen c = { 0 };
	struct code_window w = { 0, 0 };
	const Elf64_Shdr *sh;
	uintptr_t *sites;
	uint8_t *stub = NULL;
	struct ada_elf e;
	size_t n;

	(void)ns;
	(void)arg;
	for (size_t i = 0; i < P.nseen; i++)
		if (P.seen[i] == info->dlpi_addr)
			return 0; /* patched by an earlier pass */
	if (ada_elf_open(path, info->dlpi_addr, &e) < 0)
		return 0;
	sh = ada_elf_section(&e, SHT_PROGBITS, SECTION);
	if (!sh || !sh->sh_size) {
		ada_elf_close(&e);
		return 0;
	}
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
		if (ph->p_flags & PF_X) {
			uintptr_t (*segs)[2] = realloc(P.segs, (P.nsegs + 1) * sizeof(*segs));

			if (!segs)
				continue;
			P.segs = segs;
			P.segs[P.nsegs][0] = a & ~(page - 1);
			P.segs[P.nsegs][1] = (a + ph->p_memsz + page - 1) & ~(page - 1);
			P.nsegs++;
		}
	}
	P.stats.modules++;
	if (P.filter.n || P.notrace.n) {
		ada_elf_functions(&e, choose, &c);
		qsort(c.addr, c.n, sizeof(*c.addr), by_addr);
	}
	/* The section is loaded and relocated: its entries are addresses, in
	 * the order of the code (sorted anyway: pages are opened in order). */
	n = sh->sh_size / sizeof(*sites);
	sites = malloc(n * sizeof(*sites));
	if (sites) {
		memcpy(sites, (const void *)(info->dlpi_addr + sh->sh_addr), n * sizeof(*sites));
		qsort(sites, n, sizeof(*sites), by_addr);
	}
	for (size_t i = 0; sites && i < n; i++) {
		uint8_t *a = (uint8_t *)sites[i];

		P.stats.sites++;
		if ((P.filter.n || P.notrace.n) && !chosen_has(&c, (uintptr_t)a + PAD))
			continue;
		if (!stub && !(stub = stub_make(lo, hi))) {
			ada_warn("%s: no page within reach of its code for the patch stub; its "
				 "functions are not traced", path ? path : "the executable");
			break;
		}
		if (site_patch(a, stub, &w))
			site_keep(a);
		else
			P.stats.refused++;
	}
	window_close(&w);
	free(sites);
	free(c.addr);
	ada_elf_close(&e);
	return 0;
}

static int remember(struct dl_phdr_info *info, void *ns, void *arg)
{
	(void)ns;
	(void)arg;
	uintptr_t *s = realloc(P.seen, (P.nseen + 1) * sizeof(*s));

	if (s) {
		P.seen = s;
		P.seen[P.nseen++] = info->dlpi_addr;
	}
	return 0;
}

void ada_patch_modules(void)
{
	unsigned long long counts[2] = { 0, 0 };
	struct ada_runtime_work w;
	uint64_t start;
	uint32_t modules;

	/* Nothing loaded or unloaded since the last pass: nothing to do. */
	ada_loader_counts(counts);
	if (__atomic_load_n(&P.started, __ATOMIC_ACQUIRE) && counts[0] == P.adds &&
	    counts[1] == P.subs)
		return;
	ada_runtime_begin(&w);
	pthread_mutex_lock(&P.lock);
	P.adds = counts[0];
	P.subs = counts[1];
	start = ada_now_ns(CLOCK_MONOTONIC);
	modules = P.stats.modules;
	if (!P.started) {
		P.off = __atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED) != 0;
		globs_split(&P.filter, ada_rt.cfg.filter);
		globs_split(&P.notrace, ada_rt.cfg.notrace);
	}
	ada_modules_each(patch_module, NULL);
	if (P.stats.modules != modules) {
		/* What it cost (reading each module's sites and symbols too). */
		uint64_t t = ada_now_ns(CLOCK_MONOTONIC) - start;

		P.stats.passes++;
		P.stats.total_ns += t;
		if (!P.started)
			P.stats.startup_ns = t;
		ada_meta_write(ADA_META_PATCHED, &P.stats, sizeof(P.stats), NULL, 0);
	}
	free(P.seen);
	P.seen = NULL;
	P.nseen = 0;
	ada_modules_each(remember, NULL);
	if (!P.started) {
		/* A glob that matched nothing is likely a typo: once, at start. */
		for (unsigned i = 0; P.stats.modules && i < P.filter.n; i++)
			if (!P.filter.matched[i])
				ada_warn("ADA_FILTER=%s: %s matches no function", ada_rt.cfg.filter,
					 P.filter.g[i]);
		for (unsigned i = 0; P.stats.modules && i < P.notrace.n; i++)
			if (!P.notrace.matched[i])
				ada_warn("ADA_NOTRACE=%s: %s matches no function", ada_rt.cfg.notrace,
					 P.notrace.g[i]);
	}
	__atomic_store_n(&P.started, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&P.lock);
	ada_runtime_end(&w);
}

/* Recording turned off (ada_disable): the patched entries become a 2-byte
 * NOP, so their functions cost what an unpatched one does; on: the jumps
 * again. The writer's, a pass at most every few milliseconds: the API
 * call itself only sets the flag the hooks read. A function entered while
 * its entry was a NOP returns unrecorded; one entered through the jump
 * returns through the trampoline: the trace stays balanced. */
void ada_patch_sync(void)
{
	bool off = __atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED) != 0;
	struct code_window w = { 0, 0 };
	const uint8_t *bytes = off ? nop2 : jump_back;

	if (off == P.off || !P.npatched)
		return;
	pthread_mutex_lock(&P.lock);
	for (size_t i = 0; i < P.npatched; i++) {
		uint8_t *a = P.sites[i];

		if (window_cover(&w, (uintptr_t)a + PAD, 2))
			__atomic_store_n((uint16_t *)(a + PAD), (uint16_t)(bytes[0] | bytes[1] << 8),
					 __ATOMIC_RELEASE);
	}
	window_close(&w);
	P.off = off;
	pthread_mutex_unlock(&P.lock);
}
