/* export.h - what the exports to viewers (export_chrome.c,
 * export_perfetto.c) name the same way. */
#ifndef ADA_EXPORT_H
#define ADA_EXPORT_H

#include <stddef.h>

#include "source.h"

/* Linux tids stay below PID_MAX_LIMIT (4 Mi on 64-bit): a coroutine
 * stack's track is numbered from there, so it never shares a thread's. */
#define EXPORT_STACK_TID (1u << 22)

/* A track's name: "stack 0xLO-0xHI of thread H" for a coroutine stack,
 * else the pthread name, else "thread N" (ada's ordinal). Returns buf. */
char *export_track_name(char *buf, size_t len, const struct src_thread *t);

/* A process's name in a viewer: the program's basename and its arguments,
 * quoted as the views' headers quote them ("app -v 'two words'"), or the
 * executable's basename where the trace has no command line. The viewers
 * add the pid themselves. Longer than EXPORT_NAME_MAX - 1 bytes, it is cut
 * on a character's boundary and ends in "...". Returns buf. */
#define EXPORT_NAME_MAX 128
char *export_process_name(char buf[EXPORT_NAME_MAX], const struct src_process *p);

#endif
