/* cxx_runtime.c - which frames are the C++ runtime's, and which the C
 * start-up's, hidden by the views unless --all-frames (walk.c does the
 * hiding).
 *
 * A small C++ program's trace is mostly the standard library: std::vector's
 * constructor is twenty frames of allocators and iterators at -O0, a throw
 * is __cxa_throw and a dozen _Unwind_ frames. A reader asks what the
 * program did, so a view shows where the program enters the runtime
 * (std::sort, operator new, __cxa_throw) with its whole time, and nothing
 * the runtime does inside, except where it calls the program back (a
 * comparator, a destructor run by unwinding, a std::thread's function). The
 * recording is unchanged; --all-frames shows everything.
 *
 * The C start-up's frames (__libc_start_main around main, the loader's
 * audit call before it, __cxa_finalize and the exit handlers' caller
 * after it) are the C library's way into and out of the program: a view
 * starts at main, or a thread's start routine, as uftrace's do, and what
 * runs before or after main (atexit handlers, destructors) stands beside
 * it. They are hidden, and what they call shown in their place.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

#include "walk.h"

/* The C++ runtime's libraries (GNU's and LLVM's). */
static const char *const RUNTIME_MODULES[] = {
	"libstdc++.so*", "libgcc_s.so*", "libc++.so*", "libc++abi.so*", "libunwind.so*",
};

/* The standard library's templates, instantiated in the program's own
 * module, and the ABI's entry points when linked statically. */
static const char *const RUNTIME_NAMES[] = {
	"std::*", "__gnu_cxx::*", "__cxxabiv1::*", "__cxa_*", "__gxx_*", "_Unwind_*",
};

/* What only the runtime calls (the unwinder's queries from the personality
 * routine, which is not traced, so they would stand at the level of the
 * frame that caught the exception): hidden wherever they are. */
static const char *const INTERNAL_NAMES[] = {
	"_Unwind_Get*", "_Unwind_Set*", "_Unwind_Find*", "__gxx_personality*",
	"__cxa_get_globals*", "_dl_find_object",
};

/* Libraries the runtime calls into (malloc under operator new): hidden
 * under a runtime frame, shown when the program calls them itself. */
static const char *const SYSTEM_MODULES[] = {
	"libc.so*", "libm.so*", "ld-linux*.so*", "libpthread.so*", "libdl.so*", "librt.so*",
};

#define ANY(list, s) any(list, sizeof(list) / sizeof(list[0]), s)

static bool any(const char *const *globs, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!fnmatch(globs[i], s, 0))
			return true;
	return false;
}

/* An operator's simple name keeps its return type ("bool
 * __gnu_cxx::operator!=<...>"): the namespace follows the first space that
 * comes before any '<' or '('. */
static const char *past_return_type(const char *name)
{
	size_t n = strcspn(name, " <(");

	return name[n] == ' ' ? name + n + 1 : name;
}

/* The C start-up's frames, in whichever module (crt's _init, _fini and
 * frame_dummy are in every one). */
static const char *const STARTUP_NAMES[] = {
	"__libc_start_main", "__libc_start_call_main", "__libc_csu_init", "__libc_csu_fini",
	"_dl_audit_preinit", "_dl_init", "_dl_fini", "_dl_start_user", "call_init",
	"__cxa_finalize", "__run_exit_handlers", "_init", "_fini", "_start", "frame_dummy",
	"register_tm_clones", "deregister_tm_clones", "__do_global_dtors_aux",
	"__do_global_ctors_aux",
};

bool view_c_startup(const struct src_func *fn)
{
	for (size_t i = 0; i < sizeof(STARTUP_NAMES) / sizeof(STARTUP_NAMES[0]); i++)
		if (!strcmp(fn->name, STARTUP_NAMES[i]))
			return true;
	return false;
}

unsigned view_cxx_runtime_class(const struct src_func *fn)
{
	if (ANY(INTERNAL_NAMES, fn->name))
		return VIEW_CXX_INTERNAL;
	if (ANY(RUNTIME_MODULES, fn->module) || ANY(RUNTIME_NAMES, fn->name) ||
	    ANY(RUNTIME_NAMES, past_return_type(fn->name)))
		return VIEW_CXX_RUNTIME;
	return ANY(SYSTEM_MODULES, fn->module) ? VIEW_CXX_SYSTEM : 0;
}
