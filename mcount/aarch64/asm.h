/* asm.h (aarch64) - symbol macros for the hooks' assembly, as
 * mcount/x86_64/asm.h's: a GLOBAL function is what the compiler's
 * instrumentation calls. */
#ifndef ADA_ASM_H
#define ADA_ASM_H

#define GLOBAL(name)              \
	.globl name;              \
	.type name, %function;    \
	.p2align 4;               \
	name:

#define END(name) .size name, .- name

/* The hooks' code: a section of their own, as mcount/x86_64/asm.h says. */
#define HOOKS_TEXT .section ada_hooks, "ax", %progbits

#endif
