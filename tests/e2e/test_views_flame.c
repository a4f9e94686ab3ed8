/* test_views_flame.c - `ada-symbolize flame` on real traces.
 *
 * The folded stacks are checked against the report view of the same trace
 * (whose figures tests/e2e/test_views.c checks against the ATF): per
 * function, the weights of the stacks ending in it add up to its self time,
 * so the folded total is the sum of every self time, under each filter; with
 * --count, the stacks' calls add up to the function's calls. recursion.c
 * gives exact lines (its call tree does not depend on timing). The SVG is
 * well-formed XML (a small checker here, and xmllint where installed) and
 * names every function.
 *
 * Programs: examples/recursion.c (fentry), examples/demo.c (fentry, with
 * its library calls: three threads), examples/fork.c (cyg, two processes).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracerun.h"

#define SYM ADA_ROOT "/bin/ada-symbolize"
#define MAXF 256

struct fsum {
	char name[128];
	uint64_t self, calls, total, max;
};

struct sums {
	struct fsum f[MAXF];
	size_t n;
	uint64_t all;          /* every weight or every self time */
};

static struct fsum *sum_of(struct sums *s, const char *name, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->f[i].name) == len && !strncmp(s->f[i].name, name, len))
			return &s->f[i];
	assert_true(s->n < MAXF);
	snprintf(s->f[s->n].name, sizeof(s->f[s->n].name), "%.*s", (int)len, name);
	return &s->f[s->n++];
}

/* ---- running the views ------------------------------------------------------ */

