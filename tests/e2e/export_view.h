/* export_view.h - test_views_export.c's steps: trace an example once, run
 * `ada-symbolize chrome|perfetto` on it, and compare what they wrote with
 * the trace (--replay) and with each other. Like tracerun.h, each step
 * fails the running test itself, with the reason.
 */
#ifndef ADA_TEST_EXPORT_VIEW_H
#define ADA_TEST_EXPORT_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "e2e/export_read.h"
#include "lib/tracerun.h"

struct ex_trace {
	char trace[4200];   /* its ADA_OUTPUT */
	char *replay;       /* ada-symbolize --replay */
	uint32_t pid;       /* its one process (0: several) */
	bool ready;
};

/* examples/demo.c and examples/threads.c traced once (fentry, -O0), on
 * first use. */
const struct ex_trace *ex_demo(struct tr_case *tc, struct ex_trace *t);
const struct ex_trace *ex_threads(struct tr_case *tc, struct ex_trace *t);
/* tests/e2e/progs/<prog>.c (or prog, a path in the repository) traced with
 * args (NULL-terminated) as <name>; pid is set if one_process (the trace
 * must then hold exactly one), else left 0. */
void ex_trace_prog(struct tr_case *tc, struct ex_trace *t, const char *name, const char *prog,
		   const char *const args[], bool one_process);
void ex_trace_free(struct ex_trace *t);

/* `ada-symbolize VIEW <opts> -o out TRACE` (opts NULL-terminated, may be
 * NULL); fails the test unless it exits 0 with nothing on stderr. */
void ex_run_view(struct tr_case *tc, const char *view, const struct ex_trace *t,
		 const char *const opts[], const char *out);

/* `ada-symbolize chrome <opts> -o FILE TRACE`, checked as ex_run_view; the
 * JSON loaded into *x. */
void ex_chrome(struct tr_case *tc, const struct ex_trace *t, const char *const opts[],
	       struct xtrace *x);

void ex_expect_nesting(const struct xtrace *x);
/* Counts per name: adds k to name's (a new entry if needed, at most max). */
struct ex_tally {
	char name[256];
	unsigned long n;
};
void ex_add_count(struct ex_tally *c, size_t *n, size_t max, const char *name, unsigned long k);

/* X events named name. */
size_t ex_count(const struct xtrace *x, const char *name);
/* Per function, as many X events as the replay shows calls (symbol
 * versions left out), and no function the replay does not show. */
void ex_expect_replay_counts(const struct xtrace *x, const char *replay);

enum ex_filter {
	EX_UNDER,          /* -F: slices of name and below */
	EX_NOT_UNDER,      /* -N: slices neither of name nor below it */
	EX_DEPTH_AT_MOST,  /* -D: depth <= atoi(arg) */
};
/* got's slices are exactly all's that pass the filter (pid, tid, name, ts
 * and dur compared). */
void ex_expect_subset(const struct xtrace *all, const struct xtrace *got, enum ex_filter f,
		      const char *arg);
/* --time-range A~B around the middle of the trace: the slices that
 * started in [A, B). */
void ex_expect_time_range(struct tr_case *tc, const struct ex_trace *t, const struct xtrace *all);

/* export_pftrace.c: `ada-symbolize perfetto <opts> -o FILE`, decoded by
 * protoc --decode_raw: packets, sequences, interning, balance per track,
 * and the same slices (name, start, duration) as `chrome <opts>`. */
void ex_expect_perfetto_matches_chrome(struct tr_case *tc, const struct ex_trace *t,
				       const char *const opts[]);
/* export_lanes.c: a counter series of an export, by its name ("CPU time
 * (tid T)", "page faults (tid T)", "live bytes"), and its values. */
struct ex_series {
	char name[96];
	int64_t last, min, max;
	size_t n;
	bool monotone;            /* never decreased */
};
/* The series of `chrome` of t ("ph":"C" events), of `perfetto` (counter
 * tracks: a thread's named after its tid as the JSON's are); at most max. */
size_t ex_chrome_counters(struct tr_case *tc, const struct ex_trace *t, struct ex_series *s,
			  size_t max);
size_t ex_perfetto_counters(struct tr_case *tc, const struct ex_trace *t, struct ex_series *s,
			    size_t max);
/* Of the series whose name starts with prefix, the one whose last value is
 * the largest; fails if none. */
const struct ex_series *ex_series_find(const struct ex_series *s, size_t n, const char *prefix);
/* chrome's series into s (*n of them), and perfetto's the same ones with
 * the same values (where protoc is). */
void ex_expect_counters_agree(struct tr_case *tc, const struct ex_trace *t, struct ex_series *s,
			      size_t *n, size_t max);
/* The sampled functions' instants (ph "i", cat "sampled" in the JSON; a
 * TYPE_INSTANT in category "sampled" in the protobuf) whose name starts
 * with prefix and ends " [sampled]": as many in both exports (the
 * protobuf's not counted without protoc); returns the JSON's count. */
size_t ex_expect_sampled_instants(struct tr_case *tc, const struct ex_trace *t, const char *prefix);

/* protoc --decode_raw < path, parsed into root's kids (pnode_free it). */
void ex_decode_raw(struct tr_case *tc, const char *path, struct pnode *root);
/* `ada-symbolize perfetto` of t, decoded: its (first) ProcessDescriptor's
 * cmdline (2) holds exactly the words of cmdline (NULL-terminated), in
 * order, and its process_name (6) is name. */
void ex_expect_perfetto_process(struct tr_case *tc, const struct ex_trace *t,
				const char *const cmdline[], const char *name);

#endif
