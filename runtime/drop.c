/* drop.c - naming and reporting the events that could not be kept. */
#include <inttypes.h>
#include <stdio.h>

#include "ada_internal.h"

const char *const ada_drop_names[ADA_DROP_NREASONS] = {
	[ADA_DROP_RING_FULL] = "ring_full",
	[ADA_DROP_MAX_DEPTH] = "max_depth",
	[ADA_DROP_REENTRANT] = "reentrant",
	[ADA_DROP_NO_BUFFER] = "no_buffer",
	[ADA_DROP_AFTER_EXIT] = "after_exit",
	[ADA_DROP_UNMATCHED] = "unmatched",
};

void ada_drop_report(const uint64_t totals[ADA_DROP_NREASONS], uint64_t kept)
{
	char line[512];
	uint64_t lost = 0;
	size_t n;
	unsigned r;

	for (r = 0; r < ADA_DROP_NREASONS; r++)
		lost += totals[r];
	if (!lost)
		return;
	n = (size_t)snprintf(line, sizeof(line), "%" PRIu64 " events not recorded, %" PRIu64 " kept:",
			     lost, kept);
	for (r = 0; r < ADA_DROP_NREASONS && n < sizeof(line); r++)
		if (totals[r])
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
					      ada_drop_names[r], totals[r]);
	ada_warn("%s (the trace stays balanced; see the manifest's \"dropped\")", line);
}
