/* fork.c - a traced process forks; each side has its own trace.
 *
 * main() calls spawn(), which forks. The child inherits the two open frames
 * (main and spawn) and returns through them, so its call tree is the whole
 * story as seen from the child: spawn() returning, then child_work(), then
 * main() returning 3. The parent waits for the child before parent_work(),
 * so the two processes never print at the same time.
 *
 * Output, in this order:
 *   "child: 6"
 *   "parent: 10, child exited with 3"
 * and exit status 0.
 */
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_STATUS 3

static int square(int x)
{
	return x * x;
}

static int child_work(void)
{
	return square(1) + square(2) + 1;
}

static int parent_work(void)
{
	return square(1) + square(3);
}

static pid_t spawn(void)
{
	/* Nothing buffered may be copied into the child, or it prints twice. */
	fflush(stdout);
	return fork();
}

int main(void)
{
	pid_t pid = spawn();
	int status;

	if (pid < 0) {
		perror("fork: fork");
		return 1;
	}
	if (pid == 0) {
		printf("child: %d\n", child_work());
		return CHILD_STATUS;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		fprintf(stderr, "fork: child did not exit normally\n");
		return 1;
	}
	printf("parent: %d, child exited with %d\n", parent_work(), WEXITSTATUS(status));
	return 0;
}
