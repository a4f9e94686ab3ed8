/* export_view.c - test_views_export.c's steps (see export_view.h). */
#include "e2e/export_view.h"

#include <ctype.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracee.h"

#define SYMBOLIZE ADA_ROOT "/bin/ada-symbolize"
#define MAX_ARGS 16

/* ---- traces ------------------------------------------------------------------------ */

/* Builds source with gcc and with adacc in fentry mode (registers in the
 * detail lane), runs both with args, library calls recorded (the dynamic
 * hooks: frames of other modules), and symbolizes the trace. */
static void trace_source(struct tr_case *tc, struct ex_trace *t, const char *name,
			 const char *source, const char *const args[], bool one_process)
{
	const char *const plain_flags[] = { "-O0", NULL };
	const char *const flags[] = { "-O0", "--ada-mode=fentry", NULL };
	char env_out[4300], plain[128];
	const char *const env[] = { env_out, "ADA_DYNHOOK=on", NULL };
	char *pid_dir, *base;

	snprintf(t->trace, sizeof(t->trace), "%s/trace_%s", tc->dir, name);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", t->trace);
	snprintf(plain, sizeof(plain), "%s.plain", name);
	tr_build(tc, NULL, "gcc", source, plain, plain_flags);
	tr_build(tc, NULL, TR_ADACC, source, name, flags);
	tr_run_pair(tc, name, args, env, 0);
	tr_symbolize(tc, t->trace);
	t->replay = strdup(tc->replay.out);
	if (!t->replay)
		fail_msg("out of memory");
	t->ready = true;
	if (!one_process)
		return;
	pid_dir = tracee_pid_dir(t->trace);
	if (!pid_dir)
		fail_msg("%s: not one pid_* directory", t->trace);
	base = strrchr(pid_dir, '/');
	t->pid = (uint32_t)strtoul(base + strlen("/pid_"), NULL, 10);
	free(pid_dir);
}

const struct ex_trace *ex_demo(struct tr_case *tc, struct ex_trace *t)
{
	if (!t->ready)
		trace_source(tc, t, "demo", "examples/demo.c", NULL, true);
	return t;
}

const struct ex_trace *ex_threads(struct tr_case *tc, struct ex_trace *t)
{
	if (!t->ready)
		trace_source(tc, t, "threads", "examples/threads.c", NULL, true);
	return t;
}

void ex_trace_prog(struct tr_case *tc, struct ex_trace *t, const char *name, const char *prog,
		   const char *const args[], bool one_process)
{
	trace_source(tc, t, name, prog, args, one_process);
}

void ex_trace_free(struct ex_trace *t)
{
	free(t->replay);
	t->replay = NULL;
	t->ready = false;
}

/* ---- running the views ---------------------------------------------------------------- */

/* ada-symbolize VIEW opts... -o out TRACE; fails the test unless it exits 0
 * with nothing on stderr. */
static void run_view(struct tr_case *tc, const char *view, const struct ex_trace *t,
		     const char *const opts[], const char *out)
{
	const char *argv[MAX_ARGS + 6];
	struct proc_result res = { 0 };
	char cmd[1024], why[64];
	size_t n = 0;

	argv[n++] = SYMBOLIZE;
	argv[n++] = view;
	for (size_t i = 0; opts && opts[i] && i < MAX_ARGS; i++)
		argv[n++] = opts[i];
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = t->trace;
	argv[n] = NULL;
	tr_run(tc, argv, NULL, &res);
	proc_cmdline(argv, cmd, sizeof(cmd));
	if (proc_exit_code(&res) != 0 || res.err_len)
		fail_msg("%s: %s\n%s", cmd, proc_describe(&res, why, sizeof(why)), res.err);
	proc_result_free(&res);
}

void ex_chrome(struct tr_case *tc, const struct ex_trace *t, const char *const opts[],
	       struct xtrace *x)
{
	char out[PATH_MAX], err[512];

	tr_path(tc, "out.json", out);
	run_view(tc, "chrome", t, opts, out);
	if (xtrace_load(out, x, err, sizeof(err)) < 0)
		fail_msg("%s", err);
}

/* ---- comparisons ------------------------------------------------------------------------ */

void ex_expect_nesting(const struct xtrace *x)
{
	char why[512];

	if (!xtrace_nests(x, why, sizeof(why)))
		fail_msg("slices do not nest: %s", why);
}

size_t ex_count(const struct xtrace *x, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < x->n; i++)
		n += strcmp(x->slices[i].name, name) == 0;
	return n;
}

struct name_count {
	char name[256];
	unsigned long n;
};

