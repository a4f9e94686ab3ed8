/* test_config.c - the ADA_* variables: defaults, accepted values, and one
 * stderr line (keeping the default) for every value that is not accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/capture.h"
#include "ada_internal.h"

#include "init_stubs.h"

/* ---- an injected environment -------------------------------------------------- */

static const char *env_names[8], *env_values[8];
static size_t env_n;

static void env_set(const char *name, const char *value)
{
	assert_true(env_n < 8);
	env_names[env_n] = name;
	env_values[env_n++] = value;
}

static const char *env_get(const char *name)
{
	size_t i;

	for (i = 0; i < env_n; i++)
		if (!strcmp(env_names[i], name))
			return env_values[i];
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	env_n = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (capture_active()) /* a failed assertion inside a capture */
		capture_end();
	return 0;
}

/* Loads the config from the injected environment; returns what went to stderr. */
static const char *load(struct ada_config *c)
{
	capture_begin();
	ada_config_load(c, env_get);
	return capture_end();
}

static void load_quietly(struct ada_config *c)
{
	assert_string_equal(load(c), "");
}

static void assert_defaults(const struct ada_config *c)
{
	assert_false(c->disabled);
	assert_false(c->quiet);
	assert_string_equal(c->output, "ada-trace");
	assert_int_equal(c->ring_bytes, 16384ull * 1024);
	assert_int_equal(c->depth, UINT32_MAX);
	assert_int_equal(c->shadow_depth, 65536);
	assert_int_equal(c->flush_ms, 10);
	assert_true(c->detail);
	assert_true(c->detail_window);
	assert_int_equal(c->trigger.nfuncs, 0);
	assert_true(c->trigger.crash);
	assert_int_equal(c->trigger.signals, 0);
	assert_int_equal(c->trigger.pre.n, 2000);
	assert_false(c->trigger.pre.time);
	assert_int_equal(c->trigger.post.n, 2000);
	assert_false(c->trigger.post.time);
	assert_int_equal(c->stack_bytes, 128);
	assert_int_equal(c->detail_bytes, 4096ull * 1024); /* twice a window: config.c */
	assert_true(c->dynhook);
	assert_string_equal(c->exclude, "");
}

/* One variable set to a bad value: the default stands, and exactly one line
 * names the variable, the value and the accepted range. */
static void expect_rejected(const char *name, const char *value, const char *range)
{
	struct ada_config c;
	char named[256];
	const char *err;

	env_n = 0;
	env_set(name, value);
	err = load(&c);
	assert_defaults(&c);
	snprintf(named, sizeof(named), "ada: %s=%s is not valid", name, value);
	assert_int_equal(count_lines(err), 1);
	assert_int_equal(strncmp(err, named, strlen(named)), 0);
	assert_non_null(strstr(err, range));
}

/* ---- defaults and valid values -------------------------------------------------- */

static void test_config_nothing_set_gives_the_defaults_silently(void **state)
{
	struct ada_config c;

	(void)state;
	load_quietly(&c);
	assert_defaults(&c);
}

/* Each yes/no variable, set to word: what the config holds, read silently. */
static bool bool_read(const char *name, const char *word)
{
	struct ada_config c;

	env_n = 0;
	env_set(name, word);
	load_quietly(&c);
	if (!strcmp(name, "ADA_DISABLE"))
		return c.disabled;
	if (!strcmp(name, "ADA_QUIET"))
		return c.quiet;
	if (!strcmp(name, "ADA_TEST_RECORDER_REFUSED"))
		return c.test_refused;
	if (!strcmp(name, "ADA_DYNHOOK"))
		return c.dynhook;
	return !c.start_off; /* ADA_TRACE */
}

static const char *const bool_vars[] = { "ADA_DISABLE", "ADA_QUIET", "ADA_TEST_RECORDER_REFUSED",
					 "ADA_DYNHOOK", "ADA_TRACE" };

