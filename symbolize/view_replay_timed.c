/* view_replay_timed.c - `ada-symbolize replay`: every call and return with
 * its duration, uftrace's layout (comments in the output are shown here as
 * "(* ... *)"):
 *
 *   # pid 4242 thread 0 tid 4242
 *   #  DURATION   FUNCTION
 *                 | main(0x1, 0x7ffd5c1e2a38, 0x7ffd5c1e2a48, 0x0, 0x0, 0x0) {
 *      0.210 us   |   compute(0x2a, 0x7, 0x0, 0x0, 0x0, 0x0) = 0x54;
 *      5.000 us   | } = 0x0; (* main *)
 *
 * A call with no shown callee is one line; otherwise its return is a line of
 * its own, "} (* name *)". Argument registers (x86_64 rdi..r9, arm64
 * x0..x7) and the return register come from the detail lane where the event
 * has a record, "name()" without one. A frame left without a return says
 * "(* name (unwound) *)", one the thread's record ended in "(open at
 * exit)" and the like. --merge interleaves the threads of a process in time
 * order, with a TID column; --fold prints a run of identical calls with no
 * shown callees as one line "name xN" (their total duration). -f chooses
 * the columns before the bar (uftrace's fields): duration (the default),
 * time (since the process's first event), delta (since the thread's line
 * before), tid (--merge's default too), module; "+time" adds to the
 * default. --srcline ends a call's line with its "(* file:line *)".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "raw_format.h"
#include "sig.h"
#include "view_cli.h"
#include "view_progress.h"
#include "trace_dir.h"

/* An event's arguments (ENTER) or return value (EXIT) as text, made when
 * the event is read: its detail record is the walk's only until the next. */
struct shown {
	bool has;                /* the event has a detail record (and args are wanted) */
	bool none;               /* a void function's return: no value */
	uint32_t len;            /* text's */
	char text[480];
};

struct rthread {
	struct walk *w;
	const struct src_thread *t;
	uint64_t last_at;        /* -f delta: the time of its line before */
	/* The next event to print (ev, has_ev) and the one after it (nx, has_nx:
	 * is ev a leaf?), with their text (ev_s, nx_s): each points into the
	 * pair below, and nx becomes ev by a swap of pointers, not a copy. */
	struct walk_event *ev, *nx;
	struct shown *ev_s, *nx_s;
	struct walk_event evs[2];
	struct shown shown[3];
	bool has_ev, has_nx, started;
	/* A leaf's ENTER waits for its EXIT (its text: leaf_s, swapped with ev_s); --fold's runs. */
	bool leaf_open;
	struct shown *leaf_s;
	uint64_t run, run_ns;     /* --fold: leaves in the run so far, their time */
	uint32_t run_func, run_depth;
	struct walk_event leaf;   /* the run's first, and its call's and return's text */
	struct shown run_s, run_ret_s;
};

enum { F_DURATION, F_TIME, F_DELTA, F_TID, F_MODULE, NFIELDS };
static const char *const field_names[NFIELDS] = { "duration", "time", "delta", "tid", "module" };
static const char *const field_heads[NFIELDS] = { "  DURATION", "     TIMESTAMP", "     DELTA",
						  "[   TID]", "          MODULE" };

struct rname {
	const char *s;
	size_t len;
};

struct replay {
	const struct view_args *a;
	FILE *out;
	int fields[NFIELDS + 1]; /* -f's, in order, -1-terminated */
	struct outbuf ob;       /* the lines: printf per call would be most of the time */
	struct src_process *p;
	struct rname *names;    /* per function of p: the name lines show, its length */
	bool plain_lines;       /* the default columns, in microseconds, no --srcline */
	unsigned nargs;
	struct walk_counts walks; /* every walk's, for view_say_folded */
};

static void put(struct replay *r, const char *s)
{
	outbuf_put(&r->ob, s, strlen(s));
}

#define put_lit(r, s) outbuf_put(&(r)->ob, "" s, sizeof(s) - 1)

/* "%10s": text of n bytes right-aligned in width w. */
static char *column(char *p, const char *text, size_t n, size_t w)
{
	if (n < w) {
		memset(p, ' ', w - n);
		p += w - n;
	}
	return fmt_mem(p, text, n);
}

/* The columns of a line (-f) and its indentation: ns its duration (if
 * has_duration), at its event's time since the process's first, func its
 * function. */
