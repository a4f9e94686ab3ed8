/* dl_plain.c - libdlplain.so, built with plain gcc. plain_copy and
 * plain_release, called through dlsym'd pointers, are not traced (no hook
 * sees a call through a pointer into uninstrumented code); the calls they
 * make through the library's PLT are: to libc (their frames nest under the
 * executable's calling frame), and to plain_count, an exported function of
 * the library itself (interposable, so called through the PLT too), which
 * names the library in the trace. */
#include <stdlib.h>
#include <string.h>

size_t plain_count(const char *s)
{
	return strlen(s);
}

char *plain_copy(const char *s)
{
	size_t n = plain_count(s);
	char *p = malloc(n + 1);

	if (p)
		memcpy(p, s, n + 1);
	return p;
}

void plain_release(void *p)
{
	free(p);
}
