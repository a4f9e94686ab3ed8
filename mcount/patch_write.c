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
 */
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
	static void (*const entries[PATCH_KINDS])(void) = {
		[PATCH_PLAIN] = ada_patch_entry,
		[PATCH_GRAPH] = ada_patch_graph_entry,
		[PATCH_TRACE_ON] = ada_patch_on_entry,
		[PATCH_TRACE_OFF] = ada_patch_off_entry,
	};
	uint8_t *p = stub_near(lo, hi);

	if (!p)
		return NULL;
	for (unsigned k = PATCH_PLAIN; k < PATCH_KINDS; k++) {
		uintptr_t target = (uintptr_t)entries[k];
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
	if (w->hi)
		mprotect((void *)w->lo, w->hi - w->lo, PROT_READ | PROT_EXEC);
	w->hi = 0;
}

/* ---- sites ----------------------------------------------------------------------------- */

static void entry_store(uint8_t *a, const uint8_t bytes[2])
{
	__atomic_store_n((uint16_t *)(a + PATCH_PAD), (uint16_t)(bytes[0] | bytes[1] << 8),
			 __ATOMIC_RELEASE);
}

bool ada_patch_site(uint8_t *a, const uint8_t *stubs, unsigned kind, bool jump,
		    struct patch_window *w)
{
	const uint8_t *stub = stubs + (kind - PATCH_PLAIN) * PATCH_STUB;
	intptr_t dist = (intptr_t)stub - (intptr_t)(a + PATCH_PAD);
	int32_t rel = (int32_t)dist;
	uint8_t call[PATCH_PAD] = { 0xe8 };
	bool fresh;

	memcpy(call + 1, &rel, sizeof(rel));
	if (dist != rel || (memcmp(a + PATCH_PAD, nops, 2) && memcmp(a + PATCH_PAD, nop2, 2)))
		return false;
	/* The compiler's NOPs, or our call to this kind's stub (patched
	 * before, unpatched since): anything else is not ours to touch. */
	fresh = !memcmp(a, nops, PATCH_PAD);
	if (!fresh && memcmp(a, call, PATCH_PAD))
		return false;
	if (!window_cover(w, (uintptr_t)a, PATCH_PAD + 2))
		return false;
	if (fresh)
		memcpy(a, call, PATCH_PAD);
	/* The call is in place before the jump that leads to it. */
	entry_store(a, jump ? jump_back : nop2);
	return true;
}

void ada_patch_entry_set(uint8_t *a, bool jump, struct patch_window *w)
{
	if (window_cover(w, (uintptr_t)a + PATCH_PAD, 2))
		entry_store(a, jump ? jump_back : nop2);
}
