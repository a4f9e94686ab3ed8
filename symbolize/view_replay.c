/* view_replay.c - the call tree a person reads (format in views.h).
 *
 * A billion events of a loop must not need a billion tree nodes. Subtrees are
 * hash-consed: a node is (name, mark, run-length list of (child, count)),
 * and identical nodes are one node, found in a hash table. Nodes are built
 * bottom-up as frames close, so "the same subtree again" is an id comparison,
 * and consecutive repeats become a count. Memory grows with the number of
 * distinct subtree shapes, not with the number of events.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "atf.h"
#include "trace_dir.h"
#include "views.h"

struct run {
	uint32_t node;
	uint64_t count;
};

struct node {
	uint32_t name;
	const char *mark;  /* "(unwound)", an ada_trace_open_mark, or NULL */
	uint32_t nruns;
	struct run *runs;
	uint64_t hash;
	uint32_t next;    /* next node in the same bucket, or NO_NODE */
};

/* An open call; its array is kept when the frame closes, for the next call
 * at the same depth, so a steady trace allocates nothing per event. */
struct frame {
	uint32_t name;
	struct run *runs;
	size_t nruns, cap;
};

struct replay {
	FILE *out;
	struct ada_trace_symbols syms;
	uint32_t *sym_name;            /* name id of each syms.v[i] */
	char **names;                  /* interned display names: symbols' first */
	size_t nnames, names_cap, nsymnames;
	struct node *nodes;
	size_t nnodes;
	uint32_t *buckets;             /* node hash table, nbuckets a power of 2 */
	size_t nbuckets;
	struct frame *frames;          /* [0, nframes) initialized, reused */
	size_t depth, nframes, frames_cap;
	struct run top;                /* the pending run of depth-1 subtrees */
	uint32_t *walk;                /* printing stack: node, next run, ... */
	size_t walk_cap;
};

#define NO_NODE UINT32_MAX
static const char UNWOUND[] = "(unwound)";

/* Grows *v (of elements of `size` bytes, capacity *cap) to hold n elements. */
static int grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	p = realloc(*(void **)v, c * size);
	if (!p)
		return -ENOMEM;
	*(void **)v = p;
	*cap = c;
	return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h * 0xFF51AFD7ED558CCDull;
}

/* ---- names -------------------------------------------------------------------- */

/* Two functions with the same display name print the same line, so they
 * share a name id and their identical subtrees collapse together: names are
 * interned once, at load, by sorting the symbols by display name. */
static int by_display(const void *a, const void *b)
{
	const struct ada_trace_symbol *const *x = a, *const *y = b;

	return strcmp((*x)->display, (*y)->display);
}

static int add_name(struct replay *r, const char *s)
{
	if (grow(&r->names, &r->names_cap, r->nnames + 1, sizeof(*r->names)))
		return -ENOMEM;
	r->names[r->nnames] = strdup(s);
	return r->names[r->nnames++] ? 0 : -ENOMEM;
}

static int intern_symbol_names(struct replay *r)
{
	const struct ada_trace_symbol **order = malloc((r->syms.n + 1) * sizeof(*order));
	int ret = 0;

	r->sym_name = malloc((r->syms.n + 1) * sizeof(*r->sym_name));
	if (!order || !r->sym_name)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < r->syms.n; i++)
		order[i] = &r->syms.v[i];
	if (!ret)
		qsort(order, r->syms.n, sizeof(*order), by_display);
	for (size_t i = 0; !ret && i < r->syms.n; i++) {
		if (!i || strcmp(order[i]->display, order[i - 1]->display))
			ret = add_name(r, order[i]->display);
		r->sym_name[order[i] - r->syms.v] = (uint32_t)r->nnames - 1;
	}
	free(order);
	r->nsymnames = r->nnames;
	return ret;
}

/* The name id of a function. One missing from the manifest (an invalid
 * trace, so a linear search is good enough) is named by its id in hex. */
static int name_of(struct replay *r, uint64_t fid, uint32_t *name)
{
	const struct ada_trace_symbol *s = ada_trace_find_symbol(&r->syms, fid);
	char hex[24];

	if (s) {
		*name = r->sym_name[s - r->syms.v];
		return 0;
	}
	snprintf(hex, sizeof(hex), "0x%016" PRIx64, fid);
	for (size_t i = r->nsymnames; i < r->nnames; i++)
		if (!strcmp(r->names[i], hex)) {
			*name = (uint32_t)i;
			return 0;
		}
	*name = (uint32_t)r->nnames;
	return add_name(r, hex);
}

/* ---- nodes -------------------------------------------------------------------- */

static uint64_t node_hash(uint32_t name, const char *mark, const struct run *runs, size_t n)
{
	uint64_t h = mix(name, (uintptr_t)mark);

	for (size_t i = 0; i < n; i++)
		h = mix(mix(h, runs[i].node), runs[i].count);
	return h;
}

