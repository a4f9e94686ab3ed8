/* patch.c - patchable mode: functions traced only once the runtime patches
 * them in (how the bytes are written: patch_write.c).
 *
 * adacc --ada-mode=patchable compiles with -fpatchable-function-entry=7,5:
 * each function begins with 5 NOPs before its symbol and 2 at its entry,
 * and its module's __patchable_function_entries section lists every site.
 * A function nobody patched costs its two NOPs. Patched, it calls into
 * mcount/<arch>/patch.S, which takes the fentry path (the same return
 * hijacking, detail lane and all).
 *
 * Which functions, and as what, is patch_choose.c's: each kind (trace_on,
 * trace_off, graph, plain) calls an entry of its own, so no hook compares a
 * name or an address. Modules are
 * looked at at start-up and, when a pass sees the loader's counts move (a
 * dlopen), again: the new ones are patched. ada_disable turns every entry
 * but trace_on's back into a NOP (ada_patch_sync, the writer's); ada-ctl's
 * filter changes ADA_FILTER / ADA_NOTRACE in a running process
 * (ada_patch_refilter). Every write to a module's code happens inside an
 * ada_modules_each callback for it (dl_iterate_phdr's lock): dlclose
 * cannot unmap it meanwhile.
 *
 * With a recorder process, two processes write the program's code: the
 * program patches what its own passes find (start-up, a dlopen seen by the
 * dynamic hooks), the recorder everything after (recording off and on,
 * ada-ctl's filter, a module it finds in the program's maps), through the
 * program's memory (patch_write.c). Each keeps its own tables; the
 * recorder adopts a module the program patched from what its code holds.
 * A lock in shared memory keeps them from writing at once, and the program
 * tells the recorder where its stub pages are (patch_share.c) and whether it left a
 * module's entries NOPs (recording was off at its pass); after that, the
 * recorder alone follows recording off and on. dlclose cannot be held off from another process: the recorder writes a
 * site only after reading that it holds what it expects.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"
#include "passes.h"
#include "patch.h"

/* A module with a site table, as last patched. */
struct module {
	uintptr_t base;
	char *path;        /* NULL: the executable */
	uintptr_t to[PATCH_KINDS]; /* each kind's call target: its stub, or its entry
				    * (0: none found yet) */
	uintptr_t lo, hi;  /* its extent: the stubs' reach */
	uintptr_t *sites;  /* sorted */
	uint8_t *kind;     /* each site's PATCH_* (NONE: not patched, or unpatched) */
	uint8_t *next;     /* ada_patch_refilter's choice, before it is applied */
	size_t n;
	bool present;      /* seen by the current pass */
	bool nopped;       /* its patched entries are NOPs (recording off) */
};

