/* view_time.c - how the views print durations and thread headers. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "outbuf.h"

#include "view_cli.h"

/* The largest unit the value reaches, three decimals (rounded half up):
 * uftrace's way. Integers only: replay writes one per call. */
size_t view_duration_fmt(char *out, uint64_t ns, bool as_ns)
{
	static const char units[4][4] = { " ns", " us", " ms", "  s" };
	uint64_t q = ns;
	unsigned u = 0, n;
	char *e;

	if (as_ns)
		return (size_t)(fmt_u64(out, ns) - out);
	/* q: thousandths of the unit, each divisor a constant (a division by
	 * a variable is tens of cycles, at every call's line) */
	if (ns >= 1000000000) {
		u = 3;
		q = (ns + 500000) / 1000000;
	} else if (ns >= 1000000) {
		u = 2;
		q = (ns + 500) / 1000;
	} else if (ns >= 1000) {
		u = 1;
	}
	if (q < (u ? 1000000u : 1000u))
		return (size_t)(fmt_duration_short(out, (unsigned)q, u ? units[u] : NULL) - out);
	/* "%7" of the number, then the unit: written in place */
	n = fmt_digits(u ? q / 1000 : q) + (u ? 4 : 0);
	memcpy(out, "       ", 7);
	e = out + (n < 7 ? 7 - n : 0);
	if (u) {
		e = fmt_u64(e, q / 1000);
		*e++ = '.';
		*e++ = (char)('0' + q % 1000 / 100);
		*e++ = (char)('0' + q % 100 / 10);
		*e++ = (char)('0' + q % 10);
	} else {
		e = fmt_u64(e, q);
	}
	memcpy(e, units[u], 3);
	return (size_t)(e + 3 - out);
}

char *view_duration(char *buf, size_t len, uint64_t ns, bool as_ns)
{
	char tmp[48];
	size_t n = view_duration_fmt(tmp, ns, as_ns);

	snprintf(buf, len, "%.*s", (int)n, tmp);
	return buf;
}

void view_process_header(FILE *out, const struct src_process *p, size_t nthreads)
{
	/* The command names the run (./app --size 4) better than the file it
	 * ran; a trace that did not record it has the executable's path. */
	fprintf(out, "# pid %u %s: %zu thread%s\n", p->pid, *p->cmdline ? p->cmdline : p->exe,
		nthreads, nthreads == 1 ? "" : "s");
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
