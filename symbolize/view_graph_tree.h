/* view_graph_tree.h - graph's call tree and backtraces (view_graph_tree.c). */
#ifndef ADA_VIEW_GRAPH_TREE_H
#define ADA_VIEW_GRAPH_TREE_H

#include <stdbool.h>
#include <stdio.h>

#include "view_cli.h"

struct graph_tree;

struct graph_tree *graph_tree_new(bool full_names);
void graph_tree_free(struct graph_tree *t);
/* A new process (its trees start empty), a new thread (no frame open). */
int graph_tree_process(struct graph_tree *t, const struct src_process *p);
void graph_tree_thread(struct graph_tree *t);
/* A shown event: match, whether its function is FUNCTION's; whole, whether
 * there is no FUNCTION (the whole program's tree). 0 or -ENOMEM. */
int graph_tree_event(struct graph_tree *t, struct walk *w, const struct walk_event *ev, bool match,
		     bool whole);
/* The process's backtraces (with FUNCTION) and call tree. */
int graph_tree_print(struct graph_tree *t, FILE *out, bool ns, bool backtraces);

#endif
