/* preload.c - libpreload.so, an LD_PRELOAD'ed strlen that answers 100 more
 * than libc's. Its definition is unversioned, as an interposer's usually is,
 * and the library has version information of its own (it needs memchr from
 * GLIBC_2.2.5): the dynamic linker binds every strlen reference, versioned
 * or not, to it, because it comes first in the global scope. */
#include <stddef.h>
#include <string.h>

size_t strlen(const char *s)
{
	const char *end = memchr(s, '\0', (size_t)1 << 30);

	return (size_t)(end - s) + 100;
}
