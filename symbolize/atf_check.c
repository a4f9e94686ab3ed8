/* atf_check.c - the ATF v2 validator (see check.h and docs/ATF_V2.md).
 *
 * The reader (atf_reader.c) checks what one file can say about itself; this
 * file checks what needs more than one: events against each other (order,
 * balance, depth), against the manifest (threads, symbols, modules, times,
 * clock, detail windows) and against detail.atf (links both ways);
 * atf_check_lanes.c checks ada's lanes.atf beside them. Events
 * are streamed from the mapping; the only memory that grows is the stack of
 * open frames.
 *
 * A detail window's positions are the raw trace's (RAW_FORMAT.md §2.3),
 * which ATF does not keep: the conversion checked them against the thread
 * file. Here a window is checked against its times: the thread's events
 * span them, and they hold at least details_kept events with a detail
 * record (at least: neighbours may share its first or last timestamp).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atf.h"
#include "check.h"
#include "check_priv.h"
#include "raw_format.h"
#include "trace_dir.h"

/* A detail window the manifest lists for the thread being checked, and the
 * index events with a detail record seen in its time range. */
struct window_count {
	size_t i;                     /* windows[i] */
	uint64_t start, end, kept;
	uint64_t seen;
};

/* The detail record expected next while walking the index. */
struct detail_cursor {
	const struct atf_detail_file *f;
	uint64_t pos, num;            /* num: ordinal of rec */
	struct atf_detail rec;
	bool valid;
};

/* ---- reporting ----------------------------------------------------------------- */

static void end_file(struct checker *c)
{
	if (c->hidden)
		fprintf(c->out, "%s: ... %u more\n", c->file, c->hidden);
	c->shown = c->hidden = 0;
}

void begin_file(struct checker *c, const char *path)
{
	end_file(c);
	snprintf(c->file, sizeof(c->file), "%s", path);
	c->files++;
}

void violation(struct checker *c, const char *fmt, ...)
{
	va_list ap;

	c->violations++;
	if (c->shown == MAX_LINES_PER_FILE) {
		c->hidden++;
		return;
	}
	c->shown++;
	fprintf(c->out, "%s: ", c->file);
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	putc('\n', c->out);
}

/* A file that could not be read: a violation when it is missing or not ATF,
 * an I/O error otherwise. */
void unreadable(struct checker *c, int err, const char *why)
{
	violation(c, "%s", why);
	if (err != -ENOENT && err != -EBADMSG && !c->err)
		c->err = err;
}

/* dir/name in buf; an over-long path is truncated, then fails to open and is
 * reported like any unreadable file. */
void make_path(char *buf, size_t size, const char *dir, const char *name)
{
	if (snprintf(buf, size, "%s/%s", dir, name) >= (int)size)
		buf[size - 1] = '\0';
}

/* ---- manifest ------------------------------------------------------------------ */

static void check_modules(struct checker *c, const struct json_value *modules)
{
	uint64_t id;

	if (!modules || modules->type != JSON_ARRAY)
		violation(c, "\"modules\" is not an array");
	for (size_t i = 0; i < json_count(modules); i++)
		if (!json_u64(json_get(json_at(modules, i), "module_id"), &id) || !id || id > UINT32_MAX)
			violation(c, "modules[%zu]: module_id is not an integer in 1..2^32-1", i);
}

static bool has_module(const struct json_value *modules, uint64_t module_id)
{
	uint64_t id;

	for (size_t i = 0; i < json_count(modules); i++)
		if (json_u64(json_get(json_at(modules, i), "module_id"), &id) && id == module_id)
			return true;
	return false;
}

