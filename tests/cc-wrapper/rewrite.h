/* rewrite.h - helpers shared by the cc-wrapper tests: run ada_cc_rewrite()
 * on a literal argv in a literal environment and compare the command line it
 * builds with the one expected, as one string so a failure shows both. */
#ifndef ADA_TEST_REWRITE_H
#define ADA_TEST_REWRITE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "args.h"

#define LIST(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NO_ENV ((const char *const[]){ NULL })

#define LIBDIR "/opt/ada/lib"
/* What a link gets with the default, shared runtime. */
#define SHARED_RT "-L" LIBDIR, "-Xlinker", "-rpath", "-Xlinker", LIBDIR, \
	"-Wl,--push-state,--no-as-needed", "-lada", "-Wl,--pop-state"
#define STATIC_RT "-Wl,--whole-archive", LIBDIR "/libada.a", "-Wl,--no-whole-archive", \
	"-llz4", "-lpthread", "-ldl"
/* What a static executable adds: libc.a's exec functions, for libada's. */
#define STATIC_EXEC "-Wl,-u,__execve", "-Wl,-u,__execvpe"
#define EXPORT_HOOKS "-Wl,--export-dynamic-symbol=__cyg_profile_func_enter", \
	"-Wl,--export-dynamic-symbol=__cyg_profile_func_exit",                        \
	"-Wl,--export-dynamic-symbol=__fentry__",                                         \
	"-Wl,--export-dynamic-symbol=__ada_fentry_nohijack",                              \
	"-Wl,--export-dynamic-symbol=__return__", "-Wl,--export-dynamic-symbol=mcount"

/* "NAME=value" strings: the environment the next rewrite sees. */
static const char *const *test_environ;

static inline const char *test_getenv(const char *name)
{
	size_t len = strlen(name);

	for (const char *const *e = test_environ; *e; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

static inline size_t list_len(const char *const *list)
{
	size_t n = 0;

	while (list[n])
		n++;
	return n;
}

/* Joins a NULL-terminated list with single spaces into buf. */
static inline const char *join(const char *const *list, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (; *list && len < size; list++)
		len += snprintf(buf + len, size - len, "%s%s", len ? " " : "", *list);
	return buf;
}

/* Rewrites argv in env into a zeroed plan; returns ada_cc_rewrite's result. */
static inline int rewrite(const char *const *env, const char *const *argv,
			  struct ada_cc_plan *plan)
{
	struct ada_cc_input in = {
		.argc = (int)list_len(argv),
		.argv = (char *const *)argv,
		.env = test_getenv,
		.libdir = LIBDIR,
	};

	test_environ = env;
	memset(plan, 0, sizeof(*plan));
	return ada_cc_rewrite(&in, plan);
}

/* The rewrite succeeds and gives exactly want. */
static inline void expect_argv(const char *const *env, const char *const *argv,
			       const char *const *want)
{
	struct ada_cc_plan plan;
	char got_s[2048], want_s[2048];
	int err = rewrite(env, argv, &plan);

	if (err)
		fail_msg("rewrite failed (%d): %s", err, plan.err);
	assert_string_equal(join((const char *const *)plan.argv.v, got_s, sizeof(got_s)),
			    join(want, want_s, sizeof(want_s)));
	ada_cc_plan_free(&plan);
}

/* The rewrite is refused with -EINVAL and an error containing what. */
static inline void expect_error(const char *const *env, const char *const *argv,
				const char *what)
{
	struct ada_cc_plan plan;

	assert_int_equal(rewrite(env, argv, &plan), -EINVAL);
	if (!strstr(plan.err, what))
		fail_msg("error \"%s\" does not mention \"%s\"", plan.err, what);
	assert_null(strchr(plan.err, '\n'));
	ada_cc_plan_free(&plan);
}

#endif
