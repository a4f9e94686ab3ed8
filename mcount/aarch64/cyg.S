/* cyg.S (aarch64) - the -finstrument-functions hooks.
 *
 * gcc and clang call __cyg_profile_func_enter(fn, site) and
 * __cyg_profile_func_exit(fn, site) as ordinary functions, after the
 * instrumented function's prologue. There is no fast path in assembly here
 * yet (x86_64's cyg.S has one): each hook branches to its C half
 * (runtime/cyg.c) with x0, x1, the link register and the stack as they
 * came. A branch, not a call, so that the C half's canonical frame address
 * is the instrumented function's stack pointer at the call, as on x86_64:
 * the frame position the shadow stack compares.
 */
#include "asm.h"

	HOOKS_TEXT
GLOBAL(__cyg_profile_func_enter)	/* x0 = fn, x1 = site */
	.cfi_startproc
	b	ada_cyg_enter
	.cfi_endproc
END(__cyg_profile_func_enter)

GLOBAL(__cyg_profile_func_exit)		/* x0 = fn, x1 = site */
	.cfi_startproc
	b	ada_cyg_exit
	.cfi_endproc
END(__cyg_profile_func_exit)

	.section .note.GNU-stack, "", %progbits
