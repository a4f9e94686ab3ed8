/* ada_ctl.c - ada-ctl PID COMMAND: recording on or off, or other functions
 * patched, in a process built with adacc that is running now: no restart.
 *
 * It finds the process's trace directory in /proc/PID/maps, or in its
 * recorder's (whichever made the trace's files keeps a page of its
 * raw/process.meta mapped), leaves the command there and waits up to 2 s
 * for the reply, which the process's writer writes once the command is in
 * effect (runtime/control.h: the protocol).
 * Prints "PID: <what is in effect> (took N ms)". Exit status: 0 done; 1
 * the process could not do it, is not traced by ada, or is not there; 2
 * the command line is wrong. Every error is one line on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control.h"

#define REPLY_TIMEOUT_NS 2000000000ull
#define POLL_NS 1000000L

static const char usage[] = "usage: ada-ctl PID enable|disable|status|filter GLOBS|notrace GLOBS";

/* What --help adds to the usage line (the man page, packaging/ada-ctl.1.in,
 * says the same at length). */
static const char help[] =
	"Changes what a running program built with adacc records, without a restart.\n"
	"\n"
	"  enable           recording on for the whole process (as ada_enable())\n"
	"  disable          recording off (as ada_disable())\n"
	"  status           whether recording is on, and where the trace goes\n"
	"  filter GLOBS     patchable mode: trace only the functions matching these\n"
	"                   comma-separated shell globs (ADA_FILTER's list replaced)\n"
	"  notrace GLOBS    patchable mode: never trace these (ADA_NOTRACE's list)\n"
	"  -h, --help       this text\n"
	"  --version        ada's version\n"
	"\n"
	"The process's writer applies the command within 10 ms; ada-ctl waits up to\n"
	"2 s for its reply and prints \"PID: what is now in effect (took N ms)\".\n"
	"Exit status: 0 done; 1 no such process, not traced by ada, an error the\n"
	"process reports or no reply in 2 s; 2 a usage error.\n";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pause_poll(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

/* ---- the command line --------------------------------------------------------------- */

struct request {
	const char *pid;
	int cmd;
	const char *arg; /* NULL: the command takes none */
};

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ada-ctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* 0, or the exit status of a usage error (said). */
static int parse_args(int argc, char **argv, struct request *rq)
{
	if (argc < 3)
		return usage_error("%s", usage);
	rq->pid = argv[1];
	if (strspn(rq->pid, "0123456789") != strlen(rq->pid) || strlen(rq->pid) > 9 ||
	    atoi(rq->pid) <= 0)
		return usage_error("PID %s: expected a process id (a positive number)", rq->pid);
	rq->cmd = ada_ctl_cmd_find(argv[2], strlen(argv[2]));
	if (rq->cmd < 0)
		return usage_error("%s: unknown command (expected enable, disable, status, "
				   "filter GLOBS or notrace GLOBS)", argv[2]);
	rq->arg = argc > 3 ? argv[3] : NULL;
	if (ada_ctl_cmds[rq->cmd].arg && !rq->arg)
		return usage_error("%s: missing GLOBS (function-name globs, comma-separated; "
				   "\"\" for none)", argv[2]);
	if (!ada_ctl_cmds[rq->cmd].arg && rq->arg)
		return usage_error("%s: unexpected argument '%s'", argv[2], rq->arg);
	if (argc > 4)
		return usage_error("%s: unexpected argument '%s'", argv[2], argv[4]);
	if (rq->arg && (strchr(rq->arg, '\n') || strlen(rq->arg) > ADA_CTL_ARG_MAX))
		return usage_error("%s: GLOBS must be one line of at most %d bytes", argv[2],
				   ADA_CTL_ARG_MAX);
	return 0;
}

/* ---- the process's trace directory --------------------------------------------------- */

/* Whether a mapping in `maps` names a file whose path ends in `suffix`
 * (which ends in the finder): the path less the finder, into dir. */
static bool finder_in(FILE *maps, const char *suffix, char *dir, size_t len)
{
	size_t cap = 0, slen = strlen(suffix), flen = strlen(ADA_CTL_FINDER);
	char *line = NULL;
	bool found = false;

	while (!found && getline(&line, &cap, maps) > 0) {
		char *path = strchr(line, '/');
		size_t plen;

		if (!path)
			continue;
		plen = strcspn(path, "\n");
		/* A trace removed ("... (deleted)") takes no command. */
		if (plen > slen && !memcmp(path + plen - slen, suffix, slen) && plen - flen < len) {
			memcpy(dir, path, plen - flen);
			dir[plen - flen] = '\0';
			found = true;
		}
	}
	free(line);
	return found;
}

/* A recorder process (ada-recorder, runtime/recorder.c, or `ada record`,
 * launcher/) that maps the process's raw/process.meta: it made the
 * trace's files, not the program. */
static bool recorder_finder(const char *pid, char *dir, size_t len)
{
	char suffix[64], path[300], comm[32];
	struct dirent *e;
	bool found = false;
	DIR *d = opendir("/proc");
	FILE *f;

	snprintf(suffix, sizeof(suffix), "/pid_%s" ADA_CTL_FINDER, pid);
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		found = fgets(comm, sizeof(comm), f) &&
			(!strcmp(comm, "ada-recorder\n") || !strcmp(comm, "ada\n"));
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/maps", e->d_name);
		if (found && (f = fopen(path, "re"))) {
			found = finder_in(f, suffix, dir, len);
			fclose(f);
		} else {
			found = false;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* Whether the process maps libada (built with adacc): its recorder may not
 * have made the trace's files yet (a busy machine, a program just
 * started). */
static bool maps_libada(FILE *maps)
{
	size_t cap = 0;
	char *line = NULL;
	bool found = false;

	rewind(maps);
	while (!found && getline(&line, &cap, maps) > 0)
		found = strstr(line, "/libada.so") != NULL;
	free(line);
	return found;
}

#define FILES_WAIT_NS 2000000000ull

/* The directory whose raw/process.meta the process maps (made at start-up
 * where no recorder runs) or its recorder does, into dir; waited for a while in a process
 * with libada whose recorder has not made it yet. 0, or 1 with the reason
 * said. */
static int find_dir(const char *pid, char *dir, size_t len)
{
	char maps[64];
	bool found, ada;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%s/maps", pid);
	for (uint64_t waited = 0;; waited += POLL_NS) {
		const struct timespec pause = { 0, POLL_NS };

		f = fopen(maps, "re");
		if (!f) {
			if (errno == ENOENT)
				fprintf(stderr, "ada-ctl: %s: no such process\n", pid);
			else
				fprintf(stderr, "ada-ctl: %s: %s\n", maps, strerror(errno));
			return 1;
		}
		found = finder_in(f, ADA_CTL_FINDER, dir, len) || recorder_finder(pid, dir, len);
		ada = !found && maps_libada(f);
		fclose(f);
		if (found)
			return 0;
		if (!ada || waited >= FILES_WAIT_NS)
			break;
		nanosleep(&pause, NULL);
	}
	if (ada)
		fprintf(stderr, "ada-ctl: %s: built with adacc, but no trace is being made (ADA_DISABLE, "
			"or the trace could not be written: see its stderr)\n", pid);
	else
		fprintf(stderr, "ada-ctl: %s: not traced by ada (no ada trace in %s or a recorder's)\n",
			pid, maps);
	return 1;
}

/* ---- request and reply ---------------------------------------------------------------- */

static void file_name(char *buf, size_t len, const char *dir, const char *fmt, const char *id)
{
	int n = snprintf(buf, len, "%s/", dir);

	snprintf(buf + n, len - (size_t)n, fmt, id);
}

/* Writes the request whole, then links it to its name: a command another
 * ada-ctl left and the process has not taken yet stays, and this one
 * waits for its turn until the deadline. 0, or 1 with the reason said. */
static int send_request(const char *dir, const char *id, const struct request *rq,
			uint64_t deadline)
{
	char tmp[4200], path[4200], line[ADA_CTL_LINE_MAX];
	int len = snprintf(line, sizeof(line), "%s %s%s%s\n", id, ada_ctl_cmds[rq->cmd].word,
			   rq->arg ? " " : "", rq->arg ? rq->arg : "");
	int fd, err;

	file_name(tmp, sizeof(tmp), dir, ADA_CTL_REQUEST_TMP, id);
	snprintf(path, sizeof(path), "%s/" ADA_CTL_REQUEST, dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, (size_t)len) != len) {
		fprintf(stderr, "ada-ctl: %s: %s\n", tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return 1;
	}
	close(fd);
	while ((err = link(tmp, path) < 0 ? errno : 0) == EEXIST && now_ns() < deadline)
		pause_poll();
	unlink(tmp);
	if (err == EEXIST)
		fprintf(stderr, "ada-ctl: %s: another command waits there: the process took none "
			"in 2 s\n", path);
	else if (err)
		fprintf(stderr, "ada-ctl: %s: %s\n", path, strerror(err));
	return err ? 1 : 0;
}

/* The request, if the process has not taken it: removed, so that it is not
 * applied after ada-ctl said it failed. */
static void withdraw(const char *dir, const char *id)
{
	char path[4200], line[ADA_CTL_ID_MAX + 2] = "";
	size_t idlen = strlen(id);
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/" ADA_CTL_REQUEST, dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, line, idlen + 1);
		close(fd);
	}
	if (n == (ssize_t)idlen + 1 && !memcmp(line, id, idlen) && line[idlen] == ' ')
		unlink(path);
}

/* Waits for the reply until the deadline; its line into buf. 0, or 1 with
 * the reason said. */
static int wait_reply(const char *dir, const char *id, const char *pid, uint64_t deadline,
		      char *buf, size_t len)
{
	char path[4200];
	ssize_t n = -1;
	int fd;

	file_name(path, sizeof(path), dir, ADA_CTL_REPLY, id);
	while ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 && now_ns() < deadline)
		pause_poll();
	if (fd < 0) {
		withdraw(dir, id);
		fprintf(stderr, "ada-ctl: %s: no reply in 2 s (is the process stopped, or "
			"ending?)\n", pid);
		return 1;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	unlink(path);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int main(int argc, char **argv)
{
	struct request rq = { NULL, -1, NULL };
	char dir[4096], id[ADA_CTL_ID_MAX + 1], path[4200], reply[ADA_CTL_LINE_MAX];
	uint64_t start, deadline;
	int status;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("%s\n%s", usage, help);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		puts("ada-ctl (ada) " ADA_VERSION);
		return 0;
	}
	status = parse_args(argc, argv, &rq);
	if (status || (status = find_dir(rq.pid, dir, sizeof(dir))))
		return status;
	snprintf(id, sizeof(id), "%d", (int)getpid());
	file_name(path, sizeof(path), dir, ADA_CTL_REPLY, id);
	unlink(path); /* an earlier ada-ctl's of the same pid, given up on */
	start = now_ns();
	deadline = start + REPLY_TIMEOUT_NS;
	if (send_request(dir, id, &rq, deadline) ||
	    wait_reply(dir, id, rq.pid, deadline, reply, sizeof(reply)))
		return 1;
	if (!strncmp(reply, "ok ", 3)) {
		printf("%s: %s%s%s (took %.1f ms)\n", rq.pid, reply + 3,
		       rq.cmd == ADA_CTL_STATUS ? ", trace in " : "",
		       rq.cmd == ADA_CTL_STATUS ? dir : "", (double)(now_ns() - start) / 1e6);
		return 0;
	}
	fprintf(stderr, "ada-ctl: %s: %s\n", rq.pid,
		!strncmp(reply, "error ", 6) ? reply + 6 : "a reply ada-ctl does not understand");
	return 1;
}
