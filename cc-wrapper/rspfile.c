/* rspfile.c - response files (@file), read the way the gcc driver reads them. */
#include "rspfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the whole of path into a NUL-terminated buffer. */
static int read_text(const char *path, char **text)
{
	char *buf = NULL, *grown;
	size_t len = 0, cap = 0, got;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -ENOENT;	/* any reason: gcc keeps the argument as it is */
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = grown;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/* Copies one argument from *p into tok, unquoting it; returns its length and
 * leaves *p on the whitespace (or NUL) that ended it. */
static size_t next_token(const char **p, char *tok)
{
	const char *s = *p;
	size_t len = 0;
	char quote = 0;

	for (; *s; s++) {
		if (*s == '\\') {
			if (s[1])
				tok[len++] = *++s;
		} else if (quote) {
			if (*s == quote)
				quote = 0;
			else
				tok[len++] = *s;
		} else if (isspace((unsigned char)*s)) {
			break;
		} else if (*s == '\'' || *s == '"') {
			quote = *s;
		} else {
			tok[len++] = *s;
		}
	}
	*p = s;
	return len;
}

int ada_rsp_split(const char *text, struct ada_strv *out)
{
	/* Unquoting only shortens, so one buffer the size of the text holds any token. */
	char *tok = malloc(strlen(text) + 1);
	size_t len;
	int err = 0;

	if (!tok)
		return -ENOMEM;
	for (;;) {
		while (isspace((unsigned char)*text))
			text++;
		if (!*text)
			break;
		len = next_token(&text, tok);
		err = ada_strv_pushn(out, tok, len);
		if (err < 0)
			break;
	}
	free(tok);
	return err;
}

static int expand(char *const *args, size_t n, struct ada_strv *out, int depth);

/* Expands one readable response file; 1 when path could not be read. */
static int expand_file(const char *path, struct ada_strv *out, int depth)
{
	struct ada_strv inner = { 0 };
	char *text = NULL;
	int err;

	err = read_text(path, &text);
	if (err == -ENOMEM)
		return err;
	if (err < 0)
		return 1;
	if (depth >= ADA_RSP_MAX_DEPTH) {
		free(text);
		return -ELOOP;
	}
	err = ada_rsp_split(text, &inner);
	free(text);
	if (!err)
		err = expand(inner.v, inner.n, out, depth + 1);
	ada_strv_free(&inner);
	return err;
}

static int expand(char *const *args, size_t n, struct ada_strv *out, int depth)
{
	int err;

	for (size_t i = 0; i < n; i++) {
		err = 1;
		if (args[i][0] == '@' && args[i][1])
			err = expand_file(args[i] + 1, out, depth);
		if (err > 0)
			err = ada_strv_push(out, args[i]);
		if (err < 0)
			return err;
	}
	return 0;
}

int ada_rsp_expand(char *const *args, size_t n, struct ada_strv *out)
{
	return expand(args, n, out, 0);
}
