/* hijack_abort.c - abort() three traced frames deep.
 *
 * main() -> run() -> step() -> boom(): boom() calls tick() 100 times, then
 * (in the traced run, whose argv[1] is "wait") waits until the writer has
 * put everything on disk: the thread file exists and has not grown for
 * 500 ms, a bounded wait of 20 s at most. Then it calls abort(). The frames
 * still open are those of main, run, step and boom, whose returns are
 * hijacked and never come.
 *
 * Killed by SIGABRT, traced or not.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static int traced;

__attribute__((noinline)) void tick(unsigned long i)
{
	sink += i;
}

__attribute__((no_instrument_function)) static void wait_on_disk(void)
{
	const char *out = getenv("ADA_OUTPUT");
	char pattern[4200];
	long last = -1, stable = 0;

	if (!out || !traced)
		return;
	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_%d/raw/thread_0.lz4", out,
		 (int)getpid());
	for (int i = 0; i < 2000 && stable < 50; i++) {
		struct timespec ts = { 0, 10 * 1000000 };
		struct stat st;
		long size = -1;
		glob_t g;

		if (glob(pattern, 0, NULL, &g) == 0) {
			if (stat(g.gl_pathv[0], &st) == 0)
				size = (long)st.st_size;
			globfree(&g);
		}
		stable = size > 0 && size == last ? stable + 1 : 0;
		last = size;
		nanosleep(&ts, NULL);
	}
}

__attribute__((noinline)) void boom(void)
{
	for (unsigned long i = 0; i < 100; i++)
		tick(i);
	printf("boom: %lu\n", sink);
	fflush(stdout);
	wait_on_disk();
	abort();
}

__attribute__((noinline)) void step(void)
{
	boom();
	printf("step: not reached\n");
}

__attribute__((noinline)) void run(void)
{
	step();
	printf("run: not reached\n");
}

int main(int argc, char **argv)
{
	traced = argc > 1 && strcmp(argv[1], "wait") == 0;
	run();
	return 0;
}
