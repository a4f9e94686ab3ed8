/* counters.c - ADA_COUNTERS: the counter lane, and hybrid sampling.
 *
 * Each traced thread gets a POSIX timer on its own CPU-time clock
 * (timer_create(CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID)) that signals it
 * every period of the CPU time it uses. The handler reads the thread's CPU
 * time, its faults and context switches (getrusage(RUSAGE_THREAD)) and the
 * address it interrupted (the signal's context), and writes them as one
 * sample, three kind-3 slots, into the ring where the thread is: inside its
 * open frames (raw_format.h, "SAMPLE"). A thread that sleeps uses no CPU
 * and is not interrupted; one that computes is, once a period, whatever
 * code it runs, instrumented or not.
 *
 * The signal is ada's own: the highest real-time signal that has no
 * handler and is not blocked at start-up (glibc keeps the lowest ones).
 * The program must not notice it:
 * - it comes from ada's timers only to the thread whose timer it is, with
 *   SA_RESTART; the handler saves errno, takes no lock, calls nothing but
 *   clock_gettime and getrusage, and writes only when the thread is not
 *   inside ada (a hook, the runtime's own work: the sample is counted as
 *   not kept, `in_ada`);
 * - sigaction() and signal() for it, called through the dynamic hooks,
 *   are answered here: the program sees and sets its own disposition,
 *   ada's handler stays, and the signal sent by anyone else (kill,
 *   sigqueue) gets the program's disposition as it would without ada;
 * - a thread that blocks it takes its samples when it unblocks it (one
 *   sample then: the counters are totals, nothing is lost but the place).
 * Off (the default) nothing here runs: no handler, no timer.
 *
 * A timer is the thread's: made when its state is set up (thread.c), and
 * again for the forking thread in a fork child (timers are not inherited),
 * deleted when the thread ends and before an exec (made again if the exec
 * fails). Where timer_create is refused (a seccomp filter, a limit on
 * timers), one line says so and recording goes on without counters.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "ada_internal.h"

#define ADA_EXPORT __attribute__((visibility("default")))
#define TIMER_COOKIE 0x61646163 /* "adac": si_value of ada's timers */

static int sample_sig;            /* 0: counters off */
static bool timers_refused;       /* timer_create failed once: no more tries */
static struct sigaction program;  /* the program's disposition of sample_sig */
/* The calling thread's timer (the kernel's id), -1 if none. */
static __thread int timer_id __attribute__((tls_model("initial-exec"))) = -1;

/* ---- the program's sigaction and signal -------------------------------------- */

/* With counters on, the hooked slots of sigaction and signal jump here (the
 * dynamic hooks, as ADA_ALLOC's wrappers: mcount/alloc.c): their CALL and
 * RETURN are recorded as before, and for ada's signal the program reads
 * and sets a disposition of its own while ada's handler stays. */
typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);
static sigaction_fn real_sigaction; /* the functions the slots pointed to */
static signal_fn real_signal;

static bool is_ours(int sig)
{
	return sig > 0 && sig == __atomic_load_n(&sample_sig, __ATOMIC_RELAXED);
}

static int w_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!is_ours(sig))
		return real_sigaction(sig, act, old);
	if (old)
		*old = program;
	if (act)
		program = *act;
	return 0;
}

static sighandler_t w_signal(int sig, sighandler_t handler)
{
	sighandler_t was;

	if (!is_ours(sig))
		return real_signal(sig, handler);
	was = program.sa_handler;
	memset(&program, 0, sizeof(program));
	program.sa_handler = handler;
	program.sa_flags = SA_RESTART; /* glibc's signal() is BSD's */
	return was;
}

uintptr_t ada_counters_jump(const char *name, uintptr_t fn)
{
	if (!ada_counters_signal())
		return fn;
	if (!strcmp(name, "sigaction") && (!real_sigaction || fn == (uintptr_t)real_sigaction)) {
		real_sigaction = (sigaction_fn)fn;
		return (uintptr_t)w_sigaction;
	}
	if (!strcmp(name, "signal") && (!real_signal || fn == (uintptr_t)real_signal)) {
		real_signal = (signal_fn)fn;
		return (uintptr_t)w_signal;
	}
	return fn; /* another namespace's C library: its program's own */
}

/* ---- the sample ----------------------------------------------------------------- */

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

/* Room for the sample's slots and the RETURN of every open frame, looked at
 * without waiting: a signal handler must not wait for the recorder. */
static bool room(struct ada_thread *td, uint32_t depth)
{
	uint64_t need = td->rh->head + depth + ADA_SAMPLE_PARTS;

	if (need <= __atomic_load_n(&td->limit, __ATOMIC_RELAXED))
		return true;
	if (ada_rt.cfg.ring_mode)
		return false; /* held by a snapshot */
	return need <= __atomic_load_n(&td->rh->tail, __ATOMIC_ACQUIRE) + td->mask + 1;
}

/* The interrupted address, or 0 where it is ada's code (own_code.c): a
 * hook outside the part it spends guarded, libada.so's code; the sample is
 * then ada's work on behalf of the frame the thread is in, and the views
 * weigh it on that frame, not on a "[sampled]" frame of a hook's name. */
static uint64_t program_ip(const ucontext_t *uc)
{
	uintptr_t ip = ada_arch_signal_ip(uc);

	return ada_ip_is_ada(ip) ? 0 : ip;
}

