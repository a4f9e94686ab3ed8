/* small_stack.c - threads on the smallest stack POSIX allows.
 *
 * Each thread is created with a PTHREAD_STACK_MIN stack (16 KiB here) and
 * makes its first traced call there: whatever the runtime does to set a
 * thread up must fit beside the program's own frames. Prints the sum the
 * threads computed. Usage: small_stack [THREADS] [CALLS]
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#define BARRIER() __asm__ volatile("" ::: "memory")

static __attribute__((noinline)) long leaf(long x)
{
	BARRIER();
	return x * 3 + 1;
}

static __attribute__((noinline)) long middle(long x)
{
	long r = leaf(x) + leaf(x + 1);

	BARRIER();
	return r;
}

static long calls = 100;

static void *worker(void *arg)
{
	long sum = 0, base = (long)(intptr_t)arg;

	for (long i = 0; i < calls; i++)
		sum += middle(base + i);
	return (void *)(intptr_t)sum;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	long total = 0;
	pthread_attr_t a;

	if (argc > 2)
		calls = atol(argv[2]);
	pthread_attr_init(&a);
	if (pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN) != 0)
		return 2;
	for (int t = 0; t < threads; t++) {
		pthread_t th;
		void *r;

		if (pthread_create(&th, &a, worker, (void *)(intptr_t)(t * 1000)) != 0)
			return 3;
		pthread_join(th, &r);
		total += (long)(intptr_t)r;
	}
	printf("%d threads on %zu-byte stacks: sum %ld\n", threads, (size_t)PTHREAD_STACK_MIN, total);
	return 0;
}
