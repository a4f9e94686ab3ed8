/* window.c - detail windows: triggers to position ranges, and their
 * WINDOW records (window.h). The writer's thread only.
 *
 * A window is [trigger - pre-roll, trigger + post-roll] in positions of one
 * thread's events. Rolls in events are exact; a roll in time is found from
 * the slots' timestamps (the thread's ticks never decrease). The writer
 * holds the newest pre-roll of each thread back in its index ring, so a
 * trigger it sees has its pre-roll still unwritten; when a trigger comes
 * later than that (an ada_mark whose thread ran on before the writer took
 * it), the part already written is counted as lost in the window's record.
 */
#include <stdlib.h>
#include <string.h>

#include "window.h"

bool ada_window_mode(const struct ada_thread *td)
{
	return ada_rt.cfg.detail_window && __atomic_load_n(&td->dring, __ATOMIC_ACQUIRE);
}

/* ns -> ticks, from the process's first clock pair and a later one: taken
 * again every 10 ms of the first second, while the span is too short for
 * a good rate (the writer's only: static state). */
static uint64_t ns_to_ticks(uint64_t ns)
{
	static struct ada_meta_clock now;
	static double per_ns;
	static uint64_t again_tsc;

	if (!per_ns || (now.boottime_ns - ada_rt.start_ns < 1000000000ull &&
			ada_arch_ticks() >= again_tsc)) {
		struct ada_meta_clock start = { .tsc = ada_rt.start_tsc, .boottime_ns = ada_rt.start_ns };
		uint64_t hz;

		ada_clock_sample(&now);
		hz = ada_clock_hz_estimate(&start, &now);
		per_ns = hz ? (double)hz / 1e9 : 1.0;
		again_tsc = now.tsc + (uint64_t)(10e6 * per_ns);
	}
	return (uint64_t)((double)ns * per_ns);
}

uint64_t ada_slot_tsc(const struct ada_thread *td, uint64_t pos)
{
	/* Atomic: in ring mode the thread may be writing over it (a search
	 * then goes astray, harmlessly: its result is a position in range). */
	return __atomic_load_n(&td->ring[pos & td->mask].tsc, __ATOMIC_RELAXED);
}

