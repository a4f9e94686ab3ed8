/* fds_dup2.c - a program dup2s a pipe's write end over descriptors 3..10
 * (where ada's files may be), calls work() many times, writes one line into
 * the pipe, closes every write end and reads the pipe to its end: it must
 * read exactly its own line. work() is called CALLS times before the dup2s
 * (so ada has its files by then) and CALLS times after. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "work_calls.h"

#define CALLS 50000

int main(void)
{
	char buf[256];
	size_t got = 0;
	ssize_t n;
	int p[2];

	calls(CALLS);
	/* The pipe's ends above the range the program takes over. */
	if (pipe(p) < 0 || dup2(p[0], 20) < 0 || dup2(p[1], 21) < 0)
		return 2;
	close(p[0]);
	close(p[1]);
	for (int fd = 3; fd <= 10; fd++)
		if (dup2(21, fd) < 0)
			return 3;
	calls(CALLS);
	if (write(21, "from the program\n", 17) != 17)
		return 4;
	for (int fd = 3; fd <= 10; fd++)
		close(fd);
	close(21);
	while (got < sizeof(buf) - 1 && (n = read(20, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	printf("pipe: %zu bytes: %s", got, buf);
	return 0;
}