static uint64_t slot_word(unsigned what, uint64_t v)
{
	return (v & ADA_ALLOC_PTR_MASK) | (uint64_t)what << ADA_ALLOC_WHAT_SHIFT |
	       ADA_SLOT_ALLOC_KIND << 62;
}

/* One sample, of the thread that runs this, interrupted at ip (0: none). */
static void sample(uint64_t ip)
{
	struct ada_thread *td = ada_self.td;
	struct timespec cpu;
	struct rusage ru;
	uint64_t tsc;

	if (!td || td->tsc_off || !__atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE))
		return;
	if (__atomic_load_n(&ada_self.busy, __ATOMIC_RELAXED)) {
		ada_count(&td->rh->samples_lost[ADA_SAMPLE_LOST_IN_ADA], 1);
		return;
	}
	ada_busy_set((uintptr_t)__builtin_frame_address(0) | ADA_BUSY_HOOK);
	if (ada_recording_is_off(td))
		goto out; /* by request: not a loss */
	tsc = ada_arch_ticks();
	memset(&ru, 0, sizeof(ru));
	if (syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &cpu) != 0)
		cpu = (struct timespec){ 0 };
	syscall(SYS_getrusage, RUSAGE_THREAD, &ru);
	if (!room(td, td->depth)) {
		ada_count(&td->rh->samples_lost[ADA_SAMPLE_LOST_RING_FULL], 1);
		goto out;
	}
	ada_ring_put(td, tsc, slot_word(ADA_SAMPLE_WHAT_IP, ip));
	ada_ring_put(td, ns_of(&cpu), slot_word(ADA_SAMPLE_WHAT_CPU, (uint64_t)ru.ru_minflt));
	ada_ring_put(td, (uint64_t)(uint32_t)ru.ru_nvcsw | (uint64_t)ru.ru_nivcsw << 32,
		     slot_word(ADA_SAMPLE_WHAT_CSW, (uint64_t)ru.ru_majflt));
	ada_count(&td->rh->samples, 1);
out:
	ada_busy_set(0);
}

/* The signal sent by someone else (kill, sigqueue, another timer): what
 * the program's disposition does with it. */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;

	if (program.sa_handler == SIG_IGN)
		return;
	if (program.sa_handler != SIG_DFL) {
		ada_signal_pass_on(sig, si, uc, &program);
		return;
	}
	/* A real-time signal's default ends the process: so it does. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

static void on_sample(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (si->si_code == SI_TIMER && si->si_value.sival_int == TIMER_COOKIE)
		sample(program_ip(uc));
	else
		pass_on(sig, si, uc);
	errno = saved;
}

/* ---- start-up, threads -------------------------------------------------------- */

/* The highest real-time signal nobody handles or blocks now. */
static int choose_signal(void)
{
	sigset_t mask;

	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	for (int sig = SIGRTMAX; sig >= SIGRTMIN + 2; sig--) {
		struct sigaction sa;

		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL &&
		    !(sa.sa_flags & SA_SIGINFO) && sigismember(&mask, sig) == 0)
			return sig;
	}
	return 0;
}

void ada_counters_start(void)
{
	struct sigaction sa;
	int sig;

	if (!ada_rt.cfg.counters_us)
		return;
	if (!(sig = choose_signal())) {
		ada_warn("ADA_COUNTERS: no real-time signal is free for ada's timers: recording "
			 "without counters");
		return;
	}
	memset(&program, 0, sizeof(program));
	program.sa_handler = SIG_DFL;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) != 0) {
		ada_warn("ADA_COUNTERS: cannot handle signal %d (%s): recording without counters",
			 sig, strerror(errno));
		return;
	}
	__atomic_store_n(&sample_sig, sig, __ATOMIC_RELEASE);
}

int ada_counters_signal(void)
{
	return __atomic_load_n(&sample_sig, __ATOMIC_ACQUIRE);
}

void ada_counters_thread_start(void)
{
	int sig = ada_counters_signal(), id;
	uint64_t ns = (uint64_t)ada_rt.cfg.counters_us * 1000;
	struct itimerspec its = { .it_interval = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) } };
	struct sigevent sev;
	int saved = errno;

	timer_id = -1;
	if (!sig || __atomic_load_n(&timers_refused, __ATOMIC_RELAXED))
		return;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sig;
	sev.sigev_value.sival_int = TIMER_COOKIE;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	its.it_value = its.it_interval;
	if (syscall(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, &sev, &id) != 0) {
		if (!__atomic_exchange_n(&timers_refused, true, __ATOMIC_RELAXED))
			ada_warn("ADA_COUNTERS: timer_create refused (%s): recording without counters",
				 strerror(errno));
		errno = saved;
		return;
	}
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) != 0) {
		syscall(SYS_timer_delete, id);
		errno = saved;
		return;
	}
	timer_id = id;
	errno = saved;
}

/* The thread's last sample, where it ends (its frames, if any, are still
 * open): the CPU it used since its last one, which a sample at the next
 * period would have carried, goes into the trace; the exports' counter
 * tracks then end at the thread's totals. Only a thread with a timer:
 * counters on and its timer made. */
void ada_counters_thread_end(void)
{
	if (timer_id >= 0)
		sample(0);
	ada_counters_thread_stop();
}

void ada_counters_thread_stop(void)
{
	int saved = errno;

	if (timer_id >= 0)
		syscall(SYS_timer_delete, timer_id);
	timer_id = -1;
	errno = saved;
}