static void prefix(struct replay *r, struct rthread *rt, uint64_t ns, bool has_duration,
		   uint64_t at, uint32_t func, uint32_t depth)
{
	static const char spaces[] = "                                                                ";
	char *p = outbuf_reserve(&r->ob, 320), d[40];
	size_t n;

	for (const int *f = r->fields; *f >= 0; f++) {
		switch (*f) {
		case F_DURATION: /* " %7s unit": ten wide but in ns (-n) */
			*p++ = ' ';
			if (has_duration && !r->a->ns) {
				p += view_duration_fmt(p, ns, false);
				break;
			}
			n = has_duration ? view_duration_fmt(d, ns, r->a->ns) : 0;
			p = column(p, d, n, 10);
			break;
		case F_TIME: /* seconds, to the nanosecond */
			n = (size_t)snprintf(d, sizeof(d), "%" PRIu64 ".%09" PRIu64, at / 1000000000u,
					     at % 1000000000u);
			*p++ = ' ';
			p = column(p, d, n, 14);
			break;
		case F_DELTA:
			n = view_duration_fmt(d, rt->last_at && at > rt->last_at ? at - rt->last_at : 0,
					      r->a->ns);
			*p++ = ' ';
			p = column(p, d, n, 10);
			break;
		case F_TID:
			n = (size_t)(fmt_u64(d, rt->t->tid) - d);
			p = fmt_lit(p, " [");
			p = column(p, d, n, 6);
			*p++ = ']';
			break;
		case F_MODULE:
			n = strlen(r->p->funcs[func].module);
			if (n > 15)
				n = 15;
			*p++ = ' ';
			p = column(p, r->p->funcs[func].module, n, 15);
			break;
		}
	}
	rt->last_at = at;
	p = fmt_lit(p, " | ");
	if (depth <= 64) { /* the indentation in the same room: 128 bytes at most */
		memset(p, ' ', 128);
		outbuf_commit(&r->ob, p + 2 * (size_t)(depth - 1));
		return;
	}
	outbuf_commit(&r->ob, p);
	for (size_t left = 2 * (size_t)(depth - 1); left;) {
		size_t k = left < sizeof(spaces) - 1 ? left : sizeof(spaces) - 1;

		outbuf_write(&r->ob, spaces, k);
		left -= k;
	}
}

/* --srcline: " (* file:line *)" after a call, where DWARF knew it. */
static void srcline(struct replay *r, uint32_t func)
{
	const struct src_func *f = &r->p->funcs[func];
	char line[16];

	if (!r->a->srcline || !f->file)
		return;
	put(r, " /* ");
	put(r, f->file);
	snprintf(line, sizeof(line), ":%u */", f->line);
	put(r, line);
}

/* -f: FIELD[,FIELD...] into r->fields, or "+FIELD..." added to the default
 * (duration, and tid with --merge); false if a field is none. */
static bool parse_fields(struct replay *r, const char *spec)
{
	size_t n = 0;

	if (!spec || *spec == '+') {
		r->fields[n++] = F_DURATION;
		if (r->a->merge)
			r->fields[n++] = F_TID;
		spec = spec ? spec + 1 : "";
	}
	for (const char *s = spec; *s && n < NFIELDS; s += strcspn(s, ",") + (s[strcspn(s, ",")] != 0)) {
		size_t len = strcspn(s, ","), k;

		for (k = 0; k < NFIELDS; k++)
			if (strlen(field_names[k]) == len && !strncmp(field_names[k], s, len))
				break;
		if (k == NFIELDS)
			return false;
		r->fields[n++] = (int)k;
	}
	r->fields[n] = -1;
	return true;
}

static const char *name_of(const struct replay *r, uint32_t func)
{
	return r->names[func].s;
}

static void put_name(struct replay *r, uint32_t func)
{
	outbuf_put(&r->ob, name_of(r, func), r->names[func].len);
}


static void shown_copy(struct shown *to, const struct shown *from)
{
	to->has = from->has;
	to->none = from->none;
	to->len = from->len;
	if (from->has)
		memcpy(to->text, from->text, from->len + 1);
}

/* x's detail as text into sh: by the function's DWARF parameters where the
 * trace has them (sig.h; x86_64), else the raw registers in hex. */
static __attribute__((noinline)) void shown_make(const struct replay *r, const struct walk_event *x,
						 struct shown *sh)
{
	const struct ada_sig *sig;
	struct sig_frame fr;
	char *p = sh->text;

