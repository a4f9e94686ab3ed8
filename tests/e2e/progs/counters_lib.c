/* counters_lib.c - built without adacc (test_counters): a loop ada does not
 * instrument, whose counter samples must name spin_inner under the
 * instrumented caller. */
#include <time.h>

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned spin_inner(unsigned n)
{
	volatile unsigned x = 0;

	for (unsigned i = 0; i < n; i++)
		x += i;
	return x;
}

/* ms milliseconds of this thread's CPU time, nearly all in spin_inner. */
unsigned lib_spin(double ms)
{
	double start = cpu_ms();
	unsigned r = 0;

	while (cpu_ms() - start < ms)
		r += spin_inner(1000000);
	return r;
}
