/* textdiff.h - a line diff for test failure messages. */
#ifndef ADA_TEST_TEXTDIFF_H
#define ADA_TEST_TEXTDIFF_H

#include <stdio.h>

/* Prints a diff of two texts to f, in the spirit of `diff -u` with the whole
 * file as context: a "--- a_label" and a "+++ b_label" line, then every line
 * prefixed by ' ' (in both), '-' (only in a) or '+' (only in b). Texts too
 * large to diff cheaply are printed one after the other instead. */
void textdiff_print(FILE *f, const char *a_label, const char *a, const char *b_label,
		    const char *b);

#endif
