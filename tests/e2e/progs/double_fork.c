/* double_fork.c - a daemon-style double fork: the middle process records
 * nothing. main is not instrumented; the middle process forks, waits for
 * its child and _exits; the grandchild calls work() (prints a line) and
 * _exits. With ADA_DYNHOOK=off only the grandchild records an event: the
 * other two processes must leave no pid directory (an empty one would make
 * the session fail ATF's check). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) void work(void)
{
	printf("grandchild works\n");
	fflush(stdout);
}

__attribute__((no_instrument_function)) int main(void)
{
	pid_t middle = fork(), grandchild;

	if (middle == 0) {
		grandchild = fork();
		if (grandchild == 0) {
			work();
			_exit(0);
		}
		waitpid(grandchild, NULL, 0);
		_exit(0);
	}
	waitpid(middle, NULL, 0);
	return 0;
}
