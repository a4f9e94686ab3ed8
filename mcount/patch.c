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
 * Which functions, and as what (each kind calls an entry of its own, so no
 * hook compares a name or an address):
 *   trace_on / trace_off  func:GLOB:trace_on|off in ADA_TRIGGER: recording
 *                         on or off from the call
 *   graph                 ADA_GRAPH: the thread records inside their calls
 *   plain                 ADA_FILTER's (all when empty), less ADA_NOTRACE's
 * by name from each module's symbol table, read from its file. Modules are
 * looked at at start-up and, when a pass sees the loader's counts move (a
 * dlopen), again: the new ones are patched. ada_disable turns every entry
 * but trace_on's back into a NOP (ada_patch_sync, the writer's); ada-ctl's
 * filter changes ADA_FILTER / ADA_NOTRACE in a running process
 * (ada_patch_refilter). Every write to a module's code happens inside an
 * ada_modules_each callback for it (dl_iterate_phdr's lock): dlclose
 * cannot unmap it meanwhile.
 */
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"
#include "passes.h"
#include "patch.h"

#define GLOBS_MAX 64

/* A comma list of name globs, and how many functions each matched. */
struct globs {
	const char *var;   /* the variable it came from, for messages */
	char src[1024];    /* as given */
	char buf[1024];    /* split */
	const char *g[GLOBS_MAX];
	size_t matched[GLOBS_MAX];
	unsigned n;
};

/* A module with a site table, as last patched. */
struct module {
	uintptr_t base;
	char *path;        /* NULL: the executable */
	uint8_t *stubs;    /* made at its first patched site */
	uintptr_t lo, hi;  /* its extent: the stubs' reach */
	uintptr_t *sites;  /* sorted */
	uint8_t *kind;     /* each site's PATCH_* (NONE: not patched, or unpatched) */
	uint8_t *next;     /* ada_patch_refilter's choice, before it is applied */
	size_t n;
	bool present;      /* seen by the current pass */
};

static struct {
	pthread_mutex_t lock; /* passes: start-up, after a dlopen, the writer's, ada-ctl's */
	struct globs filter, notrace, graph, trace_on, trace_off;
	struct module *mods;
	size_t nmods;
	uintptr_t *seen;      /* bases of every module looked at, as of the last pass */
	size_t nseen;
	struct ada_meta_patched stats; /* what process.meta is told */
	unsigned long long adds, subs; /* the loader's counts at the last pass */
	bool off;             /* entries are NOPs (recording off) */
	bool started;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void globs_set(struct globs *gl, const char *var, const char *list)
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
static const char *globs_unmatched(const struct globs *gl)
{
	for (unsigned i = 0; i < gl->n; i++)
		if (!gl->matched[i])
			return gl->g[i];
	return NULL;
}

static bool any_globs(void)
{
	return P.filter.n || P.notrace.n || P.graph.n || P.trace_on.n || P.trace_off.n;
}

/* ---- which functions, as what ------------------------------------------------------ */

static uint8_t kind_of(const char *name)
{
	if (globs_match(&P.trace_on, name))
		return PATCH_TRACE_ON;
	if (globs_match(&P.trace_off, name))
		return PATCH_TRACE_OFF;
	if (globs_match(&P.graph, name))
		return PATCH_GRAPH;
	if (P.filter.n && !globs_match(&P.filter, name))
		return PATCH_NONE;
	return globs_match(&P.notrace, name) ? PATCH_NONE : PATCH_PLAIN;
}

struct named {
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
	nm->f[nm->n++].kind = kind_of(name);
}

static int by_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Each site's kind into out[]: from the names of the functions at its
 * entry (the strongest kind of their aliases; the file's symbol table is
 * read only when some glob is set), or, with no name, plain unless
 * ADA_FILTER chooses. */
static void module_kinds(const struct module *m, uintptr_t bias, uint8_t *out)
{
	struct named nm = { NULL, 0, 0 };
	struct ada_elf e;
	size_t j = 0;

	if (any_globs() && ada_elf_open(m->path, bias, &e) == 0) {
		ada_elf_functions(&e, name_one, &nm);
		ada_elf_close(&e);
		qsort(nm.f, nm.n, sizeof(*nm.f), by_addr);
	}
	for (size_t i = 0; i < m->n; i++) {
		uintptr_t fn = m->sites[i] + PATCH_PAD;
		int k = -1;

		while (j < nm.n && nm.f[j].addr < fn)
			j++;
		for (size_t a = j; a < nm.n && nm.f[a].addr == fn; a++)
			if (nm.f[a].kind > k)
				k = nm.f[a].kind;
		out[i] = k >= 0 ? (uint8_t)k : P.filter.n ? PATCH_NONE : PATCH_PLAIN;
	}
	free(nm.f);
}

/* ---- writing a module's sites ------------------------------------------------------- */

/* With trace_on / trace_off triggers, entries stay patched while
 * recording is off: a trace_on takes effect at its call, not at the
 * writer's next pass (the hooks return at once while it is off). So do
 * they with a recorder process, which does not write the program's code:
 * ada_disable costs a hook's early return per call then, not nothing
 * (ADA_WRITER=thread for the NOPs). */
static bool entries_follow_recording(void)
{
	return !P.trace_on.n && !P.trace_off.n && !ada_rt.cfg.recorder;
}

/* Whether a site of this kind has its jump now. */
static bool jumps(unsigned kind)
{
	return kind != PATCH_NONE && (!P.off || !entries_follow_recording());
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
		} else if (!m->stubs && !(m->stubs = ada_patch_stubs(m->lo, m->hi))) {
			ada_warn("%s: no page within reach of its code for the patch stubs; its "
				 "functions are not traced", m->path ? m->path : "the executable");
			break;
		} else if (!ada_patch_site(a, m->stubs, want[i], jumps(want[i]), &w)) {
			P.stats.refused++;
			continue;
		}
		m->kind[i] = want[i];
	}
	ada_patch_window_close(&w);
}

