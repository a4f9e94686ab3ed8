/* hijack.c - fentry/mcount mode: record calls, and see returns by hijacking
 * (or, for functions that call __return__, by that call: ada_return_hook).
 *
 * The entry trampolines (mcount/<arch>/fentry.S, mcount.S) call
 * ada_fentry_enter with the function's saved argument registers and the
 * address of its return-address slot. It pushes the frame on the thread's
 * shadow stack with the real return address and the slot's address, and
 * puts ada_return_trampoline in the slot, so that the function's return
 * comes back here (ada_fentry_return) and then goes where it should (the
 * kernel's function graph tracer does the same).
 *
 * The slot's address identifies a frame exactly: a frame below it that is
 * still on the shadow stack when a function returns was abandoned (longjmp),
 * and is closed with EXCEPTION; a tail call leaves two frames on one slot,
 * and both return together. A frame the shadow stack has no room for is not
 * hijacked, so its return could not be seen: it is not recorded (counted).
 * On aarch64 the return trampoline cannot know where the slot was (the
 * frame record is popped by then): the caller's frame pointer, which both
 * hooks see, stands for it as the frame's position (runtime/aarch64/arch.h),
 * and the slot's address is kept beside it.
 *
 * Architecture-neutral: the register layouts are in runtime/<arch>/arch.h.
 * Built with -mgeneral-regs-only, so the return path cannot touch the x87 or
 * vector registers that carry return values.
 */
#include <stddef.h>
#include <stdlib.h>

#include "hijack.h"

#if defined(__x86_64__)
_Static_assert(offsetof(struct ada_entry_regs, rdi) == ADA_REG_RDI, "rdi");
_Static_assert(offsetof(struct ada_entry_regs, r9) == ADA_REG_R9, "r9");
_Static_assert(offsetof(struct ada_entry_regs, rax) == ADA_REG_RAX, "rax");
_Static_assert(offsetof(struct ada_entry_regs, r11) == ADA_REG_R11, "r11");
_Static_assert(offsetof(struct ada_entry_regs, rbp) == ADA_REG_RBP, "rbp");
_Static_assert(offsetof(struct ada_entry_regs, xmm) == ADA_REG_XMM0, "xmm");
_Static_assert(sizeof(struct ada_entry_regs) == ADA_ENTRY_REGS_SIZE, "entry regs");
_Static_assert(offsetof(struct ada_return_regs, rdx) == ADA_RET_RDX, "ret rdx");
_Static_assert(offsetof(struct ada_return_regs, xmm0) == ADA_RET_XMM0, "ret xmm0");
_Static_assert(offsetof(struct ada_return_regs, xmm1) == ADA_RET_XMM1, "ret xmm1");
_Static_assert(offsetof(struct ada_return_regs, rbp) == ADA_RET_RBP, "ret rbp");
_Static_assert(sizeof(struct ada_return_regs) == ADA_RETURN_REGS_SIZE, "return regs");
#elif defined(__aarch64__)
_Static_assert(offsetof(struct ada_entry_regs, x) == ADA_REG_X0, "x0");
_Static_assert(offsetof(struct ada_entry_regs, fp) == ADA_REG_FP, "fp");
_Static_assert(sizeof(struct ada_entry_regs) == ADA_ENTRY_REGS_SIZE, "entry regs");
_Static_assert(offsetof(struct ada_return_regs, x1) == ADA_RET_X1, "ret x1");
_Static_assert(offsetof(struct ada_return_regs, x8) == ADA_RET_X8, "ret x8");
_Static_assert(offsetof(struct ada_return_regs, fp) == ADA_RET_FP, "ret fp");
_Static_assert(offsetof(struct ada_return_regs, q) == ADA_RET_Q0, "ret q0");
_Static_assert(sizeof(struct ada_return_regs) == ADA_RETURN_REGS_SIZE, "return regs");
#endif

