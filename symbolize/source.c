/* source.c - a process's events for the views, straight from the raw trace.
 *
 * The conversion's own pieces do the work: conv_load (process.meta, ring
 * recovery, clock, symbol tables), raw_stream (one thread file, frame by
 * frame), resolve_choice (which load an address belonged to at a tick). What
 * is added here is the views' function table: one dense id per (symbol
 * table, symbol) that the trace reaches, with the names views print.
 * Processes with ATF only are read by source_atf.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "source.h"
#include "sig.h"
#include "source_priv.h"

struct src_stream {
	struct src_cursor cursor;   /* first: src_next reads it (source.h) */
	struct conv_process *cp;
	const uint32_t *dense_of_choice; /* NULL: dense ids are not wanted */
	const struct raw_thread *rt;
	struct raw_stream *rs;
	struct clock_cursor clock;
	uint64_t last_ns;
	uint32_t *open_choice;    /* what each open frame's CALL named (cp->choices), by depth - 1 */
	uint32_t open_cap;
	bool closing;             /* the stream ended: closing the frames left open */
	uint64_t close_ns;
	uint64_t regs[8], fregs[8];
	bool filled_regs;           /* src_fill's batch so far has an event with registers */
	struct src_atf_stream *atf; /* when the process has ATF only */
	struct src_async *async;    /* decoded by a thread of its own */
	struct src_event cur;       /* src_next's event, decoded here */
	struct raw_event raw[64];   /* raw_stream_read's batch, [raw_pos, raw_n) still to convert */
	unsigned raw_pos, raw_n;
	struct raw_sample last_sample; /* the thread's totals at its previous sample */
	void (*progress)(void *ctx);   /* src_stream_on_progress's */
	void *progress_ctx;
};

static const char *const open_marks[] = {
	[CONV_EXITED] = "unwound",       /* pthread_exit, cancellation */
	[CONV_RUNNING] = "open at exit",
	[CONV_CRASHED] = "open at crash",
	[CONV_KILLED] = "open when killed",
	[CONV_EXEC] = "open at exec",
};

/* Dense ids for the functions the choices name: one per symbol of a table,
 * loads of one file sharing theirs. */
static int number_functions(struct src_process *p, struct src_raw *r)
{
	struct conv_process *cp = &r->cp;
	size_t nchoices = cp->fid_choices[cp->raw.nfids + 1], c, m;
	uint32_t **ids = calloc(cp->nmodules, sizeof(*ids));
	int err = -ENOMEM;

	r->dense_of_choice = malloc((nchoices ? nchoices : 1) * sizeof(uint32_t));
	r->funcs = calloc(nchoices ? nchoices : 1, sizeof(*r->funcs));
	if (!ids || !r->dense_of_choice || !r->funcs)
		goto out;
	for (c = 0; c < nchoices; c++) {
		uint64_t f = cp->choices[c].func;
		size_t mod = (size_t)(f >> 32) - 1, idx = (uint32_t)f - 1, owner = mod;
		struct conv_module *cm = &cp->modules[mod];
		const struct ada_func *af = &cm->st->funcs[idx];
		struct src_func *sf;
		char buf[1024];

		/* The table's ids live with the module that owns it. */
		while (!cp->modules[owner].owns_st || cp->modules[owner].st != cm->st)
			owner--;
		if (!ids[owner] && !(ids[owner] = calloc(cm->st->nfuncs, sizeof(uint32_t))))
			goto out;
		if (ids[owner][idx]) {
			r->dense_of_choice[c] = ids[owner][idx] - 1;
			continue;
		}
		sf = &r->funcs[r->nfuncs];
		sf->full = strdup(src_unversioned(af->demangled ? af->demangled : af->name, buf,
						  sizeof(buf)));
		sf->module = cm->raw ? src_basename(cm->raw->path) : "[unmapped]";
		sf->name = strdup(src_display_name(sf->full, sf->module, buf, sizeof(buf)));
		sf->file = af->file;
		sf->line = af->line;
		sf->sig = af->sig ? af->sig : sig_libc(sf->name, sf->module);
		if (!sf->full || !sf->name)
			goto out;
		ids[owner][idx] = (uint32_t)++r->nfuncs;
		r->dense_of_choice[c] = (uint32_t)(r->nfuncs - 1);
	}
	if (src_names_disambiguate(r->funcs, r->nfuncs) < 0)
		goto out;
	p->funcs = r->funcs;
	p->nfuncs = r->nfuncs;
	err = 0;
out:
	for (m = 0; ids && m < cp->nmodules; m++)
		free(ids[m]);
	free(ids);
	return err;
}

