/* vars.h - every ADA_* environment variable, in one table, and how a yes/no
 * value is spelled.
 *
 * The one list: the runtime warns about an ADA_* variable that is not in it
 * (config.c), and adacc --ada-help prints it (cc-wrapper/help.c), so the
 * help cannot omit a variable the runtime reads. tests/runtime/test_vars.c
 * checks that every "ADA_..." name the runtime's sources read is here. The
 * docs/configuration.md's table says more about each.
 *
 * Header-only, with no libc call, so that the runtime (hidden symbols, no
 * instrumentation) and adacc both compile it into themselves.
 */
#ifndef ADA_VARS_H
#define ADA_VARS_H

#include <stddef.h>
#include <stdint.h>

/* Who reads a variable: the traced program, adacc (a build may leave them
 * in the environment of the programs it runs), or ada's own tests. */
enum ada_var_reader { ADA_VAR_RUNTIME, ADA_VAR_ADACC, ADA_VAR_TEST };

struct ada_var {
	enum ada_var_reader reader;
	const char *name;
	const char *accepted;	/* the values taken, as a person writes them */
	const char *def;	/* the default, or what unset means */
	const char *meaning;	/* one line */
};

#define ADA_BOOL_WORDS "1/yes/true/on or 0/no/false/off"

static const struct ada_var ada_vars[] __attribute__((unused)) = {
	{ ADA_VAR_RUNTIME, "ADA_OUTPUT", "a directory path", "./ada-trace", "where traces go" },
	{ ADA_VAR_RUNTIME, "ADA_DISABLE", ADA_BOOL_WORDS, "0", "run without tracing" },
	{ ADA_VAR_RUNTIME, "ADA_QUIET", ADA_BOOL_WORDS, "0", "no report of dropped events at exit" },
	{ ADA_VAR_RUNTIME, "ADA_TRACE", ADA_BOOL_WORDS, "on",
	  "recording at start; off: until ada_enable(), the toggle signal, ada-ctl or trace_on" },
	{ ADA_VAR_RUNTIME, "ADA_RING_KB", "64..1048576, rounded up to a power of two", "16384",
	  "each thread's ring buffer, KiB" },
	{ ADA_VAR_RUNTIME, "ADA_DEPTH", "1..4294967295", "no limit",
	  "frames deeper than this are not recorded (counted as max_depth)" },
	{ ADA_VAR_RUNTIME, "ADA_SHADOW_DEPTH", "16..4194304", "65536",
	  "frames checked for longjmp and unwinding" },
	{ ADA_VAR_RUNTIME, "ADA_FLUSH_MS", "1..1000", "10", "the writer's interval when idle, ms" },
	{ ADA_VAR_RUNTIME, "ADA_DETAIL", "window, all, off", "window",
	  "registers and stack (fentry, mcount): around triggers, always, never" },
	{ ADA_VAR_RUNTIME, "ADA_RECORD", "stream, ring", "stream",
	  "every event written, or rolling rings written at snapshots" },
	{ ADA_VAR_RUNTIME, "ADA_TRIGGER",
	  "func:GLOB[>5ms], func:GLOB:trace_on|trace_off, signal:SIGUSR1, crash, nocrash; "
	  "comma-separated", "crash", "what opens a detail window, or switches recording" },
	{ ADA_VAR_RUNTIME, "ADA_PRE", "events (2000, 2000ev) or a time (500us, 5ms)", "2000ev",
	  "a window's extent before its trigger" },
	{ ADA_VAR_RUNTIME, "ADA_POST", "events (2000, 2000ev) or a time (500us, 5ms)", "2000ev",
	  "a window's extent after its trigger" },
	{ ADA_VAR_RUNTIME, "ADA_STACK_BYTES", "0..512, rounded down to 8", "128",
	  "stack window copied with each detail record" },
	{ ADA_VAR_RUNTIME, "ADA_DETAIL_KB", "64..1048576, rounded up to a power of two",
	  "twice a window (4096) in window mode with counted rolls and no func: trigger, else 16384",
	  "each thread's detail ring, KiB" },
	{ ADA_VAR_RUNTIME, "ADA_FILTER", "function-name globs, comma-separated", "all",
	  "patchable mode: trace only these functions" },
	{ ADA_VAR_RUNTIME, "ADA_NOTRACE", "function-name globs, comma-separated", "none",
	  "patchable mode: never trace these functions" },
	{ ADA_VAR_RUNTIME, "ADA_GRAPH", "function-name globs, comma-separated", "none",
	  "patchable mode: record only inside these functions' calls" },
	{ ADA_VAR_RUNTIME, "ADA_TOGGLE_SIGNAL", "SIGUSR1, SIGUSR2, SIGTRAP", "none",
	  "a signal that turns recording off and on" },
	{ ADA_VAR_RUNTIME, "ADA_DYNHOOK", ADA_BOOL_WORDS, "on",
	  "record calls into libraries not built with adacc (PLT/GOT hooks)" },
	{ ADA_VAR_RUNTIME, "ADA_ALLOC", ADA_BOOL_WORDS, "off",
	  "the malloc family's blocks (sizes, addresses) through the dynamic hooks" },
	{ ADA_VAR_RUNTIME, "ADA_COUNTERS", "1/on (1 ms), a period of CPU time (250us to 1000ms), or 0/off", "off",
	  "samples of each thread's CPU time, faults, context switches and interrupted address" },
	{ ADA_VAR_RUNTIME, "ADA_BLOCKING", ADA_BOOL_WORDS, "off",
	  "waits in mutexes, condition variables, semaphores, read, poll, epoll_wait, and mutex releases (the waker), through the dynamic hooks" },
	{ ADA_VAR_RUNTIME, "ADA_EXCLUDE", "MODULE[:SYMBOL] globs, comma-separated", "none",
	  "library functions the dynamic hooks leave alone" },
	{ ADA_VAR_RUNTIME, "ADA_ON_FULL", "wait, drop", "wait",
	  "a thread whose ring is full waits for the writer, or skips (counted)" },
	{ ADA_VAR_ADACC, "ADA_CC", "a compiler", "gcc", "the real C compiler (--ada-cc= wins)" },
	{ ADA_VAR_ADACC, "ADA_CXX", "a compiler", "g++", "the real C++ compiler of adac++" },
	{ ADA_VAR_ADACC, "ADA_MODE", "fentry, mcount, cyg, patchable",
#if defined(__x86_64__)
	  "fentry",
#else
	  "cyg",
#endif
	  "the instrumentation mode (--ada-mode= wins)" },
	{ ADA_VAR_ADACC, "ADA_VERBOSE", ADA_BOOL_WORDS, "0",
	  "as --ada-verbose; a traced program prints its recording's summary at exit" },
	{ ADA_VAR_ADACC, "ADA_LIBDIR", "a directory", "../lib from adacc's own directory",
	  "where libada.so and libada.a are" },
	{ ADA_VAR_RUNTIME, "ADA_LAUNCHER", "set by ada record", "unset",
	  "ada record's memory, which the program it starts adopts (never set by hand)" },
	{ ADA_VAR_TEST, "ADA_TEST_WRITER_DELAY_US", "0..5000000", "0",
	  "the writer sleeps after each pass (tests that need full rings)" },
	{ ADA_VAR_TEST, "ADA_TEST_RECORDER_LATE_MS", "0..10000", "0",
	  "a recorder sleeps this long before its set-up (a busy machine's late start)" },
	{ ADA_VAR_TEST, "ADA_TEST_WATCHDOG_S", "1..3600", "30",
	  "a recorder that makes no progress this long ends (its watchdog)" },
	{ ADA_VAR_TEST, "ADA_TEST_RECORDER_HANG", ADA_BOOL_WORDS, "0",
	  "the recorder blocks for good at the final flush (the watchdog's test)" },
	{ ADA_VAR_TEST, "ADA_TEST_LAUNCH_TAKEN", ADA_BOOL_WORDS, "0",
	  "ada record's memory cannot be mapped where the launcher has it (the program forks its "
	  "own recorder)" },
	{ ADA_VAR_TEST, "ADA_TEST_RECORDER_REFUSED", ADA_BOOL_WORDS, "0",
	  "the recorder cannot be forked, as where fork is refused (the rings-only fallback)" },
};

#define ADA_NVARS (sizeof(ada_vars) / sizeof(ada_vars[0]))

/* The entry of the variable whose name is the first len bytes of name (up
 * to its NUL with len SIZE_MAX), or NULL. No strlen: the runtime calls it
 * at start, where a program's LD_PRELOAD'ed strlen may not be libc's. */
static inline const struct ada_var *ada_var_find(const char *name, size_t len)
{
	for (size_t i = 0; i < ADA_NVARS; i++) {
		const char *a = ada_vars[i].name;
		size_t n = 0;

		while (n < len && name[n] && a[n] == name[n])
			n++;
		if (!a[n] && (n == len || !name[n]))
			return &ada_vars[i];
	}
	return NULL;
}

/* A yes/no value as people write it: 1, yes, true, on; 0, no, false, off,
 * in any case. Returns 1, 0, or -1 for anything else (the callers take an
 * empty value as unset). */
static inline int ada_bool_word(const char *v)
{
	static const char *const words[] = { "1", "yes", "true", "on", "0", "no", "false", "off" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const char *a = v, *b = words[i];

		while (*a && (*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) == *b)
			a++, b++;
		if (!*a && !*b)
			return i < 4;
	}
	return -1;
}

#endif
