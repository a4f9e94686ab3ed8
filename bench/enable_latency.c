/* enable_latency.c - how long after a user's "enable" a running process's
 * traced function records its first event (issue 14's budget: within
 * 100 ms).
 *
 *   enable_latency CYCLES ON_MS OFF_MS SYMBOLIZER TRACE_DIR ENABLE DISABLE
 *                  TARGET [ARG...]
 *
 * Starts TARGET (bench/enable_loop.c under env ADA_OUTPUT=TRACE_DIR
 * ADA_TRACE=off ..., as run.sh gives it), waits for its "ready" line, then
 * CYCLES times: waits OFF_MS plus k % 10 ms (cycle k: the enables fall at
 * every phase of the writer's 10 ms housekeeping), notes the time T0 and
 * runs ENABLE; waits ON_MS, notes the time and runs DISABLE. ENABLE and
 * DISABLE are commands split at spaces, "%p" standing for TARGET's pid
 * ("kill -USR1 %p" with ADA_TOGGLE_SIGNAL=SIGUSR1; "ada-ctl %p enable").
 * Then it ends TARGET's standard input (its signal to exit), runs
 * "SYMBOLIZER -q TRACE_DIR" and reads every thread's index.atf of TARGET's
 * pid with the tests' ATF reader.
 *
 * The latency of enable k is the timestamp of the first CALL at or after
 * T0 minus T0, counted only if that CALL came before the disable of the
 * same cycle (else the enable was not seen). Both are CLOCK_BOOTTIME
 * nanoseconds: the trace's timestamps are (runtime/RAW_FORMAT.md §4,
 * manifest clock_type), so T0 is read from that clock too. T0 is taken
 * before ENABLE is started: the command's own start is part of the
 * latency, as it is for a user. TARGET must make every CALL of the trace
 * one of a single function (enable_loop's el_hot); another function's
 * CALL is an error.
 *
 * Prints one line on stderr:
 *
 *   enable_latency enables N seen S p50_ns A p99_ns B max_ns C calls K
 *       disable_max_ns D
 *
 * (percentiles by nearest rank over the enables seen, - when none was; K
 * the CALLs in the trace; D the longest a disable took to stop them: its
 * last CALL before the next enable, less the time it was sent, 0 when none
 * came after it; a disable not taken shows as the whole off span). Exits 1
 * when TARGET, a command or the symbolizer fails, TARGET ends before the
 * last enable or the trace cannot be read, 2 on bad arguments.
 *
 * Built by run.sh: gcc -Itests enable_latency.c tests/lib/atf_read.c
 * tests/lib/proc.c
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/atf_read.h"
#include "lib/proc.h"

#define MAX_CYCLES 1000
#define MAX_WORDS 32
#define READY_MS 10000     /* how long TARGET may take to say "ready" */
#define COMMAND_MS 10000   /* and a command, or the symbolizer, to finish */

static uint64_t enable_ns[MAX_CYCLES], disable_ns[MAX_CYCLES];

static void die(const char *fmt, const char *what)
{
	fprintf(stderr, "enable_latency: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static long arg(const char *s, const char *what, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min || v > max) {
		fprintf(stderr, "enable_latency: %s '%s': expected an integer from %ld to %ld\n", what, s, min, max);
		exit(2);
	}
	return v;
}

/* Runs command template cmd with "%p" replaced by pid; dies unless it
 * exits 0. */
