/* patch_write.c - writing patchable mode's code bytes (mcount/patch.c
 * decides which; this writes them while other threads run).
 *
 * A site A (-fpatchable-function-entry=7,5) is patched by writing
 *
 *     A:    call stub       the module's stub for the site's kind
 *     A+5:  jmp A           eb f9
 *
 * first the call, which no thread runs (nothing jumps to A before the jump
 * is there), then the jump as one 2-byte store, atomic on x86 within a
 * cache line (XRay patches its sleds the same way). A thread that was
 * between the two NOPs when the jump was written resumes at its second
 * byte, f9: stc, which sets the carry flag, that nobody relies on at a
 * function's entry, and runs on. Unpatching stores 66 90, a single 2-byte
 * NOP, so later patches never meet a thread inside an instruction; the call
 * stays (nothing reaches it), so patching the site again is one 2-byte store.
 * A site's kind never changes once its call is written: rewriting a call
 * another thread may be about to run would need int3 and a handler.
 *
 * The call reaches ±2 GiB: each module gets a stub page next to it. Code
 * pages are made writable for the writes to them only, and never beyond
 * the module's executable segment.
 *
 * A recorder process writes the program's code through /proc/<pid>/mem
 * (ada-ctl's filter, recording off and on, a module it found itself): the
 * kernel writes through read-only pages there, and nothing in the program
 * runs. Its copy may tear a 2-byte store into two, so an entry is written a
 * byte at a time, in the order that leaves a whole instruction at every
 * step: to the jump, f9 first (66 f9 and 90 f9 hold stc), then eb; to the
 * NOP, 66 first (66 f9: stc again), then 90. The call before the entry is
 * not run by anyone while it is written, in either process. A recorder
 * cannot map a stub page in the program: it uses the page the program made
 * (patch.c keeps their addresses in shared memory), or calls the entries
 * directly where they are within reach.
 */
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "patch.h"

ADA_HIDDEN void ada_patch_entry(void);
ADA_HIDDEN void ada_patch_graph_entry(void);
ADA_HIDDEN void ada_patch_on_entry(void);
ADA_HIDDEN void ada_patch_off_entry(void);

static const uint8_t nops[PATCH_PAD + 2] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
static const uint8_t jump_back[2] = { 0xeb, 0x100 - (PATCH_PAD + 2) }; /* jmp A */
static const uint8_t nop2[2] = { 0x66, 0x90 };

/* ---- whose code ------------------------------------------------------------------- */

/* In a recorder: the program's memory (-1: this process's own code). */
static int mem_fd = -1;

void ada_patch_remote(int fd)
{
	mem_fd = fd;
}

bool ada_patch_is_remote(void)
{
	return mem_fd >= 0;
}

bool ada_code_read(uintptr_t a, void *buf, size_t len)
{
	if (mem_fd < 0) {
		memcpy(buf, (const void *)a, len);
		return true;
	}
	return pread(mem_fd, buf, len, (off_t)a) == (ssize_t)len;
}

static bool remote_write(uintptr_t a, const void *buf, size_t len)
{
	ssize_t n;

	while ((n = pwrite(mem_fd, buf, len, (off_t)a)) < 0 && errno == EINTR)
		;
	return n == (ssize_t)len;
}

/* Each kind's entry in mcount/<arch>/patch.S (a forked recorder's are
 * where the program's are; `ada record`'s are not: patch_share.c). */
static void (*const kind_entry[PATCH_KINDS])(void) = {
	[PATCH_PLAIN] = ada_patch_entry,
	[PATCH_GRAPH] = ada_patch_graph_entry,
	[PATCH_TRACE_ON] = ada_patch_on_entry,
	[PATCH_TRACE_OFF] = ada_patch_off_entry,
};

uintptr_t ada_patch_entry_of(unsigned kind)
{
	return (uintptr_t)kind_entry[kind];
}

/* ---- stubs ------------------------------------------------------------------------ */

/* A page for the module's stubs, within reach of a rel32 call from [lo, hi). */
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

/* One stub per kind, PATCH_STUB bytes apart: jmp *0(%rip); .quad entry. */
uint8_t *ada_patch_stubs(uintptr_t lo, uintptr_t hi)
{
	uint8_t *p = mem_fd < 0 ? stub_near(lo, hi) : NULL;

	if (!p)
		return NULL;
	for (unsigned k = PATCH_PLAIN; k < PATCH_KINDS; k++) {
		uintptr_t target = (uintptr_t)kind_entry[k];
		uint8_t *s = p + (k - PATCH_PLAIN) * PATCH_STUB;

		memcpy(s, (const uint8_t[]){ 0xff, 0x25, 0, 0, 0, 0 }, 6);
		memcpy(s + 6, &target, sizeof(target));
	}
	if (mprotect(p, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC) < 0) {
		munmap(p, (size_t)sysconf(_SC_PAGESIZE));
		return NULL;
	}
	return p;
}