static void add_count(struct name_count *c, size_t *n, size_t max, const char *name,
		      unsigned long k)
{
	size_t i;

	for (i = 0; i < *n && strcmp(c[i].name, name) != 0; i++)
		;
	if (i == *n) {
		if (*n == max)
			fail_msg("more than %zu function names", max);
		snprintf(c[(*n)++].name, sizeof(c->name), "%s", name);
	}
	c[i].n += k;
}

/* One replay line: "<2 spaces per depth>name[@version][ xN][ (mark)]". */
static size_t replay_line(const char *line, size_t len, char *name, size_t size,
			  unsigned long *times)
{
	const char *start = line, *end = line + len, *x;

	while (start < end && *start == ' ')
		start++;
	if (end > start && end[-1] == ')') { /* " (unwound)", " (open at exit)"... */
		for (x = end - 1; x > start && !(x[0] == '(' && x[-1] == ' '); x--)
			;
		if (x > start)
			end = x - 1;
	}
	*times = 1;
	for (x = end; x > start && isdigit((unsigned char)x[-1]); x--)
		;
	if (x < end && x - 2 > start && x[-1] == 'x' && x[-2] == ' ') {
		*times = strtoul(x, NULL, 10);
		end = x - 2;
	}
	snprintf(name, size, "%.*s", (int)(end - start), start);
	name[strcspn(name, "@")] = '\0';
	return (size_t)(start - line) / 2;
}

/* Calls per function in replay output: a line's xN multiplies its subtree. */
static size_t replay_counts(const char *replay, struct name_count *c, size_t max)
{
	unsigned long mult[512];
	size_t n = 0;

	for (const char *s = replay; *s;) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s), depth;
		unsigned long times;
		char name[256];

		if (len && s[0] != '#') {
			depth = replay_line(s, len, name, sizeof(name), &times);
			if (depth >= 511)
				fail_msg("replay deeper than 511");
			mult[depth] = (depth ? mult[depth - 1] : 1) * times;
			add_count(c, &n, max, name, mult[depth]);
		}
		s += len + (eol != NULL);
	}
	return n;
}

void ex_expect_replay_counts(const struct xtrace *x, const char *replay)
{
	static struct name_count want[512], got[512];
	size_t nwant = replay_counts(replay, want, 512), ngot = 0;

	for (size_t i = 0; i < x->n; i++)
		add_count(got, &ngot, 512, x->slices[i].name, 1);
	for (size_t i = 0; i < nwant; i++)
		if (ex_count(x, want[i].name) != want[i].n)
			fail_msg("%s: %zu X events, --replay shows %lu calls\n%s", want[i].name,
				 ex_count(x, want[i].name), want[i].n, replay);
	for (size_t i = 0; i < ngot; i++) {
		size_t k;

		for (k = 0; k < nwant && strcmp(want[k].name, got[i].name) != 0; k++)
			;
		if (k == nwant)
			fail_msg("%s: %lu X events, not in --replay\n%s", got[i].name, got[i].n,
				 replay);
	}
	memset(want, 0, sizeof(want));
	memset(got, 0, sizeof(got));
}

/* Place, then longer first, then name. */
static int by_identity(const void *a, const void *b)
{
	const struct xslice *x = *(const struct xslice *const *)a;
	const struct xslice *y = *(const struct xslice *const *)b;
	int c = xslice_cmp_place(x, y);

	if (c)
		return c;
	if (x->dur != y->dur)
		return x->dur < y->dur ? 1 : -1;
	return strcmp(x->name, y->name);
}

static bool passes_filter(const struct xtrace *all, const size_t *parent, size_t i,
			  enum ex_filter f, const char *arg)
{
	size_t depth = 0;
	bool under = false;

	for (size_t k = i; k != XSLICE_ROOT; k = parent[k]) {
		depth++;
		under = under || strcmp(all->slices[k].name, arg) == 0;
	}
	switch (f) {
	case EX_UNDER:
		return under;
	case EX_NOT_UNDER:
		return !under;
	case EX_DEPTH_AT_MOST:
		return depth <= strtoul(arg, NULL, 10);
	}
	return false;
}

/* got's slices equal want's, as multisets. */
static void expect_same_slices(const struct xslice **want, size_t nwant, const struct xtrace *got,
			       const char *what)
{
	const struct xslice **g = calloc(got->n + 1, sizeof(*g));

	assert_non_null(g);
	for (size_t i = 0; i < got->n; i++)
		g[i] = &got->slices[i];
	qsort(want, nwant, sizeof(*want), by_identity);
	qsort(g, got->n, sizeof(*g), by_identity);
	if (nwant != got->n)
		fail_msg("%s: %zu slices, expected %zu", what, got->n, nwant);
	for (size_t i = 0; i < nwant; i++)
		if (by_identity(&want[i], &g[i]) != 0)
			fail_msg("%s: slice %zu is %s at %lld (+%lld), expected %s at %lld (+%lld)",
				 what, i, g[i]->name, (long long)g[i]->ts, (long long)g[i]->dur,
				 want[i]->name, (long long)want[i]->ts, (long long)want[i]->dur);
	free(g);
}

