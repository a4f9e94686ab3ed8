/* ada_internal.h - hidden declarations shared by the runtime's files.
 *
 * Data flow inside the traced process:
 *   cyg.c hooks → thread.h fast path → per-thread ring
 *   writer.c thread → encode.c (compact stream) → lz4 frames → raw/thread_<N>.lz4
 *   meta.c → raw/process.meta (process, clock, modules, functions, threads)
 *   init.c: process lifecycle (start, exit, fork, exec)
 */
#ifndef ADA_INTERNAL_H
#define ADA_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "shared.h"
#include "thread.h"
#include "trigger.h"

/* ---- configuration (config.c) ------------------------------------------------- */
struct ada_config {
	bool disabled;            /* ADA_DISABLE=1 */
	char output[4096];        /* ADA_OUTPUT, made absolute at start */
	uint64_t ring_bytes;      /* ADA_RING_KB * 1024, a power of two */
	uint32_t depth;           /* ADA_DEPTH: frames deeper are not recorded (by request) */
	uint32_t shadow_depth;    /* ADA_SHADOW_DEPTH: frames checked against their exits */
	uint32_t flush_ms;        /* ADA_FLUSH_MS: the writer's idle interval */
	bool quiet;               /* ADA_QUIET=1: no stderr report at exit */
	bool detail;              /* ADA_DETAIL is not off: registers and stack captured */
	bool detail_window;       /* ADA_DETAIL=window (default): kept in windows only */
	bool ring_mode;           /* ADA_RECORD=ring: rings roll, written at snapshots */
	struct ada_trigger_cfg trigger; /* ADA_TRIGGER, ADA_PRE, ADA_POST */
	uint32_t stack_bytes;     /* ADA_STACK_BYTES: the stack window, 0..512 */
	uint64_t detail_bytes;    /* ADA_DETAIL_KB * 1024, a power of two */
	bool dynhook;             /* ADA_DYNHOOK=on (default) | off: hook PLT/GOT slots */
	char exclude[1024];       /* ADA_EXCLUDE: module[:symbol] globs, comma-separated */
	char filter[1024];        /* ADA_FILTER: patchable mode traces these functions only */
	char notrace[1024];       /* ADA_NOTRACE: and never these (name globs, comma-separated) */
	char graph[1024];         /* ADA_GRAPH: record only inside these functions' calls */
	bool start_off;           /* ADA_TRACE=off: recording starts off (ada_enable turns it on) */
	int toggle_signal;        /* ADA_TOGGLE_SIGNAL: turns recording off and on; 0 none */
	bool on_full_drop;        /* ADA_ON_FULL=drop: a full ring drops (default wait) */
	uint32_t writer_delay_us; /* ADA_TEST_WRITER_DELAY_US: tests slow the writer */
	uint32_t recorder_late_ms; /* ADA_TEST_RECORDER_LATE_MS: a recorder starts late */
	uint32_t watchdog_s;      /* ADA_TEST_WATCHDOG_S: a recorder without progress
				   * this long ends (recorder.c) */
	bool test_hang;           /* ADA_TEST_RECORDER_HANG: it blocks at the final flush */
	bool test_refused;        /* ADA_TEST_RECORDER_REFUSED: its fork fails */
	bool test_launch_taken;   /* ADA_TEST_LAUNCH_TAKEN: `ada record`'s arena address
				   * is taken in the program (launch.c) */
	bool verbose;             /* ADA_VERBOSE=1: the recording's summary at exit, even
				   * when nothing was lost */
	bool alloc;               /* ADA_ALLOC=1: the malloc family's blocks (mcount/alloc.c);
				   * last, so that the hooks' offsets into the struct hold */
	uint32_t counters_us;     /* ADA_COUNTERS: the counter lane's period in
				   * microseconds of thread CPU time; 0 off (counters.c) */
	bool blocking;            /* ADA_BLOCKING=1: waits on locks, semaphores and
				   * reads, and mutex releases (mcount/blocking.c) */
};

/* Reads the ADA_* variables from `getenv_fn` (getenv, or a test's table). An
 * invalid value prints one line naming the variable, the value and what is
 * accepted, and keeps the default. */
ADA_HIDDEN void ada_config_load(struct ada_config *c, const char *(*getenv_fn)(const char *));
/* One line for each ADA_* variable in env that nobody knows (likely a typo). */
ADA_HIDDEN void ada_config_warn_unknown(char *const *env);
/* The accepted values, one "NAME=value" string per setting, for the manifest. */
ADA_HIDDEN int ada_config_format(const struct ada_config *c, char *buf, size_t len);

