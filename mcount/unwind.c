/* unwind.c - fentry/mcount mode: let unwinders see real return addresses.
 *
 * A hijacked frame's return-address slot holds ada_return_trampoline, whose
 * unwind information says "no caller". An unwinder that reads the stack
 * (C++ exceptions, backtrace(), pthread_exit's forced unwind) would stop
 * there: std::terminate, a truncated backtrace, destructors not run. So
 * libada defines the unwinder's entry points itself (libada comes before
 * libgcc_s, libstdc++ and libc in the search order; libstdc++ and compiled
 * code call them through the PLT), puts the real return addresses back
 * before the real function (found with dlsym(RTLD_NEXT)) reads the stack,
 * and hijacks again what is still live once it is safe.
 *
 * Words used below. A frame is "hooked" while its slot holds the trampoline,
 * "unhooked" once the real return address is back (f->site; a tail-call
 * frame, site == trampoline, shares its outer frame's slot and is skipped).
 * The "chain" of a call is what an unwinder started there would walk: the
 * slots at or above its stack position (cfa) on the stack it runs on, plus
 * the thread's own stack under a signal handler on the alternate stack.
 * Frames on any other stack (a coroutine's) are left alone: their extent is
 * not known, and reading them could fault.
 *
 * The rules:
 *  1. Before an unwinder reads the stack (_Unwind_RaiseException, _Unwind_
 *     Resume, _Unwind_Resume_or_Rethrow, _Unwind_ForcedUnwind,
 *     _Unwind_Backtrace, backtrace), every hooked frame of the chain is
 *     unhooked, and, on a thread that was unhooked already, frames below the
 *     caller's stack position on the same stack, which are gone, are closed
 *     with EXCEPTION.
 *  2. An unhooked frame's return is not seen: it is being unwound, and is
 *     closed when the code that runs next shows it is gone. Cleanups
 *     (destructors) run in the unwound frame X with X's stack pointer, and
 *     call traced functions: those are new frames, hooked as usual, and
 *     ada_fentry_enter's stale-frame check (a new slot at or above the
 *     innermost frame's) closes exactly the frames inside X, which the
 *     unwinder has left. It never closes X or its callers: their slots are
 *     above the new one. _Unwind_Resume at the end of the cleanup closes
 *     the same way (rule 1).
 *  3. __cxa_begin_catch runs in the catching frame C: frames below C's stack
 *     position are gone and are closed (recorded ones as EXCEPTION); C and
 *     its callers are hooked again, so their returns are seen. Every C++
 *     handler calls it, catch (...) included, before its body; a rethrow
 *     goes back to rule 1.
 *  4. If an unwinder returns (no handler: std::terminate is next; a
 *     backtrace is done), no frame was unwound: the chain is hooked again.
 *  5. Some unwinders run the program's code while they are still walking
 *     the stack: _Unwind_Backtrace's callback, and a forced unwind's stop
 *     function, which runs pthread_cleanup_push handlers. Frames above such
 *     a live walk must stay unhooked, so rules 3 and 4 hook only slots below
 *     `walk_sp`, the position of the outermost live walk (0: none). A
 *     backtrace sets it for its duration; a forced unwind sets it for good:
 *     it ends the thread, or is caught by a handler above it (rule 3 clears
 *     walk_sp when the catch is above it).
 *  6. pthread_exit: glibc runs its forced unwind with a libgcc_s it
 *     dlopen'ed itself, past _Unwind_ForcedUnwind above; pthread_exit is
 *     interposed and unhooks as for a forced unwind. The thread ends; its
 *     open frames close as EXCEPTION.
 *  7. A safety net for every other unwinder (written, not built: see the
 *     end of this file): libgcc_s looks up each frame's unwind information
 *     with _Unwind_Find_FDE through its PLT. Asked about the trampoline's
 *     return address (looked up at address - 1), it unhooks the thread as
 *     for a forced unwind and describes the trampoline as a frame of no
 *     size whose return address is in the slot below its caller's stack
 *     pointer: the real one, now. If nothing could be unhooked it says "no
 *     information", which ends the walk (rather than loop on one slot).
 *     (aarch64: the slot is in the frame the unwinder has just left, at an
 *     offset nothing describes, so the description names the real address
 *     itself, that of the innermost frame unhooked: the one whose slot the
 *     unwinder read the trampoline from.)
 * So a frame's return is seen exactly once, by the trampoline if it returns
 * hooked, or closed as EXCEPTION once it is known to be gone; after rule 3 or
 * 4 the shadow stack and the slots of the chain agree again.
 *
 * Only a thread that had frames unhooked here does anything at a catch
 * (`unhooked`), so a program built in cyg mode, whose frames are never
 * hijacked, keeps its exception handling exactly as before. Nothing is
 * touched when the thread was inside the runtime (a signal handler that
 * interrupted a hook): the shadow stack may be half written.
 *
 * Not covered: pthread_cancel (glibc's own forced unwind: the first
 * cleanup's _Unwind_Resume unhooks, but a hooked frame reached before that
 * ends the unwind there; rule 7 would cover it), unwinders linked
 * statically (libgcc_eh in a -static link: these definitions are weak, so
 * the real ones win there), libunwind's own API, gdb's bt, and a foreign
 * (non-C++) exception caught without __cxa_begin_catch: its frames are
 * closed as EXCEPTION by the next stale-frame check instead of returning.
 *
 * Architecture-neutral but for rule 7's frame description; built with
 * -mgeneral-regs-only like hijack.c. Where a frame's shadow-stack position
 * is not its slot (aarch64 mcount: runtime/aarch64/arch.h), the slot's own
 * address is what is compared with stack positions here: a slot lies in
 * its function's frame, above the stack pointer of anything it calls, as
 * x86_64's does.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unwind.h>

#include "hijack.h"

/* Weak: a static link that brings in libgcc_eh, libstdc++.a's catch or
 * libc.a's backtrace or pthread_exit gets the real definitions, not a
 * duplicate-symbol error. */
