/* record.c - `ada record [-o DIR] [--] PROG [ARGS...]`: runs PROG, its
 * trace made by this process's recorder (uftrace record's habit).
 *
 * The launcher makes the memory the recorder and the program share
 * (launch_mem.c), starts the program with its descriptor, makes the
 * program's session and pid directories while the program starts
 * (session_make, dirs_make), and waits for
 * the program's start-up to answer (runtime/launch.c): ADOPTED, and a
 * thread of the launcher runs libada's recorder loop on it
 * (recorder/process.c) until the trace is finished; OWN (the address was
 * taken, the runtimes differ), and the program's own recorder makes the
 * trace, as without the launcher. The program is the launcher's child;
 * the recorder is no process, thread or descriptor of the program's.
 *
 * Everything else passes through: the program's standard streams are the
 * launcher's, its exit status is the launcher's (128+N for a death by
 * signal N, as a shell says it), and SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * sent to the launcher go to the program (a terminal's reach the
 * program by themselves: its process group is the launcher's). It
 * returns once the trace is complete: its own recorder has ended, and
 * so have the other recorders of the sessions the run wrote into (the
 * program's fork children's, an exec'd image's), waited for as
 * ada-symbolize waits (a pid directory's lock, 30 s at most after the
 * program ended). Its own recorder gets 10 s after the program's end: one
 * still running then is stuck, said in one line, and ada record returns
 * the program's status all the same (the program's end ends it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ada_internal.h"
#include "launcher.h"

#define USAGE "ada record [-o DIR] [--] PROG [ARGS...]"
#define SESSION_WAIT_NS 30000000000ull

struct run {
	pid_t pid;
	int pidfd;
	struct ada_cli_mem mem; /* fd -1: the program forks its own recorder */
	uint32_t ended;         /* the program has ended (atomic) */
	uint32_t rec_done;      /* futex word: the recorder's thread is done */
	uint32_t session_made;  /* futex word: 0 not yet, 1 session made, 2 none */
	char session[4328];     /* the program's session directory (session_make) */
};

#define RECORDER_STACK (8u << 20) /* the writer's loop wants more than a default */
/* How long the recorder's thread may take, once the program has ended, to
 * finish its trace (drain the rings, write the ends): seconds of a busy
 * machine at most. A recorder still running then is stuck; ada record
 * ends anyway, with the program's status. */
#define RECORDER_END_WAIT_NS 10000000000ull

static int usage_error(const char *fmt, const char *arg)
{
	fputs("ada record: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

/* ---- the command line ----------------------------------------------------------- */

/* The options before the program; *prog its index, *out -o's value. */
static int parse(int argc, char **argv, int *prog, const char **out)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("usage: " USAGE "\n"
			       "Runs PROG (found in PATH) with ARGS, its trace recorded into DIR\n"
			       "(default $ADA_OUTPUT, else ./ada-trace); the other settings are the ADA_*\n"
			       "variables. Its output, input and exit status are the program's own.\n"
			       "  -o, --output DIR   where the trace goes\n");
			exit(0);
		}
		if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (i + 1 >= argc)
				return usage_error("%s needs a directory (" USAGE ")", a);
			*out = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			*out = a + 9;
		} else if (!strncmp(a, "-o", 2)) {
			*out = a + 2;
		} else {
			return usage_error("unknown option '%s' (expected -o DIR, or the program: " USAGE ")",
					   a);
		}
		if (!**out)
			return usage_error("%s needs a directory (" USAGE ")", a);
	}
	if (i >= argc)
		return usage_error("%sno program to run (usage: " USAGE ")", "");
	*prog = i;
	return 0;
}

