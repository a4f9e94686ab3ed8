/* test_alloc.c - ADA_ALLOC=1 end to end: the malloc family's blocks seen
 * through the PLT hooks (mcount/alloc.c), in report's columns, flame's
 * --weight alloc-bytes and alloc-count, and the leaks view.
 *
 * tests/e2e/progs/alloc_blocks.c: h allocates 1000 blocks of 64 bytes and
 * keeps 10 to the end; g_realloc a block of 100 bytes grown to 300 and
 * shrunk to 50 (3 blocks, 450 bytes); g_calloc calloc(7, sizeof(int)).
 * tests/e2e/progs/alloc_cxx.cc: f_new new int[16], new S, new S[2] (S is 24
 * bytes), deletes the first two and keeps the last. Each program prints
 * what it asked for as it went; the views must show exactly that: report's
 * row of each function, the leaks of h's call path (and none of the
 * others), the flame graph's stack of h's malloc. main's row must be the
 * sum of its callees' (printf's stdio buffer included): a block counted
 * once, not again by the malloc libstdc++'s operator new calls. Built -O2
 * in each mode (fentry, cyg, mcount, patchable), whose hooks all reach the
 * library calls through the same PLT hooks. The exports (fentry): chrome's
 * "live bytes" counter and perfetto's track of it never go below 0, agree,
 * and end at the bytes leaks says are still allocated. Off (the default), the trace
 * has no block and report no columns; ADA_ALLOC=1 with ADA_DYNHOOK=off
 * says, in one line, that nothing is recorded.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e/dynhook_run.h"
#include "e2e/export_view.h"
#include "lib/tracee.h"
#include "lib/tracerun.h"

/* report's Alloc bytes and Allocs of function name: the two numbers before
 * its name. */