static bool has_file(const struct raw_process *rp, uint32_t id)
{
	char path[4300];

	snprintf(path, sizeof(path), "%s/thread_%u.lz4", rp->dir, id);
	return access(path, F_OK) == 0;
}

/* The threads that wrote a file: those have events to show. */
static int list_threads(struct src_process *p, struct src_raw *r)
{
	const struct raw_process *rp = &r->cp.raw;
	size_t i;

	r->threads = calloc(rp->nthreads ? rp->nthreads : 1, sizeof(*r->threads));
	r->raw_of = calloc(rp->nthreads ? rp->nthreads : 1, sizeof(*r->raw_of));
	if (!r->threads || !r->raw_of)
		return -ENOMEM;
	for (i = 0; i < rp->nthreads; i++) {
		const struct raw_thread *rt = &rp->threads[i];
		struct src_thread *t = &r->threads[p->nthreads];

		if (!rt->registered || !has_file(rp, rt->t.ordinal))
			continue;
		t->id = rt->t.ordinal;
		t->tid = rt->t.os_tid;
		memcpy(t->name, rt->t.name, sizeof(t->name));
		t->name[sizeof(t->name) - 1] = '\0';
		t->is_stack = rt->is_stack;
		if (rt->is_stack) {
			t->host = rt->stack.host;
			t->stack_lo = rt->stack.lo;
			t->stack_hi = rt->stack.hi;
		}
		t->events = rt->ended ? rt->end.events : 0;
		t->open_mark = open_marks[conv_thread_end(rp, rt)];
		p->events += t->events;
		r->raw_of[p->nthreads++] = rt;
	}
	p->threads = r->threads;
	return 0;
}

/* The time of the process's first event, as the manifest's time_start_ns:
 * the first event of each thread file is read. */
static uint64_t first_event_ns(struct src_raw *r)
{
	uint64_t first = UINT64_MAX;
	size_t i;

	for (i = 0; r->raw_of && i < r->cp.raw.nthreads && r->raw_of[i]; i++) {
		struct raw_stream *rs = raw_stream_open(r->cp.raw.dir, r->raw_of[i]->t.ordinal,
							r->cp.raw.nfids, r->cp.raw.version);
		struct raw_event ev;
		size_t seg = 0;

		if (rs && raw_stream_next(rs, &ev) > 0) {
			uint64_t ns = clock_map_ns(&r->cp.clock, ev.tsc, &seg);

			if (ns < first)
				first = ns;
		}
		if (rs)
			raw_stream_close(rs);
	}
	return first == UINT64_MAX ? r->cp.raw.proc.start_boottime_ns : first;
}

static int open_raw(const char *pid_dir, struct src_process *p, struct src_raw *r)
{
	int rerr = 0, err = conv_load(pid_dir, &r->cp, true, &rerr);

	if (err)
		return err;
	p->pid = r->cp.raw.proc.pid;
	p->exe = r->cp.raw.exe ? r->cp.raw.exe : "";
	p->cmdline = r->cp.raw.cmdline ? r->cp.raw.cmdline : "";
	p->arch = r->cp.raw.arch;
	if ((err = number_functions(p, r)) || (err = list_threads(p, r)))
		return err;
	p->t0_ns = first_event_ns(r);
	return 0;
}

