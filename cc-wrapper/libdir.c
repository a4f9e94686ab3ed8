/* libdir.c - where the runtime is, relative to adacc itself.
 *
 * The executable's own location, not a path fixed at build time, so the same
 * binary works from the build tree (bin/ beside lib/) and after
 * make install PREFIX=... (PREFIX/bin beside PREFIX/lib).
 */
#include "args.h"

#include <errno.h>
#include <string.h>

int ada_cc_libdir(const char *exe, char *buf, size_t size)
{
	const char *end = exe + strlen(exe);
	int len;

	if (exe[0] != '/')
		return -EINVAL;
	/* Drop the file name, then its directory: "/p/bin/adacc" -> "/p". */
	for (int drop = 0; drop < 2 && end > exe; drop++)
		while (end > exe && *--end != '/')
			;
	len = snprintf(buf, size, "%.*s/lib", (int)(end - exe), exe);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}
