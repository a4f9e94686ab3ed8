/* main.c - adacc: run the real compiler with tracing added.
 *
 * All decisions are in ada_cc_rewrite(); this file finds the runtime's
 * directory, reports errors and replaces itself with the compiler. exec, not
 * fork: the compiler's exit status, stdout and stderr are the build's, with
 * nothing in between.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "path_len.h"

/* adacc's usage errors, like gcc's, are distinct from a failed compile. */
#define EXIT_USAGE 2

static const char *env(const char *name)
{
	return getenv(name);
}

/* ADA_LIBDIR, else lib/ beside the bin/ holding the real adacc executable
 * (adac++ is a symlink; /proc/self/exe has it resolved). */
static int find_libdir(const char *prog, char *buf, size_t size)
{
	const char *dir = getenv("ADA_LIBDIR");
	char exe[PATH_MAX];
	ssize_t len;

	/* Absolute, because it also becomes the programs' RPATH. A directory
	 * that does not exist stays as given, for check_runtime to report. */
	if (dir && *dir) {
		if (!realpath(dir, exe))
			snprintf(exe, sizeof(exe), "%.*s", ada_path_dir_len(dir, strlen(dir)), dir);
		snprintf(buf, size, "%s", exe);
		return 0;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0 || (size_t)len >= sizeof(exe) - 1) {
		fprintf(stderr, "%s: cannot find own executable: /proc/self/exe: %s (set ADA_LIBDIR)\n",
			prog, len < 0 ? strerror(errno) : "path too long");
		return -1;
	}
	exe[len] = '\0';
	if (ada_cc_libdir(exe, buf, size) < 0) {
		fprintf(stderr, "%s: no runtime directory for %s (set ADA_LIBDIR)\n", prog, exe);
		return -1;
	}
	return 0;
}

/* A missing runtime would otherwise surface as the linker's "cannot find
 * -lada", which does not say where adacc looked. */
static int check_runtime(const char *prog, const char *runtime)
{
	if (!runtime || access(runtime, R_OK) == 0)
		return 0;
	fprintf(stderr, "%s: runtime not found: %s: %s (build it with make, or set ADA_LIBDIR)\n",
		prog, runtime, strerror(errno));
	return -1;
}

static int run(const char *prog, struct ada_cc_plan *plan)
{
	char *const *argv = plan->argv.v;

	if (check_runtime(prog, plan->runtime) < 0)
		return EXIT_USAGE;
	if (plan->opts.verbose) {
		fprintf(stderr, "%s: ", prog);
		ada_cc_print_cmd(stderr, argv);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "%s: cannot run '%s': %s (set %s or --ada-cc=)\n",
		prog, argv[0], strerror(errno), ada_cc_compiler_var(&plan->opts));
	/* The shell's convention: 127 not found, 126 found but not runnable. */
	return errno == ENOENT ? 127 : 126;
}

int main(int argc, char **argv)
{
	const char *prog = program_invocation_short_name;
	struct ada_cc_plan plan = { 0 };
	char libdir[PATH_MAX];
	struct ada_cc_input in = { argc, argv, env, libdir };
	int status;

	if (find_libdir(prog, libdir, sizeof(libdir)) < 0)
		return EXIT_USAGE;
	if (ada_cc_rewrite(&in, &plan) < 0) {
		fprintf(stderr, "%s: %s\n", prog, plan.err);
		status = EXIT_USAGE;
	} else if (plan.opts.help) {
		ada_cc_print_help(stdout, prog);
		status = EXIT_SUCCESS;
	} else if (plan.opts.version) {
		printf("%s (ada) %s\n", prog, ADA_VERSION);
		status = EXIT_SUCCESS;
	} else {
		status = run(prog, &plan);
	}
	ada_cc_plan_free(&plan);
	return status;
}
