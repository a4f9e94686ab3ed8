/* modmap.c - which ELF images are loaded where, for offline symbolization.
 *
 * dl_iterate_phdr gives every image's load bias and program headers; the
 * GNU build-id note is read from the mapped image itself, so the symbolizer
 * can later refuse a binary that changed since the run. The scan is cheap
 * when nothing was loaded: dlpi_adds tells, and the walk stops at once.
 *
 * dl_iterate_phdr lists only its caller's link-map namespace. The modules
 * dlmopen loads into others are found the way a debugger finds them: the
 * executable's DT_DEBUG entry points at the loader's r_debug, whose
 * r_next (version 2, glibc 2.35) chains one list of link maps per
 * namespace.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ada_internal.h"
#include "proc_state.h"
#include "kept_symbols.h"

/* A module recorded and not seen unloaded yet: a load of a file at an
 * address. The same file at the same address after a dlclose is a load of
 * its own, and so is another file where a closed one was. */
struct live_module {
	uint64_t bias;
	uint64_t name_hash;
	uint64_t start;   /* where its file's offset 0 is mapped: how a recorder knows it */
	char *path;       /* NULL if it could not be kept */
	uint32_t module_no; /* NOT_MODULE: a recorder's look found no image there */
	bool present; /* listed by the scan under way */
};

#define NOT_MODULE UINT32_MAX

static struct {
	unsigned long long adds, subs; /* dlpi_adds, dlpi_subs at the last full scan */
	struct live_module *live;
	size_t n, cap;
	uint32_t next_no;
	uint64_t generation; /* moves when a module is added or goes */
} M;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

/* The module loaded at bias from that file, if it is recorded: marked
 * present. NULL if it is new. */
static struct live_module *live_find(uint64_t bias, uint64_t name_hash)
{
	size_t i;

	for (i = 0; i < M.n; i++)
		if (M.live[i].bias == bias && M.live[i].name_hash == name_hash) {
			M.live[i].present = true;
			return &M.live[i];
		}
	return NULL;
}

static bool live_add(const struct ada_meta_module *m, const char *path, uint64_t name_hash,
		     uint32_t module_no)
{
	if (M.n == M.cap) {
		size_t cap = M.cap ? 2 * M.cap : 64;
		struct live_module *p = realloc(M.live, cap * sizeof(*p));

		if (!p)
			return false;
		M.live = p;
		M.cap = cap;
	}
	M.live[M.n++] = (struct live_module){ m->bias, name_hash, m->bias + m->vaddr_lo,
					      strdup(path), module_no, true };
	M.generation++;
	return true;
}

static bool live_has(uint32_t module_no)
{
	for (size_t i = 0; i < M.n; i++)
		if (M.live[i].module_no == module_no)
			return true;
	return false;
}

/* After a scan that listed every module (complete), the ones it did not
 * list are gone: UNLOAD at `now`. */
void ada_modmap_sweep(bool complete, uint64_t now)
{
	size_t i, kept = 0;

	for (i = 0; i < M.n; i++) {
		struct ada_meta_unload u = { .module_no = M.live[i].module_no, .unload_tsc = now };

		/* The vDSO is in no list of files: it stays for the process's life. */
		if (M.live[i].present || !complete ||
		    (M.live[i].path && !strcmp(M.live[i].path, ADA_VDSO_PATH))) {
			M.live[kept] = M.live[i];
			M.live[kept++].present = false;
			continue;
		}
		if (u.module_no != NOT_MODULE)
			ada_meta_write(ADA_META_UNLOAD, &u, sizeof(u), NULL, 0);
		free(M.live[i].path);
		M.generation++;
	}
	M.n = kept;
}

uint32_t ada_build_id_from_note(const uint8_t *p, size_t len, uint8_t out[32])
{
	while (len >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *nh = (const void *)p;
		size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;
		size_t rec = sizeof(*nh) + name + desc;

		if (rec > len)
			break;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz <= 32) {
			memcpy(out, p + sizeof(*nh) + name, nh->n_descsz);
			return nh->n_descsz;
		}
		p += rec;
		len -= rec;
	}
	return 0;
}