/* ---- process-wide state (init.c) ---------------------------------------------- */
struct ada_runtime {
	struct ada_config cfg;
	bool active;               /* tracing this process */
	uint32_t pid;
	uint32_t parent_pid;        /* the traced parent's pid after fork, else 0 */
	char pid_dir[4352];        /* <output>/session_…/pid_<pid> */
	char raw_dir[4400];        /* pid_dir/raw */
	char exe[4096];            /* the executable's path (/proc/self/exe), or "" */
	struct ada_thread *threads; /* registry, pushed with CAS, newest first */
	uint32_t next_ordinal;
	pthread_key_t exit_key;    /* its destructor marks a thread exited */
	uint64_t start_ns;         /* CLOCK_BOOTTIME at start: names /dev/shm ring files */
	uint64_t start_tsc;        /* the ticks paired with it: times in ticks (window.c) */
	/* The writer: running (threads may wait for it), how many passes it made
	 * (a waiting thread watches it move), and the futex word it sleeps on. */
	bool writer_live;
	bool writer_failed;        /* it could not make the trace's files */
	uint32_t files_made;       /* futex word: raw/ and process.meta are there */
	uint64_t writer_progress;
	uint64_t writer_ticks;     /* the clock at the writer's last pass (crash.c's
				    * stand-in for a thread whose TSC is off) */
	uint32_t writer_kick;
	uint32_t writer_tid;       /* the recorder's pid */
	/* Held by the recorder from its start, robust: the kernel marks it
	 * when the recorder ends (before it is a zombie), so that the program
	 * asks whether it lives with a look at memory (recorder.c). */
	pthread_mutex_t recorder_life;
	bool recorder_dead;
	/* A thread that must not do the writer's work itself (a fatal signal's
	 * handler, _exit, exec: all may run in a signal handler) asks for it
	 * (flush_req, flush_how) and waits for the writer to say it is done
	 * (flush_done, a futex word). flush.c. */
	uint32_t flush_req, flush_done, flush_how;
	/* The image's end (exit, _exit) with a recorder: it answers as it
	 * begins (flush_ack) whether it took a copy of the program's stderr
	 * (flush_late) to say its lines after the final flush itself; the
	 * program then ends without waiting for that flush. */
	uint32_t flush_ack;
	bool flush_late;
	/* The recorder lost something the program cannot see in the rings:
	 * its exit waits for the answer (ada_recorder_answer_wanted). */
	bool say_at_end;
	/* MODULE records the program queued after start-up (a dlopen), and
	 * how many of them the recorder had kept the symbols of at its last
	 * keep: an exit before it did waits for it (the library may be gone
	 * right after the program: ada_writer_keep_symbols). */
	uint32_t modules_late, modules_kept;
	/* Modules patchable mode patched (mcount/patch.c): a recorder, whose
	 * copy of the program's lists stopped at its fork, answers ada-ctl's
	 * filter by it. */
	uint32_t patched_modules;
	/* No recorder could start: the rings are the trace, written at the
	 * image's end (rings_only.c); records that did not fit the queue
	 * holding them for it. */
	bool rings_only;
	uint64_t records_dropped;
};
/* In the shared section: the recorder reads the registry and the requests. */
ADA_SHARED_TYPE(ada_rt_area, struct ada_runtime);
ADA_HIDDEN extern union ada_rt_area ada_rt_area;
#define ada_rt (ada_rt_area.v)

/* ---- no recorder (rings_only.c) ------------------------------------------------- */
/* The recorder could not start (err: its -errno, said in one line; 0: said
 * already): ring mode from here on, the trace's files made now; 0 or -errno
 * (tracing off). */
ADA_HIDDEN int ada_rings_only_start(int err);
/* The image ends (how: ADA_END_*): modules, queued records, the rings into
 * their files, the END record. flush.c's requests call these two. */
ADA_HIDDEN void ada_rings_only_end(uint32_t how);
/* Just the rings into their files and RING records: async-signal-safe, for
 * a fatal signal's handler (no END: ada-symbolize sees a crash). */
ADA_HIDDEN void ada_rings_only_write(void);

/* Flushes every ring before exec replaces the image (init.c). */
ADA_HIDDEN void ada_before_exec(void);
/* The writer's first work: raw/, process.meta, ada-ctl's page; 0 or -errno
 * with one line said (init.c). */
ADA_HIDDEN int ada_process_files(void);
/* Makes the trace ada_trace_remove removed again (init.c). */
ADA_HIDDEN int ada_trace_again(bool hold);
/* Removes this process's trace (process.meta, raw/, pid_<pid>/, the session
 * directory if empty): it recorded nothing, or could not (init.c). */
ADA_HIDDEN void ada_trace_remove(void);
/* exec returned (it failed): the trace goes on (init.c). */
ADA_HIDDEN void ada_after_failed_exec(void);
/* Flushes every ring before _exit ends the process (init.c). */
ADA_HIDDEN void ada_before__exit(void);
/* Finds libc's exec functions (exec.c), so that a vfork child's exec does
 * not have to: dlsym takes the loader's lock and may allocate. */
ADA_HIDDEN void ada_exec_resolve(void);

/* ---- threads (thread.c) -------------------------------------------------------- */
/* Private zeroed memory (the arena's, else mmap), NULL if none: for
 * per-thread state. ada_unmap gives it back. */
ADA_HIDDEN void *ada_map_zeroed(size_t len);
/* The address space a thread's state and ring take at most (thread.c):
 * what the arena reserves for each thread. */
ADA_HIDDEN size_t ada_thread_kit_bytes(void);
/* ---- the arena (arena.c) -------------------------------------------------------- */
/* Start-up: reserves the address space of a few threads' states, each
 * kit_bytes (a sum of ada_arena_piece's). */
