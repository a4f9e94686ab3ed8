/* dynhook.c - the dynamic-hook fallback: calls into and between modules
 * that were not built with adacc.
 *
 * A call to another module goes through a GOT slot the dynamic linker
 * filled (the PLT's JUMP_SLOT, or a GLOB_DAT slot for -fno-plt code). At
 * start-up and after every dlopen/dlclose, a pass points each slot of each
 * module at a stub of its target function:
 *
 *   caller → GOT slot → stub (lea cell, r11; jmp entry) → ada_dynhook_entry
 *          → ada_dynhook_enter (CALL, return hijacked) → the function
 *          → ada_return_trampoline (RETURN) → the caller
 *
 * There is one stub and one cell per target function, shared by every slot
 * that reaches it, so `malloc` called from ten modules is one function (and
 * two hooked -fno-plt modules still see the same address for it).
 *
 * The target of a slot the dynamic linker has bound is the slot's value. A
 * lazily bound slot still points into its own module's PLT; its target is
 * looked up here the way the dynamic linker would (the global scope, then
 * the module's own dependencies, with the version the reference needs), and
 * the slot is bound to it through the stub: the dynamic linker's resolver
 * never runs for it, so it can never write over the hook.
 *
 * Never hooked, by rule: the runtime's own module and the dynamic linker's
 * (their calls are the runtime's business), functions defined in libada
 * (its interposers: the unwinder, exec, vfork, clone, pthread_exit), the
 * instrumentation hooks (__fentry__, mcount, __cyg_profile_*), functions
 * that return twice or switch stacks (setjmp, vfork, clone, ucontext: a
 * hijacked return address would be resumed from a saved context), and
 * dlsym/dlvsym, which look at their caller's address. dlopen/dlmopen/
 * dlclose return through a stub outside every module: the loader then takes
 * the caller to be the executable (its RUNPATH, its namespace) instead of
 * libada, and the return runs a pass over the modules that came or went.
 *
 * Modules in every link-map namespace are hooked (ada_modules_each): a
 * library dlmopen loaded, with its own copies of its dependencies, binds its
 * lazy slots in its namespace.
 *
 * Passes are serialised by a mutex: they run at start-up and on an
 * application thread right after dlopen/dlclose returned, never inside a
 * hook. A slot is rewritten with one aligned store, so a thread calling
 * through it meanwhile goes either to the old target or to the stub.
 */
#include <dlfcn.h>
#include <fnmatch.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dynscan.h"
#include "hijack.h"
#include "passes.h"

ADA_HIDDEN void ada_dynhook_entry(void);

uintptr_t ada_dl_return_stub;

/* ---- stubs and cells ------------------------------------------------------ */

/* A chunk: CHUNK_STUBS stubs, then a page holding the entry pointer, the dl
 * return stub and its pointer (executable, read-only), then the cells
 * (read-write). */
#define CHUNK_STUBS 1024
#define PAGE 4096
#define CODE_BYTES (CHUNK_STUBS * ADA_ARCH_STUB_SIZE)
#define CHUNK_BYTES (CODE_BYTES + PAGE + CHUNK_STUBS * sizeof(struct ada_dyn_cell))

struct chunk {
	uint8_t *base;
	struct ada_dyn_cell *cells;
	uint32_t used;
};

/* Functions whose hijacked return would break the program (see the top). */
static const char *const never_hook[] = {
	"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "savectx", "getcontext", "setcontext",
	"swapcontext", "makecontext", "vfork", "__vfork", "clone", "__clone", "clone3",
	"dlsym", "dlvsym",
	/* instrumentation hooks, bound to libc's no-ops where libada is not in
	 * scope (an instrumented library dlopen'ed by a program without it) */
	"__fentry__", "mcount", "_mcount", "__cyg_profile_func_enter", "__cyg_profile_func_exit",
	"__ada_fentry_nohijack", "__return__",
};
/* The hooks a module built with adacc calls (in any mode but patchable,
 * whose modules patch.c knows): calls into such a module are recorded by
 * the callee's own hook, so its functions are not hooked (they would be
 * recorded twice, once nested in the other). */
static const char *const instrumentation[] = {
	"__fentry__", "__ada_fentry_nohijack", "mcount", "_mcount", "__cyg_profile_func_enter",
};
/* Functions after whose return the set of modules may have changed. */
static const char *const dl_change[] = { "dlopen", "dlmopen", "dlclose" };

