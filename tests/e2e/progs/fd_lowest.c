/* fd_lowest.c - open() returns the lowest free number, while threads start.
 *
 * POSIX says open() returns the lowest descriptor not open in the process;
 * programs count on it (a daemon that closes 0-2 and opens /dev/null three
 * times, a shell's redirections). A helper thread starts THREADS short
 * threads, one after the other, each making traced calls at once, while
 * main opens and closes /dev/null OPENS times and checks each number is 3,
 * the lowest free one. Prints how many were not. With "dlopen", each
 * thread also loads and closes libm (whose modules ada records); the
 * loader's own opens then take numbers too, so what is counted is the
 * opens that found number 3 held by a file of ada's (its trace files,
 * /proc/self/maps).
 * Usage: fd_lowest [OPENS] [THREADS] [dlopen]
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BARRIER() __asm__ volatile("" ::: "memory")

static __attribute__((noinline)) int work(int x)
{
	BARRIER();
	return x + 1;
}

static int threads = 200, with_dlopen;

static void *short_thread(void *arg)
{
	int s = 0;

	for (int i = 0; i < 100; i++)
		s += work(i);
	if (with_dlopen) {
		void *h = dlopen("libm.so.6", RTLD_NOW);

		if (h)
			dlclose(h);
	}
	return (void *)(long)s;
}

static volatile int starter_done;

static void *starter(void *arg)
{
	for (int i = 0; i < threads; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, short_thread, NULL) == 0)
			pthread_join(t, NULL);
	}
	starter_done = 1;
	return arg;
}

int main(int argc, char **argv)
{
	long opens = argc > 1 ? atol(argv[1]) : 20000, wrong = 0, n = 0;
	pthread_t s;

	if (argc > 2)
		threads = atoi(argv[2]);
	with_dlopen = argc > 3;
	if (pthread_create(&s, NULL, starter, NULL) != 0)
		return 3;
	/* At least OPENS opens, and on until every thread has started. */
	while (n < opens || !starter_done) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0)
			return 4;
		if (fd != 3 && with_dlopen) {
			char link[512];
			ssize_t len = readlink("/proc/self/fd/3", link, sizeof(link) - 1);

			link[len > 0 ? len : 0] = '\0';
			wrong += strstr(link, "/raw/") || strstr(link, "/proc/") ||
				 strstr(link, ".ring");
		} else {
			wrong += fd != 3;
		}
		close(fd);
		n++;
	}
	pthread_join(s, NULL);
	printf("%d threads started%s: %ld\n", threads,
	       with_dlopen ? " (each loading libm); opens that found ada's file at the lowest number"
			   : "; opens not at the lowest number", wrong);
	return 0;
}
