/* views.h - what a person reads from a trace directory. */
#ifndef ADA_VIEWS_H
#define ADA_VIEWS_H

#include <stdio.h>

/* Prints the call tree of every thread under PATH (an output root, a session
 * directory or a pid directory), processes by ascending pid and threads by
 * ascending id:
 *
 *   # pid 4242 thread 0 tid 4242
 *   main
 *     fib
 *       fib x2
 *     worker (unwound)
 *
 * Two spaces per depth level; " xN" when the line stands for N >= 2 consecutive
 * identical sibling subtrees; " (unwound)" when the frame ended by EXCEPTION.
 * The format is a contract: end-to-end tests compare it byte for byte.
 * Returns 0 or a negative errno (message printed). */
int ada_view_replay(const char *path, FILE *out);

#endif
