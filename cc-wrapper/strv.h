/* strv.h - a growable, NULL-terminated vector of owned strings.
 *
 * adacc builds the compiler's argv in one of these. Every element is a copy,
 * so a vector is freed the same way whatever filled it (argv, a response file
 * or a formatted flag), and v is always ready to hand to execvp.
 */
#ifndef ADA_STRV_H
#define ADA_STRV_H

#include <stddef.h>

struct ada_strv {
	char **v;	/* n strings, then NULL; NULL while empty */
	size_t n;
	size_t cap;	/* slots in v, counting the terminator */
};

/* Each returns 0 or -ENOMEM. A failed call may leave part of its strings
 * pushed; the caller frees the vector either way. */
int ada_strv_push(struct ada_strv *sv, const char *s);
int ada_strv_pushn(struct ada_strv *sv, const char *s, size_t len);
int ada_strv_pushf(struct ada_strv *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ada_strv_push_all(struct ada_strv *sv, const char *const *list);

void ada_strv_free(struct ada_strv *sv);

#endif