/* What the assembly fast paths (mcount/<arch>/fast.h) read: thread_layout.h. */
_Static_assert(offsetof(struct ada_self, td) == ADA_SELF_TD, "self td");
_Static_assert(offsetof(struct ada_self, busy) == ADA_SELF_BUSY, "self busy");
_Static_assert(offsetof(struct ada_thread, ring) == ADA_TD_RING, "td ring");
_Static_assert(offsetof(struct ada_thread, rh) == ADA_TD_RH, "td rh");
_Static_assert(offsetof(struct ada_thread, mask) == ADA_TD_MASK, "td mask");
_Static_assert(offsetof(struct ada_thread, limit) == ADA_TD_LIMIT, "td limit");
_Static_assert(offsetof(struct ada_thread, depth) == ADA_TD_DEPTH, "td depth");
_Static_assert(offsetof(struct ada_thread, fast_cap) == ADA_TD_FAST_CAP, "td fast cap");
_Static_assert(offsetof(struct ada_thread, ignored) == ADA_TD_IGNORED, "td ignored");
_Static_assert(offsetof(struct ada_thread, graph_gate) == ADA_TD_IGNORED + 1, "td gate");
_Static_assert(offsetof(struct ada_thread, graph_depth) == ADA_TD_GRAPH_DEPTH, "td graph");
_Static_assert(offsetof(struct ada_thread, stack_lo) == ADA_TD_STACK_LO, "td stack_lo");
_Static_assert(offsetof(struct ada_thread, stack_span) == ADA_TD_STACK_SPAN, "td span");
_Static_assert(offsetof(struct ada_thread, shadow) == ADA_TD_SHADOW, "td shadow");
_Static_assert(offsetof(struct ada_thread, dring) == ADA_TD_DRING, "td dring");
_Static_assert(offsetof(struct ada_thread, dmask) == ADA_TD_DMASK, "td dmask");
_Static_assert(offsetof(struct ada_thread, drec_bytes) == ADA_TD_DREC_BYTES, "td drec");
_Static_assert(offsetof(struct ada_thread, stack_bytes) == ADA_TD_STACK_BYTES, "td stack");
_Static_assert(offsetof(struct ada_thread, dlimit) == ADA_TD_DLIMIT, "td dlimit");
_Static_assert(offsetof(struct ada_thread, dwin_top) == ADA_TD_DWIN_TOP, "td dwin_top");
_Static_assert(sizeof(((struct ada_thread *)0)->drec_bytes) == 8, "td drec u64");
_Static_assert(sizeof(((struct ada_thread *)0)->stack_bytes) == 4, "td stack u32");
_Static_assert(sizeof(((struct ada_thread *)0)->depth) == 4, "td depth u32");
_Static_assert(offsetof(struct ada_frame, fn) == ADA_FRAME_FN, "frame fn");
_Static_assert(offsetof(struct ada_frame, site) == ADA_FRAME_SITE, "frame site");
_Static_assert(offsetof(struct ada_frame, sp) == ADA_FRAME_SP, "frame sp");
_Static_assert(sizeof(struct ada_frame) == ADA_FRAME_SIZE, "frame size");
_Static_assert(sizeof(struct ada_frame) == 1u << ADA_FRAME_SHIFT, "frame shift");
_Static_assert(offsetof(struct ada_ring_header, head) == ADA_RH_HEAD, "rh head");
_Static_assert(offsetof(struct ada_dyn_cell, fn) == ADA_DYN_CELL_FN, "cell fn");
_Static_assert(offsetof(struct ada_dyn_cell, ret) == ADA_DYN_CELL_RET, "cell ret");
_Static_assert(offsetof(struct ada_dyn_cell, jump) == ADA_DYN_CELL_JUMP, "cell jump");
_Static_assert(offsetof(struct ada_runtime, cfg.detail) == ADA_RT_CFG_DETAIL, "cfg.detail");
_Static_assert(offsetof(struct ada_runtime, cfg.detail_window) == ADA_RT_CFG_DETAIL_WINDOW, "window");
_Static_assert(offsetof(struct ada_runtime, cfg.ring_mode) == ADA_RT_CFG_RING_MODE, "ring mode");
_Static_assert(offsetof(struct ada_ring_header, tail) == ADA_RH_TAIL, "rh tail");
_Static_assert(offsetof(struct ada_ring_header, dropped[ADA_DROP_DETAIL_FULL]) == ADA_RH_DETAIL_FULL,
	       "rh detail_full");
