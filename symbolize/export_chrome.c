/* export_chrome.c - `ada-symbolize chrome`: the trace as Trace Event Format
 * JSON, which Perfetto's UI, chrome://tracing and speedscope open.
 *
 * The spec is Google's "Trace Event Format" document (JSON Object Format).
 * What is written, by its sections:
 *   - "JSON Object Format": {"traceEvents": [...], "displayTimeUnit": "ns",
 *     "otherData": {...}}; otherData says which clock ts counts from.
 *   - "Complete Events" (ph "X"): one per call shown by the filters, with
 *     name, cat, ts and dur in microseconds (three decimals: nanoseconds),
 *     pid and tid. cat is the function's module ("libc.so.6", "demo"), so a
 *     viewer can tell a library call from the program's own at a glance and
 *     select or colour by module.
 *   - "args", with --args only: the argument registers at the call
 *     ("rdi".."r9", "x0".."x7") and the return register at the return
 *     ("ret"), as hex strings, where the detail lane recorded them; "file":
 *     "path:line" where DWARF knew it; "module"; and "exit": "unwound" or
 *     the thread's open mark ("open at exit", ...) for a frame left
 *     without a return. Not by default: speedscope takes a name with its
 *     args as a function of its own (every call a row of its own there),
 *     and the default reads the same in speedscope and Perfetto; cat
 *     names the module either way, and `perfetto` carries the registers.
 *   - "Metadata Events" (ph "M"): process_name, the program and its
 *     arguments ("demo -v 'two words'", export_process_name; the viewers
 *     add the pid), and thread_name (the pthread name, or "thread N" after
 *     ada's ordinal).
 *   - "Counter Events" (ph "C"): a thread's CPU time and page faults so
 *     far at each of its counter samples (ADA_COUNTERS; "CPU time (tid
 *     T)" {"ns"}, "page faults (tid T)" {"faults"}: counters are the
 *     process's, so the name says the thread), and the process's bytes
 *     allocated and not freed at each block (ADA_ALLOC; "live bytes"
 *     {"bytes"}, written at the process's end: lanes.h).
 *   - "Instant Events" (ph "i", "s":"t"): a counter sample that
 *     interrupted code without a frame of its own (a library ada did not
 *     hook, a static function inside one), inside a shown frame: named
 *     "<function> [sampled]", cat "sampled", at the sample's time on the
 *     thread's track (flame's [sampled] frames): an instant, not a slice,
 *     so that no viewer takes it for a call or its time for a duration.
 *   - "Flow Events" (ph "s", "f" with "bp":"e"): a wait linked to the
 *     release that ended it (ADA_BLOCKING, lanes.h), "s" at the release's
 *     time on the releasing thread, inside its unlock's slice, "f" at the
 *     wait's end on the waiting thread, inside its lock's slice; each
 *     binds to the slice around it.
 * A coroutine stack's frames (src_thread.is_stack) get a track of their
 * own: tid EXPORT_STACK_TID + the stack's ordinal (above every Linux tid), named
 * "stack 0xLO-0xHI of thread H".
 *
 * Order: an X event is written when its frame closes, so children come
 * before their parent. Viewers sort by ts, and resolve equal ts by file
 * order (catapult, speedscope, Perfetto all do): a child that started in
 * the same nanosecond as its parent must come after it. Such a child is
 * held back until its parent is written, then written in call order.
 *
 * Speed: names and file:line are escaped once per function (json_str),
 * the event prefix once per thread, numbers by outbuf.h's formatters.
 *
 * Size: the viewers that read JSON hold the file as one JavaScript string
 * (speedscope, chrome://tracing: V8's limit, 512 MB in the Chromium builds
 * these machines have and about 1 GB in newer ones, and slow well before)
 * or parse it into a WASM heap (the Perfetto UI: a few GB at most, with
 * 2 GB of JSON already a wait of minutes). So before the first event, an
 * unfiltered export estimates its size from the trace's event counts
 * (about CALL_BYTES a call, CALL_BYTES_ARGS with --args) and above
 * VIEWER_MAX says so, what to do instead, and writes nothing (exit 1);
 * --large writes it anyway. A filtered export is what was asked for.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "json.h"
#include "lanes.h"
#include "outbuf.h"
#include "raw_format.h"
#include "sig.h"
#include "view_cli.h"
#include "walk.h"

#define CALL_BYTES 100
#define CALL_BYTES_ARGS 250
#define VIEWER_MAX (512ull << 20)

/* A bound on the frames held back for a parent that started in the same
 * nanosecond; past it they are written as they close (only a clock that
 * stands still for thousands of calls gets there). */
