/* libcall.c - the library-call benchmark: a loop calling a trivial function
 * of an uninstrumented shared library (libbenchlib.so, benchlib.c).
 *
 *   libcall [CALLS]        (default 5000000)
 *
 * The loop is one function, libcall_loop, built with the tracer's hooks (ada's
 * adacc, gcc -pg or -finstrument-functions for uftrace) or without (the
 * untraced baseline); bl_add is in the library, so each call goes through
 * the program's PLT and GOT slot and is recorded only by a tracer that hooks
 * those: 2 events (CALL and RETURN) per call. The loop's own thread CPU
 * time is printed to stderr, as micro does, with its event count:
 *
 *   app_thread_ns <ns> events <2 * CALLS>
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int bl_add(int a, int b);

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Every result feeds the next call: nothing can be dropped or hoisted. */
__attribute__((noinline)) int libcall_loop(long n)
{
	int s = 0;
	long i;

	for (i = 0; i < n; i++)
		s = bl_add(s, (int)i);
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000000;
	long long t0 = thread_ns();
	int s = libcall_loop(n);

	fprintf(stderr, "app_thread_ns %lld events %ld\n", thread_ns() - t0, 2 * n);
	printf("%d\n", s);
	return 0;
}