void ex_expect_subset(const struct xtrace *all, const struct xtrace *got, enum ex_filter f,
		      const char *arg)
{
	size_t *parent = xtrace_parents(all);
	const struct xslice **want = calloc(all->n + 1, sizeof(*want));
	size_t n = 0;

	assert_non_null(parent);
	assert_non_null(want);
	for (size_t i = 0; i < all->n; i++)
		if (passes_filter(all, parent, i, f, arg))
			want[n++] = &all->slices[i];
	expect_same_slices(want, n, got, arg);
	free(want);
	free(parent);
}

static int by_ts(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void ex_expect_time_range(struct tr_case *tc, const struct ex_trace *t, const struct xtrace *all)
{
	int64_t *ts = calloc(all->n + 1, sizeof(*ts)), a, b;
	const struct xslice **want = calloc(all->n + 1, sizeof(*want));
	char range[64];
	const char *const opts[] = { "--time-range", range, NULL };
	struct xtrace got;
	size_t n = 0;

	assert_true(ts && want && all->n >= 3);
	for (size_t i = 0; i < all->n; i++)
		ts[i] = all->slices[i].ts;
	qsort(ts, all->n, sizeof(*ts), by_ts);
	a = ts[all->n / 3]; /* the middle third of the slices, by start */
	b = ts[2 * all->n / 3];
	snprintf(range, sizeof(range), "%lldns~%lldns", (long long)a, (long long)b);
	for (size_t i = 0; i < all->n; i++)
		if (all->slices[i].ts >= a && all->slices[i].ts < b)
			want[n++] = &all->slices[i];
	assert_true(n > 0 && n < all->n);
	ex_chrome(tc, t, opts, &got);
	expect_same_slices(want, n, &got, range);
	xtrace_free(&got);
	free(want);
	free(ts);
}

/* ---- the Perfetto trace, through protoc --decode_raw ---------------------------------- */

#define PF_MAX 1024

struct pf_track {
	uint64_t uuid, last_ts;
	size_t depth;
	const char *open[PF_MAX];  /* names of the slices open on it */
};

struct pf_check {
	const struct xtrace *x;
	uint32_t pid;
	struct { uint64_t seq, iid; const char *name; } names[PF_MAX];
	size_t nnames;
	uint64_t cleared[PF_MAX];      /* sequences whose state was cleared */
	size_t ncleared;
	struct pf_track tracks[64];
	size_t ntracks;
	struct name_count begins[512];
	size_t nbegins;
	size_t packets, descriptors, ends;
	unsigned long rets[8];         /* parse_number's "ret" annotations */
};

static bool cleared(const struct pf_check *c, uint64_t seq)
{
	for (size_t i = 0; i < c->ncleared; i++)
		if (c->cleared[i] == seq)
			return true;
	return false;
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

static void check_descriptor(struct pf_check *c, const struct pnode *td)
{
	const struct pnode *proc = pnode_get(td, 3), *thr = pnode_get(td, 4);
	uint64_t pid = 0, tid = 0, uuid;

	c->descriptors++;
	if (!pnode_u64(td, 1, &uuid))
		fail_msg("a TrackDescriptor without uuid");
	if (proc && (!pnode_u64(proc, 1, &pid) || pid != c->pid || !pnode_get(proc, 6)))
		fail_msg("process descriptor: pid %llu, expected %u, and a process_name",
			 (unsigned long long)pid, c->pid);
	if (thr && (!pnode_u64(thr, 1, &pid) || !pnode_u64(thr, 2, &tid) || pid != c->pid ||
		    !xtrace_meta(c->x, "thread_name", c->pid, (uint32_t)tid) || !pnode_get(thr, 5)))
		fail_msg("thread descriptor: pid %llu tid %llu, not a thread of the JSON's",
			 (unsigned long long)pid, (unsigned long long)tid);
	if (!proc && !thr && !pnode_get(td, 2))
		fail_msg("a TrackDescriptor with neither process, thread nor name");
}

static void check_begin(struct pf_check *c, struct pf_track *tr, const struct pnode *te,
			uint64_t seq)
{
	uint64_t iid;
	const char *name;

	if (!pnode_u64(te, 10, &iid) || !(name = interned_name(c, seq, iid)))
		fail_msg("sequence %llu: a slice begin whose name_iid is not interned",
			 (unsigned long long)seq);
	if (tr->depth == PF_MAX)
		fail_msg("track %llu deeper than %d", (unsigned long long)tr->uuid, PF_MAX);
	tr->open[tr->depth++] = name;
	add_count(c->begins, &c->nbegins, 512, name, 1);
}

static void check_end(struct pf_check *c, struct pf_track *tr, const struct pnode *te)
{
	const char *name;

	if (!tr->depth)
		fail_msg("track %llu: a slice end with no slice open", (unsigned long long)tr->uuid);
	name = tr->open[--tr->depth];
	c->ends++;
	if (strcmp(name, "parse_number") != 0)
		return;
	for (size_t i = 0; i < te->nkids; i++) {
		uint64_t iid, v;

		if (te->kids[i].field == 4 && pnode_u64(&te->kids[i], 1, &iid) && iid == 9 &&
		    pnode_u64(&te->kids[i], 7, &v))
			c->rets[v & 7]++;
	}
}

static void check_packet(struct pf_check *c, const struct pnode *pk)
{
	const struct pnode *te = pnode_get(pk, 11), *td = pnode_get(pk, 60);
	uint64_t seq = 0, flags = 0, ts, type, uuid;
	bool has_seq = pnode_u64(pk, 10, &seq);

	c->packets++;
	if (pk->field != 1 || pk->value)
		fail_msg("a Trace holds field %u, not packets (1)", pk->field);
	pnode_u64(pk, 13, &flags);
	if (flags == 1) {
		if (!has_seq || cleared(c, seq) || c->ncleared == PF_MAX)
			fail_msg("sequence %llu cleared twice or without an id",
				 (unsigned long long)seq);
		c->cleared[c->ncleared++] = seq;
	}
	intern_names(c, pnode_get(pk, 12), seq);
	if (td)
		check_descriptor(c, td);
	if (!te)
		return;
	if (!has_seq || !cleared(c, seq) || flags != 2 || !pnode_u64(pk, 8, &ts))
		fail_msg("a track event packet without timestamp, or on sequence %llu (flags "
			 "%llu) before its state was cleared", (unsigned long long)seq,
			 (unsigned long long)flags);
	if (!pnode_u64(te, 9, &type) || !pnode_u64(te, 11, &uuid))
		fail_msg("a track event without type or track_uuid");
	struct pf_track *tr = track(c, uuid);
	if (ts < tr->last_ts)
		fail_msg("track %llu: time goes back", (unsigned long long)uuid);
	tr->last_ts = ts;
	if (type == 1)
		check_begin(c, tr, te, seq);
	else if (type == 2)
		check_end(c, tr, te);
	else
		fail_msg("track event type %llu", (unsigned long long)type);
}

/* protoc --decode_raw < path, parsed. */
static void decode_raw(struct tr_case *tc, const char *path, struct pnode *root)
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

void ex_expect_perfetto_matches_chrome(struct tr_case *tc, const struct ex_trace *t,
				       const char *const opts[])
{
	struct pf_check *c = calloc(1, sizeof(*c));
	struct pnode root;
	struct xtrace x;
	char out[PATH_MAX];

	assert_non_null(c);
	ex_chrome(tc, t, opts, &x);
	tr_path(tc, "out.pftrace", out);
	run_view(tc, "perfetto", t, opts, out);
	decode_raw(tc, out, &root);
	c->x = &x;
	c->pid = t->pid;
	for (size_t i = 0; i < root.nkids; i++)
		check_packet(c, &root.kids[i]);
	for (size_t i = 0; i < c->ntracks; i++)
		if (c->tracks[i].depth)
			fail_msg("track %llu: %zu slices never end",
				 (unsigned long long)c->tracks[i].uuid, c->tracks[i].depth);
	assert_int_equal(c->descriptors, 1 + xtrace_meta_count(&x, "thread_name"));
	assert_int_equal(c->ends, x.n);
	assert_int_equal(c->packets, 2 * x.n + c->descriptors);
	for (size_t i = 0; i < x.n; i++) {
		size_t k;

		for (k = 0; k < c->nbegins && strcmp(c->begins[k].name, x.slices[i].name); k++)
			;
		if (k == c->nbegins || c->begins[k].n != ex_count(&x, x.slices[i].name))
			fail_msg("%s: %lu slices in the Perfetto trace, %zu in the JSON",
				 x.slices[i].name, k < c->nbegins ? c->begins[k].n : 0,
				 ex_count(&x, x.slices[i].name));
	}
	if (ex_count(&x, "parse_number") == 6) /* the demo, unfiltered: 2, 3, 4, 1, 2, 3 */
		assert_true(c->rets[1] == 1 && c->rets[2] == 2 && c->rets[3] == 2 &&
			    c->rets[4] == 1);
	pnode_free(&root);
	xtrace_free(&x);
	free(c);
}
