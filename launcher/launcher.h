/* launcher.h - bin/ada, the front command: `ada record` runs a program
 * under a recorder of its own (record.c), `ada VIEW` is ada-symbolize's
 * view (main.c). */
#ifndef ADA_LAUNCHER_H
#define ADA_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "launch.h"

/* ada record [-o DIR] [--] PROG [ARGS...]: the exit status to return. */
int ada_cli_record(int argc, char **argv);

/* Whether the executable at path runs libada (built with adacc): 1 yes,
 * 0 no (*why says what it is instead), -errno if it cannot be read. */
int ada_cli_has_libada(const char *path, const char **why);

/* The memory the program's start-up adopts (runtime/launch.c): the memfd,
 * its header, the arena and the section mapped here. */
struct ada_cli_mem {
	int fd;
	struct ada_launch *hdr;
	bool disabled;          /* the configuration's, read before the section */
	char output[4096];      /* was mapped over (record.c chooses the session) */
};
/* 0, or -errno (the program then forks its own recorder). */
int ada_cli_mem_make(struct ada_cli_mem *m);

#endif