#define ADA_INTERPOSE __attribute__((visibility("default"), weak, noinline))

#define TRAMPOLINE ((uintptr_t)ada_return_trampoline)

/* This thread had frames unhooked that no catch or finished walk has hooked
 * again. */
static __thread uint8_t unhooked __attribute__((tls_model("initial-exec")));
/* The stack position of the outermost unwinder walk still running on this
 * thread (rule 5), or 0. */
static __thread uintptr_t walk_sp __attribute__((tls_model("initial-exec")));
/* The real return address of the innermost frame the last unhook() put back
 * (rule 7 on aarch64). */
static __thread uintptr_t unhooked_first __attribute__((tls_model("initial-exec")));

/* ---- the real functions ------------------------------------------------------ */

/* Those of one library next to each other: lookup asks each absent one once. */
enum real_id { R_RAISE, R_RESUME, R_RETHROW, R_FORCED, R_BACKTRACE_UW, R_FIND_FDE,
	       R_CATCH, R_BACKTRACE, R_PTHREAD_EXIT, R_N };

static const struct {
	const char *name, *lib; /* lib: where to look if RTLD_NEXT does not find it */
} real_names[R_N] = {
	[R_RAISE] = { "_Unwind_RaiseException", "libgcc_s.so.1" },
	[R_RESUME] = { "_Unwind_Resume", "libgcc_s.so.1" },
	[R_RETHROW] = { "_Unwind_Resume_or_Rethrow", "libgcc_s.so.1" },
	[R_FORCED] = { "_Unwind_ForcedUnwind", "libgcc_s.so.1" },
	[R_BACKTRACE_UW] = { "_Unwind_Backtrace", "libgcc_s.so.1" },
	[R_CATCH] = { "__cxa_begin_catch", "libstdc++.so.6" },
	[R_FIND_FDE] = { "_Unwind_Find_FDE", "libgcc_s.so.1" },
	[R_BACKTRACE] = { "backtrace", NULL },
	[R_PTHREAD_EXIT] = { "pthread_exit", NULL },
};

static void *real_fn[R_N];

/* A static executable has no RTLD_NEXT. There, backtrace and pthread_exit
 * are weak here and in libc.a: the first one linked wins, which is this one
 * unless something pulled libc's member in. Their strong twins are then the
 * way to them, if linked (weak references: none in libada.so). */
extern int __backtrace(void **, int) __attribute__((weak));
extern void __pthread_exit(void *) __attribute__((weak, noreturn));

static void *static_fallback(enum real_id id)
{
	if (id == R_BACKTRACE)
		return (void *)__backtrace;
	if (id == R_PTHREAD_EXIT)
		return (void *)__pthread_exit;
	return NULL;
}

