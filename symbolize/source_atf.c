/* source_atf.c - a process that has ATF only (converted, raw/ removed or
 * never copied along), read for the views from its manifest and index.atf
 * files. The index is mapped and read in place; registers come from
 * detail.atf, whose records follow the index's order. The blocks, samples
 * and waits a view wants come from lanes.atf, each record given before the
 * index event its index_seq names, where the raw stream gives it, and in
 * the frame its call_depth names (docs/atf-extensions.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atf.h"
#include "json.h"
#include "sig.h"
#include "source_priv.h"
#include "symtab.h"
#include "trace_dir.h"

struct src_atf_stream {
	struct src_raw *r;
	struct atf_index_file idx;
	struct atf_detail_file det;
	bool has_detail;
	uint64_t det_pos;
	uint64_t next, open_from;      /* events from open_from on are OPEN_AT_END */
	uint64_t regs[8], fregs[8];
	struct atf_lanes_file lanes;
	bool has_lanes;
	bool want[ATF_LANE_NKINDS];    /* the kinds the view asked for */
	uint64_t lane_next;
	uint32_t *open_func;           /* dense id of each open frame, for a lane's */
	uint32_t depth, open_cap;
};

static int by_id(const void *a, const void *b)
{
	const struct json_value *const *x = a, *const *y = b;
	uint64_t i = 0, j = 0;

	ada_trace_parse_hex(json_string(json_get(*x, "function_id")), &i);
	ada_trace_parse_hex(json_string(json_get(*y, "function_id")), &j);
	return i < j ? -1 : i > j;
}

/* The module path of module_id m, "[unmapped]" if the manifest has none. */
static const char *module_name(const struct json_value *root, uint64_t m)
{
	const struct json_value *mods = json_get(root, "modules"), *e;
	size_t i;

	for (i = 0; (e = json_at(mods, i)); i++) {
		uint64_t id = 0;

		if (json_u64(json_get(e, "module_id"), &id) && id == m && json_string(json_get(e, "path")))
			return src_basename(json_string(json_get(e, "path")));
	}
	return "[unmapped]";
}

/* The parameters of the functions of module m (sig.h) from its file's
 * DWARF, where the file at the manifest's path is still the run's build
 * (its build-id is the manifest's uuid); addrs[i] is funcs[i]'s address. */
static void module_sigs(struct src_raw *r, const struct json_value *m, const uint64_t *addrs)
{
	const char *path = json_string(json_get(m, "path")), *uuid = json_string(json_get(m, "uuid"));
	uint64_t id = 0, *want = malloc((r->nfuncs ? r->nfuncs : 1) * sizeof(*want));
	struct ada_symtab *st = NULL;
	size_t n = 0;

	if (!want || !path || !json_u64(json_get(m, "module_id"), &id) ||
	    !src_same_build(path, uuid) || ada_symtab_load(path, &st))
		goto out;
	for (size_t i = 0; i < r->nfuncs; i++)
		if (r->func_ids[i] >> 32 == id)
			want[n++] = addrs[i];
	if (!n || ada_symtab_finalize(st, want, n))
		goto out;
	for (size_t i = 0; i < r->nfuncs; i++) {
		long k = r->func_ids[i] >> 32 == id ? ada_symtab_lookup(st, addrs[i]) : -1;

		if (k >= 0 && st->funcs[k].addr == addrs[i]) {
			r->funcs[i].sig = st->funcs[k].sig; /* taken: src_close frees it */
			st->funcs[k].sig = NULL;
		}
	}
out:
	ada_symtab_free(st);
	free(want);
}

