/* drop.c - naming and reporting the events that could not be kept. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "ada_internal.h"

const char *const ada_drop_names[ADA_DROP_NREASONS] = ADA_DROP_NAMES;

/* "<what> <n>:" then " reason n" for each of the reasons in [from, to). */
static size_t format_reasons(char *line, size_t len, const char *what, uint64_t n,
			     const uint64_t *totals, unsigned from, unsigned to)
{
	size_t used = (size_t)snprintf(line, len, "%s %" PRIu64 " (", what, n);
	unsigned r;

	for (r = from; r < to && used < len; r++)
		if (totals[r])
			used += (size_t)snprintf(line + used, len - used, "%s%s %" PRIu64,
						 line[used - 1] == '(' ? "" : ", ", ada_drop_names[r],
						 totals[r]);
	if (used < len)
		used += (size_t)snprintf(line + used, len - used, ")");
	return used < len ? used : len - 1;
}

/* The first file that could not be written (a full disk, a size limit, no
 * descriptor left, a chroot): said once, on the exit line, with what it
 * cost, rather than a line of its own for each file as it happens. */
static char failure[640];
static uint32_t failed;

void ada_write_failed(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&failed, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(failure, sizeof(failure), fmt, ap);
	va_end(ap);
}

/* Appends "; " (after the first part) and the formatted part to line. */
static void __attribute__((format(printf, 3, 4))) part(char *line, size_t len, const char *fmt, ...)
{
	size_t used = strlen(line);
	va_list ap;

	if (used && used + 2 < len) {
		memcpy(line + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(line + used, len - used, fmt, ap);
	va_end(ap);
}

/* Silent unless something was lost or could not be written: a program's
 * stderr is its own (a test suite compares it). Waits lose nothing, so they
 * are in the manifest only, and on this line with ADA_VERBOSE=1, which
 * prints it in any case. */
void ada_drop_report(const uint64_t totals[ADA_DROP_NREASONS], uint64_t kept, uint64_t waits,
		     uint64_t wait_ns, bool verbose, bool recorder)
{
	char line[1400] = "", events[384];
	uint64_t lost = 0;
	unsigned r;

	/* Every reason but the last drops events; detail_full drops only the
	 * registers and stack of events that were recorded. */
	_Static_assert(ADA_DROP_DETAIL_FULL == ADA_DROP_NREASONS - 1, "detail_full is last");
	for (r = 0; r < ADA_DROP_DETAIL_FULL; r++)
		lost += totals[r];
	if (!lost && !totals[ADA_DROP_DETAIL_FULL] && !verbose &&
	    !__atomic_load_n(&failed, __ATOMIC_ACQUIRE))
		return;
	if (__atomic_load_n(&failed, __ATOMIC_ACQUIRE))
		part(line, sizeof(line), "%s", failure);
	if (lost) {
		format_reasons(events, sizeof(events), "events not recorded:", lost, totals, 0,
			       ADA_DROP_DETAIL_FULL);
		part(line, sizeof(line), "%s", events);
	}
	if (totals[ADA_DROP_DETAIL_FULL])
		part(line, sizeof(line), "detail records not kept: %" PRIu64
		     " (detail_full; the events were)", totals[ADA_DROP_DETAIL_FULL]);
	if (waits && verbose)
		part(line, sizeof(line), "threads waited %" PRIu64 " times for the writer (%" PRIu64
		     ".%03" PRIu64 " s in total: their rings were full)", waits,
		     wait_ns / 1000000000, wait_ns / 1000000 % 1000);
	part(line, sizeof(line), "%" PRIu64 " events kept%s", kept,
	     lost || totals[ADA_DROP_DETAIL_FULL]
		     ? " (the trace stays balanced; see the manifest's \"dropped\")" : "");
	/* A recorder's CPU is no child's of the program's parent: no time(1)
	 * or wait4 of the program counts it. Said here, for a fair figure. */
	if (verbose && recorder) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		part(line, sizeof(line), "the recorder process used %ld.%03ld s of CPU",
		     (long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000000),
		     (long)((ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) % 1000000 / 1000));
	}
	ada_warn("%s", line);
}