/* The trace's directory, made and writable: 0, or the usage error's status. */
static int output_check(const char **outp)
{
	const char *out = *outp;
	struct stat st;
	int err;

	if (!out) {
		out = getenv("ADA_OUTPUT");
		if (!out || !*out)
			out = "./ada-trace";
	} else if (setenv("ADA_OUTPUT", out, 1) < 0) {
		return usage_error("cannot set ADA_OUTPUT to '%s'", out);
	}
	err = ada_mkdirs(out);
	if (!err && stat(out, &st) == 0 && !S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	if (err < 0 || access(out, W_OK | X_OK) < 0) {
		fprintf(stderr, "ada record: cannot write the trace to '%s': %s (expected a writable directory)\n",
			out, strerror(err < 0 ? -err : errno));
		return 2;
	}
	*outp = out;
	return 0;
}

/* PROG as execvp finds it: a path if it has a slash, else the first
 * executable file of that name in PATH. 0, or the shell's status (127 not
 * found, 126 not runnable) with its line said. */
static int find(const char *prog, char *path, size_t len)
{
	const char *dirs = getenv("PATH");
	int denied = 0;

	if (strchr(prog, '/')) {
		snprintf(path, len, "%s", prog);
		if (access(path, X_OK) == 0)
			return 0;
		fprintf(stderr, "ada record: %s: %s\n", prog, strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	for (dirs = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; ; dirs++) {
		size_t n = strcspn(dirs, ":");
		struct stat st;

		snprintf(path, len, "%.*s%s%s", (int)n, n ? dirs : ".", "/", prog);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(path, X_OK) == 0)
				return 0;
			denied = 1;
		}
		dirs += n;
		if (!*dirs)
			break;
	}
	fprintf(stderr, "ada record: %s: %s\n", prog, denied ? strerror(EACCES) : "command not found");
	return denied ? 126 : 127;
}

/* ---- the recorder ---------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The program's session, chosen as its start-up would choose it (its
 * parent being this process, which traces nothing: the ancestors looked at
 * are this one's) and made while the main thread starts the program, whose
 * pid is not known yet: pid 0, whose directory is nowhere; dirs_make makes
 * the program's in it once the pid is known. */
static void session_make(struct run *r)
{
	char cwd[PATH_MAX] = "";
	const char *out = r->mem.output;
	uint32_t made = 2;

	if (!r->mem.disabled) {
		if (out[0] != '/' && !getcwd(cwd, sizeof(cwd)))
			cwd[0] = '\0';
		ada_session_choose(cwd, out, 0, getppid(), 3, r->session, sizeof(r->session));
		if (ada_mkdirs(r->session) == 0)
			made = 1;
	}
	__atomic_store_n(&r->session_made, made, __ATOMIC_RELEASE);
	ada_futex_wake(&r->session_made);
}

/* The launcher's thread, started before the program (a program that
 * adopted the memory must find its recorder): the program's session
 * (session_make), the program's answer, then
 * (ADOPTED) the recorder's loop, the pid directory locked meanwhile as a
 * forked recorder locks it (ada-symbolize waits on it). */
static void *recorder_thread(void *arg)
{
	struct run *r = arg;
	struct ada_launch *h = r->mem.hdr;
	int dir, pidfd;

	session_make(r);
	while (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == ADA_LAUNCH_WAITING &&
	       !__atomic_load_n(&r->ended, __ATOMIC_ACQUIRE))
		ada_futex_wait(&h->state, ADA_LAUNCH_WAITING, 10000000);
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != ADA_LAUNCH_ADOPTED)
		goto done;
	dir = open(h->pid_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir >= 0)
		flock(dir, LOCK_EX);
	/* Its own (-1: the recorder looks in /proc): the main thread may
	 * reap the program meanwhile. */
	pidfd = (int)syscall(SYS_pidfd_open, h->program_pid, 0);
	ada_recorder_run_launched(h->program_pid, pidfd);
	if (dir >= 0)
		close(dir);
done:
	__atomic_store_n(&r->rec_done, 1, __ATOMIC_RELEASE);
	ada_futex_wake(&r->rec_done);
	return NULL;
}

/* The recorder's thread joined, RECORDER_END_WAIT_NS after the program's
 * end at most: false (said in one line) if it had not finished by then. */
static bool recorder_join(struct run *r, pthread_t rec)
{
	uint64_t until = now_ns() + RECORDER_END_WAIT_NS, now;

	while (!__atomic_load_n(&r->rec_done, __ATOMIC_ACQUIRE) && (now = now_ns()) < until)
		ada_futex_wait(&r->rec_done, 0, until - now);
	if (!__atomic_load_n(&r->rec_done, __ATOMIC_ACQUIRE)) {
		fprintf(stderr, "ada record: the recorder did not finish the trace %llu s after the "
				"program ended; the trace may be incomplete\n",
			(unsigned long long)(RECORDER_END_WAIT_NS / 1000000000ull));
		return false;
	}
	pthread_join(rec, NULL);
	return true;
}

/* ---- the end --------------------------------------------------------------------- */

/* The entries of dir whose names start with prefix and that changed
 * since `since` (seconds), each given to fn. */
static void each_new(const char *dir, const char *prefix, time_t since,
		     void (*fn)(const char *path, uint64_t until), uint64_t until)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!strncmp(e->d_name, prefix, strlen(prefix)) && stat(path, &st) == 0 &&
		    S_ISDIR(st.st_mode) && st.st_mtime >= since)
			fn(path, until);
	}
	if (d)
		closedir(d);
}

