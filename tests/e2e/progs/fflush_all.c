/* fflush_all.c - fflush(NULL) while the program starts.
 *
 * fflush(NULL) flushes every output stream in the process, wherever it
 * came from. For 200 ms main calls work() and fflush(NULL) in turn, then
 * says it is done: its stdout must hold that line and nothing else (ada's
 * writer once wrote the kept symbol tables through a stdio stream, whose
 * bytes this flushed into the program's descriptor of that number).
 */
#include <stdio.h>
#include <time.h>

#define BARRIER() __asm__ volatile("" ::: "memory")

static __attribute__((noinline)) int work(int x)
{
	BARRIER();
	return x + 1;
}

int main(void)
{
	struct timespec t0, t;
	long ms = 0;
	int s = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ms < 200) {
		s = work(s) & 0xffff;
		fflush(NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
	}
	printf("done\n");
	return s < 0;
}