int src_open(const char *pid_dir, struct src_process **out)
{
	struct src_process *p = calloc(1, sizeof(*p));
	struct src_raw *r = calloc(1, sizeof(*r));
	char path[4300];
	int err = -ENOMEM;

	*out = NULL;
	if (!p || !r)
		goto fail;
	p->priv = r;
	if (!(r->dir = strdup(pid_dir)))
		goto fail;
	p->dir = r->dir;
	/* ATF only where raw/ is gone and manifest.json is there. A view run
	 * as its program ends may come before the recorder made raw/ (the
	 * program makes the pid directory only): the raw trace's reader waits
	 * for the recorder (raw_meta.c's recorder_wait). */
	snprintf(path, sizeof(path), "%s/raw", pid_dir);
	if (access(path, F_OK) == 0)
		err = open_raw(pid_dir, p, r);
	else if (snprintf(path, sizeof(path), "%s/manifest.json", pid_dir), access(path, F_OK) == 0)
		err = src_atf_open(pid_dir, p, r);
	else
		err = open_raw(pid_dir, p, r);
	if (err)
		goto fail;
	*out = p;
	return 0;
fail:
	if (err == -ENOMEM)
		fprintf(stderr, "ada-symbolize: %s: out of memory\n", pid_dir);
	src_close(p);
	return err;
}

void src_close(struct src_process *p)
{
	struct src_raw *r;
	size_t i;

	if (!p)
		return;
	r = p->priv;
	if (r) {
		for (i = 0; i < r->nfuncs; i++) {
			free((char *)r->funcs[i].name);
			free((char *)r->funcs[i].full);
			free((char *)r->funcs[i].base);
			if (r->atf_only) /* taken from their tables (source_atf.c) */
				ada_sig_free((struct ada_sig *)r->funcs[i].sig);
		}
		free(r->funcs);
		free(r->dense_of_choice);
		free(r->threads);
		free(r->raw_of);
		src_atf_free(r);
		src_const_free(r->consts);
		conv_unload(&r->cp);
		free(r->dir);
		free(r);
	}
	free(p);
}

struct src_stream *src_raw_stream_open(struct conv_process *cp, const struct raw_thread *rt,
				       const uint32_t *dense_of_choice, bool checksums)
{
	struct src_stream *s = calloc(1, sizeof(*s));

	if (!s) {
		fprintf(stderr, "ada-symbolize: %s: out of memory\n", cp->raw.dir);
		return NULL;
	}
	s->cp = cp;
	s->dense_of_choice = dense_of_choice;
	s->rt = rt;
	s->rs = raw_stream_open(cp->raw.dir, rt->t.ordinal, cp->raw.nfids, cp->raw.version);
	if (s->rs && raw_stream_expect_windows(s->rs, &cp->raw, rt->t.ordinal)) {
		fprintf(stderr, "ada-symbolize: %s: out of memory\n", cp->raw.dir);
		raw_stream_close(s->rs);
		s->rs = NULL;
	}
	if (!s->rs) {
		free(s);
		return NULL;
	}
	if (!checksums)
		raw_stream_skip_checksums(s->rs);
	if (rt->recovered)
		raw_stream_allow_gap(s->rs, rt->rec.lost);
	return s;
}

struct raw_stream *src_stream_raw(const struct src_stream *s)
{
	return s->rs;
}

struct src_stream *src_stream_open(struct src_process *p, size_t i)
{
	struct src_raw *r = p->priv;
	struct src_stream *s;

	if (!r->atf_only) {
		s = src_raw_stream_open(&r->cp, r->raw_of[i], r->dense_of_choice, false);
		if (s && p->want_allocs)
			raw_stream_want_allocs(s->rs);
		if (s && p->want_samples)
			raw_stream_want_samples(s->rs);
		if (s && p->want_blocks)
			raw_stream_want_blocks(s->rs);
		return s;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		fprintf(stderr, "ada-symbolize: %s: out of memory\n", p->dir);
		return NULL;
	}
	if (!(s->atf = src_atf_stream_open(p, r, i))) {
		free(s);
		return NULL;
	}
	return s;
}