/* A pid directory's lock, held by its recorder until the trace is
 * complete (ada-symbolize waits on it too). */
static void pid_wait(const char *path, uint64_t until)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	while (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0 && now_ns() < until)
		usleep(2000);
	if (fd >= 0)
		close(fd);
}

static time_t started;

static void session_wait(const char *path, uint64_t until)
{
	each_new(path, "pid_", started, pid_wait, until);
}

/* Every recorder of the sessions the run made or wrote into ended: the
 * program's, its fork children's, an exec'd image's (a session of its
 * own when it keeps the pid), or the deadline. */
static void trace_wait(const char *out)
{
	each_new(out, "session_", started, session_wait, now_ns() + SESSION_WAIT_NS);
}

/* A signal the launcher got goes to the program, but a terminal's, which
 * reached the program already if it is still in the launcher's group. */
static void forward(const struct run *r, const struct signalfd_siginfo *si)
{
	if (si->ssi_signo == SIGCHLD)
		return;
	if (si->ssi_code == SI_KERNEL && getpgid(r->pid) == getpgrp())
		return;
	kill(r->pid, (int)si->ssi_signo);
}

/* Until the program ends: forwards signals; its status as a shell's.
 * Woken by its pidfd, or (none) by SIGCHLD. */
static int program_wait(struct run *r, int sfd)
{
	for (;;) {
		struct pollfd p[2] = { { sfd, POLLIN, 0 }, { r->pidfd, POLLIN, 0 } };
		struct signalfd_siginfo si;
		siginfo_t st;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return 1;
		if (p[0].revents & POLLIN && read(sfd, &si, sizeof(si)) == sizeof(si))
			forward(r, &si);
		memset(&st, 0, sizeof(st));
		if (waitid(P_PID, (id_t)r->pid, &st, WEXITED | WNOHANG) < 0)
			return 1;
		if (st.si_pid == r->pid)
			return st.si_code == CLD_EXITED ? st.si_status & 0xff : 128 + st.si_status;
	}
}

/* What dirs_make made and no traced program took (it gave up waiting, or
 * ended untraced): the pid directory, and its session if nothing else is
 * in it. */
static void dirs_remove(const struct ada_launch *h)
{
	char session[sizeof(h->made_dir)], *slash;

	if (rmdir(h->made_dir) < 0)
		return;
	snprintf(session, sizeof(session), "%s", h->made_dir);
	if ((slash = strrchr(session, '/')))
		*slash = '\0';
	rmdir(session);
}

/* ---- the run ---------------------------------------------------------------------- */

/* The program, started without a copy of the launcher's memory (a vfork's
 * way: fork's copy of the page tables was a tenth of a millisecond before
 * the program's exec), with the signal mask the launcher was given and the
 * memfd, if any, inherited by it alone: its start-up closes it. 0, or the
 * shell's status with its line said. */
static int spawn(struct run *r, const sigset_t *mask, const char *path, char **argv)
{
	extern char **environ;
	posix_spawnattr_t sa;
	int err;

	if (r->mem.fd >= 0)
		fcntl(r->mem.fd, F_SETFD, 0);
	posix_spawnattr_init(&sa);
	posix_spawnattr_setsigmask(&sa, mask);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGMASK);
	fflush(NULL);
	err = posix_spawn(&r->pid, path, NULL, &sa, argv, environ);
	posix_spawnattr_destroy(&sa);
	if (r->mem.fd >= 0)
		fcntl(r->mem.fd, F_SETFD, FD_CLOEXEC);
	if (!err)
		return 0;
	fprintf(stderr, "ada record: cannot run %s: %s\n", argv[0], strerror(err));
	return err == ENOENT ? 127 : 126;
}

/* The program's pid directory, in the session the recorder's thread
 * made meanwhile (session_make), made while the program's loader runs: its
 * start-up takes them (launch.h) instead of spending a third of a
 * millisecond and more on them. A pid directory there already (another
 * image of this pid traced in the session) is the program's to deal with. */