void ada_modmap_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
	int i;

	*lo = UINTPTR_MAX;
	*hi = 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (start < *lo)
			*lo = start;
		if (start + ph->p_memsz > *hi)
			*hi = start + ph->p_memsz;
	}
}

/* ---- every namespace's modules ------------------------------------------------- */

struct each {
	ada_module_fn *fn;
	void *arg;
	int stop;
	const struct r_debug *r;
	const char *listed; /* the first module dl_iterate_phdr listed: its l_name */
	bool partial;       /* a module of a namespace could not be read yet */
};

/* The loader's r_debug, from the executable's DT_DEBUG (what the loader
 * fills in for debuggers); libc's _r_debug symbol otherwise. */
static const struct r_debug *r_debug_of(const struct dl_phdr_info *exe)
{
	for (int i = 0; i < exe->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &exe->dlpi_phdr[i];

		if (ph->p_type != PT_DYNAMIC)
			continue;
		for (const ElfW(Dyn) *d = (const void *)(exe->dlpi_addr + ph->p_vaddr); d->d_tag != DT_NULL;
		     d++)
			if (d->d_tag == DT_DEBUG && d->d_un.d_ptr)
				return (const struct r_debug *)d->d_un.d_ptr;
	}
	return &_r_debug;
}

static int each_default(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct each *e = arg;

	(void)size;
	if (!e->r) { /* the first module listed: the executable */
		e->r = r_debug_of(info);
		e->listed = info->dlpi_name;
	}
	return e->stop = e->fn(info, NULL, e->arg);
}

/* A link map's program headers: the ELF header is at the start of the
 * module's first mapping (the first PT_LOAD maps file offset 0), which
 * _dl_find_object gives without a lock. 0, or 1 for a map to pass over: one
 * _dl_find_object does not return for its own dynamic section is a
 * stand-in (the dynamic linker's, listed again in each namespace, and seen
 * in the default one). -1: not known to _dl_find_object yet (a dlmopen
 * still under way in another thread: the loader lists a module before it
 * registers it there). */
static int ns_module(struct link_map *l, struct dl_phdr_info *info)
{
	struct dl_find_object fo;
	const ElfW(Ehdr) *eh;

	if (!l->l_ld)
		return 1;
	if (_dl_find_object(l->l_ld, &fo) != 0)
		return -1;
	if (fo.dlfo_link_map != l)
		return 1;
	eh = fo.dlfo_map_start;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_phentsize != sizeof(ElfW(Phdr)))
		return 1;
	memset(info, 0, sizeof(*info));
	info->dlpi_addr = l->l_addr;
	info->dlpi_name = l->l_name;
	info->dlpi_phdr = (const ElfW(Phdr) *)((const char *)fo.dlfo_map_start + eh->e_phoff);
	info->dlpi_phnum = eh->e_phnum;
	return 0;
}

/* Runs inside dl_iterate_phdr, for its lock: the lists cannot change. The
 * namespace dl_iterate_phdr listed is the default one, unless libada itself
 * was loaded by dlmopen (into an uninstrumented program): it is the one
 * whose first link map has the name dl_iterate_phdr gave first. */
static int each_other(struct dl_phdr_info *unused, size_t size, void *arg)
{
	const struct r_debug_extended *ns;
	struct each *e = arg;

	(void)unused;
	(void)size;
	if (!e->r || e->r->r_version < 2)
		return 1;
	for (ns = (const struct r_debug_extended *)e->r; ns && !e->stop; ns = ns->r_next) {
		if (!ns->base.r_map || ns->base.r_map->l_name == e->listed)
			continue;
		for (struct link_map *l = ns->base.r_map; l && !e->stop; l = l->l_next) {
			struct dl_phdr_info info;
			int r = ns_module(l, &info);

			if (r == 0)
				e->stop = e->fn(&info, ns->base.r_map, e->arg);
			e->partial |= r < 0;
		}
	}
	return 1;
}

int ada_modules_each(ada_module_fn *fn, void *arg)
{
	struct each e = { fn, arg, 0, NULL, NULL, false };

	dl_iterate_phdr(each_default, &e);
	if (!e.stop)
		dl_iterate_phdr(each_other, &e);
	return e.partial ? -1 : 0;
}