/* Grows the open-frame table to depth frames; false if out of memory. */
static bool room_for(struct src_stream *s, uint32_t depth)
{
	uint32_t cap;
	uint32_t *grown;

	if (depth <= s->open_cap)
		return true;
	cap = depth > 2 * s->open_cap ? depth : 2 * s->open_cap;
	if (!(grown = realloc(s->open_choice, cap * sizeof(*grown))))
		return false;
	s->open_choice = grown;
	s->open_cap = cap;
	return true;
}

/* Monotonic nanoseconds of tick tsc (rounding at clock segment ends may
 * step back a nanosecond: views never see it). */
static uint64_t ns_of(struct src_stream *s, uint64_t tsc)
{
	uint64_t ns = clock_map_ns_fast(&s->cp->clock, tsc, &s->clock);

	if (ns < s->last_ns)
		ns = s->last_ns;
	return s->last_ns = ns;
}

/* The thread's record ended: its frames still open close, innermost first,
 * when the conversion closes them (convert.c). */
static int next_closing(struct src_stream *s, struct src_event *ev)
{
	const struct raw_thread *rt = s->rt;
	const struct raw_process *rp = &s->cp->raw;
	uint32_t depth = raw_stream_open_frames(s->rs);

	if (!s->closing) {
		uint64_t tsc = raw_stream_last_tsc(s->rs);
		int err = raw_stream_verify(s->rs, rp, rt);

		if (err)
			return err;
		if (rp->crashed && rp->crash.ordinal == rt->t.ordinal && rp->crash.tsc > tsc)
			tsc = rp->crash.tsc;
		s->close_ns = ns_of(s, tsc);
		s->closing = true;
	}
	if (!depth)
		return 0;
	raw_stream_pop(s->rs);
	*ev = (struct src_event){ .ns = s->close_ns, .depth = depth, .kind = SRC_OPEN_AT_END,
				  .choice = s->open_choice[depth - 1] };
	ev->func = s->dense_of_choice ? s->dense_of_choice[ev->choice] : 0;
	return 1;
}

/* A block (RAW_EV_ALLOC), in the innermost open frame. */
static int alloc_event(struct src_stream *s, const struct raw_event *re, struct src_event *ev)
{
	*ev = (struct src_event){ .ns = ns_of(s, re->tsc), .depth = re->depth, .kind = SRC_ALLOC,
				  .alloc_ptr = re->alloc.ptr, .alloc_size = re->alloc.size,
				  .alloc_op = re->alloc.op, .alloc_freed = re->alloc.freed };
	if (re->depth) {
		ev->choice = s->open_choice[re->depth - 1];
		ev->func = s->dense_of_choice ? s->dense_of_choice[ev->choice] : 0;
	}
	return 1;
}

/* A counter sample (RAW_EV_SAMPLE), in the innermost open frame: what the
 * thread used since its previous one, and the function it was in, named
 * by the load that held its address then. */
static int sample_event(struct src_stream *s, const struct raw_event *re, struct src_event *ev)
{
	const struct raw_sample *now = &re->sample, *was = &s->last_sample;

	*ev = (struct src_event){ .ns = ns_of(s, re->tsc), .depth = re->depth, .kind = SRC_SAMPLE };
	ev->sample = (struct src_sample){
		.cpu_ns = now->cpu_ns > was->cpu_ns ? now->cpu_ns - was->cpu_ns : 0,
		.minflt = now->minflt > was->minflt ? now->minflt - was->minflt : 0,
		.majflt = now->majflt > was->majflt ? now->majflt - was->majflt : 0,
		/* 32-bit counts in the ring: their differences wrap */
		.vcsw = (uint32_t)(now->nvcsw - was->nvcsw),
		.ivcsw = (uint32_t)(now->nivcsw - was->nivcsw),
		.func = SRC_NO_FUNC,
	};
	s->last_sample = *now;
	if (now->ip_fid) {
		size_t c = resolve_choice(s->cp, now->ip_fid, re->tsc);

		ev->sample.func = s->dense_of_choice ? s->dense_of_choice[c] : (uint32_t)c;
	}
	if (re->depth) {
		ev->choice = s->open_choice[re->depth - 1];
		ev->func = s->dense_of_choice ? s->dense_of_choice[ev->choice] : 0;
	}
	return 1;
}

