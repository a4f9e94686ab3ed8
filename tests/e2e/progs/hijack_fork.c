/* hijack_fork.c - fork() three traced frames deep.
 *
 * main() -> level1() -> level2() -> split() forks. Both processes return
 * through the same three hijacked frames (the child has a copy of the
 * shadow stack that holds their real return addresses), then the child
 * runs child_work() and exits 3, and the parent waits for it and runs
 * parent_work().
 *
 * Prints "child: 6" then "parent: 10, child exited with 3"; exit status 0.
 */
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int levels; /* touched after each call: no tail calls */

__attribute__((noinline)) int square(int x)
{
	return x * x;
}

__attribute__((noinline)) pid_t split(void)
{
	fflush(stdout);
	return fork();
}

__attribute__((noinline)) pid_t level2(void)
{
	pid_t pid = split();

	levels++;
	return pid;
}

__attribute__((noinline)) pid_t level1(void)
{
	pid_t pid = level2();

	levels++;
	return pid;
}

__attribute__((noinline)) int child_work(void)
{
	return square(1) + square(2) + 1;
}

__attribute__((noinline)) int parent_work(void)
{
	return square(1) + square(3);
}

int main(void)
{
	pid_t pid = level1();
	int status;

	if (pid < 0)
		return 1;
	if (pid == 0) {
		printf("child: %d\n", child_work());
		return 3;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	printf("parent: %d, child exited with %d\n", parent_work(), WEXITSTATUS(status));
	return 0;
}
