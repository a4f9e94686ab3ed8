/* export_read.c - reading back the exports (see export_read.h). */
#include "e2e/export_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the JSON export ------------------------------------------------------------ */

static int bad(char *err, size_t errlen, size_t i, const char *what)
{
	snprintf(err, errlen, "traceEvents[%zu]: %s", i, what);
	return -1;
}

/* A time in microseconds with three decimals, as nanoseconds. */
bool xtrace_time_ns(const struct json_value *v, int64_t *ns)
{
	if (!v || v->type != JSON_NUMBER)
		return false;
	*ns = (int64_t)(v->num.d * 1000.0 + (v->num.d < 0 ? -0.5 : 0.5));
	return true;
}

static bool id_u32(const struct json_value *obj, const char *key, uint32_t *out)
{
	uint64_t v;

	if (!json_u64(json_get(obj, key), &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int read_slice(const struct json_value *e, size_t i, struct xslice *s, char *err,
		      size_t errlen)
{
	s->order = i;
	s->name = json_string(json_get(e, "name"));
	s->cat = json_string(json_get(e, "cat"));
	s->args = json_get(e, "args");
	if (!id_u32(e, "pid", &s->pid) || !id_u32(e, "tid", &s->tid))
		return bad(err, errlen, i, "no integer pid or tid");
	if (!s->name || !s->cat)
		return bad(err, errlen, i, "X event without a string name or cat");
	if (!xtrace_time_ns(json_get(e, "ts"), &s->ts) || !xtrace_time_ns(json_get(e, "dur"), &s->dur))
		return bad(err, errlen, i, "X event without numbers ts and dur");
	if (s->dur < 0)
		return bad(err, errlen, i, "negative dur");
	if (s->args && s->args->type != JSON_OBJECT) /* none with --no-args */
		return bad(err, errlen, i, "X event whose args is not an object");
	return 0;
}

int xtrace_load(const char *path, struct xtrace *t, char *err, size_t errlen)
{
	const struct json_value *unit, *other;
	char why[256];
	int ret;

	memset(t, 0, sizeof(*t));
	ret = json_parse_file(path, &t->doc, why, sizeof(why));
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, ret == -EBADMSG ? why : strerror(-ret));
		return -1;
	}
	t->root = json_root(t->doc);
	t->events = json_get(t->root, "traceEvents");
	unit = json_get(t->root, "displayTimeUnit");
	other = json_get(t->root, "otherData");
	if (!t->events || t->events->type != JSON_ARRAY || !other || other->type != JSON_OBJECT ||
	    !json_string(unit) || strcmp(json_string(unit), "ns") != 0) {
		snprintf(err, errlen, "%s: not {traceEvents: [...], displayTimeUnit: \"ns\", "
			 "otherData: {...}}", path);
		return -1;
	}
	t->slices = calloc(json_count(t->events) + 1, sizeof(*t->slices));
	if (!t->slices) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < json_count(t->events); i++) {
		const struct json_value *e = json_at(t->events, i);
		const char *ph = json_string(json_get(e, "ph"));
		uint32_t id;

		if (!ph)
			return bad(err, errlen, i, "no string ph");
		if (!id_u32(e, "pid", &id) || !id_u32(e, "tid", &id))
			return bad(err, errlen, i, "no integer pid or tid");
		if (strcmp(ph, "X") == 0 && read_slice(e, i, &t->slices[t->n++], err, errlen) < 0)
			return -1;
	}
	return 0;
}

void xtrace_free(struct xtrace *t)
{
	json_free(t->doc);
	free(t->slices);
	memset(t, 0, sizeof(*t));
}

static bool is_meta(const struct json_value *e, const char *what)
{
	const char *ph = json_string(json_get(e, "ph"));
	const char *name = json_string(json_get(e, "name"));

	return ph && name && strcmp(ph, "M") == 0 && strcmp(name, what) == 0;
}

const char *xtrace_meta(const struct xtrace *t, const char *what, uint32_t pid, uint32_t tid)
{
	bool thread = strcmp(what, "thread_name") == 0;

	for (size_t i = 0; i < json_count(t->events); i++) {
		const struct json_value *e = json_at(t->events, i);
		uint32_t p, d;

		if (!is_meta(e, what) || !id_u32(e, "pid", &p) || !id_u32(e, "tid", &d))
			continue;
		if (p == pid && (!thread || d == tid))
			return json_string(json_get(json_get(e, "args"), "name"));
	}
	return NULL;
}

size_t xtrace_meta_count(const struct xtrace *t, const char *what)
{
	size_t n = 0;

	for (size_t i = 0; i < json_count(t->events); i++)
		n += is_meta(json_at(t->events, i), what);
	return n;
}

const char *xslice_arg(const struct xslice *s, const char *key)
{
	return json_string(json_get(s->args, key));
}

int xslice_cmp_place(const struct xslice *x, const struct xslice *y)
{
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return 0;
}