/* A wait or a release (RAW_EV_BLOCK), in the innermost open frame: the
 * frame of its call, where that was recorded and shown. */
static int block_event(struct src_stream *s, const struct raw_event *re, struct src_event *ev)
{
	/* A wait's start is before events the thread wrote while it waited
	 * (none, but for a signal handler's): converted without the clamp
	 * that keeps the thread's times in order, and clamped to its end. */
	uint64_t start = clock_map_ns_fast(&s->cp->clock, re->block.start_tsc, &s->clock);

	*ev = (struct src_event){ .ns = ns_of(s, re->tsc), .depth = re->depth, .kind = SRC_BLOCK };
	ev->block = (struct src_block){ .obj = re->block.obj, .op = re->block.op,
					.start_ns = start < ev->ns ? start : ev->ns };
	if (re->depth) {
		ev->choice = s->open_choice[re->depth - 1];
		ev->func = s->dense_of_choice ? s->dense_of_choice[ev->choice] : 0;
	}
	return 1;
}

/* src_next's slow path: the next batch of an async stream, or one event
 * decoded here. */
int src_next_refill(struct src_stream *s, const struct src_event **ev)
{
	uint64_t before = s->cursor.handed;
	const struct src_event *first;
	size_t n;
	int r;

	if (!s->async) {
		*ev = &s->cur;
		if ((r = src_next_sync(s, &s->cur)) <= 0)
			return r;
		n = 1;
	} else {
		if ((r = src_async_batch(s->async, &first, &n)) <= 0)
			return r;
		*ev = first;
		s->cursor.next = first + 1;
		s->cursor.end = first + n;
	}
	s->cursor.handed += n;
	if (s->progress && before >> 20 != s->cursor.handed >> 20)
		s->progress(s->progress_ctx);
	return 1;
}

void src_stream_on_progress(struct src_stream *s, void (*cb)(void *ctx), void *ctx)
{
	s->progress = cb;
	s->progress_ctx = ctx;
}

struct src_stream *src_stream_open_async(struct src_process *p, size_t i)
{
	struct src_stream *s = src_stream_open(p, i);

	if (s)
		s->async = src_async_start(s); /* NULL: decoded here after all */
	return s;
}

/* The next raw event as the views see it. */
_Static_assert((int)SRC_CALL == (int)ADA_RAW_CALL && (int)SRC_RETURN == (int)ADA_RAW_RETURN &&
	       (int)SRC_UNWIND == (int)ADA_RAW_EXCEPTION, "a raw event's kind is its source kind");

/* Raw event re as the views see it, into ev, its registers into regs and
 * fregs: 1, or -ENOMEM. Inlined into both loops below, with the stream's
 * fields read once into locals (the event's stores could alias them). */
