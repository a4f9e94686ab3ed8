/* flame_tree.c - the stacks of a flame graph (flame_tree.h). */
#include "flame_tree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct flame_name {
	char *text;
	const char *module;    /* interned in modules[] */
	uint64_t hash;
};

struct flame_names {
	struct flame_name *v;
	uint32_t n, cap;
	uint32_t *slots;       /* name id + 1, 0: empty */
	uint32_t mask;
	char **modules;        /* distinct module names, few */
	uint32_t nmodules;
};

#define FIRST_SLOTS 1024u

static uint64_t text_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

int flame_tree_init(struct flame_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->nodes_cap = 1024;
	t->nodes = malloc(t->nodes_cap * sizeof(*t->nodes));
	t->child_keys = calloc(FIRST_SLOTS, sizeof(*t->child_keys));
	t->child_vals = malloc(FIRST_SLOTS * sizeof(*t->child_vals));
	t->child_mask = FIRST_SLOTS - 1;
	t->names = calloc(1, sizeof(*t->names));
	if (t->names) {
		t->names->slots = calloc(FIRST_SLOTS, sizeof(*t->names->slots));
		t->names->mask = FIRST_SLOTS - 1;
	}
	if (!t->nodes || !t->child_keys || !t->child_vals || !t->names || !t->names->slots) {
		flame_tree_free(t);
		return -ENOMEM;
	}
	t->nodes[FLAME_ROOT] = (struct flame_node){ .parent = FLAME_ROOT, .name = FLAME_NONE };
	t->nnodes = 1;
	return 0;
}

void flame_tree_free(struct flame_tree *t)
{
	struct flame_names *ns = t->names;

	if (ns) {
		for (uint32_t i = 0; i < ns->n; i++)
			free(ns->v[i].text);
		for (uint32_t i = 0; i < ns->nmodules; i++)
			free(ns->modules[i]);
		free(ns->modules);
		free(ns->v);
		free(ns->slots);
		free(ns);
	}
	free(t->nodes);
	free(t->child_keys);
	free(t->child_vals);
	memset(t, 0, sizeof(*t));
}

/* ---- names ------------------------------------------------------------------ */

static uint32_t name_find(const struct flame_names *ns, const char *text, uint64_t h)
{
	for (uint32_t i = (uint32_t)h & ns->mask;; i = (i + 1) & ns->mask) {
		uint32_t id = ns->slots[i];

		if (id == 0)
			return FLAME_NONE;
		if (ns->v[id - 1].hash == h && strcmp(ns->v[id - 1].text, text) == 0)
			return id - 1;
	}
}

static void name_place(struct flame_names *ns, uint32_t id)
{
	uint32_t i = (uint32_t)ns->v[id].hash & ns->mask;

	while (ns->slots[i])
		i = (i + 1) & ns->mask;
	ns->slots[i] = id + 1;
}

