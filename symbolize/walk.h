/* walk.h - a thread's calls as frames, through the views' filters.
 *
 * Every view reads frames, not raw events: a frame opens (ENTER, in call
 * order) and closes (EXIT, with its duration and self time). The filters
 * (uftrace's, where uftrace has one) decide which frames are shown; a frame
 * that is not shown gives its time to the shown frame around it (self time),
 * and depths count shown frames only:
 *
 *   -F GLOB     only frames of matching functions and what they call
 *   -N GLOB     no frames of matching functions nor of what they call
 *   -M GLOB     only frames of functions in matching modules (basename);
 *               frames of other modules are left out, what they call is not
 *   -D N        frames at most N deep (counted from the outermost shown)
 *   -t TIME     frames that lasted at least TIME (a first pass over the
 *               thread finds the durations, so a view still sees frames in
 *               call order)
 *   --time-range A~B   frames that started in [A, B) (times since the
 *               process's first event; either side may be left out)
 *   --tid, --thread, --pid   which threads and processes
 *   (default)   the C++ runtime's frames called from the program are shown,
 *               the frames they call are not, unless the program's own
 *               code (a callback: it is shown under them); --all-frames
 *               shows every frame (cxx_runtime.c)
 *
 * Globs are fnmatch(3) patterns against the simple name (and the full one).
 */
#ifndef ADA_WALK_H
#define ADA_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "raw_format.h"
#include "sig.h"
#include "source.h"

struct view_filter {
	char **include, **exclude, **modules; /* NULL-terminated glob lists, or NULL */
	char **callers, **hide;               /* -C, -H: likewise */
	uint32_t max_depth;                   /* 0: any */
	uint64_t min_ns;                      /* 0: any */
	uint64_t t_lo, t_hi;                  /* since the first event; t_hi 0: no end */
	bool has_range;
	uint32_t *tids, *threads, *pids;      /* lists, or NULL: all */
	size_t ntids, nthreads, npids;
	bool all_frames;                      /* --all-frames: the C++ runtime's internals and
					       * the C start-up's frames too */
	/* What each value selected while the views read the trace, for the
	 * line that names a filter that selected nothing (view_say_unmatched);
	 * NULL unless view_filter_track was called. */
	struct view_filter_hits *hits;
};

struct view_filter_hits {
	uint8_t *include, *exclude, *modules; /* per glob: 1 once a function (module) matched */
	uint8_t *callers, *hide;
	uint8_t *tids, *threads, *pids;       /* per id: 1 once a thread (process) had it */
	bool walked;                          /* a thread was read: the globs were asked */
	uint32_t pids_seen[8];                /* the trace's first processes, for the line */
	size_t npids_seen;
};

/* Parses one filter option (its long name without "--": "filter",
 * "notrace", "module", "caller-filter", "hide", "depth", "time-filter",
 * "time-range", "tid", "thread", "pid") into f. Returns 0, or -EINVAL after printing one line
 * naming the option, the value and what was expected. */
int view_filter_add(struct view_filter *f, const char *opt, const char *value);
void view_filter_free(struct view_filter *f);
/* Whether any filter is set. */
bool view_filter_any(const struct view_filter *f);
/* From now on, note what each filter value selects: 0 or -ENOMEM. */
int view_filter_track(struct view_filter *f);
/* After a view: one line on stderr for each filter value that selected
 * nothing in the trace (a -F glob that looks like a regular expression
 * gets the glob it may have meant). Returns 1 if some option selected
 * nothing with any of its values (the view could show nothing), else 0. */
int view_say_unmatched(const struct view_filter *f, const char *view);
bool view_filter_wants_pid(const struct view_filter *f, uint32_t pid);
bool view_filter_wants_thread(const struct view_filter *f, const struct src_thread *t);
/* cxx_runtime.c: VIEW_CXX_RUNTIME for a function of the C++ runtime (its
 * libraries, std:: and __gnu_cxx:: templates, __cxa_ and _Unwind_ entry
 * points), VIEW_CXX_INTERNAL for one only the runtime calls (hidden even
 * where the trace has no runtime frame around it), VIEW_CXX_SYSTEM for one
 * of the C library and the loader (hidden only under a runtime frame), 0
 * for the program's own. */
