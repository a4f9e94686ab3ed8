/* fork.c - fork (hooked: a libc call like any other) and exec /bin/true in
 * the child; the parent waits for it. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
