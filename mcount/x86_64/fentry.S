/* fentry.S (x86_64) - __fentry__, called by functions built with -pg -mfentry.
 *
 * An instrumented function starts with the call, before its prologue:
 *
 *   compute:
 *     call  __fentry__        # 5 bytes; the first instruction
 *     push  %rbp              # the function proper
 *     ...
 *
 * So when __fentry__ runs:
 *   0(%rsp)   the return address into compute (compute + 5)
 *   8(%rsp)   compute's own return address, into its caller: the slot the
 *             hook replaces with ada_return_trampoline (the hijack)
 *   rdi, rsi, rdx, rcx, r8, r9, xmm0-7: compute's arguments, untouched
 *   rax       %al = number of vector registers used by a variadic call
 *   r10       static chain of a nested function
 *   r11       the only register free to use
 *
 * The fast path, first, does the common case without C: a traced thread on
 * its own stack, outside any hook, recording on, a frame nested below the
 * innermost one or tail-called by it (on its slot, which that frame
 * hijacked: its real return address is the frame's), room in the shadow
 * stack and the ring, and a detail record that needs no set-up. It saves
 * the five registers it uses and nothing else, and does exactly what
 * mcount/hijack.c's hijack_enter does then: push the frame, write the
 * detail record (argument registers, the FP argument registers xmm0-7's low
 * halves, real return address, frame pointer, slot, 128 bytes of stack),
 * store the slot (tsc, word) and the new head,
 * and hijack the return (fast.h's FAST_ENTRY, which the PLT hooks'
 * entry in dynhook.S expands too). Anything else jumps to the C path below,
 * which saves every caller-saved register and calls ada_fentry_enter with
 * them; it decides the same case the same way, so the two never disagree.
 *
 * The stack window is copied in xmm8-15: at a function's entry they are
 * dead (caller-saved, and neither arguments nor return values). xmm0-7 are
 * only stored from (movq), never written: they are the arguments.
 *
 * The C path's stack pointer is not necessarily 16-byte aligned: gcc calls
 * a function it knows needs no alignment (a leaf in the same unit) with rsp
 * 8 mod 16, and that function's __fentry__ call inherits it; so the stack
 * is realigned there, with the entry rsp kept in rbx. The C side may call
 * into libc on its slow paths, which may use any caller-saved register, so
 * all of them are saved: the argument registers, rax, r10, r11 and
 * xmm0-7, in the layout of struct ada_entry_regs (arch.h). rbp is saved
 * too, as the caller's frame pointer for the detail record.
 *
 *   void ada_fentry_enter(struct ada_entry_regs *regs, uintptr_t *slot,
 *                         uintptr_t ret);
 */
#include "arch.h"
#include "asm.h"
#include "fast.h"

	HOOKS_TEXT
GLOBAL(__fentry__)
	.cfi_startproc
	FAST_ENTRY fentry, 0

	FENTRY_THROUGH_C ada_fentry_enter
	.cfi_endproc
END(__fentry__)

	.section .note.GNU-stack, "", @progbits
