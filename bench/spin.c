/* spin.c - one busy process for the "loaded" rows of run.sh: it keeps one
 * CPU busy with integer arithmetic in registers (one store per 10^7
 * steps), until it is killed.
 *
 *   spin [MAX_SECONDS]
 *
 * run.sh starts nproc of them before a loaded run and kills them after it.
 * Two guards keep one from outliving the benchmark if run.sh cannot kill
 * it: it dies with its parent (PR_SET_PDEATHSIG), and it exits by itself
 * after MAX_SECONDS of wall time (default 3600).
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static volatile unsigned long sink; /* keeps the loop from being optimized out */

int main(int argc, char **argv)
{
	long max_s = argc > 1 ? atol(argv[1]) : 3600;
	time_t end;
	unsigned long x = 88172645463325252ul;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	end = time(NULL) + (max_s > 0 ? max_s : 3600);
	for (;;) {
		/* xorshift64: ~10^7 steps between two looks at the clock */
		for (long i = 0; i < 10000000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		sink = x;
		if (time(NULL) >= end)
			return 0;
	}
}
