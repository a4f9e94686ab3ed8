/* arch.h (x86_64) - the architecture-specific pieces the runtime's hot path
 * needs. Every architecture has a runtime/<arch>/arch.h with the same names
 * (mcount/<arch>/ has the hooks' assembly, which includes it too).
 */
#ifndef ADA_ARCH_H
#define ADA_ARCH_H

#ifndef __ASSEMBLER__
#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>
#endif

#define ADA_ARCH_ID 1 /* ATF v2 arch: x86_64 */
#define ADA_ARCH_NAME "x86_64"

/* Library calls are recorded by the dynamic hooks (mcount/dynhook.c). */
#define ADA_ARCH_HAS_DYNHOOK 1

/* fentry mode's hooks (fentry.S): mcount/hijack.c's entries that find a
 * function's start from its __fentry__ call. */
#define ADA_ARCH_HAS_FENTRY 1

/* The detail lane's registers and stack window (fentry.S, mcount.S,
 * patch.S, return.S). */
#define ADA_ARCH_HAS_DETAIL 1

/* A hijacked frame's position on the shadow stack (struct ada_frame's sp)
 * is the address of its return-address slot (runtime/aarch64/arch.h says
 * why it cannot be there). */
#define ADA_ARCH_POS_IS_SLOT 1

#ifndef __ASSEMBLER__
/* The event clock. rdtsc is not ordered against earlier loads and stores; a
 * tracer only needs timestamps that never go backwards within a thread, which
 * a constant, invariant TSC gives (the writer clamps any backward step). */
