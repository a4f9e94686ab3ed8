/* path_len.h - a directory path's length without its trailing slashes, so
 * that DIR "/" NAME never prints "dir//name" when a user wrote "dir/".
 *
 * Header-only and libc-free: the runtime (ADA_OUTPUT), adacc (ADA_LIBDIR)
 * and ada-symbolize (TRACE_DIR, -o) each take a user's directory through it
 * where it enters, and join with "%.*s/%s".
 */
#ifndef ADA_PATH_LEN_H
#define ADA_PATH_LEN_H

#include <stddef.h>

/* The length of dir's first len bytes without their trailing slashes:
 * ("a/b//", 5) -> 3, ("/", 1) -> 1 (the root keeps its slash). The caller
 * gives the length: a loop here looking for the NUL would be compiled into
 * a call of strlen, which in the runtime may be a program's LD_PRELOAD'ed
 * one (tests/e2e/test_dynhook.c preloads one that answers 100 more). */
static inline int ada_path_dir_len(const char *dir, size_t len)
{
	while (len > 1 && dir[len - 1] == '/')
		len--;
	return (int)len;
}

#endif