static void check_symbol(struct checker *c, const struct json_value *m, size_t i)
{
	const struct json_value *e = json_at(json_get(m, "symbols"), i);
	uint64_t fid, mod, idx;

	if (!ada_trace_parse_hex(json_string(json_get(e, "function_id")), &fid)) {
		violation(c, "symbols[%zu]: function_id is not a \"0x\" hex string", i);
		return;
	}
	if (!json_u64(json_get(e, "module_id"), &mod) || mod != fid >> 32)
		violation(c, "symbols[%zu]: module_id does not match function_id 0x%016" PRIx64, i, fid);
	if (!json_u64(json_get(e, "symbol_index"), &idx) || idx != (fid & UINT32_MAX))
		violation(c, "symbols[%zu]: symbol_index does not match function_id 0x%016" PRIx64, i,
			  fid);
	if (!(fid >> 32) || !(fid & UINT32_MAX))
		violation(c, "symbols[%zu]: function_id 0x%016" PRIx64 " has a zero module or index",
			  i, fid);
	else if (!has_module(json_get(m, "modules"), fid >> 32))
		violation(c, "symbols[%zu]: module %" PRIu64 " is not in \"modules\"", i, fid >> 32);
	if (!json_string(json_get(e, "name")))
		violation(c, "symbols[%zu]: no \"name\" string", i);
}

static void check_symbols(struct checker *c, struct pid_ctx *p)
{
	const struct json_value *syms = json_get(p->m, "symbols");

	if (!syms || syms->type != JSON_ARRAY)
		violation(c, "\"symbols\" is not an array");
	for (size_t i = 0; i < json_count(syms); i++)
		check_symbol(c, p->m, i);
	for (size_t i = 1; i < p->syms.n; i++)
		if (p->syms.v[i].function_id == p->syms.v[i - 1].function_id)
			violation(c, "symbols: function_id 0x%016" PRIx64 " listed twice",
				  p->syms.v[i].function_id);
}

static void check_thread_entries(struct checker *c, const struct json_value *threads)
{
	uint64_t id;
	bool b;

	if (!threads || threads->type != JSON_ARRAY)
		violation(c, "\"threads\" is not an array");
	for (size_t i = 0; i < json_count(threads); i++) {
		const struct json_value *t = json_at(threads, i);

		if (!json_u64(json_get(t, "id"), &id) || id > UINT32_MAX)
			violation(c, "threads[%zu]: id is not an integer in 0..2^32-1", i);
		if (!json_u64(json_get(t, "os_tid"), &id))
			violation(c, "threads[%zu]: os_tid is not a non-negative integer", i);
		if (!json_bool(json_get(t, "has_detail"), &b))
			violation(c, "threads[%zu]: has_detail is not a bool", i);
	}
}

const struct json_value *thread_entry(const struct pid_ctx *p, uint32_t id)
{
	const struct json_value *threads = json_get(p->m, "threads");
	uint64_t v;

	for (size_t i = 0; i < json_count(threads); i++)
		if (json_u64(json_get(json_at(threads, i), "id"), &v) && v == id)
			return json_at(threads, i);
	return NULL;
}

/* "threads" must list exactly the thread_<N> directories, once each. */
static void check_thread_list(struct checker *c, const struct pid_ctx *p, const uint32_t *ids,
			      size_t n)
{
	const struct json_value *threads = json_get(p->m, "threads");
	uint64_t id;

	for (size_t i = 0; i < json_count(threads); i++) {
		size_t seen = 0;

		if (!json_u64(json_get(json_at(threads, i), "id"), &id))
			continue;
		for (size_t k = 0; k < n; k++)
			seen += ids[k] == id;
		for (size_t k = 0; k < i; k++) {
			uint64_t other;

			if (json_u64(json_get(json_at(threads, k), "id"), &other) && other == id)
				violation(c, "threads[%zu]: id %" PRIu64 " listed twice", i, id);
		}
		if (!seen)
			violation(c, "threads[%zu]: no directory thread_%" PRIu64, i, id);
	}
	for (size_t k = 0; k < n; k++)
		if (!thread_entry(p, ids[k]))
			violation(c, "thread_%" PRIu32 " is not listed in \"threads\"", ids[k]);
}

