/* view_progress.h - a view's progress on stderr when it is a terminal and
 * the view takes more than a second: events done of the total, rate, ETA.
 */
#ifndef ADA_VIEW_PROGRESS_H
#define ADA_VIEW_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct view_progress {
	bool on, shown;
	double start, last;
	uint64_t total;        /* events to read, 0 if not known */
};

void view_progress_init(struct view_progress *pg, uint64_t total);
void view_progress_update(struct view_progress *pg, uint64_t done);
void view_progress_end(struct view_progress *pg);

#endif