static void dirs_make(struct run *r)
{
	struct ada_launch *h = r->mem.hdr;
	uint64_t until = now_ns() + ADA_LAUNCH_DIRS_WAIT_NS, now;
	uint32_t dirs = ADA_LAUNCH_DIRS_NONE;

	if (!h)
		return;
	while (!__atomic_load_n(&r->session_made, __ATOMIC_ACQUIRE) && (now = now_ns()) < until)
		ada_futex_wait(&r->session_made, 0, until - now);
	if (__atomic_load_n(&r->session_made, __ATOMIC_ACQUIRE) == 1) {
		snprintf(h->made_dir, sizeof(h->made_dir), "%s/pid_%d", r->session, (int)r->pid);
		h->dirs_pid = (uint32_t)r->pid;
		if (mkdir(h->made_dir, 0755) == 0)
			dirs = ADA_LAUNCH_DIRS_MADE;
	}
	/* Pending still, unless the program gave up waiting. */
	if (!__atomic_compare_exchange_n(&h->dirs, &(uint32_t){ ADA_LAUNCH_DIRS_PENDING }, dirs, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
	    dirs == ADA_LAUNCH_DIRS_MADE)
		dirs_remove(h);
	ada_futex_wake(&h->dirs);
}

static int run(const char *path, char **argv, const char *out)
{
	struct run r = { .pidfd = -1, .mem = { .fd = -1 } };
	sigset_t fwd, old;
	pthread_attr_t a;
	pthread_t rec;
	bool rec_started = false;
	char fd[16];
	int sfd, status;
	uint32_t state;

	/* A second early: a session made in the second the run began. */
	started = time(NULL) - 1;
	sigemptyset(&fwd);
	for (int s = 0, sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD }; s < 5; s++)
		sigaddset(&fwd, sigs[s]);
	/* Before the recorder's thread starts: it inherits the mask. */
	pthread_sigmask(SIG_BLOCK, &fwd, &old);
	sfd = signalfd(-1, &fwd, SFD_CLOEXEC);
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, RECORDER_STACK);
	if (ada_cli_mem_make(&r.mem) == 0)
		rec_started = pthread_create(&rec, &a, recorder_thread, &r) == 0;
	pthread_attr_destroy(&a);
	if (!rec_started && r.mem.fd >= 0) {
		close(r.mem.fd); /* the program forks its own recorder */
		r.mem.fd = -1;
		r.mem.hdr = NULL;
	}
	snprintf(fd, sizeof(fd), "%d", r.mem.fd);
	if (rec_started && setenv(ADA_LAUNCH_ENV, fd, 1) < 0)
		unsetenv(ADA_LAUNCH_ENV);
	status = spawn(&r, &old, path, argv);
	unsetenv(ADA_LAUNCH_ENV);
	if (status) {
		/* The recorder's thread sees that no program answers. */
		__atomic_store_n(&r.ended, 1, __ATOMIC_RELEASE);
		if (rec_started) {
			ada_futex_wake(&r.mem.hdr->state);
			pthread_join(rec, NULL);
			if (r.session_made == 1)
				rmdir(r.session); /* made for nothing, if it is empty */
		}
		return status;
	}
	dirs_make(&r);
	r.pidfd = (int)syscall(SYS_pidfd_open, r.pid, 0);
	status = program_wait(&r, sfd);
	if (r.mem.hdr) {
		__atomic_store_n(&r.ended, 1, __ATOMIC_RELEASE);
		ada_futex_wake(&r.mem.hdr->state);
		/* Not finished: its pid directory stays locked by this process,
		 * and the other sessions' recorders are not waited for either. */
		if (rec_started && !recorder_join(&r, rec))
			return status;
		state = __atomic_load_n(&r.mem.hdr->state, __ATOMIC_ACQUIRE);
		/* No traced program took them (its answer names its own). */
		if (__atomic_load_n(&r.mem.hdr->dirs, __ATOMIC_ACQUIRE) == ADA_LAUNCH_DIRS_MADE &&
		    (state == ADA_LAUNCH_WAITING || state == ADA_LAUNCH_OFF ||
		     strcmp(r.mem.hdr->pid_dir, r.mem.hdr->made_dir)))
			dirs_remove(r.mem.hdr);
		if (state == ADA_LAUNCH_OFF)
			return status;
	}
	trace_wait(out);
	return status;
}

int ada_cli_record(int argc, char **argv)
{
	char path[4096];
	const char *out = NULL, *why = NULL;
	int prog, err;

	if ((err = parse(argc, argv, &prog, &out)) || (err = output_check(&out)) ||
	    (err = find(argv[prog], path, sizeof(path))))
		return err;
	err = ada_cli_has_libada(path, &why);
	if (err < 0) {
		fprintf(stderr, "ada record: cannot read %s: %s\n", argv[prog], strerror(-err));
		return 126;
	}
	if (!err) {
		fprintf(stderr, "ada record: %s %s: nothing recorded (build it with adacc, or run it "
				"directly)\n", argv[prog], why);
		return 2;
	}
	return run(path, argv + prog, out);
}
