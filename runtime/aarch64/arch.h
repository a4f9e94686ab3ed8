/* arch.h (aarch64) - the architecture-specific pieces the runtime's hot path
 * needs, with the names runtime/x86_64/arch.h gives them (see there).
 *
 * What aarch64 has so far is cyg mode (-finstrument-functions), whose hooks
 * are C, and mcount mode (-pg: mcount/aarch64/mcount.S and return.S), whose
 * trampolines save the registers laid out at the end of this file. The
 * stubs of the dynamic hooks, fentry and patchable mode and the vector copy
 * of the stack window come with the modes that need them (issue 26).
 */
#ifndef ADA_ARCH_H
#define ADA_ARCH_H

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>
#endif

#define ADA_ARCH_ID 2 /* ATF v2 arch: arm64 */
#define ADA_ARCH_NAME "aarch64"

/* Library calls are recorded by the dynamic hooks (mcount/dynhook.c), whose
 * stubs and entry are not written for aarch64 yet: config.c says so to a
 * program that asks for them, and records without. */
#define ADA_ARCH_HAS_DYNHOOK 0

/* No fentry hook (gcc has no -mfentry here): mcount/hijack.c leaves out the
 * entries that find a function's start from one. */
#define ADA_ARCH_HAS_FENTRY 0

/* The detail lane (argument and return registers, the stack window) is
 * not there yet: mcount mode's hook comes after the arguments have left
 * their registers (ADA_REG_X0 below). config.c turns it off, saying so to a
 * program that asked for it. */
#define ADA_ARCH_HAS_DETAIL 0

/* A hijacked frame's position on the shadow stack (struct ada_frame's sp)
 * is not the address of its return-address slot, as on x86_64, but its
 * caller's frame pointer: the x29 the function saved in its frame record
 * (read by mcount.S), which is also the x29 its epilogue restores before it
 * returns to the trampoline (return.S), which cannot know where the slot
 * was: the frame record is gone by then. Like x86_64's slot it is the same
 * for every function one caller calls, and lower for their callees, so a
 * longjmp's abandoned frames are told exactly; the slot's own address,
 * which unwind.c restores, is kept in the frame beside it. */
#define ADA_ARCH_POS_IS_SLOT 0

#ifndef __ASSEMBLER__
/* The event clock: the generic timer's virtual count, which EL0 reads
 * without a trap on Linux. Like rdtsc it is not ordered against the loads
 * and stores around it (an isb would order it, at the price of a pipeline
 * flush per event); the writer clamps a backward step within a thread. */
static inline __attribute__((always_inline)) uint64_t ada_arch_ticks(void)
{
	uint64_t t;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(t));
	return t;
}

/* The count's rate, fixed by the system (cntfrq_el0, which firmware sets
 * and the kernel lets EL0 read): the PROCESS record's tick rate. */
static inline uint64_t ada_arch_ticks_hz(void)
{
	uint64_t hz;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	return hz;
}

/* The counter cannot be turned off for one thread as x86's TSC can (a
 * kernel that traps it for an erratum emulates the read itself): a fault
 * is never a read of it to give ticks to. */
static inline bool ada_arch_ticks_emulate(ucontext_t *uc, uint64_t ticks)
{
	(void)uc, (void)ticks;
	return false;
}

/* The instruction a signal interrupted (crash.c's report, the counter
 * lane's sample). */
static inline uintptr_t ada_arch_signal_ip(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.pc;
}

/* Calls fn on the stack that ends at top (16-byte aligned), never to
 * return (runtime/recorder.c); a zero frame pointer and link register end
 * the frame chain there, for unwinders. */
static inline __attribute__((noreturn)) void ada_arch_run_on_stack(void *top, void (*fn)(void))
{
	__asm__ volatile("mov sp, %0\n\t"
			 "mov x29, xzr\n\t"
			 "mov x30, xzr\n\t"
			 "blr %1\n\t"
			 "brk #0"
			 :
			 : "r"(top), "r"(fn)
			 : "memory");
	__builtin_unreachable();
}

/* A spin-wait's pause: a hint that lets another hardware thread run. */
static inline void ada_arch_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}

/* The generic timer counts at one fixed rate by the architecture's rule,
 * whatever the core's frequency or sleep state. */
static inline bool ada_arch_ticks_invariant(void)
{
	return true;
}
#endif

/* ---- the trampolines' saved registers (mcount.S, return.S) ----------------- */