static void test_config_booleans_accept_the_words_people_write(void **state)
{
	static const char *const yes[] = { "1", "yes", "YES", "True", "true", "on", "On", "ON" };
	static const char *const no[] = { "0", "no", "No", "false", "FALSE", "off", "oFF" };

	(void)state;
	for (size_t v = 0; v < sizeof(bool_vars) / sizeof(bool_vars[0]); v++) {
		for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
			if (!bool_read(bool_vars[v], yes[i]))
				fail_msg("%s=%s did not mean yes", bool_vars[v], yes[i]);
		for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
			if (bool_read(bool_vars[v], no[i]))
				fail_msg("%s=%s did not mean no", bool_vars[v], no[i]);
	}
}

static void test_config_empty_booleans_are_unset(void **state)
{
	(void)state;
	assert_false(bool_read("ADA_DISABLE", ""));
	assert_false(bool_read("ADA_QUIET", ""));
	assert_true(bool_read("ADA_DYNHOOK", ""));
	assert_true(bool_read("ADA_TRACE", ""));
}

static void test_config_output_takes_any_path(void **state)
{
	struct ada_config c;

	(void)state;
	env_set("ADA_OUTPUT", "/tmp/some where/traces");
	load_quietly(&c);
	assert_string_equal(c.output, "/tmp/some where/traces");
}

/* The trace's paths are joined to it: "dir/" would print "dir//session_...". */
static void test_config_output_loses_its_trailing_slashes(void **state)
{
	struct ada_config c;

	(void)state;
	env_set("ADA_OUTPUT", "/tmp/traces//");
	load_quietly(&c);
	assert_string_equal(c.output, "/tmp/traces");
	env_n = 0;
	env_set("ADA_OUTPUT", "/");
	load_quietly(&c);
	assert_string_equal(c.output, "/");
}

static void test_config_integers_accept_their_whole_range(void **state)
{
	struct ada_config c;

	(void)state;
	env_set("ADA_RING_KB", "64");
	env_set("ADA_DEPTH", "1");
	env_set("ADA_SHADOW_DEPTH", "16");
	env_set("ADA_FLUSH_MS", "1");
	load_quietly(&c);
	assert_int_equal(c.ring_bytes, 64 * 1024);
	assert_int_equal(c.depth, 1);
	assert_int_equal(c.shadow_depth, 16);
	assert_int_equal(c.flush_ms, 1);

	env_n = 0;
	env_set("ADA_RING_KB", "1048576");
	env_set("ADA_DEPTH", "4294967295");
	env_set("ADA_SHADOW_DEPTH", "4194304");
	env_set("ADA_FLUSH_MS", "1000");
	load_quietly(&c);
	assert_int_equal(c.ring_bytes, 1ull << 30);
	assert_int_equal(c.depth, UINT32_MAX);
	assert_int_equal(c.shadow_depth, 4194304);
	assert_int_equal(c.flush_ms, 1000);
}

static void test_config_ring_kb_rounds_up_to_a_power_of_two(void **state)
{
	static const struct {
		const char *kb;
		uint64_t bytes;
	} cases[] = {
		{ "65", 128 * 1024 },   { "100", 128 * 1024 },        { "128", 128 * 1024 },
		{ "129", 256 * 1024 },  { "1000", 1024 * 1024 },      { "16384", 16384 * 1024 },
		{ "1048575", 1ull << 30 },
	};
	struct ada_config c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		env_n = 0;
		env_set("ADA_RING_KB", cases[i].kb);
		load_quietly(&c);
		assert_int_equal(c.ring_bytes, cases[i].bytes);
	}
}

/* ---- invalid values ---------------------------------------------------------------- */

static void test_config_bad_ring_kb_keeps_the_default_with_one_line(void **state)
{
	struct ada_config c;

	(void)state;
	env_set("ADA_RING_KB", "lots");
	assert_string_equal(load(&c), "ada: ADA_RING_KB=lots is not valid: expected an integer "
				      "from 64 to 1048576 (KiB per thread); using 16384\n");
	assert_defaults(&c);
	expect_rejected("ADA_RING_KB", "63", "from 64 to 1048576");
	expect_rejected("ADA_RING_KB", "1048577", "from 64 to 1048576");
	expect_rejected("ADA_RING_KB", "-1024", "from 64 to 1048576");
	expect_rejected("ADA_RING_KB", "512k", "from 64 to 1048576");
	expect_rejected("ADA_RING_KB", "", "from 64 to 1048576");
	expect_rejected("ADA_RING_KB", "99999999999999999999999", "from 64 to 1048576");
}