	sh->has = x->regs && !r->a->no_args &&
		  (x->type == WALK_ENTER || (x->how == SRC_RETURN && !x->no_value));
	sh->none = false;
	if (!sh->has)
		return;
	sig = r->a->raw_args ? NULL : walk_sig(r->p, x->func);
	fr = walk_sig_frame(x, r->p);
	if (sig && x->type == WALK_ENTER) {
		sh->len = (uint32_t)sig_format_args(sig, &fr, sh->text, sizeof(sh->text));
	} else if (sig) {
		sh->none = sig->ret.kind == SIG_VOID;
		sh->len = (uint32_t)sig_format_ret(sig, &fr, sh->text, sizeof(sh->text));
	} else {
		for (unsigned i = 0; i < (x->type == WALK_ENTER ? r->nargs : 1); i++) {
			if (i)
				p = fmt_lit(p, ", ");
			p = fmt_hex(p, x->regs[i]);
		}
		*p = '\0';
		sh->len = (uint32_t)(p - sh->text);
	}
}

static void call_part(struct replay *r, uint32_t func, const struct shown *args)
{
	put_name(r, func);
	if (!args->has) {
		put_lit(r, "()");
		return;
	}
	put_lit(r, "(");
	outbuf_put(&r->ob, args->text, args->len);
	put_lit(r, ")");
}

/* " = <value>;" where the return has its value, else ";" or nothing. */
static void ret_part(struct replay *r, const struct shown *ret, const char *plain)
{
	if (ret->has && !ret->none) {
		put_lit(r, " = ");
		outbuf_put(&r->ob, ret->text, ret->len);
		put_lit(r, ";");
	} else if (*plain) {
		put(r, plain);
	}
}

static void end_note(struct replay *r, const struct rthread *rt, const struct walk_event *x)
{
	if (x->how == SRC_UNWIND) {
		put(r, " (unwound)");
	} else if (x->how == SRC_OPEN_AT_END) {
		put(r, " (");
		put(r, rt->t->open_mark);
		put(r, ")");
	}
}

/* The lines most of a replay is, in the default columns, not deep, each
 * written in one piece (text_line those with the text of arguments or of
 * a value):
 *   "  12.345 us |     name();"         PLAIN_LEAF, a leaf that returned
 *   "            |     name() {"        PLAIN_ENTER, a call with callees
 *   "  12.345 us |     } (* name *)"    PLAIN_EXIT, its return
 * False where another line is due (args: the call's text, ret: the
 * return's). */
enum plain { PLAIN_LEAF, PLAIN_ENTER, PLAIN_EXIT };

/* A plain line's duration column and indentation, at p. */
static inline __attribute__((always_inline)) char *
plain_head(struct rthread *rt, const struct walk_event *x, enum plain kind, char *p)
{
	if (kind == PLAIN_ENTER) {
		p = fmt_lit(p, "            | "); /* the blank duration column */
		rt->last_at = x->start_ns;
	} else {
		*p++ = ' ';
		if (x->total_ns < 1000) /* most lines: view_duration_fmt's, inline */
			p = fmt_duration_short(p, (unsigned)x->total_ns, NULL);
		else
			p += view_duration_fmt(p, x->total_ns, false);
		p = fmt_lit(p, " | ");
		rt->last_at = kind == PLAIN_LEAF ? x->start_ns : x->end_ns;
	}
	memset(p, ' ', 64); /* the indentation: 2 a level, depth <= 64 (plain_line) */
	if (x->depth > 32)
		memset(p + 64, ' ', 64);
	return p + 2 * (size_t)(x->depth - 1);
}

/* A plain line's last bytes, after the name and what follows it. */
static inline char *line_end(char *p, enum plain kind)
{
	if (kind == PLAIN_LEAF)
		return fmt_lit(p, ";\n");
	return kind == PLAIN_ENTER ? fmt_lit(p, " {\n") : fmt_lit(p, " */\n");
}

/* plain_line's lines with the text of arguments or of a value (a
 * recording with details), each written in one piece as well:
 *   "  12.345 us |     name(args) = value;"   PLAIN_LEAF
 *   "            |     name(args) {"          PLAIN_ENTER
 *   "  12.345 us |     } = value; (* name *)" PLAIN_EXIT
 * as call_part and ret_part write them, for plain_line, which has checked
 * the rest. Not inlined: plain_line's callers stay as small as they were. */