#define HELD_MAX 65536
/* The longest X event without its names: the prefix, ts and dur, eight
 * registers, eight FP registers, ret, ret_xmm0 and exit keys with their
 * values. */
#define EVENT_FIXED 1024

struct chrome_fn {          /* a function's JSON, escaped on first use */
	char *head;         /* "name":"..","cat":"..","args":{ */
	char *tail;         /* "file":"..","module":".."}}: right after head, in head's
			     * buffer, so a slice with nothing between them copies both
			     * at once */
	size_t head_len, tail_len;
};

struct chrome_frame {       /* an open frame, or a closed one held back */
	uint64_t seq;       /* call order */
	uint64_t start, end;
	char *args;         /* --args: its detail records' "args" entries (detail_json), or NULL */
	char *ret;
	uint32_t func;
	uint32_t held_mark; /* open: held frames before it was called */
	uint8_t how;
};

struct chrome {
	struct outbuf out;
	const struct view_args *a;
	bool started;                /* the document's head written */
	uint64_t calls;              /* the trace's calls so far, for the size */
	bool first;                  /* no traceEvents element written yet */
	bool have_origin;
	uint64_t origin;             /* CLOCK_BOOTTIME of ts 0 */
	int64_t offset;              /* this process's t0 - origin */
	uint32_t pid;
	unsigned nregs;
	const struct key *reg_keys;
	struct src_process *proc;    /* the process's: its signatures and read-only data */
	const struct key *freg_keys, *fret_key;
	const struct src_func *funcs;
	struct chrome_fn *fns;            /* per dense id, built on first use */
	size_t nfns;
	const char *open_mark;
	char prefix[64];             /* {"ph":"X","pid":P,"tid":T,"ts": (at most 49) */
	size_t prefix_len;
	uint64_t ts_us;              /* the last slice's ts, whole microseconds, */
	char ts_text[24];            /* as text (ts_len 0: none yet) */
	size_t ts_len;
	struct chrome_frame *stack;
	size_t stack_cap;
	struct chrome_frame *held;
	size_t nheld, held_cap;
	uint64_t seq;
	uint64_t processes, threads, slices;
	uint32_t tid;                /* the thread's, as its events say */
	uint64_t cpu_ns, faults;     /* its counter samples' sums so far */
	struct lane_blocks blocks;   /* the process's blocks */
	struct lane_waits waits;     /* its waits and releases */
	uint64_t flows;              /* flow ids given so far */
};

struct key {                /* "rdi":" */
	const char *s;
	size_t n;
};
#define KEY(name) { "\"" name "\":\"", sizeof(name) + 3 }

static const struct key x86_keys[] = { KEY("rdi"), KEY("rsi"), KEY("rdx"),
				       KEY("rcx"), KEY("r8"),  KEY("r9") };
static const struct key arm_keys[] = { KEY("x0"), KEY("x1"), KEY("x2"), KEY("x3"),
				       KEY("x4"), KEY("x5"), KEY("x6"), KEY("x7") };
static const struct key ret_key = KEY("ret");
/* The FP registers, where the trace has them: x86_64's xmm0..7 (their low
 * 64 bits), arm64's d0..7; the return value's first. */
static const struct key x86_fkeys[] = { KEY("xmm0"), KEY("xmm1"), KEY("xmm2"), KEY("xmm3"),
					KEY("xmm4"), KEY("xmm5"), KEY("xmm6"), KEY("xmm7") };
static const struct key arm_fkeys[] = { KEY("d0"), KEY("d1"), KEY("d2"), KEY("d3"),
					KEY("d4"), KEY("d5"), KEY("d6"), KEY("d7") };