struct hooked_module {
	uintptr_t bias;
	const void *dynamic;
	uintptr_t *sentinel; /* one slot hooked in it: still ours if it points at a stub */
	bool present;
};

/* A module as dl_iterate_phdr listed it in this pass, parsed once for
 * every use in the pass. */
struct found {
	struct dl_phdr_info info;
	char path[512];
	uintptr_t lo, hi;
	void *ns;             /* outside the default namespace: its first module */
	struct ada_dyn_module dyn;
	bool parsed;          /* dyn is valid: the module has slots to read */
	bool instrumented;    /* built with adacc: its functions record themselves */
	void *pin;            /* a reference held for the pass (pin_modules) */
};

static struct {
	pthread_mutex_t lock;
	struct chunk *chunks;
	size_t nchunks;
	/* target address → cell, open addressing (capacity a power of two) */
	struct ada_dyn_cell **map;
	size_t map_cap, ncells;
	struct hooked_module *mods;
	size_t nmods;
	unsigned long long adds, subs; /* dl_iterate_phdr's counters at the last pass */
	struct ada_meta_dynhook stats;
	size_t cells_written;          /* cells whose ADA_META_HOOKED record is out */
} H = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct chunk *chunk_new(void)
{
	struct chunk *c, *grown = realloc(H.chunks, (H.nchunks + 1) * sizeof(*grown));
	uint8_t *base;
	uintptr_t entry_ptr, dl_ptr;
	size_t i;

	if (!grown)
		return NULL;
	H.chunks = grown;
	base = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	c = &H.chunks[H.nchunks];
	c->base = base;
	c->cells = (void *)(base + CODE_BYTES + PAGE);
	c->used = 0;
	/* The page after the stubs: the two pointers the stubs jump through,
	 * and the dl return stub. */
	entry_ptr = (uintptr_t)(base + CODE_BYTES);
	dl_ptr = entry_ptr + 8;
	*(uintptr_t *)entry_ptr = (uintptr_t)ada_dynhook_entry;
	*(uintptr_t *)dl_ptr = (uintptr_t)ada_return_trampoline_dl;
	ada_arch_write_jump(base + CODE_BYTES + 16, dl_ptr);
	for (i = 0; i < CHUNK_STUBS; i++)
		ada_arch_write_stub(base + i * ADA_ARCH_STUB_SIZE, (uintptr_t)&c->cells[i], entry_ptr);
	if (mprotect(base, CODE_BYTES + PAGE, PROT_READ | PROT_EXEC) < 0) {
		munmap(base, CHUNK_BYTES);
		return NULL;
	}
	if (!ada_dl_return_stub)
		ada_dl_return_stub = (uintptr_t)(base + CODE_BYTES + 16);
	H.nchunks++;
	return c;
}

static bool is_stub(uintptr_t a)
{
	for (size_t i = 0; i < H.nchunks; i++)
		if (a >= (uintptr_t)H.chunks[i].base && a < (uintptr_t)H.chunks[i].base + CODE_BYTES)
			return true;
	return false;
}

static uintptr_t stub_of(const struct ada_dyn_cell *cell)
{
	for (size_t i = 0; i < H.nchunks; i++) {
		const struct chunk *c = &H.chunks[i];

		if (cell >= c->cells && cell < c->cells + CHUNK_STUBS)
			return (uintptr_t)c->base + (size_t)(cell - c->cells) * ADA_ARCH_STUB_SIZE;
	}
	return 0;
}

static size_t map_slot(uintptr_t fn)
{
	size_t i = (size_t)((fn >> 4) * 0x9e3779b97f4a7c15ull) & (H.map_cap - 1);

	while (H.map[i] && H.map[i]->fn != fn)
		i = (i + 1) & (H.map_cap - 1);
	return i;
}

static bool map_grow(void)
{
	struct ada_dyn_cell **old = H.map;
	size_t old_cap = H.map_cap, i;

	H.map_cap = old_cap ? 2 * old_cap : 1024;
	H.map = calloc(H.map_cap, sizeof(*H.map));
	if (!H.map) {
		H.map = old;
		H.map_cap = old_cap;
		return false;
	}
	for (i = 0; i < old_cap; i++)
		if (old[i])
			H.map[map_slot(old[i]->fn)] = old[i];
	free(old);
	return true;
}