static struct {
	pthread_mutex_t lock; /* passes: start-up, after a dlopen, the writer's, ada-ctl's */
	struct patch_choice c; /* which functions, as what */
	struct module *mods;
	size_t nmods;
	struct seen {
		uintptr_t base;
		uint64_t name; /* its path's hash */
	} *seen, *now_seen;   /* every module looked at by the last pass, this one */
	size_t nseen, now_nseen;
	struct { uint64_t name; bool sites; } *files; /* each file asked once (its path's hash) */
	size_t nfiles;
	unsigned long long adds, subs; /* the loader's counts at the last pass (a
					* recorder: its module list's generation) */
	uint32_t filter_gen;  /* PS.filter_gen as last taken */
	bool off;             /* recording off, as the entries last followed it */
	bool again;           /* a recorder's: a module to look at again */
	bool started;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The modules whose code this process writes: its own, or, in a recorder,
 * the program's as its module list has them. */
static int modules_each(ada_module_fn *fn)
{
	return ada_patch_is_remote() ? ada_program_modules_each(fn, NULL) : ada_modules_each(fn, NULL);
}

/* ---- writing a module's sites ------------------------------------------------------- */

/* With trace_on / trace_off triggers, entries stay patched while
 * recording is off: a trace_on takes effect at its call, not at the
 * writer's next pass (the hooks return at once while it is off). */
static bool entries_follow_recording(void)
{
	return !P.c.trace_on.n && !P.c.trace_off.n;
}

/* A program with a recorder: its own passes write code, the recorder's
 * follow recording off and on after start-up. */
static bool program_of_recorder(void)
{
	return !ada_rt.rings_only && !ada_recorder_self();
}

/* Each kind's call target for m: a stub page near it (made here, or, in
 * a recorder, the one the program made), else, for a recorder, the entries
 * themselves if every one is within a call's reach of the module. */
static bool targets_find(struct module *m)
{
	uintptr_t stubs = 0;
	bool nopped;

	if (m->to[PATCH_PLAIN])
		return true;
	if (!ada_patch_is_remote()) {
		stubs = (uintptr_t)ada_patch_stubs(m->lo, m->hi);
	} else if (!ada_page_find(m->base, &stubs, &nopped) || !stubs) {
		for (unsigned k = PATCH_PLAIN; k < PATCH_KINDS; k++) {
			intptr_t far = (intptr_t)(ada_patch_entry_program(k) - m->lo),
				 near = (intptr_t)(ada_patch_entry_program(k) - m->hi);

			if (far != (int32_t)far || near != (int32_t)near)
				return false;
		}
		for (unsigned k = PATCH_PLAIN; k < PATCH_KINDS; k++)
			m->to[k] = ada_patch_entry_program(k);
		return true;
	}
	if (!stubs)
		return false;
	for (unsigned k = PATCH_PLAIN; k < PATCH_KINDS; k++)
		m->to[k] = stubs + (k - PATCH_PLAIN) * PATCH_STUB;
	return true;
}

/* Sites whose kind[] differs from want[]: patched, or their entry a NOP. */
static void module_write(struct module *m, const struct dl_phdr_info *info, const uint8_t *want)
{
	struct patch_window w = { info, 0, 0 };

	for (size_t i = 0; i < m->n; i++) {
		uint8_t *a = (uint8_t *)m->sites[i];

		if (want[i] == m->kind[i])
			continue;
		if (want[i] == PATCH_NONE) {
			ada_patch_entry_set(a, false, &w);
		} else if (!targets_find(m)) {
			ada_warn("%s: no page within reach of its code for the patch stubs%s; its "
				 "functions are not traced", m->path ? m->path : "the executable",
				 ada_patch_is_remote() ? " (loaded after start-up, without the "
							 "dynamic hooks)" : "");
			break;
		} else if (!ada_patch_site(a, m->to[want[i]], want[i] != PATCH_NONE && !m->nopped, &w)) {
			PS.stats.refused++;
			continue;
		}
		m->kind[i] = want[i];
	}
	ada_patch_window_close(&w);
}

/* The module's patched entries follow recording off and on. */
static void module_sync(struct module *m, const struct dl_phdr_info *info)
{
	bool nop = P.off && entries_follow_recording();
	struct patch_window w = { info, 0, 0 };

	if (m->nopped == nop)
		return;
	for (size_t i = 0; i < m->n; i++)
		if (m->kind[i] != PATCH_NONE)
			ada_patch_entry_set((uint8_t *)m->sites[i], !nop, &w);
	ada_patch_window_close(&w);
	m->nopped = nop;
}

/* The module's file: NULL for the executable (the loader names it ""). */
static const char *path_of(const struct dl_phdr_info *info)
{
	return info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL;
}

static struct module *module_at(const struct dl_phdr_info *info)
{
	const char *path = path_of(info);

