/* view_stats.h - per-function figures of a trace, from its ATF (the tests'
 * own reader) and from `ada-symbolize report --ns`, for test_views.c.
 */
#ifndef ADA_TEST_VIEW_STATS_H
#define ADA_TEST_VIEW_STATS_H

#include <glob.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/proc.h"

#define MAXF 256

struct fstat {
	char name[128];
	uint64_t calls, total, self, min, max;
};

struct stats {
	struct fstat f[MAXF];
	size_t n;
};

/* What the ATF computation keeps (the view's filters, in the tests' terms). */
struct want {
	uint64_t min_ns;               /* -t */
	long thread;                   /* --thread, -1: all */
	bool range;                    /* --time-range lo~hi since the first event */
	uint64_t lo, hi;
	const char *notrace;           /* -N, one exact name */
	const char *only;              /* -F, one exact name */
	uint32_t depth;                /* -D */
};

/* The entry of name in s (added, zeroed, if it has none). */
struct fstat *stat_of(struct stats *s, const char *name);
/* "<trace>/session_*\/pid_*" into g. */
void pid_dirs(const char *trace, glob_t *g);
/* The ATF of pid_dir, through w, into s. */
void atf_stats(const char *pid_dir, const struct want *w, struct stats *s);
/* The time of thread `thread`'s event i since the process's first event. */
uint64_t event_time(const char *pid_dir, unsigned thread, size_t i);
/* Runs bin/ada-symbolize with args (NULL-terminated, after its name). */
void run_sym(const char *const *args, struct proc_result *res);
/* The same, which must exit 0 with nothing on stderr: its output. */
char *view_ok(const char *const *args);
/* report --ns's rows into s. */
void parse_report(const char *text, struct stats *s);
/* Fails the test unless got and want hold the same functions and figures. */
void expect_same(const struct stats *got, const struct stats *want, const char *what);
/* Runs ada-symbolize with args, which must exit with status, say message
 * on stderr and print nothing. */
void view_expect_error(const char *const *args, int status, const char *message);

struct tr_case;

/* The traces the view tests read: examples/demo.c (fentry, its library
 * calls hooked), examples/recursion.c (fentry: fib(4), is_even(3)) and
 * examples/fork.c (cyg, two processes). */
struct view_fixture {
	struct tr_case *demo, *rec, *fork;
	char demo_pid[4300], rec_pid[4300]; /* their first pid_<pid> directories */
	int passed;                          /* tests that reached their end */
	int ntests;                          /* the group's: all passed, the cases go */
};
/* cmocka group setup and teardown over fx (a test file's own, ntests set). */
int view_fixture_setup(struct view_fixture *fx, void **state);
int view_fixture_teardown(void **state);

#endif
