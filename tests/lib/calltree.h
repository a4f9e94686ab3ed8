/* calltree.h - call trees from `ada-symbolize --replay`, compared with the
 * expected ones in examples/expected/.
 *
 * Replay output is a header "# pid <pid> thread <N> tid <tid>" per thread
 * followed by that thread's call lines. Pids, tids and thread numbers change
 * from run to run, and which thread is N depends on scheduling, so a call
 * tree here is the multiset of per-thread blocks: headers dropped, blocks
 * sorted. A fork child's threads are pooled with its parent's.
 *
 * An expected file (<name>.replay) holds the blocks, in any order, separated
 * by lines "--- thread". Empty lines are ignored in both.
 */
#ifndef ADA_TEST_CALLTREE_H
#define ADA_TEST_CALLTREE_H

#include <stddef.h>

#define CALLTREE_SEPARATOR "--- thread"

struct calltree {
	char **blocks;  /* one per thread: its lines, each ending in '\n'; sorted */
	size_t nblocks;
	size_t npids;   /* distinct pids in a replay's headers; 0 for an expected file */
};

/* Parses replay output. Headers must be well formed and come in ascending
 * (pid, thread) order, and every call line must follow a header. Returns 0,
 * or -1 with the reason in err. */
int calltree_from_replay(const char *text, struct calltree *ct, char *err, size_t errsize);

/* Parses an expected file. Returns 0, or -1 with the reason in err. */
int calltree_from_expected(const char *text, struct calltree *ct, char *err, size_t errsize);

/* The canonical text: sorted blocks joined by CALLTREE_SEPARATOR lines. Two
 * call trees are equal iff these strings are. malloc'd; NULL if out of memory. */
char *calltree_format(const struct calltree *ct);

void calltree_free(struct calltree *ct);

/* How many calls of `name` replay output shows, "name xN" lines and their
 * ancestors' xN counted: with parent non-NULL, only those whose caller's
 * name contains parent. */
unsigned long calltree_calls(const char *replay, const char *name, const char *parent);

#endif
