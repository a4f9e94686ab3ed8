/* export_perfetto.c - `ada-symbolize perfetto -o FILE`: the trace in
 * Perfetto's own protobuf format (a perfetto.protos.Trace), for traces too
 * large for JSON: names are interned, a slice costs ~30 bytes without
 * registers, and Perfetto's UI and trace processor load it natively.
 *
 * Every field written, by message (google/perfetto, protos/perfetto/trace/;
 * "Track events" in Perfetto's docs for how they fit together):
 *
 *   Trace (trace.proto)
 *     1   packet                      repeated TracePacket
 *   TracePacket (trace_packet.proto)
 *     6   clock_snapshot              ClockSnapshot
 *     8   timestamp                   uint64   ns since the sequence's previous
 *                                              packet (the incremental clock)
 *     10  trusted_packet_sequence_id  uint32   one sequence per thread track: a
 *                                              packet that starts it (state,
 *                                              defaults, clock), one that
 *                                              describes the track, the events
 *     11  track_event                 TrackEvent
 *     12  interned_data               InternedData
 *     13  sequence_flags              uint32   1 SEQ_INCREMENTAL_STATE_CLEARED
 *                                              (a sequence's first packet),
 *                                              2 SEQ_NEEDS_INCREMENTAL_STATE
 *                                              (the others: they use interned
 *                                              ids and the defaults)
 *     59  trace_packet_defaults       TracePacketDefaults
 *     60  track_descriptor            TrackDescriptor
 *   TracePacketDefaults (trace_packet_defaults.proto)
 *     58  timestamp_clock_id          uint32   64, the incremental clock
 *     11  track_event_defaults        TrackEventDefaults {11 track_uuid: the
 *                                              thread's track}
 *   ClockSnapshot (clock_snapshot.proto)
 *     1   clocks                      repeated Clock {1 clock_id (uint32),
 *                                     2 timestamp (uint64), 3 is_incremental
 *                                     (bool)}: BOOTTIME (6) and the sequence's
 *                                     incremental clock (64) at the process's
 *                                     first event, so timestamps are CLOCK_BOOTTIME
 *                                     ns (Perfetto's default trace clock: it lines
 *                                     up with a system trace), sent as deltas of a
 *                                     byte or two
 *   TrackDescriptor (track_event/track_descriptor.proto)
 *     1   uuid                        uint64   1, 2, ... in the order written
 *     2   name                        string   a coroutine stack's track:
 *                                              "stack 0xLO-0xHI of thread H"
 *     3   process                     ProcessDescriptor
 *     4   thread                      ThreadDescriptor
 *     5   parent_uuid                 uint64   a thread's or stack's process; a
 *                                              counter track's thread or process
 *     8   counter                     CounterDescriptor {3 unit: 1 UNIT_TIME_NS,
 *                                              2 UNIT_COUNT, 3 UNIT_SIZE_BYTES}:
 *                                              a thread's "CPU time" and "faults"
 *                                              (ADA_COUNTERS), the process's "live
 *                                              bytes" (ADA_ALLOC)
 *   ProcessDescriptor (track_event/process_descriptor.proto)
 *     1   pid                         int32
 *     2   cmdline                     repeated string  argv, a word each (Perfetto's
 *                                              importer reads only process_name)
 *     6   process_name                string   the program and its arguments, as
 *                                              the JSON's (export_process_name)
 *   ThreadDescriptor (track_event/thread_descriptor.proto)
 *     1   pid                         int32
 *     2   tid                         int32
 *     5   thread_name                 string   pthread name, or "thread N"
 *   TrackEvent (track_event/track_event.proto)
 *     3   category_iids               repeated uint64  the module
 *     4   debug_annotations           repeated DebugAnnotation
 *     9   type                        enum     1 TYPE_SLICE_BEGIN, 2 TYPE_SLICE_END,
 *                                              3 TYPE_INSTANT, 4 TYPE_COUNTER
 *     11  track_uuid                  uint64   a counter's track (else the
 *                                              sequence's default)
 *     22  categories                  repeated string  "sampled": a sampled
 *                                              function's instant
 *     23  name                        string   a flow's instant: "wake", "woken";
 *                                              "<function> [sampled]": a counter
 *                                              sample in code without a frame
 *                                              of its own, inside a shown one
 *     47  flow_ids                    repeated fixed64  the "wake" instant at a
 *                                              release that ended a wait
 *                                              (ADA_BLOCKING), on the releasing
 *                                              thread's track
 *     48  terminating_flow_ids        repeated fixed64  the "woken" instant at
 *                                              that wait's end, on the waiting
 *                                              thread's track
 *     30  counter_value               int64    a counter's value at the packet's
 *                                              time: a thread's CPU time and
 *                                              faults so far, by its samples; the
 *                                              bytes allocated and not freed
 *     10  name_iid                    uint64   the function
 *     34  source_location_iid         uint64   where DWARF knew the file
 *         (track_uuid comes from the sequence's TrackEventDefaults)
 *   DebugAnnotation (track_event/debug_annotation.proto)
 *     1   name_iid                    uint64
 *     6   string_value                string   "exit": "unwound", "open at exit"...;
 *                                              a parameter's or "ret"'s text where
 *                                              the function has DWARF (sig.h)
 *     7   pointer_value               uint64   registers: argument registers
 *                                              on BEGIN, "ret" on END (the
 *                                              importer merges the pair's
 *                                              annotations); shown in hex
 *     10  name                        string   a parameter's name (not interned:
 *                                              a function's own)
 *   InternedData (interned_data/interned_data.proto)
 *     1   event_categories            repeated EventCategory {1 iid, 2 name}
 *     2   event_names                 repeated EventName {1 iid, 2 name}
 *     3   debug_annotation_names      repeated DebugAnnotationName {1 iid, 2 name}
 *     4   source_locations            repeated SourceLocation {1 iid,
 *                                     2 file_name, 3 function_name,
 *                                     4 line_number (uint32)}
 *
 * Interning (InternedData's comment): a name is sent in the packet that
 * first uses it on its sequence, and iids are the dense function id + 1
 * (names, source locations) and module index + 1 (categories); sequences
 * are per thread, so ids never cross processes. Slices are BEGIN/END pairs:
 * TrackEvent has no complete events ("we deliberately chose not to support
 * COMPLETE events"), and BEGIN at the call keeps packets in time order on
 * their sequence, which delta timestamps need. The clock snapshot, defaults
 * and delta timestamps are laid out as Perfetto's own SDK writes them
 * (track_event_internal.cc, ResetIncrementalState).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "export.h"
#include "export_perfetto.h"
#include "raw_format.h"
#include "sig.h"

/* Debug annotation names, interned at the start of every sequence: the
 * argument registers are iids 1..8, then these. */
