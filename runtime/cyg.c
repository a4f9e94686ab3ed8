/* cyg.c - the -finstrument-functions hooks, in C.
 *
 * gcc and clang call __cyg_profile_func_enter and _exit at the entry and
 * exit of every instrumented function with its address and its return
 * address. mcount/<arch>/cyg.S defines them: a fast path for the common
 * case, which jumps here for everything else with the arguments and the
 * stack untouched (so the frame position below is the same). Each hook is
 * a short ladder: find this thread's state, take the reentrancy guard,
 * record, drop the guard. No lock, no syscall, no allocation, no libc call;
 * errno is left alone because nothing here can set it.
 */
#include "thread.h"

#define ADA_HOOK __attribute__((visibility("hidden"), no_instrument_function))

/* Frames are placed by the instrumented function's stack pointer at the call
 * to the hook: the hook's canonical frame address (its own stack pointer
 * would depend on how much its prologue pushes). It is what a fentry or
 * PLT-hooked callee's return-address slot is compared with when modes mix in
 * one program: the callee's slot is below it, strictly. */

ADA_HOOK void ada_cyg_enter(void *fn, void *site);
ADA_HOOK void ada_cyg_exit(void *fn, void *site);

ADA_HOOK_TEXT void ada_cyg_enter(void *fn, void *site)
{
	uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
	struct ada_thread *td = ada_hook_begin(cfa, 1);

	if (!td)
		return;
	/* ADA_GRAPH: outside a graph function's call (both hooks of a function
	 * see the same: the graph function returns before its caller). */
	if (likely(!td->graph_gate))
		ada_record_enter(td, (uintptr_t)fn, (uintptr_t)site, cfa);
	ada_hook_end(td);
}

ADA_HOOK_TEXT void ada_cyg_exit(void *fn, void *site)
{
	struct ada_thread *td = ada_hook_begin((uintptr_t)__builtin_dwarf_cfa(), 1);

	if (!td)
		return;
	if (likely(!td->graph_gate))
		ada_record_exit(td, (uintptr_t)fn, (uintptr_t)site);
	ada_hook_end(td);
}
