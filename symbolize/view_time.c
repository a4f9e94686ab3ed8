/* view_time.c - how the views print durations and thread headers. */
#include <inttypes.h>
#include <stdio.h>

#include "view_cli.h"

/* The largest unit the value reaches, three decimals: uftrace's way. */
char *view_duration(char *buf, size_t len, uint64_t ns, bool as_ns)
{
	if (as_ns)
		snprintf(buf, len, "%" PRIu64, ns);
	else if (ns < 1000)
		snprintf(buf, len, "%7" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%7.3f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%7.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%7.3f  s", (double)ns / 1e9);
	return buf;
}

void view_thread_header(FILE *out, const struct src_process *p, const struct src_thread *t)
{
	fprintf(out, "# pid %u thread %u tid %u", p->pid, t->id, t->tid);
	if (t->is_stack) {
		fprintf(out, " stack 0x%" PRIx64 "-0x%" PRIx64, t->stack_lo, t->stack_hi);
		if (t->host != UINT32_MAX)
			fprintf(out, " of thread %u", t->host);
	}
	if (t->name[0])
		fprintf(out, " (%s)", t->name);
	fputc('\n', out);
}