enum { DA_RET = 9, DA_EXIT = 10 };
static const char *const x86_regs[] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };
static const char *const arm_regs[] = { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7" };

/* ---- packets (the common ones: export_perfetto.h) ---------------------------------- */

static char *clock(char *p, uint32_t id, uint64_t ns, bool incremental)
{
	char *len_at;

	p = pb_open(p, CS_CLOCKS, &len_at);
	p = pb_uint(p, CLK_CLOCK_ID, id);
	p = pb_uint(p, CLK_TIMESTAMP, ns);
	if (incremental)
		p = pb_uint(p, CLK_IS_INCREMENTAL, 1);
	return pb_close(len_at, p);
}

static char *interned_string(char *p, uint32_t field, uint64_t iid, const char *name)
{
	char *len_at;

	p = pb_open(p, field, &len_at);
	p = pb_uint(p, IN_IID, iid);
	p = pb_string(p, IN_NAME, name);
	return pb_close(len_at, p);
}

static const char *func_name(const struct pf *f, uint32_t func)
{
	return f->a->full_names ? f->funcs[func].full : f->funcs[func].name;
}

/* The module index + 1 of a function, found once. */
static int func_module(struct pf *f, uint32_t func, uint32_t *out)
{
	const char *m = f->funcs[func].module;
	size_t i;

	if (f->fns[func].module) {
		*out = f->fns[func].module;
		return 0;
	}
	for (i = 0; i < f->nmodules; i++)
		if (f->modules[i] == m || strcmp(f->modules[i], m) == 0)
			break;
	if (i == f->nmodules) {
		if (f->nmodules == f->modules_cap) {
			size_t cap = f->modules_cap ? 2 * f->modules_cap : 16;
			const char **mods = realloc(f->modules, cap * sizeof(*mods));
			uint32_t *seqs = mods ? realloc(f->module_seq, cap * sizeof(*seqs)) : NULL;

			if (mods)
				f->modules = mods;
			if (!seqs)
				return -ENOMEM;
			f->module_seq = seqs;
			f->modules_cap = cap;
		}
		f->modules[f->nmodules] = m;
		f->module_seq[f->nmodules++] = 0;
	}
	*out = f->fns[func].module = (uint32_t)i + 1;
	return 0;
}

/* InternedData for what a BEGIN of func uses and its sequence has not seen:
 * its name, its module, its source location. *size grows by the bytes the
 * strings need. Returns p unchanged when there is nothing new. */
static char *intern_func(struct pf *f, char *p, uint32_t func, uint32_t module)
{
	const struct src_func *sf = &f->funcs[func];
	bool new_module = f->module_seq[module - 1] != f->seq;
	char *len_at, *loc;

	if (f->fns[func].seq == f->seq && !new_module)
		return p;
	p = pb_open(p, PKT_INTERNED_DATA, &len_at);
	if (new_module) {
		p = interned_string(p, ID_EVENT_CATEGORIES, module, sf->module);
		f->module_seq[module - 1] = f->seq;
	}
	if (f->fns[func].seq != f->seq) {
		p = interned_string(p, ID_EVENT_NAMES, func + 1, func_name(f, func));
		if (sf->file) {
			p = pb_open(p, ID_SOURCE_LOCATIONS, &loc);
			p = pb_uint(p, SL_IID, func + 1);
			p = pb_string(p, SL_FILE_NAME, sf->file);
			p = pb_string(p, SL_FUNCTION_NAME, func_name(f, func));
			p = pb_uint(p, SL_LINE_NUMBER, sf->line);
			p = pb_close(loc, p);
		}
		f->fns[func].seq = f->seq;
	}
	return pb_close(len_at, p);
}

static size_t intern_size(const struct pf *f, uint32_t func, uint32_t module)
{
	const struct src_func *sf = &f->funcs[func];

	if (f->fns[func].seq == f->seq && f->module_seq[module - 1] == f->seq)
		return 0; /* intern_func writes nothing */
	return 2 * strlen(func_name(f, func)) + strlen(sf->module) +
	       (sf->file ? strlen(sf->file) : 0) + 128;
}

static char *pointer_annotation(char *p, uint64_t name_iid, uint64_t v)
{
	char *len_at;

	p = pb_open(p, TE_DEBUG_ANNOTATIONS, &len_at);
	p = pb_uint(p, DA_NAME_IID, name_iid);
	p = pb_uint(p, DA_POINTER_VALUE, v);
	return pb_close(len_at, p);
}

/* ev's values by the function's DWARF (sig.h), where it has them and the
 * view shows arguments: "name\0text\0" a parameter at a call ("arg<N>" if
 * unnamed), "ret\0text\0" at a return of a value; their bytes (0: none,
 * the registers go as pointers). */
static size_t typed_values(const struct pf *f, const struct walk_event *ev, char *out, size_t len)
{
	const struct ada_sig *sig = ev->regs && !f->a->no_args ? walk_sig(f->proc, ev->func) : NULL;
	struct sig_frame fr;
	size_t n = 0;

	if (!sig)
		return 0;
	fr = walk_sig_frame(ev, f->proc);
	if (ev->type != WALK_ENTER) {
		if (sig->ret.kind == SIG_VOID || ev->how != SRC_RETURN || ev->no_value)
			return 0;
		n = (size_t)snprintf(out, len, "ret") + 1;
		return n + sig_format_ret(sig, &fr, out + n, len - n) + 1;
	}
	for (uint32_t i = 0; i < sig->nparams && len - n > 600; i++) {
		if (sig->params[i].name)
			n += (size_t)snprintf(out + n, len - n, "%s", sig->params[i].name) + 1;
		else
			n += (size_t)snprintf(out + n, len - n, "arg%u", i + 1) + 1;
		n += sig_format_param(sig, i, &fr, out + n, len - n) + 1;
	}
	return n;
}

/* The annotations of typed_values' n bytes: a name and a string each (a
 * return's value named by the interned "ret"). */
static char *typed_annotations(char *p, const char *vals, size_t n, bool ret)
{
	for (const char *v = vals; v < vals + n;) {
		const char *text = v + strlen(v) + 1;
		char *da;

		p = pb_open(p, TE_DEBUG_ANNOTATIONS, &da);
		if (ret)
			p = pb_uint(p, DA_NAME_IID, DA_RET);
		else
			p = pb_string(p, DA_NAME, v);
		p = pb_string(p, DA_STRING_VALUE, text);
		p = pb_close(da, p);
		v = text + strlen(text) + 1;
	}
	return p;
}

/* A BEGIN's TrackEvent fields before its annotations. */
static char *begin_fields(const struct pf *f, char *p, uint32_t func, uint32_t module)
{
	p = pb_uint(p, TE_TYPE, TYPE_SLICE_BEGIN);
	p = pb_uint(p, TE_NAME_IID, func + 1);
	p = pb_uint(p, TE_CATEGORY_IIDS, module);
	if (f->funcs[func].file)
		p = pb_uint(p, TE_SOURCE_LOCATION_IID, func + 1);
	return p;
}

/* Whether a slice's event shows no values: none recorded, or --no-args. */
static bool no_values(const struct pf *f, const struct walk_event *ev)
{
	return !ev->regs || f->a->no_args;
}

/* A packet made of its timestamp and same's bytes (made on this sequence). */
static inline void same_packet(struct pf *f, uint64_t since_t0, const struct pf_same *same)
{
	char *len_at, *p = packet_open(f, PACKET_FIXED, &len_at);

	p = timestamp(f, p, since_t0);
	packet_close(f, len_at, fmt_str(p, same->bytes, same->len));
}

static int slice_begin(struct pf *f, const struct walk_event *ev)
{
	char *len_at, *te, *p, vals[16384];
	struct pf_same *same = &f->fns[ev->func].begin;
	uint32_t module;
	int err;
	size_t nvals;

	if ((err = func_module(f, ev->func, &module)))
		return err;
	nvals = typed_values(f, ev, vals, sizeof(vals));
	p = packet_open(f, PACKET_FIXED + intern_size(f, ev->func, module) + 2 * nvals, &len_at);
	p = timestamp(f, p, ev->start_ns);
	p = sequence(f, p, SEQ_NEEDS_INCREMENTAL_STATE);
	p = intern_func(f, p, ev->func, module);
	p = pb_open(p, PKT_TRACK_EVENT, &te);
	p = begin_fields(f, p, ev->func, module);
	if (no_values(f, ev)) { /* what the next BEGINs on this sequence write */
		char *q = sequence(f, same->bytes, SEQ_NEEDS_INCREMENTAL_STATE), *qte;

		q = pb_open(q, PKT_TRACK_EVENT, &qte);
		q = pb_close(qte, begin_fields(f, q, ev->func, module));
		same->len = (uint8_t)(q - same->bytes);
		same->seq = f->seq;
	}
	if (nvals)
		p = typed_annotations(p, vals, nvals, false);
	else if (ev->regs && !f->a->no_args)
		for (unsigned i = 0; i < f->nregs; i++)
			p = pointer_annotation(p, i + 1, ev->regs[i]);
	p = pb_close(te, p);
	packet_close(f, len_at, p);
	return 0;
}

static void slice_end(struct pf *f, const struct walk_event *ev)
{
	char *len_at, *te, *da, *p, vals[1024];
	size_t nvals;

	/* A return without values: the same bytes as every such END on the
	 * sequence (on_event writes the next ones). */
	if (ev->how == SRC_RETURN && no_values(f, ev)) {
		char *q = sequence(f, f->end.bytes, SEQ_NEEDS_INCREMENTAL_STATE), *qte;

		q = pb_open(q, PKT_TRACK_EVENT, &qte);
		q = pb_close(qte, pb_uint(q, TE_TYPE, TYPE_SLICE_END));
		f->end.len = (uint8_t)(q - f->end.bytes);
		f->end.seq = f->seq;
	}
	nvals = typed_values(f, ev, vals, sizeof(vals));
	p = packet_open(f, PACKET_FIXED + 2 * nvals, &len_at);
	p = timestamp(f, p, ev->end_ns);
	p = sequence(f, p, SEQ_NEEDS_INCREMENTAL_STATE);
	p = pb_open(p, PKT_TRACK_EVENT, &te);
	p = pb_uint(p, TE_TYPE, TYPE_SLICE_END);
	if (nvals)
		p = typed_annotations(p, vals, nvals, true);
	else if (ev->regs && !f->a->no_args && !ev->no_value && !walk_sig(f->proc, ev->func))
		p = pointer_annotation(p, DA_RET, ev->regs[0]); /* a void function's: none */
	if (ev->how != SRC_RETURN) {
		p = pb_open(p, TE_DEBUG_ANNOTATIONS, &da);
		p = pb_uint(p, DA_NAME_IID, DA_EXIT);
		p = pb_string(p, DA_STRING_VALUE, ev->how == SRC_UNWIND ? "unwound" : f->open_mark);
		p = pb_close(da, p);
	}
	p = pb_close(te, p);
	packet_close(f, len_at, p);
	f->slices++;
}


static int on_event(void *ctx, struct walk *w, const struct walk_event *ev)
{
	struct pf *f = ctx;

	(void)w;
	lane_blocks_settle(&f->blocks, ev);
	/* A slice without values of a function already begun on this
	 * sequence, or a return without values after the first: the bytes
	 * the last one had (pf_same), here, without slice_begin's or
	 * slice_end's frames. */
	if (ev->type == WALK_ENTER) {
		const struct pf_same *same = &f->fns[ev->func].begin;

		if (same->seq != f->seq || !no_values(f, ev))
			return slice_begin(f, ev);
		same_packet(f, ev->start_ns, same);
		return 0;
	}
	if (__builtin_expect(ev->type != WALK_EXIT, 0))
		return pf_lane_event(f, ev);
	if (f->end.seq == f->seq && ev->how == SRC_RETURN && no_values(f, ev)) {
		same_packet(f, ev->end_ns, &f->end);
		f->slices++;
		return 0;
	}
	slice_end(f, ev);
	return 0;
}

/* ---- tracks ---------------------------------------------------------------------- */

static int on_process_begin(void *ctx, struct src_process *p)
{
	struct pf *f = ctx;
	char *len_at, *td, *pd, *q, *words;
	char name[EXPORT_NAME_MAX];
	size_t len;

	f->funcs = p->funcs;
	f->nfns = p->nfuncs;
	f->fns = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*f->fns));
	if (!f->fns)
		return -ENOMEM;
	f->nmodules = 0;
	f->nregs = p->arch == ADA_ARCH_ARM64 ? 8 : 6;
	f->proc = p;
	f->reg_names = p->arch == ADA_ARCH_ARM64 ? arm_regs : x86_regs;
	f->t0 = p->t0_ns;
	f->pid = p->pid;
	f->process_uuid = ++f->next_uuid;
	p->want_allocs = p->want_samples = p->want_blocks = true;
	lane_blocks_reset(&f->blocks);
	f->waits.n = 0;

	if (!(words = cmdline_split(p->cmdline, &len)))
		return -ENOMEM;
	/* A word costs its bytes, a tag and a length of at most 5 bytes. */
	q = packet_open(f, PACKET_FIXED + sizeof(name) + 7 * len, &len_at);
	q = pb_open(q, PKT_TRACK_DESCRIPTOR, &td);
	q = pb_uint(q, TD_UUID, f->process_uuid);
	q = pb_open(q, TD_PROCESS, &pd);
	q = pb_int(q, PD_PID, p->pid);
	for (const char *w = words; w < words + len; w += strlen(w) + 1)
		q = pb_string(q, PD_CMDLINE, w);
	q = pb_string(q, PD_PROCESS_NAME, export_process_name(name, p));
	q = pb_close(pd, q);
	q = pb_close(td, q);
	packet_close(f, len_at, q);
	free(words);
	return f->out.err;
}