static void test_config_bad_depth_keeps_the_default_with_one_line(void **state)
{
	(void)state;
	expect_rejected("ADA_DEPTH", "0", "from 1 to 4294967295");
	expect_rejected("ADA_DEPTH", "4294967296", "from 1 to 4294967295");
	expect_rejected("ADA_DEPTH", "-1", "from 1 to 4294967295");
	expect_rejected("ADA_DEPTH", "deep", "from 1 to 4294967295");
	expect_rejected("ADA_DEPTH", "10 ", "from 1 to 4294967295");
	expect_rejected("ADA_DEPTH", "", "from 1 to 4294967295");
}

static void test_config_bad_shadow_depth_keeps_the_default_with_one_line(void **state)
{
	(void)state;
	expect_rejected("ADA_SHADOW_DEPTH", "15", "from 16 to 4194304");
	expect_rejected("ADA_SHADOW_DEPTH", "4194305", "from 16 to 4194304");
	expect_rejected("ADA_SHADOW_DEPTH", "-64", "from 16 to 4194304");
	expect_rejected("ADA_SHADOW_DEPTH", "0x100", "from 16 to 4194304");
	expect_rejected("ADA_SHADOW_DEPTH", "", "from 16 to 4194304");
}

static void test_config_bad_flush_ms_keeps_the_default_with_one_line(void **state)
{
	(void)state;
	expect_rejected("ADA_FLUSH_MS", "0", "from 1 to 1000");
	expect_rejected("ADA_FLUSH_MS", "1001", "from 1 to 1000");
	expect_rejected("ADA_FLUSH_MS", "-10", "from 1 to 1000");
	expect_rejected("ADA_FLUSH_MS", "10ms", "from 1 to 1000");
	expect_rejected("ADA_FLUSH_MS", "1.5", "from 1 to 1000");
	expect_rejected("ADA_FLUSH_MS", "", "from 1 to 1000");
}

/* Exactly one line, naming the variable, the value, the words and the default kept. */
static void expect_bad_bool(const char *name, const char *value, const char *line)
{
	struct ada_config c;

	env_n = 0;
	env_set(name, value);
	assert_string_equal(load(&c), line);
}

static void test_config_bad_booleans_keep_the_default_with_one_line(void **state)
{
	(void)state;
	expect_bad_bool("ADA_DISABLE", "maybe", "ada: ADA_DISABLE=maybe is not valid: expected "
			"1/yes/true/on or 0/no/false/off; using 0\n");
	expect_bad_bool("ADA_DISABLE", "2", "ada: ADA_DISABLE=2 is not valid: expected "
			"1/yes/true/on or 0/no/false/off; using 0\n");
	expect_bad_bool("ADA_QUIET", "01", "ada: ADA_QUIET=01 is not valid: expected "
			"1/yes/true/on or 0/no/false/off; using 0\n");
	expect_bad_bool("ADA_QUIET", "yess", "ada: ADA_QUIET=yess is not valid: expected "
			"1/yes/true/on or 0/no/false/off; using 0\n");
	expect_bad_bool("ADA_TEST_RECORDER_REFUSED", "y", "ada: ADA_TEST_RECORDER_REFUSED=y is not valid: "
			"expected 1/yes/true/on or 0/no/false/off; using 0\n");
	expect_bad_bool("ADA_DYNHOOK", "enabled", "ada: ADA_DYNHOOK=enabled is not valid: "
			"expected 1/yes/true/on or 0/no/false/off; using on\n");
	expect_bad_bool("ADA_TRACE", "o", "ada: ADA_TRACE=o is not valid: expected "
			"1/yes/true/on or 0/no/false/off; using on\n");
	expect_rejected("ADA_DISABLE", "maybe", "using 0");
	expect_rejected("ADA_DYNHOOK", "enabled", "using on");
}