/* Keeps the table at most half full. */
static int names_grow(struct flame_names *ns)
{
	if ((ns->n + 1) * 2 > ns->mask + 1) {
		uint32_t size = (ns->mask + 1) * 2;
		uint32_t *slots = calloc(size, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		free(ns->slots);
		ns->slots = slots;
		ns->mask = size - 1;
		for (uint32_t id = 0; id < ns->n; id++)
			name_place(ns, id);
	}
	if (ns->n == ns->cap) {
		uint32_t cap = ns->cap ? ns->cap * 2 : 256;
		struct flame_name *v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ns->v = v;
		ns->cap = cap;
	}
	return 0;
}

static const char *module_intern(struct flame_names *ns, const char *module)
{
	if (!module)
		return NULL;
	for (uint32_t i = 0; i < ns->nmodules; i++)
		if (strcmp(ns->modules[i], module) == 0)
			return ns->modules[i];
	char **v = realloc(ns->modules, (ns->nmodules + 1) * sizeof(*v));
	if (!v)
		return NULL;
	ns->modules = v;
	v[ns->nmodules] = strdup(module);
	return v[ns->nmodules] ? v[ns->nmodules++] : NULL;
}

uint32_t flame_tree_name(struct flame_tree *t, const char *name, const char *module)
{
	struct flame_names *ns = t->names;
	char *text = strdup(name);

	if (!text)
		return FLAME_NONE;
	for (char *c = text; *c; c++) {
		if (*c == ';')
			*c = ':';
		else if (*c == '\n' || *c == '\r')
			*c = ' ';
	}
	uint64_t h = text_hash(text);
	uint32_t id = name_find(ns, text, h);
	if (id != FLAME_NONE) {
		free(text);
		return id;
	}
	if (names_grow(ns) < 0) {
		free(text);
		return FLAME_NONE;
	}
	id = ns->n++;
	ns->v[id] = (struct flame_name){ .text = text, .module = module_intern(ns, module), .hash = h };
	name_place(ns, id);
	return id;
}

const char *flame_tree_name_text(const struct flame_tree *t, uint32_t name)
{
	return t->names->v[name].text;
}

const char *flame_tree_name_module(const struct flame_tree *t, uint32_t name)
{
	return t->names->v[name].module;
}

const char *flame_tree_module_of(const struct flame_tree *t, const char *text)
{
	uint32_t id = name_find(t->names, text, text_hash(text));

	return id == FLAME_NONE ? NULL : t->names->v[id].module;
}

/* ---- stacks ----------------------------------------------------------------- */

static void child_place(uint64_t *keys, uint32_t *vals, uint32_t mask, uint64_t key, uint32_t val)
{
	uint32_t i = flame_tree_slot(key, mask);

	while (keys[i])
		i = (i + 1) & mask;
	keys[i] = key;
	vals[i] = val;
}

/* Doubles the child table, keeping it at most half full. */
static int children_grow(struct flame_tree *t)
{
	uint32_t size = (t->child_mask + 1) * 2;
	uint64_t *keys = calloc(size, sizeof(*keys));
	uint32_t *vals = malloc(size * sizeof(*vals));

	if (!keys || !vals || size == 0) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i <= t->child_mask; i++)
		if (t->child_keys[i])
			child_place(keys, vals, size - 1, t->child_keys[i], t->child_vals[i]);
	free(t->child_keys);
	free(t->child_vals);
	t->child_keys = keys;
	t->child_vals = vals;
	t->child_mask = size - 1;
	return 0;
}

/* A new stack: flame_tree_child found no node for it. */
uint32_t flame_tree_child_slow(struct flame_tree *t, uint32_t parent, uint32_t name)
{
	if (t->nnodes == FLAME_NONE - 1)
		return FLAME_NONE;
	if (t->nnodes * 2 >= t->child_mask + 1 && children_grow(t) < 0)
		return FLAME_NONE;
	if (t->nnodes == t->nodes_cap) {
		uint32_t cap = t->nodes_cap < (1u << 30) ? t->nodes_cap * 2 : FLAME_NONE - 1;
		struct flame_node *v = realloc(t->nodes, (size_t)cap * sizeof(*v));

		if (!v)
			return FLAME_NONE;
		t->nodes = v;
		t->nodes_cap = cap;
	}
	uint32_t id = t->nnodes++;
	t->nodes[id] = (struct flame_node){
		.parent = parent, .name = name, .depth = t->nodes[parent].depth + 1,
	};
	child_place(t->child_keys, t->child_vals, t->child_mask, flame_tree_key(parent, name), id);
	return id;
}

/* ---- folded output ---------------------------------------------------------- */

/* Children of each node as ranges of one array (first[p] .. first[p + 1]),
 * each range sorted by name. */
struct child_index {
	uint32_t *first;
	uint32_t *kids;
};

static const struct flame_tree *sort_tree;

static int by_name(const void *a, const void *b)
{
	const struct flame_tree *t = sort_tree;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return strcmp(t->names->v[t->nodes[x].name].text, t->names->v[t->nodes[y].name].text);
}