static int on_process_end(void *ctx, struct src_process *p)
{
	struct pf *f = ctx;
	int err = pf_lanes_end(f);

	(void)p;
	f->waits.n = 0;
	free(f->fns);
	f->fns = NULL;
	return err ? err : f->out.err;
}

/* A thread's sequence opens with a packet that clears its state, sets its
 * defaults (the incremental clock, the thread's track), starts the clock at
 * the process's first event and interns the annotation names; the second
 * describes the track. */
void pf_sequence_begin(struct pf *f)
{
	char *len_at, *def, *ted, *cs, *id, *q;

	q = packet_open(f, PACKET_FIXED, &len_at);
	q = sequence(f, q, SEQ_INCREMENTAL_STATE_CLEARED);
	q = pb_open(q, PKT_DEFAULTS, &def);
	q = pb_uint(q, DEF_TIMESTAMP_CLOCK_ID, CLOCK_INCREMENTAL);
	q = pb_open(q, DEF_TRACK_EVENT_DEFAULTS, &ted);
	q = pb_uint(q, TED_TRACK_UUID, f->track_uuid);
	q = pb_close(ted, q);
	q = pb_close(def, q);
	q = pb_open(q, PKT_CLOCK_SNAPSHOT, &cs);
	q = clock(q, CLOCK_BOOTTIME, f->t0, false);
	q = clock(q, CLOCK_INCREMENTAL, f->t0, true);
	q = pb_close(cs, q);
	q = pb_open(q, PKT_INTERNED_DATA, &id);
	for (unsigned i = 0; i < f->nregs; i++)
		q = interned_string(q, ID_DEBUG_ANNOTATION_NAMES, i + 1, f->reg_names[i]);
	q = interned_string(q, ID_DEBUG_ANNOTATION_NAMES, DA_RET, "ret");
	q = interned_string(q, ID_DEBUG_ANNOTATION_NAMES, DA_EXIT, "exit");
	q = pb_close(id, q);
	packet_close(f, len_at, q);
	f->last_ns = f->t0;
}

