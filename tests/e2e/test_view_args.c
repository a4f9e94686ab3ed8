/* test_view_args.c - replay shows each call's parameters by name and type
 * from the DWARF, and the return value by its type (issue 24): integers
 * signed and unsigned by their size, bool, char, enumerators by name (a
 * value no enumerator has as a number), strings from the stack window and
 * from the binary's read-only data, aggregates as "{...}" in registers and
 * in memory without disturbing the parameters after them, arguments on the
 * stack, a return in memory (its hidden pointer takes rdi: the first
 * parameter is rsi's), void functions without a value, variadic ones with
 * "...". Without DWARF, and with --raw-args, the registers in hex as
 * before.
 *
 * chrome --args and perfetto carry the same values, a key or an annotation
 * each.
 *
 * Program: tests/e2e/progs/typed_args.c at -O2, ADA_DETAIL=all (every event
 * has its record), ADA_DYNHOOK=off (only its own functions), in fentry and
 * mcount modes.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e/view_stats.h"
#include "lib/proc.h"
#include "lib/tracerun.h"

#define PROG "tests/e2e/progs/typed_args.c"
#define SUM "2087724346\n"

static const char typed[] =
	"main() {\n"
	"  ints(a=-3, b=4000000000, c=-7, u=200, ch='A', l=-1234567890123, f=true) = 2087724085;\n"
	"  eight(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=-8) = 20;\n"
	"  paint(c=BLUE, name=\"gnu\", p={...}, b={...}, m={...}, after=42) = 58;\n"
	"  paint(c=7, name=\"gnu\", p={...}, b={...}, m={...}, after=-1) = 6;\n"
	"  make_big(n=3) = {...};\n"
	"  nothing(p=0x0);\n"
	"  sum(n=3, ...) = 60;\n"
	"  upper(c='q') = 'Q';\n"
	"  greet(whom=\"hello, \\\"world\\\"\\n\") = 15;\n"
	"  scale(x=0.1, f=2.5, n=4, y=-0.25) = 0.75;\n";

/* via's tail call: in fentry mode (gcc's __return__ before the jump) two
 * frames one after the other, via's without a value (twice has yet to make
 * it); in mcount mode (returns hijacked) twice's frame inside via's, and
 * via's value twice's. */
static const char tail_fentry[] =
	"  via(x=5);\n"
	"  twice(x=6) = 12;\n"
	"} = 0; /* main */\n";
static const char tail_mcount[] =
	"  via(x=5) {\n"
	"    twice(x=6) = 12;\n"
	"  } = 12; /* via */\n"
	"} = 0; /* main */\n";

/* chrome --args: the same values, a key each, in the parameters' order,
 * the return value's after them. */
static const char *const typed_json[] = {
	"\"name\":\"paint\",\"cat\":\"typed\",\"args\":{\"c\":\"BLUE\",\"name\":\"\\\"gnu\\\"\","
	"\"p\":\"{...}\",\"b\":\"{...}\",\"m\":\"{...}\",\"after\":\"42\",\"ret\":\"58\",\"file\":",
	"\"name\":\"eight\",\"cat\":\"typed\",\"args\":{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\",\"d\":\"4\","
	"\"e\":\"5\",\"f\":\"6\",\"g\":\"7\",\"h\":\"-8\",\"ret\":\"20\",\"file\":",
	"\"name\":\"nothing\",\"cat\":\"typed\",\"args\":{\"p\":\"0x0\",\"file\":",
	"\"name\":\"greet\",\"cat\":\"typed\",\"args\":{\"whom\":\"\\\"hello, \\\\\\\"world\\\\\\\"\\\\n\\\"\","
	"\"ret\":\"15\",\"file\":",
	NULL,
};

/* The replay's function column (after "| "), headers dropped. */
static char *function_column(const char *replay)
{
	char *out = calloc(1, strlen(replay) + 1), *o = out;

	assert_non_null(out);
	for (const char *l = replay; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		const char *bar = strstr(l, "| "), *end = strchr(l, '\n');

		if (*l == '#' || !bar || (end && bar > end))
			continue;
		bar += 2;
		end = end ? end + 1 : bar + strlen(bar);
		memcpy(o, bar, (size_t)(end - bar));
		o += end - bar;
	}
	*o = '\0';
	return out;
}

/* perfetto: the same values as debug annotations, a name and a string each,
 * the return value's under the interned "ret" (iid 9); read with protoc
 * --decode_raw, its text without blanks. */
static const char *const typed_pb[] = {
	"4{10:\"c\"6:\"BLUE\"}4{10:\"name\"6:\"\\\"gnu\\\"\"}4{10:\"p\"6:\"{...}\"}",
	"4{10:\"after\"6:\"42\"}", "4{1:96:\"58\"}", "4{10:\"h\"6:\"-8\"}", NULL,
};

static void expect_perfetto(struct tr_case *tc)
{
	char cmd[8400], path[4300];
	const char *const argv[] = { "sh", "-c", cmd, NULL };
	struct proc_result res = { 0 };

	snprintf(path, sizeof(path), "%s/typed.pftrace", tc->dir);
	free(view_ok((const char *[]){ "perfetto", "-o", path, tc->trace, NULL }));
	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < '%s' | tr -d ' \\n'", path);
	tr_run(tc, argv, NULL, &res);
	assert_int_equal(proc_exit_code(&res), 0);
	for (size_t i = 0; typed_pb[i]; i++)
		if (!strstr(res.out, typed_pb[i]))
			fail_msg("perfetto: no %s in:\n%s", typed_pb[i], res.out);
	proc_result_free(&res);
}

