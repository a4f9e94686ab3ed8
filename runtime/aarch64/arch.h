/* arch.h (aarch64) - the architecture-specific pieces the runtime's hot path
 * needs, with the names runtime/x86_64/arch.h gives them (see there).
 *
 * What aarch64 has so far is cyg mode (-finstrument-functions), whose hooks
 * are C: so only the clock, the stack switch and the spin-wait's pause are
 * here. The trampolines' saved registers, the stubs of the dynamic hooks and
 * the copy of the stack window come with the modes that need them (issue 26).
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

#endif