static int load_funcs(struct src_process *p, struct src_raw *r, const struct json_value *root)
{
	const struct json_value *syms = json_get(root, "symbols"), **v, *m;
	size_t n = 0, i;
	uint64_t *addrs;

	while (json_at(syms, n))
		n++;
	v = malloc((n ? n : 1) * sizeof(*v));
	addrs = calloc(n ? n : 1, sizeof(*addrs));
	r->funcs = calloc(n ? n : 1, sizeof(*r->funcs));
	r->func_ids = calloc(n ? n : 1, sizeof(*r->func_ids));
	if (!v || !addrs || !r->funcs || !r->func_ids) {
		free(v);
		free(addrs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		v[i] = json_at(syms, i);
	qsort(v, n, sizeof(*v), by_id);
	for (i = 0; i < n; i++) {
		struct src_func *f = &r->funcs[r->nfuncs];
		const char *name = json_string(json_get(v[i], "demangled"));
		uint64_t line = 0;
		char buf[1024];

		if (!ada_trace_parse_hex(json_string(json_get(v[i], "function_id")), &r->func_ids[r->nfuncs]))
			continue; /* --check reports it */
		if (!name)
			name = json_string(json_get(v[i], "name"));
		f->full = strdup(src_unversioned(name ? name : "?", buf, sizeof(buf)));
		f->module = module_name(root, r->func_ids[r->nfuncs] >> 32);
		f->name = strdup(src_display_name(f->full, f->module, buf, sizeof(buf)));
		f->file = json_string(json_get(v[i], "file"));
		json_u64(json_get(v[i], "line"), &line);
		f->line = (uint32_t)line;
		ada_trace_parse_hex(json_string(json_get(v[i], "address")), &addrs[r->nfuncs]);
		r->nfuncs++;
		if (!f->full || !f->name) {
			free(v);
			free(addrs);
			return -ENOMEM;
		}
	}
	free(v);
	for (i = 0; (m = json_at(json_get(root, "modules"), i)); i++)
		module_sigs(r, m, addrs);
	for (i = 0; i < r->nfuncs; i++)
		if (!r->funcs[i].sig)
			r->funcs[i].sig = sig_libc(r->funcs[i].name, r->funcs[i].module);
	free(addrs);
	if (src_names_disambiguate(r->funcs, r->nfuncs) < 0)
		return -ENOMEM;
	p->funcs = r->funcs;
	p->nfuncs = r->nfuncs;
	return 0;
}

static const char *open_mark(const struct json_value *t)
{
	uint64_t n;
	const char *m = ada_trace_open_mark(t, &n);

	/* "(open at exit)" → "open at exit" */
	if (!strcmp(m, "(unwound)"))
		return "unwound";
	if (!strcmp(m, "(open at crash)"))
		return "open at crash";
	if (!strcmp(m, "(open when killed)"))
		return "open when killed";
	if (!strcmp(m, "(open at exec)"))
		return "open at exec";
	return "open at exit";
}

static int load_threads(struct src_process *p, struct src_raw *r, const struct json_value *root)
{
	const struct json_value **ts;
	size_t n, i;
	int err = ada_trace_sorted_threads(root, &ts, &n);

	if (err)
		return err;
	r->threads = calloc(n ? n : 1, sizeof(*r->threads));
	if (!r->threads) {
		free(ts);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct src_thread *t = &r->threads[p->nthreads];
		const struct json_value *st = json_get(ts[i], "stack");
		const char *name = json_string(json_get(ts[i], "name"));
		uint64_t v = 0;

		if (!json_u64(json_get(ts[i], "events"), &v) || !v)
			continue; /* no index.atf */
		t->events = v;
		json_u64(json_get(ts[i], "id"), &v);
		t->id = (uint32_t)v;
		v = 0;
		json_u64(json_get(ts[i], "os_tid"), &v);
		t->tid = (uint32_t)v;
		snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
		if (st) {
			t->is_stack = true;
			ada_trace_parse_hex(json_string(json_get(st, "lo")), &t->stack_lo);
			ada_trace_parse_hex(json_string(json_get(st, "hi")), &t->stack_hi);
			v = UINT32_MAX;
			json_u64(json_get(st, "host_thread"), &v);
			t->host = (uint32_t)v;
		}
		t->open_mark = open_mark(ts[i]);
		p->events += t->events;
		p->nthreads++;
	}
	free(ts);
	p->threads = r->threads;
	return 0;
}

/* The architecture the first thread's index header names (ATF v2 §2: the
 * byte at offset 6), 0 if there is none to read. */
static uint8_t atf_arch(const char *pid_dir, const struct src_process *p)
{
	unsigned char h[8];
	char path[4300];
	FILE *f;
	size_t n;

	if (!p->nthreads)
		return 0;
	snprintf(path, sizeof(path), "%s/thread_%u/index.atf", pid_dir, p->threads[0].id);
	if (!(f = fopen(path, "rb")))
		return 0;
	n = fread(h, 1, sizeof(h), f);
	fclose(f);
	return n == sizeof(h) ? h[6] : 0;
}

int src_atf_open(const char *pid_dir, struct src_process *p, struct src_raw *r)
{
	const struct json_value *root;
	char path[4300], err[256];
	uint64_t v = 0;
	int e;

	snprintf(path, sizeof(path), "%s/manifest.json", pid_dir);
	if (access(path, F_OK) != 0) {
		fprintf(stderr, "ada-symbolize: %s: no raw/process.meta and no manifest.json: not a traced process\n",
			pid_dir);
		return -ENOENT;
	}
	if ((e = json_parse_file(path, &r->manifest, err, sizeof(err)))) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, err);
		return e;
	}
	r->atf_only = true;
	root = json_root(r->manifest);
	json_u64(json_get(root, "pid"), &v);
	p->pid = (uint32_t)v;
	p->exe = json_string(json_get(root, "executable"));
	p->cmdline = json_string(json_get(root, "command_line"));
	if (!p->exe)
		p->exe = "";
	if (!p->cmdline)
		p->cmdline = "";
	json_u64(json_get(root, "time_start_ns"), &p->t0_ns);
	if ((e = load_funcs(p, r, root)) || (e = load_threads(p, r, root)))
		return e;
	p->arch = atf_arch(pid_dir, p);
	return 0;
}

