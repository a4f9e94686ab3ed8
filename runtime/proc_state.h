/* proc_state.h - a process's state letter from /proc/<pid>/stat, for the
 * runtime's recorder and ada-symbolize alike: whether a process runs, or
 * has ended (a zombie, or gone). No stdio: the runtime calls it. */
#ifndef ADA_PROC_STATE_H
#define ADA_PROC_STATE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* /proc/<pid>/<what>'s first len - 1 bytes into buf, NUL-terminated ("" if
 * it cannot be read). */
static inline void ada_proc_read(long pid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
}

/* The state letter (R, S, Z, ...), or 0 if the process is gone or its stat
 * cannot be read. */
static inline char ada_proc_state(long pid)
{
	char buf[512];
	const char *paren;

	ada_proc_read(pid, "stat", buf, sizeof(buf));
	/* pid (comm) state ...: comm may hold anything but the last ')' */
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

/* Whether the process has ended: gone, a zombie or dead. */
static inline bool ada_proc_ended(long pid)
{
	char s = ada_proc_state(pid);

	return !s || s == 'Z' || s == 'X';
}

#endif
