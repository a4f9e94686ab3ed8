/* dynhook_view.h - what the test_dynhook*.c tests compare.
 *
 * libc's own calls (printf's malloc, dlclose's __cxa_finalize, the frames
 * before and after main) depend on the libc, so the trees compared are
 * *views* of the replay (see struct view): each thread's subtree under main
 * (the whole thread without one), the functions of the program's modules
 * (those in the test's directory) exactly, the library functions they call
 * directly exactly, and nothing of what library functions call among
 * themselves, except the program's functions they call back (a qsort
 * comparator), which nest under the nearest frame kept. Library names are
 * normalised: a symbol version is dropped, an IFUNC implementation
 * (__strlen_evex) or an alias (__sigaction) takes the public name.
 *
 * Like tracerun.h, the dh_* functions that check fail the running cmocka
 * test themselves, with the reason.
 */
#ifndef ADA_TEST_DYNHOOK_VIEW_H
#define ADA_TEST_DYNHOOK_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/tracerun.h"

bool dh_starts_with(const char *s, const char *prefix);
bool dh_ends_with(const char *s, const char *suffix);

/* Names of the symbols whose module is in the test's directory. */
struct names {
	const char *dir;
	char ids[64][16];      /* module_ids of the program's modules */
	size_t nids;
	char **v;
	size_t n;
};

/* What a test holds that a failed assertion (a longjmp out of the test)
 * would leak: released by dh_teardown(). */
struct dh_scratch {
	struct names nm;
	char *dump;
};

extern struct dh_scratch dh_scratch;

/* Adds the program's functions of one manifest (text) to nm. */
void dh_names_add(struct names *nm, const struct tr_case *tc, const char *text);

/* nm emptied, then the program's functions of tc's manifest (tc->mf). */
void dh_names_load(struct names *nm, const struct tr_case *tc);

void dh_names_free(struct names *nm);

/* The library function's public name (see above) of `name`, in out. */
void dh_normalize(const char *name, char *out, size_t size);

enum view_kind {
	/* The program's functions and the library functions they call. */
	VIEW_DIRECT,
	/* Only main and the functions whose names start with view.own (the
	 * program's own namespace): no library function, no template instance. */
	VIEW_OWN,
};

struct view {
	enum view_kind kind;
	const char *own;
	const struct names *program;
};

/* Fails unless the view of tc->replay is `expected`: one block per thread,
 * in any order, separated by "--- thread" lines. */
void dh_expect_view(const struct tr_case *tc, const struct view *v, const char *expected);

/* dh_expect_view() of the VIEW_DIRECT view, with the program's functions
 * taken from tc->mf. */
void dh_expect_direct_tree(const struct tr_case *tc, const char *expected);

#endif