static inline __attribute__((always_inline)) int convert(struct src_stream *s,
							  const struct raw_event *re,
							  struct src_event *ev, uint64_t *regs,
							  uint64_t *fregs)
{
	uint32_t choice;

	if (__builtin_expect(re->kind >= RAW_EV_ALLOC, 0))
		return re->kind == RAW_EV_ALLOC ? alloc_event(s, re, ev) :
		       re->kind == RAW_EV_SAMPLE ? sample_event(s, re, ev) : block_event(s, re, ev);
	if (!room_for(s, re->depth)) {
		fprintf(stderr, "ada-symbolize: %s: out of memory\n", s->cp->raw.dir);
		return -ENOMEM;
	}
	/* A RETURN names what its CALL named, whatever was loaded since. */
	if (re->kind == ADA_RAW_CALL)
		s->open_choice[re->depth - 1] = choice =
			(uint32_t)resolve_choice_inline(s->cp, re->fid, re->tsc);
	else
		choice = s->open_choice[re->depth - 1];
	ev->ns = ns_of(s, re->tsc);
	ev->choice = choice;
	ev->func = s->dense_of_choice ? s->dense_of_choice[choice] : 0;
	ev->depth = re->depth;
	ev->kind = re->kind;
	ev->regs = NULL;
	ev->fregs = NULL;
	ev->detail = re->detail;
	ev->stack = NULL;
	ev->stack_size = 0;
	ev->sp = 0;
	ev->no_value = false;
	if (re->detail) {
		memcpy(regs, re->detail->regs, sizeof(re->detail->regs)); /* packed: not aligned */
		ev->regs = regs;
		s->filled_regs = true;
		if (re->kind != ADA_RAW_CALL && s->cp->raw.arch == ADA_ARCH_X86_64 &&
		    regs[7] == ADA_RAW_RET_TAIL) {
			ev->no_value = true;
			regs[7] = 0;
		}
		memcpy(&ev->sp, &re->detail->sp, sizeof(ev->sp));
		memcpy(&ev->stack_size, &re->detail->stack_size, sizeof(ev->stack_size));
		ev->stack = re->stack;
	}
	if (re->fregs) {
		memcpy(fregs, re->fregs, 8 * sizeof(*fregs));
		ev->fregs = fregs;
	}
	return 1;
}


/* An ATF-only stream's next event, its registers copied into the caller's
 * place as a raw stream's are. */
static int atf_next(struct src_stream *s, struct src_event *ev, uint64_t *regs, uint64_t *fregs)
{
	int r = src_atf_next(s->atf, ev);

	if (r > 0 && ev->regs) {
		memcpy(regs, ev->regs, 8 * sizeof(*regs));
		ev->regs = regs;
		s->filled_regs = true;
	}
	if (r > 0 && ev->fregs) {
		memcpy(fregs, ev->fregs, 8 * sizeof(*fregs));
		ev->fregs = fregs;
	}
	return r;
}

/* The raw batch holds events to convert: 1, or 0 at the end, <0 error. */
static int refill(struct src_stream *s)
{
	int r;

	if (s->raw_pos < s->raw_n)
		return 1;
	if (s->closing || (r = raw_stream_read(s->rs, s->raw, sizeof(s->raw) / sizeof(s->raw[0]))) == 0)
		return 0;
	if (r < 0)
		return r;
	s->raw_pos = 0;
	s->raw_n = (unsigned)r;
	return 1;
}

int src_next_sync(struct src_stream *s, struct src_event *ev)
{
	int r;

	if (s->atf)
		return atf_next(s, ev, s->regs, s->fregs);
	if ((r = refill(s)) <= 0)
		return r ? r : next_closing(s, ev);
	return convert(s, &s->raw[s->raw_pos++], ev, s->regs, s->fregs);
}

int src_fill(struct src_stream *s, struct src_event *ev, uint64_t (*regs)[8], uint64_t (*fregs)[8],
	     size_t max, bool *with_regs)
{
	const struct raw_event *re;
	size_t n, i;
	int r;

	s->filled_regs = false;
	if (s->atf) {
		r = atf_next(s, ev, regs[0], fregs[0]);
		*with_regs = s->filled_regs;
		return r;
	}
	*with_regs = false;
	if ((r = refill(s)) <= 0)
		return r ? r : next_closing(s, ev);
	/* One raw batch at most: its events' stacks are in its frame. */
	n = s->raw_n - s->raw_pos;
	if (n > max)
		n = max;
	re = &s->raw[s->raw_pos];
	for (i = 0; i < n; i++)
		if ((r = convert(s, &re[i], &ev[i], regs[i], fregs[i])) < 0)
			break;
	s->raw_pos += (unsigned)i;
	*with_regs = s->filled_regs;
	return i ? (int)i : r; /* an error again at the next call */
}


void src_stream_close(struct src_stream *s)
{
	if (!s)
		return;
	src_async_stop(s->async);
	if (s->rs)
		raw_stream_close(s->rs);
	src_atf_stream_close(s->atf);
	free(s->open_choice);
	free(s);
}