static __attribute__((noinline)) bool text_line(struct replay *r, struct rthread *rt,
						const struct walk_event *x, enum plain kind,
						const struct shown *args, const struct shown *ret)
{
	size_t len = r->names[x->func].len;
	bool value = kind != PLAIN_ENTER && ret->has && !ret->none;
	char *p = outbuf_reserve(&r->ob, 4096 + 256 + sizeof(args->text) + sizeof(ret->text));

	p = plain_head(rt, x, kind, p);
	if (kind == PLAIN_EXIT) {
		p = fmt_lit(p, "}");
		if (value)
			p = fmt_lit(fmt_str(fmt_lit(p, " = "), ret->text, ret->len), ";");
		p = fmt_lit(p, " /* ");
	}
	p = fmt_str(p, name_of(r, x->func), len);
	if (kind != PLAIN_EXIT) {
		*p++ = '(';
		if (args->has)
			p = fmt_str(p, args->text, args->len);
		*p++ = ')';
	}
	if (kind == PLAIN_LEAF && value)
		p = fmt_str(fmt_lit(p, " = "), ret->text, ret->len);
	outbuf_commit(&r->ob, line_end(p, kind));
	return true;
}

static inline __attribute__((always_inline)) bool
plain_line(struct replay *r, struct rthread *rt, const struct walk_event *x, enum plain kind,
	   const struct shown *args, const struct shown *ret)
{
	size_t len = r->names[x->func].len;
	char *p;

	if (!r->plain_lines || x->depth > 64 || len > 4096 ||
	    (kind != PLAIN_ENTER && x->how != SRC_RETURN))
		return false;
	if ((kind != PLAIN_EXIT && args->has) || (kind != PLAIN_ENTER && ret->has && !ret->none))
		return text_line(r, rt, x, kind, args, ret);
	p = plain_head(rt, x, kind, outbuf_reserve(&r->ob, 4096 + 256));
	if (kind == PLAIN_EXIT)
		p = fmt_lit(p, "} /* ");
	p = fmt_str(p, name_of(r, x->func), len);
	if (kind != PLAIN_EXIT)
		p = fmt_lit(p, "()");
	outbuf_commit(&r->ob, line_end(p, kind));
	return true;
}

/* A leaf's one line, at its EXIT, with its ENTER's arguments. */
static void print_leaf_line(struct replay *r, struct rthread *rt, const struct walk_event *x,
			    const struct shown *args, const struct shown *ret)
{
	if (plain_line(r, rt, x, PLAIN_LEAF, args, ret))
		return;
	prefix(r, rt, x->total_ns, true, x->start_ns, x->func, x->depth);
	call_part(r, x->func, args);
	ret_part(r, ret, ";");
	srcline(r, x->func);
	if (x->how != SRC_RETURN) {
		put_lit(r, " /* ");
		put_name(r, x->func);
		end_note(r, rt, x);
		put_lit(r, " */");
	}
	put_lit(r, "\n");
}

/* --fold: the run so far, as one line (a run of one as its plain line). */
static void flush_run(struct replay *r, struct rthread *rt)
{
	if (rt->run == 1) {
		print_leaf_line(r, rt, &rt->leaf, &rt->run_s, &rt->run_ret_s);
	} else if (rt->run) {
		prefix(r, rt, rt->run_ns, true, rt->leaf.start_ns, rt->run_func, rt->run_depth);
		char *p;

		put_name(r, rt->run_func);
		p = fmt_lit(outbuf_reserve(&r->ob, 32), " x");
		p = fmt_u64(p, rt->run);
		outbuf_commit(&r->ob, fmt_lit(p, ";\n"));
	}
	rt->run = 0;
}

static void print_leaf(struct replay *r, struct rthread *rt, const struct walk_event *x)
{
	if (rt->run && (!r->a->fold || x->how != SRC_RETURN || rt->run_func != x->func ||
			rt->run_depth != x->depth))
		flush_run(r, rt);
	if (!r->a->fold || x->how != SRC_RETURN) {
		print_leaf_line(r, rt, x, rt->leaf_s, rt->ev_s);
		return;
	}
	if (!rt->run++) { /* the first of a run: kept whole, in case none follows */
		rt->run_func = x->func;
		rt->run_depth = x->depth;
		rt->run_ns = 0;
		rt->leaf = *x;
		shown_copy(&rt->run_s, rt->leaf_s);
		shown_copy(&rt->run_ret_s, rt->ev_s);
	}
	rt->run_ns += x->total_ns;
}

