/* convert.h - one traced process: raw trace → ATF v2 (index.atf per thread,
 * manifest.json).
 */
#ifndef ADA_CONVERT_H
#define ADA_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "atf.h"
#include "raw.h"
#include "symtab.h"

/* A module as the manifest lists it, one per load: ATF module_id = index
 * + 1. Loads of one file share its function table (the first one's). */
struct conv_module {
	const struct raw_module *raw;  /* NULL for the module of unmapped addresses */
	struct ada_symtab *st;         /* NULL if the file could not be read */
	bool owns_st;                  /* st was loaded for this module, not shared */
	unsigned hooks;                /* ADA_HOOK_*: how it was instrumented */
	char hash[17];
	char *kept;                    /* owns_st, read from its own file: where its
					* symbols are kept for later (kept_symbols.c) */
	bool file_is_runs;             /* st was read from the module's file, the run's
					* own build (not from the symbols kept) */
};

/* What a fid names while one load holds its address. A fid's choices are
 * in load order (the loads that ever held its address); an event at tick t
 * takes the first whose until_tsc >= t, the last if none does. */
struct conv_choice {
	uint64_t until_tsc;            /* the load's end: its UNLOAD, else the next load's start */
	uint64_t func;                 /* ATF function_id */
	bool used;                     /* an event took it: the manifest lists it */
};

/* How a thread's record ended: what its frames still open were open at. */
enum conv_end {
	CONV_EXITED,       /* the thread ended (THREAD_END says so) */
	CONV_RUNNING,      /* it was still running when the process exited */
	CONV_CRASHED,      /* the process crashed (a CRASH record) */
	CONV_KILLED,       /* no END and no CRASH: killed */
	CONV_EXEC,         /* it was running when the process exec'd */
};
extern const char *const conv_end_names[]; /* the manifest's "end" values */

/* The index.atf times of a detail window's first and last events; has:
 * both were found (else the record's ticks stand in). */
struct conv_window_times {
	uint64_t start_ns, end_ns;
	bool has;
};

/* What the threads' conversion found, for the manifest. */
struct conv_thread {
	const struct raw_thread *raw;
	uint32_t id;
	enum conv_end end;
	uint64_t events;
	uint64_t open_at_end;          /* frames open where the record ends */
	uint64_t time_start_ns, time_end_ns;
	uint64_t dropped[ADA_DROP_NREASONS];
	uint64_t details;              /* records in thread_<N>/detail.atf */
	bool has_detail;               /* thread_<N>/detail.atf was written */
	uint64_t lanes[ATF_LANE_NKINDS]; /* records of each kind in thread_<N>/lanes.atf */
	bool has_lanes;                /* thread_<N>/lanes.atf was written */
	bool truncated;
};

struct conv_process {
	struct raw_process raw;
	struct clock_map clock;
	struct conv_module *modules;
	size_t nmodules;
	struct conv_choice *choices;
	size_t *fid_choices;           /* fid's choices: [fid_choices[fid], fid_choices[fid + 1]) */
	struct conv_thread *threads;
	size_t nthreads;
	uint64_t events;
	uint64_t time_start_ns, time_end_ns;
	struct conv_window_times *window_times; /* raw.windows[i]'s, as converted */
};

struct conv_options {
	bool quiet;                    /* no summary line */
	bool progress;                 /* progress on stderr (a terminal, > 1 s) */
};

/* Converts <pid_dir>/raw into ATF under out_dir (created if needed). Returns 0
 * or a negative errno; every failure has printed one line naming the file. */
int convert_process(const char *pid_dir, const char *out_dir, const struct conv_options *o);

/* Loads pid_dir/raw for reading: process.meta (after recovering what ring
 * files hold, *recover_err saying whether that failed), the clock and the
 * functions. 0 or a negative errno (message printed); conv_unload either way. */
int conv_load(const char *pid_dir, struct conv_process *cp, bool quiet, int *recover_err);
void conv_unload(struct conv_process *cp);
/* How thread t's record ended. */
enum conv_end conv_thread_end(const struct raw_process *p, const struct raw_thread *t);

/* manifest.c */
int manifest_write(const char *out_dir, const struct conv_process *cp);
/* "SIGSEGV", or "signal 70" for a number libc has no name for, in buf. */
const char *conv_signal_name(uint32_t signo, char *buf, size_t len);

/* recover.c: before a process whose meta has no END record is converted,
 * the events its ring files hold beyond the thread files are folded into
 * them (RAW_FORMAT.md §6), unless it still runs. *changed says whether
 * process.meta was written to (reload it). Returns 0, or a negative errno
 * when a ring could not be recovered (named; the others still were). */
int recover_process(struct raw_process *p, bool quiet, bool *changed);

/* resolve.c: modules, symbol tables and fid → function_id. */
int resolve_functions(struct conv_process *cp);
/* The index into cp->choices of what fid names at tick tsc. */
size_t resolve_choice(const struct conv_process *cp, uint32_t fid, uint64_t tsc);
/* The same, inline where fid has a single choice (an address no module
 * load reused: nearly every one), which needs no search. */
static inline size_t resolve_choice_inline(const struct conv_process *cp, uint32_t fid,
					   uint64_t tsc)
{
	size_t lo = cp->fid_choices[fid];

	return cp->fid_choices[fid + 1] - 1 == lo ? lo : resolve_choice(cp, fid, tsc);
}
/* The function fid names at tick tsc (a CALL's): marked used. */
uint64_t resolve_call(struct conv_process *cp, uint32_t fid, uint64_t tsc);
void resolve_free(struct conv_process *cp);

#endif
