/* copy.S (x86_64) - the default stack window (128 bytes) into a detail
 * record, 16 bytes a move.
 *
 * The runtime's C is built without SSE (it runs inside hooks that must not
 * touch the traced program's floating-point registers), so the copy the
 * capture spends most of its stores on is written here, with the fast
 * paths' COPY128 (fast.h: xmm8-15 only). */
#include "asm.h"
#include "fast.h"

	HOOKS_TEXT
/* void ada_arch_copy128(uint64_t *dst: rdi, const uint64_t *src: rsi) */
LOCAL(ada_arch_copy128)
	.cfi_startproc
	COPY128 %rsi, 0, %rdi
	ret
	.cfi_endproc
END(ada_arch_copy128)

	.section .note.GNU-stack, "", @progbits
