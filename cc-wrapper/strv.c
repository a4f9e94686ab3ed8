/* strv.c - a growable, NULL-terminated vector of owned strings. */
#include "strv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for one more string and the terminator. */
static int strv_reserve(struct ada_strv *sv)
{
	char **v;
	size_t cap;

	if (sv->n + 2 <= sv->cap)
		return 0;
	cap = sv->cap ? sv->cap * 2 : 16;
	v = realloc(sv->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	sv->v = v;
	sv->cap = cap;
	return 0;
}

/* Takes ownership of s, which must come from malloc. */
static int strv_take(struct ada_strv *sv, char *s)
{
	if (!s || strv_reserve(sv) < 0) {
		free(s);
		return -ENOMEM;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

int ada_strv_push(struct ada_strv *sv, const char *s)
{
	return strv_take(sv, strdup(s));
}

int ada_strv_pushn(struct ada_strv *sv, const char *s, size_t len)
{
	return strv_take(sv, strndup(s, len));
}

int ada_strv_pushf(struct ada_strv *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&s, fmt, ap);
	va_end(ap);
	return strv_take(sv, len < 0 ? NULL : s);
}

int ada_strv_push_all(struct ada_strv *sv, const char *const *list)
{
	int err;

	for (; *list; list++) {
		err = ada_strv_push(sv, *list);
		if (err < 0)
			return err;
	}
	return 0;
}

void ada_strv_free(struct ada_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}
