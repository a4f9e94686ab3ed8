/* runstat.c - run one command and report what it cost.
 *
 *   runstat RESULT_FILE COMMAND [ARG...]
 *
 * Runs COMMAND with the standard streams it was given, waits for it, and
 * writes one line to RESULT_FILE:
 *
 *   wall_ns <ns> user_us <us> sys_us <us> status <exit status>
 *
 * The CPU times are the getrusage(RUSAGE_CHILDREN) difference across the
 * run: the command and every descendant it waited for, every thread of each
 * (a tracer's writer threads and recorder processes included), to the
 * microsecond — finer than the 10 ms of time(1)'s output. Exits with the
 * command's status (128 + signal number if it was killed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	struct rusage r0, r1;
	long long t0, t1;
	int status, code;
	FILE *out;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: runstat RESULT_FILE COMMAND [ARG...]\n");
		return 2;
	}
	getrusage(RUSAGE_CHILDREN, &r0);
	t0 = mono_ns();
	pid = fork();
	if (pid < 0) {
		perror("runstat: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "runstat: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("runstat: waitpid");
			return 127;
		}
	t1 = mono_ns();
	getrusage(RUSAGE_CHILDREN, &r1);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "runstat: %s: %s\n", argv[1], strerror(errno));
		return 127;
	}
	fprintf(out, "wall_ns %lld user_us %lld sys_us %lld status %d\n", t1 - t0,
		tv_us(&r1.ru_utime) - tv_us(&r0.ru_utime), tv_us(&r1.ru_stime) - tv_us(&r0.ru_stime),
		code);
	if (fclose(out))
		return 127;
	return code;
}
