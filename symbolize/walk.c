/* walk.c - a thread's events as frames, through the filters (walk.h).
 *
 * Each raw frame (by its depth in the thread) is shown or not when it opens;
 * only -t needs what comes later, its duration, and a first pass over the
 * thread gives it: one bit per call, so the second pass still hands frames
 * over in call order with bounded memory (an eighth of a byte per call).
 * A frame that is not shown leaves its time to the shown frame around it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "raw_format.h"
#include "walk.h"

enum { F_INCLUDE = 1, F_EXCLUDE = 2, F_MODULE = 4, F_RUNTIME = 8, F_SYSTEM = 16,
       F_INTERNAL = 32, F_STARTUP = 64, F_CALLER = 128, F_HIDE = 256 }; /* per function */

struct wframe {
	uint64_t start_ns;
	uint64_t child_ns;     /* shown frames it called, in total */
	uint32_t func;
	uint32_t shown;        /* its depth among shown frames; 0: not shown */
	bool in_runtime;       /* the C++ runtime's frame, or the C library's under one */
};

struct walk {
	struct src_process *p;
	const struct view_filter *f;
	struct src_stream *s;
	uint16_t *flags;       /* F_* per dense id */
	struct wframe *frames; /* by raw depth - 1 */
	uint32_t cap;
	uint32_t *shown_raw;   /* shown depth d → raw depth of that frame */
	uint32_t *stack;       /* shown depth d - 1 → dense id */
	uint32_t cur_shown;    /* shown depth of the innermost shown open frame */
	uint32_t stack_n;
	uint32_t include_at;   /* raw depth of the outermost open -F frame, 0 if none */
	uint32_t exclude_at;   /* ... -N frame */
	uint32_t cut_at;       /* ... frame below -D */
	uint8_t *long_enough;  /* -t: bit per call, from the first pass */
	uint64_t long_bytes;
	uint8_t *leads;        /* -C: bit per call that is or leads to a -C function's */
	uint64_t leads_bytes;
	uint32_t caller_at;    /* raw depth of the open -C frame, 0 if none */
	uint64_t calls;        /* calls read (index into long_enough) */
	uint64_t nshown;       /* frames shown */
	uint64_t folded_include; /* -F's calls the C++ runtime's folding hid */
	uint64_t read;         /* events the first pass read (the second's: w->s's count) */
	size_t thread;
	bool first_done;       /* -t, -C: the first pass has run (or none is needed) */
	bool simple;           /* no filter that follows open frames (-F -N -C -D -t -r): none of
				* the *_at marks is ever set, and no call needs counting */
	void (*progress)(void *ctx, uint64_t read);
	void *progress_ctx;
};

static uint16_t func_flags(const struct view_filter *f, const struct src_func *fn)
{
	struct view_filter_hits *h = f->hits;
	uint16_t fl = 0;

	if (view_glob_func(f->include, h ? h->include : NULL, fn))
		fl |= F_INCLUDE;
	if (view_glob_func(f->exclude, h ? h->exclude : NULL, fn))
		fl |= F_EXCLUDE;
	if (view_glob_func(f->callers, h ? h->callers : NULL, fn))
		fl |= F_CALLER;
	if (view_glob_func(f->hide, h ? h->hide : NULL, fn))
		fl |= F_HIDE;
	if (!f->modules || view_glob_mark(f->modules, h ? h->modules : NULL, fn->module, NULL))
		fl |= F_MODULE;
	if (!f->all_frames) {
		unsigned c = view_cxx_runtime_class(fn);

		fl |= c == VIEW_CXX_RUNTIME ? F_RUNTIME : c == VIEW_CXX_SYSTEM ? F_SYSTEM :
		      c == VIEW_CXX_INTERNAL ? F_RUNTIME | F_INTERNAL : 0;
		if (view_c_startup(fn))
			fl |= F_STARTUP;
	}
	return fl;
}

static bool grow(struct walk *w, uint32_t depth)
{
	uint32_t cap = depth > 2 * w->cap ? depth : 2 * w->cap;
	struct wframe *fr;
	uint32_t *sr, *st;

	if (depth <= w->cap)
		return true;
	fr = realloc(w->frames, cap * sizeof(*fr));
	if (fr)
		w->frames = fr;
	sr = realloc(w->shown_raw, (cap + 1) * sizeof(*sr));
	if (sr)
		w->shown_raw = sr;
	st = realloc(w->stack, (cap + 1) * sizeof(*st));
	if (st)
		w->stack = st;
	if (!fr || !sr || !st)
		return false;
	w->cap = cap;
	return true;
}

