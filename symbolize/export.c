/* export.c - names shared by the exports (see export.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

