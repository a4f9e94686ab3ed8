/* demangle.c - readable C++ names.
 *
 * The Itanium C++ ABI demangler lives in libstdc++, which the tools link. It
 * has C linkage, so C code may declare and call it directly.
 */
#include <stdlib.h>
#include <string.h>

#include "symtab_priv.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *ada_demangle(const char *name)
{
	char *out;
	int status;

	/* Only "_Z" names are mangled; the demangler would otherwise read a C
	 * name such as "f" or "i" as a type and "demangle" it to "float". */
	if (strncmp(name, "_Z", 2))
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(out);
		return NULL;
	}
	return out;
}
