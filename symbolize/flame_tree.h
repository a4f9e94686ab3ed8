/* flame_tree.h - the stacks of a flame graph: a calling-context tree.
 *
 * A node is one distinct stack (outermost frame first): its parent's stack
 * plus one frame name. The child of (parent, name) is found in a hash table
 * keyed by that pair, so a view that keeps the node of each open depth
 * finds the node of a new frame with one lookup, whatever the depth: no
 * per-event allocation, no string built per event, and memory grows with
 * the number of distinct stacks, not with the number of events.
 *
 * Frames are keyed by the name a view shows (interned: two functions shown
 * under one name are one frame), so stacks from several processes, whose
 * function ids differ, merge by name as they do in the folded text.
 */
#ifndef ADA_FLAME_TREE_H
#define ADA_FLAME_TREE_H

#include <stdint.h>
#include <stdio.h>

#define FLAME_ROOT 0           /* the empty stack */
#define FLAME_NONE UINT32_MAX  /* out of memory */

struct flame_node {
	uint32_t parent;       /* FLAME_ROOT for an outermost frame */
	uint32_t name;         /* flame_tree_name's id */
	uint32_t depth;        /* 1 for an outermost frame */
	uint64_t weight;       /* what was added to this exact stack */
	uint64_t base;         /* a differential graph's: what trace A added to it */
};

struct flame_tree {
	struct flame_node *nodes;  /* nodes[0] is the root */
	uint32_t nnodes, nodes_cap;
	uint64_t *child_keys;      /* (parent << 32 | name) + 1, 0: empty slot */
	uint32_t *child_vals;
	uint32_t child_mask;       /* slots - 1, a power of 2 minus 1 */
	struct flame_names *names;
};

int flame_tree_init(struct flame_tree *t);
void flame_tree_free(struct flame_tree *t);

/* The id of a frame name (the same id for the same text), with the module
 * of the first function shown under it (for colours). ';' and line breaks
 * in name, which the folded format cannot hold, read as ':' and ' '.
 * FLAME_NONE if out of memory. */
uint32_t flame_tree_name(struct flame_tree *t, const char *name, const char *module);
const char *flame_tree_name_text(const struct flame_tree *t, uint32_t name);
const char *flame_tree_name_module(const struct flame_tree *t, uint32_t name);
/* The module of a frame name's text, NULL if the tree has no such name. */
const char *flame_tree_module_of(const struct flame_tree *t, const char *text);

uint32_t flame_tree_child_slow(struct flame_tree *t, uint32_t parent, uint32_t name);

static inline uint64_t flame_tree_key(uint32_t parent, uint32_t name)
{
	return ((uint64_t)parent << 32 | name) + 1;
}

static inline uint32_t flame_tree_slot(uint64_t key, uint32_t mask)
{
	/* Fibonacci hashing: the multiply spreads the pair over the high bits. */
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/* The node of stack parent + name, added if new; FLAME_NONE if out of memory. */
static inline uint32_t flame_tree_child(struct flame_tree *t, uint32_t parent, uint32_t name)
{
	uint64_t key = flame_tree_key(parent, name);

	for (uint32_t i = flame_tree_slot(key, t->child_mask);; i = (i + 1) & t->child_mask) {
		if (t->child_keys[i] == key)
			return t->child_vals[i];
		if (t->child_keys[i] == 0)
			return flame_tree_child_slow(t, parent, name);
	}
}

/* Visits every stack (node but the root) in frame order: a node before its
 * children, siblings by strcmp of their names. visit returns 0 to go on
 * into the node's children, 1 to skip them, or a negative errno, which
 * stops the walk and is returned. Returns 0 or -ENOMEM. */
int flame_tree_walk(const struct flame_tree *t, int (*visit)(void *ctx, uint32_t node), void *ctx);

/* Writes Brendan Gregg's folded stacks: for each stack with a weight, one
 * line "outer;...;inner weight", in frame order (flame_tree_walk's): the
 * output is the same from run to run and the lines of one frame are
 * consecutive. Returns 0 or a negative errno. */
int flame_tree_write_folded(const struct flame_tree *t, FILE *out);

#endif
