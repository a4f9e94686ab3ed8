/* options.c - adacc's own options (--ada-*), its environment, and the choice
 * of the real compiler. */
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "vars.h"

#define ADA_OPT_PREFIX "--ada-"

struct parse {
	struct ada_cc_opts *o;
	char *err;
	size_t errsz;
};

__attribute__((format(printf, 2, 3)))
static int usage_error(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errsz, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *const mode_names[] = {
	[ADA_MODE_CYG] = "cyg",
	[ADA_MODE_FENTRY] = "fentry",
	[ADA_MODE_MCOUNT] = "mcount",
	[ADA_MODE_PATCHABLE] = "patchable",
};

/* from names where the mode came from: "--ada-mode=" or "ADA_MODE=". */
static int set_mode(struct parse *p, const char *name, const char *from)
{
	for (size_t m = 0; m < sizeof(mode_names) / sizeof(mode_names[0]); m++) {
		if (strcmp(name, mode_names[m]) != 0)
			continue;
		p->o->mode = m;
		p->o->mode_given = true;
		return 0;
	}
	return usage_error(p, "unknown mode in %s%s (valid: cyg, fentry, mcount, patchable)", from, name);
}

static int opt_cc(struct parse *p, const char *v)
{
	p->o->compiler = v;
	return 0;
}

static int opt_mode(struct parse *p, const char *v)
{
	return set_mode(p, v, "--ada-mode=");
}

static int opt_returns(struct parse *p, const char *v)
{
	if (strcmp(v, "call") && strcmp(v, "hijack"))
		return usage_error(p, "unknown value in --ada-returns=%s (valid: call, hijack)", v);
	p->o->hijack_returns = strcmp(v, "hijack") == 0;
	return 0;
}

static int opt_static(struct parse *p, const char *v)
{
	(void)v;
	p->o->static_runtime = true;
	return 0;
}

static int opt_exclude_file(struct parse *p, const char *v)
{
	return ada_strv_push(&p->o->exclude_files, v);
}

static int opt_exclude_function(struct parse *p, const char *v)
{
	return ada_strv_push(&p->o->exclude_funcs, v);
}

static int opt_verbose(struct parse *p, const char *v)
{
	(void)v;
	p->o->verbose = true;
	return 0;
}

static int opt_help(struct parse *p, const char *v)
{
	(void)v;
	p->o->help = true;
	return 0;
}

static int opt_version(struct parse *p, const char *v)
{
	(void)v;
	p->o->version = true;
	return 0;
}

/* The options, in the order --ada-help lists them. metavar is NULL for a
 * flag and names the value of an option written --ada-NAME=VALUE. */
static const struct ada_opt {
	const char *name;
	const char *metavar;
	int (*apply)(struct parse *p, const char *value);
	const char *help;
} opts[] = {
	{ "cc", "PATH", opt_cc, "real compiler (default gcc, or g++ as adac++)" },
	{ "mode", "MODE", opt_mode, "fentry (default on x86_64): -pg -mfentry; mcount: -pg; cyg: -finstrument-functions; patchable: -fpatchable-function-entry=7,5" },
	{ "returns", "HOW", opt_returns, "how fentry mode sees returns with gcc: call (default; -minstrument-return=call) or hijack (as with clang)" },
	{ "static", NULL, opt_static, "link libada.a into the executable, not libada.so" },
	{ "exclude-file", "LIST", opt_exclude_file, "do not trace functions in files matching LIST" },
	{ "exclude-function", "LIST", opt_exclude_function, "do not trace the functions named in LIST" },
	{ "verbose", NULL, opt_verbose, "print the compiler's command line to stderr" },
	{ "help", NULL, opt_help, "print this help and exit" },
	{ "version", NULL, opt_version, "print ada's version and exit (--version is the compiler's)" },
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static int unknown_option(struct parse *p, const char *arg)
{
	char valid[256] = "";
	size_t len = 0;

	for (size_t i = 0; i < NOPTS && len < sizeof(valid); i++)
		len += snprintf(valid + len, sizeof(valid) - len, "%s--ada-%s%s%s",
				i ? ", " : "", opts[i].name, opts[i].metavar ? "=" : "",
				opts[i].metavar ? opts[i].metavar : "");
	return usage_error(p, "unknown option '%s' (valid: %s)", arg, valid);
}

/* Applies one --ada-NAME[=VALUE] argument. */
static int parse_option(struct parse *p, const char *arg)
{
	const char *name = arg + strlen(ADA_OPT_PREFIX);
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct ada_opt *opt = NULL;

	for (size_t i = 0; i < NOPTS && !opt; i++)
		if (strlen(opts[i].name) == len && strncmp(name, opts[i].name, len) == 0)
			opt = &opts[i];
	if (!opt)
		return unknown_option(p, arg);
	if (opt->metavar && (!eq || !eq[1]))
		return usage_error(p, "%.*s needs a value: --ada-%s=%s",
				   (int)(name - arg + len), arg, opt->name, opt->metavar);
	if (!opt->metavar && eq)
		return usage_error(p, "--ada-%s takes no value", opt->name);
	return opt->apply(p, eq ? eq + 1 : NULL);
}

/* An empty variable counts as unset, as in most build tools. */
static const char *env_value(ada_getenv_fn *env, const char *name)
{
	const char *v = env(name);

	return v && *v ? v : NULL;
}

static int read_environment(struct parse *p, ada_getenv_fn *env)
{
	const char *verbose = env_value(env, "ADA_VERBOSE");
	const char *mode = env_value(env, "ADA_MODE");
	int yes = verbose ? ada_bool_word(verbose) : 0;

	if (yes < 0)
		return usage_error(p, "ADA_VERBOSE=%s is not valid: expected " ADA_BOOL_WORDS, verbose);
	p->o->verbose = yes;
	return mode ? set_mode(p, mode, "ADA_MODE=") : 0;
}

const char *ada_cc_compiler_var(const struct ada_cc_opts *o)
{
	return o->cxx ? "ADA_CXX" : "ADA_CC";
}

/* --ada-cc= beats ADA_CC/ADA_CXX, which beat gcc/g++. clang is told by its
 * name: a "cc" that is clang underneath is taken for gcc. */
static int choose_compiler(struct parse *p, ada_getenv_fn *env)
{
	struct ada_cc_opts *o = p->o;

	if (!o->compiler)
		o->compiler = env_value(env, ada_cc_compiler_var(o));
	if (!o->compiler)
		o->compiler = o->cxx ? "g++" : "gcc";
	o->clang = strstr(basename(o->compiler), "clang") != NULL;
	/* clang has no exclusion lists for -finstrument-functions (its
	 * -fprofile-list covers profiling only): refuse rather than trace
	 * what the user asked to leave out. */
	/* The lists are -finstrument-functions' own: -pg has none. Asking for
	 * exclusions without naming a mode chooses the mode that has them. */
	if (!o->mode_given && (o->exclude_files.n || o->exclude_funcs.n))
		o->mode = ADA_MODE_CYG;
	if (o->mode != ADA_MODE_CYG && (o->exclude_files.n || o->exclude_funcs.n))
		return usage_error(p, "--ada-exclude-%s= works with --ada-mode=cyg only: -pg has no "
				   "exclusion list (mark functions no_instrument_function)",
				   o->exclude_files.n ? "file" : "function");
	if (o->clang && (o->exclude_files.n || o->exclude_funcs.n))
		return usage_error(p, "--ada-exclude-%s= needs gcc: clang has no "
				   "-finstrument-functions exclusion lists (compiler: %s)",
				   o->exclude_files.n ? "file" : "function", o->compiler);
	return 0;
}

/* adacc's own architecture: a compile for it links lib/'s runtime. */
#if defined(__aarch64__)
#define HOST_ARCH "aarch64"
#else
#define HOST_ARCH "x86_64"
#endif

/* Whether a target triple or compiler name starts with aarch64. */
static bool is_aarch64(const char *s)
{
	return strncmp(s, "aarch64", 7) == 0;
}

/* The architecture a compile is for, when it is not adacc's own: aarch64
 * for a cross compiler named for it (aarch64-linux-gnu-gcc) or for clang
 * told it (--target=aarch64-linux-gnu, -target ...). Only cyg and mcount
 * modes are built there yet (issue 26): the other modes' hooks are x86_64
 * assembly, so a build that asks for one is refused here, not left to fail
 * at its link with undefined hooks. mcount mode needs gcc's -pg call (after
 * the frame record, x30 in x0: mcount/aarch64/mcount.S), which clang's is
 * not known to be. */
static int choose_target(struct parse *p)
{
	struct ada_cc_opts *o = p->o;
	bool a64 = is_aarch64(basename(o->compiler));

	for (size_t i = 0; i < o->args.n; i++) {
		const char *a = o->args.v[i];

		if (strncmp(a, "--target=", 9) == 0)
			a64 = is_aarch64(a + 9);
		else if (strcmp(a, "-target") == 0 && i + 1 < o->args.n)
			a64 = is_aarch64(o->args.v[i + 1]);
	}
	o->target = a64 && strcmp(HOST_ARCH, "aarch64") ? "aarch64" : NULL;
	if (!o->target)
		return 0;
	if (!o->mode_given)
		o->mode = ADA_MODE_CYG;
	if (o->mode == ADA_MODE_MCOUNT && o->clang)
		return usage_error(p, "mcount mode on %s needs gcc (compiler: %s); clang can use "
				   "--ada-mode=cyg", o->target, o->compiler);
	if (o->mode != ADA_MODE_CYG && o->mode != ADA_MODE_MCOUNT)
		return usage_error(p, "%s mode is not built for %s yet: only cyg and mcount are "
				   "(--ada-mode=cyg)", mode_names[o->mode], o->target);
	return 0;
}

int ada_cc_opts_parse(struct ada_cc_opts *o, int argc, char *const *argv,
		      ada_getenv_fn *env, char *err, size_t errsz)
{
	struct parse p = { o, err, errsz };
	int ret;

	/* adac++ is a symlink to adacc: the name it was run by picks C++. */
	o->cxx = argc > 0 && strstr(basename(argv[0]), "++") != NULL;
	o->mode = ADA_MODE_DEFAULT;
	ret = read_environment(&p, env);
	for (int i = 1; i < argc && !ret; i++) {
		if (strncmp(argv[i], ADA_OPT_PREFIX, strlen(ADA_OPT_PREFIX)) == 0)
			ret = parse_option(&p, argv[i]);
		else
			ret = ada_strv_push(&o->args, argv[i]);
	}
	if (!ret)
		ret = choose_compiler(&p, env);
	if (!ret)
		ret = choose_target(&p);
	if (ret == -ENOMEM)
		snprintf(err, errsz, "out of memory");
	return ret;
}

void ada_cc_opts_free(struct ada_cc_opts *o)
{
	ada_strv_free(&o->exclude_files);
	ada_strv_free(&o->exclude_funcs);
	ada_strv_free(&o->args);
}

void ada_cc_opts_help(FILE *f)
{
	char name[64];

	for (size_t i = 0; i < NOPTS; i++) {
		snprintf(name, sizeof(name), "--ada-%s%s%s", opts[i].name,
			 opts[i].metavar ? "=" : "", opts[i].metavar ? opts[i].metavar : "");
		fprintf(f, "  %-28s %s\n", name, opts[i].help);
	}
}