	for (size_t i = 0; i < P.nmods; i++) {
		struct module *m = &P.mods[i];

		if (m->base == info->dlpi_addr && !m->path == !path && (!path || !strcmp(path, m->path)))
			return m;
	}
	return NULL;
}

static void module_free(struct module *m)
{
	free(m->path);
	free(m->sites);
	free(m->kind);
	free(m->next);
	*m = (struct module){ 0 };
}

/* A recorder takes a module the program patched as its code shows it:
 * each site's kind from where its call goes, if its entry jumps there (or
 * the program left every entry a NOP). Whether it was the program's
 * (counted in its figures). */
static bool module_adopt(struct module *m)
{
	uintptr_t stubs;

	if (!ada_page_find(m->base, &stubs, &m->nopped))
		return false;
	targets_find(m);
	for (size_t i = 0; i < m->n; i++) {
		uintptr_t to;
		int now = ada_patch_site_read(m->sites[i], &to);

		if (now != 2 && !(now == 1 && m->nopped))
			continue;
		for (unsigned k = PATCH_PLAIN; k < PATCH_KINDS; k++)
			if (to == m->to[k])
				m->kind[i] = (uint8_t)k;
	}
	return true;
}

/* A module with a site table, found by a pass: its sites read (the section
 * is loaded and relocated: its entries are addresses) and patched. */
static void module_add(const struct dl_phdr_info *info, const char *path, const Elf64_Shdr *sh)
{
	struct module *mods = realloc(P.mods, (P.nmods + 1) * sizeof(*mods)), *m;
	uint8_t *want;

	if (!mods)
		return;
	P.mods = mods;
	m = &P.mods[P.nmods];
	*m = (struct module){ .base = info->dlpi_addr, .lo = UINTPTR_MAX, .present = true };
	m->n = sh->sh_size / sizeof(*m->sites);
	m->path = path ? strdup(path) : NULL;
	m->sites = malloc(m->n * sizeof(*m->sites));
	m->kind = calloc(m->n, 1);
	want = malloc(m->n);
	if ((path && !m->path) || !m->sites || !m->kind || !want ||
	    !ada_code_read(info->dlpi_addr + sh->sh_addr, m->sites, m->n * sizeof(*m->sites))) {
		module_free(m);
		free(want);
		return;
	}
	P.nmods++;
	qsort(m->sites, m->n, sizeof(*m->sites), ada_patch_by_addr);
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (a < m->lo)
			m->lo = a;
		if (a + ph->p_memsz > m->hi)
			m->hi = a + ph->p_memsz;
	}
	if (!ada_patch_is_remote() || !module_adopt(m)) {
		PS.stats.modules++;
		PS.stats.sites += (uint32_t)m->n;
		/* A program with a recorder follows recording as it is now:
		 * the recorder's P.off is not its own. */
		m->nopped = (program_of_recorder() ? __atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED)
						   : P.off) && entries_follow_recording();
	}
	ada_patch_kinds(&P.c, m->path, info->dlpi_addr, m->sites, m->n, want);
	module_write(m, info, want);
	if (program_of_recorder()) {
		/* Its stub page made at once: the recorder may want it later
		 * (ada-ctl's filter) and cannot make one. */
		targets_find(m);
		ada_page_note(m->base, m->to[PATCH_PLAIN], m->nopped);
	} else {
		module_sync(m, info);
	}
	free(want);
}

/* Whether m's code is still what was patched: a module unloaded and
 * another (or the same file again) loaded at its address has fresh NOPs. */
static bool module_intact(const struct module *m)
{
	uintptr_t to;

	for (size_t i = 0; i < m->n; i++)
		if (m->kind[i] != PATCH_NONE)
			return ada_patch_site_read(m->sites[i], &to) > 0;
	return true;
}

/* A module is known by where it is and what its file is called: two
 * threads loading and unloading libraries may put one where another was
 * between two passes. */