/* ada-symbolize VIEW args... TRACE; fails the test unless it exits 0 quietly. */
static char *view(const char *name, const char *const *args, const char *trace)
{
	const char *argv[32] = { SYM, name };
	size_t n = 2;
	struct proc_result res;
	char cmd[1024];

	while (args && *args && n < 30)
		argv[n++] = *args++;
	argv[n++] = trace;
	argv[n] = NULL;
	assert_int_equal(proc_run(argv, NULL, NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
	if (proc_exit_code(&res) != 0 || res.err_len)
		fail_msg("%s: exit %d: %s", proc_cmdline(argv, cmd, sizeof(cmd)), proc_exit_code(&res),
			 res.err);
	char *out = res.out;
	res.out = NULL;
	proc_result_free(&res);
	return out;
}

/* Folded lines: per last frame, the weights added up. */
static void parse_folded(const char *text, struct sums *s)
{
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n'), *sp, *leaf;

		assert_non_null(nl);
		for (sp = nl; sp > line && sp[-1] != ' '; sp--)
			;
		assert_true(sp > line + 1);
		for (leaf = sp - 1; leaf > line && leaf[-1] != ';'; leaf--)
			;
		uint64_t w = strtoull(sp, NULL, 10);
		sum_of(s, leaf, (size_t)(sp - 1 - leaf))->self += w;
		s->all += w;
		line = nl + 1;
	}
}

/* report --ns's rows (every process's table) into s, added up by name. */
static void parse_report(const char *text, struct sums *s)
{
	for (const char *line = text; line && *line;) {
		uint64_t total, self, calls, avg, min, max;
		int end = 0;

		if (sscanf(line, " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %n", &total, &self, &calls, &avg, &min, &max, &end) == 6 && end > 0) {
			struct fsum *f = sum_of(s, line + end, strcspn(line + end, "\n"));

			f->self += self;
			f->calls += calls;
			f->total += total;
			f->max = max > f->max ? max : f->max;
			s->all += self;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
}

/* Under the same options, each function's folded weight is its report
 * self time (or calls, with --count), and the totals agree. */
static void expect_folded_matches_report(const char *trace, const char *const *opts, bool count)
{
	const char *fargs[24] = { NULL }, *rargs[24] = { "--ns" };
	size_t n = 0;
	struct sums folded = { .n = 0 }, report = { .n = 0 };

	if (count)
		fargs[n++] = "--count";
	for (size_t i = 0; opts && opts[i]; i++) {
		fargs[n++] = opts[i];
		rargs[i + 1] = opts[i];
	}
	char *f = view("flame", fargs, trace), *r = view("report", rargs, trace);
	parse_folded(f, &folded);
	parse_report(r, &report);
	if (!report.n)
		fail_msg("report %s shows no function", opts && opts[0] ? opts[0] : "");
	for (size_t i = 0; i < report.n; i++) {
		const struct fsum *want = &report.f[i];
		uint64_t got = sum_of(&folded, want->name, strlen(want->name))->self;
		uint64_t expected = count ? want->calls : want->self;

		/* A stack that weighs nothing is left out of the folded lines. */
		if (got != expected)
			fail_msg("%s (%s): folded %" PRIu64 ", report %" PRIu64 "\n--- folded\n%s"
				 "--- report\n%s", want->name, count ? "calls" : "self", got, expected, f, r);
	}
	assert_int_equal(folded.n, report.n);
	if (!count)
		assert_int_equal(folded.all, report.all);
	free(f);
	free(r);
}

/* ---- the traces -------------------------------------------------------------- */

struct fixture {
	struct tr_case *rec, *demo, *fork;
	int passed;
};

#define NTESTS 7

static int setup(void **state)
{
	static struct fixture fx;

	fx.rec = tr_traced_case("examples/recursion.c", "rec", "fentry", NULL);
	fx.demo = tr_traced_case("examples/demo.c", "demo", "fentry", "ADA_DYNHOOK=on");
	fx.fork = tr_traced_case("examples/fork.c", "fork", "cyg", NULL);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct tr_case *cases[] = { fx ? fx->rec : NULL, fx ? fx->demo : NULL, fx ? fx->fork : NULL };

	for (size_t i = 0; fx && i < 3; i++) {
		void *s = cases[i];

		if (s)
			cases[i]->passed = fx->passed == NTESTS;
		tr_teardown(&s);
	}
	return 0;
}

/* ---- the tests ---------------------------------------------------------------- */

static void count_gives_the_exact_stacks_of_recursion(void **state)
{
	struct fixture *fx = *state;
	static const char *const count[] = { "--count", NULL };
	static const char *const only_fib[] = { "--count", "-F", "fib", NULL };
	char *out = view("flame", count, fx->rec->trace);

	/* fib(4): 1 + 2 + 4 + 2 calls by depth; is_even(3) down to is_odd(0). */
	assert_string_equal(out, "main 1\n"
				 "main;fib 1\n"
				 "main;fib;fib 2\n"
				 "main;fib;fib;fib 4\n"
				 "main;fib;fib;fib;fib 2\n"
				 "main;is_even 1\n"
				 "main;is_even;is_odd 1\n"
				 "main;is_even;is_odd;is_even 1\n"
				 "main;is_even;is_odd;is_even;is_odd 1\n");
	free(out);
	out = view("flame", only_fib, fx->rec->trace);
	assert_string_equal(out, "fib 1\nfib;fib 2\nfib;fib;fib 4\nfib;fib;fib;fib 2\n");
	free(out);
	fx->passed++;
}

static void folded_weights_are_the_reports_self_times(void **state)
{
	struct fixture *fx = *state;

	expect_folded_matches_report(fx->rec->trace, NULL, false);
	expect_folded_matches_report(fx->demo->trace, NULL, false);
	expect_folded_matches_report(fx->fork->trace, NULL, false);
	expect_folded_matches_report(fx->demo->trace, NULL, true);
	expect_folded_matches_report(fx->fork->trace, NULL, true);
	fx->passed++;
}

static void filters_change_the_stacks_as_they_change_the_report(void **state)
{
	struct fixture *fx = *state;
	static const char *const filters[][5] = {
		{ "-F", "parse_term", NULL },
		{ "-N", "parse_factor", NULL },
		{ "-M", "demo", NULL },
		{ "-D", "3", NULL },
		{ "-t", "1us", NULL },
		{ "--thread", "1", NULL },
		{ "-D", "4", "-N", "pthread_*", NULL },
	};

	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		expect_folded_matches_report(fx->demo->trace, filters[i], false);
		expect_folded_matches_report(fx->demo->trace, filters[i], true);
	}
	fx->passed++;
}

/* What a hidden frame took is its parent's: without is_even's subtree,
 * main's self time grows by is_even(3)'s duration (is_even's longest call),
 * and fib's stacks stay. */
static void notrace_moves_a_subtree_into_its_parent(void **state)
{
	struct fixture *fx = *state;
	static const char *const notrace[] = { "-N", "is_even", NULL };
	static const char *const depth[] = { "-D", "2", NULL };
	static const char *const ns[] = { "--ns", NULL };
	char *all = view("flame", NULL, fx->rec->trace), *cut = view("flame", notrace, fx->rec->trace);
	char *two = view("flame", depth, fx->rec->trace), *r = view("report", ns, fx->rec->trace);
	struct sums rep = { .n = 0 };
	char want[1024], *p = want;
	const char *fib = strstr(all, "main;fib ");

	parse_report(r, &rep);
	const struct fsum *m = sum_of(&rep, "main", 4), *fs = sum_of(&rep, "fib", 3);
	const struct fsum *even = sum_of(&rep, "is_even", 7);

	assert_non_null(fib);
	p += sprintf(p, "main %" PRIu64 "\n", m->self + even->max);
	p += sprintf(p, "%.*s", (int)(strstr(all, "main;is_even ") - fib), fib);
	assert_string_equal(cut, want);
	/* Two levels: fib(4) and is_even(3) whole, the longest call of each. */
	sprintf(want, "main %" PRIu64 "\nmain;fib %" PRIu64 "\nmain;is_even %" PRIu64 "\n", m->self,
		fs->max, even->max);
	assert_string_equal(two, want);
	free(all);
	free(cut);
	free(two);
	free(r);
	fx->passed++;
}

/* ---- the SVG ------------------------------------------------------------------- */

/* A small XML well-formedness check: one root element, every element closed
 * in order, attributes quoted, no stray '<' or '&'. NULL or what is wrong. */
static const char *xml_check(const char *s)
{
	static char why[160];
	const char *stack[64];
	size_t depth = 0, lens[64], roots = 0;

	while (*s) {
		if (*s == '&') {
			size_t n = strspn(s + 1, "abcdefghijklmnopqrstuvwxyz#0123456789");
			if (s[1 + n] != ';' || n == 0)
				return "a '&' that is not an entity";
			s += n + 2;
		} else if (*s != '<') {
			s++;
		} else if (!strncmp(s, "<?", 2) || !strncmp(s, "<!--", 4) || !strncmp(s, "<![CDATA[", 9)) {
			const char *end = strstr(s, s[1] == '?' ? "?>" : s[2] == '-' ? "-->" : "]]>");
			if (!end)
				return "an unterminated <? <!-- or CDATA";
			s = end + 2;
		} else if (s[1] == '/') {
			size_t n = strcspn(s + 2, ">");
			if (!depth || n != lens[depth - 1] || strncmp(s + 2, stack[depth - 1], n))
				return snprintf(why, sizeof(why), "</%.*s> closes nothing open", (int)n, s + 2), why;
			depth--;
			s += n + 3;
		} else {
			const char *name = s + 1;
			size_t n = strcspn(name, " />\n");
			for (s = name + n; *s && *s != '>' && strncmp(s, "/>", 2); s++) {
				if (*s == '"') {
					const char *q = s + 1;

					if (!(s = strchr(q, '"')))
						return "an unterminated attribute";
					if (memchr(q, '<', (size_t)(s - q)))
						return "a '<' in an attribute";
				}
				if (*s == '<')
					return "a '<' inside a tag";
			}
			if (!*s)
				return "an unterminated tag";
			if (!depth && roots++)
				return "a second root element";
			if (*s == '>') {
				if (depth == 64)
					return "nesting too deep";
				stack[depth] = name;
				lens[depth++] = n;
			}
			s += *s == '>' ? 1 : 2;
		}
	}
	return depth ? "elements left open" : roots ? NULL : "no element";
}

static void svg_is_well_formed_and_names_every_function(void **state)
{
	struct fixture *fx = *state;
	static const char *const svg[] = { "--count", "--format", "svg", NULL };
	static const char *const ns[] = { "--ns", NULL };
	char *out = view("flame", svg, fx->demo->trace), *r = view("report", ns, fx->demo->trace);
	struct sums rep = { .n = 0 };
	const char *why = xml_check(out);

	if (why)
		fail_msg("the SVG is not well-formed: %s", why);
	parse_report(r, &rep);
	assert_true(rep.n >= 8);
	for (size_t i = 0; i < rep.n; i++) {
		char needle[160];

		snprintf(needle, sizeof(needle), "<title>%s (", rep.f[i].name);
		if (!strstr(out, needle))
			fail_msg("no frame of %s in the SVG", rep.f[i].name);
	}
	/* The demo's own functions in its module, the library's in theirs. */
	assert_non_null(strstr(out, "<title>parse_expr (demo): "));
	assert_non_null(strstr(out, "<title>pthread_join (libc.so.6): 2 calls"));
	if (tr_have_tool("xmllint")) {
		char path[4300];
		FILE *f = fopen(tr_path(fx->demo, "flame.svg", path), "w");
		const char *const argv[] = { "xmllint", "--noout", path, NULL };
		struct proc_result res;

		assert_non_null(f);
		fputs(out, f);
		fclose(f);
		assert_int_equal(proc_run(argv, NULL, NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
		if (proc_exit_code(&res) != 0)
			fail_msg("xmllint %s: %s", path, res.err);
		proc_result_free(&res);
	}
	free(out);
	free(r);
	fx->passed++;
}

static void output_file_and_processes_add_up(void **state)
{
	struct fixture *fx = *state;
	char path[4300], args_o[4400];
	static const char *const count[] = { "--count", NULL };

	/* fork.c's two processes: one set of stacks, merged by name. */
	char *both = view("flame", count, fx->fork->trace);
	tr_path(fx->fork, "flame.folded", path);
	snprintf(args_o, sizeof(args_o), "%s", path);
	const char *const to_file[] = { "--count", "-o", args_o, NULL };
	char *none = view("flame", to_file, fx->fork->trace);
	char *file = proc_read_file(path, NULL);

	assert_string_equal(none, "");
	assert_non_null(file);
	assert_string_equal(file, both);
	free(both);
	free(none);
	free(file);
	fx->passed++;
}

static void a_format_that_is_none_is_a_usage_error(void **state)
{
	struct fixture *fx = *state;
	const char *const argv[] = { SYM, "flame", "--format", "png", fx->rec->trace, NULL };
	struct proc_result res;

	assert_int_equal(proc_run(argv, NULL, NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), 2);
	assert_string_equal(res.err, "ada-symbolize: --format png: expected folded or svg\n");
	assert_string_equal(res.out, "");
	proc_result_free(&res);
	fx->passed++;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(count_gives_the_exact_stacks_of_recursion),
		cmocka_unit_test(folded_weights_are_the_reports_self_times),
		cmocka_unit_test(filters_change_the_stacks_as_they_change_the_report),
		cmocka_unit_test(notrace_moves_a_subtree_into_its_parent),
		cmocka_unit_test(svg_is_well_formed_and_names_every_function),
		cmocka_unit_test(output_file_and_processes_add_up),
		cmocka_unit_test(a_format_that_is_none_is_a_usage_error),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, setup, teardown);
}