_Static_assert(ADA_DREC_OFF_LR == ADA_DREC_LR * 8 && ADA_DREC_OFF_FP == ADA_DREC_FP * 8 &&
	       ADA_DREC_OFF_SP == ADA_DREC_SP * 8 &&
	       ADA_DREC_OFF_STACK_SIZE == ADA_DREC_STACK_SIZE * 8 &&
	       ADA_DREC_OFF_FREGS == ADA_DREC_FREGS * 8 &&
	       ADA_DREC_OFF_STACK == ADA_DREC_STACK * 8, "detail record words");
_Static_assert(ADA_SLOT_DETAIL == 1ull << ADA_SLOT_DETAIL_BIT, "detail bit");
_Static_assert((uint64_t)ADA_RAW_RETURN << 62 == 1ull << ADA_SLOT_RETURN_BIT && ADA_RAW_CALL == 0,
	       "kind bits");
_Static_assert(ADA_BUSY_HOOK == 0, "the fast paths' guard is the slot");

ADA_HIDDEN void ada_fentry_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t ret);
ADA_HIDDEN void ada_fentry_nohijack_enter(struct ada_entry_regs *regs, uintptr_t *slot,
					  uintptr_t ret);
ADA_HIDDEN void ada_return_hook(struct ada_return_regs *regs, uintptr_t *slot);
ADA_HIDDEN void ada_return_hook_tail(struct ada_entry_regs *regs, uintptr_t *slot);
ADA_HIDDEN void ada_mcount_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t site);
ADA_HIDDEN void ada_patch_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn);
ADA_HIDDEN void ada_patch_graph_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn);
ADA_HIDDEN void ada_patch_on_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn);
ADA_HIDDEN void ada_patch_off_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn);

#define TRAMPOLINE ((uintptr_t)ada_return_trampoline)

/* ---- the detail lane -------------------------------------------------------- */

_Static_assert(sizeof(struct ada_raw_detail) == ADA_RAW_DETAIL_SIZE, "raw detail");

/* How many bytes of stack to copy from sp: the configured window, clipped at
 * the end of the thread's stack mapping; none on another stack (a
 * sigaltstack elsewhere), whose end is not known. Never below sp, so never
 * into unmapped or guard pages. On the hot path: no system call. */
static uint32_t stack_window(struct ada_thread *td, uintptr_t sp)
{
	uint32_t n = td->stack_bytes;

	if (!n || !ada_in_thread_stack(td, sp))
		return 0;
	if (td->stack_lo + td->stack_span - sp < n)
		n = (uint32_t)(td->stack_lo + td->stack_span - sp) & ~7u;
	return n;
}

/* n words into a record the writer may be reading (it checks afterwards,
 * against the head, that the record was not being overwritten: encode.c):
 * relaxed atomic stores (a plain store each on x86_64 and arm64), and for
 * the default stack window the architecture's vector copy where it has one
 * (not under ThreadSanitizer, which cannot know that protocol). */