static int loaded_as(struct dl_phdr_info *info, size_t size, void *lib)
{
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	return !strncmp(base, lib, strlen(lib)); /* libstdc++.so.6 or .so.6.0.30 */
}

/* The next definition after libada's. A C++ library dlopen'ed with
 * RTLD_LOCAL brings libgcc_s or libstdc++ outside the global scope, where
 * RTLD_NEXT does not look: then the library itself is asked, if the
 * loader's list has it (dlopen with RTLD_NOLOAD of one not loaded still
 * searches the path and opens the file: 0.1 ms at every start of a C
 * program). *absent names a library found not loaded, not looked for
 * again. */
static void *lookup(enum real_id id, const char **absent)
{
	void *fn = dlsym(RTLD_NEXT, real_names[id].name);
	const char *lib = real_names[id].lib;

	if (!fn && lib && !(*absent && !strcmp(*absent, lib))) {
		void *h = dl_iterate_phdr(loaded_as, (void *)lib) ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD)
								   : NULL;

		if (h) {
			fn = dlsym(h, real_names[id].name);
			dlclose(h);
		} else {
			*absent = lib;
		}
	}
	return fn ? fn : static_fallback(id);
}

/* dlsym may allocate: everything that can be found is found at load time,
 * so that a backtrace() in a signal handler does not have to. */
__attribute__((constructor)) static void unwind_resolve(void)
{
	struct ada_runtime_work w;
	const char *absent = NULL;

	ada_runtime_begin(&w);
	for (int i = 0; i < R_N; i++)
		__atomic_store_n(&real_fn[i], lookup(i, &absent), __ATOMIC_RELAXED);
	ada_runtime_end(&w);
}

static void *real(enum real_id id)
{
	void *fn = __atomic_load_n(&real_fn[id], __ATOMIC_RELAXED);

	if (unlikely(!fn)) {
		const char *absent = NULL;

		fn = lookup(id, &absent);
		if (!fn) {
			ada_warn("cannot find the real %s; aborting (a static executable "
				 "needs -Wl,-u,__%s)", real_names[id].name, real_names[id].name);
			abort();
		}
		__atomic_store_n(&real_fn[id], fn, __ATOMIC_RELAXED);
	}
	return fn;
}

/* ---- the chain ------------------------------------------------------------------ */

struct chain {
	uintptr_t cfa;    /* the interposed function's caller's stack pointer */
	uintptr_t hi;     /* the end of the stack it runs on */
	uintptr_t lo;     /* and its start */
	bool alt;         /* on the alternate signal stack */
};

/* False on a stack whose extent is unknown (a coroutine's). */
static bool chain_init(struct ada_thread *td, uintptr_t cfa, struct chain *c)
{
	stack_t ss;

	c->cfa = cfa;
	c->alt = false;
	if (ada_on_thread_stack(td, cfa)) {
		c->lo = td->stack_lo;
		c->hi = td->stack_lo + td->stack_span;
		return true;
	}
	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK) &&
	    cfa >= (uintptr_t)ss.ss_sp && cfa - (uintptr_t)ss.ss_sp < ss.ss_size) {
		c->lo = (uintptr_t)ss.ss_sp;
		c->hi = (uintptr_t)ss.ss_sp + ss.ss_size;
		c->alt = true;
		return true;
	}
	return false;
}

static bool in_chain(struct ada_thread *td, const struct chain *c, uintptr_t slot)
{
	if (slot >= c->cfa && slot < c->hi)
		return true;
	return c->alt && ada_on_thread_stack(td, slot);
}

static uint32_t shadow_depth(const struct ada_thread *td)
{
	return td->depth < td->shadow_cap ? td->depth : td->shadow_cap;
}

/* Rule 1: the real return address back into every hooked slot. Returns
 * how many. */
static unsigned unhook(struct ada_thread *td, const struct chain *c)
{
	unsigned n = 0;

	for (uint32_t d = shadow_depth(td); d > 0; d--) {
		const struct ada_frame *f = &td->shadow[d - 1];
		uintptr_t *slot = (uintptr_t *)ada_frame_slot(f);

		if (ada_is_hijacked(f->site) || !in_chain(td, c, (uintptr_t)slot) ||
		    !ada_is_hijacked(*slot))
			continue;
		*slot = f->site;
		unhooked = 1;
		if (!n++)
			unhooked_first = f->site;
	}
	return n;
}