/* ---- code windows ------------------------------------------------------------------ */

/* The module's executable segment holding a: [*lo, *hi), page-aligned. */
static bool segment_of(const struct dl_phdr_info *info, uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && a >= s && a < s + ph->p_memsz) {
			*lo = s & ~(page - 1);
			*hi = (s + ph->p_memsz + page - 1) & ~(page - 1);
			return true;
		}
	}
	return false;
}

/* Code pages are writable (and still executable: other threads may be
 * running them) while sites in them are written, WINDOW bytes at most at a
 * time, and never beyond the module's executable segment: its other pages
 * (data, the heap after it) keep their own protection. */
#define WINDOW (64u << 10)

static bool window_cover(struct patch_window *w, uintptr_t a, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), seg_lo, seg_hi;

	if (w->hi && a >= w->lo && a + len <= w->hi)
		return true;
	ada_patch_window_close(w);
	if (!segment_of(w->info, a, &seg_lo, &seg_hi) || a + len > seg_hi)
		return false;
	if (mem_fd >= 0)
		return true; /* the kernel writes through the protection */
	w->lo = a & ~(page - 1);
	w->hi = (a + len + WINDOW + page - 1) & ~(page - 1);
	if (w->hi > seg_hi)
		w->hi = seg_hi;
	if (mprotect((void *)w->lo, w->hi - w->lo, PROT_READ | PROT_WRITE | PROT_EXEC) == 0)
		return true;
	w->hi = 0;
	return false;
}

void ada_patch_window_close(struct patch_window *w)
{
	if (w->hi && mem_fd < 0)
		mprotect((void *)w->lo, w->hi - w->lo, PROT_READ | PROT_EXEC);
	w->hi = 0;
}

/* ---- sites ----------------------------------------------------------------------------- */

static bool entry_store(uint8_t *a, const uint8_t bytes[2])
{
	uintptr_t e = (uintptr_t)a + PATCH_PAD;

	if (mem_fd < 0) {
		__atomic_store_n((uint16_t *)e, (uint16_t)(bytes[0] | bytes[1] << 8),
				 __ATOMIC_RELEASE);
		return true;
	}
	if (bytes[0] == jump_back[0]) /* f9, then eb */
		return remote_write(e + 1, &bytes[1], 1) && remote_write(e, &bytes[0], 1);
	return remote_write(e, &bytes[0], 1) && remote_write(e + 1, &bytes[1], 1);
}

bool ada_patch_site(uint8_t *a, uintptr_t target, bool jump, struct patch_window *w)
{
	intptr_t dist = (intptr_t)target - (intptr_t)(a + PATCH_PAD);
	int32_t rel = (int32_t)dist;
	uint8_t call[PATCH_PAD] = { 0xe8 }, now[PATCH_PAD + 2];
	bool fresh;

	memcpy(call + 1, &rel, sizeof(rel));
	if (dist != rel || !ada_code_read((uintptr_t)a, now, sizeof(now)) ||
	    (memcmp(now + PATCH_PAD, nops, 2) && memcmp(now + PATCH_PAD, nop2, 2)))
		return false;
	/* The compiler's NOPs, or our call to this kind's entry (patched
	 * before, unpatched since): anything else is not ours to touch. */
	fresh = !memcmp(now, nops, PATCH_PAD);
	if (!fresh && memcmp(now, call, PATCH_PAD))
		return false;
	if (!window_cover(w, (uintptr_t)a, PATCH_PAD + 2))
		return false;
	if (fresh && mem_fd < 0)
		memcpy(a, call, PATCH_PAD);
	else if (fresh && !remote_write((uintptr_t)a, call, PATCH_PAD))
		return false;
	/* The call is in place before the jump that leads to it. */
	return entry_store(a, jump ? jump_back : nop2);
}

void ada_patch_entry_set(uint8_t *a, bool jump, struct patch_window *w)
{
	if (window_cover(w, (uintptr_t)a + PATCH_PAD, 2))
		entry_store(a, jump ? jump_back : nop2);
}

int ada_patch_site_read(uintptr_t a, uintptr_t *target)
{
	uint8_t b[PATCH_PAD + 2];
	int32_t rel;

	if (!ada_code_read(a, b, sizeof(b)))
		return -1;
	if (b[0] != 0xe8)
		return 0;
	memcpy(&rel, b + 1, sizeof(rel));
	*target = a + PATCH_PAD + (uintptr_t)(intptr_t)rel;
	return !memcmp(b + PATCH_PAD, jump_back, 2) ? 2 : 1;
}
