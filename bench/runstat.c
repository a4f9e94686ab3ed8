/* runstat.c - run one command and report what it cost.
 *
 *   runstat [-n COUNT] RESULT_FILE COMMAND [ARG...]
 *
 * Runs COMMAND with the standard streams it was given, waits for it, and
 * writes one line to RESULT_FILE:
 *
 *   wall_ns <ns> user_us <us> sys_us <us> status <exit status> maxrss_kb <KiB>
 *
 * The CPU times are the getrusage(RUSAGE_CHILDREN) difference across the
 * run: the command and every descendant, every thread of each (a tracer's
 * recorder processes included), to the microsecond. A
 * descendant its parent did not wait for (ada's recorder, which the
 * program must not see as a child) comes to runstat, a child subreaper,
 * which waits for it before the figures are read — finer than the 10 ms of time(1)'s output. maxrss_kb is the
 * peak resident set of the largest of those processes (ru_maxrss, as
 * time(1)'s %M), not their sum. Exits with the command's status (128 +
 * signal number if it was killed).
 *
 * With -n COUNT the command runs COUNT times, one after the other (for a
 * command too short to time once, such as a process start-up); the line
 * then gives the median run's wall time, the CPU times per run (the total
 * divided by COUNT), and after them the fastest and slowest run:
 *
 *   wall_ns <median ns> user_us <us> sys_us <us> status 0 maxrss_kb <KiB>
 *   runs <COUNT> wall_min_ns <ns> wall_max_ns <ns>
 *
 * all on one line. The first run that fails stops the series; its status is
 * the one reported and returned.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long tv_us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000LL + tv->tv_usec;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Runs argv once; its exit code (128 + signal), 127 if it could not run. */
static int run(char **argv, long long *wall_end)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("runstat: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "runstat: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("runstat: waitpid");
			return 127;
		}
	/* Orphans that outlive the command (a recorder finishing its trace):
	 * their CPU is the run's. The wall time stops at the command's end. */
	*wall_end = mono_ns();
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct rusage r0, r1;
	long long *wall, med;
	long count = 1, i;
	int code = 0, a = 1;
	FILE *out;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		char *end;

		count = strtol(argv[2], &end, 10);
		if (*end || count < 1) {
			fprintf(stderr, "runstat: -n %s: expected a positive count\n", argv[2]);
			return 2;
		}
		a = 3;
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: runstat [-n COUNT] RESULT_FILE COMMAND [ARG...]\n");
		return 2;
	}
	wall = calloc((size_t)count, sizeof(*wall));
	if (!wall) {
		perror("runstat");
		return 127;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	getrusage(RUSAGE_CHILDREN, &r0);
	for (i = 0; i < count && code == 0; i++) {
		long long t0 = mono_ns();

		long long t1 = t0; /* run() sets it when the command ran */

		code = run(argv + a + 1, &t1);
		wall[i] = t1 - t0;
	}
	getrusage(RUSAGE_CHILDREN, &r1);
	count = i; /* the runs that happened */
	qsort(wall, (size_t)count, sizeof(*wall), cmp_ll);
	med = count % 2 ? wall[count / 2] : (wall[count / 2 - 1] + wall[count / 2]) / 2;

	out = fopen(argv[a], "w");
	if (!out) {
		fprintf(stderr, "runstat: %s: %s\n", argv[a], strerror(errno));
		return 127;
	}
	fprintf(out, "wall_ns %lld user_us %lld sys_us %lld status %d maxrss_kb %ld", med,
		(tv_us(&r1.ru_utime) - tv_us(&r0.ru_utime)) / count,
		(tv_us(&r1.ru_stime) - tv_us(&r0.ru_stime)) / count, code, r1.ru_maxrss);
	if (a == 3)
		fprintf(out, " runs %ld wall_min_ns %lld wall_max_ns %lld", count, wall[0], wall[count - 1]);
	fprintf(out, "\n");
	if (fclose(out))
		return 127;
	return code;
}
