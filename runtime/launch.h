/* launch.h - what `ada record` (launcher/) and the program it starts agree
 * on: the launcher's recorder drains the program's rings from its own
 * process, so the memory the two share is the launcher's, made before the
 * program runs.
 *
 * The launcher makes one memfd: this page, then room for the program's
 * shared section (shared.h), then the arena (arena.c). It maps the arena
 * where the kernel puts it, and the section over its own libada's, and
 * names the descriptor in the program's environment (ADA_LAUNCH_ENV=<fd>).
 * The program's start-up (runtime/launch.c) maps the arena at the very
 * address the launcher has it (MAP_FIXED_NOREPLACE: every pointer the
 * recorder follows, the thread registry, the rings, the queue, holds in
 * both processes), moves its section's contents onto the memfd's pages,
 * closes the descriptor, and says here what came of it: ADOPTED (the
 * launcher's recorder is its recorder; it forks none), OWN (the address
 * was taken, or the two libadas differ: it forked its own, as without the
 * launcher), OFF (ADA_DISABLE, or tracing could not start). The section
 * holds no pointer into itself, so its address may differ in the two.
 *
 * While the program execs and its loader runs, the launcher chooses its
 * session as the program's start-up would (job_session.c) and makes its
 * pid directory: DIRS_MADE, made_dir that directory. Start-up waits for
 * that (DIRS_PENDING) and takes the session instead of choosing one; it
 * gives up after ADA_LAUNCH_DIRS_WAIT_NS (DIRS_NONE, which the launcher's
 * late answer cannot overwrite: it removes what it made) and chooses its
 * own, as it does on DIRS_NONE (the launcher could not make them).
 */
#ifndef ADA_LAUNCH_H
#define ADA_LAUNCH_H

#include <stdint.h>

#define ADA_LAUNCH_ENV "ADA_LAUNCHER"
#define ADA_LAUNCH_MAGIC 0x68636e75616c6164ull /* "dalaunch" */
#define ADA_LAUNCH_PAGE 16384u                 /* this header's pages in the memfd */

enum { ADA_LAUNCH_WAITING = 0, ADA_LAUNCH_ADOPTED, ADA_LAUNCH_OWN, ADA_LAUNCH_OFF };
enum { ADA_LAUNCH_DIRS_PENDING = 0, ADA_LAUNCH_DIRS_MADE, ADA_LAUNCH_DIRS_NONE };
#define ADA_LAUNCH_DIRS_WAIT_NS 2000000000ull /* a starved launcher's: seconds */

struct ada_launch {
	uint64_t magic;
	char version[32];      /* the launcher's ADA_VERSION: the program's must be equal */
	uint64_t layout;       /* ada_launch_layout(): the shared structs' shape */
	uint64_t section_off, section_len; /* the shared section's pages in the memfd */
	uint64_t arena_off, arena_len;     /* the arena's */
	uint64_t arena_addr;   /* where the launcher maps it: the program's must be there */
	uint32_t launcher_pid;
	uint32_t state;        /* futex word: ADA_LAUNCH_* (the program's answer) */
	uint32_t program_pid;
	uint32_t dirs;         /* futex word: ADA_LAUNCH_DIRS_* */
	uint32_t dirs_pid;     /* the pid whose directory the launcher made */
	char made_dir[4352];   /* the pid directory the launcher made (dirs) */
	char pid_dir[4352];    /* the program's pid_<pid> directory, with its answer */
};
_Static_assert(sizeof(struct ada_launch) <= ADA_LAUNCH_PAGE, "the launch header fits its pages");

#endif
