/* app.c - an instrumented executable calling the uninstrumented libplain.so,
 * which calls libc. The call tree under main, with the dynamic hooks on:
 *
 *   main
 *     plain_len            libplain (hooked: exe's slot)
 *       strlen             libc, an IFUNC implementation (libplain's slot)
 *     plain_alloc
 *       malloc             rdi = 0x40
 *     malloc               the executable's own call: the same function
 *     plain_free x2        the pointer malloc returned, then the other one
 *       free
 *     printf
 *
 * Exits with status 3, so that an exit status the tracing changed shows.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

size_t plain_len(const char *s);
void *plain_alloc(size_t n);
void plain_free(void *p);

int main(void)
{
	size_t n = plain_len("hello");
	void *p = plain_alloc(64);
	void *q = malloc(16);
	int ok = p && q && p != q;

	plain_free(p);
	plain_free(q);
	printf("len %zu, allocations %s\n", n, ok ? "ok" : "failed");
	return 3;
}
