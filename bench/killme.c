/* killme.c - the program of run.sh's recovery check: threads that call
 * instrumented functions until the process is killed, each counting its
 * calls where a SIGKILL cannot erase them.
 *
 *   killme COUNTS_FILE [THREADS] [MAX_SECONDS]
 *
 * COUNTS_FILE is created (or truncated) and mapped MAP_SHARED: whatever a
 * thread stores there is in the page cache, and survives the process. Thread
 * i (0 <= i < THREADS, default 4, at most 16) calls km_call_<i> in a loop and
 * after each call returns stores its count of completed calls, a u64, at
 * offset 64 * i (one cache line each). Each thread has a function of its own
 * so that the trace's calls of km_call_<i> are thread i's, whatever thread
 * ordinals the tracer gives.
 *
 * The order of the two records per call: the tracer records the CALL when
 * km_call_<i> is entered, before the function returns; the count is stored
 * (release) after it returned. So when the process is killed, thread i's
 * CALLs of km_call_<i> in a complete trace are its count, or its count + 1
 * if the kill fell between the CALL and the store.
 *
 * The process runs until it is killed; after MAX_SECONDS (default 30) it
 * gives up, prints "killme: not killed" and exits 3, so that a failed kill
 * never leaves it running.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_THREADS 16
#define STRIDE 8 /* u64s per counter: one 64-byte line */

static volatile uint64_t *counts;

/* noipa: gcc must neither inline them nor learn that they do not touch
 * counts (which would let it move the store before the call). */
#define KM_CALL(i)                                                      \
	__attribute__((noipa)) long km_call_##i(long x)                 \
	{                                                               \
		__asm__ volatile("" ::: "memory");                      \
		return x + i + 1;                                       \
	}
KM_CALL(0) KM_CALL(1) KM_CALL(2) KM_CALL(3) KM_CALL(4) KM_CALL(5) KM_CALL(6) KM_CALL(7)
KM_CALL(8) KM_CALL(9) KM_CALL(10) KM_CALL(11) KM_CALL(12) KM_CALL(13) KM_CALL(14) KM_CALL(15)

static long (*const calls[MAX_THREADS])(long) = {
	km_call_0, km_call_1, km_call_2,  km_call_3,  km_call_4,  km_call_5,  km_call_6,  km_call_7,
	km_call_8, km_call_9, km_call_10, km_call_11, km_call_12, km_call_13, km_call_14, km_call_15,
};

static void *worker(void *arg)
{
	long i = (long)arg, s = 0;
	long (*f)(long) = calls[i];
	uint64_t n = 0;

	for (;;) {
		s = f(s);
		__atomic_store_n(&counts[STRIDE * i], ++n, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = argc > 2 ? atol(argv[2]) : 4;
	long max_s = argc > 3 ? atol(argv[3]) : 30;
	size_t size;
	pthread_t t;
	int fd;

	if (argc < 2 || threads < 1 || threads > MAX_THREADS || max_s < 1) {
		fprintf(stderr, "usage: killme COUNTS_FILE [THREADS (1..%d)] [MAX_SECONDS]\n", MAX_THREADS);
		return 2;
	}
	size = (size_t)threads * STRIDE * sizeof(uint64_t);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		perror(argv[1]);
		return 2;
	}
	counts = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (counts == MAP_FAILED) {
		perror("killme: mmap");
		return 2;
	}
	close(fd);
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t, NULL, worker, (void *)i) != 0) {
			fprintf(stderr, "killme: pthread_create failed\n");
			return 2;
		}
	sleep((unsigned)max_s);
	fprintf(stderr, "killme: not killed\n");
	_exit(3);
}
