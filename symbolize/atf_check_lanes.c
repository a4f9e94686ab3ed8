/* atf_check_lanes.c - `--check` of ada's lanes.atf (docs/atf-extensions.md):
 * the file on its own (atf_reader.c: header, footer, CRC; every record's
 * kind, op, flags, order), then what needs the others: the manifest's
 * has_lanes and counts, the functions samples name in its "symbols", and
 * each record's place in the index: index_seq within the index's events,
 * call_depth the frames open after index event index_seq - 1, the time
 * between that event's and index event index_seq's. The index is walked
 * once beside the records, which never go back in it.
 */
#include <inttypes.h>
#include <unistd.h>

#include "check_priv.h"

/* Where the walk of the index stands: the events before index event next
 * leave depth frames open, the last of them at time ns. */
struct index_walk {
	const struct atf_index_file *idx;
	uint64_t next, ns;
	uint32_t depth;
};

static void walk_to(struct index_walk *w, uint64_t seq)
{
	struct atf_event ev;

	for (; w->next < seq && w->next < w->idx->event_count; w->next++) {
		atf_index_get(w->idx, w->next, &ev);
		w->depth = ev.kind == ATF_CALL ? ev.call_depth : ev.call_depth ? ev.call_depth - 1 : 0;
		w->ns = ev.timestamp_ns;
	}
}

/* Record i against the index around it. */
static void check_place(struct checker *c, struct index_walk *w, uint64_t i,
			const struct atf_lane *l)
{
	struct atf_event after;

	if (l->index_seq > w->idx->event_count) {
		violation(c, "record #%" PRIu64 ": index_seq %" PRIu32
			  " past the index's %" PRIu32 " events", i, l->index_seq,
			  w->idx->event_count);
		return;
	}
	walk_to(w, l->index_seq);
	if (l->call_depth != w->depth)
		violation(c, "record #%" PRIu64 ": call_depth %" PRIu32 ", but %" PRIu32
			  " frames are open after index event %" PRIu32, i, l->call_depth,
			  w->depth, l->index_seq);
	if (l->index_seq && l->timestamp_ns < w->ns)
		violation(c, "record #%" PRIu64 ": timestamp %" PRIu64
			  " before index event %" PRIu32 "'s %" PRIu64, i, l->timestamp_ns,
			  l->index_seq - 1, w->ns);
	if (l->index_seq >= w->idx->event_count)
		return;
	atf_index_get(w->idx, l->index_seq, &after);
	if (l->timestamp_ns > after.timestamp_ns)
		violation(c, "record #%" PRIu64 ": timestamp %" PRIu64
			  " after index event %" PRIu32 "'s %" PRIu64, i, l->timestamp_ns,
			  l->index_seq, after.timestamp_ns);
}

/* The manifest's "lanes" counts against the footer's. */
static void check_listed(struct checker *c, const struct json_value *entry,
			 const struct atf_lanes_file *f)
{
	static const char *const keys[ATF_LANE_NKINDS] = { NULL, "allocs", "samples", "blocks" };
	const struct json_value *lanes = json_get(entry, "lanes");

	if (!entry)
		return;
	for (unsigned k = ATF_LANE_ALLOC; k < ATF_LANE_NKINDS; k++) {
		uint64_t n;

		if (!json_u64(json_get(lanes, keys[k]), &n))
			violation(c, "manifest lanes.%s is not a number", keys[k]);
		else if (n != f->kind_count[k])
			violation(c, "manifest lanes.%s %" PRIu64 " != footer %" PRIu64, keys[k], n,
				  f->kind_count[k]);
	}
}

static void check_records(struct checker *c, const struct pid_ctx *p,
			  const struct atf_lanes_file *f, const struct atf_index_file *idx)
{
	struct index_walk w = { .idx = idx };
	uint64_t count[ATF_LANE_NKINDS] = { 0 };
	struct atf_lane l, prev;
	char err[256];

	for (uint64_t i = 0; i < f->event_count; i++) {
		atf_lanes_get(f, i, &l);
		if (atf_lane_check(i ? &prev : NULL, &l, i, err, sizeof(err)))
			violation(c, "%s", err);
		else
			count[l.kind]++;
		prev = l;
		if (idx)
			check_place(c, &w, i, &l);
		if (l.kind == ATF_LANE_SAMPLE && l.function_id && p->doc &&
		    !ada_trace_find_symbol(&p->syms, l.function_id))
			violation(c, "record #%" PRIu64 ": function_id 0x%016" PRIx64
				  " not in \"symbols\"", i, l.function_id);
	}
	for (unsigned k = ATF_LANE_ALLOC; k < ATF_LANE_NKINDS; k++)
		if (count[k] != f->kind_count[k])
			violation(c, "footer counts %" PRIu64 " records of kind %u, the file holds %"
				  PRIu64, f->kind_count[k], k, count[k]);
}

void check_lanes(struct checker *c, const struct pid_ctx *p, const char *tdir, uint32_t tid,
		 const struct atf_index_file *idx)
{
	const struct json_value *entry = p->doc ? thread_entry(p, tid) : NULL;
	char path[PATH_MAX], err[256];
	struct atf_lanes_file f;
	bool exists, listed = false;
	int ret;

	make_path(path, sizeof(path), tdir, "lanes.atf");
	exists = access(path, F_OK) == 0;
	if (json_get(entry, "has_lanes") && !json_bool(json_get(entry, "has_lanes"), &listed)) {
		begin_file(c, path);
		violation(c, "manifest has_lanes is not a bool");
	} else if (entry && listed != exists) {
		begin_file(c, path);
		violation(c, "manifest has_lanes is %s but lanes.atf %s",
			  listed ? "true" : "absent", exists ? "exists" : "does not exist");
	}
	if (!exists)
		return;
	begin_file(c, path);
	if ((ret = atf_lanes_map(path, &f, false, err, sizeof(err)))) {
		unreadable(c, ret, err);
		return;
	}
	if (f.thread_id != tid)
		violation(c, "header thread_id %" PRIu32 " != %" PRIu32, f.thread_id, tid);
	if (f.clock_type != ATF_CLOCK_BOOTTIME)
		violation(c, "header clock_type %u, expected 3 (CLOCK_BOOTTIME)", f.clock_type);
	if (!f.event_count)
		violation(c, "no records (an empty lanes.atf must not be written)");
	if (listed)
		check_listed(c, entry, &f);
	check_records(c, p, &f, idx);
	atf_lanes_unmap(&f);
}
