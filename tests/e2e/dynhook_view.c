/* dynhook_view.c - what the test_dynhook*.c tests compare: views of a
 * replay (see dynhook_view.h), and the program's functions they keep, read
 * from the manifest.
 */
#include "e2e/dynhook_view.h"

#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/textdiff.h"
#include "lib/tracerun.h"

/* ---- small text helpers ----------------------------------------------------------- */

bool dh_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool dh_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		fail_msg("out of memory");
	return p;
}

/* The lines of the manifest's array "key" (one element per line): calls fn
 * with each line's [start, end). */
static void for_each_element(const char *text, const char *key,
			     void (*fn)(const char *line, const char *end, void *arg), void *arg)
{
	const char *close, *p = tr_json_array(text, key, &close);

	while (p < close) {
		const char *nl = strchr(p, '\n');

		fn(p, nl, arg);
		p = nl + 1;
	}
}

/* ---- the program's functions, from the manifest ------------------------------------- */

static void program_module(const char *line, const char *end, void *arg)
{
	struct names *nm = arg;
	char path[PATH_MAX], id[16];

	if (tr_json_value(line, end, "path", path, sizeof(path)) && dh_starts_with(path, nm->dir) &&
	    path[strlen(nm->dir)] == '/' && tr_json_value(line, end, "module_id", id, sizeof(id)) &&
	    nm->nids < 64)
		snprintf(nm->ids[nm->nids++], sizeof(nm->ids[0]), "%s", id);
}

static void program_symbol(const char *line, const char *end, void *arg)
{
	struct names *nm = arg;
	char name[1024], id[16];

	/* C++ symbols: the replay shows the demangled name. */
	if (!tr_json_value(line, end, "module_id", id, sizeof(id)) ||
	    (!tr_json_value(line, end, "demangled", name, sizeof(name)) &&
	     !tr_json_value(line, end, "name", name, sizeof(name))))
		return;
	for (size_t i = 0; i < nm->nids; i++) {
		if (strcmp(nm->ids[i], id) != 0)
			continue;
		nm->v = realloc(nm->v, (nm->n + 1) * sizeof(*nm->v));
		if (!nm->v)
			fail_msg("out of memory");
		nm->v[nm->n++] = xstrndup(name, strlen(name));
		return;
	}
}

struct dh_scratch dh_scratch;

/* Adds the program's functions of one manifest (text) to nm. */
void dh_names_add(struct names *nm, const struct tr_case *tc, const char *text)
{
	nm->dir = tc->dir;
	nm->nids = 0;
	for_each_element(text, "modules", program_module, nm);
	for_each_element(text, "symbols", program_symbol, nm);
}

void dh_names_load(struct names *nm, const struct tr_case *tc)
{
	dh_names_free(nm);
	dh_names_add(nm, tc, tc->mf.text);
}

static bool names_has(const struct names *nm, const char *name)
{
	for (size_t i = 0; i < nm->n; i++)
		if (!strcmp(nm->v[i], name))
			return true;
	return false;
}

void dh_names_free(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	nm->v = NULL;
	nm->n = 0;
}

/* ---- views of a replay ------------------------------------------------------------ */

/* The library function's public name: no symbol version, no IFUNC suffix, no
 * internal alias. glibc's choice of implementation (evex, avx2, sse2) and of
 * the alias the symbol table lists first are the machine's, not the
 * runtime's. */
void dh_normalize(const char *name, char *out, size_t size)
{
	static const struct { const char *from, *to; } prefixes[] = {
		{ "__strlen_", "strlen" }, { "__memcpy_", "memcpy" }, { "__memmove_", "memcpy" },
		{ "__memset_", "memset" }, { "__strcmp_", "strcmp" },
	}, aliases[] = {
		{ "__sigaction", "sigaction" }, { "__libc_sigaction", "sigaction" },
		{ "gsignal", "raise" },          { "_IO_puts", "puts" },
		{ "__waitpid", "waitpid" },      { "__libc_waitpid", "waitpid" },
		{ "__mmap", "mmap" },            { "mmap64", "mmap" },
		{ "_longjmp", "longjmp" },       { "siglongjmp", "longjmp" },
		{ "__libc_siglongjmp", "longjmp" }, { "__libc_longjmp", "longjmp" },
		{ "__libc_malloc", "malloc" },   { "__libc_free", "free" },
		{ "_IO_printf", "printf" },      { "_IO_fprintf", "fprintf" },
		{ "_IO_fflush", "fflush" },     { "__fork", "fork" },
		{ "__libc_fork", "fork" },
	};
	size_t n = strcspn(name, "@");

	snprintf(out, size, "%.*s", (int)n, name);
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (dh_starts_with(out, prefixes[i].from) || !strcmp(out, prefixes[i].to)) {
			snprintf(out, size, "%s", prefixes[i].to);
			return;
		}
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(out, aliases[i].from)) {
			snprintf(out, size, "%s", aliases[i].to);
			return;
		}
}