ADA_HIDDEN int ada_arena_start(size_t kit_bytes, bool shared);
/* The length ada_arena_start reserves (RLIMIT_AS taken into account). */
ADA_HIDDEN size_t ada_arena_len(size_t kit_bytes, bool shared);
/* `ada record`'s (runtime/launch.c): the reservation is [base, base+len),
 * mapped shared by the caller. */
ADA_HIDDEN void ada_arena_adopt(void *base, size_t len);
/* A thread's state could not be cut from the shared reservation: waits
 * for the recorder to give pieces back; false if none will come soon. */
ADA_HIDDEN bool ada_arena_wait_room(void);
/* Whether the reservation is shared with a recorder: then no piece may
 * come from anywhere else. */
ADA_HIDDEN bool ada_arena_shared(void);
/* In a fork child: the reservation its own again (zeroed), then lens[i]
 * bytes copied from from[i] to to[i] (the forking thread's state, copied
 * out before the fork). */
ADA_HIDDEN int ada_arena_rehome(void *const *to, const void *const *from, const size_t *lens,
				unsigned n);
/* The address space a piece of len bytes takes (whole pages). */
ADA_HIDDEN size_t ada_arena_piece(size_t len);
/* len bytes of zeroed private memory from the reservation, page-aligned;
 * NULL when it has no room (or none was reserved). */
ADA_HIDDEN void *ada_arena_get(size_t len);
/* Gives back memory from ada_arena_get (zeroed again, kept for the next
 * thread) or from mmap (unmapped); also a ring file mapped over either. */
ADA_HIDDEN void ada_unmap(void *p, size_t len);
ADA_HIDDEN struct ada_thread *ada_state_alloc(bool is_stack);
ADA_HIDDEN void ada_registry_push(struct ada_thread *td);
/* runtime/stacks.c: td is the state of the calling thread's own stack. */
ADA_HIDDEN void ada_stack_home(struct ada_thread *td);
/* In a fork child: the stacks the parent knew are gone, but td's. */
ADA_HIDDEN void ada_stacks_after_fork(struct ada_thread *td);
/* The state of the coroutine stack holding pos, or NULL: for a thread that
 * cannot record (its set-up failed) returning through a frame of it. */
ADA_HIDDEN struct ada_thread *ada_stack_owner(uintptr_t pos);
/* [lo, lo+size) is a stack a context will run on (makecontext). */
ADA_HIDDEN void ada_stack_register(uintptr_t lo, size_t size);
ADA_HIDDEN void ada_thread_exit(void *td);
/* The calling thread is the runtime's own (the writer): never traced. */
ADA_HIDDEN void ada_thread_untraced(void);
/* vfork (mcount/<arch>/vfork.S). The child runs on the parent's memory, the
 * calling thread's state and TLS included, until it execs or _exits. In the
 * parent, before the system call, enter makes the thread untraced and
 * returns what it was, so the child records nothing and writes nothing of
 * ours; leave, in the parent once the child has gone, puts it back and turns
 * the system call's result into vfork's (-1 and errno). */
struct ada_vfork_saved {
	struct ada_thread *td;
	uintptr_t state;
};
ADA_HIDDEN struct ada_vfork_saved ada_vfork_enter(void);
ADA_HIDDEN pid_t ada_vfork_leave(long ret, struct ada_thread *td, uintptr_t state);
/* leave's first half, for clone(CLONE_VM | CLONE_VFORK) (clone.c). */
ADA_HIDDEN void ada_vfork_restore(struct ada_vfork_saved s);
/* A vfork child runs on this thread's memory: the exit, exec and crash
 * paths must leave the parent's trace, writer and files alone. */
ADA_HIDDEN bool ada_in_vfork_child(void);
/* In a vfork child: the state its parent thread records into (read only:
 * the child records nothing); NULL elsewhere. */
ADA_HIDDEN const struct ada_thread *ada_vfork_parent(void);
/* Around the runtime's work on a program thread (flushes, hooking passes,
 * fork handlers): calls it makes through hooked slots are not the program's
 * and are not recorded, and no signal arrives meanwhile (a handler that
 * jumped out would leave the guard set, or a lock taken, for good). Sets
 * the thread up if it has no state yet; NULL if untraced. */
struct ada_runtime_work {
	struct ada_thread *td;
	uintptr_t busy; /* the thread's guard before */
	sigset_t mask; /* the thread's signal mask before */
};
ADA_HIDDEN struct ada_thread *ada_runtime_begin(struct ada_runtime_work *w);
ADA_HIDDEN void ada_runtime_end(struct ada_runtime_work *w);
/* Maps the thread's detail ring at its first detail record; 0 or -ENOMEM
 * (then the thread records no details, counted as detail_full). */
ADA_HIDDEN int ada_detail_init_slow(struct ada_thread *td);
/* The detail record of position pos reached td->dlimit: whether it may be
 * written (ADA_DETAIL=all: once the writer consumed what was there; window
 * mode: always, after waiting for the writer while one of its windows would
 * be overwritten before it is written), and the next dlimit (ring.c). */
