/* spawn_later.c - a traced program that starts another one (argv[1], with
 * the rest of argv) through posix_spawn 1.1 s after it began, so the two
 * start in different seconds (tests/e2e/test_sessions.c: they are one
 * session all the same).
 *
 * Prints "spawned: STATUS", exits 0.
 */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

__attribute__((noinline)) static int start(char **argv)
{
	pid_t pid;
	int status = -1;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 1, 100000000 };

	if (argc < 2)
		return 2;
	nanosleep(&ts, NULL);
	printf("spawned: %d\n", start(argv + 1));
	return 0;
}
