/* rspfile.h - response files (@file), read the way the gcc driver reads them.
 *
 * adacc passes every @file argument to the compiler unchanged; it expands a
 * copy only to see the options and inputs inside, which decide what the
 * driver will do (compile, link, preprocess).
 */
#ifndef ADA_RSPFILE_H
#define ADA_RSPFILE_H

#include <stddef.h>

#include "strv.h"

/* Nesting deeper than this is taken for a file that includes itself. */
#define ADA_RSP_MAX_DEPTH 32

/* Splits response-file text into arguments and appends them to out:
 * whitespace separates, '...' and "..." quote, a backslash takes the next
 * character literally, inside quotes too. Returns 0 or -ENOMEM. */
int ada_rsp_split(const char *text, struct ada_strv *out);

/* Appends args[0..n) to out with each readable @file replaced by its
 * arguments, recursively. An @file that cannot be read stays as it is, as
 * gcc keeps it. Returns 0, -ENOMEM, or -ELOOP past ADA_RSP_MAX_DEPTH. */
int ada_rsp_expand(char *const *args, size_t n, struct ada_strv *out);

#endif