/* Sets bit c of the bitmap *map (*bytes long, grown as needed). */
static bool set_bit(uint8_t **map, uint64_t *bytes, uint64_t c)
{
	if (c / 8 >= *bytes) {
		uint64_t nb = *bytes ? 2 * *bytes : 4096;
		uint8_t *g;

		while (c / 8 >= nb)
			nb *= 2;
		if (!(g = realloc(*map, nb)))
			return false;
		memset(g + *bytes, 0, nb - *bytes);
		*map = g;
		*bytes = nb;
	}
	(*map)[c / 8] |= (uint8_t)(1u << (c % 8));
	return true;
}

static bool bit(const uint8_t *map, uint64_t bytes, uint64_t c)
{
	return c / 8 < bytes && (map[c / 8] & (1u << (c % 8)));
}

/* -t and -C need what comes later: a first pass marks, a bit per call, the
 * calls that lasted at least min_ns (long_enough) and those that are, or
 * lead to, a call of a -C function (leads: each open frame is marked once,
 * when the first such call under it opens). */
static __attribute__((noinline, cold)) int first_pass(struct walk *w, size_t thread)
{
	struct src_stream *s = src_stream_open_async(w->p, thread);
	uint64_t *start = NULL, *seq = NULL, calls = 0;
	uint8_t *marked = NULL;
	uint32_t cap = 0;
	const struct src_event *ev;
	int r;

	if (!s)
		return -EIO;
	while ((r = src_next(s, &ev)) > 0) {
		uint32_t d = ev->depth - 1;

		if (!(++w->read & 0xfffff) && w->progress)
			w->progress(w->progress_ctx, w->read);
		if (ev->kind >= SRC_ALLOC)
			continue;
		if (ev->depth > cap) {
			uint32_t c = ev->depth > 2 * cap ? ev->depth : 2 * cap;
			uint64_t *a = realloc(start, c * sizeof(*a)), *b = a ? realloc(seq, c * sizeof(*b)) : NULL;
			uint8_t *m = b ? realloc(marked, c) : NULL;

			if (a)
				start = a;
			if (b)
				seq = b;
			if (m)
				marked = m;
			if (!a || !b || !m) {
				r = -ENOMEM;
				break;
			}
			cap = c;
		}
		if (ev->kind == SRC_CALL) {
			start[d] = ev->ns;
			seq[d] = calls++;
			marked[d] = 0;
			if (w->f->callers && (w->flags[ev->func] & F_CALLER))
				for (int64_t k = d; k >= 0 && !marked[k]; k--) {
					marked[k] = 1;
					if (!set_bit(&w->leads, &w->leads_bytes, seq[k])) {
						r = -ENOMEM;
						break;
					}
				}
		} else if (w->f->min_ns && ev->ns - start[d] >= w->f->min_ns &&
			   !set_bit(&w->long_enough, &w->long_bytes, seq[d])) {
			r = -ENOMEM;
		}
		if (r == -ENOMEM)
			break;
	}
	free(start);
	free(seq);
	free(marked);
	src_stream_close(s);
	if (r == -ENOMEM)
		fprintf(stderr, "ada-symbolize: %s: out of memory\n", w->p->dir);
	return r;
}

static struct walk *open_walk(struct src_process *p, size_t i, const struct view_filter *f,
			      bool async)
{
	struct walk *w = calloc(1, sizeof(*w));
	size_t k;

	if (!w || !(w->flags = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*w->flags))) || !grow(w, 64))
		goto nomem;
	w->p = p;
	w->f = f;
	for (k = 0; k < p->nfuncs; k++)
		w->flags[k] = func_flags(f, &p->funcs[k]);
	if (f->hits)
		f->hits->walked = true;
	w->thread = i;
	w->first_done = !f->min_ns && !f->callers;
	w->simple = !f->include && !f->exclude && !f->callers && !f->max_depth && !f->min_ns &&
		    !f->has_range;
	if (!(w->s = async ? src_stream_open_async(p, i) : src_stream_open(p, i)))
		goto fail;
	return w;
nomem:
	fprintf(stderr, "ada-symbolize: %s: out of memory\n", p->dir);
fail:
	walk_close(w);
	return NULL;
}

struct walk *walk_open(struct src_process *p, size_t i, const struct view_filter *f)
{
	return open_walk(p, i, f, false);
}

struct walk *walk_open_async(struct src_process *p, size_t i, const struct view_filter *f)
{
	return open_walk(p, i, f, true);
}

/* Whether the frame opening at raw depth d (event ev) is shown, given what
 * is open around it; updates the subtree marks. */
