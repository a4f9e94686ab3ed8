/* launch.c - the program's side of `ada record` (launch.h): its recorder is
 * the launcher's, started before the program, instead of one it forks.
 *
 * Start-up takes the launcher's descriptor from the environment (and the
 * variable out of it: a fork child or an exec'd image of the program is
 * not the one the launcher waits for, and forks its own recorder as
 * without the launcher), maps the arena at the launcher's address and its
 * section onto the launcher's pages, and closes the descriptor: after
 * start-up nothing of ada's is in the program's descriptor table. Where
 * anything of that fails (the address taken, another libada), nothing of
 * the launcher's stays mapped and start-up goes on as without it: the
 * program forks its own recorder, and the launcher waits for that trace.
 * The answer is given last: the launcher's recorder starts on ADOPTED,
 * and reads what start-up left in the section (configuration, paths, the
 * queued records: the process, its modules, the first clock point).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "ada_internal.h"
#include "launch.h"

static struct ada_launch *L; /* the launcher's header, mapped until the answer */
static int launch_fd = -1;
static bool adopted;         /* the section and the arena are the launcher's */

uint64_t ada_launch_layout(void)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const uint64_t parts[] = { sizeof(struct ada_launch), offsetof(struct ada_launch, dirs),
				   sizeof(struct ada_runtime), sizeof(struct ada_thread),
				   sizeof(struct ada_ring_header), ada_shared_len(),
				   (uint64_t)((uintptr_t)&ada_rt_area - ada_shared_base()),
				   (uint64_t)((uintptr_t)&ada_recording_off_area - ada_shared_base()) };

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		h = (h ^ parts[i]) * 0x100000001b3ull;
	return h;
}

void ada_launch_take(void)
{
	const char *v = getenv(ADA_LAUNCH_ENV);
	char *end;
	long fd;
	void *p;

	if (!v)
		return;
	fd = strtol(v, &end, 10);
	unsetenv(ADA_LAUNCH_ENV);
	if (*end || fd < 0 || fd > 1 << 20)
		return;
	launch_fd = (int)fd;
	p = mmap(NULL, ADA_LAUNCH_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, launch_fd, 0);
	if (p == MAP_FAILED || ((struct ada_launch *)p)->magic != ADA_LAUNCH_MAGIC) {
		if (p != MAP_FAILED)
			munmap(p, ADA_LAUNCH_PAGE);
		close(launch_fd);
		launch_fd = -1;
		return;
	}
	L = p;
}

bool ada_launch_map(size_t arena_len)
{
	void *want, *p;

	if (!L || strcmp(L->version, ADA_VERSION) || L->layout != ada_launch_layout() ||
	    L->section_len != ada_shared_len() || L->arena_len < arena_len || !arena_len)
		goto out;
	want = (void *)(uintptr_t)L->arena_addr;
	if (ada_rt.cfg.test_launch_taken) /* a test's: something of the program's there */
		mmap(want, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	p = mmap(want, arena_len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, launch_fd, (off_t)L->arena_off);
	if (p != want) {
		if (p != MAP_FAILED) /* a kernel that took the address as a hint */
			munmap(p, arena_len);
		goto out;
	}
	if (ada_shared_adopt(launch_fd, (off_t)L->section_off) < 0) {
		munmap(want, arena_len);
		goto out;
	}
	ada_arena_adopt(want, arena_len);
	adopted = true;
out:
	close(launch_fd);
	launch_fd = -1;
	return adopted;
}

bool ada_launch_session(char *dir, size_t len)
{
	uint64_t until, now;
	char *slash;

	/* Another build's launcher (the header's shape differs) would never
	 * answer where this one waits. */
	if (!L || strcmp(L->version, ADA_VERSION) || L->layout != ada_launch_layout())
		return false;
	until = ada_now_ns(CLOCK_MONOTONIC) + ADA_LAUNCH_DIRS_WAIT_NS;
	while (__atomic_load_n(&L->dirs, __ATOMIC_ACQUIRE) == ADA_LAUNCH_DIRS_PENDING &&
	       (now = ada_now_ns(CLOCK_MONOTONIC)) < until)
		ada_futex_wait(&L->dirs, ADA_LAUNCH_DIRS_PENDING, until - now);
	/* Given up: the launcher, late, removes what it made. */
	__atomic_compare_exchange_n(&L->dirs, &(uint32_t){ ADA_LAUNCH_DIRS_PENDING },
				    ADA_LAUNCH_DIRS_NONE, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&L->dirs, __ATOMIC_ACQUIRE) != ADA_LAUNCH_DIRS_MADE ||
	    L->dirs_pid != (uint32_t)getpid() || !(slash = strrchr(L->made_dir, '/')))
		return false;
	snprintf(dir, len, "%.*s", (int)(slash - L->made_dir), L->made_dir);
	return true;
}

bool ada_launch_adopted(void)
{
	return adopted;
}

/* Tells the launcher (once): its state, and where the trace goes. */
static void answer(uint32_t state)
{
	if (!L)
		return;
	L->program_pid = (uint32_t)getpid();
	snprintf(L->pid_dir, sizeof(L->pid_dir), "%s", state == ADA_LAUNCH_OFF ? "" : ada_rt.pid_dir);
	__atomic_store_n(&L->state, state, __ATOMIC_RELEASE);
	ada_futex_wake(&L->state);
	munmap(L, ADA_LAUNCH_PAGE);
	L = NULL;
}

int ada_launch_hand_over(void)
{
	uint32_t pid = L->launcher_pid;

	adopted = false; /* a fork child forks its own */
	__atomic_store_n(&ada_rt.writer_tid, pid, __ATOMIC_RELEASE);
	/* Yama: the recorder may write the program's code (patchable mode). */
	prctl(PR_SET_PTRACER, (unsigned long)pid, 0, 0, 0);
	answer(ADA_LAUNCH_ADOPTED);
	return 0;
}

void ada_launch_done(bool tracing)
{
	if (launch_fd >= 0) {
		close(launch_fd);
		launch_fd = -1;
	}
	answer(tracing ? ADA_LAUNCH_OWN : ADA_LAUNCH_OFF);
}