/* ---- windows (RAW_FORMAT.md §2.3) ----------------------------------------------- */

/* A window's numbers, as the manifest lists them. */
struct window_fields {
	uint64_t thread, trigger_pos, first, last, start, end, kept, lost, triggers;
};

static bool window_fields(const struct json_value *e, struct window_fields *f)
{
	return json_u64(json_get(e, "thread"), &f->thread) &&
	       json_u64(json_get(e, "first_position"), &f->first) &&
	       json_u64(json_get(e, "last_position"), &f->last) &&
	       json_u64(json_get(e, "time_start_ns"), &f->start) &&
	       json_u64(json_get(e, "time_end_ns"), &f->end) &&
	       json_u64(json_get(e, "details_kept"), &f->kept) &&
	       json_u64(json_get(e, "details_lost"), &f->lost) &&
	       json_u64(json_get(e, "triggers"), &f->triggers) &&
	       json_u64(json_get(e, "trigger_position"), &f->trigger_pos);
}

static bool known_trigger(const char *name)
{
	static const char *const names[] = ADA_TRIG_NAMES;

	for (size_t t = 1; name && t < sizeof(names) / sizeof(names[0]); t++)
		if (!strcmp(name, names[t]))
			return true;
	return false;
}

/* What one window entry says about itself and its thread. */
static void check_window(struct checker *c, const struct pid_ctx *p, size_t i)
{
	const struct json_value *e = json_at(json_get(p->m, "windows"), i);
	struct window_fields f;

	if (!window_fields(e, &f)) {
		violation(c, "windows[%zu]: thread, positions, times, details or triggers not an integer", i);
		return;
	}
	if (!known_trigger(json_string(json_get(e, "trigger"))))
		violation(c, "windows[%zu]: trigger is not func, duration, signal, crash, mark, snapshot or end", i);
	if (!json_string(json_get(e, "label")))
		violation(c, "windows[%zu]: no \"label\" string", i);
	if (f.thread > UINT32_MAX || !thread_entry(p, (uint32_t)f.thread))
		violation(c, "windows[%zu]: thread %" PRIu64 " is not in \"threads\"", i, f.thread);
	if (f.first > f.last)
		violation(c, "windows[%zu]: first_position %" PRIu64 " > last_position %" PRIu64, i,
			  f.first, f.last);
	else if ((f.kept && f.kept - 1 > f.last - f.first) ||
		 (unsigned __int128)f.kept + f.lost > (unsigned __int128)f.last + 1)
		violation(c, "windows[%zu]: details_kept %" PRIu64 " + details_lost %" PRIu64
			  " do not fit its positions %" PRIu64 "..%" PRIu64, i, f.kept, f.lost,
			  f.first, f.last);
	if (f.start > f.end)
		violation(c, "windows[%zu]: time_start_ns %" PRIu64 " > time_end_ns %" PRIu64, i,
			  f.start, f.end);
	if (!f.triggers)
		violation(c, "windows[%zu]: triggers is 0", i);
}

static void check_windows(struct checker *c, const struct pid_ctx *p)
{
	const struct json_value *wins = json_get(p->m, "windows");

	if (!wins)
		return; /* no window was recorded */
	if (wins->type != JSON_ARRAY)
		violation(c, "\"windows\" is not an array");
	for (size_t i = 0; i < json_count(wins); i++)
		check_window(c, p, i);
}

/* Thread tid's well-formed windows, to count its detail events in (NULL
 * when it has none). */
static struct window_count *thread_windows(const struct pid_ctx *p, uint32_t tid, size_t *n)
{
	const struct json_value *wins = p->doc ? json_get(p->m, "windows") : NULL;
	struct window_count *wc = calloc(json_count(wins) + 1, sizeof(*wc));
	struct window_fields f;

	*n = 0;
	for (size_t i = 0; wc && i < json_count(wins); i++)
		if (window_fields(json_at(wins, i), &f) && f.thread == tid && f.start <= f.end)
			wc[(*n)++] = (struct window_count){ .i = i, .start = f.start, .end = f.end,
							    .kept = f.kept };
	return wc;
}

