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
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ada_internal.h"

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
