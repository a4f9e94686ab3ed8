/* options.h - adacc's own options (--ada-*), its environment, and the choice
 * of the real compiler.
 *
 * Every --ada-* option is consumed here; everything else reaches the compiler
 * unchanged and in order.
 */
#ifndef ADA_OPTIONS_H
#define ADA_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "strv.h"

/* How functions are instrumented. Each mode names the compile flags that
 * insert calls to the runtime's hooks. */
enum ada_mode {
	ADA_MODE_CYG,		/* -finstrument-functions: __cyg_profile_func_enter/exit */
	ADA_MODE_FENTRY,	/* -pg -mfentry: gcc calls __return__ before each return,
				 * clang's returns are hijacked */
	ADA_MODE_MCOUNT,	/* -pg: mcount after the prologue, returns hijacked */
	ADA_MODE_PATCHABLE,	/* -fpatchable-function-entry: NOPs the runtime patches
				 * into calls of the fentry path, for chosen functions */
};

/* The richest mode the target supports: fentry on x86_64 (gcc and clang both
 * have -mfentry), cyg elsewhere until that architecture's trampolines exist. */
#if defined(__x86_64__)
#define ADA_MODE_DEFAULT ADA_MODE_FENTRY
#else
#define ADA_MODE_DEFAULT ADA_MODE_CYG
#endif

/* getenv, injected so tests choose the environment. */
typedef const char *ada_getenv_fn(const char *name);

struct ada_cc_opts {
	const char *compiler;		/* the real compiler; borrowed from argv or the environment */
	bool cxx;			/* invoked as adac++: g++ and ADA_CXX */
	bool clang;			/* the compiler's name contains "clang" */
	const char *target;		/* the target's architecture when it is not
					 * adacc's own ("aarch64"): its runtime is in
					 * lib/<target>/; NULL for adacc's own */
	enum ada_mode mode;
	bool mode_given;		/* by --ada-mode= or ADA_MODE */
	bool hijack_returns;		/* --ada-returns=hijack: fentry as clang does it */
	bool static_runtime;		/* --ada-static */
	bool verbose;			/* --ada-verbose or ADA_VERBOSE */
	bool help;			/* --ada-help */
	bool version;			/* --ada-version */
	struct ada_strv exclude_files;	/* one entry per --ada-exclude-file= */
	struct ada_strv exclude_funcs;	/* one entry per --ada-exclude-function= */
	struct ada_strv args;		/* argv[1..] without the --ada-* options */
};

/* Reads argv (argv[0] is how adacc was invoked) and the environment into o,
 * which the caller zeroes first and frees with ada_cc_opts_free() whatever
 * this returns. Returns 0, -ENOMEM, or -EINVAL for a usage error, with a
 * one-line message in err. */
int ada_cc_opts_parse(struct ada_cc_opts *o, int argc, char *const *argv,
		      ada_getenv_fn *env, char *err, size_t errsz);
void ada_cc_opts_free(struct ada_cc_opts *o);

/* The environment variable that names o's compiler: ADA_CC or ADA_CXX. */
const char *ada_cc_compiler_var(const struct ada_cc_opts *o);

/* Appends the flags o->mode adds to every compile. 0 or -ENOMEM. */
int ada_mode_compile_flags(const struct ada_cc_opts *o, struct ada_strv *out);

/* Prints one line per --ada-* option (for --ada-help). */
void ada_cc_opts_help(FILE *f);

#endif