static uint64_t name_hash(const struct dl_phdr_info *info)
{
	uint64_t h = 14695981039346656037ull;

	for (const char *c = info->dlpi_name ? info->dlpi_name : ""; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	return h;
}

/* The modules this pass looks at, which the next one knows it has seen
 * (taken as it walks: a module loaded after the walk is the next pass's). */
static void remember(const struct dl_phdr_info *info)
{
	struct seen *s = realloc(P.now_seen, (P.now_nseen + 1) * sizeof(*s));

	if (s) {
		P.now_seen = s;
		P.now_seen[P.now_nseen++] = (struct seen){ info->dlpi_addr, name_hash(info) };
	}
}

/* Whether the last pass looked at the module. */
static bool seen_before(const struct dl_phdr_info *info)
{
	uint64_t name = name_hash(info);

	for (size_t i = 0; i < P.nseen; i++)
		if (P.seen[i].base == info->dlpi_addr && P.seen[i].name == name)
			return true;
	return false;
}

/* Whether the module's file has a site table, its file opened once per
 * name: a library loaded and closed again and again (by many threads)
 * must not have ada open its file each time in the program's descriptor
 * table, where the program's own open would then miss the lowest number. */
static bool file_has_sites(const struct dl_phdr_info *info)
{
	uint64_t name = name_hash(info);
	Elf64_Shdr sh;
	void *f;
	bool sites;

	for (size_t i = 0; i < P.nfiles; i++)
		if (P.files[i].name == name)
			return P.files[i].sites;
	sites = !ada_patch_never(info) && ada_patch_site_table(path_of(info), &sh);
	if ((f = realloc(P.files, (P.nfiles + 1) * sizeof(*P.files)))) {
		P.files = f;
		P.files[P.nfiles].name = name;
		P.files[P.nfiles++].sites = sites;
	}
	return sites;
}

static int pass_module(struct dl_phdr_info *info, void *ns, void *arg)
{
	const char *path = path_of(info);
	struct module *m = module_at(info);
	Elf64_Shdr sh;

	(void)ns;
	(void)arg;
	if (m && module_intact(m)) {
		m->present = true;
		remember(info);
		return 0;
	}
	if (m)
		module_free(m); /* left for the end of the pass to drop */
	if (!m && seen_before(info)) {
		remember(info);
		return 0; /* no site table: looked at by an earlier pass */
	}
	if (file_has_sites(info) && ada_patch_site_table(path, &sh)) {
		uintptr_t stubs;
		bool nopped;

		/* A recorder with the dynamic hooks takes over only what the
		 * program patched: a module its list shows before the program's
		 * pass noted it (another thread's scan recorded it first) is
		 * looked at again by its next pass. */
		if (ada_recorder_self() && ada_rt.cfg.dynhook &&
		    !ada_page_find(info->dlpi_addr, &stubs, &nopped)) {
			P.again = true;
			return 0;
		}
		module_add(info, path, &sh);
	}
	remember(info);
	return 0;
}

/* Modules gone since the last pass (dlclose) are forgotten. */
static void drop_absent(void)
{
	size_t k = 0;

	for (size_t i = 0; i < P.nmods; i++) {
		if (P.mods[i].present && P.mods[i].sites) {
			P.mods[k++] = P.mods[i];
			continue;
		}
		if (program_of_recorder())
			ada_page_forget(P.mods[i].base, P.mods[i].to[PATCH_PLAIN]);
		module_free(&P.mods[i]);
	}
	P.nmods = k;
}

static void count_patched(void)
{
	PS.stats.patched = 0;
	for (size_t i = 0; i < P.nmods; i++)
		for (size_t j = 0; j < P.mods[i].n; j++)
			PS.stats.patched += P.mods[i].kind[j] != PATCH_NONE;
}

/* A glob that matched nothing is likely a typo: one line each, at start,
 * with the variable's value as given. */
static void warn_unmatched(const struct globs *gl)
{
	const char *g = ada_globs_unmatched(gl), *v = getenv(gl->var);

	if (g && PS.stats.modules)
		ada_warn("%s=%s: %s matches no patchable function", gl->var, v ? v : gl->src, g);
}

/* ADA_GRAPH or a trace_on/trace_off trigger, and no module to patch: the
 * user learns it, and the threads record as without them. */
static void nothing_patchable(void)
{
	if (P.c.graph.n) {
		ada_warn("ADA_GRAPH=%s: no module was built with --ada-mode=patchable; "
			 "recording every call", ada_rt.cfg.graph);
		ada_rt.cfg.graph[0] = '\0';
		/* Threads set up so far (before main: this one). */
		for (struct ada_thread *td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td;
		     td = td->next)
			td->graph_gate = false;
	}
	if (P.c.trace_on.n || P.c.trace_off.n)
		ada_warn("ADA_TRIGGER=%s: trace_on and trace_off need a module built with "
			 "--ada-mode=patchable; ignoring them", getenv("ADA_TRIGGER"));
}

bool ada_patch_module_is(const struct dl_phdr_info *info)
{
	bool found = false;

	pthread_mutex_lock(&P.lock);
	for (size_t i = 0; i < P.nmods && !found; i++)
		found = P.mods[i].present && P.mods[i].base == info->dlpi_addr && P.mods[i].n;
	/* Loaded since the last pass (by another thread, while this one's
	 * hooking pass walked): its file says. */
	found = found || (!seen_before(info) && file_has_sites(info));
	pthread_mutex_unlock(&P.lock);
	return found;
}

/* A recorder's passes begin once the program's start-up pass is done (what
 * it patched is then there to adopt), with the program's memory open; the
 * tables its fork copied are the program's own, so they start afresh. */
static bool recorder_ready(void)
{
	int fd;

	if (!__atomic_load_n(&PS.ready, __ATOMIC_ACQUIRE))
		return false;
	if (ada_patch_is_remote())
		return true;
	if ((fd = ada_recorder_mem_fd()) < 0)
		return false;
	ada_patch_remote(fd);
	for (size_t i = 0; i < P.nmods; i++)
		module_free(&P.mods[i]);
	P.nmods = 0;
	free(P.seen);
	P.seen = NULL;
	P.nseen = 0;
	return true;
}

/* ada-ctl's last filter, which the recorder chose: the program's passes
 * choose by it too. */
static void filter_take(void)
{
	uint32_t gen = __atomic_load_n(&PS.filter_gen, __ATOMIC_ACQUIRE);

	if (gen == P.filter_gen)
		return;
	P.filter_gen = gen;
	ada_globs_set(&P.c.filter, "ADA_FILTER", PS.filter);
	ada_globs_set(&P.c.notrace, "ADA_NOTRACE", PS.notrace);
}

/* Whether a module may have come or gone since the last pass: the loader's
 * counts moved (a recorder: its list of the program's modules). */
static bool modules_moved(unsigned long long counts[2])
{
	if (ada_recorder_self()) {
		/* With the dynamic hooks the program patches every module it
		 * loads: none yet, nothing to take over. */
		if (ada_rt.cfg.dynhook && !__atomic_load_n(&PS.npages, __ATOMIC_RELAXED))
			return false;
		counts[0] = ada_modmap_generation();
		counts[1] = 0;
	} else {
		ada_loader_counts(counts);
	}
	/* Published at the end of a pass: a thread whose dlopen another
	 * thread's pass is patching meanwhile waits for it (on the lock), not
	 * calls into a library half patched. */
	return !__atomic_load_n(&P.started, __ATOMIC_ACQUIRE) || P.again ||
	       counts[0] != __atomic_load_n(&P.adds, __ATOMIC_ACQUIRE) ||
	       counts[1] != __atomic_load_n(&P.subs, __ATOMIC_ACQUIRE);
}

void ada_patch_modules(void)
{
	unsigned long long counts[2] = { 0, 0 };
	struct ada_runtime_work w;
	uint64_t start;
	uint32_t modules, patched;

	if ((ada_recorder_self() && !recorder_ready()) || !modules_moved(counts))
		return;
	ada_runtime_begin(&w);
	pthread_mutex_lock(&P.lock);
	if (!ada_code_lock())
		goto out;
	start = ada_now_ns(CLOCK_MONOTONIC);
	modules = PS.stats.modules;
	patched = PS.stats.patched;
	if (!P.started) {
		__atomic_store_n(&P.off, __atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED) != 0,
				 __ATOMIC_RELAXED);
		ada_globs_set(&P.c.filter, "ADA_FILTER", ada_rt.cfg.filter);
		ada_globs_set(&P.c.notrace, "ADA_NOTRACE", ada_rt.cfg.notrace);
		ada_globs_set(&P.c.graph, "ADA_GRAPH", ada_rt.cfg.graph);
		ada_globs_set(&P.c.trace_on, "ADA_TRIGGER", ada_rt.cfg.trigger.trace_on);
		ada_globs_set(&P.c.trace_off, "ADA_TRIGGER", ada_rt.cfg.trigger.trace_off);
	}
	filter_take();
	P.again = false;
	for (size_t i = 0; i < P.nmods; i++)
		P.mods[i].present = false;
	/* A module another thread was loading, which the walk could not read
	 * yet: the next pass must look again. */
	if (modules_each(pass_module) < 0)
		counts[0] = counts[1] = ~0ull;
	drop_absent();
	count_patched();
	__atomic_store_n(&ada_rt.patched_modules, PS.stats.modules, __ATOMIC_RELAXED);
	if (PS.stats.modules != modules) {
		/* What it cost (reading each module's sites and symbols too). */
		uint64_t t = ada_now_ns(CLOCK_MONOTONIC) - start;

		PS.stats.passes++;
		PS.stats.total_ns += t;
		if (!P.started)
			PS.stats.startup_ns = t;
	}
	/* A recorder's count follows the program's (which may not know of
	 * ada-ctl's filter yet): its record is the last. */
	if (PS.stats.modules != modules || (ada_recorder_self() && PS.stats.patched != patched))
		ada_meta_write(ADA_META_PATCHED, &PS.stats, sizeof(PS.stats), NULL, 0);
	free(P.seen);
	P.seen = P.now_seen;
	P.nseen = P.now_nseen;
	P.now_seen = NULL;
	P.now_nseen = 0;
	if (!P.started && !ada_recorder_self()) {
		if (!PS.stats.modules)
			nothing_patchable();
		warn_unmatched(&P.c.filter);
		warn_unmatched(&P.c.notrace);
		warn_unmatched(&P.c.graph);
		warn_unmatched(&P.c.trace_on);
		warn_unmatched(&P.c.trace_off);
		ada_patch_entries_share();
		__atomic_store_n(&PS.ready, 1, __ATOMIC_RELEASE);
	}
	/* The counts as they were before the walk: a module loaded during it
	 * moves them again, and the next pass looks. */
	__atomic_store_n(&P.adds, counts[0], __ATOMIC_RELEASE);
	__atomic_store_n(&P.subs, counts[1], __ATOMIC_RELEASE);
	__atomic_store_n(&P.started, true, __ATOMIC_RELEASE);
	ada_code_unlock();
out:
	pthread_mutex_unlock(&P.lock);
	ada_runtime_end(&w);
}