struct node {
	char *name;
	uint64_t count;
	const char *mark; /* " (unwound)", " (open at exit)"...: how it ended, or "" */
	struct node *kids;
	size_t nkids;
};

static void node_free(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		node_free(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

static struct node *add_kid(struct node *parent)
{
	struct node *k = realloc(parent->kids, (parent->nkids + 1) * sizeof(*k));

	if (!k)
		fail_msg("out of memory");
	parent->kids = k;
	k = &parent->kids[parent->nkids++];
	memset(k, 0, sizeof(*k));
	return k;
}

/* How --replay marks a frame that did not return. */
static const char *const marks[] = { " (unwound)", " (open at exit)", " (open at exec)",
				     " (open at crash)", " (open when killed)" };

/* One thread's replay lines ([text, end)) as children of root. */
static void parse_block(const char *text, const char *end, struct node *root)
{
	struct node *stack[4096];
	size_t depth = 0;

	stack[0] = root;
	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
		size_t indent = strspn(line, " "), d = indent / 2;
		const char *name = line + indent, *stop = line + len;
		struct node *n;

		line = nl ? nl + 1 : end;
		if (len == indent)
			continue;
		if (indent % 2 || d > depth || d + 1 >= sizeof(stack) / sizeof(stack[0]))
			fail_msg("--replay line \"%.*s\": bad indentation", (int)len, name - indent);
		n = add_kid(stack[d]);
		n->count = 1;
		n->mark = "";
		for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
			size_t ml = strlen(marks[m]);

			if ((size_t)(stop - name) > ml && !memcmp(stop - ml, marks[m], ml)) {
				n->mark = marks[m];
				stop -= ml;
				break;
			}
		}
		for (const char *x = stop; x > name + 2 && x[-1] >= '0' && x[-1] <= '9'; x--)
			if (x[-2] == 'x' && x[-3] == ' ') {
				n->count = strtoull(x - 1, NULL, 10);
				stop = x - 3;
				break;
			}
		n->name = xstrndup(name, (size_t)(stop - name));
		depth = d + 1;
		stack[depth] = n;
	}
}

static bool node_equal(const struct node *a, const struct node *b)
{
	if (strcmp(a->name, b->name) || strcmp(a->mark, b->mark) || a->nkids != b->nkids)
		return false;
	for (size_t i = 0; i < a->nkids; i++)
		if (a->kids[i].count != b->kids[i].count || !node_equal(&a->kids[i], &b->kids[i]))
			return false;
	return true;
}

/* A new last child of parent, without children yet. */
static struct node *emit(struct node *parent, const char *name, uint64_t count, const char *mark)
{
	struct node *k = add_kid(parent);

	k->name = xstrndup(name, strlen(name));
	k->count = count;
	k->mark = mark;
	return k;
}

/* The last two children merged if they are the same subtree (" xN"). */
static void merge_last(struct node *parent)
{
	struct node *a, *b;

	if (parent->nkids < 2)
		return;
	a = &parent->kids[parent->nkids - 2];
	b = &parent->kids[parent->nkids - 1];
	if (!node_equal(a, b))
		return;
	a->count += b->count;
	node_free(b);
	parent->nkids--;
}

static void filter_kids(const struct view *v, const struct node *src, bool parent_program,
			struct node *dst);

static void filter_one(const struct view *v, const struct node *n, bool parent_program,
		       struct node *dst)
{
	bool program = names_has(v->program, n->name);
	bool keep_program = program && (v->kind == VIEW_DIRECT || !strcmp(n->name, "main") ||
					 dh_starts_with(n->name, v->own));
	char name[1024];

	if (keep_program || (!program && v->kind == VIEW_DIRECT && parent_program)) {
		if (program)
			snprintf(name, sizeof(name), "%s", n->name);
		else
			dh_normalize(n->name, name, sizeof(name));
		filter_kids(v, n, keep_program, emit(dst, name, n->count, n->mark));
		merge_last(dst);
		return;
	}
	/* Left out: what it called that is kept takes its place, once per call. */
	for (uint64_t c = 0; c < n->count; c++)
		filter_kids(v, n, false, dst);
}

