/* return.S (x86_64) - ada_return_trampoline: where hijacked functions return.
 *
 * ada_fentry_enter replaced a traced function's return address with this
 * address and kept the real one on the thread's shadow stack. The function's
 * `ret` lands here with:
 *   rax, rdx        integer/pointer return value (rdx: the high half of a
 *                   128-bit or two-register struct return)
 *   xmm0, xmm1      float, double, complex and SSE struct returns
 *   st0, st1        long double returns: the C side never touches x87
 *                   (hijack.c is built with -mgeneral-regs-only), so they
 *                   pass through untouched
 *   rsp             the function's return-address slot + 8 (any alignment:
 *                   see fentry.S); realigned here, the entry rsp kept in rbx,
 *                   which the function has restored to its caller's value
 *
 * The C side records the RETURN and gives back the real return address:
 *
 *   uintptr_t ada_fentry_return(struct ada_return_regs *regs, uintptr_t *slot);
 *
 * ada_return_trampoline_dl is the same with ada_dynhook_return, for dlopen
 * and dlclose called through a hooked slot (mcount/dynhook.c).
 *
 * There is no caller frame to describe here: the return address column is
 * undefined, so an unwinder stops at this frame rather than read garbage
 * (exceptions and backtrace() see real return addresses: hijack.c restores
 * them first).
 */
#include "arch.h"
#include "asm.h"

.macro RETURN_TRAMPOLINE name, handler
	.text
	.p2align 4
	/* Unwinders look a return address up at address - 1: keep that byte
	 * inside this function's unwind information, not in a neighbour's. */
	.cfi_startproc
	.cfi_undefined rip
	nop
	.globl \name
	.hidden \name
	.type \name, @function
\name:
	ALIGNED_ENTER ADA_RETURN_REGS_SIZE	/* rbx = entry rsp = the slot */
	mov	%rax, ADA_RET_RAX(%rsp)
	mov	%rdx, ADA_RET_RDX(%rsp)
	movaps	%xmm0, ADA_RET_XMM0(%rsp)
	movaps	%xmm1, ADA_RET_XMM1(%rsp)
	mov	%rbp, ADA_RET_RBP(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	0(%rbx), %rsi			/* the slot the function returned through:
						 * where rbx is now saved */
	call	\handler
	mov	%rax, %r11			/* the real return address */

	movaps	ADA_RET_XMM1(%rsp), %xmm1
	movaps	ADA_RET_XMM0(%rsp), %xmm0
	mov	ADA_RET_RDX(%rsp), %rdx
	mov	ADA_RET_RAX(%rsp), %rax
	ALIGNED_LEAVE
	jmp	*%r11
	.cfi_endproc
END(\name)
.endm

RETURN_TRAMPOLINE ada_return_trampoline, ada_fentry_return
RETURN_TRAMPOLINE ada_return_trampoline_dl, ada_dynhook_return

	.section .note.GNU-stack, "", @progbits
