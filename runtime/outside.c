/* outside.c - the writer's allocations, marked as code that may wait for a
 * program thread (ada_internal.h's ada_writer_outside).
 *
 * A file of its own: the encoder (encode.c) allocates with these, and
 * ada-symbolize links the encoder without the rest of the runtime.
 */
#include <stdlib.h>

#include "ada_internal.h"

uint32_t ada_writer_outside;

void *ada_malloc(size_t n)
{
	void *p;

	ada_outside_begin();
	p = malloc(n);
	ada_outside_end();
	return p;
}

void *ada_calloc(size_t n, size_t size)
{
	void *p;

	ada_outside_begin();
	p = calloc(n, size);
	ada_outside_end();
	return p;
}

void *ada_realloc(void *p, size_t n)
{
	ada_outside_begin();
	p = realloc(p, n);
	ada_outside_end();
	return p;
}

void ada_free(void *p)
{
	ada_outside_begin();
	free(p);
	ada_outside_end();
}
