/* chroot_threads.c - threads start after the program chroots.
 *
 * main makes calls, chroots into an empty directory (argv[1], made here),
 * then starts two threads that make calls of their own, and prints their
 * sum. The trace lives outside the new root: every thread's calls must
 * reach it all the same. Needs CAP_SYS_CHROOT: without it, says so and
 * exits 0 (the test then skips). Usage: chroot_threads DIR
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BARRIER() __asm__ volatile("" ::: "memory")

static __attribute__((noinline)) long work(long x)
{
	BARRIER();
	return x * 2 + 1;
}

static void *thread(void *arg)
{
	long s = 0;

	for (long i = 0; i < 100; i++)
		s += work(i);
	return (void *)s;
}

int main(int argc, char **argv)
{
	long sum = 0;

	if (argc < 2)
		return 2;
	for (long i = 0; i < 10; i++)
		sum += work(i);
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST)
		return 3;
	if (chroot(argv[1]) < 0) {
		printf("chroot: %s\n", strerror(errno));
		return 0;
	}
	if (chdir("/") < 0)
		return 4;
	for (int t = 0; t < 2; t++) {
		pthread_t th;
		void *r;

		if (pthread_create(&th, NULL, thread, NULL) != 0)
			return 5;
		pthread_join(th, &r);
		sum += (long)r;
	}
	printf("sum %ld\n", sum);
	return 0;
}