static struct module *module_at(const struct dl_phdr_info *info)
{
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL;

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
	if ((path && !m->path) || !m->sites || !m->kind || !want) {
		module_free(m);
		free(want);
		return;
	}
	P.nmods++;
	memcpy(m->sites, (const void *)(info->dlpi_addr + sh->sh_addr), m->n * sizeof(*m->sites));
	qsort(m->sites, m->n, sizeof(*m->sites), by_addr);
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
	P.stats.modules++;
	P.stats.sites += (uint32_t)m->n;
	module_kinds(m, info->dlpi_addr, want);
	module_write(m, info, want);
	free(want);
}

/* Whether m's code is still what was patched: a module unloaded and
 * another (or the same file again) loaded at its address has fresh NOPs. */
static bool module_intact(const struct module *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->kind[i] != PATCH_NONE)
			return *(const uint8_t *)m->sites[i] == 0xe8;
	return true;
}

static int pass_module(struct dl_phdr_info *info, void *ns, void *arg)
{
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL;
	struct module *m = module_at(info);
	Elf64_Shdr sh;

	(void)ns;
	(void)arg;
	if (m && module_intact(m)) {
		m->present = true;
		return 0;
	}
	if (m)
		module_free(m); /* left for the end of the pass to drop */
	for (size_t i = 0; !m && i < P.nseen; i++)
		if (P.seen[i] == info->dlpi_addr)
			return 0; /* no site table: looked at by an earlier pass */
	if (ada_elf_find_section(path, SHT_PROGBITS, ADA_PATCHABLE_SECTION, &sh) == 0 && sh.sh_size)
		module_add(info, path, &sh);
	return 0;
}

static int remember(struct dl_phdr_info *info, void *ns, void *arg)
{
	uintptr_t *s = realloc(P.seen, (P.nseen + 1) * sizeof(*s));

	(void)ns;
	(void)arg;
	if (s) {
		P.seen = s;
		P.seen[P.nseen++] = info->dlpi_addr;
	}
	return 0;
}

/* Modules gone since the last pass (dlclose) are forgotten. */
static void drop_absent(void)
{
	size_t k = 0;

	for (size_t i = 0; i < P.nmods; i++) {
		if (P.mods[i].present && P.mods[i].sites)
			P.mods[k++] = P.mods[i];
		else
			module_free(&P.mods[i]);
	}
	P.nmods = k;
}

static void count_patched(void)
{
	P.stats.patched = 0;
	for (size_t i = 0; i < P.nmods; i++)
		for (size_t j = 0; j < P.mods[i].n; j++)
			P.stats.patched += P.mods[i].kind[j] != PATCH_NONE;
}

/* A glob that matched nothing is likely a typo: one line each, at start,
 * with the variable's value as given. */
static void warn_unmatched(const struct globs *gl)
{
	const char *g = globs_unmatched(gl), *v = getenv(gl->var);

	if (g && P.stats.modules)
		ada_warn("%s=%s: %s matches no patchable function", gl->var, v ? v : gl->src, g);
}

/* ADA_GRAPH or a trace_on/trace_off trigger, and no module to patch: the
 * user learns it, and the threads record as without them. */
static void nothing_patchable(void)
{
	if (P.graph.n) {
		ada_warn("ADA_GRAPH=%s: no module was built with --ada-mode=patchable; "
			 "recording every call", ada_rt.cfg.graph);
		ada_rt.cfg.graph[0] = '\0';
		/* Threads set up so far (before main: this one). */
		for (struct ada_thread *td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td;
		     td = td->next)
			td->graph_gate = false;
	}
	if (P.trace_on.n || P.trace_off.n)
		ada_warn("ADA_TRIGGER=%s: trace_on and trace_off need a module built with "
			 "--ada-mode=patchable; ignoring them", getenv("ADA_TRIGGER"));
}

