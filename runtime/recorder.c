/* recorder.c - the writer as a process of its own.
 *
 * A writer thread (ada's before issue 23) made every traced program
 * multi-threaded, ran under its seccomp filter, rlimits and chroot, and
 * shared its CPU time. Instead start-up (still single-threaded) maps the
 * shared section and the arena shared (shared.h, arena.c), then forks a
 * process that runs the writer's loop (writer.c) on them: the rings, the
 * thread registry, the requests and the queues are where the program's
 * threads write them. Nothing of it is in the program: no thread, no
 * descriptor, no child. Where it cannot be forked, rings_only.c.
 *
 * - Not a child: forked twice, the middle process created without an exit
 *   signal (the program gets no SIGCHLD) and reaped at once; the recorder
 *   belongs to init (or a subreaper) from then on, so the program's wait()
 *   never sees it. The middle process shares the program's memory (vfork's
 *   way: the program waits until it has forked the recorder and exited), so
 *   only the recorder's fork copies the program's page tables.
 * - A session of its own, every signal blocked, no descriptor of the
 *   program's (a pipe the program holds must reach EOF when it ends), its
 *   working directory /: a terminal's ^C, a kill of the process group and
 *   the program's chroot, rlimits and seccomp filter do not reach it.
 * - It ends after the program: the program's exit marks where the trace
 *   ends and asks for the final flush, waiting for an answer only when
 *   there is something to say (ada_recorder_answer_wanted); a program that
 *   dies without asking (a kill, a crash, its last thread's exit system
 *   call) is seen through a pidfd, and its rings, shared, are drained to
 *   their ends after its death. Either way the trace is complete when the
 *   recorder ends, which the lock it holds on the pid directory tells
 *   (ada-symbolize waits on it). An exec ends the image's trace (the exec
 *   flush, waited for); the recorder goes once the program's new image no
 *   longer maps the arena.
 * - What it has to say goes through the shared section's pending lines,
 *   which the program prints after a flush it waited for (util.c), or on a
 *   copy of the program's stderr it takes at the end's request.
 * - A watchdog thread ends it if its passes stop (a bug that blocks it for
 *   good): the program's waits end with it, rather than the program
 *   hanging on a recorder that never drains; the rings it did not drain
 *   are left as at a kill.
 *
 * What a thread in the program could reach directly goes another way: the
 * module scan runs in the program where the dynamic hooks see each dlopen,
 * and without them the recorder reads the program's maps (proc_maps.c);
 * patchable mode's code writes after start-up go through the program's
 * memory, /proc/<pid>/mem, which the recorder opens at its start (the
 * program names it its tracer for Yama's sake).
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ada_internal.h"
#include "proc_state.h"
#include "thread.h"

/* In the recorder: the program's pidfd (-1: look in /proc), and whether
 * this process is the recorder. */
static int program_fd = -1;
static bool is_recorder;
/* The program's stderr, taken at its end's request (-1: none). */
static int late_fd = -1;
static int mem_fd = -1, mem_errno, mem_tries;

/* Opened at the recorder's start, while the program is as it began (it
 * may make itself undumpable later); once more when first wanted, in case
 * the start was before the program named the recorder its tracer. */
static void mem_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/mem", ada_rt.pid);
	mem_fd = open(path, O_RDWR | O_CLOEXEC);
	mem_errno = mem_fd < 0 ? errno : 0;
	mem_tries++;
}

int ada_recorder_mem_fd(void)
{
	if (is_recorder && mem_fd < 0 && mem_tries < 2)
		mem_open();
	return mem_fd;
}

int ada_recorder_mem_errno(void)
{
	return mem_errno;
}

bool ada_recorder_self(void)
{
	return is_recorder;
}

/* The name the program's threads had when it forked the recorder (a new
 * thread takes its creator's): a thread file's name when the program ended
 * before the recorder could read the thread's own from /proc. */
static char program_name[16];

const char *ada_recorder_program_name(void)
{
	return program_name;
}

/* The recorder's watchdog: a second of the program's running time (not
 * while it is stopped: the recorder may wait for a lock a stopped thread
 * holds) in which the writer's passes did not move counts; this many in a
 * row, and the recorder ends. */