static void filter_kids(const struct view *v, const struct node *src, bool parent_program,
			struct node *dst)
{
	for (size_t i = 0; i < src->nkids; i++)
		filter_one(v, &src->kids[i], parent_program, dst);
}

static void find_main(const struct node *n, const struct node **found, size_t *nfound)
{
	for (size_t i = 0; i < n->nkids; i++) {
		if (!strcmp(n->kids[i].name, "main")) {
			if (*nfound < 8)
				found[(*nfound)++] = &n->kids[i];
		} else {
			find_main(&n->kids[i], found, nfound);
		}
	}
}

static void print_tree(const struct node *n, int depth, FILE *f)
{
	for (size_t i = 0; i < n->nkids; i++) {
		const struct node *k = &n->kids[i];

		fprintf(f, "%*s%s", 2 * depth, "", k->name);
		if (k->count > 1)
			fprintf(f, " x%" PRIu64, k->count);
		fprintf(f, "%s\n", k->mark);
		print_tree(k, depth + 1, f);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Blocks sorted and joined by "--- thread" lines; frees them. */
static char *join_blocks(char **blocks, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		fail_msg("out of memory");
	qsort(blocks, n, sizeof(*blocks), cmp_str);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s%s", i ? "--- thread\n" : "", blocks[i]);
		free(blocks[i]);
	}
	fclose(f);
	free(blocks);
	return text;
}

/* The view of each thread of a replay, malloc'd. */
static char *view_of(const char *replay, const struct view *v)
{
	char **blocks = NULL;
	size_t n = 0;
	const char *p = replay;

	while ((p = strstr(p, "# pid "))) {
		const char *body = strchr(p, '\n'), *next;
		struct node root = { 0 }, out = { 0 };
		const struct node *mains[8];
		size_t nmains = 0;
		char *text = NULL;
		size_t len = 0;
		FILE *f;

		body = body ? body + 1 : p + strlen(p);
		next = strstr(body, "# pid ");
		if (!next)
			next = body + strlen(body);
		parse_block(body, next, &root);
		find_main(&root, mains, &nmains);
		if (nmains) {
			for (size_t i = 0; i < nmains; i++)
				filter_one(v, mains[i], true, &out);
		} else {
			filter_kids(v, &root, true, &out);
		}
		f = open_memstream(&text, &len);
		if (!f)
			fail_msg("out of memory");
		print_tree(&out, 0, f);
		fclose(f);
		blocks = realloc(blocks, (n + 1) * sizeof(*blocks));
		if (!blocks)
			fail_msg("out of memory");
		blocks[n++] = text;
		node_free(&root);
		node_free(&out);
		p = next;
	}
	return join_blocks(blocks, n);
}

/* An expected view with its blocks in any order, canonical. */
static char *canonical(const char *expected)
{
	char **blocks = NULL;
	size_t n = 0;
	const char *p = expected;

	for (;;) {
		const char *sep = strstr(p, "--- thread\n");
		size_t len = sep ? (size_t)(sep - p) : strlen(p);

		blocks = realloc(blocks, (n + 1) * sizeof(*blocks));
		if (!blocks)
			fail_msg("out of memory");
		blocks[n++] = xstrndup(p, len);
		if (!sep)
			break;
		p = sep + strlen("--- thread\n");
	}
	return join_blocks(blocks, n);
}

/* Fails unless the view of tc->replay is `expected`. */
void dh_expect_view(const struct tr_case *tc, const struct view *v, const char *expected)
{
	char *got = view_of(tc->replay.out, v), *want = canonical(expected);
	bool same = strcmp(got, want) == 0;

	if (!same)
		textdiff_print(stderr, "expected", want, "view of --replay", got);
	free(got);
	free(want);
	if (!same)
		fail_msg("the call tree differs (library calls inside libraries left out)\n"
			 "--replay:\n%s",
			 tc->replay.out);
}

void dh_expect_direct_tree(const struct tr_case *tc, const char *expected)
{
	struct view v = { VIEW_DIRECT, NULL, &dh_scratch.nm };

	dh_names_load(&dh_scratch.nm, tc);
	dh_expect_view(tc, &v, expected);
	dh_names_free(&dh_scratch.nm);
}