/* What _mcount saves before calling C. gcc treats `bl _mcount` as an
 * ordinary call: at -O0 and -O2 alike it moves the arguments, x8 (the
 * indirect result) and x18 (a nested function's static chain) to
 * callee-saved registers or the stack before it, and x0 is the return
 * address by then. So nothing AAPCS64 lets a call clobber needs keeping,
 * unlike x86_64's fentry, which runs before the prologue. x0-x8 are saved
 * all the same (x0 is checked against the slot; the rest costs four
 * stores, for hand-written callers), with the frame's position. The
 * arguments themselves are not in registers at the call: the detail lane
 * cannot take them from here (config.c turns it off on aarch64). The
 * offsets are the .S files' and checked against the struct in
 * mcount/hijack.c. */
#define ADA_REG_X0 0    /* x0..x8, 8 bytes each */
#define ADA_REG_FP 72   /* the caller's frame pointer: the frame's position */
#define ADA_ENTRY_REGS_SIZE 80

/* What the return trampoline saves: the return value registers (x0, x1;
 * x8, which the caller may still rely on as the indirect result's address;
 * v0-v3, a homogeneous FP aggregate's) and x29, restored by the function. */
#define ADA_RET_X0 0
#define ADA_RET_X1 8
#define ADA_RET_X8 16
#define ADA_RET_FP 24
#define ADA_RET_Q0 32   /* q0..q3 */
#define ADA_RETURN_REGS_SIZE 96

#ifndef __ASSEMBLER__
struct ada_entry_regs {
	uint64_t x[9];
	uint64_t fp;
};

struct ada_return_regs {
	uint64_t x0, x1, x8, fp;
	uint64_t q[4][2];
};

/* The detail record's registers, in ATF v2's order for arm64 (§4): x0-x7
 * at a call, x0 and x1 at a return; d0-d1 (low halves) at a return. The
 * detail lane is off on aarch64 (ADA_ARCH_HAS_DETAIL): what a call's
 * record would hold is what _mcount found, not the arguments (above). */
static inline void ada_arch_call_args(const struct ada_entry_regs *r, uint64_t out[8])
{
	for (int i = 0; i < 8; i++)
		out[i] = r->x[i];
}

static inline void ada_arch_return_values(const struct ada_return_regs *r, uint64_t out[8])
{
	out[0] = r->x0, out[1] = r->x1;
	out[2] = out[3] = out[4] = out[5] = out[6] = out[7] = 0;
}

static inline void ada_arch_call_fregs(const struct ada_entry_regs *r, uint64_t out[8])
{
	(void)r;
	for (int i = 0; i < 8; i++)
		out[i] = 0;
}

static inline void ada_arch_return_fregs(const struct ada_return_regs *r, uint64_t out[8])
{
	out[0] = r->q[0][0], out[1] = r->q[1][0];
	out[2] = out[3] = out[4] = out[5] = out[6] = out[7] = 0;
}

/* A frame's position (above): the caller's frame pointer, which mcount.S
 * and return.S put in the saved registers. slot is where _mcount found the
 * return address (x29 + 8), or the trampoline's stack pointer. */
static inline uintptr_t ada_arch_entry_pos(const struct ada_entry_regs *r, uintptr_t *slot)
{
	(void)slot;
	return r->fp;
}

static inline uintptr_t ada_arch_return_pos(const struct ada_return_regs *r, uintptr_t *slot)
{
	(void)slot;
	return r->fp;
}

/* The position a hijacking hook takes the thread's guard at (thread.h's
 * ada_hook_begin), which must be the same at a frame's entry and at its
 * return, as x86_64's slot is: that a later hook is at or above it is how
 * a siglongjmp out of a handler that interrupted the hook is told from a
 * handler still running below it. The frame's position (the caller's frame
 * pointer) is, where it is on the stack a little above sp (the hook's slot
 * or stack pointer); else, x29 having been used for something else by
 * uninstrumented code, sp is. */
static inline uintptr_t ada_arch_guard_pos(uintptr_t pos, uintptr_t sp)
{
	return pos - sp < (1u << 20) ? pos : sp;
}

/* Whether the slot holds the return address the function passed _mcount
 * in x0 (with its pointer authentication code stripped: gcc's xpaclri). A
 * function built with -mbranch-protection=pac-ret stores it signed, and
 * authenticates what it reloads: the trampoline's address there would fail
 * that, so such a function is not hijacked, nor recorded. */
static inline bool ada_arch_slot_ok(const struct ada_entry_regs *r, const uintptr_t *slot)
{
	return *slot == r->x[0];
}

/* No vector copy of the stack window yet: hijack.c's loop does it. */
#define ADA_ARCH_HAS_COPY128 0
static inline void ada_arch_copy128(uint64_t *dst, const uint64_t *src)
{
	for (int i = 0; i < 16; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
}
#endif

#endif