ADA_HIDDEN int ada_detail_room_slow(struct ada_thread *td, uint64_t pos);
/* In a fork child: forget the parent's threads and their rings (the
 * caller's thread included: its state stays, without a ring); then, once
 * the child has its trace directory, give the caller's thread a new ring
 * with its open frames re-recorded as CALLs at `now`. */
ADA_HIDDEN void ada_thread_fork_forget(void);
ADA_HIDDEN void ada_thread_after_fork(uint64_t now);

/* ---- fatal signals (crash.c) ---------------------------------------------------- */
/* Handles SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT: the crash goes into
 * the trace, then the signal has the effect it had before. */
ADA_HIDDEN void ada_crash_install(void);
/* Does with signal sig what the disposition p (the one before ada's) says:
 * its handler as the kernel would run it, or the default action. */
ADA_HIDDEN void ada_signal_pass_on(int sig, siginfo_t *si, void *uc, struct sigaction *p);

/* ---- triggers from outside the hooks (marks.c) --------------------------------
 * ada_mark(), ada_snapshot(), signal triggers and the crash handler queue a
 * trigger for the writer (async-signal-safe: atomics and a futex wake). td:
 * the thread whose window it opens, NULL for every thread's. */
ADA_HIDDEN void ada_mark_post(unsigned trigger, struct ada_thread *td, const char *label,
			      uint64_t tsc);
/* A trigger in the queue. */
#define ADA_MARK_LABEL 120 /* a window's label, with its NUL (window.h's) */
struct ada_mark {
	uint64_t ready;        /* ticket + 1 once the entry is whole */
	unsigned trigger;
	struct ada_thread *td; /* NULL: every thread */
	uint64_t pos, tsc;
	char label[ADA_MARK_LABEL];
};
/* The recorder: the oldest trigger posted and whole, or NULL; taken, its
 * place is free for the next one. */
ADA_HIDDEN const struct ada_mark *ada_mark_next(void);
ADA_HIDDEN void ada_mark_taken(void);
/* A trigger was posted for td: it holds back its detail records (ring.c)
 * until the recorder has opened the window. */
ADA_HIDDEN void ada_window_posted(struct ada_thread *td);
/* The recorder opens the windows of the triggers queued so far (window.c). */
ADA_HIDDEN void ada_marks_take(void);
/* Triggers that found the queue full. */
ADA_HIDDEN uint64_t ada_marks_overflowed(void);
/* signal:NAME triggers: their handlers, at start. */
ADA_HIDDEN void ada_signal_triggers_install(void);

/* ---- the rings (pool.c, ring.c) ----------------------------------------------- */
/* Gives td a ring from the arena, empty at position 0, its header td's.
 * No descriptor, no path on the stack. */
ADA_HIDDEN int ada_ring_map(struct ada_thread *td);
/* The ring back to the arena (an ended thread's, drained; a fork child's
 * copies of the parent's). */
ADA_HIDDEN void ada_ring_unmap(struct ada_thread *td);
/* A thread waiting for room sleeps this long at a time, then looks again
 * (ring.c): it gives up only when the recorder is gone. */
#define ADA_WAIT_SLICE_NS 10000000ull
/* The writer moved td's tail: wake the thread if it waits for room. */
ADA_HIDDEN void ada_ring_wake(struct ada_thread *td);

/* ---- the recorder process (runtime/recorder.c; its own side: recorder/) -------- */
/* What the program hands the recorder it forks: the pid directory's
 * locked descriptor (-1: none) and the CPU the program ran on. */
struct ada_recorder_start {
	int dir_fd;
	int program_cpu;
};
/* The recorder's own start (recorder/process.c), handed over by its
 * constructor before start-up runs, so that nothing of runtime/ calls into
 * recorder/. Never returns. */
ADA_HIDDEN extern void (*ada_recorder_entry)(const struct ada_recorder_start *)
	__attribute__((noreturn));
/* Set in the recorder process, at its start. */
ADA_HIDDEN extern bool ada_in_recorder;
/* `ada record`'s recorder (launch.c, launch.h). take: start-up takes the
 * launcher's descriptor out of the environment; map: the arena
 * (arena_len bytes) and the section onto the launcher's memory, the
 * descriptor closed either way: whether it worked (adopted, until the hand
 * over). hand_over: the recorder's spawn, the launcher's recorder named
 * the program's; done: the end of start-up, the launcher told what came of
 * it if not yet (tracing: the program forked its own recorder). layout: the
 * shared structs' shape, which the two libadas must agree on. session: the
 * session the launcher made this process's pid directory in, into dir
 * (false: none, choose one). */
ADA_HIDDEN void ada_launch_take(void);
ADA_HIDDEN bool ada_launch_session(char *dir, size_t len);
ADA_HIDDEN bool ada_launch_map(size_t arena_len);
ADA_HIDDEN bool ada_launch_adopted(void);
ADA_HIDDEN int ada_launch_hand_over(void);
ADA_HIDDEN void ada_launch_done(bool tracing);
ADA_HIDDEN uint64_t ada_launch_layout(void);
/* The launcher's thread that runs the recorder (recorder/process.c): the
 * writer's loop on the program's shared memory, mapped by the caller, until
 * the program's trace is finished; pidfd: the program's. */
