/* forkstorm.c - 100 children at once, each calling traced functions and
 * ending by _exit() or exit() in turn, while the parent goes on calling:
 * a new trace per child, started from a copy of the parent's runtime.
 *
 *   forkstorm [children, default 100]
 *
 * Each child sends its own counts through a pipe (one write, under
 * PIPE_BUF); the parent reports its counts and theirs added up.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { F_MAIN, F_WORK, F_LEAF, NF };
static const char *const names[NF] = { "main", "work", "leaf" };
#include "stress.h"

TRACED static long leaf(long x)
{
	COUNT(F_LEAF);
	return x + 1;
}

TRACED static long work(int n)
{
	long s = 0;

	COUNT(F_WORK);
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

int main(int argc, char **argv)
{
	int children = argc > 1 ? atoi(argv[1]) : 100, p[2], status, statuses = 0;
	long theirs[NF], total[NF] = { 0 }, sum = 0;

	COUNT(F_MAIN);
	if (pipe(p))
		return 1;
	for (int c = 0; c < children; c++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			/* The child's trace starts here, with the frame it
			 * is in (main) recorded as a CALL: its counts too. */
			memset(counts, 0, sizeof(counts));
			counts[F_MAIN] = 1;
			work(10 + c);
			if (write(p[1], counts, sizeof(counts)) != (ssize_t)sizeof(counts))
				_exit(100);
			if (c % 2)
				_exit(c % 7);
			exit(c % 7);
		}
		sum += work(5);
	}
	close(p[1]);
	for (int c = 0; c < children; c++) {
		if (wait(&status) < 0)
			return 1;
		statuses += WIFEXITED(status) ? WEXITSTATUS(status) : 1000;
	}
	for (int c = 0; c < children; c++) {
		if (read(p[0], theirs, sizeof(theirs)) != (ssize_t)sizeof(theirs))
			return 1;
		for (int f = 0; f < NF; f++)
			total[f] += theirs[f];
	}
	printf("%d children, statuses %d, sum %ld\n", children, statuses, sum);
	for (int f = 0; f < NF; f++)
		total[f] += counts[f];
	report(total);
	return 0;
}
