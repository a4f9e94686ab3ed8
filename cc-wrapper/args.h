/* args.h - adacc's whole decision: from the wrapper's argv to the compiler's.
 *
 * This is a pure function of its inputs (argv, an injected getenv, the
 * runtime's directory) apart from reading response files, so the unit tests
 * check exact command lines; main.c only finds the directory and execs.
 */
#ifndef ADA_ARGS_H
#define ADA_ARGS_H

#include <stdio.h>

#include "options.h"
#include "strv.h"

struct ada_cc_input {
	int argc;
	char *const *argv;	/* argv[0] is how adacc was invoked */
	ada_getenv_fn *env;
	const char *libdir;	/* holds libada.so and libada.a */
};

struct ada_cc_plan {
	struct ada_cc_opts opts;
	struct ada_strv argv;	/* the compiler, then its arguments */
	char *runtime;		/* the runtime file the link needs, or NULL */
	char err[512];		/* one line, set when ada_cc_rewrite fails */
};

/* Fills a zeroed plan; the caller frees it with ada_cc_plan_free() whatever
 * this returns. With --ada-help or --ada-version, only plan->opts is filled. Returns 0,
 * -ENOMEM, or -EINVAL for a usage error; plan->err says which. */
int ada_cc_rewrite(const struct ada_cc_input *in, struct ada_cc_plan *plan);
void ada_cc_plan_free(struct ada_cc_plan *plan);

/* Prints argv on one line, quoted so that a shell can run it. */
void ada_cc_print_cmd(FILE *f, char *const *argv);

/* Prints --ada-help. */
void ada_cc_print_help(FILE *f, const char *prog);

/* The runtime's directory for the adacc executable at exe (an absolute path
 * with symlinks resolved): ../lib from exe's directory, which is lib/ beside
 * bin/ both in the build tree and under an install PREFIX. Returns 0, or
 * -EINVAL if exe is not absolute, -ENAMETOOLONG if buf is too small. */
int ada_cc_libdir(const char *exe, char *buf, size_t size);

#endif
