/* fds_rlimit.c - a program lowers RLIMIT_NOFILE to argv[1] and opens
 * /dev/null until it cannot, calling work() CALLS times before and after:
 * it prints how many it opened, which must not depend on ada (3 with a limit
 * of 6: 0-2 are open). argv[2] "late": the limit comes after the first
 * calls; "early": before them (ada has made no file for the thread yet).
 * main is not instrumented. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "work_calls.h"

#define CALLS 1000

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	struct rlimit rl;
	int opened = 0;

	if (argc != 3)
		return 2;
	if (!strcmp(argv[2], "late"))
		calls(CALLS);
	rl.rlim_cur = rl.rlim_max = strtoul(argv[1], NULL, 10);
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 3;
	if (!strcmp(argv[2], "early"))
		calls(CALLS);
	while (open("/dev/null", O_RDONLY) >= 0)
		opened++;
	printf("opened %d with RLIMIT_NOFILE %s (then: %s)\n", opened, argv[1], strerror(errno));
	calls(CALLS);
	return 0;
}
