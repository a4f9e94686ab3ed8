/* exec_fail.c - an exec that fails, and the program goes on calling work().
 *
 * argv[1] "first": the exec comes before any traced call (the exec flush
 * finds a process that recorded nothing); "between": CALLS calls before it
 * too. CALLS calls after it either way. main is not instrumented. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "work_calls.h"

#define CALLS 100

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	char *const args[] = { "nowhere", NULL };

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "between"))
		calls(CALLS);
	execv("/nonexistent/nowhere", args);
	printf("exec failed: %s\n", strerror(errno));
	calls(CALLS);
	printf("sum %lu\n", sink);
	return 0;
}
