/* makecontext.c - tell runtime/stacks.c where a ucontext's stack is.
 *
 * A context made by makecontext runs on uc_stack. Registered here, that
 * stack is a stack of its own to the runtime even when it sits inside a
 * larger mapping (a static array, malloc'ed memory next to other stacks),
 * so the calls on it nest exactly. Interposes libc's makecontext (libada
 * comes first in the search order); left out of libada.a, where there is no
 * next definition to call.
 *
 * makecontext is variadic: argc further arguments, each an int by POSIX, a
 * 64-bit word to glibc on x86_64. They are passed on as words; the real
 * makecontext reads argc of them and ignores the rest.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <ucontext.h>

#include "ada_internal.h"

#define MAX_ARGS 16

typedef void (*makecontext_fn)(ucontext_t *, void (*)(void), int, ...);

__attribute__((visibility("default"))) void makecontext(ucontext_t *ucp, void (*fn)(void),
							 int argc, ...)
{
	static makecontext_fn real;
	long a[MAX_ARGS] = { 0 };
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc && i < MAX_ARGS; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real) {
		struct ada_runtime_work w;

		ada_runtime_begin(&w);
		real = (makecontext_fn)dlsym(RTLD_NEXT, "makecontext");
		ada_runtime_end(&w);
	}
	ada_stack_register((uintptr_t)ucp->uc_stack.ss_sp, ucp->uc_stack.ss_size);
	real(ucp, fn, argc < MAX_ARGS ? argc : MAX_ARGS, a[0], a[1], a[2], a[3], a[4], a[5], a[6],
	     a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
}
