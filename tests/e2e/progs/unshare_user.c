/* unshare_user.c - a user namespace of its own, as a sandbox makes.
 *
 * unshare(CLONE_NEWUSER) requires a single-threaded process: main calls
 * work() ten times, unshares, says how it went, calls work() ten times
 * again and prints the sum.
 */
#define _GNU_SOURCE /* unshare */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#define BARRIER() __asm__ volatile("" ::: "memory")

static __attribute__((noinline)) int work(int x)
{
	BARRIER();
	return x + 1;
}

int main(void)
{
	int s = 0, r;

	for (int i = 0; i < 10; i++)
		s += work(i);
	r = unshare(CLONE_NEWUSER);
	printf("unshare(CLONE_NEWUSER): %s\n", r ? strerror(errno) : "ok");
	for (int i = 0; i < 10; i++)
		s += work(i);
	printf("sum %d\n", s);
	return 0;
}
