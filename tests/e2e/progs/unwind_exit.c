/* unwind_exit.c - pthread_exit from a deep frame of a C thread, with a
 * cleanup handler (pthread_cleanup_push) in the middle frame. main prints
 * what the cleanup saw and the value the thread exited with.
 */
#include <pthread.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;
static volatile int yes = 1;

NOINLINE void ce_cleanup(void *arg)
{
	printf("cleanup %s\n", (const char *)arg);
	sink++;
}

NOINLINE void ce_leaf(void)
{
	if (yes)
		pthread_exit((void *)7);
	sink++;
}

NOINLINE void ce_mid(void)
{
	pthread_cleanup_push(ce_cleanup, "ce_mid");
	ce_leaf();
	sink++;
	pthread_cleanup_pop(0);
}

NOINLINE void *ce_start(void *arg)
{
	ce_mid();
	sink++;
	return arg;
}

int main(void)
{
	pthread_t t;
	void *ret = NULL;

	pthread_create(&t, NULL, ce_start, NULL);
	pthread_join(t, &ret);
	printf("thread returned %ld\n", (long)ret);
	return 0;
}