/* ---- recording off and on ----------------------------------------------------------- */

static int sync_module(struct dl_phdr_info *info, void *ns, void *arg)
{
	struct module *m = module_at(info);

	(void)ns;
	(void)arg;
	if (m && module_intact(m))
		module_sync(m, info);
	return 0;
}

/* Recording turned off (ada_disable): the patched entries become a 2-byte
 * NOP, so their functions cost what an unpatched one does (not with
 * trace_on/trace_off triggers: see entries_follow_recording); on: the
 * jumps again. The recorder's, a pass at most every few milliseconds: the
 * API call itself only sets the flag the hooks read. A function entered while its entry was a NOP returns
 * unrecorded; one entered through the jump returns through the trampoline:
 * the trace stays balanced. */
void ada_patch_sync(void)
{
	bool off = __atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED) != 0;

	/* Each writer pass: without the lock while nothing changed (P.off is
	 * written under it, atomically, for this look). */
	if (off == __atomic_load_n(&P.off, __ATOMIC_RELAXED) ||
	    (ada_recorder_self() && !recorder_ready()))
		return;
	pthread_mutex_lock(&P.lock);
	if (ada_code_lock()) {
		__atomic_store_n(&P.off, off, __ATOMIC_RELAXED);
		if (P.nmods)
			modules_each(sync_module);
		ada_code_unlock();
	}
	pthread_mutex_unlock(&P.lock);
}

