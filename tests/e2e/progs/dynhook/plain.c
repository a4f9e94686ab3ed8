/* plain.c - libplain.so, built with plain gcc (never with adacc): its
 * functions are traced only because calls into it, and out of it into libc,
 * go through PLT/GOT slots the dynamic-hook fallback redirects.
 *
 * At -O2 each function is a tail call through the PLT (jmp strlen@plt), or
 * through the GOT with -fno-plt (jmp *strlen@GOTPCREL(%rip)): the library
 * function's frame and libc's share one return-address slot.
 */
#include <stdlib.h>
#include <string.h>

size_t plain_len(const char *s)
{
	return strlen(s);
}

void *plain_alloc(size_t n)
{
	return malloc(n);
}

void plain_free(void *p)
{
	free(p);
}