static int first_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	((unsigned long long *)arg)[0] = info->dlpi_adds;
	((unsigned long long *)arg)[1] = info->dlpi_subs;
	return 1;
}

void ada_loader_counts(unsigned long long counts[2])
{
	counts[0] = counts[1] = 0;
	dl_iterate_phdr(first_counts, counts);
}

/* ---- the module records ---------------------------------------------------------- */

uint32_t ada_build_id_of(const struct dl_phdr_info *info, uint8_t out[32])
{
	uint32_t n = 0;

	for (int i = 0; i < info->dlpi_phnum && !n; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE)
			n = ada_build_id_from_note((const uint8_t *)(info->dlpi_addr + ph->p_vaddr),
						   ph->p_memsz, out);
	}
	return n;
}

static void describe(const struct dl_phdr_info *info, struct ada_meta_module *m)
{
	uintptr_t lo, hi;

	m->build_id_len = ada_build_id_of(info, m->build_id);
	ada_modmap_range(info, &lo, &hi);
	m->bias = info->dlpi_addr;
	/* The raw format keeps ELF addresses: the bias is added back offline. */
	m->vaddr_lo = (lo - m->bias) & ~(uint64_t)4095;
	m->vaddr_hi = hi - m->bias;
}

/* The file mapped at `start`, from /proc/self/maps: the loader keeps the name
 * a library was opened by, which may be relative to a directory the program
 * has left since. */
static bool path_from_maps(uint64_t start, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4608];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t lo;
		int pos = 0;

		if (sscanf(line, "%" SCNx64 "-%*x %*s %*x %*s %*u %n", &lo, &pos) < 1 || !pos ||
		    lo != start || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, len, "%s", line + pos);
		found = true;
	}
	fclose(f);
	return found;
}

/* A module without a build-id: its file's FILE record (RAW_FORMAT.md), the
 * identity ada-symbolize checks the file at hand and finds kept symbols by.
 * False if stat fails (nothing would tell the file then). */
bool ada_modmap_record_file(const char *path, uint32_t module_no, struct ada_meta_file *f)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	*f = ada_kept_file_of(&st, module_no);
	ada_meta_write(ADA_META_FILE, f, sizeof(*f), NULL, 0);
	return true;
}

struct scan {
	bool first;   /* the first module listed: the executable */
	bool all;     /* walk every module, even if nothing was loaded since */
	bool stopped; /* nothing loaded or unloaded since: no module was listed */
};

#define VDSO_HEADER_MAX 4096 /* its program headers follow its ELF header */

static int visit(struct dl_phdr_info *info, void *ns, void *arg)
{
	struct ada_meta_module m = { 0 };
	struct ada_meta_file file;
	struct scan *sc = arg;
	char exe[4096];
	const char *path = info->dlpi_name;
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	bool is_vdso;
	uint64_t key;

	(void)ns;
	if (sc->first) {
		sc->first = false;
		if (info->dlpi_adds == M.adds && info->dlpi_subs == M.subs && !sc->all) {
			sc->stopped = true;
			return 1; /* nothing loaded or unloaded since the last scan */
		}
		M.adds = info->dlpi_adds;
		M.subs = info->dlpi_subs;
		if (!*path) /* the executable has no name here */
			path = ada_rt.exe;
	}
	/* The vDSO has no file: recorded by a name of its own, its symbols
	 * kept by the recorder (a counter sample in clock_gettime). */
	is_vdso = (uintptr_t)info->dlpi_phdr - vdso < VDSO_HEADER_MAX;
	if (is_vdso)
		path = ADA_VDSO_PATH;
	/* Known by the name the loader has (a relative one resolved only for a
	 * new load: that reads /proc/self/maps, on the thread that dlopen'ed). */
	key = hash_str(path);
	if (live_find(info->dlpi_addr, key))
		return 0;
	describe(info, &m);
	if (!is_vdso) {
		if (*path && path[0] != '/' && path_from_maps(m.bias + m.vaddr_lo, exe, sizeof(exe)))
			path = exe;
		if (!*path || path[0] != '/')
			return 0;
	}
	m.module_no = M.next_no;
	if (!live_add(&m, path, key, m.module_no))
		return 0; /* cannot remember it: not recorded (its addresses stay unnamed) */
	M.next_no++;
	m.load_tsc = ada_arch_ticks();
	/* The recorder notes its symbols for keeping from these records. */
	ada_meta_write(ADA_META_MODULE, &m, sizeof(m), path, strlen(path) + 1);
	if (!m.build_id_len && !is_vdso)
		ada_modmap_record_file(path, m.module_no, &file);
	if (ada_apart_needed) /* after start-up: counted for a recorder */
		__atomic_fetch_add(&ada_rt.modules_late, 1, __ATOMIC_RELEASE);
	return 0;
}

