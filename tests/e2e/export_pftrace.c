/* export_pftrace.c - the Perfetto export read back through `protoc
 * --decode_raw` and compared with the JSON export of the same trace (see
 * export_view.h). Field numbers are those of export_perfetto.c's table. */
#include "e2e/export_view.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/proc.h"

#define PF_MAX 1024

struct pf_slice {
	const char *name;
	uint64_t begin, end;       /* CLOCK_BOOTTIME ns */
};

struct pf_track {
	uint64_t uuid;
	size_t depth;
	struct pf_slice open[PF_MAX];
};

struct pf_seq {                    /* a packet sequence: one thread */
	uint64_t id, track, last_ns;   /* its default track, its clock */
};

struct pf_check {
	const struct xtrace *x;
	uint32_t pid;
	struct { uint64_t seq, iid; const char *name; } names[PF_MAX];
	size_t nnames;
	struct pf_seq seqs[PF_MAX];
	size_t nseqs;
	struct pf_track tracks[64];
	size_t ntracks;
	struct pf_slice *slices;       /* closed, x->n of them at most */
	size_t nslices;
	size_t packets, descriptors;
	unsigned long rets[8];         /* parse_number's "ret" annotations */
};

static struct pf_seq *find_seq(struct pf_check *c, uint64_t id)
{
	for (size_t i = 0; i < c->nseqs; i++)
		if (c->seqs[i].id == id)
			return &c->seqs[i];
	return NULL;
}

static const char *interned_name(const struct pf_check *c, uint64_t seq, uint64_t iid)
{
	for (size_t i = 0; i < c->nnames; i++)
		if (c->names[i].seq == seq && c->names[i].iid == iid)
			return c->names[i].name;
	return NULL;
}

static struct pf_track *track(struct pf_check *c, uint64_t uuid)
{
	size_t i;

	for (i = 0; i < c->ntracks && c->tracks[i].uuid != uuid; i++)
		;
	if (i == c->ntracks) {
		if (i == sizeof(c->tracks) / sizeof(c->tracks[0]))
			fail_msg("more than %zu tracks", i);
		c->tracks[c->ntracks++].uuid = uuid;
	}
	return &c->tracks[i];
}

static void intern_names(struct pf_check *c, const struct pnode *id, uint64_t seq)
{
	for (size_t i = 0; id && i < id->nkids; i++) {
		const struct pnode *e = &id->kids[i];
		const struct pnode *name = pnode_get(e, 2);
		uint64_t iid;

		if (e->field != 2) /* event_names */
			continue;
		if (!pnode_u64(e, 1, &iid) || !name || !name->value)
			fail_msg("sequence %llu: an EventName without iid or name",
				 (unsigned long long)seq);
		if (interned_name(c, seq, iid))
			fail_msg("sequence %llu: iid %llu interned twice", (unsigned long long)seq,
				 (unsigned long long)iid);
		if (c->nnames == PF_MAX)
			fail_msg("more than %d interned names", PF_MAX);
		c->names[c->nnames].seq = seq;
		c->names[c->nnames].iid = iid;
		c->names[c->nnames++].name = name->value;
	}
}

/* A sequence's first packet: its defaults (the incremental clock, its
 * track) and the clock's start. */
static void begin_sequence(struct pf_check *c, const struct pnode *pk, uint64_t id)
{
	const struct pnode *def = pnode_get(pk, 59), *cs = pnode_get(pk, 6);
	struct pf_seq *s;
	uint64_t clock;
	bool started = false;

	if (find_seq(c, id) || c->nseqs == PF_MAX)
		fail_msg("sequence %llu cleared twice", (unsigned long long)id);
	s = &c->seqs[c->nseqs++];
	s->id = id;
	if (!pnode_u64(def, 58, &clock) || clock != 64 ||
	    !pnode_u64(pnode_get(def, 11), 11, &s->track))
		fail_msg("sequence %llu: no defaults {timestamp_clock_id 64, track_uuid}",
			 (unsigned long long)id);
	for (size_t i = 0; cs && i < cs->nkids; i++) {
		uint64_t inc;

		if (pnode_u64(&cs->kids[i], 1, &clock) && clock == 64 &&
		    pnode_u64(&cs->kids[i], 3, &inc) && inc == 1)
			started = pnode_u64(&cs->kids[i], 2, &s->last_ns);
	}
	if (!started)
		fail_msg("sequence %llu: no clock snapshot of incremental clock 64",
			 (unsigned long long)id);
}

