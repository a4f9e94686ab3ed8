/* export_lanes.c - the counter tracks of `ada-symbolize chrome` and
 * `perfetto` read back (export_view.h): the JSON's "ph":"C" events, the
 * protobuf's counter tracks (TrackDescriptor 8) and TYPE_COUNTER events,
 * named alike so that the two can be compared series by series. */
#include "e2e/export_view.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct ex_series *series(struct ex_series *s, size_t *n, size_t max, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(s[i].name, name))
			return &s[i];
	if (*n == max)
		fail_msg("more than %zu counter series", max);
	s[*n] = (struct ex_series){ .monotone = true };
	snprintf(s[*n].name, sizeof(s[*n].name), "%s", name);
	return &s[(*n)++];
}

static void add_value(struct ex_series *s, int64_t v)
{
	if (s->n && v < s->last)
		s->monotone = false;
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->last = v;
	s->n++;
}

size_t ex_chrome_counters(struct tr_case *tc, const struct ex_trace *t, struct ex_series *s,
			  size_t max)
{
	struct xtrace x;
	size_t n = 0;

	ex_chrome(tc, t, NULL, &x);
	for (size_t i = 0; i < json_count(x.events); i++) {
		const struct json_value *e = json_at(x.events, i), *args = json_get(e, "args");
		const char *ph = json_string(json_get(e, "ph")), *name = json_string(json_get(e, "name"));
		int64_t v;

		if (strcmp(ph, "C"))
			continue;
		if (!name || !args || !json_get(e, "ts"))
			fail_msg("counter event %zu without a name, a ts or args", i);
		if (!(json_i64(json_get(args, "ns"), &v) || json_i64(json_get(args, "faults"), &v) ||
		      json_i64(json_get(args, "bytes"), &v)))
			fail_msg("counter event %zu (%s) has no ns, faults or bytes", i, name);
		add_value(series(s, &n, max, name), v);
	}
	xtrace_free(&x);
	return n;
}

struct track {
	uint64_t uuid, parent, tid;
	const char *name;
};

size_t ex_perfetto_counters(struct tr_case *tc, const struct ex_trace *t, struct ex_series *s,
			    size_t max)
{
	char out[PATH_MAX], name[160];
	struct pnode root = { 0 };
	struct track tracks[256];
	size_t n = 0, nt = 0;

	tr_path(tc, "out.pftrace", out);
	ex_run_view(tc, "perfetto", t, NULL, out);
	ex_decode_raw(tc, out, &root);
	for (size_t i = 0; i < root.nkids; i++) { /* descriptors may come after their events */
		const struct pnode *td = pnode_get(&root.kids[i], 60), *th;
		struct track *k;

		if (!td)
			continue;
		if (nt == sizeof(tracks) / sizeof(tracks[0]))
			fail_msg("more than %zu tracks", nt);
		k = &tracks[nt++];
		*k = (struct track){ 0 };
		pnode_u64(td, 1, &k->uuid);
		pnode_u64(td, 5, &k->parent);
		if ((th = pnode_get(td, 4)))
			pnode_u64(th, 2, &k->tid);
		k->name = pnode_get(td, 8) && pnode_get(td, 2) ? pnode_get(td, 2)->value : NULL;
	}
	for (size_t i = 0; i < root.nkids; i++) {
		const struct pnode *te = pnode_get(&root.kids[i], 11);
		const struct track *k = NULL, *parent = NULL;
		uint64_t type = 0, uuid = 0, v = 0;

		if (!te || !pnode_u64(te, 9, &type) || type != 4)
			continue;
		if (!pnode_u64(te, 11, &uuid) || !pnode_u64(te, 30, &v))
			fail_msg("a counter event without its track or value");
		for (size_t j = 0; j < nt; j++) {
			if (tracks[j].uuid == uuid)
				k = &tracks[j];
		}
		if (!k || !k->name)
			fail_msg("a counter event on track %lu, which no counter descriptor names",
				 (unsigned long)uuid);
		for (size_t j = 0; j < nt; j++)
			if (tracks[j].uuid == k->parent)
				parent = &tracks[j];
		if (parent && parent->tid) /* a thread's: named as the JSON names it */
			snprintf(name, sizeof(name), "%s (tid %lu)", k->name, (unsigned long)parent->tid);
		else
			snprintf(name, sizeof(name), "%s", k->name);
		add_value(series(s, &n, max, name), (int64_t)v);
	}
	pnode_free(&root);
	return n;
}

