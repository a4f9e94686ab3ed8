/* arch.h (x86_64) - the architecture-specific pieces the runtime's hot path
 * needs. Every architecture has a mcount/<arch>/arch.h with the same names.
 */
#ifndef ADA_ARCH_H
#define ADA_ARCH_H

#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>

#define ADA_ARCH_ID 1 /* ATF v2 arch: x86_64 */

/* The event clock. rdtsc is not ordered against earlier loads and stores; a
 * tracer only needs timestamps that never go backwards within a thread, which
 * a constant, invariant TSC gives (the writer clamps any backward step). */
static inline __attribute__((always_inline)) uint64_t ada_arch_ticks(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* The caller's stack pointer: a hook uses its own, which sits just below the
 * instrumented function's frame, to tell nested frames from abandoned ones. */
static inline __attribute__((always_inline)) uintptr_t ada_arch_sp(void)
{
	uintptr_t sp;

	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	return sp;
}

/* An invariant TSC ticks at one rate in every P-, C- and T-state, so ticks
 * convert to time linearly (CPUID 0x80000007, EDX bit 8). */
static inline bool ada_arch_ticks_invariant(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return false;
	return d & (1u << 8);
}

#endif
