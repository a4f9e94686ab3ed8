/* recorder.c - the recorder process, as the program sees it: forked,
 * asked, watched. Its own side (its start, its loop) is recorder/.
 *
 * A writer thread (ada's before issue 23) made every traced program
 * multi-threaded, ran under its seccomp filter, rlimits and chroot, and
 * shared its CPU time. Instead start-up (still single-threaded) maps the
 * shared section and the arena shared (shared.h, arena.c), then forks a
 * process that runs the writer's loop (recorder/writer.c) on them: the
 * rings, the thread registry, the requests and the queues are where the
 * program's threads write them. Nothing of it is in the program: no thread, no
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
 * and without them the recorder reads the program's maps
 * (recorder/modmap_look.c);
 * patchable mode's code writes after start-up go through the program's
 * memory, /proc/<pid>/mem, which the recorder opens at its start (the
 * program names it its tracer for Yama's sake).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ada_internal.h"

bool ada_in_recorder;
void (*ada_recorder_entry)(const struct ada_recorder_start *) __attribute__((noreturn));

bool ada_recorder_self(void)
{
	return ada_in_recorder;
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

/* Before each spawn (a fork child's section holds its parent's lock). */
static void life_init(void)
{
	ada_mutex_init_shared(&ada_rt.recorder_life);
	ada_rt.recorder_dead = false;
}

/* What the program hands the recorder, set before each spawn: the CPU the
 * program runs on, and the pid directory, opened and locked: the lock is
 * on the open file, and the recorder's copy is the one left once the
 * program closed its own, so it holds until the recorder ends.
 * ada-symbolize, run after the program ended, waits on it for the trace's
 * files and their end, however late a busy machine lets the recorder make
 * them (the program's exit does not wait for them). dir_fd -1: not locked. */
static struct ada_recorder_start start;

#define RECORDER_STACK (8u << 20)

/* The recorder's start: off the middle process's small stack, which it
 * inherited, onto one of its own (the writer's loop wants more). */
static __attribute__((noreturn)) void recorder_start(void)
{
	ada_recorder_entry(&start);
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

/* The middle process as a plain fork, where no task can share the
 * program's memory: qemu-user refuses such a clone (it runs a CLONE_VM
 * task only as a thread, and a clone that is not one only as a fork that
 * signals SIGCHLD). The one thing the middle process hands back, the
 * recorder's pid, is in the shared section, which a fork shares too; the
 * program waits for it as for the task. Its SIGCHLD, not the program's
 * to see, is taken while the signals are blocked (one the program had
 * pending already stays). */
static int mid_fork(void)
{
	int saved = errno, err = 0;
	sigset_t old, pending, chld;
	bool had_chld;
	pid_t pid;

	ada_signals_block(&old);
	sigpending(&pending);
	had_chld = sigismember(&pending, SIGCHLD);
	pid = _Fork();
	if (pid == 0)
		_exit(mid_run(NULL));
	if (pid < 0)
		err = -errno;
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (pid > 0 && !had_chld) {
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigtimedwait(&chld, NULL, &(struct timespec){ 0 });
	}
	ada_signals_restore(&old);
	errno = saved;
	return err;
}

int ada_recorder_spawn(void)
{
	int err, ret;
	uint32_t rec;

	if (ada_rt.cfg.test_refused)
		return -EAGAIN; /* as a fork refused by RLIMIT_NPROC or pids.max */
	__atomic_store_n(&ada_rt.writer_tid, 0, __ATOMIC_RELAXED);
	ada_rt.say_at_end = false;
	ada_rt.modules_late = ada_rt.modules_kept = 0;
	life_init();
	if (ada_launch_adopted())
		return ada_launch_hand_over(); /* `ada record`'s recorder runs already */
	if (!ada_recorder_entry)
		return -ENOSYS; /* libada without recorder/ (never: built together) */
	start.program_cpu = sched_getcpu();
	start.dir_fd = open(ada_rt.pid_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (start.dir_fd >= 0 && flock(start.dir_fd, LOCK_EX | LOCK_NB) < 0) {
		close(start.dir_fd);
		start.dir_fd = -1;
	}
	err = ada_task_run(mid_run, NULL, &ret);
	if (err == -EINVAL)
		err = mid_fork();
	if (start.dir_fd >= 0) {
		close(start.dir_fd); /* the recorder's copy holds the lock */
		start.dir_fd = -1;
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

/* A library was loaded since the recorder last kept symbols: asked by the
 * program before its exit (worth waiting for) and by the recorder. */
bool ada_writer_symbols_behind(void)
{
	return __atomic_load_n(&ada_rt.modules_kept, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&ada_rt.modules_late, __ATOMIC_ACQUIRE);
}

/* Wakes the recorder now if it sleeps (a ring passed half full, a flush, a
 * record queued). */
void ada_writer_kick(void)
{
	if (!__atomic_exchange_n(&ada_rt.writer_kick, 1, __ATOMIC_SEQ_CST))
		ada_futex_wake(&ada_rt.writer_kick);
}

int ada_writer_start(void)
{
	int err;

	if (ada_rt.rings_only)
		return ada_rings_only_start(0);
	/* It allocates its buffers itself: none in the program. */
	err = ada_recorder_spawn();
	if (err)
		/* No thread of ada's in the program instead: ring mode. */
		return ada_rings_only_start(err);
	/* Threads may wait for it from now; one that gave up already (its
	 * files could not be made) stays not live: no thread waits for it. */
	__atomic_store_n(&ada_rt.writer_live, true, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ada_rt.writer_failed, __ATOMIC_SEQ_CST))
		__atomic_store_n(&ada_rt.writer_live, false, __ATOMIC_SEQ_CST);
	return 0;
}

/* In a fork child: the parent's streams and windows are the parent's
 * recorder's memory; the child forks a recorder of its own. */
void ada_writer_after_fork(void)
{
	struct ada_thread *self = ada_self.td;

	/* The forking thread's own first: the walk below may not reach it.
	 * The other threads' states are zero pages in the child (the arena
	 * was made its own), and the first of them ends the list. Its
	 * windows kept would be the parent's recorder's pointer, which the
	 * child's recorder follows: into memory it does not have when that
	 * recorder was `ada record`'s (a SIGSEGV, the child's trace left
	 * without its threads and its end), or into a stale copy. */
	if (self) {
		self->ws = NULL;
		self->windows = NULL;
	}
	for (struct ada_thread *td = ada_rt.threads; td; td = td->next) {
		td->ws = NULL;
		td->windows = NULL;
	}
	ada_rt.flush_req = ada_rt.flush_done = 0;
	ada_rt.writer_live = false;
}
