/* shape.c - what a gcc/clang command line will do. */
#include "shape.h"

#include <stddef.h>
#include <string.h>

/* Options that, written alone, take the next argument as their value
 * ("-o out", "-MF deps.d", "-Xlinker -r"): that argument is neither an input
 * nor an option of its own. */
static const char *const separate_value_opts[] = {
	"-o", "-x", "-I", "-L", "-l", "-D", "-U", "-A", "-B", "-T", "-u", "-e", "-z",
	"-MF", "-MT", "-MQ", "-MJ",
	"-include", "-imacros", "-isystem", "-idirafter", "-iquote", "-iprefix",
	"-iwithprefix", "-iwithprefixbefore", "-isysroot", "-imultilib",
	"-iframework", "-ivfsoverlay",
	"-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xclang", "-mllvm",
	"-aux-info", "-dumpbase", "-dumpbase-ext", "-dumpdir", "-wrapper",
	"-specs", "--specs", "--sysroot", "--param", "-target", "-arch",
	NULL
};

/* Options that only print something about the compiler. */
static const char *const query_opts[] = {
	"--version", "-dumpversion", "-dumpfullversion", "-dumpmachine",
	"-dumpspecs", "--help", "--target-help", NULL
};
static const char *const query_prefixes[] = { "-print-", "--print-", "--help=", NULL };

/* Flags that each set one field of the shape. */
#define FIELD(f) offsetof(struct ada_cc_shape, f)
static const struct {
	const char *flag;
	size_t field;
} flag_fields[] = {
	{ "-E", FIELD(preprocess) },
	/* -M and -MM imply -E; -MD and -MMD write dependencies while compiling. */
	{ "-M", FIELD(preprocess) },
	{ "-MM", FIELD(preprocess) },
	{ "-c", FIELD(compile_only) },
	{ "-S", FIELD(compile_only) },
	{ "-fsyntax-only", FIELD(compile_only) },
	{ "-shared", FIELD(shared) },
	{ "-r", FIELD(relocatable) },
	{ "-static", FIELD(static_exe) },
	{ "-static-pie", FIELD(static_exe) },
	{ "-nostdlib", FIELD(no_libc) },
	{ "-nodefaultlibs", FIELD(no_libc) },
	{ "-nolibc", FIELD(no_libc) },
};

/* Suffixes the driver compiles into a precompiled header, not an object. */
static const char *const header_suffixes[] = {
	"h", "hh", "H", "hp", "hxx", "hpp", "HPP", "h++", "tcc", NULL
};
/* Suffixes the driver hands to the linker as they are. */
static const char *const link_suffixes[] = { "o", "obj", "a", "so", "lo", "ld", "lds", NULL };

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static bool has_prefix_in(const char *s, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (strncmp(s, *prefixes, strlen(*prefixes)) == 0)
			return true;
	return false;
}

/* True for "libfoo.so.1" and "libfoo.so.1.2": versioned shared libraries. */
static bool is_versioned_so(const char *base)
{
	const char *so = strstr(base, ".so.");

	return so && strspn(so + 4, "0123456789.") == strlen(so + 4);
}

/* Classifies one input file. With no -x in effect the suffix decides. An
 * unknown suffix counts as a source: gcc would hand it to the linker, but
 * missing a source in an unusual language would leave it untraced, while an
 * extra -finstrument-functions on a link is harmless. */
static void add_input(struct ada_cc_shape *shape, const char *path, const char *lang)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t len;

	if (lang) {
		len = strlen(lang);
		shape->has_source = true;
		shape->has_link_input |= len < 7 || strcmp(lang + len - 7, "-header") != 0;
	} else if (strcmp(path, "-") == 0) {
		shape->has_source = shape->has_link_input = true;	/* stdin needs -x anyway */
	} else if (!dot || in_list(dot + 1, link_suffixes) || is_versioned_so(base)) {
		shape->has_link_input = true;	/* gcc links files with no suffix too */
	} else {
		shape->has_source = true;
		shape->has_link_input |= !in_list(dot + 1, header_suffixes);
	}
}

static void scan_flag(struct ada_cc_shape *shape, const char *arg)
{
	if (in_list(arg, query_opts) || has_prefix_in(arg, query_prefixes)) {
		shape->query = true;
		return;
	}
	for (size_t i = 0; i < sizeof(flag_fields) / sizeof(flag_fields[0]); i++)
		if (strcmp(arg, flag_fields[i].flag) == 0)
			*(bool *)((char *)shape + flag_fields[i].field) = true;
}

/* The language named by "-x LANG"; NULL for "-x none", which goes back to
 * suffixes. */
static const char *x_lang(const char *lang)
{
	return lang && strcmp(lang, "none") != 0 ? lang : NULL;
}

void ada_cc_shape_scan(char *const *args, size_t n, struct ada_cc_shape *shape)
{
	const char *lang = NULL;

	memset(shape, 0, sizeof(*shape));
	for (size_t i = 0; i < n; i++) {
		const char *arg = args[i];

		if (arg[0] != '-' || arg[1] == '\0') {
			add_input(shape, arg, lang);
		} else if (in_list(arg, separate_value_opts)) {
			const char *value = i + 1 < n ? args[++i] : NULL;

			if (strcmp(arg, "-x") == 0)
				lang = x_lang(value);
		} else if (strncmp(arg, "-x", 2) == 0) {
			lang = x_lang(arg + 2);
		} else {
			scan_flag(shape, arg);
		}
	}
}

/* With nothing to build (a query, preprocessing only, no input at all) adacc
 * adds nothing: the command is passed through as it came. */
static bool builds(const struct ada_cc_shape *shape)
{
	return !shape->query && !shape->preprocess;
}

bool ada_cc_shape_compiles(const struct ada_cc_shape *shape)
{
	return builds(shape) && shape->has_source;
}

bool ada_cc_shape_links(const struct ada_cc_shape *shape)
{
	return builds(shape) && !shape->compile_only && shape->has_link_input;
}
