// alloc_cxx.cc - C++'s operators new and delete, for test_alloc.c: f_new
// makes an array, an object and an array of objects, deletes the first two
// and keeps the last to the end. Prints what it asked for.
#include <cstdio>

#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

struct S {
	char b[24];
};

static S *kept;
static unsigned long bytes, blocks, kept_bytes;

__attribute__((noinline)) void f_new()
{
	int *a = new int[16];
	S *s = new S;

	ESCAPE(a);
	ESCAPE(s);
	bytes += 16 * sizeof(int) + sizeof(S);
	blocks += 2;
	delete s;
	delete[] a;
	kept = new S[2];
	ESCAPE(kept);
	bytes += 2 * sizeof(S);
	kept_bytes += 2 * sizeof(S);
	blocks++;
}

int main()
{
	f_new();
	std::printf("new %lu %lu kept %lu\n", bytes, blocks, kept_bytes);
	return 0;
}