ADA_HIDDEN void ada_recorder_run_launched(uint32_t program_pid, int pidfd);
/* Start-up: forks the recorder; 0 once it is forked, -errno if not. */
ADA_HIDDEN int ada_recorder_spawn(void);
/* Whether this process is a recorder. */
ADA_HIDDEN bool ada_recorder_self(void);
/* In a recorder: the program's thread name when it was forked ("" else). */
ADA_HIDDEN const char *ada_recorder_program_name(void);
/* The recorder: whether the program ended; whether its image (exec) no
 * longer maps the arena at base. */
ADA_HIDDEN bool ada_recorder_program_gone(void);
ADA_HIDDEN bool ada_recorder_image_gone(uintptr_t base);
/* The program: whether the recorder died; if it did, one line on what is
 * lost (once). */
ADA_HIDDEN bool ada_recorder_gone(void);
ADA_HIDDEN void ada_recorder_lost(void);
/* The recorder, asked for the image's end (request req): takes a copy of
 * the program's stderr while the program still waits, and answers; after
 * the final flush, says the lines there and lets it go. */
ADA_HIDDEN void ada_recorder_end_asked(uint32_t req);
/* The program, at its end: whether it waits for that answer. */
ADA_HIDDEN bool ada_recorder_answer_wanted(void);
ADA_HIDDEN void ada_recorder_say_late(void);
/* The recorder: the program's memory, opened at its start (patchable mode
 * writes the program's code through it), or -1 and why not. */
ADA_HIDDEN int ada_recorder_mem_fd(void);
ADA_HIDDEN int ada_recorder_mem_errno(void);
/* The arena's first address (arena.c). */
ADA_HIDDEN uintptr_t ada_arena_base(void);

/* ---- clock (clock.c) ----------------------------------------------------------- */
ADA_HIDDEN void ada_clock_sample(struct ada_meta_clock *out);
ADA_HIDDEN uint64_t ada_clock_hz_estimate(const struct ada_meta_clock *a,
					  const struct ada_meta_clock *b);

/* ---- raw/process.meta (meta.c) ------------------------------------------------- */
/* Names raw_dir/process.meta (the program, at start); creates it with its
 * header (the writer, its first work: init.c's ada_process_files). Records
 * are appended by the writer, which keeps a descriptor (hold, release);
 * other threads queue theirs for it while it runs, and open the file for a
 * record otherwise (a fatal signal's handler). */
ADA_HIDDEN void ada_meta_name(const char *raw_dir);
ADA_HIDDEN int ada_meta_create(void);
/* Start-up with a recorder, which makes the file: the records go to the
 * queue before it runs (on), as they do while it runs. */
ADA_HIDDEN void ada_meta_defer(bool on);
ADA_HIDDEN void ada_meta_hold(void);
ADA_HIDDEN void ada_meta_release(void);
/* The held descriptor's exclusive lock (a recorder's, until it ends). */
ADA_HIDDEN void ada_meta_lock(void);
/* Appends one record (header + payload + extra + padding) with one write(). */
ADA_HIDDEN int ada_meta_write(uint32_t type, const void *payload, size_t len,
			      const void *extra, size_t extra_len);
/* The same, written now whoever calls (a fatal signal's handler). */
ADA_HIDDEN int ada_meta_write_direct(uint32_t type, const void *payload, size_t len,
				     const void *extra, size_t extra_len);
/* The recorder, at its start: reads each run of the program's queued
 * records as it writes them (recorder/modmap_look.c's note_records). */
ADA_HIDDEN extern void (*ada_meta_queue_reader)(const uint8_t *buf, size_t len);
/* The recorder says it is the writer (its records are not queued). */
ADA_HIDDEN void ada_meta_on_writer(void);
/* The writer: the records program threads queued, written (before any
 * frame it writes, and at the final flush once it stopped). */
ADA_HIDDEN void ada_meta_queue_flush(void);
/* A fork child: the queue is the parent's. */
ADA_HIDDEN void ada_meta_queue_forget(void);
/* Many records in one write: each encoded into buf (0 if it does not fit in
 * cap), then written together. */
ADA_HIDDEN size_t ada_meta_encode(uint8_t *buf, size_t cap, uint32_t type, const void *payload,
				  size_t len, const void *extra, size_t extra_len);
ADA_HIDDEN int ada_meta_write_encoded(const void *buf, size_t len);

/* ---- modules (modmap.c) -------------------------------------------------------- */
/* Records every loaded image not recorded yet. Cheap when nothing was loaded
 * since the last scan, unless all (after dlopen/dlmopen returned). */
ADA_HIDDEN void ada_modmap_scan(bool all);
/* The build-id in a run of ELF notes (a PT_NOTE segment, a note section):
 * its length, 0 if none. */
ADA_HIDDEN uint32_t ada_build_id_from_note(const uint8_t *p, size_t len, uint8_t out[32]);
struct dl_phdr_info;
/* A loaded module's build-id, from its PT_NOTE segments in memory: its
 * length, 0 if none. */
