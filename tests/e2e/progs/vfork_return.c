/* vfork_return.c - a vfork child whose exec fails returns from main.
 *
 * Undefined by POSIX (the child runs on its parent's stack, and returning
 * from main then calling exit() writes over it), yet a plain build of this
 * runs on and exits 0: the parent's main returns as if nothing happened.
 * Programs do this by mistake, and ada must not turn it into a crash or a
 * hang. main calls work() ten times, vforks, and says it is done.
 */
#include <stdio.h>
#include <unistd.h>

#define BARRIER() __asm__ volatile("" ::: "memory")

static __attribute__((noinline)) int work(int x)
{
	BARRIER();
	return x + 1;
}

int main(void)
{
	volatile int s = 0;
	pid_t p;

	for (int i = 0; i < 10; i++)
		s += work(i);
	p = vfork();
	if (p == 0) {
		execl("/nonexistent/program", "program", (char *)0);
		return 0; /* in the child, on the parent's stack */
	}
	printf("parent: done\n");
	return 0;
}
