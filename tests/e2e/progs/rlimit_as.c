/* rlimit_as.c - a tight address-space limit, then a thread that allocates.
 *
 * main sets RLIMIT_AS to what the process maps now plus 48 MiB, then starts
 * a thread (its 8 MiB stack) that allocates four blocks of 8 MiB, touches
 * them and counts how many it got. The plain program gets 4 of 4.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define BARRIER() __asm__ volatile("" ::: "memory")
#define MIB (1024L * 1024)

static __attribute__((noinline)) int work(int x)
{
	BARRIER();
	return x + 1;
}

static long mapped_bytes(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmSize:", 7))
			kb = atol(line + 7);
	if (f)
		fclose(f);
	return kb * 1024;
}

static void *allocate(void *arg)
{
	long got = 0;

	for (int i = 0; i < 4; i++) {
		char *p = malloc(8 * MIB);

		work(i);
		if (p) {
			memset(p, 1, 8 * MIB);
			got++;
		}
	}
	return (void *)got;
}

int main(void)
{
	struct rlimit rl;
	pthread_t t;
	void *got;
	long now = mapped_bytes();

	if (now < 0)
		return 2;
	rl.rlim_cur = rl.rlim_max = (rlim_t)(now + 48 * MIB);
	if (setrlimit(RLIMIT_AS, &rl) < 0)
		return 3;
	if (pthread_create(&t, NULL, allocate, NULL) != 0) {
		printf("no thread\n");
		return 0;
	}
	pthread_join(t, &got);
	printf("%ld of 4 allocations\n", (long)got);
	return 0;
}
