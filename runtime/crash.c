/* crash.c - fatal signals: the crash site goes into the trace, then the
 * signal does what it would have done without ada.
 *
 * libada handles SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT from start-up
 * (before main, so a handler the program installs later replaces ours and
 * sees the signal first: we never take a signal from the program). Our
 * handler records the signal (a CRASH record and the thread's crash_tsc),
 * asks the writer to drain every ring and waits for it a bounded time, then
 * passes the signal on: to the handler that was there before ours, with its
 * flags and mask, or to the default action (the process dies of the same
 * signal, with its core dump). Everything here is async-signal-safe: TLS,
 * atomics, writev, futex, clock_gettime, sigaction, tgkill.
 *
 * The rings are file-backed (ring.c), so even a crash whose handler cannot
 * run (a stack overflow without an alternate stack) or that the writer does
 * not get to drain is recovered by ada-symbolize from the ring files.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "ada_internal.h"

#define FLUSH_TIMEOUT_NS 1000000000ull

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
static struct sigaction previous[NSIG];
static uint32_t crashed; /* the first fatal signal records; later ones only chain */

/* Signals the kernel raises for a fault come back when the faulting
 * instruction runs again; one sent with kill/raise/abort must be sent again. */
static bool sent_by_someone(const siginfo_t *si)
{
	return si->si_code <= 0;
}

/* What would have happened without ada, with p the disposition that was
 * there before ada's handler. */
void ada_signal_pass_on(int sig, siginfo_t *si, void *uc, struct sigaction *p)
{
	sigset_t mask, old;

	if (p->sa_handler == SIG_DFL || p->sa_handler == SIG_IGN) {
		sigaction(sig, p, NULL);
		if (p->sa_handler == SIG_DFL && sent_by_someone(si))
			syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
		return; /* blocked until we return, then the default action */
	}
	/* The program's handler, as the kernel would have run it: its mask
	 * added to the interrupted code's, the signal itself blocked unless
	 * SA_NODEFER. It may not return (siglongjmp): that is its right. */
	mask = ((ucontext_t *)uc)->uc_sigmask;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&p->sa_mask, s) == 1)
			sigaddset(&mask, s);
	if (!(p->sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_SETMASK, &mask, &old);
	if (p->sa_flags & SA_SIGINFO) {
		void (*fn)(int, siginfo_t *, void *) = p->sa_sigaction;

		if (p->sa_flags & SA_RESETHAND)
			p->sa_handler = SIG_DFL;
		fn(sig, si, uc);
	} else {
		void (*fn)(int) = p->sa_handler;

		if (p->sa_flags & SA_RESETHAND)
			p->sa_handler = SIG_DFL;
		fn(sig);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* strsignal() is not async-signal-safe: the names of ours. */
static const char *strsignal_safe(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	default: return "SIGABRT";
	}
}

/* A thread whose time-stamp counter is off (prctl(PR_SET_TSC,
 * PR_TSC_SIGSEGV); seccomp's strict mode turns it off too) faults at
 * ada's rdtsc, where the plain program reads no clock. The read is given
 * the writer's last ticks (within a pass, a millisecond at most while events
 * flow), never less than the last it gave; no system call (strict mode
 * allows none but read, write, exit and sigreturn), and the thread is told
 * to make none either (ring.c). An rdtsc of the program's own code faults
 * as it would without ada (with libada.a, linked into the program, its code
 * is the program's: there the program's reads are given ticks too). */
static bool ticks_emulated(int sig, const siginfo_t *si, void *uc)
{
	static uint64_t last;
	uintptr_t ip = ada_arch_signal_ip(uc);
	uint64_t t, prev = __atomic_load_n(&last, __ATOMIC_RELAXED);

	if (sig != SIGSEGV || si->si_code != SI_KERNEL || !ada_ip_in_segment(ip))
		return false;
	do {
		t = __atomic_load_n(&ada_rt.writer_ticks, __ATOMIC_RELAXED);
		if (t <= prev)
			t = prev + 1;
	} while (!__atomic_compare_exchange_n(&last, &prev, t, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	if (!ada_arch_ticks_emulate(uc, t))
		return false;
	if (ada_self.td)
		ada_self.td->tsc_off = true;
	return true;
}

static void on_fatal_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct ada_thread *td = ada_self.td;

	if (ticks_emulated(sig, si, uc))
		return;

	/* A vfork child's crash is not the parent's (it records nothing). */
	if (!ada_in_vfork_child() && !__atomic_exchange_n(&crashed, 1, __ATOMIC_ACQ_REL) &&
	    __atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE)) {
		struct ada_meta_crash c = {
			.signo = (uint32_t)sig, .code = si->si_code,
			.ordinal = td ? td->ordinal : UINT32_MAX,
			.os_tid = (uint32_t)syscall(SYS_gettid),
			.addr = (uint64_t)(uintptr_t)si->si_addr, .tsc = ada_arch_ticks(),
		};

		if (td && td->rh)
			__atomic_store_n(&td->rh->crash_tsc, c.tsc, __ATOMIC_RELEASE);
		ada_meta_write_direct(ADA_META_CRASH, &c, sizeof(c), NULL, 0);
		/* Every thread's last moments, with their registers. */
		if (ada_rt.cfg.trigger.crash)
			ada_mark_post(ADA_TRIG_CRASH, NULL, strsignal_safe(sig), c.tsc);
		ada_writer_request(ADA_FLUSH_DYING, FLUSH_TIMEOUT_NS);
		ada_warn_pending();
	}
	errno = saved_errno;
	ada_signal_pass_on(sig, si, uc, &previous[sig]);
}

void ada_crash_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal_signal;
	/* On the program's alternate stack if it has one (a stack overflow). */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, &previous[fatal_signals[i]]);
}