/* An index event with a detail record at ns counts for the windows whose
 * times hold it: each of a window's kept records is one such event (more
 * may share its first or last timestamp, so it is a lower bound). */
static void count_window_detail(struct window_count *wc, size_t n, uint64_t ns)
{
	for (size_t k = 0; k < n; k++)
		wc[k].seen += ns >= wc[k].start && ns <= wc[k].end;
}

static void check_window_counts(struct checker *c, const struct window_count *wc, size_t n,
				const struct atf_index_file *f)
{
	for (size_t k = 0; k < n; k++) {
		if (wc[k].start < f->time_start_ns || wc[k].end > f->time_end_ns || !f->event_count)
			violation(c, "windows[%zu]: times %" PRIu64 "..%" PRIu64
				  " outside the thread's events %" PRIu64 "..%" PRIu64, wc[k].i,
				  wc[k].start, wc[k].end, f->time_start_ns, f->time_end_ns);
		if (wc[k].seen < wc[k].kept)
			violation(c, "windows[%zu]: details_kept %" PRIu64 ", but %" PRIu64
				  " events with a detail record in its times", wc[k].i, wc[k].kept,
				  wc[k].seen);
	}
}

static void check_manifest(struct checker *c, struct pid_ctx *p)
{
	const char *version = json_string(json_get(p->m, "format_version"));

	if (p->m->type != JSON_OBJECT) {
		violation(c, "the manifest is not a JSON object");
		return;
	}
	if (!version)
		violation(c, "no \"format_version\" string");
	p->has_clock = json_u64(json_get(p->m, "clock_type"), &p->clock_type);
	if (!p->has_clock)
		violation(c, "\"clock_type\" is not an integer");
	p->has_times = json_u64(json_get(p->m, "time_start_ns"), &p->time_start) &&
		       json_u64(json_get(p->m, "time_end_ns"), &p->time_end);
	if (!p->has_times)
		violation(c, "\"time_start_ns\"/\"time_end_ns\" are not integers");
	else if (p->time_start > p->time_end)
		violation(c, "time_start_ns %" PRIu64 " > time_end_ns %" PRIu64, p->time_start,
			  p->time_end);
	check_thread_entries(c, json_get(p->m, "threads"));
	check_modules(c, json_get(p->m, "modules"));
	check_symbols(c, p);
	check_windows(c, p);
}

/* Parses manifest.json into p; false when there is nothing to check against. */
static bool load_manifest(struct checker *c, struct pid_ctx *p)
{
	char path[PATH_MAX], err[256];
	int ret;

	make_path(path, sizeof(path), p->dir, "manifest.json");
	begin_file(c, path);
	ret = json_parse_file(path, &p->doc, err, sizeof(err));
	if (ret) {
		unreadable(c, ret, err);
		return false;
	}
	p->m = json_root(p->doc);
	if (ada_trace_load_symbols(p->m, &p->syms)) {
		c->err = c->err ? c->err : -ENOMEM;
		return false;
	}
	check_manifest(c, p);
	return true;
}

/* ---- events -------------------------------------------------------------------- */

static bool push_frame(struct checker *c, size_t depth, uint64_t fid)
{
	if (depth == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		uint64_t *v = realloc(c->frames, cap * sizeof(*v));

		if (!v)
			return false;
		c->frames = v;
		c->cap = cap;
	}
	c->frames[depth] = fid;
	return true;
}

