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

#endif
