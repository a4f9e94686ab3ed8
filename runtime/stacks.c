/* stacks.c - one recording state per stack: coroutines switch stacks.
 *
 * A thread that switches stacks (swapcontext, a coroutine library's
 * hand-written switch) leaves the frames of the stack it switched away from
 * suspended, not abandoned: they return when that stack runs again, maybe
 * on another thread. One shadow stack per thread cannot hold that, so each
 * stack a thread runs on has a recording state of its own (struct
 * ada_thread: ring, shadow stack), and a thread records into the state of
 * the stack it is on. Each hook checks that its frame position is inside
 * the current state's stack (thread.h ada_stack_state: a subtraction and a
 * compare); when it is not, it lands here and the thread's current state
 * becomes the state of the stack it now runs on. In the trace each
 * coroutine stack is a thread of its own, named as a stack of the thread
 * that first ran on it; its calls and returns nest exactly.
 *
 * What a stack is: a thread's own stack (pthread_getattr_np), a ucontext
 * stack (makecontext, runtime/makecontext.c registers uc_stack), and else
 * the memory mapping the position is in (/proc/self/maps: a stack the
 * program mapped for itself). Stacks carved out of one mapping that ada was
 * not told about (malloc'ed stacks of a hand-written switch) are one stack
 * to it: there the frames of a switched-away coroutine close as abandoned
 * and their returns are still found (mcount/hijack.c's closed frames).
 * A handler on an alternate signal stack nests where it interrupted.
 *
 * Stacks are process-wide: a context suspended on one thread and resumed on
 * another finds its frames. A stack runs on one thread at a time, so its
 * ring still has one producer at a time; the program's own hand-over of the
 * context orders the two threads' uses of it.
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "ada_internal.h"

#define MAX_STACKS 256 /* coroutine stacks a process may have: each keeps a ring */

struct stack_entry {
	uintptr_t lo, hi;
	struct ada_thread *td; /* made by the first hook that runs on it */
	uint32_t ready;        /* lo and hi are set (release) */
};

static struct stack_entry stacks[MAX_STACKS];
static uint32_t nstacks; /* entries claimed; may run past MAX_STACKS */
static uint32_t full_said;

static __thread struct ada_thread *home __attribute__((tls_model("initial-exec")));
static __thread uintptr_t alt_lo, alt_hi; /* the signal stack last seen in use */

void ada_stack_home(struct ada_thread *td)
{
	home = td;
}

static bool in(uintptr_t pos, uintptr_t lo, uintptr_t hi)
{
	return pos - lo < hi - lo;
}

/* The newest entry holding pos: a stack registered again over an older one
 * (memory reused for another coroutine) wins. */
static struct stack_entry *stack_find(uintptr_t pos)
{
	uint32_t n = __atomic_load_n(&nstacks, __ATOMIC_ACQUIRE);

	for (uint32_t i = n < MAX_STACKS ? n : MAX_STACKS; i-- > 0;) {
		struct stack_entry *e = &stacks[i];

		if (__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) && in(pos, e->lo, e->hi))
			return e;
	}
	return NULL;
}

static struct stack_entry *stack_add(uintptr_t lo, uintptr_t hi)
{
	uint32_t i = __atomic_fetch_add(&nstacks, 1, __ATOMIC_RELAXED);

	if (i >= MAX_STACKS) {
		if (!__atomic_exchange_n(&full_said, 1, __ATOMIC_RELAXED))
			ada_warn("more than %d coroutine stacks; calls on further ones are "
				 "recorded in the stack they were switched from", MAX_STACKS);
		return NULL;
	}
	stacks[i].lo = lo;
	stacks[i].hi = hi;
	__atomic_store_n(&stacks[i].ready, 1, __ATOMIC_RELEASE);
	return &stacks[i];
}

void ada_stack_register(uintptr_t lo, size_t size)
{
	struct stack_entry *e = stack_find(lo);

	if (!size || (e && e->lo == lo && e->hi == lo + size))
		return;
	stack_add(lo, lo + size);
}

struct ada_thread *ada_stack_owner(uintptr_t pos)
{
	struct stack_entry *e = stack_find(pos);

	return e ? __atomic_load_n(&e->td, __ATOMIC_ACQUIRE) : NULL;
}

/* The mapping that holds pos, from /proc/self/maps; open/read only, so a
 * signal handler may get here. */
static int mapping_of(uintptr_t pos, uintptr_t *lo, uintptr_t *hi)
{
	char buf[4096];
	size_t have = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), found = -1;

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n'))) {
			uintptr_t a = 0, b = 0;
			char *p = line;

			for (; *p != '-' && p < nl; p++)
				a = a << 4 | (uintptr_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
			for (p++; *p != ' ' && p < nl; p++)
				b = b << 4 | (uintptr_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
			if (in(pos, a, b)) {
				*lo = a;
				*hi = b;
				found = 0;
				goto out;
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			break; /* a line longer than the buffer: not a stack's */
	}
out:
	close(fd);
	return found;
}

/* The state of entry e's stack, made on first use. Signals wait meanwhile
 * (a ring file takes a few system calls), as in a thread's set-up. */
static struct ada_thread *stack_state(struct stack_entry *e)
{
	struct ada_thread *td = __atomic_load_n(&e->td, __ATOMIC_ACQUIRE), *none = NULL;
	sigset_t old;

	if (td)
		return td;
	ada_signals_block(&old);
	td = ada_state_alloc(true);
	if (td) {
		td->stack_lo = e->lo;
		td->stack_span = e->hi - e->lo;
		ada_window_bound(td);
		td->host_ordinal = home ? home->ordinal : UINT32_MAX;
		if (__atomic_compare_exchange_n(&e->td, &none, td, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			ada_registry_push(td);
		else
			td = none; /* lost a race to another thread on it: cannot be */
	}
	ada_signals_restore(&old);
	return td;
}

/* Whether pos is on the signal stack a handler runs on now (remembered:
 * a handler on it must not make every hook ask the kernel). */
static bool on_signal_stack(uintptr_t pos)
{
	uintptr_t range[2];

	if (!ada_on_signal_stack(pos, range))
		return false;
	alt_lo = range[0];
	alt_hi = range[1];
	return true;
}

struct ada_thread *ada_stack_switch_slow(struct ada_thread *td, uintptr_t pos)
{
	struct stack_entry *e;
	struct ada_thread *to;

	if (in(pos, alt_lo, alt_hi))
		return td;
	if (home && ada_in_thread_stack(home, pos))
		to = home;
	else if (on_signal_stack(pos))
		return td;
	else {
		e = stack_find(pos);
		if (!e) {
			uintptr_t lo, hi;

			if (mapping_of(pos, &lo, &hi) < 0 || !(e = stack_add(lo, hi)))
				return td;
		}
		to = stack_state(e);
		if (!to)
			return td;
	}
	ada_self.td = to;
	return to;
}

/* In a fork child the parent's stacks and their rings are gone. The thread
 * keeps the state it runs on (ada_thread_after_fork gave it a ring); its own
 * stack, if it was elsewhere, gets a new state when it comes back to it. */
void ada_stacks_after_fork(struct ada_thread *td)
{
	for (uint32_t i = 0; i < MAX_STACKS; i++)
		stacks[i] = (struct stack_entry){ 0 };
	nstacks = 0;
	if (td != home)
		home = NULL;
	if (td->is_stack) {
		struct stack_entry *e = stack_add(td->stack_lo, td->stack_lo + td->stack_span);

		if (e)
			e->td = td;
	}
}