static void test_config_empty_output_keeps_the_default_with_one_line(void **state)
{
	(void)state;
	expect_rejected("ADA_OUTPUT", "", "expected a directory path");
}

static void test_config_overlong_output_keeps_the_default_with_one_line(void **state)
{
	static char path[5000];
	struct ada_config c;
	const char *err;

	(void)state;
	memset(path, 'd', sizeof(path) - 1);
	path[0] = '/';
	env_set("ADA_OUTPUT", path);
	err = load(&c);
	assert_defaults(&c);
	assert_int_equal(count_lines(err), 1);
	assert_int_equal(strncmp(err, "ada: ADA_OUTPUT=/ddd", 20), 0);
	assert_int_equal(err[strlen(err) - 1], '\n');
}

static void test_config_one_bad_value_leaves_the_others_alone(void **state)
{
	struct ada_config c;
	const char *err;

	(void)state;
	env_set("ADA_RING_KB", "256");
	env_set("ADA_FLUSH_MS", "never");
	env_set("ADA_DEPTH", "50");
	err = load(&c);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "ADA_FLUSH_MS=never"));
	assert_int_equal(c.ring_bytes, 256 * 1024);
	assert_int_equal(c.depth, 50);
	assert_int_equal(c.flush_ms, 10);
}

/* ---- unknown variables ------------------------------------------------------------- */

static void test_config_unknown_ada_variable_gets_one_line(void **state)
{
	char *env[] = { "ADA_TYPO=1", NULL };

	(void)state;
	capture_begin();
	ada_config_warn_unknown(env);
	assert_string_equal(capture_end(),
			    "ada: unknown variable ADA_TYPO ignored (see adacc --ada-help)\n");
}

static void test_config_known_and_foreign_variables_are_not_warned_about(void **state)
{
	char *env[] = { "ADA_DISABLE=0", "ADA_OUTPUT=/tmp", "ADA_RING_KB=64", "ADA_DEPTH=9",
			"ADA_SHADOW_DEPTH=16", "ADA_FLUSH_MS=5", "ADA_QUIET=1", "ADA_CC=gcc",
			"ADA_CXX=g++", "ADA_MODE=pg", "ADA_VERBOSE=1", "ADA_LIBDIR=/x",
			"PATH=/bin", "LADA_X=1", "ADA=1", "HOME=/root", NULL };

	(void)state;
	capture_begin();
	ada_config_warn_unknown(env);
	assert_string_equal(capture_end(), "");
}

static void test_config_near_miss_of_a_known_name_is_unknown(void **state)
{
	char *env[] = { "ADA_RING=64", "ADA_RING_KBS=64", "ADA_QUIET", NULL };

	(void)state;
	capture_begin();
	ada_config_warn_unknown(env);
	assert_string_equal(capture_end(),
			    "ada: unknown variable ADA_RING ignored (see adacc --ada-help)\n"
			    "ada: unknown variable ADA_RING_KBS ignored (see adacc --ada-help)\n");
}

static void test_config_detail_lane_settings(void **state)
{
	struct ada_config c;

	(void)state;
	env_set("ADA_DETAIL", "off");
	env_set("ADA_STACK_BYTES", "100"); /* copied in whole words: 96 */
	env_set("ADA_DETAIL_KB", "100");   /* rounded up: 128 KiB */
	load_quietly(&c);
	assert_false(c.detail);
	assert_int_equal(c.stack_bytes, 96);
	assert_int_equal(c.detail_bytes, 128 * 1024);
	env_n = 0;
	env_set("ADA_STACK_BYTES", "0");
	load_quietly(&c);
	assert_int_equal(c.stack_bytes, 0);
	assert_true(c.detail);
	env_n = 0;
	env_set("ADA_DETAIL", "all");
	load_quietly(&c);
	assert_true(c.detail);
	assert_false(c.detail_window);
}

/* ADA_DETAIL_KB's default: twice a window's records (224 bytes each with
 * the default stack window), rounded up to a power of two, when every
 * trigger reaches the thread at once and the rolls are counts; 16 MiB when
 * the writer finds the trigger (func:), a roll is a time, every record is
 * kept (ADA_DETAIL=all) or the ring keeps history (ADA_RECORD=ring); what
 * ADA_DETAIL_KB says when it is set. */