/* The writer scans periodically; a thread that returns from dlopen scans at
 * once, and all of it, so a library loaded and unloaded between two writer
 * passes is still recorded (its functions' events need it). dlpi_adds alone
 * cannot tell a writer's scan that it saw everything: in the middle of a
 * dlmopen in another thread, the loader counts a module before the new
 * namespace's list or _dl_find_object shows it. */
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;

void ada_modmap_scan(bool all)
{
	struct scan sc = { true, all, false };
	bool partial;

	pthread_mutex_lock(&scan_lock);
	/* A module not readable yet is recorded by a later scan: this one must
	 * not count as seeing everything dlpi_adds says was loaded, nor take
	 * what it did not list for unloaded. */
	partial = ada_modules_each(visit, &sc) < 0;
	if (partial)
		M.adds = 0;
	/* The time of the unloads: after the walk, because a module it did not
	 * list was off the loader's list before it, after every event of its
	 * code (its destructors included); and under scan_lock, because a
	 * thread that loaded a module in its place returns from dlopen only
	 * after a scan of its own (the dynamic hooks), so that module's
	 * events come later (but for its constructors'). */
	ada_modmap_sweep(!partial && !sc.stopped, ada_arch_ticks());
	pthread_mutex_unlock(&scan_lock);
}

void ada_modmap_reset(void)
{
	pthread_mutex_init(&scan_lock, NULL);
	for (size_t i = 0; i < M.n; i++)
		free(M.live[i].path);
	free(M.live);
	memset(&M, 0, sizeof(M));
}

/* ---- the list, for a recorder's view (recorder/modmap_look.c) ------------------ */
/* The recorder's copy of the list is the program's at the recorder's fork:
 * it goes on from there with what the program records later (its queued
 * records, with the dynamic hooks) or, without them, with what the
 * recorder itself finds in the program's maps. Module numbers come from
 * one side only: the program's with the hooks, the recorder's without. */

bool ada_modmap_mark_present(uint64_t start)
{
	for (size_t i = 0; i < M.n; i++)
		if (M.live[i].start == start) {
			M.live[i].present = true;
			return true;
		}
	return false;
}

void ada_modmap_add_none(uint64_t start, const char *path)
{
	struct ada_meta_module m = { .bias = start };

	live_add(&m, path, 0, NOT_MODULE);
}

bool ada_modmap_add_new(struct ada_meta_module *m, const char *path)
{
	m->module_no = M.next_no;
	if (!live_add(m, path, hash_str(path), m->module_no))
		return false;
	M.next_no++;
	return true;
}

void ada_modmap_add_recorded(const struct ada_meta_module *m, const char *path)
{
	if (!live_has(m->module_no))
		live_add(m, path, hash_str(path), m->module_no);
	/* `ada record`'s recorder learns every module so: the numbers it
	 * gives follow the program's. */
	if (m->module_no != NOT_MODULE && m->module_no >= M.next_no)
		M.next_no = m->module_no + 1;
}

void ada_modmap_drop(uint32_t module_no)
{
	for (size_t i = 0; i < M.n; i++)
		if (M.live[i].module_no == module_no) {
			free(M.live[i].path);
			M.live[i] = M.live[--M.n];
			M.generation++;
			return;
		}
}

uint64_t ada_modmap_generation(void)
{
	return M.generation;
}

void ada_modmap_each_live(void (*fn)(const char *path, uint64_t bias, void *arg), void *arg)
{
	for (size_t i = 0; i < M.n; i++)
		if (M.live[i].module_no != NOT_MODULE && M.live[i].path)
			fn(M.live[i].path, M.live[i].bias, arg);
}
