/* check.h - the ATF v2 validator: `ada-symbolize --check PATH` and the tests'
 * judge of every trace the symbolizer writes.
 */
#ifndef ADA_CHECK_H
#define ADA_CHECK_H

#include <stdio.h>

/* Checks every pid directory under PATH (an output root, a session directory
 * or a pid directory) against docs/ATF_V2.md: manifest, thread directories,
 * index.atf and detail.atf structure, event balance and depth, symbols, links,
 * detail windows.
 * Prints one line per violation "<file>: <what>" (at most 20 per file, then
 * "<file>: ... N more") and a summary "checked N files, M events: OK" or
 * "...: K violations" to `out`. Stores K in *nviolations. Returns 0, or a
 * negative errno when PATH or a file could not be read at all. */
int ada_check_path(const char *path, FILE *out, int *nviolations);

#endif
