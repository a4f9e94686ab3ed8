/* copy.S (x86_64) - the default stack window (128 bytes) into a detail
 * record, 16 bytes a move.
 *
 * The runtime's C is built without SSE (it runs inside hooks that must not
 * touch the traced program's floating-point registers), so the copy the
 * capture spends most of its stores on is written here. It uses xmm8-xmm15
 * only: every hook that captures runs where those are dead, at a function's
 * entry (fentry, mcount before the body, a PLT call) or after its return
 * (the return trampoline): the ABI makes them caller-saved, and neither
 * arguments nor return values. Both pointers need only 8-byte alignment. */
#include "asm.h"

	.text
/* void ada_arch_copy128(uint64_t *dst: rdi, const uint64_t *src: rsi) */
LOCAL(ada_arch_copy128)
	.cfi_startproc
	movdqu	0(%rsi), %xmm8
	movdqu	16(%rsi), %xmm9
	movdqu	32(%rsi), %xmm10
	movdqu	48(%rsi), %xmm11
	movdqu	64(%rsi), %xmm12
	movdqu	80(%rsi), %xmm13
	movdqu	96(%rsi), %xmm14
	movdqu	112(%rsi), %xmm15
	movdqu	%xmm8, 0(%rdi)
	movdqu	%xmm9, 16(%rdi)
	movdqu	%xmm10, 32(%rdi)
	movdqu	%xmm11, 48(%rdi)
	movdqu	%xmm12, 64(%rdi)
	movdqu	%xmm13, 80(%rdi)
	movdqu	%xmm14, 96(%rdi)
	movdqu	%xmm15, 112(%rdi)
	ret
	.cfi_endproc
END(ada_arch_copy128)

	.section .note.GNU-stack, "", @progbits