/* Fields that each event must get right on its own. */
static void check_fields(struct checker *c, const struct pid_ctx *p, uint32_t tid, uint64_t i,
			 const struct atf_event *ev)
{
	if (ev->thread_id != tid)
		violation(c, "event %" PRIu64 ": thread_id %" PRIu32 " != %" PRIu32, i, ev->thread_id,
			  tid);
	if (ev->kind < ATF_CALL || ev->kind > ATF_EXCEPTION)
		violation(c, "event %" PRIu64 ": event_kind %" PRIu32 " not in 1..3", i, ev->kind);
	if (!(ev->function_id >> 32) || !(ev->function_id & UINT32_MAX))
		violation(c, "event %" PRIu64 ": function_id 0x%016" PRIx64
			  " has a zero module id or symbol index", i, ev->function_id);
	else if (p->doc && !ada_trace_find_symbol(&p->syms, ev->function_id))
		violation(c, "event %" PRIu64 ": function_id 0x%016" PRIx64 " not in \"symbols\"", i,
			  ev->function_id);
}

/* Balance and 1-based depth; *depth is the number of open frames. */
static void check_balance(struct checker *c, uint64_t i, const struct atf_event *ev,
			  size_t *depth)
{
	if (ev->kind == ATF_CALL) {
		if (ev->call_depth != *depth + 1)
			violation(c, "event %" PRIu64 ": CALL at depth %" PRIu32 ", expected %zu", i,
				  ev->call_depth, *depth + 1);
		if (!push_frame(c, *depth, ev->function_id))
			c->err = c->err ? c->err : -ENOMEM;
		else
			++*depth;
		return;
	}
	if (ev->kind != ATF_RETURN && ev->kind != ATF_EXCEPTION)
		return;
	if (*depth == 0) {
		violation(c, "event %" PRIu64 ": %s with no open frame", i,
			  ev->kind == ATF_RETURN ? "RETURN" : "EXCEPTION");
		return;
	}
	if (ev->call_depth != *depth)
		violation(c, "event %" PRIu64 ": closes a frame of depth %zu with depth %" PRIu32, i,
			  *depth, ev->call_depth);
	if (ev->function_id != c->frames[*depth - 1])
		violation(c, "event %" PRIu64 ": closes function 0x%016" PRIx64 " with 0x%016" PRIx64,
			  i, c->frames[*depth - 1], ev->function_id);
	--*depth;
}

static void cursor_next(struct detail_cursor *d)
{
	if (d->valid)
		d->num++;
	d->valid = d->f && atf_detail_next(d->f, &d->pos, &d->rec);
}

/* The linked detail record agrees with index event i. */
static void check_linked(struct checker *c, uint64_t i, const struct atf_event *ev,
			 const struct detail_cursor *d)
{
	uint16_t want = ev->kind == ATF_CALL ? ATF_DETAIL_CALL : ATF_DETAIL_RETURN;

	if (ev->detail_seq != d->num)
		violation(c, "event %" PRIu64 ": detail_seq %" PRIu32 " but detail event %" PRIu64
			  " links to it", i, ev->detail_seq, d->num);
	/* EXCEPTION also ends a frame: its detail, if any, is a return record. */
	if (d->rec.event_type != want)
		violation(c, "event %" PRIu64 ": detail event %" PRIu64 " has event_type %u, expected %u",
			  i, d->num, d->rec.event_type, want);
	if (d->rec.timestamp_ns != ev->timestamp_ns)
		violation(c, "event %" PRIu64 ": detail event %" PRIu64 " timestamp %" PRIu64
			  " != %" PRIu64, i, d->num, d->rec.timestamp_ns, ev->timestamp_ns);
	if (d->rec.function_id != ev->function_id)
		violation(c, "event %" PRIu64 ": detail event %" PRIu64 " function_id 0x%016" PRIx64
			  " != 0x%016" PRIx64, i, d->num, d->rec.function_id, ev->function_id);
}

/* Walks the detail records alongside the index: index event i and detail
 * record d are linked when each names the other. */
static void check_link(struct checker *c, uint64_t i, const struct atf_event *ev,
		       struct detail_cursor *d)
{
	bool linked;