static void *watchdog(void *arg)
{
	uint64_t seen = __atomic_load_n(&ada_rt.writer_progress, __ATOMIC_RELAXED);
	uint32_t still = 0;

	(void)arg;
	for (;;) {
		struct timespec second = { 1, 0 };
		uint64_t now;
		char state;

		while (nanosleep(&second, &second) < 0 && errno == EINTR)
			;
		now = __atomic_load_n(&ada_rt.writer_progress, __ATOMIC_RELAXED);
		state = ada_proc_state(ada_rt.pid);
		if (now != seen || state == 'T' || state == 't') {
			seen = now;
			still = 0;
			continue;
		}
		if (++still < ada_rt.cfg.watchdog_s)
			continue;
		ada_warn("the recorder made no progress for %u s and ends; the trace keeps what it "
			 "wrote", still);
		ada_recorder_say_late(); /* the program is gone already: its stderr taken */
		_exit(70);
	}
	return NULL;
}

static void watchdog_start(void)
{
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 << 10);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, watchdog, NULL) != 0)
		ada_warn("cannot start the recorder's watchdog: %s", strerror(errno));
	pthread_attr_destroy(&a);
}

/* Off the CPU it was forked on, if the program may use another: the fork
 * often puts the recorder beside the program (which slept in the vfork
 * meanwhile), and the program, woken, runs there until it blocks, its exit
 * included: the recorder's set-up then falls on the program's exit (0.7
 * ms of 1 on an idle machine of 2 CPUs). Moving once is enough: the mask
 * is all of them again at once, and the scheduler leaves it where it is. */
static int program_cpu = -1; /* where the program spawned it */

static void leave_the_programs_cpu(void)
{
	cpu_set_t mask, other;
	int cpu = sched_getcpu();

	if (cpu < 0 || cpu != program_cpu || sched_getaffinity(0, sizeof(mask), &mask) != 0 ||
	    CPU_COUNT(&mask) < 2 || !CPU_ISSET(cpu, &mask))
		return;
	other = mask;
	CPU_CLR(cpu, &other);
	if (sched_setaffinity(0, sizeof(other), &other) == 0)
		sched_setaffinity(0, sizeof(mask), &mask);
}

/* The pid directory, opened and locked by the program before the spawn:
 * the lock is on the open file, and the recorder's copy is the one left
 * once the program closed its own, so it holds until the recorder ends.
 * ada-symbolize, run after the program ended, waits on it for the trace's
 * files and their end, however late a busy machine lets the recorder make
 * them (the program's exit does not wait for them). -1: not locked. */
static int dir_fd = -1;

static void close_all_but(int keep)
{
	int fd;

	if (keep < 0) {
		if (syscall(SYS_close_range, 0, ~0u, 0) == 0)
			return;
	} else if ((keep == 0 || syscall(SYS_close_range, 0, keep - 1, 0) == 0) &&
		   syscall(SYS_close_range, keep + 1, ~0u, 0) == 0) {
		return;
	}
	for (fd = 0; fd < 1024; fd++)
		if (fd != keep)
			close(fd);
}

/* The recorder's set-up, then the writer's loop; never returns. */
static __attribute__((noreturn)) void recorder_run(void *(*loop)(void *))
{
	uint64_t all = ~0ull;
	int fd;

	is_recorder = true;
	/* _Fork gave this thread a robust list of its own: the kernel marks
	 * the lock when it ends. */
	pthread_mutex_lock(&ada_rt.recorder_life);
	leave_the_programs_cpu();
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all));
	setsid();
	prctl(PR_GET_NAME, program_name); /* the forking thread's, as it was */
	prctl(PR_SET_NAME, "ada-recorder");
	if (ada_rt.cfg.recorder_late_ms)
		usleep(ada_rt.cfg.recorder_late_ms * 1000u);
	prctl(PR_SET_PDEATHSIG, 0);
	ada_meta_release(); /* start-up's descriptor, held by the forking thread */
	close_all_but(dir_fd);
	/* 0, 1 and 2 taken, so that no file of ada's gets a number a library
	 * might print to. */
	fd = open("/dev/null", O_RDWR);
	while (fd >= 0 && fd < 2)
		fd = dup(fd);
	if (chdir("/") < 0) {
		/* the trace's paths are absolute */
	}
	program_fd = (int)syscall(SYS_pidfd_open, ada_rt.pid, 0);
	mem_open();
	ada_thread_untraced();
	ada_warn_all_pending();
	watchdog_start();
	loop(NULL);
	_exit(0);
}