void src_atf_free(struct src_raw *r)
{
	free(r->func_ids);
	if (r->manifest)
		json_free(r->manifest);
}

/* The dense id of an ATF function_id: binary search. */
static uint32_t dense_of(const struct src_raw *r, uint64_t id)
{
	size_t lo = 0, hi = r->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->func_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

struct src_atf_stream *src_atf_stream_open(struct src_process *p, struct src_raw *r, size_t i)
{
	struct src_atf_stream *s = calloc(1, sizeof(*s));
	const struct src_thread *t = &p->threads[i];
	char path[4300], err[256];
	const struct json_value **ts;
	size_t n, k;
	uint64_t open = 0;

	if (!s)
		return NULL;
	s->r = r;
	snprintf(path, sizeof(path), "%s/thread_%u/index.atf", p->dir, t->id);
	if (atf_index_map(path, &s->idx, err, sizeof(err))) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, err);
		free(s);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/thread_%u/detail.atf", p->dir, t->id);
	s->has_detail = access(path, F_OK) == 0 && !atf_detail_map(path, &s->det, err, sizeof(err));
	if (!ada_trace_sorted_threads(json_root(r->manifest), &ts, &n)) {
		for (k = 0; k < n; k++) {
			uint64_t id = UINT64_MAX;

			if (json_u64(json_get(ts[k], "id"), &id) && id == t->id)
				json_u64(json_get(ts[k], "open_at_end"), &open);
		}
		free(ts);
	}
	s->open_from = open <= s->idx.event_count ? s->idx.event_count - open : 0;
	s->want[ATF_LANE_ALLOC] = p->want_allocs;
	s->want[ATF_LANE_SAMPLE] = p->want_samples;
	s->want[ATF_LANE_BLOCK] = p->want_blocks;
	snprintf(path, sizeof(path), "%s/thread_%u/lanes.atf", p->dir, t->id);
	if ((p->want_allocs || p->want_samples || p->want_blocks) && access(path, F_OK) == 0) {
		/* Wanted and there, but not valid: the view would show less than
		 * the trace holds without saying so. */
		if (atf_lanes_map(path, &s->lanes, true, err, sizeof(err))) {
			fprintf(stderr, "ada-symbolize: %s: %s\n", path, err);
			atf_index_unmap(&s->idx);
			if (s->has_detail)
				atf_detail_unmap(&s->det);
			free(s);
			return NULL;
		}
		s->has_lanes = true;
	}
	return s;
}

/* Keeps the dense id of the frame index event a opens, and the depth
 * after it: what a lane record inside it names. */
static int track_frame(struct src_atf_stream *s, const struct atf_event *a, uint32_t func)
{
	if (a->kind != ATF_CALL) {
		s->depth = a->call_depth ? a->call_depth - 1 : 0;
		return 0;
	}
	if (a->call_depth > s->open_cap) {
		uint32_t cap = a->call_depth > 2 * s->open_cap ? a->call_depth : 2 * s->open_cap;
		uint32_t *grown = realloc(s->open_func, cap * sizeof(*grown));

		if (!grown) {
			fprintf(stderr, "ada-symbolize: thread %u: out of memory\n", s->idx.thread_id);
			return -ENOMEM;
		}
		s->open_func = grown;
		s->open_cap = cap;
	}
	s->open_func[a->call_depth - 1] = func;
	s->depth = a->call_depth;
	return 0;
}

/* Lane record l as the raw stream gives its event: the frame at its
 * depth, which must be open. */
