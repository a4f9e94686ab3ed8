/* sig.h - a function's parameters and return value as its DWARF declares
 * them, each placed where the x86-64 System V ABI passes it: the views show
 * "parse(text="1+2", depth=0) = 3" from a detail record's registers and
 * stack window instead of six raw registers.
 *
 * dwarf_params.c builds a signature from a function's DIE (libdw);
 * sig_format.c prints a call's arguments and a return's value with it.
 * Where the ABI's placement cannot be known from DWARF (a C++ class with no
 * word on how it is passed, a long double, a bit-field in a small struct),
 * that parameter and every one after it read "?": a wrong value is worse
 * than none.
 */
#ifndef ADA_SIG_H
#define ADA_SIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sig_kind {
	SIG_VOID,      /* a return with no value */
	SIG_SIGNED,    /* integers, by size */
	SIG_UNSIGNED,
	SIG_BOOL,
	SIG_CHAR,      /* char (not signed or unsigned char): as a character */
	SIG_ENUM,      /* an enumerator's name where one has the value */
	SIG_POINTER,   /* pointers and references, in hex */
	SIG_STRING,    /* a pointer to char: the text where its bytes were captured */
	SIG_FLOAT,     /* float (size 4) and double (size 8) */
	SIG_AGGREGATE, /* a struct, union or class by value: "{...}" */
	SIG_OTHER,     /* long double, complex, vectors, __int128: "?" */
};

enum sig_loc {
	LOC_NONE,    /* a void return */
	LOC_GPR,     /* at a call rdi rsi rdx rcx r8 r9 (reg 0-5); a return's rax (0) */
	LOC_SSE,     /* xmm0-7 (reg); a return's xmm0 */
	LOC_STACK,   /* at a call, stack_off bytes above the entry's stack pointer */
	LOC_MEMORY,  /* an aggregate in memory (a return's hidden pointer): "{...}" */
	LOC_UNKNOWN, /* the ABI's placement is not known from DWARF: "?" */
};

struct sig_enumerator {
	int64_t value;
	char *name;
};

struct sig_value {
	char *name;            /* the parameter's name; NULL if unnamed */
	uint8_t kind;          /* enum sig_kind */
	uint8_t size;          /* bytes (scalars: 1-8) */
	uint8_t loc;           /* enum sig_loc */
	uint8_t reg;
	uint16_t stack_off;    /* LOC_STACK */
	bool is_signed;        /* SIG_ENUM: its underlying type */
	uint32_t nenum;        /* SIG_ENUM */
	struct sig_enumerator *enums;
};

struct ada_sig {
	struct sig_value ret;  /* kind SIG_VOID for none */
	bool variadic;         /* "..." after the parameters */
	bool builtin;          /* sig_libc's: kept for the process's life, never freed */
	uint32_t nparams;
	struct sig_value params[];
};

/* Frees a signature of dwarf_params.c's (sig_libc's are left alone). */
void ada_sig_free(struct ada_sig *sig);

/* sig_libc.c: the signature of a common C library function by its name as
 * views show it ("strlen" for __strlen_avx2), for module (a basename) of
 * the C library; NULL for another module or function. */
const struct ada_sig *sig_libc(const char *name, const char *module);

/* The text of one value read from registers and stack: what sig_format.c
 * needs of a detail record. regs: x86_64 rdi..r9 at a call, rax rdx at a
 * return; fregs: xmm0..7's low 64 bits (NULL if the trace has none); the
 * stack window: stack_size bytes from sp, the entry's stack pointer. */
struct sig_frame {
	const uint64_t *regs;
	const uint64_t *fregs;
	uint64_t sp;
	const uint8_t *stack;
	uint16_t stack_size;
	/* Up to len bytes of read-only memory at addr (a string literal in the
	 * binary: src_read_const), the count read; NULL if none can be. */
	size_t (*read_const)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
};

/* Parameter i's value alone ("3", "\"abc\"", "?"); its length. */
size_t sig_format_param(const struct ada_sig *sig, uint32_t i, const struct sig_frame *fr,
			char *out, size_t len);
/* "name=value, name=value" for a call (at most len bytes with the NUL;
 * cut with "..." if longer). Returns the length written. */
size_t sig_format_args(const struct ada_sig *sig, const struct sig_frame *fr, char *out, size_t len);
/* The return value's text ("3", "\"abc\"", "{...}"); 0 and an empty out
 * for a void function. */
size_t sig_format_ret(const struct ada_sig *sig, const struct sig_frame *fr, char *out, size_t len);

#endif