uint64_t ada_window_first_after(const struct ada_thread *td, uint64_t lo, uint64_t hi, uint64_t tsc)
{
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (ada_slot_tsc(td, mid) > tsc)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

uint64_t ada_window_hold(const struct ada_thread *td, const struct ada_windows *w, uint64_t tail,
			 uint64_t head)
{
	const struct ada_roll *pre = &ada_rt.cfg.trigger.pre;
	uint64_t now, back, hold;

	if (!pre->time) {
		/* However long ago: a thread idle since its last events (one
		 * waiting while another calls ada_snapshot) has them as its
		 * pre-roll. They reach the disk when it records more, ends, or
		 * the process does (ring files keep them through a SIGKILL). */
		hold = head - tail > pre->n ? head - pre->n : tail;
	} else {
		/* Keep what is younger than the pre-roll: an event before that
		 * is too old for any window a trigger could still open. */
		now = ada_arch_ticks();
		back = ns_to_ticks(pre->n);
		hold = now > back ? ada_window_first_after(td, tail, head, now - back) : tail;
	}
	/* A call of a func:GLOB>DURATION function still open keeps its start
	 * (and pre-roll) too, while that leaves half of both rings free. */
	if (w->ncalls && head - tail < (td->mask + 1) / 2 && head - tail < (td->dmask + 1) / 2) {
		uint64_t start = pre->time ? w->calls[0].pos : w->calls[0].pos - pre->n;

		if (w->calls[0].pos >= pre->n && start < hold)
			hold = start > tail ? start : tail;
	}
	/* Never more than half the detail ring: a thread waits for the writer
	 * at 3/4 of it while a window is to be written (ring.c). */
	if (head - hold > (td->dmask + 1) / 2)
		hold = head - (td->dmask + 1) / 2;
	return hold;
}

static int grow(struct ada_windows *w)
{
	size_t cap = w->cap ? w->cap * 2 : 8;
	struct ada_enc_window *win = realloc(w->win, cap * sizeof(*win));
	struct ada_window_info *info;

	if (!win)
		return -1;
	w->win = win;
	info = realloc(w->info, cap * sizeof(*info));
	if (!info)
		return -1;
	w->info = info;
	w->cap = cap;
	return 0;
}

/* Merges window i with the ones after it that it now reaches. */
static void coalesce(struct ada_windows *w, size_t i)
{
	while (i + 1 < w->n &&
	       (w->win[i].hi == UINT64_MAX || w->win[i + 1].lo <= w->win[i].hi + 1)) {
		struct ada_enc_window *a = &w->win[i], *b = &w->win[i + 1];
		struct ada_window_info *ia = &w->info[i], *ib = &w->info[i + 1];

		if (b->hi > a->hi && a->hi != UINT64_MAX)
			a->hi = b->hi;
		if (ib->post_tsc > ia->post_tsc)
			ia->post_tsc = ib->post_tsc;
		ia->triggers += ib->triggers;
		ia->cut_lost += ib->cut_lost;
		memmove(b, b + 1, (w->n - i - 2) * sizeof(*b));
		memmove(ib, ib + 1, (w->n - i - 2) * sizeof(*ib));
		w->n--;
	}
}

/* A window from want_lo (or tail, whichever is later) to hi, or to the
 * first event after post_tsc when hi is UINT64_MAX. */
static void open_range(struct ada_windows *w, uint64_t tail, struct ada_window_info *info,
		       uint64_t want_lo, uint64_t hi, const char *label)
{
	struct ada_enc_window win = { .lo = want_lo > tail ? want_lo : tail, .hi = hi };
	size_t i;

	info->triggers = 1;
	info->cut_lost = win.lo - want_lo;
	info->label_len = (uint32_t)strnlen(label, sizeof(info->label));
	memcpy(info->label, label, info->label_len);
	/* In position order; merged with what it overlaps or touches. */
	for (i = w->n; i > 0 && w->win[i - 1].lo > win.lo; i--)
		;
	if (i > 0 && (w->win[i - 1].hi == UINT64_MAX || w->win[i - 1].hi + 1 >= win.lo)) {
		struct ada_enc_window *a = &w->win[i - 1];
		struct ada_window_info *ia = &w->info[i - 1];

		if (win.hi > a->hi && a->hi != UINT64_MAX)
			a->hi = win.hi;
		if (info->post_tsc > ia->post_tsc)
			ia->post_tsc = info->post_tsc;
		ia->triggers++;
		ia->cut_lost += info->cut_lost;
		coalesce(w, i - 1);
		return;
	}
	if (w->n == w->cap && grow(w) < 0)
		return;
	memmove(&w->win[i + 1], &w->win[i], (w->n - i) * sizeof(*w->win));
	memmove(&w->info[i + 1], &w->info[i], (w->n - i) * sizeof(*w->info));
	w->win[i] = win;
	w->info[i] = *info;
	w->n++;
	coalesce(w, i);
}

/* The first position of a pre-roll before the event at pos (time tsc). */
static uint64_t pre_roll_start(const struct ada_thread *td, uint64_t tail, uint64_t pos,
			       uint64_t tsc)
{
	const struct ada_roll *pre = &ada_rt.cfg.trigger.pre;
	uint64_t back;

	if (ada_rt.cfg.ring_mode)
		return tail; /* what the ring holds: snapshot.c finds where it starts */
	if (!pre->time)
		return pos > pre->n ? pos - pre->n : 0;
	back = ns_to_ticks(pre->n);
	return ada_window_first_after(td, tail, pos, tsc > back ? tsc - back - 1 : 0);
}

/* The end of a post-roll after the event at pos: a position, or
 * UINT64_MAX with *post_tsc set (found later, ada_window_resolve). */
static uint64_t post_roll_end(uint64_t pos, uint64_t tsc, uint64_t *post_tsc)
{
	const struct ada_roll *post = &ada_rt.cfg.trigger.post;

	if (!post->time)
		return pos + post->n;
	*post_tsc = tsc + ns_to_ticks(post->n);
	return UINT64_MAX;
}

void ada_window_open(struct ada_thread *td, struct ada_windows *w, uint64_t tail,
		     unsigned trigger, uint64_t pos, uint64_t tsc, const char *label)
{
	struct ada_window_info info = { .trigger = trigger, .trigger_pos = pos };
	uint64_t hi = post_roll_end(pos, tsc, &info.post_tsc);

	/* A crash has no post-roll: the thread dies of it (or a handler of
	 * the program's takes over); its window ends at the signal. */
	if (trigger == ADA_TRIG_CRASH && pos) {
		hi = pos - 1;
		info.post_tsc = 0;
	}
	open_range(w, tail, &info, pre_roll_start(td, tail, pos, tsc), hi, label);
}

/* A call of a func:GLOB>DURATION function returned at pos: if it lasted
 * longer, a window over the whole call (as far as it is unwritten) and the
 * post-roll after its return. */
static void duration_check(struct ada_thread *td, struct ada_windows *w, uint64_t pos,
			   uint64_t tsc)
{
	const struct ada_open_call *c = &w->calls[--w->ncalls];
	struct ada_window_info info = { .trigger = ADA_TRIG_DURATION, .trigger_pos = c->pos };
	uint64_t hi;

	if (tsc - c->tsc <= ns_to_ticks(c->trig->min_ns))
		return;
	hi = post_roll_end(pos, tsc, &info.post_tsc);
	open_range(w, td->rh->tail, &info, pre_roll_start(td, td->rh->tail, c->pos, c->tsc), hi,
		   c->trig->spec);
}

void ada_window_scan(struct ada_thread *td, struct ada_windows *w, uint64_t head)
{
	uint64_t pos = w->scan > td->rh->tail ? w->scan : td->rh->tail;

	if (!ada_trigger_funcs_any()) {
		w->scan = head;
		return;
	}
	for (; pos < head; pos++) {
		const struct ada_slot *s = &td->ring[pos & td->mask];
		const struct ada_trigger_func *f;

		if (ADA_SLOT_KIND(s->word) == ADA_SLOT_ALLOC_KIND)
			continue; /* a block (ADA_ALLOC): no frame */
		if (ADA_SLOT_KIND(s->word) != ADA_RAW_CALL) {
			if (w->ncalls && w->calls[w->ncalls - 1].depth == w->depth)
				duration_check(td, w, pos, s->tsc);
			w->depth -= w->depth > 0;
			continue;
		}
		w->depth++;
		f = ada_trigger_func_at(ADA_SLOT_ADDR(s->word));
		if (!f)
			continue;
		if (!f->min_ns)
			ada_window_open(td, w, td->rh->tail, ADA_TRIG_FUNC, pos, s->tsc, f->spec);
		else if (w->ncalls < ADA_WINDOW_CALLS)
			w->calls[w->ncalls++] = (struct ada_open_call){ w->depth, pos, s->tsc, f };
	}
	w->scan = head;
}

bool ada_window_overlaps(const struct ada_windows *w, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->win[i].lo < hi && w->win[i].hi >= lo)
			return true;
	return false;
}

