/* sessions.c - formats and measures each argument with libc (snprintf,
 * strlen, printf), for tests/e2e/test_sessions.c: which session a run goes
 * to, and how the views name its process and its library functions.
 *
 * Prints "sessions: N words", exits 0.
 */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static size_t measure(const char *s)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "[%s]", s);
	return strlen(buf);
}

int main(int argc, char **argv)
{
	size_t n = 0;

	for (int i = 1; i < argc; i++)
		n += measure(argv[i]);
	printf("sessions: %d words\n", argc - 1);
	return n < 2 * (size_t)(argc - 1);
}
