/* job_session.c - the programs one command line started share a session.
 *
 * A shell job (a process group: what one command line typed at an
 * interactive shell starts, a test runner and its tests, a script run from
 * it) is what a user calls "a run": ctest starts each test as a process of
 * its own, under a runner that is not traced, in whatever second it comes
 * to it. The first traced process of a job leaves a marker in the output
 * directory naming its session,
 *
 *   <output>/.ada-jobs/<boot id>-<pgid>-<group leader's start time in ticks>
 *       -> session_<time>          (a relative symbolic link)
 *
 * and every later one of the same job joins that session. The group leader's
 * pid and start time name the job exactly for as long as the leader lives
 * (a pid is reused only by another process, which starts later), and the
 * boot id keeps a job of an earlier boot from matching. A group whose leader
 * is gone gives no job: the process starts a session of its own, as before.
 * The symlink is made atomically, so two tests that start at once (ctest
 * -j) agree on one session. Markers are a few bytes each, one per job that
 * traced into the directory; removing the output directory removes them.
 *
 * ada_session_choose is the whole choice (the job's session, else a traced
 * ancestor's, else a new one): a traced process's start-up makes it, and
 * `ada record` makes it for the program it starts, while that one execs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ada_internal.h"
#include "control.h" /* ADA_CTL_FINDER: the page of process.meta kept mapped */

/* The start time, in clock ticks after boot, of process pid (field 22 of
 * /proc/<pid>/stat); false if it is gone. */
static bool start_ticks(pid_t pid, unsigned long long *ticks)
{
	char path[64], line[1024], *paren;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	/* pid (comm) state ppid pgrp ...: comm may hold spaces, not ')'s after it */
	ok = fgets(line, sizeof(line), f) && (paren = strrchr(line, ')')) &&
	     sscanf(paren + 1,
		    " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		    ticks) == 1;
	fclose(f);
	return ok;
}

static bool boot_id(char *id, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	bool ok = f && fgets(id, (int)len, f);

	if (f)
		fclose(f);
	if (ok)
		id[strcspn(id, "\n")] = '\0';
	return ok && id[0];
}

/* The job's marker's path into marker; false if there is no job to name. */
static bool marker_path(const char *out, char *marker, size_t len)
{
	pid_t group = getpgrp();
	unsigned long long ticks;
	char id[64];

	if (!start_ticks(group, &ticks) || !boot_id(id, sizeof(id)))
		return false;
	return snprintf(marker, len, "%s/.ada-jobs/%s-%d-%llu", out, id, (int)group, ticks) < (int)len;
}

/* The session the marker names, into dst. */
static bool marked_session(const char *out, const char *marker, char *dst, size_t len)
{
	char target[256];
	ssize_t n = readlink(marker, target, sizeof(target) - 1);

	if (n <= 0 || n == (ssize_t)sizeof(target) - 1)
		return false;
	target[n] = '\0';
	/* Only a session of this directory, whatever else the link holds. */
	if (strncmp(target, "session_", 8) || strchr(target, '/'))
		return false;
	return snprintf(dst, len, "%s/%s", out, target) < (int)len;
}

bool ada_job_session(const char *out, const char *mine, char *dst, size_t len)
{
	char marker[4500], dir[4400];

	if (!marker_path(out, marker, sizeof(marker)))
		return false;
	if (!mine) /* only look */
		return marked_session(out, marker, dst, len);
	snprintf(dir, sizeof(dir), "%s/.ada-jobs", out);
	if (ada_mkdirs(dir) < 0)
		return false;
	if (symlink(mine, marker) == 0 || errno != EEXIST)
		return false; /* the job's first: its own session, now marked */
	return marked_session(out, marker, dst, len);
}

static bool pid_dir_exists(const char *session, pid_t pid)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/pid_%d", session, (int)pid);
	return access(path, F_OK) == 0;
}

/* The session of the nearest traced ancestor (parent, and levels - 1 above
 * it) writing into the same output directory (a program started by a
 * traced one, through posix_spawn, system's shell or a make): its
 * process.meta stays mapped (control.c), so /proc/<ancestor>/maps names its
 * session. A program and the programs it starts are one session, whatever
 * second each started in. */
static bool ancestor_session(const char *out, pid_t p, int levels, char *dst, size_t len)
{
	char want[PATH_MAX], line[PATH_MAX + 128], path[64], have[PATH_MAX];

	if (!realpath(out, want))
		return false; /* no output directory yet: nobody traced into it */
	for (int up = 0; up < levels && p > 1; up++) {
		char suffix[48];
		FILE *f;
		int ppid = 0;

		snprintf(path, sizeof(path), "/proc/%d/maps", (int)p);
		snprintf(suffix, sizeof(suffix), "/pid_%d" ADA_CTL_FINDER "\n", (int)p);
		if ((f = fopen(path, "re"))) {
			bool found = false;

			while (!found && fgets(line, sizeof(line), f)) {
				char *session = strchr(line, '/'), *slash;
				size_t n = session ? strlen(session) : 0, k = strlen(suffix);

				if (n <= k || strcmp(session + n - k, suffix))
					continue;
				session[n - k] = '\0';
				if (!(slash = strrchr(session, '/')))
					continue;
				*slash = '\0'; /* its output directory, to compare */
				found = realpath(session, have) && !strcmp(have, want);
				*slash = '/';
				if (found)
					snprintf(dst, len, "%s", session);
			}
			fclose(f);
			if (found)
				return true;
		}
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
		if (!(f = fopen(path, "re")))
			break;
		/* pid (comm) state ppid: comm may hold spaces, not ')'s after it */
		if (fgets(line, sizeof(line), f) && strrchr(line, ')'))
			sscanf(strrchr(line, ')') + 1, " %*c %d", &ppid);
		fclose(f);
		p = ppid;
	}
	return false;
}

void ada_session_choose(const char *cwd, const char *out, pid_t pid, pid_t parent, int levels,
			char *dir, size_t len)
{
	char stamp[32], joined[PATH_MAX], mine[48];
	char abs[PATH_MAX + 4352];
	time_t now = time(NULL);
	struct tm tm;
	bool in_job;

	snprintf(abs, sizeof(abs), "%s%s%s", cwd, *cwd ? "/" : "", out);
	/* The job's session if one is marked: one readlink, where the
	 * ancestors' maps are a read of each: the common case, which needs no
	 * name of its own (no time zone read). */
	in_job = ada_job_session(abs, NULL, joined, sizeof(joined));
	if (in_job) {
		snprintf(dir, len, "%s", joined);
		if (!pid_dir_exists(dir, pid))
			return;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
	snprintf(dir, len, "%s/session_%s", abs, stamp);
	snprintf(mine, sizeof(mine), "session_%s", stamp);
	/* Else a traced ancestor's, else this one's, marked as the job's. */
	if (!in_job && (ancestor_session(abs, parent, levels, joined, sizeof(joined)) ||
			ada_job_session(abs, mine, joined, sizeof(joined)))) {
		snprintf(dir, len, "%s", joined);
		if (!pid_dir_exists(dir, pid))
			return;
		/* This pid traced there already (a forked child that execs): a
		 * session of its own, as below. */
		snprintf(dir, len, "%s/session_%s", abs, stamp);
	}
	/* A program that execs itself keeps its pid: within the same second it
	 * would find its own pid_<pid> and overwrite the trace of the image
	 * before the exec. Such an image starts a session of its own. */
	for (unsigned n = 1; n < 1000 && pid_dir_exists(dir, pid); n++)
		snprintf(dir, len, "%s/session_%s_%u", abs, stamp, n);
}