enum { VIEW_CXX_RUNTIME = 1, VIEW_CXX_SYSTEM = 2, VIEW_CXX_INTERNAL = 3 };
unsigned view_cxx_runtime_class(const struct src_func *fn);
/* cxx_runtime.c: whether fn is one of the C start-up's frames, which the
 * views hide (what they call shown in their place) unless --all-frames. */
bool view_c_startup(const struct src_func *fn);
/* Whether a or b (may be NULL) matches a glob of the NULL-terminated list. */
bool view_glob_any(char *const *list, const char *a, const char *b);
/* The same, marking in hit (one byte a glob; NULL: none) every glob that
 * matches. */
bool view_glob_mark(char *const *list, uint8_t *hit, const char *a, const char *b);
/* Whether a glob of list matches the function: its name, its full name, or
 * the simple name an overload shares (src_func.base); hit as above. */
bool view_glob_func(char *const *list, uint8_t *hit, const struct src_func *fn);
/* "1.5ms" → 1500000: a number with a unit ns, us, ms, s (ns if none).
 * False if it does not parse. */
bool view_parse_duration(const char *s, uint64_t *ns);

/* WALK_ALLOC only where the view asked for blocks (src_process.want_allocs):
 * a block the malloc family allocated or freed, inside the shown frames
 * open then (depth, walk_stack; 0: none is shown), which it neither opens
 * nor closes. A block inside a frame that is not shown belongs to the shown
 * frame around it, as the frame's time does. */
/* WALK_SAMPLE likewise (src_process.want_samples): a counter sample, in the
 * shown frames open then; func is the innermost recorded frame's, shown or
 * not (0 outside every frame), sample.func the interrupted function's. */
/* WALK_BLOCK likewise (src_process.want_blocks): a wait or a release
 * (ADA_BLOCKING); func is the innermost recorded frame's (its call's). */
enum walk_type { WALK_ENTER, WALK_EXIT, WALK_ALLOC, WALK_SAMPLE, WALK_BLOCK };

struct walk_event {
	uint8_t type;          /* enum walk_type */
	uint8_t how;           /* EXIT: SRC_RETURN, SRC_UNWIND or SRC_OPEN_AT_END */
	uint32_t func;         /* dense id (src_process.funcs) */
	uint32_t depth;        /* 1-based, shown frames only */
	uint64_t start_ns;     /* since the process's first event */
	uint64_t end_ns;       /* EXIT */
	uint64_t total_ns;     /* EXIT: end - start */
	uint64_t self_ns;      /* EXIT: total minus the shown frames it called */
	const uint64_t *regs;  /* ENTER: argument registers; EXIT: return registers;
				* NULL without a detail record. regs, fregs and
				* stack are the source's: valid until the next
				* walk_next, so a view that reads ahead makes what
				* it needs of them first (replay's text). The four
				* below are set with regs only, left as they were
				* without: read them only where regs is set */
	const uint64_t *fregs; /* with regs: the FP registers (src_event's), or NULL */
	uint64_t sp;           /* with regs: the stack window (src_event's) */
	const uint8_t *stack;
	uint16_t stack_size;
	bool no_value;         /* with regs at an EXIT: src_event's (a tail call's jump) */
	/* WALK_ALLOC (start_ns: src_event's ns): src_event's block */
	uint64_t alloc_ptr, alloc_size;
	uint8_t alloc_op;
	bool alloc_freed;
	struct src_sample sample; /* WALK_SAMPLE (start_ns: src_event's ns) */
	struct src_block block;   /* WALK_BLOCK: start_ns, end_ns and total_ns are a
				   * wait's (a release's: its time, 0) */
};

struct walk;