static inline __attribute__((always_inline)) void put_words(uint64_t *dst, const uint64_t *src,
							   uint32_t n)
{
#if !defined(__SANITIZE_THREAD__)
	if (__builtin_constant_p(n) && n == 16 && ADA_ARCH_HAS_COPY128) {
		ada_arch_copy128(dst, src);
		return;
	}
#endif
	for (uint32_t i = 0; i < n; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
}

/* Writes the detail record of the slot about to be written (td->rh->head) and
 * returns the slot flag that says so, or 0 if there was no room (counted).
 * The record goes to the ring's place for that position: in window mode
 * over whatever was there; with ADA_DETAIL=all only once the writer has
 * consumed the record that was. */
static uint64_t detail_put(struct ada_thread *td, const uint64_t regs[8], const uint64_t fregs[8],
			   uintptr_t lr, uintptr_t fp, uintptr_t sp)
{
	uint64_t pos = td->rh->head, *w;
	uint32_t stack, i;

	if (unlikely(!td->dring) && ada_detail_init_slow(td) < 0)
		goto full;
	if (unlikely(pos >= td->dlimit) && !ada_detail_room_slow(td, pos))
		goto full;
	stack = stack_window(td, sp);
	w = (uint64_t *)(td->dring + (pos & td->dmask) * td->drec_bytes);
	{
		const uint64_t head[ADA_DREC_STACK] = {
			regs[0], regs[1], regs[2], regs[3], regs[4], regs[5], regs[6], regs[7],
			[ADA_DREC_LR] = lr, [ADA_DREC_FP] = fp, [ADA_DREC_SP] = sp,
			[ADA_DREC_STACK_SIZE] = stack,
			[ADA_DREC_FREGS] = fregs[0], fregs[1], fregs[2], fregs[3], fregs[4],
			fregs[5], fregs[6], fregs[7],
		};

		put_words(w, head, ADA_DREC_STACK);
	}
	/* The stack above sp is mapped up to its end (no libc: a constant
	 * size is inlined, the default one in whole). The first word is the
	 * return-address slot: lr, as the function was entered (hijacked
	 * since, or holding the return trampoline's save). The slot's release
	 * store of head publishes the record with it. */
	if (stack) {
		const uint64_t *src = (const uint64_t *)sp;
		uint64_t *dst = &w[ADA_DREC_STACK];

		if (stack == ADA_STACK_DEFAULT) {
			put_words(dst, src, ADA_STACK_DEFAULT / 8);
		} else {
			for (i = 0; i < stack / 8; i++) /* atomic: no loop made a memcpy call */
				__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
		}
		put_words(dst, &lr, 1);
	}
	return ADA_SLOT_DETAIL;
full:
	ada_count(&td->rh->dropped[ADA_DROP_DETAIL_FULL], 1);
	return 0;
}

/* The real return address of the frames on slot sp, looking down from depth:
 * the outermost of a tail-call chain holds it (and a function that calls
 * __return__ tail-called by it: ADA_SITE_NOHIJACK). 0 if none does. */
static uintptr_t real_return(const struct ada_thread *td, uint32_t depth, uintptr_t sp)
{
	for (; depth > 0 && depth <= td->shadow_cap && td->shadow[depth - 1].sp == sp; depth--) {
		uintptr_t site = td->shadow[depth - 1].site & ~ADA_SITE_NOHIJACK;

		if (!ada_is_hijacked(site))
			return site;
	}
	return 0;
}

/* CALL with the argument registers, lr = where it returns, sp = its slot. */
static inline void record_call(struct ada_thread *td, uint32_t depth, uintptr_t fn,
			       const struct ada_entry_regs *r, uintptr_t ret, uintptr_t sp)
{
	uint64_t word = fn | (uint64_t)ADA_RAW_CALL << 62, regs[8], fregs[8];

	if (!ada_call_room(td, depth))
		return;
	if (ada_rt.cfg.detail) {
		ada_arch_call_args(r, regs);
		ada_arch_call_fregs(r, fregs);
		word |= detail_put(td, regs, fregs, ret, r->fp, sp);
	}
	ada_ring_put(td, ada_arch_ticks(), word);
}

/* RETURN with the return registers (values: they hold the function's
 * value; not before a tail call's jump, where the callee has yet to make
 * it: the record then says so, ADA_RAW_RET_TAIL, and holds no register);
 * its slot was reserved by its CALL. */
static inline void record_return(struct ada_thread *td, uint32_t depth, uintptr_t fn,
				 const struct ada_return_regs *r, uintptr_t real, uintptr_t sp,
				 bool values)
{
	uint64_t word = fn | (uint64_t)ADA_RAW_RETURN << 62, regs[8], fregs[8];

	if (unlikely(depth > td->record_limit)) {
		ada_exit_skipped_slow(td, depth);
		return;
	}
	if (ada_rt.cfg.detail) {
		ada_arch_return_values(r, regs);
		ada_arch_return_fregs(r, fregs);
		if (!values) {
			for (int i = 0; i < 8; i++)
				regs[i] = fregs[i] = 0;
			regs[7] = ADA_RAW_RET_TAIL;
		}
		word |= detail_put(td, regs, fregs, real, r->fp, sp);
	}
	ada_ring_put(td, ada_arch_ticks(), word);
}

/* ---- frames closed while their slot still holds the trampoline ---------------
 *
 * A frame is closed as abandoned when a later entry or return happens above
 * its slot. After a longjmp that is the truth, and the slot is never returned
 * through. After a stack switch (ucontext, a hand-written coroutine switch)
 * it is not: the frames of the stack switched away from are suspended, and
 * will return through their hijacked slots when that stack runs again. So
 * the real return address of every frame closed this way is kept, by slot,
 * in a small per-thread table; a return that finds no frame on its slot
 * takes it from there (counted as unmatched: its frame was already closed)
 * instead of having nowhere to go. */

#define ORPHANS 4096 /* entries, a power of two: 64 KiB a thread, mapped at first use */
#define ORPHAN_PROBE 16
#define ORPHAN_GONE 1 /* a removed entry's key: no slot is at an odd address */

struct ada_orphan {
	uintptr_t slot, real;
};

static struct ada_orphan *orphan_find(struct ada_thread *td, uintptr_t slot, bool for_insert)
{
	struct ada_orphan *t = td->orphans;
	size_t h = (slot >> 3) * 0x9e3779b97f4a7c15ull >> 52;

	for (size_t i = 0; i < ORPHAN_PROBE; i++) {
		struct ada_orphan *e = &t[(h + i) & (ORPHANS - 1)];

		if (e->slot == slot || (for_insert && (e->slot == 0 || e->slot == ORPHAN_GONE)))
			return e;
		if (e->slot == 0)
			return NULL;
	}
	/* Full around here: the oldest neighbour makes room. */
	return for_insert ? &t[h & (ORPHANS - 1)] : NULL;
}

/* Closes the innermost frame as abandoned, keeping its real return address. */
static void close_hijacked(struct ada_thread *td)
{
	const struct ada_frame *f = &td->shadow[td->depth - 1];

	if (!ada_is_hijacked(f->site) && !ada_site_nohijack(f->site)) {
		if (!td->orphans) {
			td->orphans_bytes = ORPHANS * sizeof(struct ada_orphan);
			td->orphans = ada_map_zeroed(td->orphans_bytes);
		}
		if (td->orphans) {
			struct ada_orphan *e = orphan_find(td, f->sp, true);

			e->slot = f->sp;
			e->real = f->site;
		}
	}
	ada_close_abandoned(td);
}

/* Closes the frames below slot sp on the shadow stack: whatever left them
 * (a longjmp, an exception) returns above them. */
static void close_below(struct ada_thread *td, uintptr_t sp)
{
	while (td->depth > 0 && td->depth <= td->shadow_cap && td->shadow[td->depth - 1].sp < sp)
		close_hijacked(td);
}

/* The real return address kept for slot, removed from the table; 0 if none. */
static uintptr_t orphan_take(struct ada_thread *td, uintptr_t slot)
{
	struct ada_orphan *e = td->orphans ? orphan_find(td, slot, false) : NULL;

	if (!e)
		return 0;
	e->slot = ORPHAN_GONE;
	ada_count(&td->rh->dropped[ADA_DROP_UNMATCHED], 1);
	return e->real;
}

/* A new frame whose slot is at or above the innermost frame's: the frames
 * there were abandoned (longjmp). (The caller has ruled out a tail call: the
 * same slot, already hijacked.) Unlike cyg mode, an equal position is never
 * an inlined child: inlined functions have no fentry call. On another stack
 * (sigaltstack) the new frame simply nests. Returns the depth to nest under. */
static uint32_t entry_resync_slow(struct ada_thread *td, uintptr_t sp)
{
	if (!ada_on_thread_stack(td, sp) || !ada_on_thread_stack(td, td->shadow[td->depth - 1].sp))
		return td->depth;
	while (td->depth > 0 && td->depth <= td->shadow_cap && td->shadow[td->depth - 1].sp <= sp)
		close_hijacked(td);
	return td->depth;
}

/* fn names the function: its start (fentry, dynamic hooks), or an address
 * inside it, the one after its mcount call (the symbolizer finds the function
 * holding it). tramp is what the slot gets: where the function will return;
 * 0 for a function that calls __return__ (its frame is marked instead).
 * graph: it is an ADA_GRAPH function (patch.c gives those a stub of their
 * own), whose call the thread records. */
static inline __attribute__((always_inline)) void
hijack_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn, uintptr_t tramp,
	     bool graph)
{
	uintptr_t sp = ada_arch_entry_pos(regs, slot), ret, real;
	struct ada_thread *td = ada_hook_begin(ada_arch_guard_pos(sp, (uintptr_t)slot), 2);
	uint32_t depth;

	if (!td)
		return;
	/* Outside a graph function's call, or recording off (for the process
	 * or this thread): nothing to record, nor a return to see (ftrace's
	 * graph tracer leaves such functions alone too). A frame entered now
	 * and left once recording is on again is not half-recorded: it is not
	 * known at all. The same for a slot that cannot be hijacked (arch.h). */
	if (unlikely((td->graph_gate && !graph) | ada_recording_is_off(td)) ||
	    unlikely(!ada_arch_slot_ok(regs, slot)))
		goto out;
	ret = *slot;
	depth = td->depth + 1;
	if (unlikely(depth > 1 && depth - 1 <= td->shadow_cap && sp >= td->shadow[depth - 2].sp) &&
	    !(sp == td->shadow[depth - 2].sp && ada_is_hijacked(ret)))
		depth = entry_resync_slow(td, sp) + 1;
	if (unlikely(depth > td->shadow_cap)) {
		/* No room to keep its return address: untouched, unrecorded. */
		ada_count(&td->rh->dropped[ADA_DROP_MAX_DEPTH], 2);
		goto out;
	}
	/* A tail call's slot was hijacked already: its real return address is
	 * the outermost frame's on that slot. A function that calls __return__
	 * keeps that one (its slot is never its to restore). */
	real = ada_is_hijacked(ret) ? real_return(td, depth - 1, sp) : ret;
#if !ADA_ARCH_POS_IS_SLOT
	/* The frames it tail-called from had their slots in frames since
	 * popped: this one is where their real return address would go back
	 * (unwind.c). */
	if (ada_is_hijacked(ret))
		for (uint32_t d = depth - 1; d > 0 && td->shadow[d - 1].sp == sp; d--)
			td->shadow[d - 1].slot = (uintptr_t)slot;
#endif
	td->depth = depth;
	td->shadow[depth - 1] = (struct ada_frame){
		.fn = fn, .site = tramp ? ret : real | ADA_SITE_NOHIJACK, .sp = sp, .slot = (uintptr_t)slot
	};
	if (graph && td->graph_gate) {
		td->graph_gate = false;
		td->graph_depth = depth;
	}
	/* Recorded before the hijack, so the stack window shows the slot as the
	 * function found it. The window starts at the slot, a stack address
	 * (the position may not be one: runtime/aarch64/arch.h). */
	record_call(td, depth, fn, regs, real, (uintptr_t)slot);
	if (tramp)
		*slot = tramp;
out:
	ada_hook_end(td);
}