/* Rules 3 and 4: the trampoline back into the live slots of the chain that
 * hold their frame's real return address, below any live walk. */
static void rehook(struct ada_thread *td, const struct chain *c)
{
	for (uint32_t d = shadow_depth(td); d > 0; d--) {
		const struct ada_frame *f = &td->shadow[d - 1];
		uintptr_t *slot = (uintptr_t *)ada_frame_slot(f);

		if (ada_is_hijacked(f->site) || !in_chain(td, c, (uintptr_t)slot) ||
		    (walk_sp && (uintptr_t)slot >= walk_sp) || *slot != f->site)
			continue;
		*slot = TRAMPOLINE;
	}
	if (!walk_sp)
		unhooked = 0;
}

/* The innermost frames whose slots are below cfa on the stack it runs on:
 * the code that runs at cfa has left them. */
static void close_gone(struct ada_thread *td, const struct chain *c)
{
	while (td->depth > 0 && td->depth <= td->shadow_cap) {
		uintptr_t sp = ada_frame_slot(&td->shadow[td->depth - 1]);

		if (sp >= c->cfa || sp < c->lo)
			break;
		ada_close_abandoned(td);
	}
}

/* The thread's state with the guard taken, or NULL: not traced, or inside
 * the runtime (a signal handler that interrupted a hook). */
static struct ada_thread *guard_take(void)
{
	struct ada_thread *td = ada_self.td;
	uintptr_t pos = (uintptr_t)__builtin_dwarf_cfa(); /* as in ada_hook_begin */

	if (!td || ada_self.busy)
		return NULL;
	ada_busy_set(pos | ADA_BUSY_HOOK);
	return ada_stack_state(td, pos);
}

static void guard_drop(void)
{
	ada_busy_set(0);
}

/* Rule 1, and rule 5 for a forced unwind. Returns how many frames were
 * unhooked. */
static unsigned before_unwind(uintptr_t cfa, bool forced)
{
	struct ada_thread *td = guard_take();
	struct chain c;
	unsigned n = 0;

	if (!td)
		return 0;
	if (chain_init(td, cfa, &c)) {
		if (unhooked)
			close_gone(td, &c);
		n = unhook(td, &c);
		if (forced && cfa > walk_sp)
			walk_sp = cfa;
	}
	guard_drop();
	return n;
}

/* Rule 4 (and rule 3 with gone = true). */
static void after_unwind(uintptr_t cfa, bool gone)
{
	struct ada_thread *td;
	struct chain c;

	if (!unhooked || !(td = guard_take()))
		return;
	if (chain_init(td, cfa, &c)) {
		if (gone) {
			close_gone(td, &c);
			if (walk_sp && walk_sp < cfa)
				walk_sp = 0; /* the walk was below the handler: over */
		}
		rehook(td, &c);
	}
	guard_drop();
}

static bool is_forced(const struct _Unwind_Exception *exc)
{
	return exc->private_1 != 0; /* the stop function of a forced unwind */
}

#define CFA() ((uintptr_t)__builtin_dwarf_cfa())

/* ---- C++ exceptions (libgcc_s, libstdc++) ---------------------------------------- */

typedef _Unwind_Reason_Code (*raise_fn)(struct _Unwind_Exception *);
typedef void (*resume_fn)(struct _Unwind_Exception *);
typedef _Unwind_Reason_Code (*forced_fn)(struct _Unwind_Exception *, _Unwind_Stop_Fn, void *);
typedef _Unwind_Reason_Code (*backtrace_uw_fn)(_Unwind_Trace_Fn, void *);
typedef void *(*catch_fn)(void *);
typedef int (*backtrace_fn)(void **, int);
typedef void (*pthread_exit_fn)(void *) __attribute__((noreturn));

ADA_INTERPOSE _Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *exc)
{
	raise_fn fn = (raise_fn)real(R_RAISE);
	_Unwind_Reason_Code rc;

	before_unwind(CFA(), false);
	rc = fn(exc); /* returns only if no handler was found */
	after_unwind(CFA(), false);
	return rc;
}

ADA_INTERPOSE _Unwind_Reason_Code _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *exc)
{
	raise_fn fn = (raise_fn)real(R_RETHROW);
	_Unwind_Reason_Code rc;

	before_unwind(CFA(), is_forced(exc));
	rc = fn(exc);
	after_unwind(CFA(), false);
	return rc;
}

