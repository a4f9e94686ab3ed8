/* clone.c - a program's own clone(CLONE_VM | CLONE_VFORK): the child
 * records nothing, as vfork's does.
 *
 * Such a child runs fn on a stack of its own but with the parent's memory
 * and, without CLONE_SETTLS, the parent's TLS: its hooks would push frames
 * onto the calling thread's shadow stack and ring, and its _exit or exec
 * would end the parent's trace. With CLONE_VFORK the calling thread waits
 * until the child execs or exits, so the thread's state can be set aside
 * for the child and put back after, as libada's vfork does (thread.c's
 * ada_vfork_enter). The child never returns into this function (it ends in
 * fn), so a wrapper in C is safe here, unlike for vfork.
 *
 * Other clones go straight to libc's: with CLONE_SETTLS the child has TLS
 * of its own and is traced like a thread; without CLONE_VM it is a fork
 * that ran no fork handlers (not handled here). A CLONE_VM child without
 * CLONE_VFORK or CLONE_SETTLS shares the calling thread's state while both
 * run: its calls are recorded as the thread's (a known limit, docs/internals.md).
 */
#include <sched.h>
#include <stdarg.h>

#include "ada_internal.h"

/* libc's clone under the name libc.so and libc.a both export. */
extern int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);

/* ptid, tls and ctid are read whether or not the flags say they were
 * passed, as libc's clone reads their registers: the kernel looks only at
 * those the flags name. */
__attribute__((visibility("default"))) int clone(int (*fn)(void *), void *stack, int flags,
						 void *arg, ...)
{
	struct ada_vfork_saved saved;
	pid_t *ptid, *ctid;
	void *tls;
	va_list ap;
	int ret;

	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if ((flags & (CLONE_VM | CLONE_VFORK | CLONE_SETTLS)) != (CLONE_VM | CLONE_VFORK))
		return __clone(fn, stack, flags, arg, ptid, tls, ctid);
	saved = ada_vfork_enter();
	ret = __clone(fn, stack, flags, arg, ptid, tls, ctid);
	ada_vfork_restore(saved);
	return ret;
}