static void check_descriptor(struct pf_check *c, const struct pnode *td)
{
	const struct pnode *proc = pnode_get(td, 3), *thr = pnode_get(td, 4);
	uint64_t pid = 0, tid = 0, uuid;

	c->descriptors++;
	if (!pnode_u64(td, 1, &uuid))
		fail_msg("a TrackDescriptor without uuid");
	/* decode_raw shows a string that parses as a message as one ("stack_switch
	 * ucontext 3" does): only a name it shows as a string is compared. */
	if (proc && (!pnode_u64(proc, 1, &pid) || pid != c->pid || !pnode_get(proc, 6) ||
		     (pnode_get(proc, 6)->value &&
		      strcmp(pnode_get(proc, 6)->value,
			     xtrace_meta(c->x, "process_name", c->pid, 0)))))
		fail_msg("process descriptor: pid %llu, expected %u, and the JSON's process_name",
			 (unsigned long long)pid, c->pid);
	if (thr && (!pnode_u64(thr, 1, &pid) || !pnode_u64(thr, 2, &tid) || pid != c->pid ||
		    !xtrace_meta(c->x, "thread_name", c->pid, (uint32_t)tid) || !pnode_get(thr, 5)))
		fail_msg("thread descriptor: pid %llu tid %llu, not a thread of the JSON's",
			 (unsigned long long)pid, (unsigned long long)tid);
	if (!proc && !thr && !pnode_get(td, 2))
		fail_msg("a TrackDescriptor with neither process, thread nor name");
}

static void check_begin(struct pf_check *c, struct pf_track *tr, const struct pnode *te,
			uint64_t seq, uint64_t ns)
{
	uint64_t iid;
	const char *name;

	if (!pnode_u64(te, 10, &iid) || !(name = interned_name(c, seq, iid)))
		fail_msg("sequence %llu: a slice begin whose name_iid is not interned",
			 (unsigned long long)seq);
	if (tr->depth == PF_MAX)
		fail_msg("track %llu deeper than %d", (unsigned long long)tr->uuid, PF_MAX);
	tr->open[tr->depth].name = name;
	tr->open[tr->depth++].begin = ns;
}

static void check_end(struct pf_check *c, struct pf_track *tr, const struct pnode *te,
		      uint64_t ns)
{
	struct pf_slice *s;

	if (!tr->depth)
		fail_msg("track %llu: a slice end with no slice open", (unsigned long long)tr->uuid);
	if (c->nslices == c->x->n)
		fail_msg("more slices than the JSON's %zu", c->x->n);
	s = &c->slices[c->nslices++];
	*s = tr->open[--tr->depth];
	s->end = ns;
	if (strcmp(s->name, "parse_number") != 0)
		return;
	/* "ret": demo.c's DWARF gives parse_number's int, a string in decimal
	 * (a pointer annotation where a function has no DWARF) */
	for (size_t i = 0; i < te->nkids; i++) {
		const struct pnode *str;
		uint64_t iid, v;

		if (te->kids[i].field != 4 || !pnode_u64(&te->kids[i], 1, &iid) || iid != 9)
			continue;
		if (pnode_u64(&te->kids[i], 7, &v))
			c->rets[v & 7]++;
		else if ((str = pnode_get(&te->kids[i], 6)) && str->value)
			c->rets[strtoul(str->value, NULL, 10) & 7]++;
	}
}

static void check_event(struct pf_check *c, const struct pnode *pk, const struct pnode *te,
			uint64_t seq, uint64_t flags)
{
	struct pf_seq *s = find_seq(c, seq);
	uint64_t delta, type, uuid;
	struct pf_track *tr;

	if (!s || flags != 2 || !pnode_u64(pk, 8, &delta))
		fail_msg("a track event packet without timestamp, or on sequence %llu (flags "
			 "%llu) before its state was cleared", (unsigned long long)seq,
			 (unsigned long long)flags);
	s->last_ns += delta; /* the incremental clock */
	if (!pnode_u64(te, 9, &type))
		fail_msg("a track event without type");
	if (!pnode_u64(te, 11, &uuid))
		uuid = s->track;
	tr = track(c, uuid);
	if (type == 1)
		check_begin(c, tr, te, seq, s->last_ns);
	else if (type == 2)
		check_end(c, tr, te, s->last_ns);
	else
		fail_msg("track event type %llu", (unsigned long long)type);
}

static void check_packet(struct pf_check *c, const struct pnode *pk)
{
	const struct pnode *te = pnode_get(pk, 11), *td = pnode_get(pk, 60);
	uint64_t seq = 0, flags = 0;
	bool has_seq = pnode_u64(pk, 10, &seq);

	c->packets++;
	if (pk->field != 1 || pk->value)
		fail_msg("a Trace holds field %u, not packets (1)", pk->field);
	pnode_u64(pk, 13, &flags);
	if (flags == 1) {
		if (!has_seq)
			fail_msg("a sequence cleared without an id");
		begin_sequence(c, pk, seq);
	}
	intern_names(c, pnode_get(pk, 12), seq);
	if (td)
		check_descriptor(c, td);
	if (te)
		check_event(c, pk, te, seq, flags);
}

void ex_decode_raw(struct tr_case *tc, const char *path, struct pnode *root)
{
	char cmd[PATH_MAX + 64], why[64], err[256];
	const char *const argv[] = { "sh", "-c", cmd, NULL };
	struct proc_result res = { 0 };

	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < '%s'", path);
	tr_run(tc, argv, NULL, &res);
	if (proc_exit_code(&res) != 0)
		fail_msg("%s: %s\n%s", cmd, proc_describe(&res, why, sizeof(why)), res.err);
	if (pnode_parse(res.out, root, err, sizeof(err)) < 0)
		fail_msg("%s: %s", cmd, err);
	proc_result_free(&res);
}

