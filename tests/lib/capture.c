/* capture.c - stderr capture for the tests (capture.h). */
#include <stdio.h>
#include <unistd.h>

#include "capture.h"

static FILE *cap;
static int saved_fd2 = -1;
static char captured[8192];

void capture_begin(void)
{
	fflush(stderr);
	cap = tmpfile();
	saved_fd2 = dup(STDERR_FILENO);
	if (cap && saved_fd2 >= 0)
		dup2(fileno(cap), STDERR_FILENO);
}

const char *capture_end(void)
{
	size_t n = 0;

	fflush(stderr);
	if (saved_fd2 >= 0) {
		dup2(saved_fd2, STDERR_FILENO);
		close(saved_fd2);
		saved_fd2 = -1;
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
	return saved_fd2 >= 0;
}

size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}
