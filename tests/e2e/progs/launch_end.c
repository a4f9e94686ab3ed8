/* launch_end.c - how a program launched by `ada record` ends: it writes a
 * line to stdout and one to stderr, calls work() ten times, then by its argument
 * exits 3, dies of SIGSEGV, or waits for a signal (its name in a file
 * "ready" once it waits): SIGTERM's handler says so and exits 5, SIGINT
 * kills it. With "fork" it forks while a thread newer than main is alive
 * (blocked), after the recorder drained both: the child calls work() once
 * and exits, the parent waits for it, lets the thread end and exits. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "work_calls.h"

static volatile sig_atomic_t got;
static int gate[2];

/* Registered (its first call), then blocked until the parent lets it go:
 * the registry's newest thread when main forks. */
static void *blocked(void *arg)
{
	char c;

	(void)arg;
	work(100);
	while (read(gate[0], &c, 1) < 0)
		;
	return NULL;
}

/* The child's recorder must not follow the state of the parent's recorder
 * (its windows) that main's state held: the child's registry, the other
 * threads' states zero there, may end before main's. */
__attribute__((no_instrument_function)) static int fork_beside_a_thread(void)
{
	struct timespec drained = { 0, 200 * 1000000 };
	pthread_t t;
	pid_t p;

	if (pipe(gate) < 0 || pthread_create(&t, NULL, blocked, NULL) != 0)
		return 1;
	nanosleep(&drained, NULL);
	p = fork();
	if (p == 0) {
		work(3);
		return 0;
	}
	waitpid(p, NULL, 0);
	if (write(gate[1], "x", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	return 0;
}

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
	if (!strcmp(what, "fork"))
		return fork_beside_a_thread();
	if (!strcmp(what, "wait")) {
		FILE *f;

		signal(SIGTERM, on_term);
		/* SIGHUP's default (death) whatever it inherited: under nohup, or
		 * a make run by one, it comes ignored, and the forwarded SIGHUP
		 * would leave it waiting (as it should: nohup's meaning). */
		signal(SIGHUP, SIG_DFL);
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