static void print_event(struct replay *r, struct rthread *rt, const struct walk_event *x)
{
	bool leaf = x->type == WALK_ENTER && rt->has_nx && rt->nx->type == WALK_EXIT &&
		    rt->nx->depth == x->depth;

	if (leaf) {
		struct shown *s = rt->leaf_s; /* ev's text is not read again */

		rt->leaf_s = rt->ev_s;
		rt->ev_s = s;
		rt->leaf_open = true;
		return;
	}
	if (x->type == WALK_EXIT && rt->leaf_open) {
		rt->leaf_open = false;
		print_leaf(r, rt, x);
		return;
	}
	flush_run(r, rt);
	if (plain_line(r, rt, x, x->type == WALK_ENTER ? PLAIN_ENTER : PLAIN_EXIT, rt->ev_s, rt->ev_s))
		return;
	if (x->type == WALK_ENTER) {
		prefix(r, rt, 0, false, x->start_ns, x->func, x->depth);
		call_part(r, x->func, rt->ev_s);
		put_lit(r, " {");
		srcline(r, x->func);
		put_lit(r, "\n");
		return;
	}
	prefix(r, rt, x->total_ns, true, x->end_ns, x->func, x->depth);
	put_lit(r, "}");
	ret_part(r, rt->ev_s, "");
	put_lit(r, " /* ");
	put_name(r, x->func);
	end_note(r, rt, x);
	put_lit(r, " */\n");
}

/* Reads the event after ev into nx, its detail made text while the walk
 * has it. */
static inline __attribute__((always_inline)) int fetch(struct replay *r, struct rthread *rt)
{
	struct walk_event *nx = rt->nx;
	int n = walk_next(rt->w, nx);

	rt->has_nx = n > 0;
	if (n > 0 && nx->regs) {
		shown_make(r, nx, rt->nx_s);
	} else {
		rt->nx_s->has = false;
		rt->nx_s->none = false;
	}
	nx->regs = NULL; /* the walk's (fregs, stack: read with regs only): gone at its next event */
	return n;
}

static inline __attribute__((always_inline)) int advance(struct replay *r, struct rthread *rt)
{
	struct walk_event *swap;
	struct shown *swap_s;
	int n;

	if (!rt->started) {
		rt->started = true;
		rt->ev = &rt->evs[0];
		rt->nx = &rt->evs[1];
		rt->ev_s = &rt->shown[0];
		rt->nx_s = &rt->shown[1];
		rt->leaf_s = &rt->shown[2];
		if ((n = fetch(r, rt)) < 0)
			return n;
	}
	rt->has_ev = rt->has_nx;
	if (!rt->has_ev)
		return 0;
	swap = rt->ev; /* nx is ev now; the next nx takes ev's old place */
	rt->ev = rt->nx;
	rt->nx = swap;
	swap_s = rt->ev_s;
	rt->ev_s = rt->nx_s;
	rt->nx_s = swap_s;
	return fetch(r, rt) < 0 ? -EIO : 1;
}

static uint64_t time_of(const struct walk_event *x)
{
	return x->type == WALK_ENTER ? x->start_ns : x->end_ns;
}

struct replay_progress {
	struct view_progress *pg;
	uint64_t done;         /* events of the threads before */
	struct rthread *ts;
	size_t n;
};

/* Every walk's callback: the events all of them read so far. */
static void progress(void *ctx, uint64_t read)
{
	struct replay_progress *rp = ctx;
	uint64_t sum = rp->done;

	(void)read;
	for (size_t i = 0; i < rp->n; i++)
		sum += walk_events_read(rp->ts[i].w);
	view_progress_update(rp->pg, sum);
}

/* Threads ts[0..n): each alone, or merged in time order (ties: lower index). */
static int replay_threads(struct replay *r, struct rthread *ts, size_t n,
			  struct view_progress *pg, uint64_t *done)
{
	struct replay_progress rp = { .pg = pg, .done = *done, .ts = ts, .n = n };
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		walk_on_progress(ts[i].w, progress, &rp);
	for (i = 0; i < n; i++)
		if ((err = advance(r, &ts[i])) < 0)
			return err;
	while (n == 1 && ts->has_ev) { /* one thread: no merge */
		print_event(r, ts, ts->ev);
		if ((err = advance(r, ts)) < 0)
			return err;
	}
	for (;;) {
		struct rthread *best = NULL;

		for (i = 0; i < n; i++)
			if (ts[i].has_ev && (!best || time_of(ts[i].ev) < time_of(best->ev)))
				best = &ts[i];
		if (!best)
			break;
		print_event(r, best, best->ev);
		if ((err = advance(r, best)) < 0)
			return err;
	}
	for (i = 0; i < n; i++) {
		flush_run(r, &ts[i]);
		*done += walk_events_read(ts[i].w);
	}
	return 0;
}

