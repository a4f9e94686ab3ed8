/* cmdline.c - a command line's words and its quoted line (cmdline.h).
 *
 * process.meta records argv's words; the manifest and the views keep the
 * quoted line, and the exports that want the words back (Perfetto's
 * ProcessDescriptor.cmdline) split it again: the quoting is exact, so the
 * split gives argv's words whatever they hold.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

/* Whether a word of n bytes reads the same to a shell without quotes. */
static bool shell_plain(const char *w, size_t n)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_./=:,+-@%";
	size_t i = 0;

	while (i < n && w[i] && strchr(plain, w[i]))
		i++;
	return n && i == n;
}

char *cmdline_join(const char *words, size_t len)
{
	/* A word of k bytes takes k + 1 of len and at most 4k + 3 here. */
	char *s = malloc(7 * len + 3), *o = s;
	const char *w = words, *end = w + len;

	if (!s)
		return NULL;
	while (w < end && end[-1] == '\0')
		end--;
	for (; w < end; w += strnlen(w, (size_t)(end - w)) + 1) {
		size_t n = strnlen(w, (size_t)(end - w));

		if (o != s)
			*o++ = ' ';
		if (shell_plain(w, n)) {
			o = mempcpy(o, w, n);
			continue;
		}
		*o++ = '\'';
		for (size_t i = 0; i < n; i++)
			o = w[i] == '\'' ? stpcpy(o, "'\\''") : (*o = w[i], o + 1);
		*o++ = '\'';
	}
	*o = '\0';
	return s;
}

char *cmdline_split(const char *line, size_t *len)
{
	/* Each word is no longer than its quoted form, and the spaces
	 * between them become its NULs. */
	char *s = malloc(strlen(line) + 2), *o = s;
	bool quoted = false, in_word = false;

	if (!s)
		return NULL;
	for (const char *c = line; *c; c++) {
		if (quoted && *c == '\'') {
			quoted = false;
		} else if (quoted) {
			*o++ = *c;
		} else if (*c == ' ') {
			if (in_word)
				*o++ = '\0';
			in_word = false;
		} else {
			in_word = true;
			if (*c == '\'')
				quoted = true;
			else if (*c == '\\' && c[1])
				*o++ = *++c;
			else
				*o++ = *c;
		}
	}
	if (in_word)
		*o++ = '\0';
	*len = (size_t)(o - s);
	return s;
}
