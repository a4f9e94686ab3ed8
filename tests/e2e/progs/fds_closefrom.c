/* fds_closefrom.c - a daemon-style program closes every descriptor from 3 up,
 * then opens its data file (which gets the lowest free number, maybe one ada
 * had) and keeps calling work() while the file is open.
 *
 * argv[1] is the data file; argv[2] how it closes: "loop" (close(3..1023)),
 * "range" (close_range). It writes 12 bytes, reads them back through its
 * own descriptor and prints what it found; the test also reads the file.
 * work() is called 2 * CALLS times. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "work_calls.h"

#define CALLS 20000

int main(int argc, char **argv)
{
	char back[64] = "";
	ssize_t n;
	int fd;

	if (argc != 3)
		return 2;
	calls(CALLS);
	if (!strcmp(argv[2], "range"))
		close_range(3, ~0u, 0);
	else
		for (fd = 3; fd < 1024; fd++)
			close(fd);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "hello world\n", 12) != 12)
		return 3;
	calls(CALLS);
	n = pread(fd, back, sizeof(back) - 1, 0);
	printf("data file: %zd bytes: %s", n, back);
	return close(fd) != 0;
}