	for (; d->valid && d->rec.index_seq < i; cursor_next(d))
		violation(c, "detail event %" PRIu64 ": index_seq %" PRIu32
			  " is not linked back or is out of index order", d->num, d->rec.index_seq);
	linked = d->valid && d->rec.index_seq == i;
	if (linked && ev->detail_seq == ATF_NO_DETAIL)
		violation(c, "event %" PRIu64 ": no detail_seq, but detail event %" PRIu64
			  " links to it", i, d->num);
	else if (linked)
		check_linked(c, i, ev, d);
	else if (ev->detail_seq != ATF_NO_DETAIL)
		violation(c, "event %" PRIu64 ": detail_seq %" PRIu32
			  " but no detail event links back to it", i, ev->detail_seq);
	if (linked)
		cursor_next(d);
}

/* What the whole file must agree on once every event has been seen. */
static void check_totals(struct checker *c, const struct pid_ctx *p,
			 const struct atf_index_file *f, size_t depth, struct detail_cursor *d)
{
	struct atf_event first = { 0 }, last = { 0 };

	if (f->event_count) {
		atf_index_get(f, 0, &first);
		atf_index_get(f, f->event_count - 1, &last);
	}
	if (f->time_start_ns != first.timestamp_ns || f->time_end_ns != last.timestamp_ns)
		violation(c, "header times %" PRIu64 "..%" PRIu64 " != first/last event %" PRIu64
			  "..%" PRIu64, f->time_start_ns, f->time_end_ns, first.timestamp_ns,
			  last.timestamp_ns);
	if (f->event_count && p->has_times &&
	    (first.timestamp_ns < p->time_start || last.timestamp_ns > p->time_end))
		violation(c, "events %" PRIu64 "..%" PRIu64 " outside the manifest's %" PRIu64
			  "..%" PRIu64, first.timestamp_ns, last.timestamp_ns, p->time_start,
			  p->time_end);
	if (depth)
		violation(c, "ends with %zu frames open", depth);
	for (; d->valid; cursor_next(d))
		violation(c, "detail event %" PRIu64 ": index_seq %" PRIu32
			  " is not linked from the index", d->num, d->rec.index_seq);
}

static void check_events(struct checker *c, const struct pid_ctx *p, uint32_t tid,
			 const struct atf_index_file *f, struct detail_cursor *d)
{
	size_t nwin;
	struct window_count *wc = thread_windows(p, tid, &nwin);
	struct atf_event ev;
	uint64_t prev_ts = 0;
	size_t depth = 0;

	if (!wc)
		c->err = c->err ? c->err : -ENOMEM;
	cursor_next(d);
	for (uint64_t i = 0; i < f->event_count; i++) {
		atf_index_get(f, i, &ev);
		check_fields(c, p, tid, i, &ev);
		if (ev.timestamp_ns < prev_ts)
			violation(c, "event %" PRIu64 ": timestamp %" PRIu64 " < previous %" PRIu64, i,
				  ev.timestamp_ns, prev_ts);
		prev_ts = ev.timestamp_ns;
		check_balance(c, i, &ev, &depth);
		check_link(c, i, &ev, d);
		if (nwin && ev.detail_seq != ATF_NO_DETAIL)
			count_window_detail(wc, nwin, ev.timestamp_ns);
	}
	c->events += f->event_count;
	check_totals(c, p, f, depth, d);
	check_window_counts(c, wc, nwin, f);
	free(wc);
}

/* ---- files --------------------------------------------------------------------- */

/* Maps detail.atf if there is one; false when there is none or it is bad. */
static bool open_detail(struct checker *c, const char *tdir, uint32_t tid,
			struct atf_detail_file *f, bool *exists)
{
	char path[PATH_MAX], err[256];
	int ret;

	make_path(path, sizeof(path), tdir, "detail.atf");
	*exists = access(path, F_OK) == 0;
	if (!*exists)
		return false;
	begin_file(c, path);
	ret = atf_detail_map(path, f, err, sizeof(err));
	if (ret) {
		unreadable(c, ret, err);
		return false;
	}
	if (f->thread_id != tid)
		violation(c, "header thread_id %" PRIu32 " != %" PRIu32, f->thread_id, tid);
	if (!f->event_count)
		violation(c, "no events (an empty detail.atf must not be written)");
	return true;
}

