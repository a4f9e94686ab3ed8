/* init.c - the traced process's lifecycle: start, fork, exec and exit.
 *
 * Start (a constructor that runs before the program's own): read the
 * configuration, create <output>/session_<time>/pid_<pid>/raw/, record the
 * process, its modules and a clock pair, start the writer. Threads set
 * themselves up lazily on their first event (thread.c).
 *
 * Exit (a destructor that runs after the program's atexit handlers and
 * destructors, libada being a dependency of everything instrumented): stop the
 * writer, drain every ring, record how every thread ended.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ada_internal.h"
#include "control.h" /* ADA_CTL_FINDER: the page of process.meta kept mapped */

union ada_rt_area ada_rt_area ADA_SHARED_AT;
struct ada_code_passes ada_passes;
static char session_dir[4300];

static const char *env_get(const char *name)
{
	return getenv(name);
}

/* Where this process's trace goes: the session `ada record` made its pid
 * directory in while the program started, else the one chosen here
 * (job_session.c). */
static void make_session_dir(void)
{
	char cwd[PATH_MAX] = "";
	char out[sizeof(ada_rt.cfg.output)];

	snprintf(out, sizeof(out), "%s", ada_rt.cfg.output);
	/* Absolute, so a program that changes directory still writes here. */
	if (out[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	if (!ada_launch_session(session_dir, sizeof(session_dir)))
		ada_session_choose(cwd, out, getpid(), getppid(), 4, session_dir, sizeof(session_dir));
	/* The manifest shows where the trace went, not how it was asked for. */
	if (snprintf(ada_rt.cfg.output, sizeof(ada_rt.cfg.output), "%s%s%s", cwd, *cwd ? "/" : "",
		     out) >= (int)sizeof(ada_rt.cfg.output))
		snprintf(ada_rt.cfg.output, sizeof(ada_rt.cfg.output), "%s", out);
}

/* Reads the command line from /proc: argv is not ours to look at. */
static size_t read_cmdline(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cmdline", "re");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, len, f);
	fclose(f);
	return n;
}

/* ada-ctl finds the trace's directory in /proc/<pid>/maps: one page of
 * raw/process.meta stays mapped (PROT_NONE: nothing is read or counted
 * against the program) from the start of the trace, in the process that
 * made the files (the recorder, or the program where none runs). Not a
 * descriptor: a program may close every descriptor it did not open. Not
 * the rings: they are in memory, and a thread has none before its first
 * event (none at all with ADA_TRACE=off in patchable mode). finder: the
 * page, and finder_pid the process it was mapped in: a fork child has the
 * variables but not the mapping (MADV_DONTFORK). */
static void *finder;
static uint32_t finder_pid;

static void control_findable(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char path[sizeof(ada_rt.pid_dir) + sizeof(ADA_CTL_FINDER)];
	void *p;
	int fd;

	if (finder && finder_pid == ada_rt.pid) /* process.meta made again */
		munmap(finder, page);
	finder = NULL;
	snprintf(path, sizeof(path), "%s" ADA_CTL_FINDER, ada_rt.pid_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	p = mmap(NULL, page, PROT_NONE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return;
	madvise(p, page, MADV_DONTFORK); /* a child's trace is its own, mapped by it */
	finder = p;
	finder_pid = ada_rt.pid;
}

/* The trace's files: raw/, process.meta with its header, and the page of it
 * ada-ctl finds the process by. A recorder makes them, its first work
 * (writer.c): in its descriptor table, never in a program thread's, and
 * off start-up's path (two of the three inodes start-up made: a few
 * hundred microseconds on a disk that just deleted much); start-up makes
 * the pid directory only. Where no recorder runs, start-up makes them
 * itself (rings_only.c). */
int ada_process_files(void)
{
	int err;

	if (__atomic_load_n(&ada_rt.files_made, __ATOMIC_ACQUIRE))
		return 0;
	err = ada_mkdirs(ada_rt.raw_dir);
	if (err < 0) {
		ada_warn("cannot create %s: %s; tracing off", ada_rt.raw_dir, strerror(-err));
		return err;
	}
	err = ada_meta_create();
	if (err < 0)
		return err;
	/* Start-up's records, queued for a recorder before it was forked: in
	 * before anything says the files are there. */
	ada_meta_queue_flush();
	control_findable();
	__atomic_store_n(&ada_rt.files_made, 1, __ATOMIC_RELEASE);
	ada_futex_wake(&ada_rt.files_made);
	return 0;
}

/* The records that open process.meta: the process (its start, sampled
 * before the pool names files after it), the configuration, the modules
 * loaded now. Queued for the writer, which has made the file by the time
 * it writes them; the writer's own (ada_trace_again) go straight in. */
static void process_records(const struct ada_meta_clock *c)
{
	struct ada_meta_process p = { 0 };
	char extra[8192], cfg[8192];
	size_t n;

	p.pid = ada_rt.pid;
	p.ppid = (uint32_t)getppid();
	p.parent_pid = ada_rt.parent_pid;
	p.flags = (ada_arch_ticks_invariant() ? ADA_PROC_TSC_INVARIANT : 0) |
		  (ada_launch_adopted() ? ADA_PROC_LAUNCHED : 0);
	p.start_tsc = c->tsc;
	p.start_boottime_ns = c->boottime_ns;
	p.start_realtime_ns = (uint64_t)time(NULL) * 1000000000ull;
	p.tsc_hz = ada_arch_ticks_hz();
	n = (size_t)snprintf(extra, sizeof(extra), "%s", ada_rt.exe) + 1;
	n += read_cmdline(extra + n, sizeof(extra) - n);
	ada_meta_write(ADA_META_PROCESS, &p, sizeof(p), extra, n);
	ada_meta_write(ADA_META_PRODUCER, ADA_VERSION, sizeof(ADA_VERSION), NULL, 0);
	n = (size_t)ada_config_format(&ada_rt.cfg, cfg, sizeof(cfg));
	ada_meta_write(ADA_META_CONFIG, cfg, n < sizeof(cfg) ? n : sizeof(cfg), NULL, 0);
	ada_modmap_scan(true);
	/* The clock's first point: the process's start. */
	ada_meta_write(ADA_META_CLOCK, c, sizeof(*c), NULL, 0);
}

static void process_clock(struct ada_meta_clock *c)
{
	ada_clock_sample(c);
	ada_rt.start_ns = c->boottime_ns;
	ada_rt.start_tsc = c->tsc;
}

/* A process none of whose threads recorded anything (the middle process of
 * a daemon's double fork, a child that execs or exits at once) leaves no
 * trace at all, rather than a pid directory with no thread in it: its
 * process.meta, raw/ and pid_<pid>/ go, and the session directory too if
 * nothing else is in it (rmdir fails otherwise). The same when process.meta
 * cannot be written at start (a full disk): no unreadable trace is left. */
void ada_trace_remove(void)
{
	char path[sizeof(ada_rt.raw_dir) + 16], *slash;

	__atomic_store_n(&ada_rt.files_made, 0, __ATOMIC_RELEASE);
	snprintf(path, sizeof(path), "%s/process.meta", ada_rt.raw_dir);
	unlink(path);
	rmdir(ada_rt.raw_dir);
	rmdir(ada_rt.pid_dir);
	snprintf(path, sizeof(path), "%s", ada_rt.pid_dir);
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		rmdir(path);
	}
}

/* exec failed after the exec flush removed the trace of a process that had
 * recorded nothing: the process goes on, and its trace starts again. On the
 * writer (hold: it keeps a descriptor of process.meta). */
int ada_trace_again(bool hold)
{
	struct ada_meta_clock c;
	int err;

	ada_meta_release();
	ada_modmap_reset();
	err = ada_process_files();
	if (err < 0)
		return err;
	if (hold)
		ada_meta_hold();
	process_clock(&c);
	process_records(&c);
	if (ada_passes.trace_begun)
		ada_passes.trace_begun();
	return 0;
}

/* The records first (queued for a recorder, which makes the file; its
 * fork's copy of the module map then knows what they say), then the
 * writer. */
static int process_begin(uint32_t parent_pid)
{
	struct ada_meta_clock c;
	int err;

	ada_rt.pid = (uint32_t)getpid();
	ada_rt.parent_pid = parent_pid;
	snprintf(ada_rt.pid_dir, sizeof(ada_rt.pid_dir), "%s/pid_%u", session_dir, ada_rt.pid);
	snprintf(ada_rt.raw_dir, sizeof(ada_rt.raw_dir), "%s/raw", ada_rt.pid_dir);
	ada_rt.files_made = 0;
	ada_meta_name(ada_rt.raw_dir);
	if (ada_rt.rings_only) { /* no recorder will make them (rings_only.c) */
		err = ada_process_files();
		if (err < 0) {
			ada_trace_remove();
			return err;
		}
		/* Start-up's records through one descriptor, closed before
		 * the program runs. */
		ada_meta_hold();
	} else if ((err = ada_mkdirs(ada_rt.pid_dir)) < 0) {
		/* The pid directory is the program's to make: an output that
		 * cannot be written is said at once, and ada-symbolize, run
		 * right after a program killed at its start, knows that a
		 * trace is coming (raw_meta.c waits for its recorder). */
		ada_warn("cannot create %s: %s; tracing off", ada_rt.pid_dir, strerror(-err));
		ada_trace_remove();
		return err;
	}
	ada_meta_defer(!ada_rt.rings_only);
	process_clock(&c);
	process_records(&c);
	err = ada_writer_start();
	ada_meta_defer(false);
	ada_meta_release();
	return err;
}

/* The fork handlers run on the program's thread; their own library calls
 * (the child's recorder spawn) are not the program's.
 * Signals stay blocked from prepare to the end of the parent's or the
 * child's handler: fork is async-signal-safe, so a handler may siglongjmp
 * out of a signal that interrupts it, which must not leave the thread's
 * guard set. Per thread: two threads may fork
 * at once. */
static __thread struct ada_runtime_work fork_work __attribute__((tls_model("initial-exec")));

/* With a recorder, the forking thread's state is in memory the child
 * shares with the parent until it makes it its own, and the parent goes on
 * changing it meanwhile (it returns from fork, calls, returns): the child
 * takes it from a private copy made before the fork, where the thread
 * stood still. Its state, its shadow stack as deep as it is, its orphans. */
struct fork_copy {
	void *to[3];
	size_t lens[3];
	uint8_t *buf;
	size_t len;
};
static __thread struct fork_copy fork_copy __attribute__((tls_model("initial-exec")));

static void fork_copy_make(struct fork_copy *c)
{
	struct ada_thread *td = ada_self.td;
	size_t at = 0;

	memset(c, 0, sizeof(*c));
	if (!ada_shared_on || !td)
		return;
	c->to[0] = td;
	c->lens[0] = sizeof(*td);
	c->to[1] = td->shadow;
	c->lens[1] = td->shadow ? (size_t)(td->depth < td->shadow_cap ? td->depth : td->shadow_cap) *
					  sizeof(struct ada_frame)
				: 0;
	c->to[2] = td->orphans;
	c->lens[2] = td->orphans ? td->orphans_bytes : 0;
	c->len = c->lens[0] + c->lens[1] + c->lens[2];
	c->buf = mmap(NULL, c->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->buf == MAP_FAILED) {
		c->buf = NULL;
		return;
	}
	for (int i = 0; i < 3; i++) {
		if (c->lens[i])
			memcpy(c->buf + at, c->to[i], c->lens[i]);
		at += c->lens[i];
	}
}

static void fork_copy_drop(struct fork_copy *c)
{
	if (c->buf)
		munmap(c->buf, c->len);
	c->buf = NULL;
}

static void fork_prepare(void)
{
	ada_runtime_begin(&fork_work);
	fork_copy_make(&fork_copy);
}

static void fork_parent(void)
{
	fork_copy_drop(&fork_copy);
	ada_runtime_end(&fork_work);
}

/* The child's own shared memory (fork_copy): fresh pages at the same
 * addresses, the forking thread's state copied back. Whether it worked. */
static bool fork_rehome(struct fork_copy *c)
{
	const void *from[3];
	size_t at = 0;
	bool ok;

	if (!ada_shared_on)
		return true;
	for (int i = 0; i < 3; i++) {
		from[i] = c->buf ? c->buf + at : NULL;
		at += c->lens[i];
	}
	ok = (c->buf || !c->len) && ada_shared_rehome() == 0 &&
	     ada_arena_rehome(c->to, from, c->lens, 3) == 0;
	fork_copy_drop(c);
	return ok;
}

/* The child is a new traced process: pid_<child> in the same session. */
static void fork_child(void)
{
	uint32_t parent = ada_rt.pid;

	/* First of all, the memory shared with the parent's recorder becomes
	 * the child's own. If it cannot, the child's writes would land in the
	 * parent's trace: this thread goes untraced, nothing shared touched. */
	if (!fork_rehome(&fork_copy)) {
		ada_thread_untraced();
		fork_work.td = NULL;
		ada_runtime_end(&fork_work);
		return;
	}

	if (!ada_rt.active) {
		/* After the final flush: the rings are the parent's (shared). */
		ada_thread_untraced();
		fork_work.td = NULL;
		ada_runtime_end(&fork_work);
		return;
	}
	ada_writer_after_fork();
	ada_meta_queue_forget();
	ada_modmap_reset();
	ada_thread_fork_forget();
	if (process_begin(parent) < 0) {
		__atomic_store_n(&ada_rt.active, false, __ATOMIC_RELEASE);
		ada_thread_untraced();
	} else {
		ada_thread_after_fork(ada_arch_ticks());
		if (ada_passes.trace_begun)
			ada_passes.trace_begun();
	}
	fork_work.td = ada_self.td; /* NULL if the child is not traced */
	ada_runtime_end(&fork_work);
}

/* Whether this is a second copy of libada, in a namespace dlmopen made,
 * while the program's default namespace has one: an instrumented library
 * loaded that way brings its own. The first copy traces; this one stays
 * off, as with ADA_DISABLE (two runtimes would hijack the same frames and
 * write two sessions). */
static bool secondary_copy(void)
{
	struct link_map *self;
	Dl_info info;
	Lmid_t lmid;
	void *first;

	if (!dladdr1((void *)secondary_copy, &info, (void **)&self, RTLD_DL_LINKMAP) ||
	    dlinfo(self, RTLD_DI_LMID, &lmid) != 0 || lmid == LM_ID_BASE)
		return false;
	first = dlmopen(LM_ID_BASE, "libada.so", RTLD_LAZY | RTLD_NOLOAD);
	if (!first)
		return false;
	dlclose(first);
	return true;
}

/* Start-up proper: whether the process is traced. */
static bool start(void)
{
	extern char **environ;
	ssize_t n;

	ada_stderr_remember();
	/* Read once: the process record, the module map and the hooks name the
	 * executable by it (dl_iterate_phdr gives it no name). */
	n = readlink("/proc/self/exe", ada_rt.exe, sizeof(ada_rt.exe) - 1);
	ada_rt.exe[n > 0 ? n : 0] = '\0';
	ada_config_load(&ada_rt.cfg, env_get);
	ada_config_warn_unknown(environ);
	if (ada_rt.cfg.disabled)
		return false;
	if (pthread_key_create(&ada_rt.exit_key, ada_thread_exit) != 0)
		return false;
	/* ADA_TRACE=off: before the first patch, which then leaves entries
	 * NOPs, be it this thread's below or the writer's, which starts now. */
	if (ada_rt.cfg.start_off)
		__atomic_store_n(&ada_recording_off, 1, __ATOMIC_RELAXED);
	make_session_dir();
	/* A recorder reads what the threads write: the shared section and the
	 * arena mapped shared before it is forked, or `ada record`'s, whose
	 * recorder runs already. */
	if (ada_launch_map(ada_arena_len(ada_thread_kit_bytes(), true))) {
		/* the launcher's memory, mapped shared */
	} else if (ada_shared_start() < 0 || ada_arena_start(ada_thread_kit_bytes(), true) < 0) {
		ada_warn("cannot map memory to share with a recorder process (%s): recording "
			 "in ring mode, each thread's last %llu KiB written when the program ends",
			 strerror(errno), (unsigned long long)(ada_rt.cfg.ring_bytes / 1024));
		ada_rt.rings_only = true;
		if (!ada_arena_base())
			ada_arena_start(ada_thread_kit_bytes(), false);
	}
	if (process_begin(0) < 0)
		return false;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	/* Before any handler that asks whose code an address is. */
	ada_own_code_find();
	/* Before any thread's state can be set up: each makes its timer then. */
	ada_counters_start();
	/* Release: a thread that sees active sees the configuration too. */
	__atomic_store_n(&ada_rt.active, true, __ATOMIC_RELEASE);
	ada_crash_install();
	ada_signal_triggers_install();
	if (ada_passes.start)
		ada_passes.start();
	/* The program's own constructors and threads run from here. */
	ada_apart_needed = true;
	return true;
}

__attribute__((constructor(102))) static void ada_start(void)
{
	/* bin/ada links the runtime for its recorder, and traces nothing. */
	if (secondary_copy() || ada_recorder_self())
		return;
	/* First: whatever happens, the launcher's descriptor is closed and
	 * the launcher answered before the program runs. */
	ada_launch_take();
	ada_launch_done(start());
}

__attribute__((destructor(101))) static void ada_finish(void)
{
	struct ada_runtime_work w;

	/* A vfork child calling exit(): the writer and the rings are the
	 * parent's, which goes on tracing. */
	if (ada_in_vfork_child() || ada_recorder_self())
		return; /* bin/ada's exit: the program's trace is not its to end */
	/* The exiting thread's last sample, before anything of ada's runs. */
	ada_counters_thread_end();
	/* The flush's own library calls (lz4's) are not the program's. */
	ada_runtime_begin(&w);
	/* New threads stay untraced from here; running ones write into rings
	 * nobody drains, and their trace ends at this point. Only one caller
	 * flushes (exit and _exit may race in two threads). */
	if (__atomic_exchange_n(&ada_rt.active, false, __ATOMIC_ACQ_REL))
		ada_writer_stop();
	ada_runtime_end(&w);
}

/* exec and _exit may be called from a signal handler (both are
 * async-signal-safe): the recorder does the work, and the caller waits for
 * it a bounded time. */
#define END_FLUSH_TIMEOUT_NS 2000000000ull

/* Before exec replaces the image: everything recorded so far goes to disk.
 * (exec.c calls this; if exec fails the program goes on, still traced.) */
void ada_before_exec(void)
{
	if (ada_in_vfork_child())
		return; /* nothing of its own recorded; the writer is the parent's */
	/* exec deletes the timers; deleted here first, so that none of its
	 * signals is pending for an image that has no handler for it. */
	ada_counters_thread_stop();
	if (__atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE)) {
		ada_writer_request(ADA_FLUSH_EXEC, END_FLUSH_TIMEOUT_NS);
		ada_warn_pending();
	}
}

/* exec failed: the program goes on in this image, still traced. */
void ada_after_failed_exec(void)
{
	if (ada_in_vfork_child())
		return; /* _exit is next; the trace is the parent's */
	if (__atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE)) {
		ada_writer_request(ADA_FLUSH_EXEC_FAILED, END_FLUSH_TIMEOUT_NS);
		ada_warn_pending();
	}
	if (ada_self.td)
		ada_counters_thread_start();
}

/* Before _exit: the trace ends here as at exit(), not as a kill. */
void ada_before__exit(void)
{
	bool say;

	/* A vfork child's parent goes on tracing; a recorder's _exit (one that
	 * gave up, its watchdog) must not end the program's trace, which
	 * shares the switch. */
	if (ada_in_vfork_child() || ada_recorder_self())
		return;
	if (__atomic_exchange_n(&ada_rt.active, false, __ATOMIC_ACQ_REL)) {
		ada_writer_request_end(ADA_FLUSH__EXIT, END_FLUSH_TIMEOUT_NS, &say);
		if (say)
			ada_warn_pending();
	}
}
