/* drop.c - naming and reporting the events that could not be kept. */
#include <inttypes.h>
#include <stdio.h>

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

/* Silent unless something was lost: a program's stderr is its own (a test
 * suite compares it). Waits lose nothing, so they are in the manifest only,
 * and on this line with ADA_VERBOSE=1, which prints it in any case. */
void ada_drop_report(const uint64_t totals[ADA_DROP_NREASONS], uint64_t kept, uint64_t waits,
		     uint64_t wait_ns, bool verbose)
{
	char events[384] = "", details[128] = "", waited[160] = "";
	uint64_t lost = 0;
	unsigned r;

	/* Every reason but the last drops events; detail_full drops only the
	 * registers and stack of events that were recorded. */
	_Static_assert(ADA_DROP_DETAIL_FULL == ADA_DROP_NREASONS - 1, "detail_full is last");
	for (r = 0; r < ADA_DROP_DETAIL_FULL; r++)
		lost += totals[r];
	if (lost)
		format_reasons(events, sizeof(events), "events not recorded:", lost, totals, 0,
			       ADA_DROP_DETAIL_FULL);
	if (totals[ADA_DROP_DETAIL_FULL])
		snprintf(details, sizeof(details), "%sdetail records not kept: %" PRIu64
			 " (detail_full; the events were)", lost ? "; " : "",
			 totals[ADA_DROP_DETAIL_FULL]);
	if (waits && verbose)
		snprintf(waited, sizeof(waited), "%sthreads waited %" PRIu64 " times for the writer "
			 "(%" PRIu64 ".%03" PRIu64 " s in total: their rings were full)",
			 lost || *details ? "; " : "", waits, wait_ns / 1000000000,
			 wait_ns / 1000000 % 1000);
	if (!lost && !*details && !verbose)
		return;
	ada_warn("%s%s%s%s%" PRIu64 " events kept%s", events, details, waited,
		 lost || *details || *waited ? "; " : "", kept,
		 lost || *details ? " (the trace stays balanced; see the manifest's \"dropped\")" : "");
}