const struct ex_series *ex_series_find(const struct ex_series *s, size_t n, const char *prefix)
{
	const struct ex_series *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (!strncmp(s[i].name, prefix, strlen(prefix)) && (!best || s[i].last > best->last))
			best = &s[i];
	if (!best)
		fail_msg("no counter series named %s...", prefix);
	return best;
}

void ex_expect_counters_agree(struct tr_case *tc, const struct ex_trace *t, struct ex_series *s,
			      size_t *n, size_t max)
{
	struct ex_series *pf = calloc(max, sizeof(*pf));
	size_t npf;

	*n = ex_chrome_counters(tc, t, s, max);
	if (!tr_have_tool("protoc")) {
		print_message("protoc missing: the Perfetto counter tracks not checked\n");
		free(pf);
		return;
	}
	npf = ex_perfetto_counters(tc, t, pf, max);
	if (npf != *n)
		fail_msg("chrome has %zu counter series, perfetto %zu", *n, npf);
	for (size_t i = 0; i < *n; i++) {
		const struct ex_series *p = ex_series_find(pf, npf, s[i].name);

		if (strcmp(p->name, s[i].name) || p->n != s[i].n || p->last != s[i].last ||
		    p->min != s[i].min || p->max != s[i].max)
			fail_msg("series %s: chrome %zu values (last %lld), perfetto %s %zu (last %lld)",
				 s[i].name, s[i].n, (long long)s[i].last, p->name, p->n,
				 (long long)p->last);
	}
	free(pf);
}

static bool sampled_name(const char *name, const char *prefix)
{
	size_t n = name ? strlen(name) : 0;

	return n > 10 && !strncmp(name, prefix, strlen(prefix)) &&
	       !strcmp(name + n - 10, " [sampled]");
}

size_t ex_expect_sampled_instants(struct tr_case *tc, const struct ex_trace *t, const char *prefix)
{
	char out[PATH_MAX];
	struct pnode root = { 0 };
	struct xtrace x;
	size_t nj = 0, np = 0;

	ex_chrome(tc, t, NULL, &x);
	for (size_t i = 0; i < json_count(x.events); i++) {
		const struct json_value *e = json_at(x.events, i);
		const char *ph = json_string(json_get(e, "ph")), *cat = json_string(json_get(e, "cat"));
		const char *name = json_string(json_get(e, "name")), *s = json_string(json_get(e, "s"));

		if (!cat || strcmp(cat, "sampled"))
			continue;
		if (strcmp(ph, "i") || !s || strcmp(s, "t") || !json_get(e, "ts"))
			fail_msg("a sampled event that is no thread-scoped instant: %s", name);
		nj += sampled_name(name, prefix);
	}
	xtrace_free(&x);
	if (!tr_have_tool("protoc"))
		return nj;
	tr_path(tc, "out.pftrace", out);
	ex_run_view(tc, "perfetto", t, NULL, out);
	ex_decode_raw(tc, out, &root);
	for (size_t i = 0; i < root.nkids; i++) {
		const struct pnode *te = pnode_get(&root.kids[i], 11), *cat, *name = NULL;
		uint64_t type = 0;

		if (!te || !(cat = pnode_get(te, 22)) || strcmp(cat->value, "sampled"))
			continue;
		if (!pnode_u64(te, 9, &type) || type != 3 || !(name = pnode_get(te, 23)))
			fail_msg("a sampled track event that is no named instant");
		np += sampled_name(name->value, prefix);
	}
	pnode_free(&root);
	if (np != nj)
		fail_msg("%zu sampled instants of %s... in the JSON, %zu in the protobuf", nj, prefix, np);
	return nj;
}