#if ADA_ARCH_HAS_FENTRY
ADA_HOOK_TEXT void ada_fentry_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t ret)
{
	uintptr_t fn = ada_arch_fentry_start(ret, &slot);

	hijack_enter(regs, slot, fn, TRAMPOLINE, false);
}

/* A function that calls __return__ before it returns (returncall.S). */
ADA_HOOK_TEXT void ada_fentry_nohijack_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t ret)
{
	uintptr_t fn = ada_arch_fentry_start(ret, &slot);

	hijack_enter(regs, slot, fn, 0, false);
}
#endif

ADA_HOOK_TEXT void ada_mcount_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t site)
{
	hijack_enter(regs, slot, site, TRAMPOLINE, false);
}

/* A patched function's entry (patch.c): fn is the entry itself. Each kind
 * of site has a stub and an entry of its own (mcount/<arch>/patch.S), so
 * that no hook looks anything up. */
ADA_HOOK_TEXT void ada_patch_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn)
{
	hijack_enter(regs, slot, fn, TRAMPOLINE, false);
}

/* An ADA_GRAPH function: the thread records inside its call. */
ADA_HOOK_TEXT void ada_patch_graph_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn)
{
	hijack_enter(regs, slot, fn, TRAMPOLINE, true);
}

/* func:GLOB:trace_on: recording on from this call (itself recorded). */
ADA_HOOK_TEXT void ada_patch_on_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn)
{
	ada_trace_switch(false);
	hijack_enter(regs, slot, fn, TRAMPOLINE, false);
}

