/* export.c - names shared by the exports (see export.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "export.h"

char *export_track_name(char *buf, size_t len, const struct src_thread *t)
{
	int n;

	if (!t->is_stack && t->name[0])
		snprintf(buf, len, "%.*s", (int)sizeof(t->name), t->name);
	else if (!t->is_stack)
		snprintf(buf, len, "thread %u", t->id);
	else if ((n = snprintf(buf, len, "stack 0x%" PRIx64 "-0x%" PRIx64, t->stack_lo,
			       t->stack_hi)) >= 0 && (size_t)n < len && t->host != UINT32_MAX)
		snprintf(buf + n, len - (size_t)n, " of thread %u", t->host);
	return buf;
}


/* The joined name, or NULL (out of memory, or no command line). */
static char *program_and_args(const struct src_process *p)
{
	size_t len;
	char *words = cmdline_split(p->cmdline, &len), *name = NULL;

	if (words && len) {
		const char *base = src_basename(words);

		name = cmdline_join(base, len - (size_t)(base - words));
	}
	free(words);
	return name;
}

char *export_process_name(char buf[EXPORT_NAME_MAX], const struct src_process *p)
{
	char *name = program_and_args(p);
	const char *s = name ? name : src_basename(p->exe);
	size_t n = strlen(s);

	if (n < EXPORT_NAME_MAX) {
		memcpy(buf, s, n + 1);
	} else { /* cut where a character starts, not inside its UTF-8 bytes */
		n = EXPORT_NAME_MAX - 4;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		memcpy(buf, s, n);
		memcpy(buf + n, "...", 4);
	}
	free(name);
	return buf;
}
