/* gmon.c - keep glibc's gprof machinery out of programs built with -pg.
 *
 * fentry and mcount modes compile with -pg, and gcc links a -pg program
 * with gcrt1.o, whose start-up calls __monstartup (a SIGPROF profiling timer
 * and a histogram buffer) and registers _mcleanup (which writes gmon.out at
 * exit). A traced program must not notice the tracer: these definitions
 * interpose glibc's (libada comes before libc in the search order) and do
 * nothing. mcount itself is libada's (mcount/<arch>/mcount.S).
 */
#include "ada_internal.h"

#define ADA_EXPORT __attribute__((visibility("default")))

ADA_EXPORT void __monstartup(unsigned long lowpc, unsigned long highpc);
ADA_EXPORT void _mcleanup(void);

void __monstartup(unsigned long lowpc, unsigned long highpc)
{
	(void)lowpc;
	(void)highpc;
}

void _mcleanup(void)
{
}