static bool shown(struct walk *w, const struct src_event *ev)
{
	const struct view_filter *f = w->f;
	uint16_t fl = w->flags[ev->func];
	bool inside = ev->depth > 1 && w->frames[ev->depth - 2].in_runtime;
	bool runtime = (fl & F_RUNTIME) || (inside && (fl & F_SYSTEM));
	uint64_t call, t;

	/* A C++ runtime frame shows where the program entered the runtime;
	 * what it calls is hidden, but for the program called back. */
	w->frames[ev->depth - 1].in_runtime = runtime;
	if (w->simple) /* the checks below that can apply, in one */
		return !(inside && runtime) && (fl & (F_INTERNAL | F_STARTUP | F_HIDE | F_MODULE)) == F_MODULE;
	call = w->calls++;
	t = ev->ns - w->p->t0_ns;
	if ((inside && runtime) || (fl & F_INTERNAL)) {
		w->folded_include += (fl & F_INCLUDE) && !w->include_at;
		return false;
	}
	if (w->exclude_at || w->cut_at)
		return false;
	if (fl & F_EXCLUDE) {
		w->exclude_at = ev->depth;
		return false;
	}
	if (f->include && !w->include_at) {
		if (!(fl & F_INCLUDE))
			return false;
		w->include_at = ev->depth;
	}
	/* The C start-up and -H's frames: not shown, what they call shown in
	 * their place (a view starts at main; -D counts from there). */
	if (fl & (F_STARTUP | F_HIDE))
		return false;
	/* -C: only the frames on a path to a -C function's call, and that
	 * call, not what it calls. */
	if (f->callers) {
		if (w->caller_at || !bit(w->leads, w->leads_bytes, call))
			return false;
		if (fl & F_CALLER)
			w->caller_at = ev->depth;
	}
	if (f->max_depth && w->cur_shown >= f->max_depth) {
		w->cut_at = ev->depth;
		return false;
	}
	if (f->min_ns && !bit(w->long_enough, w->long_bytes, call))
		return false;
	if (f->has_range && (ev->ns < w->p->t0_ns || t < f->t_lo || (f->t_hi && t >= f->t_hi)))
		return false;
	return fl & F_MODULE;
}

size_t walk_read_const(void *p, uint64_t addr, void *buf, size_t len)
{
	return src_read_const(p, addr, buf, len);
}

/* out's fields, one by one: a compound literal's zeroing of the whole
 * event (rep stos) was a sixth of a replay's time. The times are
 * arguments, worked out before the first store into out, which the
 * compiler must otherwise assume could change what they are made of. */
static inline void set_event(struct walk_event *out, uint8_t type, uint8_t how, uint32_t func,
			     uint32_t depth, uint64_t start_ns, uint64_t end_ns, uint64_t total_ns,
			     uint64_t self_ns)
{
	out->type = type;
	out->how = how;
	out->func = func;
	out->depth = depth;
	out->start_ns = start_ns;
	out->end_ns = end_ns;
	out->total_ns = total_ns;
	out->self_ns = self_ns;
	out->regs = NULL; /* the rest of the detail is read with regs only (walk.h) */
}

/* ev's detail record into out, by reference: the source's, valid until
 * the next walk_next (walk.h), which is as long as a view reads it. */
static void keep_detail(const struct src_event *ev, struct walk_event *out)
{
	bool stack = ev->stack && ev->stack_size <= ADA_STACK_MAX;

	out->regs = ev->regs;
	out->fregs = ev->fregs;
	out->sp = ev->sp;
	out->no_value = ev->no_value;
	out->stack = stack ? ev->stack : NULL;
	out->stack_size = stack ? ev->stack_size : 0;
}

/* The events that are not calls nor returns, out of step's loop, which
 * then keeps its state in fewer registers: a quarter of walk_next's
 * instructions were its prologue and epilogue. */
#define RARE static __attribute__((noinline, cold))

/* A block, in the shown frames open now. */
RARE int alloc_event(struct walk *w, const struct src_event *ev, struct walk_event *out)
{
	set_event(out, WALK_ALLOC, 0, ev->func, w->cur_shown, 0, 0, 0, 0);
	out->start_ns = ev->ns > w->p->t0_ns ? ev->ns - w->p->t0_ns : 0;
	out->alloc_ptr = ev->alloc_ptr;
	out->alloc_size = ev->alloc_size;
	out->alloc_op = ev->alloc_op;
	out->alloc_freed = ev->alloc_freed;
	w->stack_n = w->cur_shown;
	return 1;
}

/* A counter sample, in the shown frames open now. */
RARE int sample_event(struct walk *w, const struct src_event *ev, struct walk_event *out)
{
	set_event(out, WALK_SAMPLE, 0, ev->func, w->cur_shown, 0, 0, 0, 0);
	out->start_ns = ev->ns > w->p->t0_ns ? ev->ns - w->p->t0_ns : 0;
	out->sample = ev->sample;
	w->stack_n = w->cur_shown;
	return 1;
}