/* The stub of function fn, made on first use. 0 if out of memory. */
static uintptr_t stub_for(uintptr_t fn, const char *name, bool dl)
{
	struct ada_dyn_cell *cell;
	struct chunk *c;
	size_t i;

	if (2 * (H.ncells + 1) > H.map_cap && !map_grow())
		return 0;
	i = map_slot(fn);
	if (H.map[i])
		return stub_of(H.map[i]);
	c = H.nchunks ? &H.chunks[H.nchunks - 1] : NULL;
	if ((!c || c->used == CHUNK_STUBS) && !(c = chunk_new()))
		return 0;
	cell = &c->cells[c->used];
	if (!(cell->name = strdup(name)))
		return 0;
	c->used++;
	cell->fn = fn;
	cell->ret = dl ? ada_dl_return_stub : (uintptr_t)ada_return_trampoline;
	cell->jump = dl ? fn : ada_alloc_jump(name, fn);
	if (cell->jump == fn && !dl)
		cell->jump = ada_counters_jump(name, fn);
	if (cell->jump == fn && !dl)
		cell->jump = ada_blocking_jump(name, fn);
	H.map[i] = cell;
	H.ncells++;
	return stub_of(cell);
}

/* ---- one pass ----------------------------------------------------------- */

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* ADA_EXCLUDE: MODULE[:SYMBOL] globs against the target's module file name
 * and the symbol. */
static bool excluded(const char *module, const char *sym)
{
	const char *item = ada_rt.cfg.exclude;

	while (*item) {
		size_t n = strcspn(item, ","), m;
		char pat[sizeof(ada_rt.cfg.exclude)];

		memcpy(pat, item, n);
		pat[n] = '\0';
		m = strcspn(pat, ":");
		pat[m] = '\0';
		if (!fnmatch(pat, module, 0) && (m == n || !fnmatch(pat + m + 1, sym, 0)))
			return true;
		item += n + (item[n] == ',');
	}
	return false;
}

static const struct found *module_at(const struct found *mods, size_t n, uintptr_t a)
{
	for (size_t i = 0; i < n; i++)
		if (a >= mods[i].lo && a < mods[i].hi)
			return &mods[i];
	return NULL;
}

/* What the dynamic linker would bind the reference to: the global scope
 * first, then the module's own dependencies (a library dlopen'ed with
 * RTLD_LOCAL). dlsym takes the scope of its caller, libada, which is in the
 * global scope. A versioned reference binds to the first definition with
 * that version, or to an unversioned one (libada's interposers have none):
 * when the default definition and the versioned one differ, which comes
 * first is the loader's to decide, and the slot is left to it (0). */
static void *lookup_in(void *scope, const struct ada_dyn_slot *s, bool *ambiguous)
{
	void *any = dlsym(scope, s->name), *exact;

	if (!s->version)
		return any;
	exact = dlvsym(scope, s->name, s->version);
	*ambiguous = any && exact != any;
	return *ambiguous ? NULL : exact;
}

/* A handle of the module, for its own dependencies (a library dlopen'ed
 * with RTLD_LOCAL), opened in the module's namespace. A
 * dependency's link map is no dlsym handle (only dlopen makes its search
 * list), so one outside the caller's namespace is opened with dlmopen. */