static void test_config_detail_ring_holds_twice_a_window(void **state)
{
	static const struct {
		const char *var[3], *val[3];
		uint64_t kb;
	} cases[] = {
		{ { NULL }, { NULL }, 4096 },                            /* 2 * 4000 * 288 B: 2250 KiB */
		{ { "ADA_PRE", "ADA_POST" }, { "100", "100" }, 128 },    /* 112.5 KiB */
		{ { "ADA_PRE", "ADA_POST" }, { "10", "10" }, 64 },       /* the least */
		{ { "ADA_STACK_BYTES" }, { "512" }, 8192 },              /* 672-byte records */
		{ { "ADA_PRE" }, { "2000000" }, 16384 },                 /* the most */
		{ { "ADA_TRIGGER" }, { "func:parse" }, 16384 },
		{ { "ADA_TRIGGER" }, { "signal:SIGUSR1" }, 4096 },
		{ { "ADA_PRE" }, { "5ms" }, 16384 },
		{ { "ADA_POST" }, { "1ms" }, 16384 },
		{ { "ADA_DETAIL" }, { "all" }, 16384 },
		{ { "ADA_RECORD" }, { "ring" }, 16384 },
		{ { "ADA_DETAIL_KB" }, { "16384" }, 16384 },
		{ { "ADA_TRIGGER", "ADA_DETAIL_KB" }, { "func:parse", "512" }, 512 },
	};
	struct ada_config c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		env_n = 0;
		for (size_t v = 0; v < 3 && cases[i].var[v]; v++)
			env_set(cases[i].var[v], cases[i].val[v]);
		load_quietly(&c);
		if (c.detail_bytes != cases[i].kb * 1024)
			fail_msg("case %zu (%s=%s): detail ring %llu KiB, expected %llu", i,
				 cases[i].var[0] ? cases[i].var[0] : "(defaults)",
				 cases[i].val[0] ? cases[i].val[0] : "",
				 (unsigned long long)(c.detail_bytes / 1024), (unsigned long long)cases[i].kb);
	}
}

/* ADA_TRIGGER's items, ADA_PRE in events and ADA_POST in time. */
static void test_config_triggers_and_rolls(void **state)
{
	struct ada_config c;

	(void)state;
	env_set("ADA_TRIGGER", "func:parse_*,func:main>5ms,signal:SIGUSR2,signal:TRAP,nocrash");
	env_set("ADA_PRE", "300ev");
	env_set("ADA_POST", "250us");
	load_quietly(&c);
	assert_int_equal(c.trigger.nfuncs, 2);
	assert_string_equal(c.trigger.funcs[0].spec, "func:parse_*");
	assert_string_equal(c.trigger.funcs[0].glob, "parse_*");
	assert_int_equal(c.trigger.funcs[0].min_ns, 0);
	assert_string_equal(c.trigger.funcs[1].glob, "main");
	assert_int_equal(c.trigger.funcs[1].min_ns, 5000000);
	assert_int_equal(c.trigger.signals, 1ull << SIGUSR2 | 1ull << SIGTRAP);
	assert_false(c.trigger.crash);
	assert_int_equal(c.trigger.pre.n, 300);
	assert_false(c.trigger.pre.time);
	assert_int_equal(c.trigger.post.n, 250000);
	assert_true(c.trigger.post.time);
}

static void test_config_bad_detail_settings_keep_the_default_with_one_line(void **state)
{
	(void)state;
	expect_rejected("ADA_DETAIL", "some", "expected all, window or off; using window");
	expect_rejected("ADA_PRE", "-1", "expected a number of events");
	expect_rejected("ADA_POST", "11s", "or a time up to 10s");
	expect_rejected("ADA_POST", "5 ms", "or a time up to 10s");
	expect_rejected("ADA_STACK_BYTES", "513", "from 0 to 512");
	expect_rejected("ADA_DETAIL_KB", "32", "from 64 to 1048576");
	expect_rejected("ADA_EXCLUDE", "libc.so.6:", "expected MODULE[:SYMBOL] globs");
	expect_rejected("ADA_EXCLUDE", "a,,b", "expected MODULE[:SYMBOL] globs");
}