bool ada_patch_module_at(uintptr_t base)
{
	bool found = false;

	pthread_mutex_lock(&P.lock);
	for (size_t i = 0; i < P.nmods && !found; i++)
		found = P.mods[i].present && P.mods[i].base == base && P.mods[i].n;
	pthread_mutex_unlock(&P.lock);
	return found;
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
		__atomic_store_n(&P.off, __atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED) != 0,
				 __ATOMIC_RELAXED);
		globs_set(&P.filter, "ADA_FILTER", ada_rt.cfg.filter);
		globs_set(&P.notrace, "ADA_NOTRACE", ada_rt.cfg.notrace);
		globs_set(&P.graph, "ADA_GRAPH", ada_rt.cfg.graph);
		globs_set(&P.trace_on, "ADA_TRIGGER", ada_rt.cfg.trigger.trace_on);
		globs_set(&P.trace_off, "ADA_TRIGGER", ada_rt.cfg.trigger.trace_off);
	}
	for (size_t i = 0; i < P.nmods; i++)
		P.mods[i].present = false;
	ada_modules_each(pass_module, NULL);
	drop_absent();
	count_patched();
	__atomic_store_n(&ada_rt.patched_modules, P.stats.modules, __ATOMIC_RELAXED);
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
	if (!P.started && !P.stats.modules)
		nothing_patchable();
	if (!P.started) {
		warn_unmatched(&P.filter);
		warn_unmatched(&P.notrace);
		warn_unmatched(&P.graph);
		warn_unmatched(&P.trace_on);
		warn_unmatched(&P.trace_off);
	}
	__atomic_store_n(&P.started, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&P.lock);
	ada_runtime_end(&w);
}

/* ---- recording off and on ----------------------------------------------------------- */

static int sync_module(struct dl_phdr_info *info, void *ns, void *arg)
{
	struct module *m = module_at(info);
	struct patch_window w = { info, 0, 0 };

	(void)ns;
	(void)arg;
	if (!m || !module_intact(m))
		return 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->kind[i] != PATCH_NONE)
			ada_patch_entry_set((uint8_t *)m->sites[i], !P.off, &w);
	ada_patch_window_close(&w);
	return 0;
}

/* Recording turned off (ada_disable): the patched entries become a 2-byte
 * NOP, so their functions cost what an unpatched one does (not with
 * trace_on/trace_off triggers: see entries_follow_recording); on: the
 * jumps again. The writer's, a pass at most
 * every few milliseconds: the API call itself only sets the flag the hooks
 * read. A function entered while its entry was a NOP returns unrecorded;
 * one entered through the jump returns through the trampoline: the trace
 * stays balanced. */
void ada_patch_sync(void)
{
	bool off = __atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED) != 0;

	/* Each writer pass: without the lock while nothing changed (P.off is
	 * written under it, atomically, for this look). */
	if (off == __atomic_load_n(&P.off, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&P.lock);
	__atomic_store_n(&P.off, off, __ATOMIC_RELAXED);
	if (P.nmods && entries_follow_recording())
		ada_modules_each(sync_module, NULL);
	pthread_mutex_unlock(&P.lock);
}

/* ---- another filter in a running process --------------------------------------------- */

static int choose_again(struct dl_phdr_info *info, void *ns, void *arg)
{
	struct module *m = module_at(info);

	(void)ns;
	(void)arg;
	if (m && module_intact(m) && (m->next = malloc(m->n)))
		module_kinds(m, info->dlpi_addr, m->next);
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

	if (!P.nmods) {
		snprintf(err, errlen, "no module of this process was built with "
				      "--ada-mode=patchable: nothing to filter");
		return -1;
	}
	pthread_mutex_lock(&P.lock);
	memcpy(old_filter, P.filter.src, sizeof(old_filter));
	memcpy(old_notrace, P.notrace.src, sizeof(old_notrace));
	globs_set(&P.filter, "filter", filter ? filter : old_filter);
	globs_set(&P.notrace, "notrace", notrace ? notrace : old_notrace);
	/* Chosen in one pass, written in a second, if every glob named
	 * something: a typo leaves the process as it was. */
	ada_modules_each(choose_again, NULL);
	if (filter && (bad = globs_unmatched(&P.filter)))
		var = "filter";
	else if (notrace && (bad = globs_unmatched(&P.notrace)))
		var = "notrace";
	if (bad) {
		snprintf(err, errlen, "%s %s: %s matches no patchable function", var,
			 var[0] == 'f' ? P.filter.src : P.notrace.src, bad);
		globs_set(&P.filter, "ADA_FILTER", old_filter);
		globs_set(&P.notrace, "ADA_NOTRACE", old_notrace);
	} else {
		ada_modules_each(apply_choice, NULL);
		count_patched();
		ada_meta_write(ADA_META_PATCHED, &P.stats, sizeof(P.stats), NULL, 0);
		patched = (int)P.stats.patched;
	}
	for (size_t i = 0; i < P.nmods; i++) {
		free(P.mods[i].next);
		P.mods[i].next = NULL;
	}
	pthread_mutex_unlock(&P.lock);
	return patched;
}
