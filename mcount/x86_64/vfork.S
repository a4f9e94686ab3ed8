/* vfork.S (x86_64) - vfork, a real one, whose child records nothing.
 *
 * libada's vfork interposes libc's (the program's PLT binds to it; the
 * dynamic hooks never hook vfork). The child shares the parent's memory and
 * runs on its stack until it execs or _exits, while the calling thread of
 * the parent is suspended; so:
 *
 *   - the child must find the thread untraced, or its hooks would push
 *     frames onto the parent's shadow stack and ring and hijack return
 *     addresses on the shared stack: ada_vfork_enter (thread.c), called
 *     first, in the parent, clears the thread's TLS state and returns it
 *     in rax:rdx (struct ada_vfork_saved); the child writes nothing of ours
 *     (exec, _exit, exit and the crash handler see ada_in_vfork_child);
 *   - the saved state cannot be kept in memory the child may write (the
 *     stack below the caller's sp, which its calls reuse): it stays in
 *     rsi and rdx, which the system call preserves and the child's
 *     registers, its own, cannot change;
 *   - vfork returns twice, in the child first: its own return address is
 *     popped into rdi before the system call and pushed back after, as
 *     libc's vfork does, so that the child's calls cannot overwrite the
 *     slot the parent returns through;
 *   - in the parent, ada_vfork_leave(ret = rax, td = rsi, state = rdx)
 *     restores the thread and returns the pid, or -1 with errno set; it is
 *     jumped to with the return address back on the stack, so it returns
 *     to vfork's caller.
 *
 * Argument registers: none. Returns eax: the child's pid, 0 in the child,
 * -1 (errno) on failure. Clobbers what a call may.
 */
#include <sys/syscall.h>

#include "asm.h"

	.text
GLOBAL(vfork)
	.cfi_startproc
	sub	$8, %rsp			/* rsp 16-byte aligned for the call */
	.cfi_adjust_cfa_offset 8
	call	ada_vfork_enter			/* rax:rdx = the thread's saved state */
	add	$8, %rsp
	.cfi_adjust_cfa_offset -8
	mov	%rax, %rsi
	pop	%rdi				/* the return address, out of the child's way */
	.cfi_adjust_cfa_offset -8
	.cfi_register rip, rdi
	mov	$SYS_vfork, %eax
	syscall
	push	%rdi
	.cfi_adjust_cfa_offset 8
	.cfi_offset rip, -8
	test	%eax, %eax
	jz	1f				/* if (child) return 0; untraced */
	mov	%rax, %rdi
	jmp	ada_vfork_leave			/* return ada_vfork_leave(rax, rsi, rdx) */
1:	ret
	.cfi_endproc
END(vfork)

/* libc's other name for it (the dynamic hooks never hook either). */
	.globl	__vfork
	.type	__vfork, @function
	.set	__vfork, vfork

	.section .note.GNU-stack, "", @progbits