static void *module_handle(const struct found *f)
{
	Lmid_t lmid;

	if (!f->ns) {
		if (!f->info.dlpi_name || !*f->info.dlpi_name)
			return NULL; /* the executable: its dependencies are global */
		return dlopen(f->info.dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	}
	if (dlinfo(f->ns, RTLD_DI_LMID, &lmid) != 0)
		return NULL;
	return dlmopen(lmid, f->path, RTLD_LAZY | RTLD_NOLOAD);
}

/* The global scope first (dlsym's from libada; in a dlmopen namespace, the
 * object dlmopen loaded there and its dependencies), then the module's own
 * dependencies. */
static uintptr_t lookup(const struct found *f, const struct ada_dyn_slot *s)
{
	bool ambiguous = false;
	void *p = lookup_in(f->ns ? f->ns : RTLD_DEFAULT, s, &ambiguous), *h;

	/* The pass's own reference to the module when it holds one. */
	if (!p && !ambiguous && (h = f->pin ? f->pin : module_handle(f))) {
		p = lookup_in(h, s, &ambiguous);
		if (h != f->pin)
			dlclose(h);
	}
	dlerror(); /* leave no error behind for the program to find */
	return (uintptr_t)p;
}

struct pass {
	struct found *mods;
	size_t n, cap;
	const struct found *self, *rtld;
	uintptr_t canonical[64]; /* a non-PIE executable's canonical PLT addresses */
	size_t ncanonical;
	bool startup;            /* the start-up pass: files may be read and written */
};

static int collect(struct dl_phdr_info *info, void *ns, void *arg)
{
	struct pass *p = arg;
	struct found *f;

	if (p->n == 0) {
		H.adds = info->dlpi_adds;
		H.subs = info->dlpi_subs;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 32;
		struct found *m = realloc(p->mods, cap * sizeof(*m));

		if (!m)
			return 1;
		p->mods = m;
		p->cap = cap;
	}
	f = &p->mods[p->n++];
	memset(f, 0, sizeof(*f));
	f->info = *info;
	f->ns = ns;
	snprintf(f->path, sizeof(f->path), "%.*s", (int)sizeof(f->path) - 1,
		 p->n == 1 && !*info->dlpi_name ? ada_rt.exe : info->dlpi_name);
	ada_modmap_range(info, &f->lo, &f->hi);
	f->parsed = ada_dyn_parse(info, &f->dyn) == 0;
	f->instrumented = f->parsed && ada_dyn_imports(&f->dyn, instrumentation, sizeof(instrumentation) /
										     sizeof(*instrumentation));
	return 0;
}

static struct hooked_module *hooked(const struct ada_dyn_module *m)
{
	for (size_t i = 0; i < H.nmods; i++)
		if (H.mods[i].bias == m->bias && H.mods[i].dynamic == m->dynamic)
			return &H.mods[i];
	return NULL;
}

/* In a non-PIE executable, a function whose address the program takes has
 * its PLT entry as its address everywhere: slots in other modules bound to
 * it lead back into the executable's own (hooked) slot. */
static void note_canonical(struct pass *p, const struct ada_dyn_module *m)
{
	struct ada_dyn_slot s;
	size_t cur = 0;

	if (!m->exec)
		return;
	while (ada_dyn_next_slot(m, &cur, &s) && p->ncanonical < 64)
		if (s.undefined && s.own)
			p->canonical[p->ncanonical++] = s.own;
}

static bool is_canonical(const struct pass *p, uintptr_t a)
{
	for (size_t i = 0; i < p->ncanonical; i++)
		if (p->canonical[i] == a)
			return true;
	return false;
}

/* The target of slot s of module m, 0 if it is left alone. */
static uintptr_t target_of(const struct pass *p, const struct found *f,
			   const struct ada_dyn_module *m, const struct ada_dyn_slot *s)
{
	uintptr_t cur = __atomic_load_n(s->got, __ATOMIC_RELAXED);
	bool bound_to_self = !s->undefined && cur == s->own;

	/* Still pointing into its own module's PLT: not bound yet. */
	if (cur >= f->lo && cur < f->hi && !bound_to_self)
		cur = m->symbolic && !s->undefined ? s->own : lookup(f, s);
	if (!cur || is_canonical(p, cur))
		return 0;
	/* libada's own functions are its business. */
	if (p->self && cur >= p->self->lo && cur < p->self->hi)
		return 0;
	return cur;
}

static bool relro_open(const struct ada_dyn_module *m, bool *open)
{
	if (!*open && mprotect((void *)m->relro_lo, m->relro_hi - m->relro_lo,
			       PROT_READ | PROT_WRITE) < 0)
		return false;
	*open = true;
	return true;
}

/* An instrumented library in a dlmopen namespace brings a copy of libada
 * there, another runtime with trampolines of its own: two runtimes
 * hijacking the same frames would lose each other's return addresses, so
 * such a namespace is left alone (docs/internals.md, "Limits and decisions"). */
static bool has_runtime(const struct pass *p, const void *ns)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->mods[i].ns == ns && !strcmp(base_name(p->mods[i].path), "libada.so"))
			return true;
	return false;
}

