/* view_cli.h - `ada-symbolize VIEW [options] TRACE_DIR...`: the views'
 * command line. view_cli.c parses every view's options into one struct
 * view_args (the filters are common to all views) and calls the view.
 */
#ifndef ADA_VIEW_CLI_H
#define ADA_VIEW_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "walk.h"

struct view_args {
	struct view_filter filter;
	char **paths;            /* the trace directories */
	int npaths;
	const char *output;      /* -o FILE; NULL: standard output */
	bool all_sessions;       /* --all: every session of an output root, not its latest */
	/* replay */
	bool merge;              /* --merge: all threads in one time order */
	bool fold;               /* --fold: identical sibling subtrees as "name xN" */
	bool no_args;            /* --no-args: no registers (replay, perfetto) */
	bool raw_args;           /* --raw-args: registers in hex, not DWARF's parameters */
	const char *fields;      /* replay -f: its columns; NULL: the default */
	bool srcline;            /* replay --srcline: a call's file:line */
	bool args;               /* chrome --args: registers, file:line, module in args */
	bool large;              /* chrome --large: written whatever its size */
	/* report */
	const char *sort;        /* --sort KEY: total (default), self, calls, avg, min, max, name */
	bool per_thread;         /* --threads: a table per thread */
	bool ns;                 /* --ns: durations in integer nanoseconds */
	/* graph */
	const char *function;    /* graph FUNCTION: its callers and callees */
	/* flame */
	bool count;              /* --count: weighted by calls, not time */
	const char *weight;      /* flame --weight: time, calls, alloc-bytes, alloc-count */
	const char *format;      /* flame: folded (default) or svg */
	bool full_names;         /* --full-names: names with their parameters */
	/* waits */
	bool each;               /* --each: every wait in time order, not the table */
};

/* argv[0] is the view's name. Returns the exit status (0, 1 on an error in
 * the trace, 2 on usage). */
int view_cli_main(int argc, char **argv);
/* Whether name is a view ("replay", "report", ...). */
bool view_cli_is_view(const char *name);
/* The views, a line each with what it shows ("  report    per function: ..."). */
void view_cli_list(FILE *f);
/* Their names, "replay, report, ... and flame". */
void view_cli_names(FILE *f);

/* The views: each returns 0 or a negative errno (message printed). */
int view_replay_main(const struct view_args *a, FILE *out);
int view_report_main(const struct view_args *a, FILE *out);
int view_graph_main(const struct view_args *a, FILE *out);
int view_chrome_main(const struct view_args *a, FILE *out);
int view_perfetto_main(const struct view_args *a, FILE *out);
int view_flame_main(const struct view_args *a, FILE *out);
int view_info_main(const struct view_args *a, FILE *out);
int view_diff_main(const struct view_args *a, FILE *out);
int view_leaks_main(const struct view_args *a, FILE *out);
int view_waits_main(const struct view_args *a, FILE *out);
/* view_flame.c: diff --format svg, trace B's flame graph coloured by the
 * change from trace A's. */
int view_flame_diff(const struct view_args *a, const char *trace_a, const char *trace_b, FILE *out);

/* view_replay_timed.c: whether a->fields (-f) names known columns. */
bool view_replay_fields_valid(const struct view_args *a);
/* view_flame.c: --weight NAME's number, -1 if it is none. */
int view_flame_weight(const char *name);
/* view_report.c: the first sort key's number (1...) of "KEY[,KEY...]", 0 if
 * one is none. */
int view_report_sort_key(const char *key);
/* view_time.c: "  1.234 ms" (ten columns), or the integer ns with --ns. */
char *view_duration(char *buf, size_t len, uint64_t ns, bool as_ns);
/* The same at out (32 bytes of room), not terminated: its length. */
size_t view_duration_fmt(char *out, uint64_t ns, bool as_ns);
/* "# pid P COMMAND LINE: N threads" and a newline (the executable's path
 * when the trace has no command line). */
void view_process_header(FILE *out, const struct src_process *p, size_t nthreads);
/* "# pid P thread N tid T[ stack LO-HI of thread H][ (name)]" and a newline. */
void view_thread_header(FILE *out, const struct src_process *p, const struct src_thread *t);

#endif
