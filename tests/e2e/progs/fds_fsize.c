/* fds_fsize.c - the trace outgrows what the process may write: the program
 * sets RLIMIT_FSIZE to argv[1] bytes with SIGXFSZ ignored (a write past it
 * fails with EFBIG, as on a full disk), then calls work() CALLS times, in
 * rounds that let the writer drain. main is not instrumented.
 *
 * The rounds are small and the limit large beside each (a round's calls
 * are ~2 KB of trace, the limit ~100 KB): a frame the recorder writes is
 * all it drained since the last, and one larger than the limit is lost
 * whole, so a recorder starved of CPU on a busy machine (a frame of many
 * rounds) must still write its first frames within the limit. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define ROUNDS 200
#define PER_ROUND 1000

static volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long i)
{
	sink += i * 2654435761u;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	struct timespec ts = { 0, 2 * 1000000 };
	struct rlimit rl;

	if (argc != 2)
		return 2;
	work(0); /* the thread's ring file is made before the limit */
	signal(SIGXFSZ, SIG_IGN);
	rl.rlim_cur = rl.rlim_max = strtoul(argv[1], NULL, 10);
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		return 3;
	for (unsigned long r = 0; r < ROUNDS; r++) {
		for (unsigned long i = 0; i < PER_ROUND; i++)
			work(i ^ r);
		nanosleep(&ts, NULL);
	}
	printf("sum %lu\n", sink);
	return 0;
}