/* The trace converted to ATF and its raw/ moved away: replay reads the ATF
 * (the FP registers, the tail call's flag) and shows the same. */
static void expect_same_from_atf(struct tr_case *tc, const char *col)
{
	char raw[4400], moved[4400], *out, *again;
	glob_t g;

	free(view_ok((const char *[]){ "-q", "--check", tc->trace, NULL }));
	pid_dirs(tc->trace, &g);
	assert_int_equal(g.gl_pathc, 1);
	snprintf(raw, sizeof(raw), "%s/raw", g.gl_pathv[0]);
	snprintf(moved, sizeof(moved), "%s/raw.moved", g.gl_pathv[0]);
	assert_int_equal(rename(raw, moved), 0);
	out = view_ok((const char *[]){ "replay", "--ns", "-F", "main", g.gl_pathv[0], NULL });
	again = function_column(out);
	if (strcmp(again, col))
		fail_msg("replay from the ATF:\n%s\nfrom the raw trace:\n%s", again, col);
	assert_int_equal(rename(moved, raw), 0);
	free(out);
	free(again);
	globfree(&g);
}

/* PROG built in mode with flags, run with every detail record (and the
 * dynamic hooks off unless hooks), and replayed with opt (or none): the
 * function column. */
static char *replayed_with(const char *mode, const char *const flags[], const char *opt, bool hooks)
{
	const char *const env[] = { "ADA_DETAIL=all", hooks ? NULL : "ADA_DYNHOOK=off", NULL };
	void *s = NULL;
	struct tr_case *tc;
	char *out, *col;

	assert_int_equal(tr_setup(&s), 0);
	tc = s;
	setenv("ADA_MODE", mode, 1);
	tr_build_pair(tc, PROG, "typed", flags);
	unsetenv("ADA_MODE");
	tr_run_pair(tc, "typed", NULL, env, 0);
	assert_string_equal(tc->traced.out, SUM);
	out = view_ok((const char *[]){ "replay", "--ns", "-F", "main", tc->trace, opt, NULL });
	col = function_column(out);
	free(out);
	if (!opt && !hooks && strstr(col, "paint(c=BLUE")) { /* typed: the exports say the same */
		out = view_ok((const char *[]){ "chrome", "--args", tc->trace, NULL });
		for (size_t i = 0; typed_json[i]; i++)
			if (!strstr(out, typed_json[i]))
				fail_msg("chrome --args has no %s in:\n%s", typed_json[i], out);
		free(out);
		expect_perfetto(tc);
		expect_same_from_atf(tc, col);
	}
	tc->passed = true;
	tr_teardown(&s);
	return col;
}

static char *replayed(const char *mode, const char *const flags[], const char *opt)
{
	return replayed_with(mode, flags, opt, false);
}

static void typed_in_mode(const char *mode, const char *tail)
{
	char *got = replayed(mode, (const char *[]){ "-O2", "-g", NULL }, NULL), want[2048];

	snprintf(want, sizeof(want), "%s%s", typed, tail);
	assert_string_equal(got, want);
	free(got);
}

static void fentry_shows_the_parameters_by_type(void **state)
{
	(void)state;
	typed_in_mode("fentry", tail_fentry);
}

static void mcount_shows_the_parameters_by_type(void **state)
{
	(void)state;
	typed_in_mode("mcount", tail_mcount);
}

/* The registers as they were: rdi..r9 in hex, rax for the value. */
static void expect_raw(const char *got)
{
	if (!strstr(got, "\n  eight(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) = 0x14;\n") ||
	    !strstr(got, "\n  upper(0x71, ") || !strstr(got, "\n  nothing(0x0, "))
		fail_msg("expected the raw registers:\n%s", got);
}

static void without_dwarf_the_registers(void **state)
{
	char *got = replayed("fentry", (const char *[]){ "-O2", "-g0", NULL }, NULL);

	(void)state;
	expect_raw(got);
	free(got);
}

static void raw_args_shows_the_registers(void **state)
{
	char *got = replayed("fentry", (const char *[]){ "-O2", "-g", NULL }, "--raw-args");

	(void)state;
	expect_raw(got);
	free(got);
}

/* The C library's functions through the dynamic hooks, by their known
 * prototypes where the library has no DWARF of its own (strlen is
 * assembly: never), with a string from the stack window; printf's format
 * from the binary. */
static void libc_functions_by_their_prototypes(void **state)
{
	char *got = replayed_with("fentry", (const char *[]){ "-O2", "-g", NULL }, NULL, true);

	(void)state;
	if (!strstr(got, "\n  paint(c=BLUE, name=\"gnu\", p={...}, b={...}, m={...}, after=42) {\n"
			 "    strlen(s=\"gnu\") = 3;\n  } = 58; /* paint */\n") ||
	    !strstr(got, "\n  printf(format=\"%ld\\n\", ...) {\n"))
		fail_msg("expected strlen's and printf's parameters:\n%s", got);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fentry_shows_the_parameters_by_type),
		cmocka_unit_test(mcount_shows_the_parameters_by_type),
		cmocka_unit_test(without_dwarf_the_registers),
		cmocka_unit_test(raw_args_shows_the_registers),
		cmocka_unit_test(libc_functions_by_their_prototypes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