static void hook_module(struct pass *p, struct found *f)
{
	struct ada_dyn_module *m = &f->dyn;
	struct ada_dyn_slot s;
	struct hooked_module *hm;
	uintptr_t *sentinel = NULL;
	bool open = false;
	size_t cur = 0;

	if (f == p->self || f == p->rtld || f->path[0] != '/' || !f->parsed)
		return;
	if (f->ns && has_runtime(p, f->ns))
		return;
	hm = hooked(m);
	if (hm) {
		hm->present = true;
		/* Still hooked, unless it was unloaded and loaded again in between. */
		if (!hm->sentinel || is_stub(*hm->sentinel))
			return;
	}
	ada_dyn_find_calls(&f->info, m, p->startup);
	while (ada_dyn_next_slot(m, &cur, &s)) {
		const struct found *tm;
		uintptr_t target, stub;
		bool dl = false;

		if (is_stub(*s.got))
			continue;
		if (in_list(s.name, never_hook, sizeof(never_hook) / sizeof(*never_hook)) ||
		    !(target = target_of(p, f, m, &s))) {
			H.stats.untraceable++;
			continue;
		}
		tm = module_at(p->mods, p->n, target);
		if (tm && tm->instrumented)
			continue;
		if (tm && excluded(base_name(tm->path), s.name)) {
			H.stats.excluded++;
			continue;
		}
		dl = in_list(s.name, dl_change, sizeof(dl_change) / sizeof(*dl_change));
		stub = stub_for(target, s.name, dl);
		if (!stub)
			break;
		if ((uintptr_t)s.got >= m->relro_lo && (uintptr_t)s.got < m->relro_hi &&
		    !relro_open(m, &open)) {
			H.stats.untraceable++;
			continue;
		}
		/* Release: the cell behind the stub is written before any thread can
		 * reach it through the slot. */
		__atomic_store_n(s.got, stub, __ATOMIC_RELEASE);
		sentinel = s.got;
		H.stats.slots++;
	}
	ada_dyn_release(m);
	if (open)
		mprotect((void *)m->relro_lo, m->relro_hi - m->relro_lo, PROT_READ);
	if (hm) {
		hm->sentinel = sentinel;
		return;
	}
	hm = realloc(H.mods, (H.nmods + 1) * sizeof(*hm));
	if (!hm)
		return;
	H.mods = hm;
	H.mods[H.nmods++] = (struct hooked_module){ m->bias, m->dynamic, sentinel, true };
}

/* The k-th cell made: chunks fill in order. */
static const struct ada_dyn_cell *cell_at(size_t k)
{
	return &H.chunks[k / CHUNK_STUBS].cells[k % CHUNK_STUBS];
}

/* The records of the functions found since the last call, and the totals,
 * in one write: a pass over thousands of slots must not cost thousands of
 * system calls. */
static void write_records(void)
{
	size_t cap = sizeof(struct ada_meta_rec) + sizeof(H.stats), n = 0, k;
	uint8_t *buf;

	for (k = H.cells_written; k < H.ncells; k++)
		cap += sizeof(struct ada_meta_rec) + sizeof(struct ada_meta_hooked) +
		       strlen(cell_at(k)->name) + 1 + 7;
	if (!(buf = malloc(cap)))
		return;
	for (; H.cells_written < H.ncells; H.cells_written++) {
		const struct ada_dyn_cell *cell = cell_at(H.cells_written);
		struct ada_meta_hooked rec = { .addr = cell->fn };

		n += ada_meta_encode(buf + n, cap - n, ADA_META_HOOKED, &rec, sizeof(rec), cell->name,
				     strlen(cell->name) + 1);
	}
	n += ada_meta_encode(buf + n, cap - n, ADA_META_DYNHOOK, &H.stats, sizeof(H.stats), NULL, 0);
	ada_meta_write_encoded(buf, n);
	free(buf);
}

static int still_listed(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	return info->dlpi_addr == *(uintptr_t *)arg;
}

/* The pass reads each module's tables after the loader's list was walked,
 * and another thread's dlclose may unmap one meanwhile. A reference taken
 * here keeps each mapped until the pass ends; one gone already, or loaded
 * again elsewhere, is passed over. A module that cannot be opened by its
 * name but is still listed (the executable, odd names) is read as before:
 * the executable and what it was linked with are never unloaded. */
static void pin_modules(struct pass *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct found *f = &p->mods[i];
		struct link_map *lm = NULL;

		if (!f->parsed)
			continue;
		f->pin = module_handle(f);
		if (f->pin && (dlinfo(f->pin, RTLD_DI_LINKMAP, &lm) != 0 ||
			       lm->l_addr != f->info.dlpi_addr)) {
			dlclose(f->pin);
			f->pin = NULL;
			f->parsed = false;
		} else if (!f->pin && !dl_iterate_phdr(still_listed, &f->info.dlpi_addr)) {
			f->parsed = false;
		}
	}
	dlerror();
}

/* The references go after the pass: one may be the last, if the program
 * closed the module meanwhile (the scan after the pass sees it gone). */
static void unpin_modules(struct pass *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->mods[i].pin)
			dlclose(p->mods[i].pin);
	dlerror();
}