static int on_thread_begin(void *ctx, struct src_process *p, const struct src_thread *t)
{
	struct pf *f = ctx;
	char *len_at, *td, *thd, *q;
	char name[128];

	(void)p;
	f->seq = ++f->next_seq;
	f->track_uuid = ++f->next_uuid;
	f->open_mark = t->open_mark ? t->open_mark : "open at end";
	f->cpu_uuid = f->faults_uuid = f->cpu_ns = f->faults = 0;
	pf_sequence_begin(f);

	q = packet_open(f, PACKET_FIXED + sizeof(name), &len_at);
	q = pb_uint(q, PKT_SEQUENCE_ID, f->seq);
	q = pb_open(q, PKT_TRACK_DESCRIPTOR, &td);
	q = pb_uint(q, TD_UUID, f->track_uuid);
	q = pb_uint(q, TD_PARENT_UUID, f->process_uuid);
	export_track_name(name, sizeof(name), t);
	if (t->is_stack) {
		q = pb_string(q, TD_NAME, name);
	} else {
		q = pb_open(q, TD_THREAD, &thd);
		q = pb_int(q, THD_PID, f->pid);
		q = pb_int(q, THD_TID, t->tid);
		q = pb_string(q, THD_THREAD_NAME, name);
		q = pb_close(thd, q);
	}
	q = pb_close(td, q);
	packet_close(f, len_at, q);
	return f->out.err;
}

static int on_thread_end(void *ctx, struct src_process *p, const struct src_thread *t)
{
	struct pf *f = ctx;

	(void)p;
	(void)t;
	lane_blocks_thread_end(&f->blocks);
	return f->out.err;
}

int view_perfetto_main(const struct view_args *a, FILE *out)
{
	struct pf f = { .a = a };
	struct view_ops ops = {
		.ctx = &f,
		.process_begin = on_process_begin,
		.thread_begin = on_thread_begin,
		.event = on_event,
		.thread_end = on_thread_end,
		.process_end = on_process_end,
	};
	int err, werr;

	if (!a->output && isatty(fileno(out))) {
		fprintf(stderr, "ada-symbolize perfetto: the trace is binary: give -o FILE or a pipe\n");
		return -EINVAL;
	}
	if ((err = outbuf_init(&f.out, out)))
		return err;
	for (int i = 0; i < a->npaths && !err; i++)
		err = view_run(a->paths[i], &a->filter, &ops);
	free(f.fns);
	free(f.modules);
	free(f.module_seq);
	lane_blocks_free(&f.blocks);
	lane_waits_free(&f.waits);
	free(f.instants);
	werr = outbuf_close(&f.out, a->output ? a->output : "standard output");
	return err ? err : werr;
}
