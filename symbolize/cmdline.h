/* cmdline.h - a process's command line between its two forms: argv's words
 * as process.meta records them (each NUL-terminated) and the one line the
 * views print, quoted so that a shell would run it again.
 */
#ifndef ADA_CMDLINE_H
#define ADA_CMDLINE_H

#include <stddef.h>

/* The words (len bytes of NUL-terminated strings; trailing NULs ignored)
 * joined with spaces, a word a shell would split or expand between single
 * quotes (' as '\''): "./app 'two words'". malloc'd; NULL if out of memory. */
char *cmdline_join(const char *words, size_t len);
/* cmdline_join's inverse: the words of line, each NUL-terminated, in a
 * malloc'd buffer of *len bytes; NULL if out of memory. */
char *cmdline_split(const char *line, size_t *len);

#endif