/* Program side, asking for a flush, the recorder dead (killed): nobody
 * writes the manifest's counts any more, so the loss is said here, once:
 * what the rings hold past its last pass, and what threads dropped. */
/* Program side: what the rings hold that the recorder has not drained, and
 * what their threads dropped. */
static void rings_count(uint64_t *undrained, uint64_t *dropped)
{
	*undrained = *dropped = 0;
	for (struct ada_thread *td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td;
	     td = td->next) {
		const struct ada_ring_header *rh = td->rh;

		if (!rh)
			continue;
		*undrained += __atomic_load_n(&rh->head, __ATOMIC_RELAXED) -
			      __atomic_load_n(&rh->tail, __ATOMIC_RELAXED);
		for (int r = 0; r < ADA_DROP_NREASONS; r++)
			*dropped += __atomic_load_n(&rh->dropped[r], __ATOMIC_RELAXED);
	}
}

void ada_recorder_lost(void)
{
	static bool said;
	uint64_t undrained, dropped;

	if (__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		return;
	ada_warn_pending(); /* the recorder's own last words first */
	rings_count(&undrained, &dropped);
	ada_warn("the recorder process ended before the program; the trace ends at its last pass: "
		 "%llu events recorded since are lost, and %llu dropped in all",
		 (unsigned long long)undrained, (unsigned long long)dropped);
}

/* Program side, at its end (exit, _exit): whether to wait for the
 * recorder's answer. Only while the program lives can the recorder take its
 * stderr (for its last lines) and read its maps (ADA_DYNHOOK=off: a library
 * loaded since the last look); the wait costs the program a turn of the
 * recorder on a CPU, milliseconds on a busy machine (issue 23's loaded
 * exit). So the program waits only when it knows of something to hear:
 * the summary (ADA_VERBOSE), the maps, events its threads dropped, triggers
 * that opened no window, the recorder's own lines or losses (say_at_end),
 * a library loaded whose symbols the recorder has not kept yet (it may be
 * deleted right after), a recorder that died (the loss is said here). A
 * loss the recorder first meets in its final flush, after the program
 * ended, is in the threads' end records, which ada-symbolize says when it
 * reads the trace. */
bool ada_recorder_answer_wanted(void)
{
	uint64_t undrained, dropped;

	if (!ada_rt.cfg.dynhook || ada_rt.cfg.verbose || ada_marks_overflowed() ||
	    __atomic_load_n(&ada_rt.say_at_end, __ATOMIC_ACQUIRE) || ada_warn_has_pending() ||
	    ada_writer_symbols_behind() || ada_recorder_gone())
		return true;
	rings_count(&undrained, &dropped);
	return dropped != 0;
}

void ada_recorder_end_asked(uint32_t req)
{
	bool late = false;

	/* ADA_VERBOSE's summary is what its user runs the program for: it is
	 * on the program's stderr before the program ends (which then waits
	 * for the final flush), not written there after a script has read it. */
	if (is_recorder && program_fd >= 0 && !ada_rt.cfg.verbose) {
		late_fd = (int)syscall(SYS_pidfd_getfd, program_fd, STDERR_FILENO, 0);
		/* None, or not the file it was at start: the program would not
		 * have printed there either. */
		late = late_fd >= 0 || errno == EBADF;
		if (late_fd >= 0 && !ada_stderr_is(late_fd)) {
			close(late_fd);
			late_fd = -1;
		}
	}
	__atomic_store_n(&ada_rt.flush_late, late, __ATOMIC_RELEASE);
	__atomic_store_n(&ada_rt.flush_ack, req, __ATOMIC_RELEASE);
	ada_futex_wake(&ada_rt.flush_ack);
}

void ada_recorder_say_late(void)
{
	if (late_fd < 0)
		return;
	ada_warn_pending_to(late_fd);
	close(late_fd);
	late_fd = -1;
}

/* Before each spawn (a fork child's section holds its parent's lock). */
static void life_init(void)
{
	ada_mutex_init_shared(&ada_rt.recorder_life);
	ada_rt.recorder_dead = false;
}

/* What the middle process forks the recorder to run. */
static void *(*mid_loop)(void *);

#define RECORDER_STACK (8u << 20)

/* The recorder's start: off the middle process's small stack, which it
 * inherited, onto one of its own (the writer's loop wants more). */
static __attribute__((noreturn)) void recorder_start(void)
{
	recorder_run(mid_loop);
}

/* The middle process (a task of apart.c's: the program's memory, the
 * program waiting): forks the recorder, stores its pid where the program
 * reads it, exits. Only _Fork runs here. */
static int mid_run(void *arg)
{
	pid_t rec = _Fork();

	(void)arg;
	if (rec == 0) {
		uint8_t *stack = mmap(NULL, RECORDER_STACK, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);

		if (stack == MAP_FAILED)
			_exit(1); /* the program's waits end: the recorder is gone */
		ada_arch_run_on_stack(stack + RECORDER_STACK, recorder_start);
	}
	if (rec > 0)
		__atomic_store_n(&ada_rt.writer_tid, (uint32_t)rec, __ATOMIC_RELEASE);
	return 0;
}

int ada_recorder_spawn(void *(*loop)(void *))
{
	int err, ret;
	uint32_t rec;

	if (ada_rt.cfg.test_refused)
		return -EAGAIN; /* as a fork refused by RLIMIT_NPROC or pids.max */
	__atomic_store_n(&ada_rt.writer_tid, 0, __ATOMIC_RELAXED);
	ada_rt.say_at_end = false;
	ada_rt.modules_late = ada_rt.modules_kept = 0;
	life_init();
	program_cpu = sched_getcpu();
	mid_loop = loop;
	dir_fd = open(ada_rt.pid_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd >= 0 && flock(dir_fd, LOCK_EX | LOCK_NB) < 0) {
		close(dir_fd);
		dir_fd = -1;
	}
	err = ada_task_run(mid_run, NULL, &ret);
	if (dir_fd >= 0) {
		close(dir_fd); /* the recorder's copy holds the lock */
		dir_fd = -1;
	}
	rec = __atomic_load_n(&ada_rt.writer_tid, __ATOMIC_ACQUIRE);
	if (!err && rec)
		/* Yama: the recorder may write the program's code (EINVAL without
		 * Yama, where being the same user is enough). */
		prctl(PR_SET_PTRACER, (unsigned long)rec, 0, 0, 0);
	if (err)
		return err;
	/* The program goes on at once: the recorder is another process, which
	 * the program's chroot or closefrom cannot reach. What the program asks of it before it
	 * runs (a flush) waits for it in the shared section. */
	return rec ? 0 : -EAGAIN;
}

/* Whether the program has ended (exited or killed, a zombie or gone). */
bool ada_recorder_program_gone(void)
{
	if (program_fd >= 0) {
		struct pollfd p = { .fd = program_fd, .events = POLLIN };

		return poll(&p, 1, 0) > 0;
	}
	return ada_proc_ended(ada_rt.pid);
}

/* Whether the program's image still maps the arena (an exec replaced it if
 * not): its maps hold a line that starts at the arena's base. */
bool ada_recorder_image_gone(uintptr_t base)
{
	char path[64], want[32], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", ada_rt.pid);
	snprintf(want, sizeof(want), "%lx-", (unsigned long)base);
	f = fopen(path, "re");
	if (!f)
		return ada_recorder_program_gone();
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, want, strlen(want));
	fclose(f);
	return !found;
}

/* Program side: whether the recorder died (a thread waiting for it gives
 * up then, never because it is slow). No descriptor (a look in /proc
 * would take a number the program's open expects): the recorder's robust
 * lock is taken (it lives), marked by the kernel (it ended: exited, killed,
 * a zombie), or free (it has not taken it yet, or died first: kill says). */
bool ada_recorder_gone(void)
{
	uint32_t pid = __atomic_load_n(&ada_rt.writer_tid, __ATOMIC_ACQUIRE);
	int r;

	if (!pid || __atomic_load_n(&ada_rt.recorder_dead, __ATOMIC_ACQUIRE))
		return true;
	r = pthread_mutex_trylock(&ada_rt.recorder_life);
	if (r == EBUSY)
		return false;
	if (r == EOWNERDEAD || r == ENOTRECOVERABLE) {
		/* Kept: the next look sees the flag. */
		__atomic_store_n(&ada_rt.recorder_dead, true, __ATOMIC_RELEASE);
		return true;
	}
	if (r == 0)
		pthread_mutex_unlock(&ada_rt.recorder_life);
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