ADA_HIDDEN uint32_t ada_build_id_of(const struct dl_phdr_info *info, uint8_t out[32]);
/* Symbols kept with the trace (symbols_keep.c): a module was recorded
 * (any thread), with its build-id, or else its file's FILE record (NULL:
 * neither); the writer keeps its symbol table, once per build-id or file
 * in the output directory, so the trace outlives its build. */
struct ada_meta_module;
struct ada_meta_file;
ADA_HIDDEN void ada_symbols_note(const char *path, const struct ada_meta_module *m,
				 const struct ada_meta_file *file);
ADA_HIDDEN void ada_symbols_keep(void);
/* The writer: the queued records noted, their modules' symbols kept (if
 * the process recorded anything, or even_unrecorded: its events not yet
 * drained), and (a recorder) how far that went (ada_rt.modules_kept). */
ADA_HIDDEN void ada_writer_keep_symbols(bool even_unrecorded);
/* Whether a library was loaded since (symbols_keep.c). */
ADA_HIDDEN bool ada_writer_symbols_behind(void);
/* A recorder process: the modules the program's records load and unload
 * (a run of encoded records it is about to write): its list of modules
 * follows them, and their symbols are noted as ada_symbols_note does in the
 * program, whose list it cannot see. */
ADA_HIDDEN void ada_modmap_note_records(const uint8_t *buf, size_t len);
/* A recorder process without the dynamic hooks: records the images the
 * program's maps show that it has not recorded, and the unloads of those
 * gone (proc_maps.c). */
ADA_HIDDEN void ada_modmap_scan_program(void);
/* The recorder's look at the modules, every 10 ms and at the end: the
 * program's maps without the hooks, nothing with them (the program
 * records). */
ADA_HIDDEN void ada_modmap_look(void);
/* A recorder without the dynamic hooks: the look, now, if the program's
 * address space changed size since the last one (a dlopen it cannot see
 * otherwise before its next housekeeping). */
ADA_HIDDEN void ada_modmap_look_if_moved(void);
/* The module list, for the recorder's view of it (recorder/modmap_look.c):
 * mark_present: a module known by where its file's offset 0 is mapped,
 * marked listed; add_none: a mapping that is no image, remembered; add_new:
 * an image found, given the next module number; add_recorded: one the
 * program recorded; drop: one it unloaded; sweep: after a complete look,
 * those not listed are gone (UNLOAD). record_file: a module without a
 * build-id gets its file's FILE record. */
ADA_HIDDEN bool ada_modmap_mark_present(uint64_t start);
ADA_HIDDEN void ada_modmap_add_none(uint64_t start, const char *path);
ADA_HIDDEN bool ada_modmap_add_new(struct ada_meta_module *m, const char *path);
ADA_HIDDEN void ada_modmap_add_recorded(const struct ada_meta_module *m, const char *path);
ADA_HIDDEN void ada_modmap_drop(uint32_t module_no);
ADA_HIDDEN void ada_modmap_sweep(bool complete, uint64_t now);
ADA_HIDDEN bool ada_modmap_record_file(const char *path, uint32_t module_no, struct ada_meta_file *f);
/* The modules loaded as far as this process recorded or saw them recorded:
 * a count that moves when one comes or goes, and each one's file and bias. */
ADA_HIDDEN uint64_t ada_modmap_generation(void);
ADA_HIDDEN void ada_modmap_each_live(void (*fn)(const char *path, uint64_t bias, void *arg),
				     void *arg);
/* The ELF images mapped in process pid, from /proc/pid/maps (proc_maps.c):
 * for each one the visitor does not know by where its file's offset 0 is
 * mapped, found() with its module record's layout fields (bias, span,
 * build-id), or NULL if its file is not an image this can describe. -1 if
 * the maps could not be read whole (nothing may be taken for unloaded). */
struct ada_image_visitor {
	bool (*known)(uint64_t start, void *arg);
	void (*found)(uint64_t start, const char *path, const struct ada_meta_module *m, void *arg);
	void *arg;
};
ADA_HIDDEN int ada_proc_images(uint32_t pid, const struct ada_image_visitor *v);
ADA_HIDDEN void ada_modmap_reset(void);
/* The process addresses [*lo, *hi) a loaded module's PT_LOAD segments span,
 * not page-rounded; its mapped range for the module map and the hooks. */
ADA_HIDDEN void ada_modmap_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi);
/* Calls fn for every loaded module of every link-map namespace until it
 * returns non-zero: the default namespace's first (ns is NULL), then those
 * dlmopen made (ns is the namespace's first link map, the object dlmopen
 * loaded there: a handle dlsym and dlinfo take). Under the loader's lock, as
 * dl_iterate_phdr's callbacks are. -1 if a module being loaded by another
 * thread could not be read yet (it was left out), else 0. */
typedef int ada_module_fn(struct dl_phdr_info *info, void *ns, void *arg);
ADA_HIDDEN int ada_modules_each(ada_module_fn *fn, void *arg);
/* A recorder: the same over the program's modules, as its list of them
 * has them (their program headers read from their files; ns NULL). */
ADA_HIDDEN int ada_program_modules_each(ada_module_fn *fn, void *arg);
/* The loader's counts of loads and unloads so far (dlpi_adds, dlpi_subs):
 * when they have not moved, no module came or went. */
