/* views.h - what a person reads from a trace directory. */
#ifndef ADA_VIEWS_H
#define ADA_VIEWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Prints the call tree of every thread under PATH (an output root, a session
 * directory or a pid directory), processes by ascending pid and threads by
 * ascending id:
 *
 *   # pid 4242 thread 0 tid 4242
 *   main
 *     fib
 *       fib x2
 *     worker (unwound)
 *
 * Two spaces per depth level; " xN" when the line stands for N >= 2 consecutive
 * identical sibling subtrees; " (unwound)" when the frame ended by an
 * EXCEPTION of the trace, " (open at exit)", " (open at crash)" or " (open
 * when killed)" when the thread's record ended inside it (the manifest's
 * open_at_end and end).
 * The format is a contract: end-to-end tests compare it byte for byte.
 * Returns 0 or a negative errno (message printed). */
int ada_view_replay(const char *path, FILE *out);

struct ada_dump_options {
	uint64_t limit;  /* events shown per thread; 0 = all */
	bool stack;      /* also sp, fp, lr and the stack window of each detail */
};

/* Prints every event of every thread under PATH (same forms and order as
 * ada_view_replay), with the registers of its detail record if it has one:
 *
 *   # pid 4242 thread 0 tid 4242
 *   0.000000 main(rdi=0x1 rsi=0x7ffd5c1e2a38 rdx=0x7ffd5c1e2a48 rcx=0x0 r8=0x0 r9=0x0)
 *   0.000012   compute(rdi=0x2a rsi=0x7 rdx=0x0 rcx=0x0 r8=0x0 r9=0x0)
 *   0.000023   compute = 0x54 (rdx=0x0)
 *   0.000031   helper()
 *   0.000032   helper returns
 *   0.000040 main (unwound)
 *
 * A line is the time since the manifest's time_start_ns (seconds, 6
 * decimals, truncated), one space, two spaces per depth level below 1, then:
 *   CALL       name(rdi=.. rsi=.. rdx=.. rcx=.. r8=.. r9=..)  (arm64: x0..x7)
 *              name()                       without a detail record
 *   RETURN     name = 0x<rax> (rdx=0x<rdx>)  (arm64: x0, x1)
 *              name returns                 without a detail record
 *   EXCEPTION  name (unwound), or name (open at exit) and its variants for
 *              the frames the thread's record ended in (as ada_view_replay)
 * Registers in lower-case hex without padding. With o->stack, an event with
 * a detail record is followed by "    sp=0x.. fp=0x.. lr=0x.." and its stack
 * window, 16 bytes a line: "    +0x000: 11 22 ..". With o->limit, a thread
 * with more events ends with "# N more events not shown". The format is a
 * contract: tests compare it byte for byte. Returns 0 or a negative errno
 * (message printed). */
int ada_view_dump(const char *path, const struct ada_dump_options *o, FILE *out);

#endif
