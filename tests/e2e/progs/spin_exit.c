/* spin_exit.c - the process ends while 8 threads call a traced function
 * as fast as they can: exit() from main, or (argument "exec") an exec of
 * /bin/true. The final flush must take a cut of every ring and end,
 * whatever the spinning threads do. Prints "bye" before exit(0). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(void)
{
	sink++;
}

/* Calls each thread made: the end waits until every thread has filled its
 * ring at least once (a busy machine may not run one for a while). */
static volatile unsigned long calls[8];

__attribute__((noinline)) void *spin(void *arg)
{
	long i = (long)arg;

	for (;;) {
		work();
		calls[i]++;
	}
	return NULL;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	pthread_t t;

	for (long i = 0; i < 8; i++)
		if (pthread_create(&t, NULL, spin, (void *)i) != 0)
			return 1;
	usleep(100000);
	for (int i = 0; i < 8; i++)
		while (calls[i] < 4096)
			usleep(1000);
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		execl("/bin/true", "true", (char *)NULL);
		return 2;
	}
	printf("bye\n");
	fflush(stdout);
	exit(0);
}
