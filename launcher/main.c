/* main.c - bin/ada, the front command, uftrace's way: `ada record PROG`
 * runs a program under ada's recorder (record.c), `ada VIEW ...` is
 * ada-symbolize's view of the same name, so that `ada record ./p && ada
 * report` reads the trace just made.
 *
 * The runtime is linked in for its recorder (launcher/launch_mem.c,
 * recorder/process.c); this process traces nothing: it is marked a
 * recorder before libada's start-up runs, which then leaves it alone.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ada_internal.h"
#include "launcher.h"

/* Before libada's own start-up (constructor 102, runtime/init.c). */
__attribute__((constructor(101))) static void not_traced(void)
{
	ada_in_recorder = true;
}

/* ada-symbolize's views, and its two readers of the ATF. */
static const char *const views[] = { "report", "replay", "graph", "flame", "chrome", "perfetto",
				     "info",   "diff",   "dump",  "check", NULL };

static void usage(FILE *f)
{
	fputs("usage: ada record [-o DIR] [--] PROG [ARGS...]   run PROG, its trace into DIR\n"
	      "       ada VIEW [options] [TRACE_DIR...]          read a trace (ada-symbolize VIEW)\n"
	      "       ada --help | --version\n"
	      "VIEW: report, replay, graph, flame, chrome, perfetto, info, diff (ada VIEW --help),\n"
	      "      dump and check (ada-symbolize --dump, --check); the trace is $ADA_OUTPUT\n"
	      "      or ./ada-trace by default, and its latest session. man ada says more.\n",
	      f);
}

/* ada-symbolize beside this executable (an install, or bin/ in the tree),
 * else in PATH, with VIEW's arguments. */
static int view(char **argv)
{
	char self[PATH_MAX], tool[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash, *flag = NULL;

	if (!strcmp(argv[0], "dump") || !strcmp(argv[0], "check"))
		flag = !strcmp(argv[0], "dump") ? "--dump" : "--check";
	argv[-1] = "ada-symbolize";
	if (flag)
		argv[0] = flag;
	self[n > 0 ? n : 0] = '\0';
	slash = strrchr(self, '/');
	if (slash) {
		*slash = '\0';
		snprintf(tool, sizeof(tool), "%s/ada-symbolize", self);
		if (access(tool, X_OK) == 0)
			execv(tool, argv - 1);
	}
	execvp("ada-symbolize", argv - 1);
	fprintf(stderr, "ada: cannot run ada-symbolize: %s\n", strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ada (ada) %s\n", ADA_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "record"))
		return ada_cli_record(argc - 1, argv + 1);
	for (int i = 0; views[i]; i++)
		if (!strcmp(argv[1], views[i]))
			return view(argv + 1);
	fprintf(stderr, "ada: unknown command '%s' (expected record, or a view: report, replay, graph, "
			"flame, chrome, perfetto, info, diff, dump, check; ada --help)\n",
		argv[1]);
	return 2;
}