static void report_row(const char *report, const char *name, unsigned long *bytes,
		       unsigned long *blocks)
{
	const char *p = dh_line_ending(report, name);
	const char *end = p + strcspn(p, "\n") - strlen(name) - 2, *q = end;
	unsigned long v[2];

	for (int i = 1; i >= 0; i--) {
		while (q > p && q[-1] == ' ')
			q--;
		while (q > p && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (sscanf(q, "%lu", &v[i]) != 1)
			fail_msg("report: no Alloc columns on %s's row:\n%s", name, report);
	}
	*bytes = v[0];
	*blocks = v[1];
}

/* leaks' Bytes and Blocks of call path `path`. */
static void leak_row(const char *leaks, const char *path, unsigned long *bytes,
		     unsigned long *blocks)
{
	const char *p = dh_line_ending(leaks, path);

	if (sscanf(p, " %lu %lu", bytes, blocks) != 2)
		fail_msg("leaks: no numbers for %s:\n%s", path, leaks);
}

/* The weight of a folded stack. */
static unsigned long folded(const char *text, const char *stack)
{
	char want[256];
	const char *p;

	snprintf(want, sizeof(want), "%s ", stack);
	for (p = text; (p = strstr(p, want)); p++)
		if (p == text || p[-1] == '\n')
			return strtoul(p + strlen(want), NULL, 10);
	fail_msg("flame: no stack %s in:\n%s", stack, text);
	return 0;
}

static char *view(struct tr_case *tc, const char *v, const char *opt, const char *arg)
{
	const char *const argv[] = { TRACEE_SYMBOLIZE, v, tc->trace, opt, arg, NULL };

	return dh_tool_output(tc, argv);
}

/* Builds `src` -O2 with the plain compiler and adacc (adac++) in mode, runs
 * both, the traced one with env, and symbolizes. */
static void build_run(struct tr_case *tc, const char *src, const char *mode, bool cxx,
		      const char *const env[])
{
	char m[48];
	const char *const plain[] = { "-O2", NULL }, *const traced[] = { "-O2", m, NULL };

	snprintf(m, sizeof(m), "--ada-mode=%s", mode);
	tr_build(tc, NULL, cxx ? "g++" : "gcc", src, "prog.plain", plain);
	tr_build(tc, NULL, cxx ? TR_ADACXX : TR_ADACC, src, "prog", traced);
	tr_run_pair(tc, "prog", NULL, env, 0);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	for (int r = 0; r < TR_NDROPS; r++)
		if (tc->mf.dropped[r])
			fail_msg("%s: %lu events dropped (%s)", mode, (unsigned long)tc->mf.dropped[r],
				 tr_drop_names[r]);
}

static const char *const on[] = { "ADA_ALLOC=1", "ADA_DYNHOOK=on", NULL };

/* The exports' live bytes end at what leaks says is left (see the top). */
static void expect_live_bytes(struct tr_case *tc, const char *leaks)
{
	struct ex_trace t = { .ready = true };
	struct ex_series s[8];
	const struct ex_series *live;
	const char *p = strstr(leaks, " blocks (");
	unsigned long left;
	size_t n;

	if (!p || sscanf(p, " blocks (%lu bytes)", &left) != 1)
		fail_msg("leaks says no total:\n%s", leaks);
	snprintf(t.trace, sizeof(t.trace), "%s", tc->trace);
	ex_expect_counters_agree(tc, &t, s, &n, 8);
	live = ex_series_find(s, n, "live bytes");
	if (live->min < 0 || live->last != (int64_t)left || live->max < 640)
		fail_msg("live bytes from %lld to %lld, last %lld; leaks: %lu left", (long long)live->min,
			 (long long)live->max, (long long)live->last, left);
}

/* info counts the ALLOC records: every block allocated in main's calls
 * (report's main row), no other. */
static void expect_info(struct tr_case *tc, unsigned long allocated)
{
	char *info = view(tc, "info", NULL, NULL), want[64];

	snprintf(want, sizeof(want), "\n  allocations    %lu blocks allocated, ", allocated);
	if (!strstr(info, want) || strstr(info, "  blocking "))
		fail_msg("info: expected %lu blocks allocated, no blocking line:\n%s", allocated, info);
	free(info);
}

static void check_c(void **state, const char *mode)
{
	struct tr_case *tc = *state;
	unsigned long hb, hn, kb, kn, rb, rn, cb, b, n, sum_b = 0, sum_n = 0;
	char *report, *leaks, *bytes, *count;

	build_run(tc, "tests/e2e/progs/alloc_blocks.c", mode, false, on);
	if (sscanf(tc->traced.out, "h %lu %lu kept %lu %lu realloc %lu %lu calloc %lu", &hb, &hn,
		   &kb, &kn, &rb, &rn, &cb) != 7)
		fail_msg("the program printed \"%s\"", tc->traced.out);
	/* The numbers, as the program counted them. */
	assert_int_equal(hb, 64000);
	assert_int_equal(hn, 1000);
	assert_int_equal(kn, 10);

	report = view(tc, "report", NULL, NULL);
	report_row(report, "h", &b, &n);
	if (b != hb || n != hn)
		fail_msg("%s: h allocated %lu bytes in %lu blocks, report says %lu in %lu:\n%s", mode,
			 hb, hn, b, n, report);
	sum_b += b, sum_n += n;
	report_row(report, "g_realloc", &b, &n);
	if (b != rb || n != rn)
		fail_msg("%s: g_realloc: %lu bytes in %lu blocks, report says %lu in %lu:\n%s", mode,
			 rb, rn, b, n, report);
	sum_b += b, sum_n += n;
	report_row(report, "g_calloc", &b, &n);
	if (b != cb || n != 1)
		fail_msg("%s: g_calloc: %lu bytes in 1 block, report says %lu in %lu:\n%s", mode, cb,
			 b, n, report);
	sum_b += b, sum_n += n;
	report_row(report, "printf", &b, &n); /* stdout's buffer */
	sum_b += b, sum_n += n;
	report_row(report, "main", &b, &n);
	if (b != sum_b || n != sum_n)
		fail_msg("%s: main's blocks are not its callees' (%lu bytes in %lu):\n%s", mode, sum_b,
			 sum_n, report);

	leaks = view(tc, "leaks", NULL, NULL);
	leak_row(leaks, "main > h > malloc", &b, &n);
	if (b != kb || n != kn)
		fail_msg("%s: h kept %lu bytes in %lu blocks, leaks says %lu in %lu:\n%s", mode, kb,
			 kn, b, n, leaks);
	if (strstr(leaks, "g_realloc") || strstr(leaks, "g_calloc") || strstr(leaks, "did not see"))
		fail_msg("%s: leaks of blocks that were freed:\n%s", mode, leaks);

	if (!strcmp(mode, "fentry"))
		expect_live_bytes(tc, leaks);
	expect_info(tc, sum_n);
	bytes = view(tc, "flame", "--weight", "alloc-bytes");
	count = view(tc, "flame", "--weight", "alloc-count");
	if (folded(bytes, "main;h;malloc") != hb || folded(count, "main;h;malloc") != hn)
		fail_msg("%s: flame: h's malloc weighs %lu bytes, %lu blocks:\n%s%s", mode,
			 folded(bytes, "main;h;malloc"), folded(count, "main;h;malloc"), bytes, count);
	free(report);
	free(leaks);
	free(bytes);
	free(count);
	tr_pass(tc);
}

static void check_cxx(void **state, const char *mode)
{
	struct tr_case *tc = *state;
	unsigned long nb, nn, kb, b, n, pb, pn;
	char *report, *leaks;

	build_run(tc, "tests/e2e/progs/alloc_cxx.cc", mode, true, on);
	if (sscanf(tc->traced.out, "new %lu %lu kept %lu", &nb, &nn, &kb) != 3)
		fail_msg("the program printed \"%s\"", tc->traced.out);
	assert_int_equal(nb, 16 * 4 + 24 + 48);
	report = view(tc, "report", NULL, NULL);
	report_row(report, "f_new", &b, &n);
	if (b != nb || n != nn)
		fail_msg("%s: f_new allocated %lu bytes in %lu blocks, report says %lu in %lu:\n%s",
			 mode, nb, nn, b, n, report);
	report_row(report, "printf", &pb, &pn);
	report_row(report, "main", &b, &n);
	if (b != nb + pb || n != nn + pn)
		fail_msg("%s: main's blocks are not f_new's and printf's:\n%s", mode, report);
	leaks = view(tc, "leaks", NULL, NULL);
	leak_row(leaks, "main > f_new > operator new[]", &b, &n);
	if (b != kb || n != 1)
		fail_msg("%s: f_new kept %lu bytes in 1 block, leaks says %lu in %lu:\n%s", mode, kb,
			 b, n, leaks);
	free(report);
	free(leaks);
	tr_pass(tc);
}

static void c_fentry(void **state) { check_c(state, "fentry"); }
static void c_cyg(void **state) { check_c(state, "cyg"); }
static void c_mcount(void **state) { check_c(state, "mcount"); }
static void c_patchable(void **state) { check_c(state, "patchable"); }
static void cxx_fentry(void **state) { check_cxx(state, "fentry"); }
static void cxx_cyg(void **state) { check_cxx(state, "cyg"); }
static void cxx_mcount(void **state) { check_cxx(state, "mcount"); }
static void cxx_patchable(void **state) { check_cxx(state, "patchable"); }

/* Off by default: no block in the trace, report as before, leaks says why. */
static void off_by_default(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DYNHOOK=on", NULL };
	char *report, *leaks;

	build_run(tc, "tests/e2e/progs/alloc_blocks.c", "fentry", false, env);
	report = view(tc, "report", NULL, NULL);
	leaks = view(tc, "leaks", NULL, NULL);
	if (strstr(report, "Alloc"))
		fail_msg("report has allocation columns without ADA_ALLOC:\n%s", report);
	if (!strstr(leaks, "no allocation recorded"))
		fail_msg("leaks without ADA_ALLOC:\n%s", leaks);
	if (!strstr(tc->mf.config, "alloc=off"))
		fail_msg("the configuration does not say alloc=off: %s", tc->mf.config);
	free(report);
	free(leaks);
	tr_pass(tc);
}

/* The hooks are what sees the blocks: without them, one line says so. */
static void needs_the_hooks(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_ALLOC=1", "ADA_DYNHOOK=off", NULL };
	char *leaks;

	build_run(tc, "tests/e2e/progs/alloc_blocks.c", "fentry", false, env);
	if (!strstr(tc->traced.err, "ada: ADA_ALLOC=1 needs the dynamic hooks"))
		fail_msg("stderr: \"%s\"", tc->traced.err);
	leaks = view(tc, "leaks", NULL, NULL);
	if (!strstr(leaks, "no allocation recorded"))
		fail_msg("leaks: %s", leaks);
	free(leaks);
	tr_pass(tc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(c_fentry, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(c_cyg, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(c_mcount, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(c_patchable, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(cxx_fentry, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(cxx_cyg, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(cxx_mcount, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(cxx_patchable, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(off_by_default, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(needs_the_hooks, tr_setup, tr_teardown),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