/* ---- another filter in a running process --------------------------------------------- */

static int choose_again(struct dl_phdr_info *info, void *ns, void *arg)
{
	struct module *m = module_at(info);

	(void)ns;
	(void)arg;
	if (m && module_intact(m) && (m->next = malloc(m->n)))
		ada_patch_kinds(&P.c, m->path, info->dlpi_addr, m->sites, m->n, m->next);
	return 0;
}

static int apply_choice(struct dl_phdr_info *info, void *ns, void *arg)
{
	struct module *m = module_at(info);

	(void)ns;
	(void)arg;
	if (m && m->next && module_intact(m))
		module_write(m, info, m->next);
	return 0;
}

int ada_patch_refilter(const char *filter, const char *notrace, char *err, size_t errlen)
{
	char old_filter[1024], old_notrace[1024];
	const char *bad = NULL, *var = NULL;
	int patched = -1;

	if (ada_recorder_self()) {
		if (!recorder_ready() && ada_recorder_mem_fd() < 0) {
			snprintf(err, errlen, "the program's code cannot be written from its "
					      "recorder (/proc/%u/mem: %s): its entries stay as they are",
				 ada_rt.pid, strerror(ada_recorder_mem_errno()));
			return -1;
		}
		if (!ada_patch_is_remote()) {
			snprintf(err, errlen, "the program is still starting: try again");
			return -1;
		}
		ada_patch_modules(); /* the modules as they are now */
	}
	if (!P.nmods) {
		snprintf(err, errlen, "no module of this process was built with "
				      "--ada-mode=patchable: nothing to filter");
		return -1;
	}
	pthread_mutex_lock(&P.lock);
	if (!ada_code_lock()) {
		pthread_mutex_unlock(&P.lock);
		snprintf(err, errlen, "the program ended");
		return -1;
	}
	memcpy(old_filter, P.c.filter.src, sizeof(old_filter));
	memcpy(old_notrace, P.c.notrace.src, sizeof(old_notrace));
	ada_globs_set(&P.c.filter, "filter", filter ? filter : old_filter);
	ada_globs_set(&P.c.notrace, "notrace", notrace ? notrace : old_notrace);
	/* Chosen in one pass, written in a second, if every glob named
	 * something: a typo leaves the process as it was. */
	modules_each(choose_again);
	if (filter && (bad = ada_globs_unmatched(&P.c.filter)))
		var = "filter";
	else if (notrace && (bad = ada_globs_unmatched(&P.c.notrace)))
		var = "notrace";
	if (bad) {
		snprintf(err, errlen, "%s %s: %s matches no patchable function", var,
			 var[0] == 'f' ? P.c.filter.src : P.c.notrace.src, bad);
		ada_globs_set(&P.c.filter, "ADA_FILTER", old_filter);
		ada_globs_set(&P.c.notrace, "ADA_NOTRACE", old_notrace);
	} else {
		modules_each(apply_choice);
		count_patched();
		ada_meta_write(ADA_META_PATCHED, &PS.stats, sizeof(PS.stats), NULL, 0);
		patched = (int)PS.stats.patched;
		/* The program's passes choose by it from now on. */
		memcpy(PS.filter, P.c.filter.src, sizeof(PS.filter));
		memcpy(PS.notrace, P.c.notrace.src, sizeof(PS.notrace));
		P.filter_gen = __atomic_add_fetch(&PS.filter_gen, 1, __ATOMIC_RELEASE);
	}
	for (size_t i = 0; i < P.nmods; i++) {
		free(P.mods[i].next);
		P.mods[i].next = NULL;
	}
	ada_code_unlock();
	pthread_mutex_unlock(&P.lock);
	return patched;
}
