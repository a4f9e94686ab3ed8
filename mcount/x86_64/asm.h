/* asm.h (x86_64) - symbol macros for the trampolines. */
#ifndef ADA_ASM_H
#define ADA_ASM_H

/* A function symbol with its type and size; GLOBAL ones are what the
 * compiler's instrumentation calls, LOCAL ones stay inside libada. */
#define GLOBAL(name)              \
	.globl name;              \
	.type name, @function;    \
	.p2align 4;               \
	name:

#define LOCAL(name)               \
	.globl name;              \
	.hidden name;             \
	.type name, @function;    \
	.p2align 4;               \
	name:

#define END(name) .size name, .- name

#endif