void ada_window_resolve(const struct ada_thread *td, struct ada_windows *w, uint64_t tail,
			uint64_t head)
{
	for (size_t i = 0; i < w->n; i++) {
		uint64_t end;

		if (w->win[i].hi != UINT64_MAX)
			continue;
		end = ada_window_first_after(td, w->win[i].lo > tail ? w->win[i].lo : tail, head,
				  w->info[i].post_tsc);
		if (end < head) {
			w->win[i].hi = end - 1;
			coalesce(w, i);
		}
	}
}

static void write_record(const struct ada_thread *td, const struct ada_enc_window *win,
			 const struct ada_window_info *info, uint64_t last)
{
	struct ada_meta_window m = {
		.ordinal = td->ordinal, .trigger = info->trigger, .trigger_pos = info->trigger_pos,
		.first_pos = win->lo, .last_pos = last, .first_tsc = win->first_tsc,
		.last_tsc = win->last_tsc, .kept = win->kept, .lost = win->lost + info->cut_lost,
		.triggers = info->triggers,
	};

	ada_meta_write(ADA_META_WINDOW, &m, sizeof(m), info->label, info->label_len);
}

void ada_window_close(const struct ada_thread *td, struct ada_windows *w, uint64_t tail,
		      bool all)
{
	size_t i = 0;

	while (i < w->n && (all || w->win[i].hi < tail)) {
		/* A window that reaches past the thread's last event ends there;
		 * one that starts past it was never written. */
		if (w->win[i].lo < tail)
			write_record(td, &w->win[i], &w->info[i],
				     w->win[i].hi < tail ? w->win[i].hi : tail - 1);
		i++;
	}
	if (!i)
		return;
	memmove(w->win, w->win + i, (w->n - i) * sizeof(*w->win));
	memmove(w->info, w->info + i, (w->n - i) * sizeof(*w->info));
	w->n -= i;
}

struct ada_windows *ada_windows_of(struct ada_thread *td)
{
	if (!td->windows)
		td->windows = calloc(1, sizeof(*td->windows));
	return td->windows;
}

void ada_windows_free(struct ada_thread *td)
{
	if (!td->windows)
		return;
	free(td->windows->win);
	free(td->windows->info);
	free(td->windows);
	td->windows = NULL;
}

/* ---- the triggers the program posted (runtime/marks.c): their windows ---------- */

/* The windows of one trigger on one thread; pos is UINT64_MAX for a trigger
 * of every thread, whose position on td is that of its first event after
 * the trigger's time. */
static void open_on(struct ada_thread *td, const struct ada_mark *m)
{
	uint64_t tail = td->rh->tail, head = __atomic_load_n(&td->rh->head, __ATOMIC_ACQUIRE);
	uint64_t half = (td->mask + 1) / 2;

	if (ada_rt.cfg.ring_mode) {
		/* The ring rolls over: search where the thread is not about
		 * to write. */
		uint64_t lo = head > half && head - half > tail ? head - half : tail;
		uint64_t pos = m->td == td ? m->pos : ada_window_first_after(td, lo, head, m->tsc);

		ada_snapshot_open(td, m->trigger, pos, m->tsc, m->label);
		return;
	}
	if (!ada_window_mode(td) || !ada_windows_of(td))
		return;
	/* A trigger of every thread: its first event after the trigger, or
	 * where its next will be. */
	uint64_t pos = m->td ? m->pos : ada_window_first_after(td, tail, head, m->tsc);

	ada_window_open(td, td->windows, tail, m->trigger, pos, m->tsc, m->label);
	ada_window_posted(td);
}

void ada_marks_take(void)
{
	const struct ada_mark *m;

	while ((m = ada_mark_next())) {
		struct ada_thread *td;

		if (m->td && !ada_rt.cfg.ring_mode) /* a ring-mode snapshot takes every thread */
			open_on(m->td, m);
		else
			for (td = __atomic_load_n(&ada_rt.threads, __ATOMIC_ACQUIRE); td; td = td->next)
				open_on(td, m);
		ada_mark_taken();
	}
}
