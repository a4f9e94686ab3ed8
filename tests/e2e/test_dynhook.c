/* test_dynhook.c - the dynamic-hook fallback: calls into and between modules
 * that were not built with adacc.
 *
 * With ADA_DYNHOOK=on (the default; tr_scrub_environment turns it off for
 * the other tests, main() here turns it back on) the runtime points the
 * PLT/GOT slots of every loaded module but libada and ld.so at stubs of their
 * targets, so a call into libc, into a plain gcc-built library or into
 * libstdc++ is a CALL and a RETURN (with registers, in fentry and mcount
 * modes) of the function the slot leads to.
 *
 * libc's own calls (printf's malloc, dlclose's __cxa_finalize, the frames
 * before and after main) depend on the libc, so the trees compared here are
 * *views* of the replay (see struct view): each thread's subtree under main
 * (the whole thread without one), the functions of the program's modules
 * (those in the test's directory) exactly, the library functions they call
 * directly exactly, and nothing of what library functions call among
 * themselves, except the program's functions they call back (a qsort
 * comparator), which nest under the nearest frame kept. Library names are
 * normalised: a symbol version is dropped, an IFUNC implementation
 * (__strlen_evex) or an alias (__sigaction) takes the public name.
 *
 * The programs are tests/e2e/progs/dynhook/; each is built with plain gcc
 * (or g++) and with bin/adacc (adac++), in fentry mode unless the test says
 * otherwise; both runs must exit alike and print the same stdout. Every
 * trace must pass `ada-symbolize --check`, each thread's index.atf must
 * hold as many CALLs as RETURNs and EXCEPTIONs together, and nothing may be
 * dropped. What is checked:
 *   - an executable calling a plain gcc library that calls libc: the exact
 *     tree in fentry, mcount and cyg mode; --dump's registers (strlen gets
 *     plain_len's argument and returns 5, malloc(0x40)'s result is what
 *     free gets); malloc from two modules is one function; ADA_DISABLE=1
 *     prints the same; the manifest's "dynamic_hooks" and module modes;
 *   - lazy binding, -z now without RELRO, full RELRO and -fno-plt: one tree;
 *     a lazy slot bound as the dynamic linker would (LD_PRELOAD wins);
 *   - dlopen of an instrumented and an uninstrumented library, kept, or
 *     closed and loaded again elsewhere: every call, every load in the
 *     manifest; dlmopen with immediate and lazy binding, and of an
 *     instrumented library (its own libada stays off); an uninstrumented
 *     program dlopening, calling and dlclosing an instrumented library;
 *   - C++: std::out_of_range thrown inside libstdc++ through hooked frames,
 *     caught in main, with lazy and with immediate binding;
 *   - longjmp out of qsort's comparator, siglongjmp out of a handler
 *     entered in raise;
 *   - vfork + exec (the parent alone: the child records nothing), fork +
 *     exec, exec: the trees of parent and child, and none of the runtime's
 *     own library calls in them;
 *   - four threads calling one library function 1000 times each;
 *   - ADA_EXCLUDE (a symbol, a module, a list of globs), ADA_DYNHOOK=off,
 *     bad values of both.
 *
 * Tests marked "BUG:" show a defect described in their comment; they fail
 * until it is fixed.
 */
#include <dirent.h>
#include <errno.h>
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
#include <sys/stat.h>

#include <cmocka.h>

#include "lib/atf_read.h"
#include "lib/capture.h"
#include "lib/proc.h"
#include "lib/textdiff.h"
#include "lib/tracerun.h"

#define PROGS "tests/e2e/progs/dynhook/"

/* ---- small text helpers ----------------------------------------------------------- */

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix)
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

/* Names of the symbols whose module is in the test's directory. */
struct names {
	const char *dir;
	char ids[64][16];      /* module_ids of the program's modules */
	size_t nids;
	char **v;
	size_t n;
};

