/* main_pthread_exit.c - main ends by pthread_exit while two threads work.
 *
 * The process must end when the last thread does, by exit(0): atexit
 * handlers run ("atexit ran 9900"), status 0. Each worker waits 50 ms, calls
 * work() 100 times and returns. main is not instrumented.
 *
 * Usage: main_pthread_exit [chroot DIR | nofd]. Before its pthread_exit,
 * main chroots into DIR (made here: no /proc there), or opens /dev/null
 * until the descriptor table is full: neither must keep the process from
 * ending. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned long sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void work(unsigned long i)
{
	pthread_mutex_lock(&lock);
	sink += i;
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) void *worker(void *arg)
{
	struct timespec ts = { 0, 50 * 1000000 };

	nanosleep(&ts, NULL);
	(void)arg;
	for (unsigned long i = 0; i < 100; i++)
		work(i);
	return NULL;
}

__attribute__((no_instrument_function)) static void bye(void)
{
	printf("atexit ran %lu\n", sink);
}

/* chroot into dir, or fill the descriptor table; 0, or non-zero (said). */
__attribute__((no_instrument_function)) static int edge(int argc, char **argv)
{
	/* pthread_exit unwinds with libgcc_s, loaded at its first use: load it
	 * while its file can still be opened. */
	if (argc > 1 && !dlopen("libgcc_s.so.1", RTLD_NOW))
		return 1;
	if (argc > 2 && !strcmp(argv[1], "chroot")) {
		if (mkdir(argv[2], 0755) < 0 && errno != EEXIST)
			return 1;
		if (chroot(argv[2]) < 0 || chdir("/") < 0) {
			printf("chroot: %s\n", strerror(errno));
			return 1;
		}
	} else if (argc > 1 && !strcmp(argv[1], "nofd")) {
		while (open("/dev/null", O_RDONLY) >= 0)
			;
		if (errno != EMFILE)
			return 1;
	}
	return 0;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	pthread_t t;

	if (edge(argc, argv))
		return 0;
	atexit(bye);
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, worker, (void *)i) != 0)
			return 1;
	pthread_exit(NULL);
}
