/* marks.c - triggers from outside the hooks: the API (ada.h), signal:NAME
 * triggers and the crash handler put them in a small queue; the writer
 * opens their windows at its next pass (it is kicked at once).
 *
 * The queue is a fixed array: a poster takes a ticket with one atomic add
 * and publishes its entry with a release store, so posting is
 * async-signal-safe and lock-free. A trigger that finds the queue full (64
 * the writer has not taken yet) is counted, and said at exit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ADA_RUNTIME 1 /* the definitions, not ada.h's fallbacks */
#include "ada.h"
#include "ada_internal.h"

#define MARKS 64

/* Posted by program threads, taken by the writer: shared (shared.h). */
struct marks {
	struct ada_mark queue[MARKS];
	uint64_t next_ticket, taken;
	uint64_t overflowed;
};
static ADA_SHARED_VAR(struct marks, M);
#define M (M_area.v)

/* td->dwindow counts the triggers posted for td (never 0 once one was: the
 * thread holds back while it is not 0), so that the writer, which clears it
 * once td has no window left, does not clear one posted meanwhile. */
void ada_window_posted(struct ada_thread *td)
{
	if (!__atomic_add_fetch(&td->dwindow, 1, __ATOMIC_RELEASE))
		__atomic_add_fetch(&td->dwindow, 1, __ATOMIC_RELEASE);
}

void ada_mark_post(unsigned trigger, struct ada_thread *td, const char *label, uint64_t tsc)
{
	uint64_t ticket = __atomic_load_n(&M.next_ticket, __ATOMIC_ACQUIRE);
	struct ada_mark *m;

	/* A place the writer has emptied, or none. */
	do {
		if (ticket - __atomic_load_n(&M.taken, __ATOMIC_ACQUIRE) >= MARKS) {
			__atomic_fetch_add(&M.overflowed, 1, __ATOMIC_RELAXED);
			ada_writer_kick();
			return;
		}
	} while (!__atomic_compare_exchange_n(&M.next_ticket, &ticket, ticket + 1, true,
					      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	m = &M.queue[ticket % MARKS];
	m->trigger = trigger;
	m->td = td;
	m->pos = td ? __atomic_load_n(&td->rh->head, __ATOMIC_RELAXED) : 0;
	m->tsc = tsc;
	for (size_t i = 0; i < sizeof(m->label); i++) /* no libc: a signal handler may post */
		if (!(m->label[i] = label && i + 1 < sizeof(m->label) ? label[i] : '\0'))
			break;
	__atomic_store_n(&m->ready, ticket + 1, __ATOMIC_RELEASE);
	/* The window's records must outlive the writer's delay in taking it:
	 * the thread holds back from overwriting them from now (ring.c), not
	 * from when the writer opens the window. The marking thread looks at
	 * once (its next record); the others within a quarter of their ring. */
	if (td) {
		ada_window_posted(td);
		if (td == ada_self.td)
			td->dlimit = 0;
	} else {
		for (struct ada_thread *t = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); t;
		     t = t->next)
			ada_window_posted(t);
	}
	ada_writer_kick();
}

const struct ada_mark *ada_mark_next(void)
{
	struct ada_mark *m = &M.queue[M.taken % MARKS];

	return __atomic_load_n(&m->ready, __ATOMIC_ACQUIRE) == M.taken + 1 ? m : NULL;
}

void ada_mark_taken(void)
{
	struct ada_mark *m = &M.queue[M.taken % MARKS];

	__atomic_store_n(&m->ready, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&M.taken, M.taken + 1, __ATOMIC_RELEASE);
}

uint64_t ada_marks_overflowed(void)
{
	return __atomic_load_n(&M.overflowed, __ATOMIC_RELAXED);
}

/* ---- the API --------------------------------------------------------------------- */

void ada_mark(const char *label)
{
	struct ada_thread *td = ada_self.td;

	if (!__atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE) || !td || !td->rh)
		return;
	ada_mark_post(ADA_TRIG_MARK, td, label, ada_arch_ticks());
}

void ada_snapshot(void)
{
	if (!__atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE))
		return;
	ada_mark_post(ADA_TRIG_SNAPSHOT, NULL, "ada_snapshot", ada_arch_ticks());
}

union ada_off_area ada_recording_off_area ADA_SHARED_AT;

/* Calls made while it is off are not recorded; frames entered before still
 * return into the trace (each thread sees the flag at its next call). */
void ada_disable(void)
{
	__atomic_store_n(&ada_recording_off, 1, __ATOMIC_RELAXED);
	ada_writer_kick(); /* patchable mode: it unpatches (mcount/patch.c) */
}

void ada_enable(void)
{
	__atomic_store_n(&ada_recording_off, 0, __ATOMIC_RELAXED);
	ada_writer_kick();
}

void ada_trace_switch(bool off)
{
	/* A trace_on function called in a loop: one load, no wake-up. */
	if ((__atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED) != 0) == off)
		return;
	if (off)
		ada_disable();
	else
		ada_enable();
}

void ada_thread_ignore(void)
{
	/* A thread that has recorded nothing yet gets its state now, to hold
	 * the flag (it leaves no file: a thread without events has none). */
	struct ada_thread *td = ada_self.td ? ada_self.td : ada_thread_init_slow();

	if (td)
		td->ignored = true;
}

/* ---- signal:NAME ------------------------------------------------------------------ */

static struct sigaction previous[NSIG];

static void on_mark_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;

	if (__atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE)) {
		ada_mark_post(ADA_TRIG_SIGNAL, NULL, ada_trigger_signal_name(sig), ada_arch_ticks());
		/* Its default action ends the process: the windows first. */
		if (previous[sig].sa_handler == SIG_DFL)
			ada_writer_request(ADA_FLUSH_DYING, 1000000000ull);
	}
	errno = saved_errno;
	/* Ignored before ada: still ignored (and ours stays for the next). */
	if (previous[sig].sa_handler != SIG_IGN)
		ada_signal_pass_on(sig, si, uc, &previous[sig]);
}

/* ADA_TOGGLE_SIGNAL: recording off if on, on if off (as ada_disable and
 * ada_enable). Its default action, which would end the process, is not
 * taken; a handler the program had installed still runs. */
static void on_toggle_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;

	if (__atomic_load_n(&ada_recording_off, __ATOMIC_RELAXED))
		ada_enable();
	else
		ada_disable();
	errno = saved_errno;
	if (previous[sig].sa_handler != SIG_DFL && previous[sig].sa_handler != SIG_IGN)
		ada_signal_pass_on(sig, si, uc, &previous[sig]);
}

void ada_signal_triggers_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_mark_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < 64 && sig < NSIG; sig++)
		if (ada_rt.cfg.trigger.signals & 1ull << sig)
			sigaction(sig, &sa, &previous[sig]);
	if (ada_rt.cfg.toggle_signal) {
		sa.sa_sigaction = on_toggle_signal;
		sigaction(ada_rt.cfg.toggle_signal, &sa, &previous[ada_rt.cfg.toggle_signal]);
	}
}
