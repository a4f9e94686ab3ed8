/* cyg.c - the -finstrument-functions hooks.
 *
 * gcc and clang call these at the entry and exit of every instrumented
 * function with its address and its return address. Each hook is a short
 * ladder: find this thread's state, take the reentrancy guard, record, drop
 * the guard. No lock, no syscall, no allocation, no libc call; errno is left
 * alone because nothing here can set it.
 */
#include "thread.h"

#define ADA_HOOK __attribute__((visibility("default"), no_instrument_function))

/* Returns the thread's state with the guard taken, or NULL if this event is
 * not to be recorded (tracing off, thread not set up, or a hook that fired
 * while the thread was already inside the runtime — a signal handler). */
static inline __attribute__((always_inline)) struct ada_thread *hook_begin(void)
{
	struct ada_thread *td = ada_td;

	if (unlikely(!td)) {
		td = ada_thread_init_slow();
		if (!td)
			return NULL;
	}
	if (unlikely(td->busy)) {
		td->dropped[ADA_DROP_REENTRANT]++;
		return NULL;
	}
	td->busy = 1;
	/* The guard must be set before the state it protects is touched, and a
	 * signal handler runs on this CPU: a compiler barrier is enough. */
	__asm__ volatile("" ::: "memory");
	return td;
}

static inline __attribute__((always_inline)) void hook_end(struct ada_thread *td)
{
	__asm__ volatile("" ::: "memory");
	td->busy = 0;
}

ADA_HOOK void __cyg_profile_func_enter(void *fn, void *site)
{
	struct ada_thread *td = hook_begin();

	if (!td)
		return;
	ada_record_enter(td, (uintptr_t)fn, (uintptr_t)site, ada_arch_sp());
	hook_end(td);
}

ADA_HOOK void __cyg_profile_func_exit(void *fn, void *site)
{
	struct ada_thread *td = hook_begin();

	if (!td)
		return;
	ada_record_exit(td, (uintptr_t)fn, (uintptr_t)site, ada_arch_sp());
	hook_end(td);
}
