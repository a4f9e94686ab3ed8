/* export_perfetto_lanes.c - the Perfetto export's tracks beyond the calls:
 * each thread's CPU time and faults (ADA_COUNTERS), the process's live
 * bytes (ADA_ALLOC), the flows from a release to the wait it ended
 * (ADA_BLOCKING). Fields as export_perfetto.c's table lists them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export_perfetto.h"

/* ---- counter tracks (ADA_COUNTERS, ADA_ALLOC) ----------------------------------- */

/* A counter track's descriptor, on the current sequence: a child of parent. */
static void counter_track(struct pf *f, uint64_t uuid, uint64_t parent, const char *name,
			  unsigned unit)
{
	char *len_at, *td, *cd, *q;

	q = packet_open(f, PACKET_FIXED + strlen(name), &len_at);
	q = pb_uint(q, PKT_SEQUENCE_ID, f->seq);
	q = pb_open(q, PKT_TRACK_DESCRIPTOR, &td);
	q = pb_uint(q, TD_UUID, uuid);
	q = pb_uint(q, TD_PARENT_UUID, parent);
	q = pb_string(q, TD_NAME, name);
	q = pb_open(q, TD_COUNTER, &cd);
	q = pb_uint(q, CD_UNIT, unit);
	q = pb_close(cd, q);
	q = pb_close(td, q);
	packet_close(f, len_at, q);
}

/* A counter's value at since_t0 on the current sequence (never before its
 * last packet: a sample's time is clamped to the event before it). */
static void counter_value(struct pf *f, uint64_t uuid, uint64_t since_t0, int64_t v)
{
	char *len_at, *te, *p;

	if (f->t0 + since_t0 < f->last_ns)
		since_t0 = f->last_ns - f->t0;
	p = packet_open(f, PACKET_FIXED, &len_at);
	p = timestamp(f, p, since_t0);
	p = sequence(f, p, SEQ_NEEDS_INCREMENTAL_STATE);
	p = pb_open(p, PKT_TRACK_EVENT, &te);
	p = pb_uint(p, TE_TYPE, TYPE_COUNTER);
	p = pb_uint(p, TE_TRACK_UUID, uuid);
	p = pb_int(p, TE_COUNTER_VALUE, v);
	p = pb_close(te, p);
	packet_close(f, len_at, p);
}

/* A counter sample that interrupted code without a frame of its own (a
 * library ada did not hook, a static function inside one), inside a
 * shown frame: an instant on the thread's track, "<function> [sampled]" in
 * category "sampled" (flame's [sampled] frames), never a slice, so that
 * no one takes it for a call. A few hundred a second: not interned. */
static void sampled_instant(struct pf *f, const struct walk_event *ev)
{
	const struct src_func *fn = &f->funcs[ev->sample.func];
	const char *name = f->a->full_names ? fn->full : fn->name;
	uint64_t since_t0 = ev->start_ns;
	char *len_at, *te, *p, *q;
	size_t n = strlen(name);

	if (f->t0 + since_t0 < f->last_ns)
		since_t0 = f->last_ns - f->t0;
	p = packet_open(f, PACKET_FIXED + n, &len_at);
	p = timestamp(f, p, since_t0);
	p = sequence(f, p, SEQ_NEEDS_INCREMENTAL_STATE);
	p = pb_open(p, PKT_TRACK_EVENT, &te);
	p = pb_uint(p, TE_TYPE, TYPE_INSTANT);
	p = pb_string(p, TE_CATEGORIES, "sampled");
	/* TE_NAME: the name and its suffix, one string written in two parts */
	p = pb_open(p, TE_NAME, &q);
	memcpy(p, name, n);
	p = fmt_lit(p + n, " [sampled]");
	p = pb_close(q, p);
	p = pb_close(te, p);
	packet_close(f, len_at, p);
}

/* A sample: the thread's CPU time and faults so far, on tracks of its own
 * made at its first, and a sampled function's instant (above); a block:
 * kept for the live bytes (process end). */