ADA_INTERPOSE void _Unwind_Resume(struct _Unwind_Exception *exc)
{
	resume_fn fn = (resume_fn)real(R_RESUME);

	before_unwind(CFA(), is_forced(exc));
	fn(exc);
	abort(); /* _Unwind_Resume does not return */
}

ADA_INTERPOSE _Unwind_Reason_Code _Unwind_ForcedUnwind(struct _Unwind_Exception *exc,
						      _Unwind_Stop_Fn stop, void *arg)
{
	forced_fn fn = (forced_fn)real(R_FORCED);
	uintptr_t walk = walk_sp;
	_Unwind_Reason_Code rc;

	before_unwind(CFA(), true);
	rc = fn(exc, stop, arg); /* returns on an error before any frame was left */
	walk_sp = walk;
	after_unwind(CFA(), false);
	return rc;
}

ADA_INTERPOSE void *__cxa_begin_catch(void *exc)
{
	catch_fn fn = (catch_fn)real(R_CATCH);

	after_unwind(CFA(), true);
	return fn(exc);
}

/* ---- stack walks ------------------------------------------------------------------ */

/* Rule 5 around a walk that returns. */
static uintptr_t walk_begin(uintptr_t cfa)
{
	uintptr_t outer = walk_sp;

	before_unwind(cfa, false);
	if (cfa > walk_sp)
		walk_sp = cfa;
	return outer;
}

static void walk_end(uintptr_t cfa, uintptr_t outer)
{
	walk_sp = outer;
	after_unwind(cfa, false);
}

/* _Unwind_Backtrace's first frame is its caller's: hide this function. */
struct trace_skip {
	_Unwind_Trace_Fn fn;
	void *arg;
	int skip;
};

static _Unwind_Reason_Code trace_skip_first(struct _Unwind_Context *ctx, void *arg)
{
	struct trace_skip *t = arg;

	if (t->skip) {
		t->skip = 0;
		return _URC_NO_REASON;
	}
	return t->fn(ctx, t->arg);
}

ADA_INTERPOSE _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn trace, void *arg)
{
	backtrace_uw_fn fn = (backtrace_uw_fn)real(R_BACKTRACE_UW);
	struct trace_skip t = { trace, arg, 1 };
	uintptr_t outer = walk_begin(CFA());
	_Unwind_Reason_Code rc;

	rc = fn(trace_skip_first, &t);
	walk_end(CFA(), outer);
	return rc;
}

/* glibc's backtrace() calls libgcc_s's _Unwind_Backtrace through its own
 * dlopen handle, so it is interposed itself. Its first entry would be this
 * function: it is asked for one more and the first is dropped. */
#define BT_STACK 256

ADA_INTERPOSE int backtrace(void **buf, int size)
{
	backtrace_fn fn = (backtrace_fn)real(R_BACKTRACE);
	void *small[BT_STACK + 1], **tmp = small;
	size_t bytes = ((size_t)(size > 0 ? size : 0) + 1) * sizeof(void *);
	uintptr_t outer;
	int n;

	if (size <= 0)
		return fn(buf, size);
	if (size > BT_STACK) {
		tmp = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (tmp == MAP_FAILED)
			return 0;
	}
	outer = walk_begin(CFA());
	n = fn(tmp, size + 1);
	walk_end(CFA(), outer);
	n = n > 0 ? n - 1 : 0;
	for (int i = 0; i < n; i++)
		buf[i] = tmp[i + 1];
	if (tmp != small)
		munmap(tmp, bytes);
	return n;
}

/* ---- thread exit --------------------------------------------------------------------- */

ADA_INTERPOSE void pthread_exit(void *retval)
{
	pthread_exit_fn fn = (pthread_exit_fn)real(R_PTHREAD_EXIT);

	before_unwind(CFA(), true);
	fn(retval);
}

/* ---- the safety net (rule 7) --------------------------------------------------- */
/* In a -static link this weak definition would satisfy libgcc_eh's reference
 * and keep its real _Unwind_Find_FDE out of the program, with no RTLD_NEXT to
 * reach it: so libada.a leaves this file out (the Makefile). In the shared
 * runtime it covers pthread_cancel and any other walk libgcc_s makes that no
 * wrapper above saw coming. */
