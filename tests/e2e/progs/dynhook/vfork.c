/* vfork.c - vfork (never hooked) and exec in the child: /bin/true, then
 * /bin/false. The parent waits for each and goes on. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE static int spawn(const char *path)
{
	int st = 0;
	pid_t pid = vfork();

	if (pid == 0) {
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

NOINLINE static size_t measure(const char *s)
{
	size_t n = strlen(s);

	__asm__ volatile("" ::: "memory"); /* not a tail call: strlen nests */
	return n;
}

int main(void)
{
	printf("true: %d\n", spawn("/bin/true"));
	printf("false: %d\n", spawn("/bin/false"));
	printf("len %zu\n", measure("abcdef"));
	return 0;
}