/* func:GLOB:trace_off: recording off from this call (itself not recorded). */
ADA_HOOK_TEXT void ada_patch_off_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn)
{
	ada_trace_switch(true);
	hijack_enter(regs, slot, fn, TRAMPOLINE, false);
}

/* A call through a hooked PLT/GOT slot (dynhook.c): the stub named the cell,
 * the slot is the caller's return address. Untraced threads (the writer)
 * and the runtime's own calls go straight through. */
ADA_HOOK_TEXT uintptr_t ada_dynhook_enter(struct ada_entry_regs *regs, uintptr_t *slot,
			    const struct ada_dyn_cell *cell)
{
	hijack_enter(regs, slot, cell->fn, cell->ret, false);
	return cell->jump;
}

/* Nowhere to return to: neither the shadow stack nor the closed frames have
 * one for this slot (a context switched to another thread, or a bug); going
 * on would jump to a wrong address. */
static void __attribute__((noreturn, cold)) lost(uintptr_t *slot)
{
	ada_warn("internal error: a function returned through slot %p, which holds no traced "
		 "frame; aborting rather than jump to a wrong address", (void *)slot);
	abort();
}

/* A vfork child returning through a frame its parent hijacked: it returned
 * from the function that called vfork (main, after an exec that failed:
 * undefined, yet a plain build runs on). The real address is in the
 * parent's shadow stack, read and left as it is: the child records nothing,
 * and the parent's frames are the parent's. */