static inline __attribute__((always_inline)) uint64_t ada_arch_ticks(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* The counter's rate, where the CPU says it without measuring: the TSC's
 * is not given by x86 (CPUID leaf 0x15 is often empty), so the PROCESS
 * record's estimate is 0 and the symbolizer goes by the clock pairs. */
static inline uint64_t ada_arch_ticks_hz(void)
{
	return 0;
}

/* The instruction a signal interrupted (crash.c's report, the counter
 * lane's sample). */
static inline uintptr_t ada_arch_signal_ip(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

/* A thread whose time-stamp counter is off (prctl PR_SET_TSC, seccomp's
 * strict mode) faults at rdtsc: if the instruction at the fault (uc, a
 * signal's context) is one, gives it `ticks` in edx:eax and steps past it
 * (crash.c). */
static inline bool ada_arch_ticks_emulate(ucontext_t *uc, uint64_t ticks)
{
	greg_t *g = uc->uc_mcontext.gregs;
	const uint8_t *ip = (const uint8_t *)(uintptr_t)g[REG_RIP];

	if (ip[0] != 0x0f || ip[1] != 0x31)
		return false;
	g[REG_RAX] = (uint32_t)ticks;
	g[REG_RDX] = (uint32_t)(ticks >> 32);
	g[REG_RIP] += 2;
	return true;
}

/* Calls fn on the stack that ends at top (16-byte aligned), never to
 * return: a process forked from one running on a small borrowed stack
 * (recorder.c) moves to one of its own. */
static inline __attribute__((noreturn)) void ada_arch_run_on_stack(void *top, void (*fn)(void))
{
	__asm__ volatile("mov %0, %%rsp\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "call *%1\n\t"
			 "ud2"
			 :
			 : "r"(top), "r"(fn)
			 : "memory");
	__builtin_unreachable();
}

/* A spin-wait's pause: lets the sibling hyperthread run. */
static inline void ada_arch_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

#endif

/* ---- the trampolines' saved registers (fentry.S, mcount.S, return.S) ------- */


/* What the entry trampolines save before calling C: every register the
 * function's arguments may be in, and those the C side may clobber. The
 * offsets are used by the .S files (which cannot include C structs) and are
 * checked against the struct in mcount/hijack.c. */
#define ADA_REG_RDI 0
#define ADA_REG_RSI 8
#define ADA_REG_RDX 16
#define ADA_REG_RCX 24
#define ADA_REG_R8 32
#define ADA_REG_R9 40
#define ADA_REG_RAX 48 /* %al: number of vector registers of a variadic call */
#define ADA_REG_R10 56 /* static chain */
#define ADA_REG_R11 64
#define ADA_REG_RBP 72 /* the caller's frame pointer, for the detail record */
#define ADA_REG_XMM0 80 /* xmm0..xmm7, 16 bytes each: float arguments */
#define ADA_ENTRY_REGS_SIZE 208

/* What the return trampoline saves: the return value registers. */
#define ADA_RET_RAX 0
#define ADA_RET_RDX 8
#define ADA_RET_XMM0 16
#define ADA_RET_XMM1 32
#define ADA_RET_RBP 48 /* the caller's frame pointer, restored by the function */
#define ADA_RETURN_REGS_SIZE 64

#ifndef __ASSEMBLER__
struct ada_entry_regs {
	uint64_t rdi, rsi, rdx, rcx, r8, r9;
	uint64_t rax, r10, r11;
	union {
		uint64_t rbp, fp; /* fp: the name hijack.c uses on every arch */
	};
	uint64_t xmm[8][2]; /* low and high 64 bits: words, which C built with
			     * -mgeneral-regs-only reads without memcpy */
};

struct ada_return_regs {
	uint64_t rax, rdx;
	uint64_t xmm0[2], xmm1[2];
	union {
		uint64_t rbp, fp;
	};
	uint64_t pad;
};

/* A frame's position: its slot (above), however the hook found it. */
static inline uintptr_t ada_arch_entry_pos(const struct ada_entry_regs *r, uintptr_t *slot)
{
	(void)r;
	return (uintptr_t)slot;
}

static inline uintptr_t ada_arch_return_pos(const struct ada_return_regs *r, uintptr_t *slot)
{
	(void)r;
	return (uintptr_t)slot;
}

/* The position a hijacking hook takes the thread's guard at: the slot. */
static inline uintptr_t ada_arch_guard_pos(uintptr_t pos, uintptr_t sp)
{
	(void)pos;
	return sp;
}

/* Whether the slot may be hijacked: always, the return address is plain. */
static inline bool ada_arch_slot_ok(const struct ada_entry_regs *r, const uintptr_t *slot)
{
	(void)r, (void)slot;
	return true;
}

/* The call to __fentry__ is a function's first instruction: its start is
 * the call's own address. gcc emits `call *__fentry__@GOTPCREL(%rip)`
 * (ff 15 + rel32, 6 bytes) for PIC code and `call __fentry__` (e8 + rel32,
 * 5 bytes) otherwise; in the 5-byte form the byte at -5 is the e8.
 * A nested function gets its static chain in r10, which gcc keeps across
 * the call: `push %r10` (41 52) before it, `pop %r10` (41 5a) after. Then
 * the function starts at the push, and its return address is one word
 * above the slot __fentry__ was given: *slot is moved there (hijacking the
 * saved r10 instead would change the program's result). */
static inline uintptr_t ada_arch_fentry_start(uintptr_t ret, uintptr_t **slot)
{
	const uint8_t *p = (const uint8_t *)ret;
	uintptr_t call = p[-6] == 0xff && p[-5] == 0x15 ? ret - 6 : ret - 5;
	const uint8_t *c = (const uint8_t *)call;

	if (p[0] == 0x41 && p[1] == 0x5a && c[-2] == 0x41 && c[-1] == 0x52) {
		*slot += 1;
		return call - 2;
	}
	return call;
}

/* The detail record's argument registers, in ATF v2's order (§4). */
static inline void ada_arch_call_args(const struct ada_entry_regs *r, uint64_t out[8])
{
	out[0] = r->rdi, out[1] = r->rsi, out[2] = r->rdx, out[3] = r->rcx;
	out[4] = r->r8, out[5] = r->r9, out[6] = 0, out[7] = 0;
}

static inline void ada_arch_return_values(const struct ada_return_regs *r, uint64_t out[8])
{
	out[0] = r->rax, out[1] = r->rdx;
	out[2] = out[3] = out[4] = out[5] = out[6] = out[7] = 0;
}

/* The detail record's FP registers (docs/atf-extensions.md): a CALL's
 * xmm0..xmm7, a RETURN's xmm0 and xmm1, their low 64 bits (a double's, or a
 * float's in the low 32): what a scalar argument or return value uses. */
static inline void ada_arch_call_fregs(const struct ada_entry_regs *r, uint64_t out[8])
{
	for (int i = 0; i < 8; i++)
		out[i] = r->xmm[i][0];
}

static inline void ada_arch_return_fregs(const struct ada_return_regs *r, uint64_t out[8])
{
	out[0] = r->xmm0[0], out[1] = r->xmm1[0];
	out[2] = out[3] = out[4] = out[5] = out[6] = out[7] = 0;
}

/* copy.S: 128 bytes (the default stack window) 16 at a time, in xmm8-15,
 * which are dead wherever a hook captures. */
#define ADA_ARCH_HAS_COPY128 1
__attribute__((visibility("hidden"))) void ada_arch_copy128(uint64_t *dst, const uint64_t *src);
#endif

/* ---- dynamic hooks (mcount/dynhook.c) ------------------------------------- */

#define ADA_ARCH_R_JUMP_SLOT 7 /* R_X86_64_JUMP_SLOT: a PLT call's GOT slot */
#define ADA_ARCH_R_GLOB_DAT 6  /* R_X86_64_GLOB_DAT: a GOT slot (-fno-plt calls) */
#define ADA_ARCH_STUB_SIZE 16

#ifndef __ASSEMBLER__
/* A target's stub at p: `lea cell(%rip), %r11; jmp *entry_ptr(%rip)`, both
 * within 2 GiB of p (the same mapping). */
static inline void ada_arch_write_stub(uint8_t *p, uintptr_t cell, uintptr_t entry_ptr)
{
	int32_t to_cell = (int32_t)(cell - ((uintptr_t)p + 7));
	int32_t to_entry = (int32_t)(entry_ptr - ((uintptr_t)p + 13));

	p[0] = 0x4c, p[1] = 0x8d, p[2] = 0x1d;
	__builtin_memcpy(p + 3, &to_cell, 4);
	p[7] = 0xff, p[8] = 0x25;
	__builtin_memcpy(p + 9, &to_entry, 4);
	p[13] = p[14] = p[15] = 0xcc; /* int3: never reached */
}

/* `jmp *target_ptr(%rip)` at p, padded to a stub's size. */
static inline void ada_arch_write_jump(uint8_t *p, uintptr_t target_ptr)
{
	int32_t to = (int32_t)(target_ptr - ((uintptr_t)p + 6));

	p[0] = 0xff, p[1] = 0x25;
	__builtin_memcpy(p + 2, &to, 4);
	for (int i = 6; i < ADA_ARCH_STUB_SIZE; i++)
		p[i] = 0xcc;
}
#endif

#ifndef __ASSEMBLER__
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

#endif
