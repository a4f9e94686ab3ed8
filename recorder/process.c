/* process.c - the recorder process: its start, and its view of the program.
 *
 * The program forks it at start-up (runtime/recorder.c: twice, so that it
 * is nobody's child) and it runs here, in the program's image but in a
 * process of its own: it blocks every signal, starts a session, closes
 * every descriptor of the program's but the locked pid directory, takes /
 * as its directory, opens the program's pidfd and memory, starts its
 * watchdog and runs the writer's loop (writer.c) until the program's trace
 * is finished. runtime/ never calls into this folder: the start is handed
 * over (ada_recorder_entry) by the constructor below, before start-up runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ada_internal.h"
#include "proc_state.h"
#include "writer.h"

/* The program's pidfd (-1: look in /proc). */
static int program_fd = -1;
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
	if (ada_recorder_self() && mem_fd < 0 && mem_tries < 2)
		mem_open();
	return mem_fd;
}

int ada_recorder_mem_errno(void)
{
	return mem_errno;
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
static void leave_the_programs_cpu(int program_cpu)
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

/* The recorder's set-up done, the rest of it, then the writer's loop
 * until the program's trace is finished. */
static void recorder_loop(void)
{
	mem_open();
	ada_thread_untraced();
	ada_meta_queue_reader = ada_modmap_note_records;
	ada_warn_all_pending();
	watchdog_start();
	ada_writer_loop();
}

/* The recorder's set-up, then the writer's loop; never returns. */
static __attribute__((noreturn)) void recorder_run(const struct ada_recorder_start *start)
{
	uint64_t all = ~0ull;
	int fd;

	ada_in_recorder = true;
	/* _Fork gave this thread a robust list of its own: the kernel marks
	 * the lock when it ends. */
	pthread_mutex_lock(&ada_rt.recorder_life);
	leave_the_programs_cpu(start->program_cpu);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all));
	setsid();
	prctl(PR_GET_NAME, program_name); /* the forking thread's, as it was */
	prctl(PR_SET_NAME, "ada-recorder");
	if (ada_rt.cfg.recorder_late_ms)
		usleep(ada_rt.cfg.recorder_late_ms * 1000u);
	prctl(PR_SET_PDEATHSIG, 0);
	ada_meta_release(); /* start-up's descriptor, held by the forking thread */
	close_all_but(start->dir_fd);
	/* 0, 1 and 2 taken, so that no file of ada's gets a number a library
	 * might print to. */
	fd = open("/dev/null", O_RDWR);
	while (fd >= 0 && fd < 2)
		fd = dup(fd);
	if (chdir("/") < 0) {
		/* the trace's paths are absolute */
	}
	program_fd = (int)syscall(SYS_pidfd_open, ada_rt.pid, 0);
	recorder_loop();
	_exit(0);
}

/* `ada record`'s (launcher/): a thread of the launcher, whose memory the
 * program adopted at its start (runtime/launch.c). What a fork of the
 * program would have inherited it learns otherwise: the modules from the
 * program's queued records, as a forked recorder follows later ones; the
 * program's name from /proc; its stderr's identity from the launcher's
 * own, which the program inherited. The launcher's session, descriptors
 * and directory are its own to keep. */
void ada_recorder_run_launched(uint32_t program_pid, int pidfd)
{
	uint64_t all = ~0ull;

	ada_in_recorder = true;
	pthread_mutex_lock(&ada_rt.recorder_life);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all));
	ada_proc_read(program_pid, "comm", program_name, sizeof(program_name));
	program_name[strcspn(program_name, "\n")] = '\0';
	ada_stderr_remember();
	ada_meta_name(ada_rt.raw_dir);
	program_fd = pidfd;
	recorder_loop();
}

void ada_recorder_end_asked(uint32_t req)
{
	bool late = false;

	/* ADA_VERBOSE's summary is what its user runs the program for: it is
	 * on the program's stderr before the program ends (which then waits
	 * for the final flush), not written there after a script has read it. */
	if (ada_recorder_self() && program_fd >= 0 && !ada_rt.cfg.verbose) {
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

__attribute__((constructor(101))) static void entry_hand_over(void)
{
	ada_recorder_entry = recorder_run;
}