static int lane_event(struct src_atf_stream *s, const struct atf_lane *l, struct src_event *ev)
{
	uint32_t func = SRC_NO_FUNC;

	if (l->call_depth > s->depth) {
		fprintf(stderr, "ada-symbolize: thread %u: lanes.atf record #%llu is at depth %u, where %u frames are open\n",
			s->idx.thread_id, (unsigned long long)s->lane_next - 1, l->call_depth, s->depth);
		return -EINVAL;
	}
	if (l->kind == ATF_LANE_SAMPLE && l->function_id) {
		func = dense_of(s->r, l->function_id);
		if (func >= s->r->nfuncs || s->r->func_ids[func] != l->function_id) {
			fprintf(stderr, "ada-symbolize: thread %u: lanes.atf record #%llu names function_id 0x%016llx, which manifest.json does not list\n",
				s->idx.thread_id, (unsigned long long)s->lane_next - 1,
				(unsigned long long)l->function_id);
			return -EINVAL;
		}
	}
	*ev = (struct src_event){ .ns = l->timestamp_ns, .depth = l->call_depth };
	if (l->call_depth)
		ev->func = s->open_func[l->call_depth - 1];
	if (l->kind == ATF_LANE_ALLOC) {
		ev->kind = SRC_ALLOC;
		ev->alloc_ptr = l->a;
		ev->alloc_size = l->b;
		ev->alloc_op = (uint8_t)l->op;
		ev->alloc_freed = l->flags & ATF_LANE_FLAG_FREED;
	} else if (l->kind == ATF_LANE_SAMPLE) {
		ev->kind = SRC_SAMPLE;
		ev->sample = (struct src_sample){ .cpu_ns = l->a, .minflt = l->b, .majflt = l->c,
						  .vcsw = l->d, .ivcsw = l->e, .func = func };
	} else {
		ev->kind = SRC_BLOCK;
		ev->block = (struct src_block){ .obj = l->a, .start_ns = l->b, .op = (uint8_t)l->op };
	}
	return 1;
}

/* The next wanted lane record that lies before index event s->next: 1 and
 * *ev, 0 if there is none (the index event comes next), <0 on an error. */
static int next_lane(struct src_atf_stream *s, struct src_event *ev)
{
	struct atf_lane l;

	while (s->lane_next < s->lanes.event_count) {
		atf_lanes_get(&s->lanes, s->lane_next, &l);
		if (l.index_seq > s->next)
			return 0;
		s->lane_next++;
		if (s->want[l.kind])
			return lane_event(s, &l, ev);
	}
	return 0;
}

/* ev's registers and stack window from the detail record that index event
 * seq links to: the records follow the index, so the cursor only moves
 * forward. */
static void detail_of(struct src_atf_stream *s, uint32_t seq, struct src_event *ev)
{
	struct atf_detail d;

	for (;;) {
		uint64_t pos = s->det_pos;

		if (!atf_detail_next(&s->det, &pos, &d) || d.index_seq > seq)
			return;
		s->det_pos = pos;
		if (d.index_seq == seq) {
			memcpy(s->regs, d.regs, sizeof(s->regs));
			ev->regs = s->regs;
			ev->sp = d.sp;
			ev->stack = d.stack_size ? d.stack : NULL; /* in the mapped file */
			ev->stack_size = d.stack_size;
			ev->no_value = d.flags & ATF_DETAIL_FLAG_NOVALUE;
			if (d.flags & ATF_DETAIL_FLAG_FREGS) {
				memcpy(s->fregs, d.fregs, sizeof(s->fregs));
				ev->fregs = s->fregs;
			}
			return;
		}
	}
}

int src_atf_next(struct src_atf_stream *s, struct src_event *ev)
{
	struct atf_event a;
	int r;

	if (s->has_lanes && (r = next_lane(s, ev)))
		return r;
	if (s->next >= s->idx.event_count)
		return 0;
	atf_index_get(&s->idx, s->next, &a);
	ev->func = dense_of(s->r, a.function_id);
	if (ev->func >= s->r->nfuncs || s->r->func_ids[ev->func] != a.function_id) {
		fprintf(stderr, "ada-symbolize: thread %u: event %llu names function_id 0x%016llx, which manifest.json does not list\n",
			s->idx.thread_id, (unsigned long long)s->next, (unsigned long long)a.function_id);
		return -EINVAL;
	}
	ev->ns = a.timestamp_ns;
	ev->depth = a.call_depth;
	ev->choice = 0;
	ev->detail = NULL;
	ev->stack = NULL;
	ev->kind = a.kind == ATF_CALL ? SRC_CALL : a.kind == ATF_RETURN ? SRC_RETURN
				: s->next >= s->open_from ? SRC_OPEN_AT_END : SRC_UNWIND;
	ev->regs = NULL;
	ev->fregs = NULL;
	ev->sp = 0;
	ev->stack_size = 0;
	ev->no_value = false;
	/* The record links back to its index event by index_seq: the event's
	 * own ordinal, not its detail_seq (equal only while every event has a
	 * record). */
	if (s->has_detail && a.detail_seq != ATF_NO_DETAIL)
		detail_of(s, (uint32_t)s->next, ev);
	if (s->has_lanes && (r = track_frame(s, &a, ev->func)))
		return r;
	s->next++;
	return 1;
}

void src_atf_stream_close(struct src_atf_stream *s)
{
	if (!s)
		return;
	atf_index_unmap(&s->idx);
	if (s->has_detail)
		atf_detail_unmap(&s->det);
	if (s->has_lanes)
		atf_lanes_unmap(&s->lanes);
	free(s->open_func);
	free(s);
}