/* A wait or a release, in the shown frames open now: start_ns to end_ns
 * (total_ns) is a wait's, from before its call's work to after it. */
RARE int block_event(struct walk *w, const struct src_event *ev, struct walk_event *out)
{
	uint64_t t0 = w->p->t0_ns;

	set_event(out, WALK_BLOCK, 0, ev->func, w->cur_shown, 0, 0, 0, 0);
	out->start_ns = ev->block.start_ns > t0 ? ev->block.start_ns - t0 : 0;
	out->end_ns = ev->ns > t0 ? ev->ns - t0 : 0;
	out->total_ns = out->end_ns > out->start_ns ? out->end_ns - out->start_ns : 0;
	out->block = ev->block;
	w->stack_n = w->cur_shown;
	return 1;
}

/* The next shown event. */
static int step(struct walk *w, struct walk_event *out)
{
	const struct src_event *ev;
	int r;

	while ((r = src_next(w->s, &ev)) > 0) {
		struct wframe *fr;
		uint64_t total;

		if (__builtin_expect(ev->kind >= SRC_ALLOC, 0))
			return ev->kind == SRC_ALLOC ? alloc_event(w, ev, out) :
			       ev->kind == SRC_SAMPLE ? sample_event(w, ev, out) : block_event(w, ev, out);
		if (ev->depth > w->cap && !grow(w, ev->depth)) {
			fprintf(stderr, "ada-symbolize: %s: out of memory\n", w->p->dir);
			return -ENOMEM;
		}
		fr = &w->frames[ev->depth - 1];
		if (ev->kind == SRC_CALL) {
			fr->func = ev->func;
			fr->start_ns = ev->ns;
			fr->child_ns = 0;
			fr->shown = shown(w, ev) ? ++w->cur_shown : 0;
			if (!fr->shown)
				continue;
			w->nshown++;
			w->shown_raw[fr->shown] = ev->depth;
			w->stack[fr->shown - 1] = ev->func;
			w->stack_n = fr->shown;
			set_event(out, WALK_ENTER, 0, ev->func, fr->shown, ev->ns - w->p->t0_ns, 0, 0, 0);
			if (ev->regs)
				keep_detail(ev, out);
			return 1;
		}
		/* A frame closes: the subtree marks it set end with it. */
		if (!w->simple) {
			if (w->include_at == ev->depth)
				w->include_at = 0;
			if (w->exclude_at == ev->depth)
				w->exclude_at = 0;
			if (w->cut_at == ev->depth)
				w->cut_at = 0;
			if (w->caller_at == ev->depth)
				w->caller_at = 0;
		}
		if (!fr->shown)
			continue;
		total = ev->ns - fr->start_ns;
		w->cur_shown = fr->shown - 1;
		w->stack_n = fr->shown;
		set_event(out, WALK_EXIT, ev->kind, fr->func, fr->shown, fr->start_ns - w->p->t0_ns,
			  ev->ns - w->p->t0_ns, total, total - (fr->child_ns < total ? fr->child_ns : total));
		if (fr->shown > 1)
			w->frames[w->shown_raw[fr->shown - 1] - 1].child_ns += total;
		if (ev->regs)
			keep_detail(ev, out);
		return 1;
	}
	return r;
}

int walk_next(struct walk *w, struct walk_event *ev)
{
	int r;

	/* -t's first pass runs at the first event asked for, so progress can
	 * follow it. */
	if (!w->first_done) {
		w->first_done = true;
		if ((r = first_pass(w, w->thread)) < 0)
			return r;
	}
	return step(w, ev);
}

/* The second pass's progress: its stream counts the events a batch at a
 * time, which spares step a count at every event. */
static void stream_progress(void *ctx)
{
	struct walk *w = ctx;

	w->progress(w->progress_ctx, walk_events_read(w));
}

void walk_on_progress(struct walk *w, void (*cb)(void *ctx, uint64_t read), void *ctx)
{
	w->progress = cb;
	w->progress_ctx = ctx;
	src_stream_on_progress(w->s, cb ? stream_progress : NULL, w);
}

const uint32_t *walk_stack(const struct walk *w, uint32_t *n)
{
	*n = w->stack_n;
	return w->stack;
}

void walk_add_counts(const struct walk *w, struct walk_counts *c)
{
	c->shown += w->nshown;
	c->folded_include += w->folded_include;
}

uint64_t walk_events_read(const struct walk *w)
{
	return w->read + src_stream_read(w->s);
}

void walk_close(struct walk *w)
{
	if (!w)
		return;
	src_stream_close(w->s);
	free(w->flags);
	free(w->frames);
	free(w->shown_raw);
	free(w->stack);
	free(w->long_enough);
	free(w->leads);
	free(w);
}
