/* trigger.h - what opens a detail window (ADA_TRIGGER, ADA_PRE, ADA_POST).
 *
 * ADA_TRIGGER is a comma list: func:GLOB (a call of a matching function),
 * func:GLOB>DURATION (a call that lasted longer), func:GLOB:trace_on and
 * func:GLOB:trace_off (recording on or off from a call of a matching
 * function: no window; patchable mode), signal:NAME (the program
 * received SIGUSR1, SIGUSR2 or SIGTRAP), nocrash (a fatal signal opens no
 * window: it does by default). ada_mark() and ada_snapshot() (ada.h) open
 * windows whatever the list says. Function globs are resolved to address
 * ranges from the modules' symbol tables by the writer, at its start and
 * after every dlopen: the hooks never compare a name.
 */
#ifndef ADA_TRIGGER_H
#define ADA_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>

#include "thread.h" /* ADA_HIDDEN */

#define ADA_TRIGGER_FUNCS 16
#define ADA_TRIGGER_SPEC 120

/* A pre- or post-roll: n events, or n nanoseconds. */
struct ada_roll {
	uint64_t n;
	bool time;
};

struct ada_trigger_func {
	char spec[ADA_TRIGGER_SPEC]; /* as written: the window's label */
	char glob[ADA_TRIGGER_SPEC];
	uint64_t min_ns;             /* func:GLOB>DURATION; 0 for any call */
};

struct ada_trigger_cfg {
	struct ada_trigger_func funcs[ADA_TRIGGER_FUNCS];
	unsigned nfuncs;
	/* func:GLOB:trace_on / trace_off, comma-joined globs: recording on or
	 * off when such a function is called (patchable mode: mcount/patch.c) */
	char trace_on[512], trace_off[512];
	bool crash;                  /* on unless nocrash */
	uint64_t signals;            /* bit n: signal n */
	struct ada_roll pre, post;
};

/* Parses ADA_TRIGGER (may be NULL): each bad item gets one line naming it
 * and what was expected, and the valid rest is kept. */
ADA_HIDDEN void ada_trigger_parse(const char *v, struct ada_trigger_cfg *out);
/* ADA_PRE / ADA_POST: "2000", "2000ev", "500us", "5ms", "1s"; NULL: def. */
ADA_HIDDEN struct ada_roll ada_roll_parse(const char *name, const char *v, struct ada_roll def);

/* SIGUSR1's name for a signal trigger's window. */
ADA_HIDDEN const char *ada_trigger_signal_name(int signo);
/* ADA_TOGGLE_SIGNAL: the signal's number, 0 if none (or bad: one line). */
ADA_HIDDEN int ada_toggle_signal_parse(const char *v);

/* The writer's address ranges of the function triggers (trigger_funcs.c). */
/* Resolves the globs in every module loaded now (again after a dlopen). */
ADA_HIDDEN void ada_trigger_resolve(void);
/* The writer, after it read a thread's head: resolves again if a module
 * was loaded or unloaded since the last time. */
ADA_HIDDEN void ada_trigger_refresh(void);
/* The function trigger whose function contains addr, or NULL. */
ADA_HIDDEN const struct ada_trigger_func *ada_trigger_func_at(uint64_t addr);
/* Whether any function trigger is configured. */
ADA_HIDDEN bool ada_trigger_funcs_any(void);

#endif