static int by_time(const void *a, const void *b)
{
	const struct pf_slice *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The Perfetto slices are the JSON's: name, start and end to the ns. */
static void expect_same_slices(struct pf_check *c, const struct xtrace *x)
{
	struct pf_slice *want = calloc(x->n + 1, sizeof(*want));
	uint64_t origin;

	assert_non_null(want);
	if (!json_u64(json_get(json_get(x->root, "otherData"), "ts_origin_ns"), &origin))
		fail_msg("the JSON has no otherData.ts_origin_ns");
	for (size_t i = 0; i < x->n; i++)
		want[i] = (struct pf_slice){ x->slices[i].name, origin + (uint64_t)x->slices[i].ts,
					     origin + (uint64_t)(x->slices[i].ts + x->slices[i].dur) };
	qsort(want, x->n, sizeof(*want), by_time);
	qsort(c->slices, c->nslices, sizeof(*c->slices), by_time);
	assert_int_equal(c->nslices, x->n);
	for (size_t i = 0; i < x->n; i++)
		if (by_time(&want[i], &c->slices[i]))
			fail_msg("slice %zu: %s [%llu, %llu] in the Perfetto trace, %s [%llu, %llu] "
				 "in the JSON", i, c->slices[i].name,
				 (unsigned long long)c->slices[i].begin,
				 (unsigned long long)c->slices[i].end, want[i].name,
				 (unsigned long long)want[i].begin, (unsigned long long)want[i].end);
	free(want);
}

void ex_expect_perfetto_matches_chrome(struct tr_case *tc, const struct ex_trace *t,
				       const char *const opts[])
{
	struct pf_check *c = calloc(1, sizeof(*c));
	struct pnode root;
	struct xtrace x;
	char out[PATH_MAX];

	assert_non_null(c);
	ex_chrome(tc, t, opts, &x);
	c->slices = calloc(x.n + 1, sizeof(*c->slices));
	assert_non_null(c->slices);
	tr_path(tc, "out.pftrace", out);
	ex_run_view(tc, "perfetto", t, opts, out);
	ex_decode_raw(tc, out, &root);
	c->x = &x;
	c->pid = t->pid;
	for (size_t i = 0; i < root.nkids; i++)
		check_packet(c, &root.kids[i]);
	for (size_t i = 0; i < c->ntracks; i++)
		if (c->tracks[i].depth)
			fail_msg("track %llu: %zu slices never end",
				 (unsigned long long)c->tracks[i].uuid, c->tracks[i].depth);
	/* a process descriptor, and per thread a sequence start and a descriptor */
	assert_int_equal(c->descriptors, 1 + xtrace_meta_count(&x, "thread_name"));
	assert_int_equal(c->nseqs, xtrace_meta_count(&x, "thread_name"));
	assert_int_equal(c->packets, 2 * x.n + c->descriptors + c->nseqs);
	expect_same_slices(c, &x);
	if (ex_count(&x, "parse_number") == 6) /* the demo, unfiltered: 2, 3, 4, 1, 2, 3 */
		assert_true(c->rets[1] == 1 && c->rets[2] == 2 && c->rets[3] == 2 &&
			    c->rets[4] == 1);
	pnode_free(&root);
	xtrace_free(&x);
	free(c->slices);
	free(c);
}

void ex_expect_perfetto_process(struct tr_case *tc, const struct ex_trace *t,
				const char *const cmdline[], const char *name)
{
	const struct pnode *proc = NULL;
	struct pnode root;
	char out[PATH_MAX];
	size_t k = 0;

	tr_path(tc, "out.pftrace", out);
	ex_run_view(tc, "perfetto", t, NULL, out);
	ex_decode_raw(tc, out, &root);
	for (size_t i = 0; i < root.nkids && !proc; i++)
		proc = pnode_get(pnode_get(&root.kids[i], 60), 3);
	if (!proc)
		fail_msg("%s: no TrackDescriptor with a ProcessDescriptor", out);
	for (size_t i = 0; i < proc->nkids; i++) {
		const struct pnode *w = &proc->kids[i];

		if (w->field != 2)
			continue;
		if (!cmdline[k] || !w->value || strcmp(w->value, cmdline[k]))
			fail_msg("cmdline word %zu: \"%s\", expected \"%s\"", k,
				 w->value ? w->value : "(a message)", cmdline[k] ? cmdline[k] : "(none)");
		k++;
	}
	if (cmdline[k])
		fail_msg("cmdline: %zu words, expected \"%s\" too", k, cmdline[k]);
	if (!pnode_get(proc, 6) || !pnode_get(proc, 6)->value)
		fail_msg("a ProcessDescriptor without process_name");
	assert_string_equal(pnode_get(proc, 6)->value, name);
	pnode_free(&root);
}
