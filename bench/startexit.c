/* startexit.c - the start-up and exit benchmark's runner (startexit.sh):
 * starts each program REPS times, one process after another, and prints,
 * per program, the median start-up (from just before fork to main's first
 * stamp), exit (from main's last stamp to waitpid's return) and whole
 * process, in nanoseconds.
 *
 *   startexit REPS PROG...
 *
 * The programs are bench/stamps.c builds; they run in turn (REPS of the
 * first, then of the second...), each with its stamps on descriptor 3.
 * It is its children's subreaper (PR_SET_CHILD_SUBREAPER), so that a
 * traced program's recorder, which belongs to no process of the program,
 * becomes its child: after each process it waits for the recorder too,
 * and the next process starts on a machine where no recorder of an earlier
 * one still runs (the program's exit does not wait for the recorder's
 * final flush). That wait is the fourth figure, *tail*: from waitpid's
 * return to the recorder's end (0 without one).
 *
 * A PROG written NAME:CMD,ARG,... runs CMD with those arguments and is
 * named NAME (ada-record:ada,record,./ada-fentry: the program under `ada
 * record`, whose start and wait for the trace count as the program's).
 *
 * Prints one line a program: "PROG start_ns exit_ns total_ns tail_ns". */
#include <sys/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* PROG's command line into argv (at most 15 words): itself, or the
 * words after NAME: split at commas (buf holds them). */
static void command(const char *prog, char *buf, size_t len, char **argv)
{
	const char *colon = strchr(prog, ':');
	int n = 0;

	snprintf(buf, len, "%s", colon ? colon + 1 : prog);
	for (char *w = strtok(buf, colon ? "," : ""); w && n < 15; w = strtok(NULL, ","))
		argv[n++] = w;
	argv[n] = NULL;
}

/* One process of prog: its start-up, exit and whole time, and its
 * recorder's tail; -1 if it failed. */
static int one(const char *prog, uint64_t out[4])
{
	char buf[4096], *argv[16];
	uint64_t stamp[2], t0, t3;
	int fd[2], status;
	pid_t pid;

	if (pipe(fd) < 0)
		return -1;
	t0 = now_ns();
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		if (dup2(fd[1], 3) < 0)
			_exit(126);
		if (fd[1] != 3)
			close(fd[1]);
		command(prog, buf, sizeof(buf), argv);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		close(fd[0]);
		return -1;
	}
	t3 = now_ns();
	if (read(fd[0], stamp, sizeof(stamp)) != (ssize_t)sizeof(stamp) || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		close(fd[0]);
		return -1;
	}
	close(fd[0]);
	/* Its recorder, ours since the middle process that forked it ended. */
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	out[0] = stamp[0] - t0;
	out[1] = t3 - stamp[1];
	out[2] = t3 - t0;
	out[3] = now_ns() - t3;
	return 0;
}

int main(int argc, char **argv)
{
	int reps = argc > 2 ? atoi(argv[1]) : 0;

	if (reps < 1) {
		fprintf(stderr, "usage: startexit REPS PROG...\n");
		return 2;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (int p = 2; p < argc; p++) {
		uint64_t *v = calloc(4 * (size_t)reps, sizeof(*v)), t[4];

		if (!v)
			return 1;
		for (int i = 0; i < reps; i++) {
			if (one(argv[p], t) < 0) {
				fprintf(stderr, "startexit: %s failed\n", argv[p]);
				return 1;
			}
			v[i] = t[0];
			v[reps + i] = t[1];
			v[2 * reps + i] = t[2];
			v[3 * reps + i] = t[3];
		}
		printf("%.*s %llu %llu %llu %llu\n", (int)strcspn(argv[p], ":"), argv[p],
		       (unsigned long long)median(v, reps),
		       (unsigned long long)median(v + reps, reps), (unsigned long long)median(v + 2 * reps, reps),
		       (unsigned long long)median(v + 3 * reps, reps));
		free(v);
	}
	return 0;
}
