/* load.c - busy processes on every core, for the length of a test. */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "load.h"

#define MAX_SPINNERS 64

static pid_t spinners[MAX_SPINNERS];
static int nspinners;

int load_start(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = cpus < 2 ? 2 : cpus > MAX_SPINNERS ? MAX_SPINNERS : (int)cpus;

	for (nspinners = 0; nspinners < n; nspinners++) {
		pid_t pid = fork();

		if (pid < 0) {
			int err = errno;

			load_stop();
			return -err;
		}
		if (pid == 0) {
			volatile unsigned long x = 0;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				x++;
		}
		spinners[nspinners] = pid;
	}
	return 0;
}

void load_stop(void)
{
	for (int i = 0; i < nspinners; i++)
		kill(spinners[i], SIGKILL);
	for (int i = 0; i < nspinners; i++)
		waitpid(spinners[i], NULL, 0);
	nspinners = 0;
}
