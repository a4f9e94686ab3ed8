/* fds_std.c - a program closes descriptors 0-2 and opens three files of its
 * own (argv[1] with ".0", ".1", ".2" appended), which get 0, 1 and 2. Its
 * stdout now goes to the ".1" file; ada's lines (the test runs it with
 * ADA_DEPTH=1, so the exit report has something to say: the CALLS calls
 * of step() below main) must not go to the ".2" file. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CALLS 1000

static volatile int sink;

__attribute__((noinline)) void step(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2)
		return 2;
	close(0);
	close(1);
	close(2);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s.%d", argv[1], i);
		if (open(path, O_RDWR | O_CREAT | O_TRUNC, 0644) != i)
			return 3;
	}
	for (int i = 0; i < CALLS; i++)
		step(i);
	printf("sum %d\n", sink);
	dprintf(2, "the program's own stderr\n");
	return 0;
}