/* Hooks every module not hooked yet, forgets the ones that are gone, and
 * writes what it found (its own duration included). */
static void pass_locked(bool startup)
{
	uint64_t t0 = ada_now_ns(CLOCK_MONOTONIC), t;
	struct pass p = { .startup = startup };
	size_t i, kept = 0;

	ada_modules_each(collect, &p);
	/* Patchable modules, once out of the loader's lock: patch.c takes its
	 * own lock, and holds it across dl_iterate_phdr. */
	for (i = 0; i < p.n; i++)
		p.mods[i].instrumented |= ada_patch_module_is(&p.mods[i].info);
	if (!startup)
		pin_modules(&p);
	p.self = module_at(p.mods, p.n, (uintptr_t)pass_locked);
	if (startup && ada_rt.cfg.alloc && p.n && p.self == &p.mods[0])
		ada_warn("ADA_ALLOC=1 with the runtime linked into the executable (--ada-static): "
			 "the executable's own calls are not hooked, so its allocations are not "
			 "recorded; the libraries' are");
	p.rtld = module_at(p.mods, p.n, (uintptr_t)&_r_debug);
	for (i = 0; i < p.n; i++)
		if (p.mods[i].parsed)
			note_canonical(&p, &p.mods[i].dyn);
	for (i = 0; i < H.nmods; i++)
		H.mods[i].present = false;
	for (i = 0; i < p.n; i++)
		hook_module(&p, &p.mods[i]);
	for (i = 0; i < H.nmods; i++)
		if (H.mods[i].present)
			H.mods[kept++] = H.mods[i];
	H.nmods = kept;
	H.stats.modules = (uint32_t)H.nmods;
	H.stats.functions = (uint32_t)H.ncells;
	H.stats.passes++;
	unpin_modules(&p);
	free(p.mods);
	/* The records' write is part of the cost: estimated as the time so far,
	 * then measured for the next record. */
	t = ada_now_ns(CLOCK_MONOTONIC) - t0;
	H.stats.total_ns += t;
	if (startup)
		H.stats.startup_ns = t;
	write_records();
	t = ada_now_ns(CLOCK_MONOTONIC) - t0 - t;
	H.stats.total_ns += t;
	if (startup)
		H.stats.startup_ns += t;
}

/* The runtime's own calls through hooked slots (dlsym's allocations) must
 * not be recorded: the thread is marked as inside the runtime meanwhile.
 * hook: run a hooking pass (the set of modules changed since the last). */
static void pass(bool startup, bool hook)
{
	struct ada_runtime_work w;

	ada_runtime_begin(&w);
	/* A new module may be patchable: patched first, so that the hooks
	 * know to leave calls into it alone. Whatever this pass's own look
	 * says: another thread's hooking pass may have taken this dlopen's
	 * counts after its patching pass walked the modules, before this one
	 * was loaded (make stress, patchable: the library's first calls went
	 * unrecorded). The patching pass has its own cheap look. */
	if (!startup)
		ada_patch_modules();
	if (hook) {
		pthread_mutex_lock(&H.lock);
		pass_locked(startup);
		pthread_mutex_unlock(&H.lock);
	}
	if (!startup)
		ada_modmap_scan(true);
	ada_runtime_end(&w);
}

void ada_dynhook_start(void)
{
	pass(true, true);
}

/* A new process image of the same program: its process.meta is new, so
 * every function's record goes out again; another thread may have held the
 * lock at fork. */
void ada_dynhook_after_fork(void)
{
	pthread_mutex_init(&H.lock, NULL);
	H.cells_written = 0;
	if (H.stats.passes)
		write_records();
}

/* After dlopen, dlmopen or dlclose: a pass if the set of modules changed. */
static int changed(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(bool *)arg = info->dlpi_adds != H.adds || info->dlpi_subs != H.subs;
	return 1;
}

ADA_HOOK_TEXT uintptr_t ada_dynhook_return(struct ada_return_regs *regs, uintptr_t *slot)
{
	uintptr_t real = ada_fentry_return(regs, slot);
	bool differ = false;

	/* The module scan runs whatever another thread's pass saw: that pass
	 * may have counted this dlopen's module before its own scan (after
	 * the hooking) lists it, and the module's calls, here, come first
	 * (make stress: a library loaded and closed in between was never
	 * recorded, its calls named after the next one at its address). */
	if (__atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE)) {
		dl_iterate_phdr(changed, &differ);
		pass(false, differ);
	}
	return real;
}