static int child_index_build(const struct flame_tree *t, struct child_index *ci)
{
	uint32_t n = t->nnodes;

	ci->first = calloc((size_t)n + 1, sizeof(*ci->first));
	ci->kids = malloc((size_t)n * sizeof(*ci->kids));
	if (!ci->first || !ci->kids)
		return -ENOMEM;
	for (uint32_t id = 1; id < n; id++)
		ci->first[t->nodes[id].parent + 1]++;
	for (uint32_t p = 0; p < n; p++)
		ci->first[p + 1] += ci->first[p];
	/* Placed in id order, then each range sorted: first[p] walks forward
	 * while placing, and is put back after. */
	for (uint32_t id = 1; id < n; id++)
		ci->kids[ci->first[t->nodes[id].parent]++] = id;
	for (uint32_t p = n; p > 0; p--)
		ci->first[p] = ci->first[p - 1];
	ci->first[0] = 0;
	sort_tree = t;
	for (uint32_t p = 0; p < n; p++)
		qsort(ci->kids + ci->first[p], ci->first[p + 1] - ci->first[p], sizeof(uint32_t),
		      by_name);
	return 0;
}

/* The path of node id into buf ("a;b;c"), which is grown as needed. */
static int path_of(const struct flame_tree *t, uint32_t id, char **buf, size_t *cap)
{
	size_t len = 0;

	for (uint32_t n = id; n != FLAME_ROOT; n = t->nodes[n].parent)
		len += strlen(t->names->v[t->nodes[n].name].text) + 1;
	if (len + 1 > *cap) {
		char *b = realloc(*buf, len + 1);

		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = len + 1;
	}
	size_t end = len - 1;
	(*buf)[end] = '\0';
	for (uint32_t n = id; n != FLAME_ROOT; n = t->nodes[n].parent) {
		const char *s = t->names->v[t->nodes[n].name].text;
		size_t l = strlen(s);

		end -= l;
		memcpy(*buf + end, s, l);
		if (end > 0)
			(*buf)[--end] = ';';
	}
	return 0;
}

int flame_tree_walk(const struct flame_tree *t, int (*visit)(void *ctx, uint32_t node), void *ctx)
{
	struct child_index ci = { NULL, NULL };
	uint32_t *todo = malloc((size_t)t->nnodes * sizeof(*todo));
	size_t ntodo = 0;
	int ret = todo ? child_index_build(t, &ci) : -ENOMEM;

	/* Depth first, a node before its children, children in name order:
	 * pushed in reverse so the first comes out first. */
	for (uint32_t k = ret == 0 ? ci.first[1] : 0; k > ci.first[0]; k--)
		todo[ntodo++] = ci.kids[k - 1];
	while (ret == 0 && ntodo > 0) {
		uint32_t id = todo[--ntodo];
		int v = visit(ctx, id);

		if (v < 0)
			ret = v;
		for (uint32_t k = v == 0 ? ci.first[id + 1] : 0; k > ci.first[id]; k--)
			todo[ntodo++] = ci.kids[k - 1];
	}
	free(todo);
	free(ci.first);
	free(ci.kids);
	return ret;
}

struct folded {
	const struct flame_tree *t;
	FILE *out;
	char *path;
	size_t cap;
};

static int folded_line(void *ctx, uint32_t id)
{
	struct folded *f = ctx;
	int ret;

	if (f->t->nodes[id].weight == 0)
		return 0;
	if ((ret = path_of(f->t, id, &f->path, &f->cap)) < 0)
		return ret;
	return fprintf(f->out, "%s %" PRIu64 "\n", f->path, f->t->nodes[id].weight) < 0 ? -EIO : 0;
}

int flame_tree_write_folded(const struct flame_tree *t, FILE *out)
{
	struct folded f = { .t = t, .out = out };
	int ret = flame_tree_walk(t, folded_line, &f);

	free(f.path);
	return ret;
}
