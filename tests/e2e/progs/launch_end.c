/* launch_end.c - how a program launched by `ada record` ends: it writes a
 * line to stdout and one to stderr, calls work() ten times, then by its argument
 * exits 3, dies of SIGSEGV, or waits for a signal (its name in a file
 * "ready" once it waits): SIGTERM's handler says so and exits 5, SIGINT
 * kills it. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "work_calls.h"

static volatile sig_atomic_t got;

static void on_term(int sig)
{
	got = sig;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	printf("out line\n");
	fflush(stdout);
	fprintf(stderr, "err line\n");
	for (unsigned long i = 0; i < 10; i++)
		work(i);
	if (!strcmp(what, "3"))
		exit(3);
	if (!strcmp(what, "segv"))
		*(volatile int *)(sink + 55) = 1; /* 100: unmapped */
	if (!strcmp(what, "wait")) {
		FILE *f;

		signal(SIGTERM, on_term);
		f = fopen("ready", "w");
		if (f)
			fclose(f);
		while (!got)
			pause();
		printf("got signal %d\n", (int)got);
		exit(5);
	}
	return 0;
}