ADA_HIDDEN void ada_loader_counts(unsigned long long counts[2]);

/* ---- passes over loaded code (mcount/) -------------------------------------------
 * Patchable entries (mcount/patch.c) and PLT/GOT hooks (mcount/dynhook.c)
 * are mcount/'s: it hands them over at load (mcount/passes.c, a constructor
 * that runs before ada_start's), and the runtime calls them through
 * ada_passes only. NULL: not linked (the runtime's unit tests). */
struct ada_code_passes {
	/* Start-up, once tracing is on (ada_start): the first passes. */
	void (*start)(void);
	/* A trace begun again: a fork child's, or the one an exec that
	 * failed made again (the hooked functions' records into it). */
	void (*trace_begun)(void);
	/* The writer's housekeeping: modules loaded since, patched. */
	void (*modules)(void);
	/* The recording state changed (ada_enable, ada_disable, ADA_TOGGLE_SIGNAL,
	 * ada-ctl): patched entries NOPs while it is off, jumps while it is on. */
	void (*sync)(void);
	/* ada-ctl's filter / notrace: the plain patched functions become those
	 * filter chooses less notrace's (NULL: that list unchanged). Returns
	 * how many are patched now, or -1 with one line in err. */
	int (*refilter)(const char *filter, const char *notrace, char *err, size_t errlen);
};
ADA_HIDDEN extern struct ada_code_passes ada_passes;

/* ---- asking the recorder (runtime/recorder.c, flush.c) ---------------------- */
ADA_HIDDEN int ada_writer_start(void);
/* The exit's end of the trace: the recorder's final flush, asked for. */
ADA_HIDDEN void ada_writer_stop(void);
/* Has the recorder do a flush now, and waits for it at most timeout_ns;
 * false if it did not finish (or none runs). Async-signal-safe. What it
 * does: ADA_FLUSH_DRAIN drains every ring up to where it is;
 * ADA_FLUSH_EXEC also records the END; ADA_FLUSH_EXIT and ADA_FLUSH__EXIT
 * are the final flush (thread ends, END), and the recorder stops;
 * ADA_FLUSH_EXEC_FAILED makes the trace the exec flush removed (nothing
 * recorded yet) again; ADA_FLUSH_DYING: a fatal signal's drain. Where no
 * recorder runs, the program does what it would ask (flush.c, rings_only.c). */
enum { ADA_FLUSH_DRAIN = 0, ADA_FLUSH_EXEC, ADA_FLUSH_EXIT, ADA_FLUSH__EXIT, ADA_FLUSH_EXEC_FAILED,
       ADA_FLUSH_DYING };
ADA_HIDDEN bool ada_writer_request(uint32_t how, uint64_t timeout_ns);
/* The image's end (ADA_FLUSH_EXIT, _EXIT): as ada_writer_request, but a
 * recorder that says its lines itself is not waited for past its answer;
 * *say: whether the caller prints the pending lines (ada_warn_pending). */
ADA_HIDDEN bool ada_writer_request_end(uint32_t how, uint64_t timeout_ns, bool *say);
/* Wakes the writer now if it sleeps (a ring passed half full, or a flush). */
ADA_HIDDEN void ada_writer_kick(void);
ADA_HIDDEN void ada_writer_after_fork(void);

/* ---- ada-ctl's commands (recorder/control.c, runtime/control.h) ---------------
 * The recorder's housekeeping applies the command ada-ctl left, if any, and
 * replies. */
ADA_HIDDEN void ada_control_poll(void);

/* ---- event-to-disk latency (latency.c), the recorder only -------------------- */
ADA_HIDDEN void ada_latency_add(uint64_t ticks);
ADA_HIDDEN void ada_latency_record(void);
ADA_HIDDEN void ada_latency_reset(void);

/* ---- drop accounting (drop.c) -------------------------------------------------- */
ADA_HIDDEN extern const char *const ada_drop_names[ADA_DROP_NREASONS];
/* The first file that could not be written, and why ("cannot write PATH:
 * ERROR; what it costs"): named once, on the exit line (drop.c). */
ADA_HIDDEN void ada_write_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints one stderr line when something was lost (verbose: always): the
 * events lost by reason, the detail records not kept, and (verbose) how
 * often and how long threads waited for room, and (verbose, recorder: the
 * calling process is a recorder) the recorder's CPU time. */
ADA_HIDDEN void ada_drop_report(const uint64_t totals[ADA_DROP_NREASONS], uint64_t kept,
				uint64_t waits, uint64_t wait_ns, bool verbose, bool recorder);

/* ---- the job's session (job_session.c) ------------------------------------------ */
/* Whether an earlier traced process of this process group (shell job) chose
 * a session in output directory out (absolute): *dst its path. If not, mine
 * (a session_<time> name) is marked as the job's session, for the later
 * ones; mine NULL: only look, mark nothing. */
ADA_HIDDEN bool ada_job_session(const char *out, const char *mine, char *dst, size_t len);
/* The session directory process pid starts its trace in, into dir: the
 * job's, else that of a traced ancestor (parent and levels - 1 above it)
 * writing into the same output directory, else a new session_<time>
 * (marked as the job's); one of its own where pid_<pid> is there already.
 * out: the output directory as configured, relative to cwd ("" if absolute). */
