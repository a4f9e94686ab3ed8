/* alloc_blocks.c - the malloc family, each call in a function of its own,
 * for test_alloc.c: h allocates N blocks of SIZE bytes and keeps KEEP of
 * them to the end (leaks them), g_realloc grows and shrinks one block,
 * g_calloc asks for an array. It prints what it asked for, counted as it
 * went, and the test compares the views with that. */
#include <stdio.h>
#include <stdlib.h>

#define N 1000
#define SIZE 64
#define KEEP 10

/* An address that escapes: the compiler may not fold a malloc and its
 * free away. */
#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

static void *kept[KEEP];
static unsigned long h_bytes, h_blocks, kept_bytes, kept_blocks, r_bytes, r_blocks, c_bytes;

__attribute__((noinline)) void h(void)
{
	for (int i = 0; i < N; i++) {
		char *p = malloc(SIZE);

		ESCAPE(p);
		h_bytes += SIZE;
		h_blocks++;
		if (i % (N / KEEP) == 0) {
			kept[kept_blocks++] = p;
			kept_bytes += SIZE;
		} else {
			free(p);
		}
	}
}

__attribute__((noinline)) void g_realloc(void)
{
	static const size_t sizes[] = { 100, 300, 50 };
	char *p = malloc(sizes[0]);

	ESCAPE(p);
	r_bytes += sizes[0];
	r_blocks++;
	for (int i = 1; i < 3; i++) {
		p = realloc(p, sizes[i]);
		ESCAPE(p);
		r_bytes += sizes[i];
		r_blocks++;
	}
	free(p);
	ESCAPE(p);
}

__attribute__((noinline)) void g_calloc(void)
{
	int *a = calloc(7, sizeof(int));

	ESCAPE(a);
	c_bytes += 7 * sizeof(int);
	free(a);
	ESCAPE(a);
}

int main(void)
{
	h();
	g_realloc();
	g_calloc();
	printf("h %lu %lu kept %lu %lu realloc %lu %lu calloc %lu\n", h_bytes, h_blocks, kept_bytes,
	       kept_blocks, r_bytes, r_blocks, c_bytes);
	ESCAPE(kept);
	return 0;
}