static const struct key x86_fret_key = KEY("ret_xmm0"), arm_fret_key = KEY("ret_d0");

/* ---- JSON text built once ---------------------------------------------------- */

/* fmt with each %J replaced by the next of strs as a JSON string (json_str:
 * quoted and escaped), in a malloc'd buffer; NULL if out of memory. */
static char *json_text(size_t *len, const char *fmt, const char *const *strs, size_t nstrs)
{
	char *buf = NULL;
	size_t n = 0, k = 0;
	FILE *m = open_memstream(&buf, &n);

	if (!m)
		return NULL;
	for (const char *f = fmt; *f; f++) {
		if (f[0] == '%' && f[1] == 'J' && k < nstrs) {
			json_str(m, strs[k++]);
			f++;
		} else {
			putc(*f, m);
		}
	}
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static int fn_build(struct chrome *c, const struct src_func *f, struct chrome_fn *cf)
{
	const char *name = c->a->full_names ? f->full : f->name;
	const char *head[] = { name, f->module };
	char where[4200];

	if (!c->a->args) { /* no args object: see "args" at the top */
		cf->head = json_text(&cf->head_len, "\"name\":%J,\"cat\":%J", head, 2);
		cf->tail = json_text(&cf->tail_len, "}", NULL, 0);
	} else if (f->file) {
		cf->head = json_text(&cf->head_len, "\"name\":%J,\"cat\":%J,\"args\":{", head, 2);
		snprintf(where, sizeof(where), "%s:%u", f->file, f->line);
		const char *tail[] = { where, f->module };
		cf->tail = json_text(&cf->tail_len, "\"file\":%J,\"module\":%J}}", tail, 2);
	} else {
		cf->head = json_text(&cf->head_len, "\"name\":%J,\"cat\":%J,\"args\":{", head, 2);
		cf->tail = json_text(&cf->tail_len, "\"module\":%J}}", &f->module, 1);
	}
	if (cf->head && cf->tail) {
		/* padded for write_slice's fmt_padded */
		char *both = calloc(1, cf->head_len + cf->tail_len + 1 + FMT_PADDED);

		if (both) {
			memcpy(both, cf->head, cf->head_len);
			memcpy(both + cf->head_len, cf->tail, cf->tail_len + 1);
		}
		free(cf->head);
		free(cf->tail);
		cf->head = both;
		cf->tail = both ? both + cf->head_len : NULL;
	}
	if (!cf->head || !cf->tail) {
		fprintf(stderr, "ada-symbolize: out of memory for the name of %s\n", name);
		free(cf->head);
		free(cf->tail);
		cf->head = cf->tail = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void element_begin(struct chrome *c, char **p)
{
	if (!c->first)
		*(*p)++ = ',';
	*(*p)++ = '\n';
	c->first = false;
}

/* A metadata event (ph "M"): `what` ("process_name", "thread_name") names
 * the process or the thread tid. */
static void put_name_event(struct chrome *c, const char *what, uint32_t tid, const char *name)
{
	char fmt[160];
	size_t len;
	char *text, *p;

	snprintf(fmt, sizeof(fmt), "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
		 "\"args\":{\"name\":%%J}}", what, c->pid, tid);
	text = json_text(&len, fmt, &name, 1);
	if (!text) {
		c->out.err = c->out.err ? c->out.err : -ENOMEM;
		return;
	}
	p = outbuf_reserve(&c->out, 2 + len);
	element_begin(c, &p);
	outbuf_commit(&c->out, fmt_mem(p, text, len));
	free(text);
}

/* ---- events ------------------------------------------------------------------- */

static char *put_time(char *p, int64_t ns)
{
	if (ns < 0) {
		*p++ = '-';
		return fmt_us(p, (uint64_t)-ns);
	}
	return fmt_us(p, (uint64_t)ns);
}

/* A slice's ts: its whole microseconds are the last slice's more often
 * than not (a slice a few tens of ns long), their text then copied, not
 * worked out again. */
static char *put_slice_time(struct chrome *c, char *p, int64_t ns)
{
	uint64_t us;

	if (ns < 0)
		return put_time(p, ns);
	us = (uint64_t)ns / 1000;
	if (us != c->ts_us || !c->ts_len) {
		c->ts_len = (size_t)(fmt_u64(c->ts_text, us) - c->ts_text);
		c->ts_us = us;
	}
	p = fmt_str(p, c->ts_text, c->ts_len);
	return fmt_thousandths(p, (unsigned)((uint64_t)ns - us * 1000));
}

static char *put_reg(char *p, const struct key *key, uint64_t v)
{
	p = fmt_mem(p, key->s, key->n);
	p = fmt_hex(p, v);
	return fmt_lit(p, "\",");
}

/* One "key":"value", entry of a detail record's, value as sig_format made it. */
static void typed_entry(FILE *m, const char *key, const char *value)
{
	json_str(m, key);
	putc(':', m);
	json_str(m, value);
	putc(',', m);
}

/* ev's detail record as "args" entries, each followed by a comma: at a call
 * the parameters by name and type where DWARF gave the function's (sig.h),
 * else the argument registers; at a return "ret", by the return type or
 * rax. malloc'd; NULL for none or if out of memory (then c->out.err). */
static char *detail_json(struct chrome *c, const struct walk_event *ev)
{
	const struct ada_sig *sig = walk_sig(c->proc, ev->func);
	struct sig_frame fr = walk_sig_frame(ev, c->proc);
	char *buf = NULL, text[480], *p;
	size_t n = 0;
	FILE *m;

	if (!sig) { /* the registers, the FP ones where the trace has them */
		p = buf = malloc((c->nregs + 8) * 32 + 1);
		if (!p) {
			c->out.err = -ENOMEM;
			return NULL;
		}
		for (unsigned i = 0; ev->type == WALK_ENTER && i < c->nregs; i++)
			p = put_reg(p, &c->reg_keys[i], ev->regs[i]);
		for (unsigned i = 0; ev->type == WALK_ENTER && ev->fregs && i < 8; i++)
			p = put_reg(p, &c->freg_keys[i], ev->fregs[i]);
		if (ev->type != WALK_ENTER)
			p = put_reg(p, &ret_key, ev->regs[0]);
		if (ev->type != WALK_ENTER && ev->fregs)
			p = put_reg(p, c->fret_key, ev->fregs[0]);
		*p = '\0';
		return buf;
	}
	if (ev->type != WALK_ENTER && sig->ret.kind == SIG_VOID)
		return NULL;
	if (!(m = open_memstream(&buf, &n))) {
		c->out.err = -ENOMEM;
		return NULL;
	}
	if (ev->type != WALK_ENTER) {
		sig_format_ret(sig, &fr, text, sizeof(text));
		typed_entry(m, "ret", text);
	}
	for (uint32_t i = 0; ev->type == WALK_ENTER && i < sig->nparams; i++) {
		char key[16];

		sig_format_param(sig, i, &fr, text, sizeof(text));
		if (!sig->params[i].name)
			snprintf(key, sizeof(key), "arg%u", i + 1);
		typed_entry(m, sig->params[i].name ? sig->params[i].name : key, text);
	}
	if (fclose(m) != 0) {
		free(buf);
		c->out.err = -ENOMEM;
		return NULL;
	}
	return buf;
}

static int write_slice(struct chrome *c, struct chrome_frame *fr)
{
	struct chrome_fn *cf = &c->fns[fr->func];
	bool plain;
	char *p;

	if (!cf->head) {
		int err = fn_build(c, &c->funcs[fr->func], cf);

		if (err)
			return err;
	}
	/* Nothing between the head and the tail (no values, returned): the
	 * common slice, its name to its end in one copy. */
	plain = !fr->args && !fr->ret && (fr->how == SRC_RETURN || !c->a->args);
	p = outbuf_reserve(&c->out, EVENT_FIXED + cf->head_len + cf->tail_len +
				    (plain ? 0 : (fr->args ? strlen(fr->args) : 0) +
						 (fr->ret ? strlen(fr->ret) : 0)));
	element_begin(c, &p);
	p = fmt_padded(p, c->prefix, c->prefix_len, sizeof(c->prefix));
	p = put_slice_time(c, p, c->offset + (int64_t)fr->start);
	p = fmt_lit(p, ",\"dur\":");
	p = fmt_us(p, fr->end - fr->start);
	*p++ = ',';
	if (plain) {
		size_t n = cf->head_len + cf->tail_len;

		p = n <= FMT_PADDED ? fmt_padded(p, cf->head, n, FMT_PADDED) : fmt_str(p, cf->head, n);
		outbuf_commit(&c->out, p);
		c->slices++;
		return 0;
	}
	p = fmt_str(p, cf->head, cf->head_len);
	if (fr->args)
		p = fmt_mem(p, fr->args, strlen(fr->args));
	if (fr->ret)
		p = fmt_mem(p, fr->ret, strlen(fr->ret));
	free(fr->args);
	free(fr->ret);
	fr->args = fr->ret = NULL;
	if (fr->how != SRC_RETURN && c->a->args) {
		const char *mark = fr->how == SRC_UNWIND ? "unwound" : c->open_mark;

		p = fmt_lit(p, "\"exit\":\"");
		p = fmt_mem(p, mark, strlen(mark));
		p = fmt_lit(p, "\",");
	}
	p = fmt_str(p, cf->tail, cf->tail_len);
	outbuf_commit(&c->out, p);
	c->slices++;
	return 0;
}

static int by_seq(const void *a, const void *b)
{
	const struct chrome_frame *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Writes the held frames from index mark on, in call order. */
static int write_held(struct chrome *c, size_t mark)
{
	int err = 0;

	if (mark >= c->nheld)
		return 0;
	qsort(c->held + mark, c->nheld - mark, sizeof(*c->held), by_seq);
	for (size_t i = mark; i < c->nheld && !err; i++)
		err = write_slice(c, &c->held[i]);
	c->nheld = mark;
	return err;
}

static int hold(struct chrome *c, const struct chrome_frame *fr)
{
	if (c->nheld == HELD_MAX) {
		int err = write_held(c, 0);

		if (err)
			return err;
	}
	if (c->nheld == c->held_cap) {
		size_t cap = c->held_cap ? 2 * c->held_cap : 64;
		void *held = realloc(c->held, cap * sizeof(*c->held));

		if (!held)
			return -ENOMEM;
		c->held = held;
		c->held_cap = cap;
	}
	c->held[c->nheld++] = *fr;
	return 0;
}

/* ---- counters (ADA_COUNTERS, ADA_ALLOC) ------------------------------------------- */

/* An event's common start, {"name":"<name>",<ph>,"pid":P,"tid":T,"ts":X, where
 * ph is its "ph" member and what comes with it; 256 bytes reserved. */
static char *lane_head(struct chrome *c, const char *name, const char *ph, uint64_t tid,
		       uint64_t ns)
{
	char *p = outbuf_reserve(&c->out, 256);

	element_begin(c, &p);
	p = fmt_lit(p, "{\"name\":\"");
	p = fmt_mem(p, name, strlen(name));
	p = fmt_lit(p, "\",");
	p = fmt_mem(p, ph, strlen(ph));
	p = fmt_lit(p, ",\"pid\":");
	p = fmt_u64(p, c->pid);
	p = fmt_lit(p, ",\"tid\":");
	p = fmt_u64(p, tid);
	p = fmt_lit(p, ",\"ts\":");
	return put_time(p, c->offset + (int64_t)ns);
}

/* {"name":"<name>","ph":"C","pid":P,"tid":T,"ts":X,"args":{"<key>":v}} */
static void counter(struct chrome *c, const char *name, uint64_t ns, const char *key, int64_t v)
{
	char *p = lane_head(c, name, "\"ph\":\"C\"", c->tid, ns);

	p = fmt_lit(p, ",\"args\":{\"");
	p = fmt_mem(p, key, strlen(key));
	p = fmt_lit(p, "\":");
	if (v < 0)
		*p++ = '-';
	p = fmt_u64(p, v < 0 ? (uint64_t)-v : (uint64_t)v);
	p = fmt_lit(p, "}}");
	outbuf_commit(&c->out, p);
}

/* {"name":"<function> [sampled]","ph":"i","s":"t","pid":P,"tid":T,"ts":X,
 * "cat":"sampled"} (see the top). Samples are a few hundred a second: the
 * name is escaped each time. */
static void sampled_instant(struct chrome *c, const struct walk_event *ev)
{
	const struct src_func *f = &c->funcs[ev->sample.func];
	const char *fn = c->a->full_names ? f->full : f->name;
	size_t n = strlen(fn) + sizeof(" [sampled]"), len;
	char *name = malloc(n), *text = NULL, *p;

	if (name) {
		snprintf(name, n, "%s [sampled]", fn);
		text = json_text(&len, "{\"name\":%J,\"ph\":\"i\",\"s\":\"t\",\"pid\":",
				 (const char *const *)&name, 1);
	}
	if (!text) {
		c->out.err = c->out.err ? c->out.err : -ENOMEM;
		free(name);
		return;
	}
	p = outbuf_reserve(&c->out, len + 128);
	element_begin(c, &p);
	p = fmt_mem(p, text, len);
	p = fmt_u64(p, c->pid);
	p = fmt_lit(p, ",\"tid\":");
	p = fmt_u64(p, c->tid);
	p = fmt_lit(p, ",\"ts\":");
	p = put_time(p, c->offset + (int64_t)ev->start_ns);
	p = fmt_lit(p, ",\"cat\":\"sampled\"}");
	outbuf_commit(&c->out, p);
	free(text);
	free(name);
}

static int lane_event(struct chrome *c, const struct walk_event *ev)
{
	char name[64];

	if (ev->type == WALK_ALLOC)
		return lane_blocks_add(&c->blocks, ev, 0);
	if (ev->type == WALK_BLOCK)
		return lane_waits_add(&c->waits, ev, c->tid);
	c->cpu_ns += ev->sample.cpu_ns;
	c->faults += ev->sample.minflt + ev->sample.majflt;
	snprintf(name, sizeof(name), "CPU time (tid %u)", c->tid);
	counter(c, name, ev->start_ns, "ns", (int64_t)c->cpu_ns);
	snprintf(name, sizeof(name), "page faults (tid %u)", c->tid);
	counter(c, name, ev->start_ns, "faults", (int64_t)c->faults);
	if (walk_sampled_func(ev) != SRC_NO_FUNC)
		sampled_instant(c, ev);
	return c->out.err;
}

/* {"name":"wake",<ph>,"pid":P,"tid":T,"ts":X,"cat":"blocking","id":N} */
static void flow_event(struct chrome *c, const char *ph, uint64_t tid, uint64_t ns)
{
	char *p = lane_head(c, "wake", ph, tid, ns);

	p = fmt_lit(p, ",\"cat\":\"blocking\",\"id\":");
	p = fmt_u64(p, c->flows);
	*p++ = '}';
	outbuf_commit(&c->out, p);
}

static int flow(void *ctx, const struct lane_wait *waiter, const struct lane_wait *waker)
{
	struct chrome *c = ctx;

	c->flows++;
	flow_event(c, "\"ph\":\"s\"", waker->tag, waker->start);
	flow_event(c, "\"ph\":\"f\",\"bp\":\"e\"", waiter->tag, waiter->end);
	return c->out.err;
}

/* The live bytes, in time order over the process's threads (lanes.h). */
static void live_bytes(struct chrome *c)
{
	int64_t live = 0;

	lane_blocks_live(&c->blocks);
	for (size_t i = 0; i < c->blocks.n; i++) {
		const struct lane_block *b = &c->blocks.ev[i];

		live += b->freed ? -(int64_t)b->size : (int64_t)b->size;
		counter(c, "live bytes", b->ns, "bytes", live);
	}
}

static void frame_open(struct chrome *c, struct chrome_frame *fr, const struct walk_event *ev)
{
	fr->seq = c->seq++;
	fr->start = ev->start_ns;
	fr->func = ev->func;
	fr->held_mark = (uint32_t)c->nheld;
	fr->ret = NULL;
}

/* Everything but on_event's common call. */
static __attribute__((noinline)) int any_event(struct chrome *c, const struct walk_event *ev)
{
	struct chrome_frame *fr;
	bool regs = ev->regs && c->a->args;
	int err;

	lane_blocks_settle(&c->blocks, ev);
	if (__builtin_expect(ev->type > WALK_EXIT, 0))
		return lane_event(c, ev);
	if (ev->depth > c->stack_cap) {
		size_t cap = 2 * (size_t)ev->depth;
		void *stack = realloc(c->stack, cap * sizeof(*c->stack));

		if (!stack)
			return -ENOMEM;
		c->stack = stack;
		c->stack_cap = cap;
	}
	fr = &c->stack[ev->depth - 1];
	if (ev->type == WALK_ENTER) {
		frame_open(c, fr, ev);
		fr->args = regs ? detail_json(c, ev) : NULL;
		return c->out.err;
	}
	fr->end = ev->end_ns;
	fr->how = ev->how;
	if (regs && ev->how == SRC_RETURN && !ev->no_value)
		fr->ret = detail_json(c, ev);
	if (ev->depth > 1 && c->stack[ev->depth - 2].start == fr->start)
		return hold(c, fr);
	err = write_slice(c, fr);
	if (err || fr->held_mark >= c->nheld) /* (nothing held: no call) */
		return err;
	return write_held(c, fr->held_mark);
}

/* Half the events are calls that only open a frame (no registers to
 * write, no block waiting for a time, the stack deep enough): done here
 * without any_event's prologue, which saves the registers its slices and
 * lanes need. */
static int on_event(void *ctx, struct walk *w, const struct walk_event *ev)
{
	struct chrome *c = ctx;

	(void)w;
	if (ev->type == WALK_ENTER && !c->blocks.pending && ev->depth <= c->stack_cap &&
	    !(ev->regs && c->a->args)) {
		struct chrome_frame *fr = &c->stack[ev->depth - 1];

		frame_open(c, fr, ev);
		fr->args = NULL;
		return c->out.err;
	}
	return any_event(c, ev);
}

/* ---- processes and threads ------------------------------------------------------ */

/* Whether the export stays within what the viewers load (see "Size" at
 * the top); if not, one line on what to do. */
static bool fits(struct chrome *c, const struct src_process *p)
{
	uint64_t bytes;

	if (c->a->large || view_filter_any(&c->a->filter))
		return true;
	c->calls += p->events / 2;
	bytes = c->calls * (c->a->args ? CALL_BYTES_ARGS : CALL_BYTES);
	if (bytes <= VIEWER_MAX)
		return true;
	fprintf(stderr, "ada-symbolize chrome: about %.1f GB of JSON for %.1f M calls, more than "
		"speedscope and chrome://tracing load (512 MB): narrow it (-t 10us: the calls of 10 us "
		"or more; -r 1s~2s: a time range; --thread N), write Perfetto's own format "
		"(ada-symbolize perfetto -o trace.pftrace), or --large to write it anyway; nothing "
		"written\n", (double)bytes / 1e9, (double)c->calls / 1e6);
	return false;
}

static void start(struct chrome *c)
{
	if (!c->started)
		outbuf_write(&c->out, "{\"traceEvents\":[", 16);
	c->started = true;
}

static int on_process_begin(void *ctx, struct src_process *p)
{
	struct chrome *c = ctx;
	char name[EXPORT_NAME_MAX];

	if (!fits(c, p))
		return -EFBIG;
	start(c);

	if (!c->have_origin) {
		c->origin = p->t0_ns;
		c->have_origin = true;
	}
	c->offset = (int64_t)(p->t0_ns - c->origin);
	c->pid = p->pid;
	c->funcs = p->funcs;
	c->nfns = p->nfuncs;
	c->fns = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*c->fns));
	if (!c->fns)
		return -ENOMEM;
	c->nregs = p->arch == ADA_ARCH_ARM64 ? 8 : 6;
	c->reg_keys = p->arch == ADA_ARCH_ARM64 ? arm_keys : x86_keys;
	c->proc = p;
	p->want_allocs = p->want_samples = p->want_blocks = true;
	lane_blocks_reset(&c->blocks);
	c->waits.n = 0;
	c->freg_keys = p->arch == ADA_ARCH_ARM64 ? arm_fkeys : x86_fkeys;
	c->fret_key = p->arch == ADA_ARCH_ARM64 ? &arm_fret_key : &x86_fret_key;
	put_name_event(c, "process_name", p->pid, export_process_name(name, p));
	c->processes++;
	return c->out.err;
}

static int on_process_end(void *ctx, struct src_process *p)
{
	struct chrome *c = ctx;

	(void)p;
	c->tid = 0;
	live_bytes(c);
	if (c->waits.n && lane_waits_link(&c->waits, flow, c))
		c->out.err = c->out.err ? c->out.err : -ENOMEM;
	c->waits.n = 0;
	for (size_t i = 0; i < c->nfns; i++) {
		free(c->fns[i].head); /* the tail with it */
	}
	free(c->fns);
	c->fns = NULL;
	c->nfns = 0;
	return c->out.err;
}

static int on_thread_begin(void *ctx, struct src_process *p, const struct src_thread *t)
{
	struct chrome *c = ctx;
	uint32_t tid = t->is_stack ? EXPORT_STACK_TID + t->id : t->tid;
	char name[128];
	char *q = c->prefix;

	(void)p;
	q = fmt_lit(q, "{\"ph\":\"X\",\"pid\":");
	q = fmt_u64(q, c->pid);
	q = fmt_lit(q, ",\"tid\":");
	q = fmt_u64(q, tid);
	q = fmt_lit(q, ",\"ts\":");
	c->prefix_len = (size_t)(q - c->prefix);
	c->open_mark = t->open_mark ? t->open_mark : "open at end";
	c->nheld = 0;
	c->tid = tid;
	c->cpu_ns = c->faults = 0;
	put_name_event(c, "thread_name", tid, export_track_name(name, sizeof(name), t));
	c->threads++;
	return c->out.err;
}

static int on_thread_end(void *ctx, struct src_process *p, const struct src_thread *t)
{
	struct chrome *c = ctx;
	int err = write_held(c, 0);

	(void)p;
	(void)t;
	lane_blocks_thread_end(&c->blocks);
	return err ? err : c->out.err;
}

int view_chrome_main(const struct view_args *a, FILE *out)
{
	struct chrome c = { .a = a, .first = true };
	struct view_ops ops = {
		.ctx = &c,
		.process_begin = on_process_begin,
		.thread_begin = on_thread_begin,
		.event = on_event,
		.thread_end = on_thread_end,
		.process_end = on_process_end,
	};
	int err = outbuf_init(&c.out, out);
	char *p;

	if (err)
		return err;
	for (int i = 0; i < a->npaths && !err; i++)
		err = view_run(a->paths[i], &a->filter, &ops);
	if (err == -EFBIG && !c.started) {
		outbuf_close(&c.out, a->output ? a->output : "standard output");
		return err;
	}
	start(&c);
	p = outbuf_reserve(&c.out, 512);
	p = fmt_lit(p, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{");
	p = fmt_lit(p, "\"generator\":\"ada-symbolize chrome\",\"clock\":\"CLOCK_BOOTTIME\",");
	p = fmt_lit(p, "\"ts_origin_ns\":");
	p = fmt_u64(p, c.origin);
	p = fmt_lit(p, ",\"processes\":");
	p = fmt_u64(p, c.processes);
	p = fmt_lit(p, ",\"threads\":");
	p = fmt_u64(p, c.threads);
	p = fmt_lit(p, ",\"slices\":");
	p = fmt_u64(p, c.slices);
	p = fmt_lit(p, "}}\n");
	outbuf_commit(&c.out, p);
	free(c.stack);
	free(c.held);
	lane_blocks_reset(&c.blocks); /* a process cut short by an error: no counters after the end */
	c.waits.n = 0;
	if (c.fns)
		on_process_end(&c, NULL);
	lane_blocks_free(&c.blocks);
	lane_waits_free(&c.waits);
	int werr = outbuf_close(&c.out, a->output ? a->output : "standard output");
	return err ? err : werr;
}