static bool node_is(const struct node *nd, uint32_t name, const char *mark,
		    const struct run *runs, size_t n)
{
	if (nd->name != name || nd->mark != mark || nd->nruns != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (nd->runs[i].node != runs[i].node || nd->runs[i].count != runs[i].count)
			return false;
	return true;
}

static int rehash(struct replay *r)
{
	size_t nb = r->nbuckets ? 2 * r->nbuckets : 1024;
	uint32_t *b = malloc(nb * sizeof(*b));

	if (!b)
		return -ENOMEM;
	memset(b, 0xFF, nb * sizeof(*b));
	for (size_t i = 0; i < r->nnodes; i++) {
		size_t slot = r->nodes[i].hash & (nb - 1);

		r->nodes[i].next = b[slot];
		b[slot] = (uint32_t)i;
	}
	free(r->buckets);
	r->buckets = b;
	r->nbuckets = nb;
	return 0;
}

/* The id of the node with these contents, made if it is new. */
static int intern_node(struct replay *r, uint32_t name, const char *mark, const struct run *runs,
		       size_t n, uint32_t *id)
{
	uint64_t h = node_hash(name, mark, runs, n);
	size_t cap = r->nnodes;
	struct node *nd;

	for (uint32_t i = r->nbuckets ? r->buckets[h & (r->nbuckets - 1)] : NO_NODE; i != NO_NODE;
	     i = r->nodes[i].next)
		if (r->nodes[i].hash == h && node_is(&r->nodes[i], name, mark, runs, n)) {
			*id = i;
			return 0;
		}
	if (r->nnodes >= r->nbuckets && rehash(r))
		return -ENOMEM;
	if (r->nnodes == NO_NODE || grow(&r->nodes, &cap, r->nnodes + 1, sizeof(*nd)))
		return -ENOMEM;
	nd = &r->nodes[r->nnodes];
	*nd = (struct node){ .name = name, .mark = mark, .nruns = (uint32_t)n, .hash = h };
	nd->runs = malloc((n ? n : 1) * sizeof(*runs));
	if (!nd->runs)
		return -ENOMEM;
	if (n)
		memcpy(nd->runs, runs, n * sizeof(*runs));
	nd->next = r->buckets[h & (r->nbuckets - 1)];
	r->buckets[h & (r->nbuckets - 1)] = *id = (uint32_t)r->nnodes++;
	return 0;
}

/* ---- printing ------------------------------------------------------------------ */

static void print_line(struct replay *r, uint32_t node, uint64_t count, size_t depth)
{
	const struct node *nd = &r->nodes[node];

	for (size_t i = 1; i < depth; i++)
		fputs("  ", r->out);
	fputs(r->names[nd->name], r->out);
	if (count > 1)
		fprintf(r->out, " x%" PRIu64, count);
	if (nd->mark)
		fprintf(r->out, " %s", nd->mark);
	fputc('\n', r->out);
}

/* Depth-first with an explicit stack of (node, next run) pairs, so a deep
 * recursion in the trace cannot overflow ours. */
static int print_tree(struct replay *r, struct run top)
{
	size_t n = 0;

	print_line(r, top.node, top.count, 1);
	if (grow(&r->walk, &r->walk_cap, 2, sizeof(*r->walk)))
		return -ENOMEM;
	r->walk[n++] = top.node;
	r->walk[n++] = 0;
	while (n) {
		const struct node *nd = &r->nodes[r->walk[n - 2]];
		struct run child;

		if (r->walk[n - 1] == nd->nruns) {
			n -= 2;
			continue;
		}
		child = nd->runs[r->walk[n - 1]++];
		print_line(r, child.node, child.count, n / 2 + 1);
		if (grow(&r->walk, &r->walk_cap, n + 2, sizeof(*r->walk)))
			return -ENOMEM;
		r->walk[n++] = child.node;
		r->walk[n++] = 0;
	}
	return 0;
}

/* ---- frames -------------------------------------------------------------------- */

static int add_run(struct run **runs, size_t *n, size_t *cap, uint32_t node)
{
	if (*n && (*runs)[*n - 1].node == node) {
		(*runs)[*n - 1].count++;
		return 0;
	}
	if (grow(runs, cap, *n + 1, sizeof(**runs)))
		return -ENOMEM;
	(*runs)[(*n)++] = (struct run){ node, 1 };
	return 0;
}

/* A finished depth-1 subtree: counted if it repeats the pending one, else the
 * pending one is printed and this one waits. */
static int add_top(struct replay *r, uint32_t node)
{
	int ret = 0;

	if (r->top.count && r->top.node == node) {
		r->top.count++;
		return 0;
	}
	if (r->top.count)
		ret = print_tree(r, r->top);
	r->top = (struct run){ node, 1 };
	return ret;
}

static int open_frame(struct replay *r, uint64_t fid)
{
	struct frame *f;
	uint32_t name;

	if (name_of(r, fid, &name) ||
	    grow(&r->frames, &r->frames_cap, r->depth + 1, sizeof(*r->frames)))
		return -ENOMEM;
	if (r->depth == r->nframes)
		r->frames[r->nframes++] = (struct frame){ 0 };
	f = &r->frames[r->depth];
	f->name = name;
	f->nruns = 0;
	r->depth++;
	return 0;
}

static int close_frame(struct replay *r, const char *mark)
{
	struct frame *f = &r->frames[--r->depth];
	uint32_t id;

	if (intern_node(r, f->name, mark, f->runs, f->nruns, &id))
		return -ENOMEM;
	if (!r->depth)
		return add_top(r, id);
	f = &r->frames[r->depth - 1];
	return add_run(&f->runs, &f->nruns, &f->cap, id);
}

/* ---- threads and processes ------------------------------------------------------ */

/* The thread's last `open` events close the frames its record ended in:
 * marked open_mark, not "(unwound)". */
static int replay_events(struct replay *r, const struct atf_index_file *f, const char *open_mark,
			 uint64_t open)
{
	uint64_t first_open = open < f->event_count ? f->event_count - open : 0;
	struct atf_event ev;
	int ret = 0;

	r->depth = 0;
	r->top.count = 0;
	for (uint64_t i = 0; !ret && i < f->event_count; i++) {
		atf_index_get(f, i, &ev);
		if (ev.kind == ATF_CALL)
			ret = open_frame(r, ev.function_id);
		else if (r->depth && ev.kind == ATF_RETURN)
			ret = close_frame(r, NULL);
		else if (r->depth && ev.kind == ATF_EXCEPTION) /* stray closes: skipped */
			ret = close_frame(r, i >= first_open ? open_mark : UNWOUND);
	}
	/* Valid ATF is balanced; a frame still open was left without a return,
	 * which is what "unwound" says. */
	while (!ret && r->depth)
		ret = close_frame(r, UNWOUND);
	if (!ret && r->top.count)
		ret = print_tree(r, r->top);
	return ret;
}

static int replay_thread(struct replay *r, const char *pid_dir, uint64_t pid,
			 const struct json_value *thread)
{
	struct atf_index_file f;
	char path[PATH_MAX], err[256];
	uint64_t id, open;
	const char *open_mark = ada_trace_open_mark(thread, &open);
	int ret;

	id = ada_trace_thread_header(r->out, pid, thread);
	if (snprintf(path, sizeof(path), "%s/thread_%" PRIu64 "/index.atf", pid_dir, id) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = atf_index_map(path, &f, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, err);
		return ret;
	}
	ret = replay_events(r, &f, open_mark, open);
	atf_index_unmap(&f);
	return ret;
}

static int replay_threads(struct replay *r, const struct ada_trace_pid *p,
			  const struct json_value *manifest)
{
	const struct json_value **order;
	size_t n;
	int ret = ada_trace_sorted_threads(manifest, &order, &n);

	for (size_t i = 0; !ret && i < n; i++)
		ret = replay_thread(r, p->dir, p->pid, order[i]);
	free(order);
	return ret;
}

static void replay_free(struct replay *r)
{
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i]);
	for (size_t i = 0; i < r->nnodes; i++)
		free(r->nodes[i].runs);
	for (size_t i = 0; i < r->nframes; i++)
		free(r->frames[i].runs);
	free(r->names);
	free(r->nodes);
	free(r->frames);
	free(r->buckets);
	free(r->walk);
	free(r->sym_name);
	ada_trace_free_symbols(&r->syms);
}

static int replay_pid(const struct ada_trace_pid *p, FILE *out)
{
	struct replay r = { .out = out };
	struct json_doc *doc;
	char path[PATH_MAX], err[256];
	int ret;

	if (snprintf(path, sizeof(path), "%s/manifest.json", p->dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = json_parse_file(path, &doc, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, err);
		return ret;
	}
	ret = ada_trace_load_symbols(json_root(doc), &r.syms);
	if (!ret)
		ret = intern_symbol_names(&r);
	if (!ret)
		ret = replay_threads(&r, p, json_root(doc));
	if (ret == -ENOMEM)
		fprintf(stderr, "ada-symbolize: %s: %s\n", p->dir, strerror(ENOMEM));
	replay_free(&r);
	json_free(doc);
	return ret;
}

int ada_view_replay(const char *path, FILE *out)
{
	struct ada_trace_pid *pids;
	size_t n;
	int ret = ada_trace_find_pids(path, &pids, &n);

	for (size_t i = 0; !ret && i < n; i++)
		ret = replay_pid(&pids[i], out);
	if (!ret && ferror(out))
		ret = -EIO;
	ada_trace_free_pids(pids, n);
	return ret;
}