/* A viewer's order: by pid and tid, then ts, ties in file order. */
static int by_viewer_order(const void *a, const void *b)
{
	const struct xslice *x = *(const struct xslice *const *)a;
	const struct xslice *y = *(const struct xslice *const *)b;
	int c = xslice_cmp_place(x, y);

	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

/* Walks the slices in viewer order with a stack of open ones, noting each
 * slice's parent if parents is not NULL. False at the first overlap. */
static bool walk_nesting(const struct xtrace *t, size_t *parents, char *why, size_t len)
{
	const struct xslice **v = calloc(t->n + 1, sizeof(*v));
	const struct xslice **open = calloc(t->n + 1, sizeof(*open));
	size_t nopen = 0;
	bool ok = v && open;

	for (size_t i = 0; ok && i < t->n; i++)
		v[i] = &t->slices[i];
	if (ok)
		qsort(v, t->n, sizeof(*v), by_viewer_order);
	for (size_t i = 0; ok && i < t->n; i++) {
		const struct xslice *s = v[i];

		while (nopen && (open[nopen - 1]->pid != s->pid || open[nopen - 1]->tid != s->tid ||
				 open[nopen - 1]->ts + open[nopen - 1]->dur <= s->ts))
			nopen--;
		if (nopen && s->ts + s->dur > open[nopen - 1]->ts + open[nopen - 1]->dur) {
			snprintf(why, len, "tid %u: %s [%lld, +%lld] (event %zu) overlaps %s [%lld, +%lld] "
				 "(event %zu)", s->tid, s->name, (long long)s->ts, (long long)s->dur,
				 s->order, open[nopen - 1]->name, (long long)open[nopen - 1]->ts,
				 (long long)open[nopen - 1]->dur, open[nopen - 1]->order);
			ok = false;
			break;
		}
		if (parents)
			parents[s - t->slices] = nopen ? (size_t)(open[nopen - 1] - t->slices)
						       : XSLICE_ROOT;
		open[nopen++] = s;
	}
	if (!v || !open)
		snprintf(why, len, "out of memory");
	free(v);
	free(open);
	return ok;
}

bool xtrace_nests(const struct xtrace *t, char *why, size_t len)
{
	return walk_nesting(t, NULL, why, len);
}

size_t *xtrace_parents(const struct xtrace *t)
{
	size_t *d = calloc(t->n + 1, sizeof(*d));
	char why[256];

	if (d && !walk_nesting(t, d, why, sizeof(why))) {
		free(d);
		return NULL;
	}
	return d;
}

/* ---- protoc --decode_raw ----------------------------------------------------------- */

static struct pnode *add_kid(struct pnode *n, uint32_t field)
{
	struct pnode *kids = realloc(n->kids, (n->nkids + 1) * sizeof(*kids));

	if (!kids)
		return NULL;
	n->kids = kids;
	memset(&kids[n->nkids], 0, sizeof(*kids));
	kids[n->nkids].field = field;
	return &kids[n->nkids++];
}

/* A quoted string's content (decode_raw escapes like C; names need only
 * \" and \\). */
static char *unquote(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n)
			i++;
		*o++ = s[i];
	}
	*o = '\0';
	return out;
}

#define PNODE_DEPTH 32

int pnode_parse(const char *text, struct pnode *root, char *err, size_t errlen)
{
	struct pnode *path[PNODE_DEPTH];
	size_t depth = 0, line = 0;

	memset(root, 0, sizeof(*root));
	path[0] = root;
	for (const char *s = text; *s; line++) {
		const char *eol = strchr(s, '\n'), *p = s;
		size_t n;
		char *end;
		unsigned long field;

		eol = eol ? eol : s + strlen(s);
		while (*p == ' ')
			p++;
		n = (size_t)(eol - p);
		s = *eol ? eol + 1 : eol;
		if (!n)
			continue;
		if (n == 1 && *p == '}') {
			if (!depth)
				goto bad;
			depth--;
			continue;
		}
		field = strtoul(p, &end, 10);
		if (end == p)
			goto bad;
		if (strncmp(end, " {", 2) == 0) {
			struct pnode *k = add_kid(path[depth], (uint32_t)field);

			if (!k || depth + 1 == PNODE_DEPTH)
				goto bad;
			path[++depth] = k;
		} else if (strncmp(end, ": ", 2) == 0) {
			struct pnode *k = add_kid(path[depth], (uint32_t)field);

			if (!k || !(k->value = unquote(end + 2, (size_t)(eol - end - 2))))
				goto bad;
		} else {
			goto bad;
		}
	}
	if (depth)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "decode_raw line %zu: not \"N {\", \"N: value\" or \"}\"", line + 1);
	pnode_free(root);
	return -1;
}

void pnode_free(struct pnode *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		pnode_free(&n->kids[i]);
	free(n->kids);
	free(n->value);
	memset(n, 0, sizeof(*n));
}

const struct pnode *pnode_get(const struct pnode *n, uint32_t field)
{
	for (size_t i = 0; n && i < n->nkids; i++)
		if (n->kids[i].field == field)
			return &n->kids[i];
	return NULL;
}

bool pnode_u64(const struct pnode *n, uint32_t field, uint64_t *v)
{
	const struct pnode *k = pnode_get(n, field);
	char *end;

	if (!k || !k->value)
		return false;
	errno = 0;
	*v = strtoull(k->value, &end, 10);
	return !errno && end != k->value && !*end;
}
