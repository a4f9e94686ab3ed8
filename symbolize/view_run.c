/* view_run.c - runs a view over every process and thread of a trace
 * directory, with progress on a terminal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "trace_dir.h"
#include "view_progress.h"
#include "walk.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void view_progress_init(struct view_progress *pg, uint64_t total)
{
	*pg = (struct view_progress){ .on = isatty(STDERR_FILENO), .start = now_s(),
				      .total = total };
}

/* From the second second on, twice a second: done, total, rate and ETA. */
void view_progress_update(struct view_progress *pg, uint64_t done)
{
	double t, rate;

	if (!pg->on)
		return;
	t = now_s();
	if (t - pg->start < 1.0 || t - pg->last < 0.5)
		return;
	pg->last = t;
	pg->shown = true;
	rate = (double)done / (t - pg->start);
	if (pg->total && done <= pg->total)
		fprintf(stderr, "\rada-symbolize: %.1f of %.1f M events (%.0f%%), %.1f M/s, ETA %.0f s   ",
			(double)done / 1e6, (double)pg->total / 1e6, 100.0 * (double)done / (double)pg->total,
			rate / 1e6, rate > 0 ? (double)(pg->total - done) / rate : 0.0);
	else
		fprintf(stderr, "\rada-symbolize: %.1f M events, %.1f M/s   ", (double)done / 1e6,
			rate / 1e6);
}

void view_progress_end(struct view_progress *pg)
{
	if (pg->shown)
		fputc('\n', stderr);
	pg->shown = false;
}

struct thread_progress {
	struct view_progress *pg;
	uint64_t done;         /* events of the threads before */
};

static void thread_progress(void *ctx, uint64_t read)
{
	struct thread_progress *tp = ctx;

	view_progress_update(tp->pg, tp->done + read);
}

struct run_counts {
	uint64_t done;         /* events read */
	struct walk_counts walks;
};

static int run_thread(struct src_process *p, size_t i, const struct view_filter *f,
		      const struct view_ops *ops, struct view_progress *pg, struct run_counts *rc)
{
	struct walk *w = walk_open_async(p, i, f);
	struct thread_progress tp = { .pg = pg, .done = rc->done };
	struct walk_event ev;
	int r, err;

	if (!w)
		return -EIO;
	walk_on_progress(w, thread_progress, &tp);
	if (ops->thread_begin && (err = ops->thread_begin(ops->ctx, p, &p->threads[i])))
		goto out;
	while ((r = walk_next(w, &ev)) > 0)
		if ((err = ops->event(ops->ctx, w, &ev)))
			goto out;
	err = r;
	if (!err && ops->thread_end)
		err = ops->thread_end(ops->ctx, p, &p->threads[i]);
out:
	rc->done += walk_events_read(w);
	walk_add_counts(w, &rc->walks);
	walk_close(w);
	return err;
}

static int run_process(const char *dir, const struct view_filter *f, const struct view_ops *ops,
		       struct view_progress *pg, struct run_counts *rc)
{
	struct src_process *p;
	size_t i;
	int err = src_open(dir, &p);

	if (err)
		return err;
	if (!view_filter_wants_pid(f, p->pid))
		goto out;
	pg->total += f->min_ns || f->callers ? 2 * p->events : p->events; /* -t and -C read twice */
	if (ops->process_begin && (err = ops->process_begin(ops->ctx, p)))
		goto out;
	for (i = 0; i < p->nthreads && !err; i++)
		if (view_filter_wants_thread(f, &p->threads[i]))
			err = run_thread(p, i, f, ops, pg, rc);
	if (!err && ops->process_end)
		err = ops->process_end(ops->ctx, p);
out:
	src_close(p);
	return err;
}

int view_run(const char *path, const struct view_filter *f, const struct view_ops *ops)
{
	struct ada_trace_pid *pids;
	struct view_progress pg;
	struct run_counts rc = { 0 };
	size_t n, i, skipped = 0;
	int err = ada_trace_find_pids(path, &pids, &n);

	if (err)
		return err;
	view_progress_init(&pg, 0);
	for (i = 0; i < n && !err; i++) {
		err = run_process(pids[i].dir, f, ops, &pg, &rc);
		/* A binary gone since the run: said, and the others shown;
		 * an error only if none is. */
		if (err == -ENOENT && ++skipped < n)
			err = 0;
	}
	view_progress_end(&pg);
	ada_trace_free_pids(pids, n);
	if (!err)
		view_say_folded(f, &rc.walks);
	return err;
}
