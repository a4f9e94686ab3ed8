/* stamps.c - the start-up and exit benchmark's program (bench/startexit.sh):
 * main reads CLOCK_MONOTONIC first thing and again just before it returns,
 * and writes both (two 8-byte nanosecond counts) to descriptor 3, which the
 * runner (startexit.c) gave it. Built plain and with adacc: whatever a
 * traced build does before main's first line (the runtime's start, the
 * thread's set-up at main's entry hook) falls before the first stamp, and
 * whatever it does after main returns (the return hook, the final flush,
 * the end of the writer) after the second. */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(void)
{
	uint64_t t[2];

	t[0] = now_ns();
	t[1] = now_ns();
	return write(3, t, sizeof(t)) != (ssize_t)sizeof(t);
}