/* The function a WALK_SAMPLE names where its thread had no frame of its
 * own (a library ada did not hook, a static function inside one): the
 * interrupted function, inside a shown frame, when it is not the innermost
 * recorded frame's; else SRC_NO_FUNC (outside every shown frame ev->func
 * names none). flame's "[sampled]" frames, report's "[sampled]" rows and
 * the exports' "[sampled]" instants are these. */
static inline uint32_t walk_sampled_func(const struct walk_event *ev)
{
	return ev->depth && ev->sample.func != ev->func ? ev->sample.func : SRC_NO_FUNC;
}

/* The signature the views read function func's values by: its DWARF's
 * (or sig_libc's), placed as x86_64 passes them; NULL on another
 * architecture or without one. Inline, as walk_sig_frame: a typed view
 * asks for both at every event with a detail record. */
static inline const struct ada_sig *walk_sig(const struct src_process *p, uint32_t func)
{
	return p->arch == ADA_ARCH_X86_64 ? p->funcs[func].sig : NULL;
}

/* src_read_const for sig_frame.read_const (ctx: the src_process). */
size_t walk_read_const(void *p, uint64_t addr, void *buf, size_t len);

/* x's detail record as sig_format reads it (read-only data from p's
 * modules: src_read_const). */
static inline struct sig_frame walk_sig_frame(const struct walk_event *x, struct src_process *p)
{
	return (struct sig_frame){ .regs = x->regs, .fregs = x->fregs, .sp = x->sp,
				   .stack = x->stack, .stack_size = x->stack_size,
				   .read_const = walk_read_const, .ctx = p };
}

/* Frames of thread p->threads[i] through f. NULL (message printed) on error. */
struct walk *walk_open(struct src_process *p, size_t i, const struct view_filter *f);
/* The same, its events decoded by a thread of its own (src_stream_open_async):
 * for one walk at a time. */
struct walk *walk_open_async(struct src_process *p, size_t i, const struct view_filter *f);
/* 1 and *ev, 0 at the end, negative errno (message printed). */
int walk_next(struct walk *w, struct walk_event *ev);
/* The shown frames open at the last event (an EXIT's frame included),
 * outermost first: their dense ids, *n of them. */
const uint32_t *walk_stack(const struct walk *w, uint32_t *n);
/* Frames shown, and calls of -F's functions that the C++ runtime's folding
 * hid (outside a shown -F frame): a -F that names only those shows nothing,
 * and the view says why (view_say_folded). */
struct walk_counts {
	uint64_t shown, folded_include;
};
/* Adds w's counts so far to c. */
void walk_add_counts(const struct walk *w, struct walk_counts *c);
/* filter.c: after a view, one line on stderr if f's -F matched only calls
 * the folding hid (c: every walk's counts). */
void view_say_folded(const struct view_filter *f, const struct walk_counts *c);
/* Raw events read so far (for progress; -t reads the thread twice). */
uint64_t walk_events_read(const struct walk *w);
/* cb(ctx, events read) every million events read (both of -t's passes). */
void walk_on_progress(struct walk *w, void (*cb)(void *ctx, uint64_t read), void *ctx);
void walk_close(struct walk *w);

/* ---- running a view over a trace directory ---------------------------------- */

struct view_ops {
	void *ctx;
	int (*process_begin)(void *ctx, struct src_process *p);      /* optional */
	int (*thread_begin)(void *ctx, struct src_process *p, const struct src_thread *t);
	int (*event)(void *ctx, struct walk *w, const struct walk_event *ev);
	int (*thread_end)(void *ctx, struct src_process *p, const struct src_thread *t);
	int (*process_end)(void *ctx, struct src_process *p);        /* optional */
};

/* Every process under path (an output root, session or pid directory, as
 * ada-symbolize takes) and every thread the filter wants, threads one after
 * the other, through ops (a NULL callback is skipped). Progress with the
 * total and an ETA on stderr when it is a terminal and the view takes more
 * than a second. Returns 0 or the first negative errno (message printed). */
int view_run(const char *path, const struct view_filter *f, const struct view_ops *ops);

#endif