static void test_dynhook_settings(void **state)
{
	struct ada_config c;

	(void)state;
	load_quietly(&c);
	assert_true(c.dynhook);
	assert_string_equal(c.exclude, "");
	env_set("ADA_DYNHOOK", "off");
	env_set("ADA_EXCLUDE", "libc.so.6:malloc,libfoo*");
	load_quietly(&c);
	assert_false(c.dynhook);
	assert_string_equal(c.exclude, "libc.so.6:malloc,libfoo*");
}

/* ADA_COUNTERS: off by default, a yes word for 1 ms, a period with its
 * unit; anything else one line and off. */
static void test_counters_settings(void **state)
{
	static const struct {
		const char *v;
		uint32_t us;
	} good[] = { { "0", 0 }, { "off", 0 }, { "1", 1000 }, { "on", 1000 }, { "250us", 250 },
		     { "2ms", 2000 }, { "1000ms", 1000000 } };
	static const char *const bad[] = { "250", "100us", "2s", "1001ms", "-1ms", "ms", "2ms5" };
	struct ada_config c;
	char line[256];

	(void)state;
	load_quietly(&c);
	assert_int_equal(c.counters_us, 0);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		env_n = 0;
		env_set("ADA_COUNTERS", good[i].v);
		load_quietly(&c);
		assert_int_equal(c.counters_us, good[i].us);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		env_n = 0;
		env_set("ADA_COUNTERS", bad[i]);
		snprintf(line, sizeof(line), "ada: ADA_COUNTERS=%s is not valid: expected 1/on", bad[i]);
		assert_non_null(strstr(load(&c), line));
		assert_int_equal(c.counters_us, 0);
	}
}

static void test_config_format_lists_the_settings_in_use(void **state)
{
	struct ada_config c;
	char buf[512];
	int n;
	const char want[] = "output=ada-trace\0ring_kb=16384\0depth=4294967295\0"
			    "shadow_depth=65536\0flush_ms=10\0detail=window\0stack_bytes=128\0"
			    "detail_kb=4096\0dynhook=on\0alloc=off\0counters=off\0blocking=off\0exclude=\0on_full=wait\0record=stream\0trace=on\0filter=\0notrace=\0graph=\0"
			    "pre=2000ev\0post=2000ev\0trigger=crash";

	(void)state;
	load_quietly(&c);
	n = ada_config_format(&c, buf, sizeof(buf));
	assert_int_equal(n, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_config_nothing_set_gives_the_defaults_silently),
		T(test_config_booleans_accept_the_words_people_write),
		T(test_config_empty_booleans_are_unset),
		T(test_config_output_takes_any_path),
		T(test_config_output_loses_its_trailing_slashes),
		T(test_config_integers_accept_their_whole_range),
		T(test_config_ring_kb_rounds_up_to_a_power_of_two),
		T(test_config_bad_ring_kb_keeps_the_default_with_one_line),
		T(test_config_bad_depth_keeps_the_default_with_one_line),
		T(test_config_bad_shadow_depth_keeps_the_default_with_one_line),
		T(test_config_bad_flush_ms_keeps_the_default_with_one_line),
		T(test_config_bad_booleans_keep_the_default_with_one_line),
		T(test_config_empty_output_keeps_the_default_with_one_line),
		T(test_config_overlong_output_keeps_the_default_with_one_line),
		T(test_config_one_bad_value_leaves_the_others_alone),
		T(test_config_unknown_ada_variable_gets_one_line),
		T(test_config_known_and_foreign_variables_are_not_warned_about),
		T(test_config_near_miss_of_a_known_name_is_unknown),
		T(test_config_detail_lane_settings),
		T(test_config_detail_ring_holds_twice_a_window),
		T(test_config_triggers_and_rolls),
		T(test_config_bad_detail_settings_keep_the_default_with_one_line),
		T(test_config_format_lists_the_settings_in_use),
		T(test_dynhook_settings),
		T(test_counters_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