static void program_module(const char *line, const char *end, void *arg)
{
	struct names *nm = arg;
	char path[PATH_MAX], id[16];

	if (tr_json_value(line, end, "path", path, sizeof(path)) && starts_with(path, nm->dir) &&
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

/* What a test holds that a failed assertion (a longjmp out of the test)
 * would leak: released by teardown(). */
static struct {
	struct names nm;
	char *dump;
} scratch;

static void names_free(struct names *nm);

/* Adds the program's functions of one manifest (text) to nm. */
static void names_add(struct names *nm, const struct tr_case *tc, const char *text)
{
	nm->dir = tc->dir;
	nm->nids = 0;
	for_each_element(text, "modules", program_module, nm);
	for_each_element(text, "symbols", program_symbol, nm);
}

static void names_load(struct names *nm, const struct tr_case *tc)
{
	names_free(nm);
	names_add(nm, tc, tc->mf.text);
}

static bool names_has(const struct names *nm, const char *name)
{
	for (size_t i = 0; i < nm->n; i++)
		if (!strcmp(nm->v[i], name))
			return true;
	return false;
}

static void names_free(struct names *nm)
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
static void normalize(const char *name, char *out, size_t size)
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
		if (starts_with(out, prefixes[i].from) || !strcmp(out, prefixes[i].to)) {
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

enum view_kind {
	/* The program's functions and the library functions they call. */
	VIEW_DIRECT,
	/* Only main and the functions whose names start with view.own (the
	 * program's own namespace): no library function, no template instance. */
	VIEW_OWN,
};

struct view {
	enum view_kind kind;
	const char *own;
	const struct names *program;
};

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
					 starts_with(n->name, v->own));
	char name[1024];

	if (keep_program || (!program && v->kind == VIEW_DIRECT && parent_program)) {
		if (program)
			snprintf(name, sizeof(name), "%s", n->name);
		else
			normalize(n->name, name, sizeof(name));
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
static void expect_view(const struct tr_case *tc, const struct view *v, const char *expected)
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

static void expect_direct_tree(const struct tr_case *tc, const char *expected)
{
	struct view v = { VIEW_DIRECT, NULL, &scratch.nm };

	names_load(&scratch.nm, tc);
	expect_view(tc, &v, expected);
	names_free(&scratch.nm);
}

/* ---- traces ----------------------------------------------------------------------- */

/* The only "<trace>/session_*" in buf. */
static void session_dir(const char *trace, char *buf, size_t size)
{
	DIR *d = opendir(trace);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		if (starts_with(de->d_name, "session_") && n++ == 0 &&
		    snprintf(buf, size, "%s/%s", trace, de->d_name) >= (int)size)
			fail_msg("%s/%s: path too long", trace, de->d_name);
	if (d)
		closedir(d);
	if (n != 1)
		fail_msg("%d session_* entries in %s, expected 1", n, trace);
}

/* Calls fn with each "<session>/pid_*" directory of trace; returns how many. */
static size_t for_each_pid(const char *trace, void (*fn)(const char *pid, void *arg), void *arg)
{
	char session[PATH_MAX], pid[PATH_MAX + 300];
	struct dirent **list = NULL;
	int n;
	size_t pids = 0;

	session_dir(trace, session, sizeof(session));
	n = scandir(session, &list, NULL, alphasort);
	if (n < 0)
		fail_msg("%s: %s", session, strerror(errno));
	for (int i = 0; i < n; i++) {
		if (starts_with(list[i]->d_name, "pid_")) {
			snprintf(pid, sizeof(pid), "%s/%s", session, list[i]->d_name);
			pids++;
			if (fn)
				fn(pid, arg);
		}
		free(list[i]);
	}
	free(list);
	return pids;
}

/* One process: every thread's CALLs = RETURNs + EXCEPTIONs, in its
 * index.atf as the tests' own reader (tests/lib/atf_read.c) reads it. */
static void balanced_pid(const char *pid, void *arg)
{
	char path[PATH_MAX + 600], err[PATH_MAX + 256];
	DIR *d = opendir(pid);
	struct dirent *de;

	if (!d)
		fail_msg("%s: %s", pid, strerror(errno));
	while ((de = readdir(d))) {
		struct atfr_index ix;
		uint64_t kinds[4] = { 0 };

		if (!starts_with(de->d_name, "thread_"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/index.atf", pid, de->d_name);
		if (atfr_read_index(path, &ix, err, sizeof(err)) < 0) {
			closedir(d);
			fail_msg("%s", err);
		}
		for (uint32_t i = 0; i < ix.event_count; i++)
			kinds[ix.events[i].kind & 3]++;
		atfr_index_free(&ix);
		if (kinds[ATFR_CALL] != kinds[ATFR_RETURN] + kinds[ATFR_EXCEPTION]) {
			closedir(d);
			fail_msg("%s: %" PRIu64 " CALLs, %" PRIu64 " RETURNs, %" PRIu64 " EXCEPTIONs",
				 path, kinds[ATFR_CALL], kinds[ATFR_RETURN], kinds[ATFR_EXCEPTION]);
		}
		(*(size_t *)arg)++;
	}
	closedir(d);
}

/* Every thread of every process of the trace is balanced; returns the
 * number of processes. */
static size_t expect_balanced(const char *trace)
{
	size_t threads = 0, pids = for_each_pid(trace, balanced_pid, &threads);

	if (!threads)
		fail_msg("no thread_* directory in %s", trace);
	return pids;
}

struct names_arg {
	struct names *nm;
	const struct tr_case *tc;
};

static void names_of_pid(const char *pid, void *arg)
{
	struct names_arg *a = arg;
	char path[PATH_MAX + 32];
	char *text;

	snprintf(path, sizeof(path), "%s/manifest.json", pid);
	text = proc_read_file(path, NULL);
	if (!text)
		fail_msg("%s: %s", path, strerror(errno));
	names_add(a->nm, a->tc, text);
	free(text);
}

/* expect_direct_tree() for a trace of several processes (tc->replay holds
 * them all), the program's functions taken from every manifest. */
static void expect_direct_trees(const struct tr_case *tc, const char *trace, const char *expected)
{
	struct view v = { VIEW_DIRECT, NULL, &scratch.nm };
	struct names_arg a = { &scratch.nm, tc };

	names_free(&scratch.nm);
	for_each_pid(trace, names_of_pid, &a);
	expect_view(tc, &v, expected);
	names_free(&scratch.nm);
}

static void expect_no_drops(const struct tr_case *tc)
{
	for (unsigned r = 0; r < TR_NDROPS; r++)
		if (tc->mf.dropped[r])
			fail_msg("manifest: %" PRIu64 " %s drops\n%s", tc->mf.dropped[r],
				 tr_drop_names[r], tc->mf.text);
	for (size_t t = 0; t < tc->mf.nthreads; t++)
		for (unsigned r = 0; r < TR_NDROPS; r++)
			if (tc->mf.threads[t].dropped[r])
				fail_msg("manifest: thread %" PRIu64 " dropped %s\n%s",
					 tc->mf.threads[t].id, tr_drop_names[r], tc->mf.text);
}

/* Runs <exe>.plain and <exe> (args for each, env for the traced one) into
 * the trace <dir>/<name>; both must exit with status and print the same.
 * Then: symbolized, --check passes, balanced, the manifest loaded, no drops.
 * tc->replay holds the call trees. */
static void run_args(struct tr_case *tc, const char *exe, const char *name,
		     const char *const plain_args[], const char *const traced_args[],
		     const char *const env[], int status)
{
	char trace[PATH_MAX], output[PATH_MAX + 16];
	const char *envp[16];
	size_t k = 0;

	tr_path(tc, name, trace);
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", trace);
	for (size_t i = 0; env && env[i] && k < 14; i++)
		envp[k++] = env[i];
	envp[k++] = output;
	envp[k] = NULL;
	tr_run_pair_args(tc, exe, plain_args, traced_args, envp, status);
	tr_symbolize(tc, trace);
	expect_balanced(trace);
	tr_load_manifest(tc, trace);
	expect_no_drops(tc);
}

static void run(struct tr_case *tc, const char *exe, const char *name, const char *const env[],
		int status)
{
	run_args(tc, exe, name, NULL, NULL, env, status);
}

/* ---- builds ----------------------------------------------------------------------- */

static void make_dir(const struct tr_case *tc, const char *sub)
{
	char dir[PATH_MAX];

	if (mkdir(tr_path(tc, sub, dir), 0755) < 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", dir, strerror(errno));
}

/* NULL-terminated concatenation of two NULL-terminated lists (32 at most). */
static const char **cat_flags(const char **out, const char *const a[], const char *const b[])
{
	size_t n = 0;

	for (size_t i = 0; a && a[i] && n < 31; i++)
		out[n++] = a[i];
	for (size_t i = 0; b && b[i] && n < 31; i++)
		out[n++] = b[i];
	out[n] = NULL;
	return out;
}

/* <dir>/<sub>/libplain.so with gcc -O2 and extra flags. */
static void build_libplain(const struct tr_case *tc, const char *sub, const char *const extra[])
{
	static const char *const base[] = { "-O2", "-shared", "-fPIC", NULL };
	const char *flags[32];
	char out[PATH_MAX];

	snprintf(out, sizeof(out), "%s/libplain.so", sub);
	tr_build(tc, NULL, "gcc", PROGS "plain.c", out, cat_flags(flags, base, extra));
}

/* <dir>/<sub>/<name>.plain (gcc) and <dir>/<sub>/<name> (adacc in `mode`)
 * from prog, linked with <sub>/libplain.so, both with extra flags. */
static void build_against_libplain(const struct tr_case *tc, const char *sub, const char *prog,
				   const char *name, const char *mode, const char *const extra[])
{
	char lflag[PATH_MAX + 8], rpath[64], out[PATH_MAX], mode_flag[32];
	const char *const link[] = { "-O2", lflag, "-lplain", rpath, NULL };
	const char *const traced[] = { mode_flag, NULL };
	const char *flags[32], *all[32];

	snprintf(lflag, sizeof(lflag), "-L%s", sub);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,$ORIGIN");
	snprintf(mode_flag, sizeof(mode_flag), "--ada-mode=%s", mode);
	cat_flags(flags, link, extra);
	snprintf(out, sizeof(out), "%s/%s.plain", sub, name);
	tr_build(tc, NULL, "gcc", prog, out, flags);
	snprintf(out, sizeof(out), "%s/%s", sub, name);
	tr_build(tc, NULL, TR_ADACC, prog, out, cat_flags(all, flags, traced));
}

/* <dir>/<name>.plain (gcc) and <dir>/<name> (adacc in fentry mode) from
 * PROGS <name>.c, both -O2 with extra flags (NULL-terminated, may be NULL). */
static void build_fentry_pair(const struct tr_case *tc, const char *name,
			      const char *const extra[])
{
	static const char *const base[] = { "-O2", NULL };
	static const char *const mode[] = { "--ada-mode=fentry", NULL };
	const char *flags[32], *traced[32];
	char prog[PATH_MAX], out[PATH_MAX];

	snprintf(prog, sizeof(prog), PROGS "%s.c", name);
	snprintf(out, sizeof(out), "%s.plain", name);
	tr_build(tc, NULL, "gcc", prog, out, cat_flags(flags, base, extra));
	tr_build(tc, NULL, TR_ADACC, prog, name, cat_flags(traced, flags, mode));
}

/* The output of a tool run in the case directory (fails the test unless it
 * exits 0), malloc'd. */
static char *tool_output(const struct tr_case *tc, const char *const argv[])
{
	struct proc_result res = { 0 };
	char cmd[2048];
	char *out;

	tr_run(tc, argv, NULL, &res);
	if (proc_exit_code(&res) != 0) {
		print_error("%s", res.err);
		proc_result_free(&res);
		fail_msg("%s failed", proc_cmdline(argv, cmd, sizeof(cmd)));
	}
	out = res.out;
	res.out = NULL;
	proc_result_free(&res);
	return out;
}

/* ---- 1. an executable, a plain library, libc ------------------------------------------ */

static const char app_tree[] =
	"main\n"
	"  plain_len\n"
	"    strlen\n"
	"  plain_alloc\n"
	"    malloc\n"
	"  malloc\n"
	"  plain_free x2\n"
	"    free\n"
	"  printf\n";

static const char app_out[] = "len 5, allocations ok\n";

/* --dump's line for the next event at or after *pos whose text (after the
 * time and the indentation) starts with `prefix`; *pos moves past it. */
static void dump_next(const char **pos, const char *prefix, char *line, size_t size)
{
	const char *p = *pos;

	while (p && *p) {
		const char *nl = strchr(p, '\n'), *text = p + strcspn(p, " ");

		text += strspn(text, " ");
		if (starts_with(text, prefix)) {
			snprintf(line, size, "%.*s", (int)(nl ? nl - text : (long)strlen(text)), text);
			*pos = nl ? nl + 1 : p + strlen(p);
			return;
		}
		p = nl ? nl + 1 : NULL;
	}
	fail_msg("--dump: no event \"%s...\" after where the last one was found", prefix);
}

static uint64_t dump_hex(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	char *end;
	uint64_t v;

	if (!p)
		fail_msg("--dump line \"%s\" has no \"%s\"", line, key);
	v = strtoull(p + strlen(key), &end, 16);
	if (end == p + strlen(key))
		fail_msg("--dump line \"%s\": no number after \"%s\"", line, key);
	return v;
}

/* The detail lane of the hooked calls: strlen gets plain_len's argument and
 * returns 5 (as an IFUNC implementation, whose name is the CPU's: "strlen"
 * or "__strlen_<impl>"), malloc(0x40) returns what plain_alloc returns and
 * plain_free and free receive; the executable's own malloc(0x10) is the same
 * function as libplain's. */
static void expect_app_dump(struct tr_case *tc, const char *trace)
{
	const char *const sym = ADA_ROOT "/bin/ada-symbolize";
	const char *const argv[] = { sym, "--dump", trace, NULL };
	const char *pos = scratch.dump = tool_output(tc, argv);
	char line[1024], prefix[160], strlen_name[128];
	uint64_t s, p;

	dump_next(&pos, "plain_len(", line, sizeof(line));
	s = dump_hex(line, "rdi=0x");
	/* The next line: the call plain_len's tail call made. */
	{
		const char *name = pos + strcspn(pos, " ");

		name += strspn(name, " ");
		snprintf(strlen_name, sizeof(strlen_name), "%.*s", (int)strcspn(name, "( \n"), name);
	}
	if (strcmp(strlen_name, "strlen") != 0 && !starts_with(strlen_name, "__strlen"))
		fail_msg("plain_len's callee is \"%s\", not strlen or __strlen*\n%s", strlen_name,
			 scratch.dump);
	snprintf(prefix, sizeof(prefix), "%s(", strlen_name);
	dump_next(&pos, prefix, line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), s);
	snprintf(prefix, sizeof(prefix), "%s = ", strlen_name);
	dump_next(&pos, prefix, line, sizeof(line));
	assert_int_equal(dump_hex(line, " = 0x"), 5);
	dump_next(&pos, "plain_len = ", line, sizeof(line));
	assert_int_equal(dump_hex(line, " = 0x"), 5);

	dump_next(&pos, "plain_alloc(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), 0x40);
	dump_next(&pos, "malloc(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), 0x40);
	dump_next(&pos, "malloc = ", line, sizeof(line));
	p = dump_hex(line, " = 0x");
	assert_true(p != 0);
	dump_next(&pos, "plain_alloc = ", line, sizeof(line));
	assert_int_equal(dump_hex(line, " = 0x"), p);
	dump_next(&pos, "malloc(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), 0x10);
	dump_next(&pos, "plain_free(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), p);
	dump_next(&pos, "free(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), p);
	free(scratch.dump);
	scratch.dump = NULL;
}

/* One symbol per function: malloc, called from libplain, from the
 * executable and from inside libc, is one function (its target address). */
static void expect_one_symbol(const struct tr_case *tc, const char *name)
{
	char key[128];
	const char *const needles[] = { key, NULL };

	snprintf(key, sizeof(key), "\"name\": \"%s\",", name);
	if (tr_count_lines(tc->mf.text, needles) != 1)
		fail_msg("manifest.json: %zu symbols named %s, expected 1\n%s",
			 tr_count_lines(tc->mf.text, needles), name, tc->mf.text);
}

static void build_app(struct tr_case *tc, const char *mode)
{
	make_dir(tc, "b");
	build_libplain(tc, "b", NULL);
	build_against_libplain(tc, "b", PROGS "app.c", "app", mode, NULL);
}

static void library_calls_nest_exactly_fentry(void **state)
{
	struct tr_case *tc = *state;
	char trace[PATH_MAX], disabled[PATH_MAX], output[PATH_MAX + 16];
	const char *const env[] = { "ADA_DISABLE=1", output, NULL };
	const char *const argv[] = { "b/app", NULL };
	struct proc_result off = { 0 };
	struct stat st;

	build_app(tc, "fentry");
	run(tc, "b/app", "trace", NULL, 3);
	assert_string_equal(tc->traced.out, app_out);
	expect_direct_tree(tc, app_tree);
	expect_one_symbol(tc, "malloc");
	expect_app_dump(tc, tr_path(tc, "trace", trace));

	/* ADA_DISABLE=1: the same output and status, nothing on stderr, no
	 * trace. */
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", tr_path(tc, "disabled", disabled));
	tr_run(tc, argv, env, &off);
	assert_int_equal(proc_exit_code(&off), 3);
	assert_string_equal(off.out, tc->plain.out);
	assert_string_equal(off.err, "");
	proc_result_free(&off);
	assert_true(stat(disabled, &st) < 0 && errno == ENOENT);
	tr_pass(tc);
}

static void library_calls_nest_exactly_mcount(void **state)
{
	struct tr_case *tc = *state;
	char trace[PATH_MAX];

	build_app(tc, "mcount");
	run(tc, "b/app", "trace", NULL, 3);
	assert_string_equal(tc->traced.out, app_out);
	expect_direct_tree(tc, app_tree);
	expect_app_dump(tc, tr_path(tc, "trace", trace));
	tr_pass(tc);
}

/* cyg mode: the same tree, without the detail lane. A cyg frame's stack
 * position must be strictly above the return-address slot of a hooked call
 * it makes (runtime/cyg.c takes the hook's canonical frame address), or the
 * call would close it as abandoned: main (unwound) with plain_len & co. as
 * its siblings, and main's exit "unmatched". */
static void library_calls_nest_exactly_cyg(void **state)
{
	struct tr_case *tc = *state;

	build_app(tc, "cyg");
	run(tc, "b/app", "trace", NULL, 3);
	assert_string_equal(tc->traced.out, app_out);
	expect_direct_tree(tc, app_tree);
	tr_pass(tc);
}

/* ---- the manifest ----------------------------------------------------------------- */

/* The numeric value of key in the manifest's "dynamic_hooks" object. */
static double hooks_value(const struct tr_case *tc, const char *key)
{
	const char *p = strstr(tc->mf.text, "\n  \"dynamic_hooks\": {"), *end;
	char v[64];

	if (!p)
		fail_msg("manifest.json has no \"dynamic_hooks\":\n%s", tc->mf.text);
	end = strchr(p, '}');
	if (!tr_json_value(p, end, key, v, sizeof(v)))
		fail_msg("manifest.json: no \"%s\" in \"dynamic_hooks\":\n%.*s", key,
			 (int)(end - p + 1), p);
	return strtod(v, NULL);
}

/* The line of the manifest's first module whose path ends with suffix, in
 * [*line, *end); false if there is none. */
static bool module_line(const struct tr_case *tc, const char *suffix, const char **line,
			const char **end)
{
	const char *p = strstr(tc->mf.text, "\n  \"modules\": [\n");

	while (p && (p = strstr(p + 1, "\n    {\"module_id\": "))) {
		const char *e = strchr(p + 1, '\n');
		char path[PATH_MAX];

		if (!e || !tr_json_value(p, e, "path", path, sizeof(path)))
			break;
		if (ends_with(path, suffix)) {
			*line = p + 1;
			*end = e;
			return true;
		}
	}
	return false;
}

/* The "mode" of the manifest's module whose path ends with suffix. */
static void module_mode(const struct tr_case *tc, const char *suffix, char *mode, size_t size)
{
	const char *line, *end;

	if (!module_line(tc, suffix, &line, &end))
		fail_msg("manifest.json lists no module *%s:\n%s", suffix, tc->mf.text);
	if (!tr_json_value(line, end, "mode", mode, size))
		fail_msg("manifest.json: module *%s has no mode", suffix);
}

static void expect_module_mode(const struct tr_case *tc, const char *suffix, const char *want)
{
	char mode[64];

	module_mode(tc, suffix, mode, sizeof(mode));
	if (strcmp(mode, want) != 0)
		fail_msg("manifest.json: module *%s has mode \"%s\", expected \"%s\"\n%s", suffix,
			 mode, want, tc->mf.text);
}

/* "dynamic_hooks" has every total; one pass (no dlopen), nothing excluded,
 * at least the seven functions the program reaches (plain_len, plain_alloc,
 * plain_free, strlen, malloc, free, printf) in at least three modules (the
 * executable, libplain, libc), each slot leading to one of them. Times are
 * not checked (no wall-clock assertion), only that they are there. The
 * executable is "fentry"; libplain and libc, reached through hooks only,
 * "plt". */
static void manifest_counts_hooks_and_names_modes(void **state)
{
	struct tr_case *tc = *state;

	build_app(tc, "fentry");
	run(tc, "b/app", "trace", NULL, 3);
	assert_true(hooks_value(tc, "modules") >= 3);
	assert_true(hooks_value(tc, "functions") >= 7);
	assert_true(hooks_value(tc, "slots") >= hooks_value(tc, "functions"));
	assert_true(hooks_value(tc, "excluded") == 0);
	hooks_value(tc, "untraceable");
	assert_true(hooks_value(tc, "passes") == 1);
	assert_true(hooks_value(tc, "startup_ms") >= 0);
	assert_true(hooks_value(tc, "total_ms") >= hooks_value(tc, "startup_ms"));
	if (!strstr(tc->mf.text, "\n  \"mode\": \"fentry\",\n"))
		fail_msg("manifest.json: the process's mode is not fentry\n%s", tc->mf.text);
	expect_module_mode(tc, "/b/app", "fentry");
	expect_module_mode(tc, "/b/libplain.so", "plt");
	/* libc defines mcount (gprof's), __fentry__ and __cyg_profile_func_*
	 * (no-ops), which in an executable would mean the static runtime. */
	expect_module_mode(tc, "/libc.so.6", "plt");
	tr_pass(tc);
}

/* ---- 2. binding and relocation modes ---------------------------------------------- */

struct binding {
	const char *sub;
	const char *flags[4];  /* for the library and the executable */
	bool bind_now;         /* readelf -d says BIND_NOW */
	bool relro;            /* readelf -l shows GNU_RELRO */
	bool glob_dat;         /* libplain calls strlen through a GLOB_DAT slot, not a JUMP_SLOT */
};

static const struct binding bindings[] = {
	{ "lazy", { "-Wl,-z,lazy", NULL }, false, true, false },
	{ "now", { "-Wl,-z,norelro", "-Wl,-z,now", NULL }, true, false, false },
	{ "relro", { "-Wl,-z,relro", "-Wl,-z,now", NULL }, true, true, false },
	{ "noplt", { "-fno-plt", NULL }, false, true, true },
};

/* What the test relies on: each build binds and relocates as named. */
static void expect_binding(const struct tr_case *tc, const struct binding *b, const char *file)
{
	char path[PATH_MAX], what[PATH_MAX + 64];
	const char *const dyn_argv[] = { "readelf", "-dW", path, NULL };
	const char *const seg_argv[] = { "readelf", "-lW", path, NULL };
	const char *const rel_argv[] = { "readelf", "-rW", path, NULL };
	const char *const bind_now[] = { "BIND_NOW", NULL };
	const char *const relro[] = { "GNU_RELRO", NULL };
	const char *const glob_dat[] = { "R_X86_64_GLOB_DAT", "strlen", NULL };
	const char *const jump_slot[] = { "R_X86_64_JUMP_SLOT", "strlen", NULL };
	char *dyn, *seg, *rel;

	snprintf(path, sizeof(path), "%s/%s/%s", tc->dir, b->sub, file);
	snprintf(what, sizeof(what), "%s (%s)", path, b->sub);
	dyn = tool_output(tc, dyn_argv);
	seg = tool_output(tc, seg_argv);
	rel = tool_output(tc, rel_argv);
	if ((tr_count_lines(dyn, bind_now) > 0) != b->bind_now)
		fail_msg("%s: BIND_NOW is%s there:\n%s", what, b->bind_now ? " not" : "", dyn);
	if ((tr_count_lines(seg, relro) > 0) != b->relro)
		fail_msg("%s: GNU_RELRO is%s there:\n%s", what, b->relro ? " not" : "", seg);
	if (!strcmp(file, "libplain.so") &&
	    (tr_count_lines(rel, b->glob_dat ? glob_dat : jump_slot) != 1))
		fail_msg("%s: strlen is not called through a %s slot:\n%s", what,
			 b->glob_dat ? "GLOB_DAT" : "JUMP_SLOT", rel);
	free(dyn);
	free(seg);
	free(rel);
}

/* Lazy binding (the slots still lead into the PLT when they are hooked),
 * -z now without RELRO (bound, writable), full RELRO (bound, read-only:
 * opened for the hook and closed again) and -fno-plt (GLOB_DAT slots,
 * `call *slot(%rip)` and `jmp *slot(%rip)` in the code): the same tree. */
static void every_binding_gives_the_same_tree(void **state)
{
	struct tr_case *tc = *state;

	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++) {
		const struct binding *b = &bindings[i];
		char exe[64];

		make_dir(tc, b->sub);
		build_libplain(tc, b->sub, b->flags);
		build_against_libplain(tc, b->sub, PROGS "app.c", "app", "fentry", b->flags);
		expect_binding(tc, b, "libplain.so");
		expect_binding(tc, b, "app");
		snprintf(exe, sizeof(exe), "%s/app", b->sub);
		run(tc, exe, b->sub, NULL, 3);
		assert_string_equal(tc->traced.out, app_out);
		expect_direct_tree(tc, app_tree);
	}
	tr_pass(tc);
}

/* A slot still lazily unbound when the hooks are set is bound by the
 * runtime, not by the dynamic linker: to the definition the dynamic linker
 * would have chosen, the first in the global scope, unversioned or not,
 * even for a versioned reference. An LD_PRELOAD'ed strlen
 * (progs/dynhook/preload.c: unversioned, adds 100, in a library that has
 * version information of its own) wins over libc's for libplain's
 * strlen@GLIBC_2.2.5: "len 105". (dlvsym(RTLD_DEFAULT, name, version) would
 * skip it, and libada's own unversioned interposers too: see
 * cxx_exception_from_libstdcxx_unwinds_hooked_frames.) */
static void lazy_slots_bind_like_the_dynamic_linker(void **state)
{
	struct tr_case *tc = *state;
	static const char *const lazy[] = { "-Wl,-z,lazy", NULL };
	static const char *const pre[] = { "-O2", "-shared", "-fPIC", NULL };
	static const char want[] = "len 105, allocations ok\n";
	char preload[PATH_MAX + 16], output[PATH_MAX + 16], lib[PATH_MAX], trace[PATH_MAX];
	const char *const plain_env[] = { preload, NULL };
	const char *const env[] = { preload, output, NULL };
	const char *const plain_argv[] = { "lazy/app.plain", NULL };
	const char *const argv[] = { "lazy/app", NULL };

	make_dir(tc, "lazy");
	build_libplain(tc, "lazy", lazy);
	build_against_libplain(tc, "lazy", PROGS "app.c", "app", "fentry", lazy);
	tr_build(tc, NULL, "gcc", PROGS "preload.c", "libpreload.so", pre);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", tr_path(tc, "libpreload.so", lib));
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", tr_path(tc, "trace", trace));
	/* The premise: the interposer wins in the plain program. */
	tr_run(tc, plain_argv, plain_env, &tc->plain);
	if (strcmp(tc->plain.out, want) != 0)
		fail_msg("LD_PRELOAD's strlen is not used by the plain program (the test's "
			 "premise): %s", tc->plain.out);
	tr_run(tc, argv, env, &tc->traced);
	assert_int_equal(proc_exit_code(&tc->traced), 3);
	if (strcmp(tc->traced.out, want) != 0)
		fail_msg("the traced program prints \"%s\", the plain one \"%s\": libplain's lazy "
			 "strlen slot was not bound to LD_PRELOAD's strlen", tc->traced.out, want);
	tr_symbolize(tc, trace);
	expect_balanced(trace);
	tr_pass(tc);
}

/* A library that interposes a function the runtime calls while it sets a
 * thread up, and passes the call on through its own (hooked) PLT slot
 * (progs/dynhook/sigmask_shim.c: pthread_sigmask through sigprocmask; ASan's
 * interceptors are such a library). The hook on that slot fired before the
 * thread's state existed and set the thread up again, recursing until the
 * stack overflowed: every traced thread crashed. The runtime now blocks
 * signals there with the system call itself. 200 threads run and exit. */
static void interposed_sigmask_does_not_recurse_into_thread_setup(void **state)
{
	struct tr_case *tc = *state;
	static const char *const pre[] = { "-O2", "-shared", "-fPIC", NULL };
	char preload[PATH_MAX + 16], lib[PATH_MAX];
	const char *const env[] = { preload, NULL };

	tr_build(tc, NULL, "gcc", PROGS "sigmask_shim.c", "libsigmask.so", pre);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", tr_path(tc, "libsigmask.so", lib));
	tr_build_pair(tc, "many_threads", "many_threads", NULL);
	tr_run_pair(tc, "many_threads", NULL, env, 0);
	assert_string_equal(tc->traced.out, "200 threads, sum 19900\n");
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	assert_int_equal(tc->mf.nthreads, 201);
	tr_pass(tc);
}

/* ---- 3. dlopen and dlclose ---------------------------------------------------------- */

static const char dlopen_tree[] =
	"main\n"
	"  one_round x2\n"
	"    dlopen x2\n"
	"    inst_twice\n"
	"    inst_measure\n"
	"      strlen\n"
	"    plain_count\n"
	"      strlen\n"
	"    malloc\n"
	"    memcpy\n"
	"    printf\n"
	"    free\n"
	"    span_of x2\n"
	"      dlinfo\n"
	"    fprintf\n"
	"    dlclose x2\n"
	"    mmap x2\n";

/* The address "<key> 0x..." that round r printed on stderr. */
static uint64_t printed_base(const char *err, int r, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "round %d ", r);
	p = strstr(err, pat);
	if (p)
		p = strstr(p, key);
	if (!p)
		fail_msg("stderr has no \"round %d ... %s\":\n%s", r, key, err);
	return strtoull(p + strlen(key), NULL, 16);
}

/* The manifest's modules whose path ends with suffix: their count, and
 * their base addresses (at most 4) and build-ids. */
static size_t loads_of(const struct tr_case *tc, const char *suffix, uint64_t base[4],
		       char uuid[4][80])
{
	size_t n = 0;
	const char *line = strstr(tc->mf.text, "\n  \"modules\": [\n");

	for (; line && (line = strstr(line + 1, "\n    {\"module_id\": "));) {
		const char *end = strchr(line + 1, '\n');
		char path[PATH_MAX], b[64];

		if (!end || !tr_json_value(line, end, "path", path, sizeof(path)))
			break;
		if (!ends_with(path, suffix))
			continue;
		if (n < 4) {
			if (!tr_json_value(line, end, "base_address", b, sizeof(b)) ||
			    !tr_json_value(line, end, "uuid", uuid[n], sizeof(uuid[n])))
				fail_msg("manifest.json: module %s has no base_address or uuid", path);
			base[n] = strtoull(b, NULL, 16);
		}
		n++;
	}
	return n;
}

static void expect_two_loads(const struct tr_case *tc, const char *suffix, const char *key,
			     const char *mode)
{
	uint64_t base[4], printed[2];
	char uuid[4][80];
	size_t n = loads_of(tc, suffix, base, uuid);

	printed[0] = printed_base(tc->traced.err, 1, key);
	printed[1] = printed_base(tc->traced.err, 2, key);
	if (n != 2)
		fail_msg("manifest.json lists %zu loads of *%s, expected 2 (at 0x%" PRIx64
			 " and 0x%" PRIx64 ")\n%s",
			 n, suffix, printed[0], printed[1], tc->mf.text);
	assert_int_equal(base[0], printed[0]);
	assert_int_equal(base[1], printed[1]);
	assert_int_equal(strlen(uuid[0]), 40);
	assert_string_equal(uuid[0], uuid[1]);
	expect_module_mode(tc, suffix, mode);
}

/* <dir>/plain/libdlinst.so (gcc), <dir>/traced/libdlinst.so (adacc),
 * <dir>/libdlplain.so (gcc), dl_main.plain (gcc) and dl_main (adacc); their
 * absolute paths in the three buffers (PATH_MAX each). */
static void build_dl(struct tr_case *tc, char *plain_inst, char *traced_inst, char *plain_lib)
{
	static const char *const lib[] = { "-O2", "-shared", "-fPIC", NULL };
	static const char *const inst[] = { "-O2", "-shared", "-fPIC", "--ada-mode=fentry", NULL };
	static const char *const exe_plain[] = { "-O2", "-ldl", NULL };
	static const char *const exe[] = { "-O2", "-ldl", "--ada-mode=fentry", NULL };

	make_dir(tc, "plain");
	make_dir(tc, "traced");
	tr_build(tc, NULL, "gcc", PROGS "dl_inst.c", "plain/libdlinst.so", lib);
	tr_build(tc, NULL, TR_ADACC, PROGS "dl_inst.c", "traced/libdlinst.so", inst);
	tr_build(tc, NULL, "gcc", PROGS "dl_plain.c", "libdlplain.so", lib);
	tr_build(tc, NULL, "gcc", PROGS "dl_main.c", "dl_main.plain", exe_plain);
	tr_build(tc, NULL, TR_ADACC, PROGS "dl_main.c", "dl_main", exe);
	tr_path(tc, "plain/libdlinst.so", plain_inst);
	tr_path(tc, "traced/libdlinst.so", traced_inst);
	tr_path(tc, "libdlplain.so", plain_lib);
}

/* Two rounds of dlopen, calls, dlclose: every call is traced after every
 * load (the instrumented library's functions, the uninstrumented one's calls
 * through its PLT), and the manifest lists each load of each library with
 * its own base address and the same build-id. The program keeps each
 * library's old range mapped (PROT_NONE) after the first dlclose, so the
 * second round loads both elsewhere: the addresses it prints differ
 * (checked: the test's premise). A library loaded and unloaded between two
 * module scans of the writer (every 10 ms) must be recorded all the same:
 * by the pass that runs after each dlopen (otherwise its functions show as
 * "[unmapped]+0x7f..." and the manifest does not list it). */
static void dlopen_dlclose_twice_traces_every_load(void **state)
{
	struct tr_case *tc = *state;
	char plain_inst[PATH_MAX], traced_inst[PATH_MAX], plain_lib[PATH_MAX];
	const char *const plain_args[] = { plain_inst, plain_lib, NULL };
	const char *const traced_args[] = { traced_inst, plain_lib, NULL };

	build_dl(tc, plain_inst, traced_inst, plain_lib);
	run_args(tc, "dl_main", "trace", plain_args, traced_args, NULL, 0);
	assert_string_equal(tc->traced.out, "round 1: 42 10 hello\nround 2: 42 10 hello\n");
	if (printed_base(tc->traced.err, 1, "inst 0x") == printed_base(tc->traced.err, 2, "inst 0x") ||
	    printed_base(tc->traced.err, 1, "plain 0x") == printed_base(tc->traced.err, 2, "plain 0x"))
		fail_msg("a library was loaded at the same address twice: the test's premise\n%s",
			 tc->traced.err);
	/* 1 at start-up, and one after each dlopen and dlclose (4 + 4). */
	assert_true(hooks_value(tc, "passes") == 9);
	expect_direct_tree(tc, dlopen_tree);
	expect_two_loads(tc, "/traced/libdlinst.so", "inst 0x", "fentry");
	expect_two_loads(tc, "/libdlplain.so", "plain 0x", "plt");
	tr_pass(tc);
}

/* dlopen of an instrumented library (its functions traced by their own
 * hooks, its strlen call through its hooked PLT) and of an uninstrumented
 * one (plain_copy and plain_release, called through pointers, are not
 * traced; their calls through the library's PLT are: plain_count, its own
 * exported function, and libc's), without dlclose: both are still loaded at
 * exit, when the writer records the module map for the last time, so they
 * are named whatever the timing. The second round's dlopen loads nothing:
 * no pass after it (1 at start-up + 2), and one load of each in the
 * manifest, libdlplain's with mode "plt". */
static void dlopened_libraries_are_hooked_and_named(void **state)
{
	struct tr_case *tc = *state;
	char plain_inst[PATH_MAX], traced_inst[PATH_MAX], plain_lib[PATH_MAX];
	const char *const plain_args[] = { plain_inst, plain_lib, "keep", NULL };
	const char *const traced_args[] = { traced_inst, plain_lib, "keep", NULL };
	uint64_t base[4];
	char uuid[4][80];

	build_dl(tc, plain_inst, traced_inst, plain_lib);
	run_args(tc, "dl_main", "trace", plain_args, traced_args, NULL, 0);
	assert_string_equal(tc->traced.out, "round 1: 42 10 hello\nround 2: 42 10 hello\n");
	assert_true(hooks_value(tc, "passes") == 3);
	expect_direct_tree(tc,
			   "main\n"
			   "  one_round x2\n"
			   "    dlopen x2\n"
			   "    inst_twice\n"
			   "    inst_measure\n"
			   "      strlen\n"
			   "    plain_count\n"
			   "      strlen\n"
			   "    malloc\n"
			   "    memcpy\n"
			   "    printf\n"
			   "    free\n"
			   "    span_of x2\n"
			   "      dlinfo\n"
			   "    fprintf\n");
	assert_int_equal(loads_of(tc, "/traced/libdlinst.so", base, uuid), 1);
	assert_int_equal(base[0], printed_base(tc->traced.err, 1, "inst 0x"));
	assert_int_equal(strlen(uuid[0]), 40);
	assert_int_equal(loads_of(tc, "/libdlplain.so", base, uuid), 1);
	assert_int_equal(base[0], printed_base(tc->traced.err, 1, "plain 0x"));
	assert_int_equal(strlen(uuid[0]), 40);
	expect_module_mode(tc, "/traced/libdlinst.so", "fentry");
	expect_module_mode(tc, "/libdlplain.so", "plt");
	tr_pass(tc);
}

/* A library loaded with dlmopen into a new namespace, with its own copy of
 * libc: its calls through its PLT are hooked (runtime/modmap.c finds the
 * namespace's modules through r_debug's chain, dl_iterate_phdr lists only
 * the caller's), bound in its namespace, and named from the manifest's
 * module records. plain_copy and plain_release are called through dlsym'd
 * pointers, so their frames are not seen: their calls nest in
 * in_namespace. */
static void check_dlmopen(struct tr_case *tc, const char *binding)
{
	static const char *const lib[] = { "-O2", "-shared", "-fPIC", NULL };
	static const char *const ldl[] = { "-ldl", NULL };
	char plain_lib[PATH_MAX];
	const char *const args[] = { plain_lib, binding, NULL };

	tr_build(tc, NULL, "gcc", PROGS "dl_plain.c", "libdlplain.so", lib);
	build_fentry_pair(tc, "dlmopen", ldl);
	tr_path(tc, "libdlplain.so", plain_lib);
	run_args(tc, "dlmopen", "trace", args, args, NULL, 0);
	assert_string_equal(tc->traced.out, "copy namespace\n");
	assert_true(hooks_value(tc, "passes") == 3);
	expect_direct_tree(tc,
			   "main\n"
			   "  strcmp\n"
			   "  in_namespace\n"
			   "    dlmopen\n"
			   "    plain_count\n"
			   "      strlen\n"
			   "    malloc\n"
			   "    memcpy\n"
			   "    printf\n"
			   "    free\n"
			   "    dlclose\n");
	expect_module_mode(tc, "/libdlplain.so", "plt");
	tr_pass(tc);
}

/* An instrumented library loaded with dlmopen brings a second libada into
 * its namespace. That copy stays off (one session, one writer), and the
 * namespace is not hooked: two runtimes would hijack the same frames. The
 * program's output is unchanged; the library's calls are not recorded (a
 * documented limit), the program's own are. */
static void dlmopen_of_an_instrumented_library_keeps_one_runtime(void **state)
{
	struct tr_case *tc = *state;
	static const char *const inst[] = { "-O2", "-shared", "-fPIC", "--ada-mode=fentry", NULL };
	static const char *const ldl[] = { "-ldl", NULL };
	char lib[PATH_MAX];
	const char *const args[] = { lib, "lazy", NULL };

	tr_build(tc, NULL, TR_ADACC, PROGS "dl_plain.c", "libdlinst.so", inst);
	build_fentry_pair(tc, "dlmopen", ldl);
	tr_path(tc, "libdlinst.so", lib);
	run_args(tc, "dlmopen", "trace", args, args, NULL, 0); /* one session_* only */
	assert_string_equal(tc->traced.out, "copy namespace\n");
	expect_direct_tree(tc,
			   "main\n"
			   "  strcmp\n"
			   "  in_namespace\n"
			   "    dlmopen\n"
			   "    printf\n"
			   "    dlclose\n");
	tr_pass(tc);
}

static void dlmopen_namespace_is_hooked(void **state)
{
	check_dlmopen(*state, "now");
}

/* Its lazy slots bound in its namespace: a lookup from the default one
 * would give the other libc's malloc (or crash in dlsym, as a first
 * attempt did with a dependency's link map as the handle). */
static void dlmopen_namespace_binds_lazily(void **state)
{
	check_dlmopen(*state, "lazy");
}

/* A program built without adacc dlopens a library built with it, which
 * brings libada.so in: the hooks are set inside that dlopen. The library's
 * __fentry__ GOT slot (adacc's code calls `call *__fentry__@GOTPCREL(%rip)`)
 * is bound by the dynamic linker to libc.so.6's __fentry__ (glibc's gprof
 * hook; libc is in the global scope, libada only in the library's local
 * one), so the rule "functions defined in libada are never hooked" does not
 * cover it: instrumentation hooks are never hooked by name. Hooked, the
 * fentry call would return through ada_return_trampoline, which keeps only
 * the return registers, while __fentry__ must preserve every register: the
 * functions' arguments arrived clobbered (inst_twice(21) gave 960, strlen
 * got a garbage pointer and the program died of SIGSEGV). Whether such a
 * library's own functions are traced (its __fentry__ is libc's no-op) is
 * not asked here. */
static void uninstrumented_host_dlopens_an_instrumented_library(void **state)
{
	struct tr_case *tc = *state;
	static const char *const lib[] = { "-O2", "-shared", "-fPIC", NULL };
	static const char *const inst[] = { "-O2", "-shared", "-fPIC", "--ada-mode=fentry", NULL };
	static const char *const exe[] = { "-O2", "-ldl", NULL };
	char plain_inst[PATH_MAX], traced_inst[PATH_MAX];
	const char *const plain_args[] = { plain_inst, NULL };
	const char *const traced_args[] = { traced_inst, NULL };
	const char *const fentry[] = { "__fentry__", NULL };

	make_dir(tc, "plain");
	make_dir(tc, "traced");
	tr_build(tc, NULL, "gcc", PROGS "dl_inst.c", "plain/libdlinst.so", lib);
	tr_build(tc, NULL, TR_ADACC, PROGS "dl_inst.c", "traced/libdlinst.so", inst);
	tr_build(tc, NULL, "gcc", PROGS "dl_host.c", "host.plain", exe);
	tr_build(tc, NULL, "gcc", PROGS "dl_host.c", "host", exe);
	tr_path(tc, "plain/libdlinst.so", plain_inst);
	tr_path(tc, "traced/libdlinst.so", traced_inst);
	run_args(tc, "host", "trace", plain_args, traced_args, NULL, 0);
	assert_string_equal(tc->traced.out, "twice 42\nmeasure 10\nclosed\n");
	if (tr_count_lines(tc->replay.out, fentry) != 0)
		fail_msg("__fentry__ was hooked:\n%s", tc->replay.out);
	/* The library's own functions are recorded: its __fentry__ reference
	 * is versioned (runtime/libada.map), so glibc's no-op __fentry__,
	 * ahead in the host's search order, does not take it. After dlclose
	 * the host's hooked slots still work: libada is never unloaded
	 * (-z nodelete; the host crashed in puts before). */
	expect_direct_tree(tc, "inst_twice\nprintf\ninst_measure\n  strlen\nprintf\ndlclose\n"
			       "puts\n__cxa_finalize\n");
	tr_pass(tc);
}

/* ---- 4. C++: libstdc++, and an exception thrown inside it ------------------------------ */

static const char cxx_tree[] =
	"main\n"
	"  dh::build[abi:cxx11](int)\n"
	"  dh::sum_sorted(std::vector<int, std::allocator<int> >&)\n"
	"  dh::fetch_all(std::vector<int, std::allocator<int> > const&) (unwound)\n"
	"    dh::fetch(std::vector<int, std::allocator<int> > const&, unsigned long) x3\n"
	"    dh::fetch(std::vector<int, std::allocator<int> > const&, unsigned long) (unwound)\n"
	"  dh::report(char const*)\n"
	"  dh::after(int)\n";

/* stdout, but for the exception's message (libstdc++'s words). */
static const char cxx_out_start[] = "item7.................... 25\nsorted 123\ncaught: ";
static const char cxx_out_end[] = "\nafter 42\n";

/* The line of replay whose text, after its indentation, is `text`: its
 * start in *line and its indentation in *indent; false if there is none. */
static bool find_line(const char *replay, const char *text, const char **line, size_t *indent)
{
	for (const char *p = replay; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), in = strspn(p, " ");

		if (len - in == strlen(text) && !strncmp(p + in, text, len - in)) {
			*line = p;
			*indent = in;
			return true;
		}
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

/* Fails unless the replay has a line `parent` whose first child is `child`. */
static void expect_first_child(const char *replay, const char *parent, const char *child)
{
	const char *line, *next;
	size_t indent;

	if (!find_line(replay, parent, &line, &indent) || !(next = strchr(line, '\n')) ||
	    strspn(next + 1, " ") != indent + 2 || strncmp(next + 3 + indent, child, strlen(child)) ||
	    next[3 + indent + strlen(child)] != '\n')
		fail_msg("--replay has no line \"%s\" with a first child \"%s\":\n%s", parent, child,
			 replay);
}

/* Fails unless the replay has a line `parent` with a line `desc` somewhere
 * in its subtree. */
static void expect_descendant(const char *replay, const char *parent, const char *desc)
{
	const char *line;
	size_t indent;

	if (find_line(replay, parent, &line, &indent)) {
		for (const char *p = strchr(line, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
			size_t in = strspn(p + 1, " "), len = strcspn(p + 1, "\n");

			if (in <= indent)
				break;
			if (len - in == strlen(desc) && !strncmp(p + 1 + in, desc, len - in))
				return;
		}
	}
	fail_msg("--replay has no line \"%s\" under \"%s\":\n%s", desc, parent, replay);
}

/* Fails unless the replay has a line `parent` whose subtree is one line, a
 * function whose name normalises to `leaf`. */
static void expect_leaf(const char *replay, const char *parent, const char *leaf)
{
	const char *line = NULL, *next = NULL, *after;
	size_t indent, len;
	char name[256], norm[256];

	if (!find_line(replay, parent, &line, &indent) || !(next = strchr(line, '\n')) ||
	    strspn(next + 1, " ") != indent + 2)
		fail_msg("--replay has no line \"%s\" with a child:\n%s", parent, replay);
	next += 1 + indent + 2;
	len = strcspn(next, "\n");
	snprintf(name, sizeof(name), "%.*s", (int)len, next);
	normalize(name, norm, sizeof(norm));
	after = next + len;
	if (strcmp(norm, leaf) != 0 || (*after && strspn(after + 1, " ") > indent))
		fail_msg("--replay: \"%s\" should have one child, \"%s\", and nothing under it:\n%s",
			 parent, leaf, replay);
}

/* The program's own functions exactly (dh:: and main: the std::sort
 * instances and string members compiled into it depend on the compiler);
 * the throw inside libstdc++ as it happened: __throw_out_of_range_fmt,
 * called by dh::fetch, and its __cxa_throw, unwound. */
static void check_cxx(struct tr_case *tc, const char *const env[])
{
	static const char *const flags[] = { "-O2", NULL };
	static const char *const traced[] = { "-O2", "--ada-mode=fentry", NULL };
	struct view v = { VIEW_OWN, "dh::", &scratch.nm };

	tr_build(tc, NULL, "g++", PROGS "cxx.cc", "cxx.plain", flags);
	tr_build(tc, NULL, TR_ADACXX, PROGS "cxx.cc", "cxx", traced);
	run(tc, "cxx", "trace", env, 0);
	if (!starts_with(tc->traced.out, cxx_out_start) || !ends_with(tc->traced.out, cxx_out_end) ||
	    strchr(tc->traced.out + strlen(cxx_out_start), '\n') !=
		    tc->traced.out + strlen(tc->traced.out) - strlen(cxx_out_end))
		fail_msg("stdout is \"%s\", expected \"%s<what()>%s\"", tc->traced.out,
			 cxx_out_start, cxx_out_end);
	names_load(&scratch.nm, tc);
	expect_view(tc, &v, cxx_tree);
	names_free(&scratch.nm);
	expect_first_child(tc->replay.out,
			   "dh::fetch(std::vector<int, std::allocator<int> > const&, unsigned long) "
			   "(unwound)",
			   "std::__throw_out_of_range_fmt(char const*, ...) (unwound)");
	expect_descendant(tc->replay.out, "std::__throw_out_of_range_fmt(char const*, ...) (unwound)",
			  "__cxa_throw (unwound)");
	expect_module_mode(tc, "/libstdc++.so.6", "plt");
	tr_pass(tc);
}

/* With LD_BIND_NOW=1 every slot is bound by the dynamic linker before the
 * hooks are set, so libstdc++'s calls to the unwinder reach libada's
 * interposers (mcount/unwind.c), which give the unwinder the real return
 * addresses of the hooked frames. */
static void cxx_exception_from_libstdcxx_unwinds_hooked_frames_bind_now(void **state)
{
	const char *const env[] = { "LD_BIND_NOW=1", NULL };

	check_cxx(*state, env);
}

/* The default: libstdc++.so.6 is bound lazily, so its _Unwind_* and
 * __cxa_* slots are still unbound when the hooks are set and the runtime
 * binds them. They must reach libada's unversioned interposers, as the
 * dynamic linker would bind them, even though libstdc++ asks for
 * _Unwind_RaiseException@GCC_3.0: bound to libgcc_s's own, the unwinder
 * meets ada_return_trampoline in the hooked frames (whose unwind
 * information says "no caller") and calls std::terminate. */
static void cxx_exception_from_libstdcxx_unwinds_hooked_frames(void **state)
{
	check_cxx(*state, NULL);
}

/* ---- 5. longjmp through hooked calls ------------------------------------------------- */

static const char longjmp_tree[] =
	"main\n"
	"  sort_until_bail\n"
	"    qsort (unwound)\n"
	"      cmp x2\n"
	"      cmp (unwound)\n"
	"        bail (unwound)\n"
	"          longjmp (unwound)\n"
	"  printf\n"
	"  wait_for_signal\n"
	"    sigaction\n"
	"    raise (unwound)\n"
	"      on_signal (unwound)\n"
	"        longjmp (unwound)\n"
	"  printf\n"
	"  after\n"
	"  printf\n";

/* qsort (hooked) calls the program's comparator, which longjmps out of it;
 * a signal handler entered inside raise (hooked) siglongjmps out of both.
 * setjmp and sigsetjmp are never hooked (a hijacked return address would be
 * resumed from the saved context), so they are not in the tree. */
static void longjmp_out_of_hooked_calls(void **state)
{
	struct tr_case *tc = *state;

	build_fentry_pair(tc, "longjmp", NULL);
	run(tc, "longjmp", "trace", NULL, 0);
	assert_string_equal(tc->traced.out,
			    "bailed with 7 after 3 compares\nsignal 10\nafter 42\n");
	expect_direct_tree(tc, longjmp_tree);
	tr_pass(tc);
}

/* ---- 6. vfork and exec ---------------------------------------------------------------- */

static const char vfork_tree[] =
	"main\n"
	"  spawn\n"
	"    waitpid\n"
	"  printf\n"
	"  spawn\n"
	"    waitpid\n"
	"  printf\n"
	"  measure\n"
	"    strlen\n"
	"  printf\n";

/* vfork is never hooked; libada's is a real vfork whose child records
 * nothing (mcount/x86_64/vfork.S): the child runs on the parent's memory,
 * rings and shadow stack included, until it execs. So the session holds
 * the parent alone, its tree whole, its output and the children's exit
 * statuses the plain program's. (When vfork ran as fork, each child was a
 * traced process of its own, with main and spawn open at its exec; before
 * that, the child's exec flushed the parent's rings from the child, and the
 * parent's trace broke: "cannot write a thread file ...: Bad file
 * descriptor".) */
static void vfork_exec_leaves_the_parent_trace_whole(void **state)
{
	struct tr_case *tc = *state;

	build_fentry_pair(tc, "vfork", NULL);
	tr_run_pair(tc, "vfork", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "true: 0\nfalse: 1\nlen 6\n");
	if (tc->traced.err[0])
		fail_msg("the traced run wrote on stderr:\n%s", tc->traced.err);
	tr_symbolize(tc, NULL);
	assert_int_equal(expect_balanced(tc->trace), 1);
	expect_direct_trees(tc, tc->trace, vfork_tree);
	tr_pass(tc);
}

/* BUG: in a fork child, the runtime's own calls are recorded as the
 * program's. fork_child() (runtime/init.c, an atfork handler that runs
 * inside the hooked fork, on the program's thread) calls
 * ada_writer_after_fork() (runtime/writer.c), which drains the thread's
 * ring with lz4 (LZ4F_compressBegin_usingCDict calls malloc and free
 * through liblz4's PLT, hooked like any module's but libada's) and starts
 * the child's writer thread (pthread_create calls ld.so's
 * _dl_allocate_tls_init through libc's hooked PLT), without
 * ada_runtime_begin() (which ada_finish, ada_before_exec, exec.c's lookups
 * and the hooking passes have). The child's tree:
 *   main (open at exec)
 *     __fork
 *       malloc x2
 *       free x2
 *       malloc x2
 *       free x18
 *       _dl_allocate_tls_init
 * Expected: main (open at exec) > fork, and nothing under fork. Reproducer:
 *   adacc -O2 -o fork tests/e2e/progs/dynhook/fork.c && ./fork
 *   ada-symbolize --replay ada-trace   # both processes */
static void fork_child_records_only_its_own_calls(void **state)
{
	struct tr_case *tc = *state;

	build_fentry_pair(tc, "fork", NULL);
	tr_run_pair(tc, "fork", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "child 0\n");
	if (tc->traced.err[0])
		fail_msg("the traced run wrote on stderr:\n%s", tc->traced.err);
	tr_symbolize(tc, NULL);
	assert_int_equal(expect_balanced(tc->trace), 2);
	expect_direct_trees(tc, tc->trace,
			    "main\n"
			    "  fork\n"
			    "  waitpid\n"
			    "  printf\n"
			    "--- thread\n"
			    "main (open at exec)\n"
			    "  fork\n");
	/* The view leaves out what library functions call: the child's fork
	 * must have no child at all. */
	expect_leaf(tc->replay.out, "main (open at exec)", "fork");
	tr_pass(tc);
}

/* The runtime's own calls through hooked slots are not the program's:
 * libada's execl (runtime/exec.c) looks libc's execve up with
 * dlsym(RTLD_NEXT), and dlsym calls ld.so's _dl_find_dso_for_object through
 * libc's (hooked) PLT; the tree must not show it under main. */
static void runtime_lookups_are_not_recorded(void **state)
{
	struct tr_case *tc = *state;

	build_fentry_pair(tc, "exec", NULL);
	run(tc, "exec", "trace", NULL, 0);
	assert_string_equal(tc->traced.out, "exec 1\n");
	expect_direct_tree(tc,
			   "main (open at exec)\n"
			   "  printf\n"
			   "  fflush\n");
	tr_pass(tc);
}

/* ---- 7. threads ----------------------------------------------------------------------- */

#define THREAD_BLOCK "worker\n  plain_len x1000\n    strlen\n"

static const char threads_tree[] =
	"main\n"
	"  pthread_create x4\n"
	"  pthread_join x4\n"
	"  printf\n"
	"--- thread\n" THREAD_BLOCK "--- thread\n" THREAD_BLOCK "--- thread\n" THREAD_BLOCK
	"--- thread\n" THREAD_BLOCK;

/* Four threads call the same function of libplain (one stub, one cell for
 * every thread) 1000 times each: each thread has all of its calls, each
 * with its strlen, and nothing is dropped. */
static void four_threads_call_one_library_function(void **state)
{
	struct tr_case *tc = *state;

	make_dir(tc, "b");
	build_libplain(tc, "b", NULL);
	build_against_libplain(tc, "b", PROGS "threads.c", "threads", "fentry", NULL);
	run(tc, "b/threads", "trace", NULL, 0);
	assert_string_equal(tc->traced.out, "total 10000\n");
	assert_int_equal(tc->mf.nthreads, 5);
	expect_direct_tree(tc, threads_tree);
	tr_pass(tc);
}

/* ---- 8. ADA_EXCLUDE and ADA_DYNHOOK ---------------------------------------------------- */

/* Excluding a symbol leaves its slots alone, in every module: libplain's
 * malloc and the executable's own (and libc's internal ones); free stays. */
static void exclude_a_symbol_keeps_the_rest(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_EXCLUDE=libc.so.6:malloc", NULL };

	build_app(tc, "fentry");
	run(tc, "b/app", "trace", env, 3);
	assert_string_equal(tc->traced.err, "");
	expect_direct_tree(tc,
			   "main\n"
			   "  plain_len\n"
			   "    strlen\n"
			   "  plain_alloc\n"
			   "  plain_free x2\n"
			   "    free\n"
			   "  printf\n");
	assert_true(hooks_value(tc, "excluded") >= 2);
	tr_pass(tc);
}

/* Excluding a module leaves alone the slots that lead *into* it (the
 * executable's three, to plain_len, plain_alloc and plain_free), not the
 * module's own: its calls into libc are still recorded, under the caller
 * of the unrecorded plain_* function. */
static void exclude_a_module_unhooks_calls_into_it(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_EXCLUDE=libplain*", NULL };

	build_app(tc, "fentry");
	run(tc, "b/app", "trace", env, 3);
	assert_string_equal(tc->traced.err, "");
	expect_direct_tree(tc,
			   "main\n"
			   "  strlen\n"
			   "  malloc x2\n"
			   "  free x2\n"
			   "  printf\n");
	assert_true(hooks_value(tc, "excluded") == 3);
	tr_pass(tc);
}

/* Several items, comma-separated, and symbol globs. */
static void exclude_takes_a_list_of_globs(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_EXCLUDE=libc.so.6:*len*,libc*:free,libplain*:plain_alloc",
				    NULL };

	build_app(tc, "fentry");
	run(tc, "b/app", "trace", env, 3);
	assert_string_equal(tc->traced.err, "");
	expect_direct_tree(tc,
			   "main\n"
			   "  plain_len\n"
			   "  malloc x2\n"
			   "  plain_free x2\n"
			   "  printf\n");
	tr_pass(tc);
}

/* ADA_DYNHOOK=off: only the executable's own functions, no dynamic_hooks in
 * the manifest, no module reached through hooks. */
static void dynhook_off_records_no_library_call(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DYNHOOK=off", NULL };
	const char *const plt[] = { "\"mode\": \"plt\"", NULL };

	build_app(tc, "fentry");
	run(tc, "b/app", "trace", env, 3);
	assert_string_equal(tc->traced.err, "");
	expect_direct_tree(tc, "main\n");
	assert_null(strstr(tc->mf.text, "\"dynamic_hooks\""));
	assert_int_equal(tr_count_lines(tc->mf.text, plt), 0);
	assert_non_null(strstr(tc->mf.config, "dynhook=off"));
	tr_pass(tc);
}

/* A bad value: one line on stderr naming the variable and the value, and
 * the default (on; excluding nothing). */
static void bad_values_warn_once_and_keep_the_defaults(void **state)
{
	struct tr_case *tc = *state;
	static const struct {
		const char *env, *name;
	} bad[] = {
		{ "ADA_DYNHOOK=yes", "ADA_DYNHOOK=yes" },
		{ "ADA_EXCLUDE=libc.so.6:", "ADA_EXCLUDE=libc.so.6:" },
		{ "ADA_EXCLUDE=,libplain*", "ADA_EXCLUDE=,libplain*" },
	};

	build_app(tc, "fentry");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const env[] = { bad[i].env, NULL };
		const char *const named[] = { bad[i].name, NULL };
		char trace[32];

		snprintf(trace, sizeof(trace), "trace%zu", i);
		run(tc, "b/app", trace, env, 3);
		if (count_lines(tc->traced.err) != 1 || tr_count_lines(tc->traced.err, named) != 1)
			fail_msg("%s: stderr is not one line naming it:\n%s", bad[i].env,
				 tc->traced.err);
		expect_direct_tree(tc, app_tree);
		assert_true(hooks_value(tc, "excluded") == 0);
	}
	tr_pass(tc);
}

static int teardown(void **state)
{
	names_free(&scratch.nm);
	free(scratch.dump);
	scratch.dump = NULL;
	return tr_teardown(state);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, teardown)
	const struct CMUnitTest tests[] = {
		T(library_calls_nest_exactly_fentry),
		T(library_calls_nest_exactly_mcount),
		T(library_calls_nest_exactly_cyg),
		T(manifest_counts_hooks_and_names_modes),
		T(every_binding_gives_the_same_tree),
		T(lazy_slots_bind_like_the_dynamic_linker),
		T(interposed_sigmask_does_not_recurse_into_thread_setup),
		T(dlopened_libraries_are_hooked_and_named),
		T(dlopen_dlclose_twice_traces_every_load),
		T(dlmopen_namespace_is_hooked),
		T(dlmopen_namespace_binds_lazily),
		T(dlmopen_of_an_instrumented_library_keeps_one_runtime),
		T(uninstrumented_host_dlopens_an_instrumented_library),
		T(cxx_exception_from_libstdcxx_unwinds_hooked_frames_bind_now),
		T(cxx_exception_from_libstdcxx_unwinds_hooked_frames),
		T(longjmp_out_of_hooked_calls),
		T(vfork_exec_leaves_the_parent_trace_whole),
		T(fork_child_records_only_its_own_calls),
		T(runtime_lookups_are_not_recorded),
		T(four_threads_call_one_library_function),
		T(exclude_a_symbol_keeps_the_rest),
		T(exclude_a_module_unhooks_calls_into_it),
		T(exclude_takes_a_list_of_globs),
		T(dynhook_off_records_no_library_call),
		T(bad_values_warn_once_and_keep_the_defaults),
	};
#undef T

	tr_scrub_environment();
	/* tr_scrub_environment turns the hooks off for the other tests. */
	setenv("ADA_DYNHOOK", "on", 1);
	return cmocka_run_group_tests_name("dynamic hooks", tests, NULL, NULL);
}