static void column_header(struct replay *r)
{
	outbuf_flush(&r->ob); /* the lines before it, in order */
	fputc('#', r->out);
	for (const int *f = r->fields; *f >= 0; f++)
		fprintf(r->out, " %s", field_heads[*f]);
	fputs(" | FUNCTION\n", r->out);
}

static int replay_process(struct replay *r, const char *dir, struct view_progress *pg, uint64_t *done)
{
	const struct view_filter *f = &r->a->filter;
	struct rthread *ts = NULL;
	size_t i, n = 0;
	int err = src_open(dir, &r->p);

	if (err)
		return err;
	if (!view_filter_wants_pid(f, r->p->pid))
		goto out;
	pg->total += f->min_ns || f->callers ? 2 * r->p->events : r->p->events; /* -t and -C read twice */
	free(r->names);
	if (!(r->names = malloc((r->p->nfuncs ? r->p->nfuncs : 1) * sizeof(*r->names)))) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->p->nfuncs; i++) {
		const struct src_func *fn = &r->p->funcs[i];

		r->names[i].s = r->a->full_names ? fn->full : fn->name;
		r->names[i].len = strlen(r->names[i].s);
	}
	r->nargs = r->p->arch == ADA_ARCH_ARM64 ? 8 : 6;
	if (!(ts = calloc(r->p->nthreads ? r->p->nthreads : 1, sizeof(*ts)))) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->p->nthreads; i++)
		if (view_filter_wants_thread(f, &r->p->threads[i]))
			ts[n++].t = &r->p->threads[i];
	if (r->a->merge) { /* every thread's walk at once, each decoded here */
		for (i = 0; i < n; i++)
			if (!(ts[i].w = walk_open(r->p, (size_t)(ts[i].t - r->p->threads), f))) {
				err = -EIO;
				goto out;
			}
		outbuf_flush(&r->ob);
		view_process_header(r->out, r->p, n);
		column_header(r);
		err = replay_threads(r, ts, n, pg, done);
	}
	if (!r->a->merge && n) {
		outbuf_flush(&r->ob);
		view_process_header(r->out, r->p, n);
	}
	for (i = 0; i < n && !r->a->merge && !err; i++) { /* one at a time: a core decodes */
		if (!(ts[i].w = walk_open_async(r->p, (size_t)(ts[i].t - r->p->threads), f))) {
			err = -EIO;
			break;
		}
		outbuf_flush(&r->ob);
		view_thread_header(r->out, r->p, ts[i].t);
		column_header(r);
		err = replay_threads(r, &ts[i], 1, pg, done);
		walk_add_counts(ts[i].w, &r->walks);
		walk_close(ts[i].w);
		ts[i].w = NULL;
	}
out:
	for (i = 0; i < n; i++) {
		if (ts[i].w)
			walk_add_counts(ts[i].w, &r->walks);
		walk_close(ts[i].w);
	}
	free(ts);
	src_close(r->p);
	return err;
}

bool view_replay_fields_valid(const struct view_args *a)
{
	struct replay r = { .a = a };

	return parse_fields(&r, a->fields);
}

int view_replay_main(const struct view_args *a, FILE *out)
{
	struct replay r = { .a = a, .out = out };
	struct view_progress pg;
	uint64_t done = 0;
	int err = outbuf_init(&r.ob, out), cerr;

	if (err)
		return err;
	parse_fields(&r, a->fields); /* checked by the command line */
	r.plain_lines = r.fields[0] == F_DURATION && r.fields[1] < 0 && !a->ns && !a->srcline;
	view_progress_init(&pg, 0);
	for (int i = 0; i < a->npaths && !err; i++) {
		struct ada_trace_pid *pids;
		size_t n, k, skipped;

		if ((err = ada_trace_find_pids(a->paths[i], &pids, &n)))
			break;
		for (k = 0, skipped = 0; k < n && !err; k++) {
			err = replay_process(&r, pids[k].dir, &pg, &done);
			/* A binary gone since the run: as view_run. */
			if (err == -ENOENT && ++skipped < n)
				err = 0;
		}
		ada_trace_free_pids(pids, n);
	}
	view_progress_end(&pg);
	cerr = outbuf_close(&r.ob, "the replay");
	free(r.names);
	if (!err && !cerr)
		view_say_folded(&a->filter, &r.walks);
	return err ? err : cerr;
}