int pf_lane_event(struct pf *f, const struct walk_event *ev)
{
	if (ev->type == WALK_ALLOC)
		return lane_blocks_add(&f->blocks, ev, 0);
	if (ev->type == WALK_BLOCK)
		return lane_waits_add(&f->waits, ev, f->track_uuid);
	if (ev->type != WALK_SAMPLE)
		return 0;
	if (!f->cpu_uuid) {
		f->cpu_uuid = ++f->next_uuid;
		f->faults_uuid = ++f->next_uuid;
		counter_track(f, f->cpu_uuid, f->track_uuid, "CPU time", UNIT_TIME_NS);
		counter_track(f, f->faults_uuid, f->track_uuid, "page faults", UNIT_COUNT);
	}
	f->cpu_ns += ev->sample.cpu_ns;
	f->faults += ev->sample.minflt + ev->sample.majflt;
	counter_value(f, f->cpu_uuid, ev->start_ns, (int64_t)f->cpu_ns);
	counter_value(f, f->faults_uuid, ev->start_ns, (int64_t)f->faults);
	if (walk_sampled_func(ev) != SRC_NO_FUNC)
		sampled_instant(f, ev);
	return f->out.err;
}

/* The process's bytes allocated and not freed, on a track and a sequence
 * of their own after its threads': a value at each block, in time order
 * over all threads (lanes.h). */
static int live_bytes(struct pf *f)
{
	int64_t live = 0;

	if (!f->blocks.n)
		return 0;
	lane_blocks_live(&f->blocks);
	f->seq = ++f->next_seq;
	f->track_uuid = ++f->next_uuid;
	pf_sequence_begin(f);
	counter_track(f, f->track_uuid, f->process_uuid, "live bytes", UNIT_SIZE_BYTES);
	for (size_t i = 0; i < f->blocks.n; i++) {
		const struct lane_block *b = &f->blocks.ev[i];

		live += b->freed ? -(int64_t)b->size : (int64_t)b->size;
		counter_value(f, f->track_uuid, b->ns, live);
	}
	return f->out.err;
}

/* ---- flows (ADA_BLOCKING) ------------------------------------------------------------ */

static int add_instant(struct pf *f, uint64_t ns, uint64_t track, bool end)
{
	if (f->ninstants == f->instants_cap) {
		size_t cap = f->instants_cap ? 2 * f->instants_cap : 256;
		struct pf_instant *g = realloc(f->instants, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		f->instants = g;
		f->instants_cap = cap;
	}
	f->instants[f->ninstants++] = (struct pf_instant){ .ns = ns, .track = track, .flow = f->flows,
							   .end = end };
	return 0;
}

static int link_instants(void *ctx, const struct lane_wait *waiter, const struct lane_wait *waker)
{
	struct pf *f = ctx;
	int err;

	f->flows++;
	err = add_instant(f, waker->start, waker->tag, false);
	return err ? err : add_instant(f, waiter->end, waiter->tag, true);
}

static int by_ns(const void *a, const void *b)
{
	const struct pf_instant *x = a, *y = b;

	return (x->ns > y->ns) - (x->ns < y->ns);
}

/* Each wait linked to its waker (lanes.h): a "wake" instant with the flow
 * id at the release, on the releasing thread's track (inside its unlock's
 * slice), and a "woken" one ending it at the wait's end, on the waiter's
 * (inside its lock's slice), so that the UI draws an arrow from one to the
 * other. Instants rather than the slices' own events: a slice's BEGIN is
 * written before the walk reaches the release inside it, and the lock's
 * END may come before the unlock's. On a sequence of their own after the
 * threads', in time order (a release is always before the wait's end). */
static int wake_flows(struct pf *f)
{
	int err;

	f->ninstants = 0;
	if (!f->waits.n)
		return 0;
	if ((err = lane_waits_link(&f->waits, link_instants, f)) || !f->ninstants)
		return err;
	qsort(f->instants, f->ninstants, sizeof(*f->instants), by_ns);
	f->seq = ++f->next_seq;
	f->track_uuid = f->process_uuid;
	pf_sequence_begin(f);
	for (size_t i = 0; i < f->ninstants; i++) {
		const struct pf_instant *x = &f->instants[i];
		char *len_at, *te, *p = packet_open(f, PACKET_FIXED, &len_at);

		p = timestamp(f, p, x->ns);
		p = sequence(f, p, SEQ_NEEDS_INCREMENTAL_STATE);
		p = pb_open(p, PKT_TRACK_EVENT, &te);
		p = pb_uint(p, TE_TYPE, TYPE_INSTANT);
		p = pb_uint(p, TE_TRACK_UUID, x->track);
		p = pb_string(p, TE_NAME, x->end ? "woken" : "wake");
		p = pb_fixed64(p, x->end ? TE_TERMINATING_FLOW_IDS : TE_FLOW_IDS, x->flow);
		p = pb_close(te, p);
		packet_close(f, len_at, p);
	}
	return f->out.err;
}

int pf_lanes_end(struct pf *f)
{
	int err = live_bytes(f);

	return err ? err : wake_flows(f);
}