static void run_command(const char *cmd, pid_t pid)
{
	char buf[4096], pidtxt[16], *words[MAX_WORDS + 1], *save = NULL, *w;
	const char *argv[MAX_WORDS + 1];
	struct proc_result res;
	int n = 0;

	snprintf(pidtxt, sizeof(pidtxt), "%d", (int)pid);
	snprintf(buf, sizeof(buf), "%s", cmd);
	for (w = strtok_r(buf, " ", &save); w && n < MAX_WORDS; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	if (n == 0)
		die("command '%s': expected a command, \"%%p\" for the pid", cmd);
	for (int i = 0; i < n; i++)
		argv[i] = strcmp(words[i], "%p") ? words[i] : pidtxt;
	argv[n] = NULL;
	if (proc_run(argv, NULL, NULL, COMMAND_MS, &res) < 0 || proc_exit_code(&res) != 0) {
		fprintf(stderr, "%s", res.err ? res.err : "");
		die("'%s' failed", cmd);
	}
	proc_result_free(&res);
}

/* TARGET started with a pipe to its standard input (*to: ours) and one
 * from its standard output, read here until its "ready" line. */
static pid_t start_target(char **argv, int *to)
{
	int in[2], out[2];
	char line[64];
	size_t len = 0;
	pid_t pid;
	struct pollfd p;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execvp(argv[0], argv);
		fprintf(stderr, "enable_latency: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p.fd = out[0];
	p.events = POLLIN;
	while (len < sizeof(line) - 1 && !memchr(line, '\n', len)) {
		ssize_t got;

		if (poll(&p, 1, READY_MS) != 1 || (got = read(out[0], line + len, sizeof(line) - 1 - len)) <= 0)
			die("%s did not say \"ready\"", argv[0]);
		len += (size_t)got;
	}
	line[len] = '\0';
	if (strncmp(line, "ready\n", 6) != 0)
		die("%s did not say \"ready\"", argv[0]);
	close(out[0]);
	*to = in[1];
	return pid;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every CALL's timestamp in the index.atf files of pid's threads, sorted;
 * their count in *n. */
static uint64_t *read_calls(const char *dir, pid_t pid, size_t *n)
{
	char pattern[PATH_MAX], err[512];
	uint64_t *t = NULL, fid = 0;
	size_t cap = 0;
	glob_t g;

	*n = 0;
	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_%d/thread_*/index.atf", dir, (int)pid);
	if (glob(pattern, 0, NULL, &g) != 0)
		die("no %s", pattern);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct atfr_index f;

		if (atfr_read_index(g.gl_pathv[i], &f, err, sizeof(err)) != 0)
			die("%s", err);
		for (uint32_t k = 0; k < f.event_count; k++) {
			if (f.events[k].kind != ATFR_CALL)
				continue;
			if (fid && f.events[k].function_id != fid)
				die("%s: CALLs of two functions: expected enable_loop's el_hot only", g.gl_pathv[i]);
			fid = f.events[k].function_id;
			if (*n == cap && !(t = realloc(t, (cap = cap ? 2 * cap : 65536) * sizeof(*t))))
				die("%s", "out of memory");
			t[(*n)++] = f.events[k].timestamp_ns;
		}
		atfr_index_free(&f);
	}
	globfree(&g);
	qsort(t, *n, sizeof(*t), cmp_u64);
	return t;
}

/* The first of the n sorted times at or after t0 (n if none). */
static size_t first_at(const uint64_t *t, size_t n, uint64_t t0)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid] < t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Nearest rank: the smallest value with at least p percent at or below. */
static uint64_t rank(const uint64_t *v, long n, int p)
{
	long i = (n * p + 99) / 100;

	return v[i > 0 ? i - 1 : 0];
}

int main(int argc, char **argv)
{
	long cycles, on_ms, off_ms, seen = 0;
	uint64_t lat[MAX_CYCLES], *calls, disable_max = 0;
	const char *sym_argv[4];
	struct proc_result res;
	int to, status;
	size_t n;
	pid_t pid;

	if (argc < 9) {
		fprintf(stderr, "usage: enable_latency CYCLES ON_MS OFF_MS SYMBOLIZER TRACE_DIR ENABLE DISABLE TARGET [ARG...]\n");
		return 2;
	}
	cycles = arg(argv[1], "CYCLES", 1, MAX_CYCLES);
	on_ms = arg(argv[2], "ON_MS", 1, 10000);
	off_ms = arg(argv[3], "OFF_MS", 1, 10000);
	pid = start_target(argv + 8, &to);
	for (long k = 0; k < cycles; k++) {
		sleep_ms(off_ms + k % 10);
		/* Still running: a signal sent to a process that has exited (a
		 * zombie until waited for) would be taken, and count as unseen. */
		if (waitpid(pid, &status, WNOHANG) != 0)
			die("%s ended before the last enable", argv[8]);
		enable_ns[k] = boottime_ns();
		run_command(argv[6], pid);
		sleep_ms(on_ms);
		disable_ns[k] = boottime_ns();
		run_command(argv[7], pid);
	}
	close(to);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("%s did not exit 0", argv[8]);
	sym_argv[0] = argv[4];
	sym_argv[1] = "-q";
	sym_argv[2] = argv[5];
	sym_argv[3] = NULL;
	if (proc_run(sym_argv, NULL, NULL, 10 * COMMAND_MS, &res) < 0 || proc_exit_code(&res) != 0) {
		fprintf(stderr, "%s", res.err ? res.err : "");
		die("%s failed", argv[4]);
	}
	proc_result_free(&res);
	calls = read_calls(argv[5], pid, &n);
	for (long k = 0; k < cycles; k++) {
		size_t i = first_at(calls, n, enable_ns[k]), off = first_at(calls, n, disable_ns[k]);
		size_t end = k + 1 < cycles ? first_at(calls, n, enable_ns[k + 1]) : n;

		if (i < n && calls[i] < disable_ns[k])
			lat[seen++] = calls[i] - enable_ns[k];
		if (end > off && calls[end - 1] - disable_ns[k] > disable_max)
			disable_max = calls[end - 1] - disable_ns[k];
	}
	qsort(lat, (size_t)seen, sizeof(lat[0]), cmp_u64);
	if (seen)
		fprintf(stderr, "enable_latency enables %ld seen %ld p50_ns %" PRIu64 " p99_ns %" PRIu64 " max_ns %" PRIu64,
			cycles, seen, rank(lat, seen, 50), rank(lat, seen, 99), lat[seen - 1]);
	else
		fprintf(stderr, "enable_latency enables %ld seen 0 p50_ns - p99_ns - max_ns -", cycles);
	fprintf(stderr, " calls %zu disable_max_ns %" PRIu64 "\n", n, disable_max);
	free(calls);
	return 0;
}
