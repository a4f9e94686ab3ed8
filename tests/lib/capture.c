/* capture.c - stderr (or stdout) capture for the tests (capture.h). */
#include <stdio.h>
#include <unistd.h>

#include "capture.h"

static FILE *cap;
static int fd_taken = STDERR_FILENO, saved_fd = -1;
static char captured[8192];

void capture_fd_begin(int fd)
{
	fflush(stdout);
	fflush(stderr);
	cap = tmpfile();
	fd_taken = fd;
	saved_fd = dup(fd);
	if (cap && saved_fd >= 0)
		dup2(fileno(cap), fd);
}

void capture_begin(void)
{
	capture_fd_begin(STDERR_FILENO);
}

const char *capture_end(void)
{
	size_t n = 0;

	fflush(stdout);
	fflush(stderr);
	if (saved_fd >= 0) {
		dup2(saved_fd, fd_taken);
		close(saved_fd);
		saved_fd = -1;
	}
	if (cap) {
		rewind(cap);
		n = fread(captured, 1, sizeof(captured) - 1, cap);
		fclose(cap);
		cap = NULL;
	}
	captured[n] = '\0';
	return captured;
}

bool capture_active(void)
{
	return saved_fd >= 0;
}

size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}