static void check_header(struct checker *c, const struct pid_ctx *p, uint32_t tid,
			 const struct atf_index_file *f, bool detail_exists)
{
	const struct json_value *entry = p->doc ? thread_entry(p, tid) : NULL;
	bool flag = f->flags & ATF_FLAG_HAS_DETAIL, listed;

	if (f->thread_id != tid)
		violation(c, "header thread_id %" PRIu32 " != %" PRIu32, f->thread_id, tid);
	if (f->clock_type != ATF_CLOCK_BOOTTIME)
		violation(c, "header clock_type %u, expected 3 (CLOCK_BOOTTIME)", f->clock_type);
	if (p->has_clock && f->clock_type != p->clock_type)
		violation(c, "header clock_type %u != manifest clock_type %" PRIu64, f->clock_type,
			  p->clock_type);
	if (flag != detail_exists)
		violation(c, "header has_detail flag is %d but detail.atf %s", flag,
			  detail_exists ? "exists" : "does not exist");
	if (json_bool(json_get(entry, "has_detail"), &listed) && listed != detail_exists)
		violation(c, "manifest has_detail is %s but detail.atf %s", listed ? "true" : "false",
			  detail_exists ? "exists" : "does not exist");
}

static void check_thread(struct checker *c, const struct pid_ctx *p, uint32_t tid)
{
	char name[32], tdir[PATH_MAX], path[PATH_MAX], err[256];
	struct atf_detail_file det;
	struct atf_index_file idx;
	struct detail_cursor d = { 0 };
	bool detail_exists;
	int ret;

	snprintf(name, sizeof(name), "thread_%" PRIu32, tid);
	make_path(tdir, sizeof(tdir), p->dir, name);
	if (open_detail(c, tdir, tid, &det, &detail_exists))
		d.f = &det;
	make_path(path, sizeof(path), tdir, "index.atf");
	begin_file(c, path);
	ret = atf_index_map(path, &idx, err, sizeof(err));
	if (ret) {
		unreadable(c, ret, err);
	} else {
		check_header(c, p, tid, &idx, detail_exists);
		check_events(c, p, tid, &idx, &d);
	}
	check_lanes(c, p, tdir, tid, ret ? NULL : &idx);
	if (!ret)
		atf_index_unmap(&idx);
	if (d.f)
		atf_detail_unmap(&det);
}

static void check_pid(struct checker *c, const char *dir)
{
	struct pid_ctx p = { .dir = dir };
	bool have_manifest = load_manifest(c, &p);
	uint32_t *ids;
	size_t n;
	int ret = ada_trace_find_threads(dir, &ids, &n);

	if (ret) {
		unreadable(c, ret, strerror(-ret));
	} else {
		if (have_manifest)
			check_thread_list(c, &p, ids, n);
		for (size_t i = 0; i < n; i++)
			check_thread(c, &p, ids[i]);
	}
	end_file(c);
	free(ids);
	ada_trace_free_symbols(&p.syms);
	json_free(p.doc);
}

int ada_check_path(const char *path, FILE *out, int *nviolations)
{
	struct checker c = { .out = out };
	struct ada_trace_pid *pids;
	size_t n;
	int ret = ada_trace_find_pids(path, &pids, &n);

	*nviolations = 0;
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		check_pid(&c, pids[i].dir);
	end_file(&c);
	if (c.violations)
		fprintf(out, "checked %" PRIu64 " files, %" PRIu64 " events: %d violations\n", c.files,
			c.events, c.violations);
	else
		fprintf(out, "checked %" PRIu64 " files, %" PRIu64 " events: OK\n", c.files, c.events);
	*nviolations = c.violations;
	ada_trace_free_pids(pids, n);
	free(c.frames);
	return c.err;
}