static uintptr_t __attribute__((cold)) vfork_child_return(uintptr_t *slot, uintptr_t sp)
{
	const struct ada_thread *td = ada_vfork_parent();
	uintptr_t real = 0;
	uint32_t d;

	if (td) {
		for (d = td->depth < td->shadow_cap ? td->depth : td->shadow_cap;
		     d > 0 && td->shadow[d - 1].sp != sp; d--)
			;
		real = real_return(td, d, sp);
	}
	if (!real)
		lost(slot);
	return real;
}

/* Everything but the common return: frames abandoned below this slot
 * (longjmp), several frames on it (tail calls), a frame the shadow stack had
 * no room for. sp is the frames' position (x86_64: the slot's address). */
static uintptr_t __attribute__((noinline)) return_slow(struct ada_thread *td,
							struct ada_return_regs *regs, uintptr_t *slot,
							uintptr_t sp)
{
	uintptr_t real;
	uint32_t d;

	close_below(td, sp);
	/* The frames on this slot (more than one after tail calls): the
	 * outermost holds the real return address. */
	for (d = td->depth; d > 0 && d <= td->shadow_cap && td->shadow[d - 1].sp == sp; d--)
		;
	real = real_return(td, td->depth, sp);
	if (unlikely(!real)) {
		/* A frame closed as abandoned, returning after all (a stack
		 * switched back to): its frames on the slot, if any, are not. */
		real = orphan_take(td, sp);
		if (!real)
			lost(slot);
		return real;
	}
	while (td->depth > d) {
		record_return(td, td->depth, td->shadow[td->depth - 1].fn, regs, real,
			      (uintptr_t)slot, true);
		td->depth--;
	}
	return real;
}

