/* view_diff.c - `ada-symbolize diff A B`: what changed between two traces.
 *
 * For regression hunting (uftrace has it as text only): per function, by
 * the name views print, its total and self time and its calls in trace A
 * and in trace B (every process of each added up, through the filters),
 * with the change and the ratio B/A, sorted by how much its total time
 * changed, the largest change first (grew or shrank alike; ties by name).
 * A function in one trace only is "new" or "gone". With --format svg, a
 * differential flame graph instead (view_flame.c): trace B's, each frame
 * coloured by how its time changed from trace A's (red grew, blue shrank).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_dir.h"
#include "view_cli.h"

struct side {
	uint64_t calls, total, self;
};

struct row {
	char *name;
	struct side s[2];
};

struct diff {
	const struct view_args *a;
	struct row *rows;
	size_t n, cap;
	uint32_t *slot;      /* open addressing over rows: index + 1, 0 empty */
	size_t nslots;
	struct side *st;     /* the process being read, per dense id */
	const struct src_process *p;
	int which;           /* 0: A, 1: B */
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static int grow(struct diff *d)
{
	size_t nslots = d->nslots ? 2 * d->nslots : 1024;
	uint32_t *slot = calloc(nslots, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++) {
		size_t k = hash(d->rows[i].name) & (nslots - 1);

		while (slot[k])
			k = (k + 1) & (nslots - 1);
		slot[k] = (uint32_t)i + 1;
	}
	free(d->slot);
	d->slot = slot;
	d->nslots = nslots;
	return 0;
}

/* The row of name, added if it has none; NULL if out of memory. */
static struct row *row_of(struct diff *d, const char *name)
{
	size_t k;

	if (2 * (d->n + 1) > d->nslots && grow(d))
		return NULL;
	for (k = hash(name) & (d->nslots - 1); d->slot[k]; k = (k + 1) & (d->nslots - 1))
		if (!strcmp(d->rows[d->slot[k] - 1].name, name))
			return &d->rows[d->slot[k] - 1];
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 256;
		struct row *rows = realloc(d->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		d->rows = rows;
		d->cap = cap;
	}
	d->rows[d->n] = (struct row){ .name = strdup(name) };
	if (!d->rows[d->n].name)
		return NULL;
	d->slot[k] = (uint32_t)++d->n;
	return &d->rows[d->n - 1];
}

static int process_begin(void *ctx, struct src_process *p)
{
	struct diff *d = ctx;

	d->p = p;
	free(d->st);
	d->st = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*d->st));
	return d->st ? 0 : -ENOMEM;
}

static int event(void *ctx, struct walk *w, const struct walk_event *ev)
{
	struct side *s = &((struct diff *)ctx)->st[ev->func];

	(void)w;
	if (ev->type == WALK_EXIT) {
		s->calls++;
		s->total += ev->total_ns;
		s->self += ev->self_ns;
	}
	return 0;
}

static int process_end(void *ctx, struct src_process *p)
{
	struct diff *d = ctx;

	for (size_t k = 0; k < p->nfuncs; k++) {
		struct row *r;

		if (!d->st[k].calls)
			continue;
		if (!(r = row_of(d, d->a->full_names ? p->funcs[k].full : p->funcs[k].name)))
			return -ENOMEM;
		r->s[d->which].calls += d->st[k].calls;
		r->s[d->which].total += d->st[k].total;
		r->s[d->which].self += d->st[k].self;
	}
	return 0;
}

/* Reads trace path (its latest session, or --all) into side `which`. */
static int read_side(struct diff *d, const char *path, int which)
{
	struct view_ops ops = { .ctx = d, .process_begin = process_begin, .event = event,
				.process_end = process_end };
	char **dirs;
	int n = ada_trace_choose(path, d->a->all_sessions, &dirs), err = 0;

	if (n < 0)
		return n;
	d->which = which;
	for (int i = 0; i < n && !err; i++)
		err = view_run(dirs[i], &d->a->filter, &ops);
	ada_trace_free_paths(dirs);
	return err;
}

static uint64_t change(const struct row *r)
{
	uint64_t a = r->s[0].total, b = r->s[1].total;

	return a > b ? a - b : b - a;
}

static int by_change(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	uint64_t ca = change(a), cb = change(b);

	return ca != cb ? (ca < cb ? 1 : -1) : strcmp(a->name, b->name);
}

/* "+1.234 ms", "-20 ns": b - a. */
static const char *delta(char *buf, size_t len, uint64_t a, uint64_t b, bool ns)
{
	char d[32];

	view_duration(d, sizeof(d), a > b ? a - b : b - a, ns);
	snprintf(buf, len, "%c%s", a > b ? '-' : '+', d + strspn(d, " "));
	return buf;
}

static const char *ratio(char *buf, size_t len, uint64_t a, uint64_t b, bool in_a, bool in_b)
{
	if (!in_a)
		return "new";
	if (!in_b)
		return "gone";
	if (!a)
		return "-";
	snprintf(buf, len, "x%.2f", (double)b / (double)a);
	return buf;
}

static void print(struct diff *d, FILE *out, const char *const paths[2])
{
	bool ns = d->a->ns;
	char t[6][32];

	qsort(d->rows, d->n, sizeof(*d->rows), by_change);
	fprintf(out, "# diff: A %s, B %s\n", paths[0], paths[1]);
	fprintf(out, "  %10s  %10s  %11s  %7s  %10s  %10s  %9s  %9s  Function\n", "Total A", "Total B",
		"Change", "B/A", "Self A", "Self B", "Calls A", "Calls B");
	fprintf(out, "  ==========  ==========  ===========  =======  ==========  ==========  =========  =========  ========\n");
	for (size_t i = 0; i < d->n; i++) {
		const struct row *r = &d->rows[i];

		fprintf(out, "  %10s  %10s  %11s  %7s  %10s  %10s  %9" PRIu64 "  %9" PRIu64 "  %s\n",
			view_duration(t[0], sizeof(t[0]), r->s[0].total, ns),
			view_duration(t[1], sizeof(t[1]), r->s[1].total, ns),
			delta(t[2], sizeof(t[2]), r->s[0].total, r->s[1].total, ns),
			ratio(t[3], sizeof(t[3]), r->s[0].total, r->s[1].total, r->s[0].calls > 0,
			      r->s[1].calls > 0),
			view_duration(t[4], sizeof(t[4]), r->s[0].self, ns),
			view_duration(t[5], sizeof(t[5]), r->s[1].self, ns), r->s[0].calls,
			r->s[1].calls, r->name);
	}
}

int view_diff_main(const struct view_args *a, FILE *out)
{
	struct diff d = { .a = a };
	const char *const paths[2] = { a->paths[0], a->paths[1] };
	int err;

	if (a->format) /* svg: view_cli checked it */
		return view_flame_diff(a, paths[0], paths[1], out);
	err = read_side(&d, paths[0], 0);

	if (!err)
		err = read_side(&d, paths[1], 1);
	if (!err)
		print(&d, out, paths);
	for (size_t i = 0; i < d.n; i++)
		free(d.rows[i].name);
	free(d.rows);
	free(d.slot);
	free(d.st);
	return err;
}