ADA_HIDDEN void ada_session_choose(const char *cwd, const char *out, pid_t pid, pid_t parent,
				   int levels, char *dir, size_t len);

/* ---- small helpers (util.c): no stdio on paths that may run at exit/fork ------ */
ADA_HIDDEN int ada_mkdirs(const char *path);
/* A mutex the program and its recorder share (in the shared section),
 * robust: one that died holding it leaves it marked, not held for good. */
ADA_HIDDEN void ada_mutex_init_shared(pthread_mutex_t *m);
ADA_HIDDEN int ada_write_all(int fd, const void *buf, size_t len);
/* One "ada: ..." line on stderr: the program's fd 2 if it is still the
 * file it was at start (ada_stderr_remember), else nowhere. On the writer
 * (after ada_warn_private_fds) the line waits for ada_warn_pending, which a
 * program thread calls after a flush it asked for. */
ADA_HIDDEN void ada_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
ADA_HIDDEN void ada_stderr_remember(void);
ADA_HIDDEN void ada_warn_private_fds(void);
/* In a recorder: every thread's lines wait so (its watchdog's too). */
ADA_HIDDEN void ada_warn_all_pending(void);
ADA_HIDDEN void ada_warn_pending(void);
/* Whether lines wait there. */
ADA_HIDDEN bool ada_warn_has_pending(void);
/* The same to fd (a recorder's copy of the program's stderr), and whether
 * fd is the file the program's stderr was at start. */
ADA_HIDDEN void ada_warn_pending_to(int fd);
ADA_HIDDEN bool ada_stderr_is(int fd);
ADA_HIDDEN uint64_t ada_now_ns(clockid_t clk);
/* futex(2): sleep while *w == v (at most timeout_ns), wake every sleeper.
 * Not FUTEX_PRIVATE_FLAG: the word may be in memory shared with a
 * recorder process (shared.h), which a private futex never wakes. */
ADA_HIDDEN void ada_futex_wait(uint32_t *w, uint32_t v, uint64_t timeout_ns);
ADA_HIDDEN void ada_futex_wake(uint32_t *w);
/* Blocks every signal the program could receive in the calling thread
 * (*old: the mask before), and restores it, without calling a function a
 * library may interpose (util.c says why). */
ADA_HIDDEN void ada_signals_block(sigset_t *old);
ADA_HIDDEN void ada_signals_restore(const sigset_t *old);

/* ---- libada's own code (own_code.c) ---------------------------------------------- */
/* Found once at start-up, before any handler below can run. */
ADA_HIDDEN void ada_own_code_find(void);
/* ip is in the executable segment that holds libada's code: libada.so's,
 * or with libada.a the program's. */
ADA_HIDDEN bool ada_ip_in_segment(uintptr_t ip);
/* ip is ada's code and none of the program's: the hooks' assembly, or
 * anywhere in libada.so. */
ADA_HIDDEN bool ada_ip_is_ada(uintptr_t ip);

/* ---- the counter lane (counters.c) --------------------------------------------- */
/* ADA_COUNTERS: ada's signal chosen and its handler installed, at start-up. */
ADA_HIDDEN void ada_counters_start(void);
/* The signal, 0 when counters are off. */
ADA_HIDDEN int ada_counters_signal(void);
/* The calling thread's CPU-time timer: made (its state was just set up, a
 * fork child's thread, an exec that failed), deleted (its end, an exec). */
ADA_HIDDEN void ada_counters_thread_start(void);
ADA_HIDDEN void ada_counters_thread_stop(void);
/* The thread ends (its state's last moment, the process's exit): its last
 * sample taken, then its timer deleted. */
ADA_HIDDEN void ada_counters_thread_end(void);
/* Where a hooked call of function fn, named name, jumps (the dynamic
 * hooks' pass, as ada_alloc_jump): fn, or with counters on the wrapper of
 * sigaction or signal that keeps ada's signal ada's. */
ADA_HIDDEN uintptr_t ada_counters_jump(const char *name, uintptr_t fn);
/* The same with ADA_BLOCKING: the wrapper that records the waits of the
 * blocking function of that name (mcount/blocking.c), or fn. */
ADA_HIDDEN uintptr_t ada_blocking_jump(const char *name, uintptr_t fn);

/* ---- work outside the program's descriptor table (apart.c) --------------------- */
/* fn(arg) in a task that shares the memory but not the descriptor table
 * (the caller waits for it): 0 with *ret fn's result, or -errno. */
ADA_HIDDEN int ada_task_run(int (*fn)(void *), void *arg, int *ret);
/* fn(arg) where a descriptor it opens cannot take a number the program's
 * threads would get: in such a task once the program runs, else here. */
ADA_HIDDEN int ada_apart(int (*fn)(void *), void *arg);
/* Set at the end of start-up: the program's threads may run from then. */
ADA_HIDDEN extern bool ada_apart_needed;
/* The calling thread's descriptor table is its own (the recorder's,
 * writer.c): ada_apart runs fn here. */
ADA_HIDDEN void ada_apart_own_table(void);

#endif