#if defined(__x86_64__) || defined(__aarch64__)
struct eh_bases { /* libgcc's struct dwarf_eh_bases */
	void *tbase, *dbase, *func;
};
typedef const void *(*find_fde_fn)(void *, struct eh_bases *);

/* v into the frame description at p, little-endian (both architectures). */
static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

#if defined(__x86_64__)
/* The trampoline as a frame of no size: CFA = rsp, return address at CFA - 8
 * (its caller's slot). DWARF registers: rsp 7, return address 16. A CIE
 * ("zR": absolute pc_begin) and one FDE covering the trampoline's address
 * - 1, which is where unwinders look a return address up. */
static _Alignas(8) unsigned char trampoline_eh[64] = {
	/* CIE */
	20, 0, 0, 0,            /* length */
	0, 0, 0, 0,             /* CIE id */
	1, 'z', 'R', 0,         /* version, augmentation */
	1, 0x78, 16,            /* code align 1, data align -8, return address column */
	1, 0x00,                /* augmentation data: pointers absolute */
	0x0c, 7, 0,             /* DW_CFA_def_cfa rsp, 0 */
	0x90, 1,                /* DW_CFA_offset r16, 1 * -8 */
	0, 0,                   /* DW_CFA_nop padding */
	/* FDE, at 24 */
	28, 0, 0, 0,            /* length */
	28, 0, 0, 0,            /* back to the CIE */
	/* 32: pc_begin, 40: pc_range (set at load), 48: augmentation length 0,
	 * no instructions, padding; 56: terminator */
};
#define TRAMPOLINE_EH_FDE 24

__attribute__((constructor)) static void trampoline_eh_init(void)
{
	put_le64(trampoline_eh + 32, TRAMPOLINE - 1); /* pc_begin */
	put_le64(trampoline_eh + 40, 2);              /* pc_range */
}

/* The description, once before_unwind() has unhooked the slots. */
static const void *trampoline_fde(void)
{
	return trampoline_eh + TRAMPOLINE_EH_FDE;
}
#else
/* The trampoline as a frame of no size: CFA = sp, and x29 and sp as they
 * are (the function restored x29 before returning here); its return
 * address (x30, DWARF register 30) the value DW_OP_const8u gives: the real
 * return address of the innermost frame unhooked, written into this
 * thread's copy for each lookup (the unwinder reads it at once). */
static __thread __attribute__((tls_model("initial-exec"))) _Alignas(8)
unsigned char trampoline_eh[72] = {
	/* CIE */
	20, 0, 0, 0,            /* length */
	0, 0, 0, 0,             /* CIE id */
	1, 'z', 'R', 0,         /* version, augmentation */
	1, 0x78, 30,            /* code align 1, data align -8, return address column */
	1, 0x00,                /* augmentation data: pointers absolute */
	0x0c, 31, 0,            /* DW_CFA_def_cfa sp, 0 */
	0, 0, 0, 0,             /* DW_CFA_nop padding */
	/* FDE, at 24 */
	36, 0, 0, 0,            /* length */
	28, 0, 0, 0,            /* back to the CIE */
	/* 32: pc_begin, 40: pc_range, 48: augmentation length 0 */
	[49] = 0x16, 30, 9,     /* DW_CFA_val_expression x30, 9 bytes: */
	0x0e,                   /* DW_OP_const8u, then (53) the address; padding;
				 * 64: terminator */
};
#define TRAMPOLINE_EH_FDE 24

static const void *trampoline_fde(void)
{
	put_le64(trampoline_eh + 32, TRAMPOLINE - 1);
	put_le64(trampoline_eh + 40, 2);
	put_le64(trampoline_eh + 53, unhooked_first);
	return trampoline_eh + TRAMPOLINE_EH_FDE;
}
#endif

ADA_INTERPOSE const void *_Unwind_Find_FDE(void *pc, struct eh_bases *bases)
{
	if (unlikely((uintptr_t)pc == TRAMPOLINE - 1)) {
		if (!before_unwind(CFA(), true))
			return NULL; /* nothing to unhook: end the walk here */
		bases->tbase = bases->dbase = NULL;
		bases->func = (void *)(TRAMPOLINE - 1);
		return trampoline_fde();
	}
	return ((find_fde_fn)real(R_FIND_FDE))(pc, bases);
}
#endif
