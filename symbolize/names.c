/* names.c - the names views print.
 *
 * A demangled C++ name carries its parameter list, qualifiers and, for a
 * template function, its return type: "int ns::Foo<int>::bar(char const*)
 * const". Views print the simple form, "ns::Foo<int>::bar", as uftrace and
 * Perfetto users read it; --full-names keeps the rest. Symbol versions
 * ("memcpy@@GLIBC_2.14") are the linker's business, not the reader's, and
 * so are glibc's variants of one function for each CPU, which its IFUNCs
 * choose from at load time: a program calls memchr, whichever
 * __memchr_avx2 or __memchr_evex runs it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The CPU features glibc names its variants by, each a word of their own
 * between underscores (sysdeps/x86_64/multiarch, and libm's fma paths). */
static const char *const isa_words[] = {
	"sse2", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "avx512f", "avx512bw", "avx512vl",
	"evex", "evex512", "erms", "rtm", "unaligned", "aligned", "vex", "fma", "fma4", "sse41",
	NULL,
};

/* "__memset_avx2_unaligned_erms" → "memset": the part between the leading
 * "__" and the first word that names a CPU feature; false if name is none. */
static bool libc_variant(const char *name, char *out, size_t len)
{
	const char *p;

	if (strncmp(name, "__", 2) || !len)
		return false;
	for (p = strchr(name + 2, '_'); p; p = strchr(p + 1, '_'))
		for (size_t k = 0; isa_words[k]; k++) {
			size_t n = strlen(isa_words[k]), base = (size_t)(p - name) - 2;

			if (strncmp(p + 1, isa_words[k], n) || (p[1 + n] && p[1 + n] != '_') || !base)
				continue;
			if (base >= len)
				base = len - 1;
			memcpy(out, name + 2, base);
			out[base] = '\0';
			return true;
		}
	return false;
}

char *src_display_name(const char *full, const char *module, char *out, size_t len)
{
	char simple[1024];

	src_simple_name(full, simple, sizeof(simple));
	if ((!strncmp(module, "libc.so", 7) || !strncmp(module, "libc-", 5) ||
	     !strncmp(module, "libm.so", 7) || !strncmp(module, "libm-", 5)) &&
	    libc_variant(simple, out, len))
		return out;
	snprintf(out, len, "%s", simple);
	return out;
}

static const struct src_func *sort_funcs;

static int by_name(const void *a, const void *b)
{
	const struct src_func *x = &sort_funcs[*(const size_t *)a], *y = &sort_funcs[*(const size_t *)b];
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->full, y->full);
}

/* The full name without a template function's return type: the name with
 * its parameter list and qualifiers. */
static const char *with_params(const char *full)
{
	size_t n = strlen(full);
	long p = params_start(full, n);

	return full + name_start(full, p > 0 ? (size_t)p : n);
}

/* Renames funcs[idx[0..k)], a group of one name with several full names. */
static int rename_group(struct src_func *funcs, const size_t *idx, size_t k)
{
	bool unique = true;

	for (size_t i = 0; i + 1 < k && unique; i++)
		for (size_t j = i + 1; j < k && unique; j++)
			unique = strcmp(with_params(funcs[idx[i]].full), with_params(funcs[idx[j]].full)) != 0 ||
				 !strcmp(funcs[idx[i]].full, funcs[idx[j]].full);
	for (size_t i = 0; i < k; i++) {
		char *name = strdup(unique ? with_params(funcs[idx[i]].full) : funcs[idx[i]].full);

		if (!name)
			return -ENOMEM;
		funcs[idx[i]].base = funcs[idx[i]].name;
		funcs[idx[i]].name = name;
	}
	return 0;
}

int src_names_disambiguate(struct src_func *funcs, size_t n)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), i, j;
	int err = 0;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		idx[i] = i;
	sort_funcs = funcs;
	qsort(idx, n, sizeof(*idx), by_name);
	for (i = 0; i < n && !err; i = j) {
		bool differ = false;

		for (j = i + 1; j < n && !strcmp(funcs[idx[j]].name, funcs[idx[i]].name); j++)
			differ |= strcmp(funcs[idx[j]].full, funcs[idx[i]].full) != 0;
		if (differ)
			err = rename_group(funcs, idx + i, j - i);
	}
	free(idx);
	return err;
}

const char *src_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