/* Whether the common case holds: the innermost frame is on this slot, alone
 * (no tail call), and holds the real return address. */
static inline const struct ada_frame *return_frame(const struct ada_thread *td, uintptr_t sp)
{
	uint32_t depth = td->depth;
	const struct ada_frame *f;

	if (unlikely(depth - 1 >= td->shadow_cap)) /* depth 0 wraps */
		return NULL;
	f = &td->shadow[depth - 1];
	if (likely(f->sp == sp && (depth == 1 || f[-1].sp != sp) && !ada_is_hijacked(f->site)))
		return f;
	return NULL;
}

/* slot: x86_64's return-address slot; aarch64's trampoline gives its
 * stack pointer, and the frame's position in regs (arch.h). */
ADA_HOOK_TEXT uintptr_t ada_fentry_return(struct ada_return_regs *regs, uintptr_t *slot)
{
	struct ada_thread *td = ada_self.td;
	const struct ada_frame *f;
	uintptr_t real, busy, pos = ada_arch_return_pos(regs, slot);
	uintptr_t guard = ada_arch_guard_pos(pos, (uintptr_t)slot);

	/* A thread's first hook may be a return: a context another thread
	 * suspended, resumed here. */
	if (unlikely(!td) && !(td = ada_thread_init_slow()) && !(td = ada_stack_owner((uintptr_t)slot)))
		return vfork_child_return(slot, pos);
	/* Returns are never skipped, even inside a hook (a signal handler's
	 * traced function returning): the address must be found. */
	busy = ada_self.busy;
	ada_busy_set(guard | ADA_BUSY_HOOK);
	td = ada_stack_state(td, guard);
	f = return_frame(td, pos);
	if (likely(f)) {
		real = f->site;
		record_return(td, td->depth, f->fn, regs, real, (uintptr_t)slot, true);
		td->depth--;
	} else {
		real = return_slow(td, regs, slot, pos);
	}
	ada_graph_left(td);
	ada_busy_set(busy);
	return real;
}

#if ADA_ARCH_HAS_FENTRY
/* __return__'s C path (returncall.S): a function that calls it is about to
 * return through slot. Frames below the slot were abandoned (an exception,
 * a longjmp) and are closed; the innermost frame, if it is on the slot and
 * is such a function's, is this return. Anything else was not recorded (its
 * entry fell inside a hook, outside the graph function, past the shadow
 * stack, while recording was off): nothing to do, as nothing depends on it.
 * values: regs hold the function's return value (a `ret` follows). */
static void return_hook(const struct ada_return_regs *regs, uintptr_t *slot, bool values)
{
	uintptr_t sp = (uintptr_t)slot;
	struct ada_thread *td = ada_hook_begin(sp, 0);
	const struct ada_frame *f;

	if (!td)
		return;
	close_below(td, sp);
	f = td->depth > 0 && td->depth <= td->shadow_cap ? &td->shadow[td->depth - 1] : NULL;
	if (f && f->sp == sp && ada_site_nohijack(f->site)) {
		record_return(td, td->depth, f->fn, regs, f->site & ~ADA_SITE_NOHIJACK, sp, values);
		td->depth--;
		ada_graph_left(td);
	}
	ada_hook_end(td);
}

ADA_HOOK_TEXT void ada_return_hook(struct ada_return_regs *regs, uintptr_t *slot)
{
	return_hook(regs, slot, true);
}

/* The same before a tail call's jump. The function's value is the callee's,
 * not made yet: its RETURN's record says so instead of showing whatever the
 * registers hold (the callee's arguments). */
ADA_HOOK_TEXT void ada_return_hook_tail(struct ada_entry_regs *regs, uintptr_t *slot)
{
	struct ada_return_regs r = { .fp = regs->fp };

	return_hook(&r, slot, false);
}
#endif
