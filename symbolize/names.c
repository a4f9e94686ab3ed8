/* names.c - the names views print.
 *
 * A demangled C++ name carries its parameter list, qualifiers and, for a
 * template function, its return type: "int ns::Foo<int>::bar(char const*)
 * const". Views print the simple form, "ns::Foo<int>::bar", as uftrace and
 * Perfetto users read it; --full-names keeps the rest. Symbol versions
 * ("memcpy@@GLIBC_2.14") are the linker's business, not the reader's.
 */
#include <stdio.h>
#include <string.h>

#include "source.h"

char *src_unversioned(const char *name, char *out, size_t len)
{
	size_t n = strcspn(name, "@");

	if (!len)
		return out;
	if (n >= len)
		n = len - 1;
	memcpy(out, name, n);
	out[n] = '\0';
	return out;
}

/* The '(' that opens the parameter list: the last top-level '(' whose group
 * ends the name, qualifiers (" const", " &", "&&") aside. Scans back from
 * the end so "(anonymous namespace)" and "{lambda(int)#1}" earlier in the
 * name are passed over. -1 if the name has no parameter list. */
static long params_start(const char *s, size_t n)
{
	long i = (long)n - 1;
	int depth = 0;

	while (i >= 0 && s[i] != ')') /* " const", " volatile", " &", " &&" */
		i--;
	for (; i >= 0; i--) {
		if (s[i] == ')' || s[i] == '>' || s[i] == ']')
			depth++;
		else if (s[i] == '(' || s[i] == '<' || s[i] == '[')
			depth--;
		if (!depth)
			return s[i] == '(' ? i : -1;
	}
	return -1;
}

/* Where the name starts after a template function's return type: past the
 * last space outside <>, () and []. "operator new" and the like keep theirs. */
static size_t name_start(const char *s, size_t n)
{
	size_t i, start = 0;
	int depth = 0;

	if (strstr(s, "operator"))
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '<' || s[i] == '(' || s[i] == '[')
			depth++;
		else if ((s[i] == '>' || s[i] == ')' || s[i] == ']') && depth)
			depth--;
		else if (s[i] == ' ' && !depth)
			start = i + 1;
	}
	return start;
}

char *src_simple_name(const char *full, char *out, size_t len)
{
	size_t n = strcspn(full, "@"), start;
	long p;

	if (!len)
		return out;
	p = params_start(full, n);
	/* "operator()(int)": the group that ends the name is the parameters;
	 * a name that is only a group keeps it. */
	if (p > 0)
		n = (size_t)p;
	start = name_start(full, n);
	n -= start;
	/* A function returning a function pointer: "void (*f(int))(int)" is
	 * "(*f(int))" here; the name is inside. */
	if (n > 3 && full[start] == '(' && full[start + 1] == '*' && full[start + n - 1] == ')') {
		char inner[1024];

		snprintf(inner, sizeof(inner), "%.*s", (int)(n - 3), full + start + 2);
		return src_simple_name(inner, out, len);
	}
	if (n >= len)
		n = len - 1;
	memcpy(out, full + start, n);
	out[n] = '\0';
	return out;
}

const char *src_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
