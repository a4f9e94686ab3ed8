/* test_options.c - adacc's own options and environment: which compiler runs,
 * which --ada-* options are accepted, and how refusals read. */
#include "rewrite.h"
#include "vars.h"

#define CYG "-finstrument-functions"
/* clang instruments after inlining (cc-wrapper/mode.c says why). */
#define CYG_CLANG "-finstrument-functions-after-inlining"
/* The default mode on x86_64: fentry. */
/* fentry mode: gcc also sees returns by a call (cc-wrapper/mode.c); clang
 * has no such option. */
#define FENTRY "-pg", "-mfentry", "-minstrument-return=call", "-mfentry-name=__ada_fentry_nohijack"
#define FENTRY_CLANG "-pg", "-mfentry"

static void test_default_compiler_is_gcc(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("/usr/bin/adacc", "-c", "x.c"), LIST("gcc", FENTRY, "-c", "x.c"));
}

static void test_adacxx_name_selects_gxx_and_ada_cxx(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("/usr/bin/adac++", "-c", "x.cc"), LIST("g++", FENTRY, "-c", "x.cc"));
	expect_argv(LIST("ADA_CC=clang", "ADA_CXX=clang++"), LIST("adac++", "-c", "x.cc"),
		    LIST("clang++", FENTRY_CLANG, "-c", "x.cc"));
}

static void test_ada_cc_env_selects_clang_with_its_cyg_flag(void **state)
{
	(void)state;
	expect_argv(LIST("ADA_CC=clang-14", "ADA_MODE=cyg"), LIST("adacc", "x.c"),
		    LIST("clang-14", CYG_CLANG, "x.c", SHARED_RT));
}

static void test_ada_cc_option_beats_environment(void **state)
{
	(void)state;
	expect_argv(LIST("ADA_CC=clang"), LIST("adacc", "--ada-cc=/opt/gcc/bin/gcc", "-c", "x.c"),
		    LIST("/opt/gcc/bin/gcc", FENTRY, "-c", "x.c"));
}

static void test_empty_ada_cc_counts_as_unset(void **state)
{
	(void)state;
	expect_argv(LIST("ADA_CC="), LIST("adacc", "-c", "x.c"), LIST("gcc", FENTRY, "-c", "x.c"));
}

static void test_exclusions_become_gcc_exclusion_lists(void **state)
{
	(void)state;
	expect_argv(NO_ENV,
		    LIST("adacc", "--ada-exclude-file=vendor/,gen/", "-c", "x.c",
			 "--ada-exclude-function=hot,cold", "--ada-exclude-file=third_party/"),
		    LIST("gcc", CYG,
			 "-finstrument-functions-exclude-file-list=vendor/,gen/",
			 "-finstrument-functions-exclude-file-list=third_party/",
			 "-finstrument-functions-exclude-function-list=hot,cold",
			 "-c", "x.c"));
}

static void test_exclusions_are_not_added_to_link_only_steps(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "--ada-exclude-function=f", "x.o"),
		    LIST("gcc", "x.o", SHARED_RT));
}

static void test_exclusions_with_clang_are_refused(void **state)
{
	(void)state;
	expect_error(NO_ENV, LIST("adacc", "--ada-cc=/usr/bin/clang", "--ada-exclude-function=f",
				  "-c", "x.c"),
		     "--ada-exclude-function= needs gcc");
	expect_error(LIST("ADA_CXX=clang++"), LIST("adac++", "--ada-exclude-file=v/", "-c", "x.cc"),
		     "clang has no");
}

static void test_unknown_ada_option_is_refused_with_the_valid_ones(void **state)
{
	(void)state;
	expect_error(NO_ENV, LIST("adacc", "--ada-foo", "-c", "x.c"), "unknown option '--ada-foo'");
	expect_error(NO_ENV, LIST("adacc", "--ada-foo"), "--ada-cc=PATH, --ada-mode=MODE");
	expect_error(NO_ENV, LIST("adacc", "--ada-stati"), "unknown option '--ada-stati'");
}

static void test_option_values_are_checked(void **state)
{
	(void)state;
	expect_error(NO_ENV, LIST("adacc", "--ada-cc"), "--ada-cc needs a value: --ada-cc=PATH");
	expect_error(NO_ENV, LIST("adacc", "--ada-cc="), "--ada-cc needs a value");
	expect_error(NO_ENV, LIST("adacc", "--ada-static=yes"), "--ada-static takes no value");
}

static void test_each_mode_adds_its_flags_and_unknown_modes_are_refused(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "--ada-mode=cyg", "-c", "x.c"),
		    LIST("gcc", CYG, "-c", "x.c"));
	expect_argv(NO_ENV, LIST("adacc", "--ada-mode=fentry", "-c", "x.c"),
		    LIST("gcc", FENTRY, "-c", "x.c"));
	expect_argv(NO_ENV, LIST("adacc", "--ada-mode=fentry", "--ada-returns=hijack", "-c", "x.c"),
		    LIST("gcc", FENTRY_CLANG, "-c", "x.c"));
	expect_argv(NO_ENV, LIST("adacc", "--ada-returns=call", "-c", "x.c"),
		    LIST("gcc", FENTRY, "-c", "x.c"));
	expect_error(NO_ENV, LIST("adacc", "--ada-returns=ret", "-c", "x.c"),
		     "unknown value in --ada-returns=ret (valid: call, hijack)");
	expect_argv(LIST("ADA_MODE=mcount"), LIST("adacc", "-c", "x.c"),
		    LIST("gcc", "-pg", "-fno-omit-frame-pointer", "-c", "x.c"));
	expect_error(NO_ENV, LIST("adacc", "--ada-mode=fentry", "--ada-exclude-function=f", "-c", "x.c"),
		     "works with --ada-mode=cyg only");
	expect_error(NO_ENV, LIST("adacc", "--ada-mode=pg"),
		     "unknown mode in --ada-mode=pg (valid: cyg, fentry, mcount, patchable)");
	expect_error(LIST("ADA_MODE=xray"), LIST("adacc", "-c", "x.c"), "ADA_MODE=xray");
}

/* What a link for aarch64 gets: the runtime cross-built beside adacc's own
 * (make aarch64). */
#define A64_LIBDIR LIBDIR "/aarch64"
#define A64_SHARED_RT "-L" A64_LIBDIR, "-Xlinker", "-rpath", "-Xlinker", A64_LIBDIR, \
	"-Wl,--push-state,--no-as-needed", "-lada", "-Wl,--pop-state"

static void test_aarch64_compiler_gets_cyg_mode_and_its_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "--ada-cc=aarch64-linux-gnu-gcc", "x.c", "-o", "x"),
		    LIST("aarch64-linux-gnu-gcc", CYG, "x.c", "-o", "x", A64_SHARED_RT));
	expect_argv(LIST("ADA_CXX=/usr/bin/aarch64-linux-gnu-g++-12"), LIST("adac++", "x.cc"),
		    LIST("/usr/bin/aarch64-linux-gnu-g++-12", CYG, "x.cc", A64_SHARED_RT));
	expect_argv(LIST("ADA_CC=clang"), LIST("adacc", "--target=aarch64-linux-gnu", "x.c"),
		    LIST("clang", CYG_CLANG, "--target=aarch64-linux-gnu", "x.c", A64_SHARED_RT));
	expect_argv(LIST("ADA_CC=clang"), LIST("adacc", "-target", "aarch64-linux-gnu", "-c", "x.c"),
		    LIST("clang", CYG_CLANG, "-target", "aarch64-linux-gnu", "-c", "x.c"));
	expect_argv(NO_ENV, LIST("adacc", "--ada-cc=aarch64-linux-gnu-gcc", "--ada-static", "x.c"),
		    LIST("aarch64-linux-gnu-gcc", CYG, "x.c", "-Wl,--whole-archive",
			 A64_LIBDIR "/libada.a", "-Wl,--no-whole-archive", "-llz4", "-lpthread",
			 "-ldl", EXPORT_HOOKS, "-Wl,--export-dynamic-symbol=_mcount"));
	/* A target given for the host keeps lib/'s runtime and the default mode. */
	expect_argv(NO_ENV, LIST("adacc", "--target=x86_64-linux-gnu", "-c", "x.c"),
		    LIST("gcc", FENTRY, "--target=x86_64-linux-gnu", "-c", "x.c"));
}

static void test_aarch64_gets_mcount_mode_with_gcc(void **state)
{
	(void)state;
	expect_argv(LIST("ADA_MODE=mcount", "ADA_CC=aarch64-linux-gnu-gcc"), LIST("adacc", "-c", "x.c"),
		    LIST("aarch64-linux-gnu-gcc", "-pg", "-fno-omit-frame-pointer", "-c", "x.c"));
	expect_argv(NO_ENV, LIST("adacc", "--ada-cc=aarch64-linux-gnu-gcc", "--ada-mode=mcount", "x.c"),
		    LIST("aarch64-linux-gnu-gcc", "-pg", "-fno-omit-frame-pointer", "x.c",
			 A64_SHARED_RT));
	expect_error(LIST("ADA_CC=clang"), LIST("adacc", "--ada-mode=mcount", "--target=aarch64-linux-gnu",
						  "-c", "x.c"),
		     "mcount mode on aarch64 needs gcc (compiler: clang)");
}

static void test_aarch64_refuses_the_modes_not_built_there(void **state)
{
	(void)state;
	expect_error(NO_ENV, LIST("adacc", "--ada-cc=aarch64-linux-gnu-gcc", "--ada-mode=fentry", "x.c"),
		     "fentry mode is not built for aarch64 yet: only cyg and mcount are (--ada-mode=cyg)");
	expect_error(NO_ENV, LIST("adacc", "--ada-mode=patchable", "--target=aarch64-linux-gnu", "x.c"),
		     "patchable mode is not built for aarch64 yet");
}

static void test_verbose_comes_from_option_or_environment(void **state)
{
	struct ada_cc_plan plan;

	(void)state;
	assert_int_equal(rewrite(NO_ENV, LIST("adacc", "-c", "x.c"), &plan), 0);
	assert_false(plan.opts.verbose);
	ada_cc_plan_free(&plan);
	assert_int_equal(rewrite(NO_ENV, LIST("adacc", "--ada-verbose", "-c", "x.c"), &plan), 0);
	assert_true(plan.opts.verbose);
	ada_cc_plan_free(&plan);
	assert_int_equal(rewrite(LIST("ADA_VERBOSE=1"), LIST("adacc", "-c", "x.c"), &plan), 0);
	assert_true(plan.opts.verbose);
	ada_cc_plan_free(&plan);
	assert_int_equal(rewrite(LIST("ADA_VERBOSE=0"), LIST("adacc", "-c", "x.c"), &plan), 0);
	assert_false(plan.opts.verbose);
	ada_cc_plan_free(&plan);
}

static void test_verbose_takes_the_yes_no_words(void **state)
{
	struct ada_cc_plan plan;

	(void)state;
	assert_int_equal(rewrite(LIST("ADA_VERBOSE=Yes"), LIST("adacc", "-c", "x.c"), &plan), 0);
	assert_true(plan.opts.verbose);
	ada_cc_plan_free(&plan);
	assert_int_equal(rewrite(LIST("ADA_VERBOSE=off"), LIST("adacc", "-c", "x.c"), &plan), 0);
	assert_false(plan.opts.verbose);
	ada_cc_plan_free(&plan);
	assert_int_equal(rewrite(LIST("ADA_VERBOSE=please"), LIST("adacc", "-c", "x.c"), &plan),
			 -EINVAL);
	assert_string_equal(plan.err, "ADA_VERBOSE=please is not valid: expected "
				      "1/yes/true/on or 0/no/false/off");
	ada_cc_plan_free(&plan);
}

static void test_version_builds_no_command(void **state)
{
	struct ada_cc_plan plan;

	(void)state;
	assert_int_equal(rewrite(NO_ENV, LIST("adacc", "--ada-version", "-c", "x.c"), &plan), 0);
	assert_true(plan.opts.version);
	assert_null(plan.argv.v);
	ada_cc_plan_free(&plan);
	/* --version is a query for the compiler, passed through. */
	expect_argv(NO_ENV, LIST("adacc", "--version"), LIST("gcc", "--version"));
}

static void test_help_builds_no_command(void **state)
{
	struct ada_cc_plan plan;

	(void)state;
	assert_int_equal(rewrite(NO_ENV, LIST("adacc", "--ada-help", "-c", "x.c"), &plan), 0);
	assert_true(plan.opts.help);
	assert_null(plan.argv.v);
	ada_cc_plan_free(&plan);
}

/* Every option, and every variable of the runtime's table on a line of its
 * own (tests/runtime/test_vars.c checks the table against the sources). */
static void test_help_names_every_option_and_variable(void **state)
{
	const char *const names[] = {
		"--ada-cc=PATH", "--ada-mode=MODE", "--ada-static", "--ada-exclude-file=LIST",
		"--ada-exclude-function=LIST", "--ada-verbose", "--ada-help", "--ada-version",
	};
	char line[64];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	ada_cc_print_help(f, "adacc");
	assert_int_equal(fclose(f), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strstr(text, names[i]))
			fail_msg("--ada-help does not mention %s", names[i]);
	for (size_t i = 0; i < ADA_NVARS; i++) {
		snprintf(line, sizeof(line), "\n  %s", ada_vars[i].name);
		if (!strstr(text, line))
			fail_msg("--ada-help does not list %s", ada_vars[i].name);
	}
	/* The default mode as adacc applies it, not -finstrument-functions. */
	assert_non_null(strstr(text, "(-pg -mfentry by default on\nx86_64"));
	assert_non_null(strstr(text, "fentry, mcount, cyg, patchable (default fentry)"));
	free(text);
}

static void test_print_cmd_quotes_what_a_shell_would_split(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	ada_cc_print_cmd(f, (char *const *)LIST("gcc", "-DX=a b", "it's", "", "-o", "a.o"));
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, "gcc '-DX=a b' 'it'\\''s' '' -o a.o\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_compiler_is_gcc),
		cmocka_unit_test(test_adacxx_name_selects_gxx_and_ada_cxx),
		cmocka_unit_test(test_ada_cc_env_selects_clang_with_its_cyg_flag),
		cmocka_unit_test(test_ada_cc_option_beats_environment),
		cmocka_unit_test(test_empty_ada_cc_counts_as_unset),
		cmocka_unit_test(test_exclusions_become_gcc_exclusion_lists),
		cmocka_unit_test(test_exclusions_are_not_added_to_link_only_steps),
		cmocka_unit_test(test_exclusions_with_clang_are_refused),
		cmocka_unit_test(test_unknown_ada_option_is_refused_with_the_valid_ones),
		cmocka_unit_test(test_option_values_are_checked),
		cmocka_unit_test(test_each_mode_adds_its_flags_and_unknown_modes_are_refused),
		cmocka_unit_test(test_verbose_comes_from_option_or_environment),
		cmocka_unit_test(test_verbose_takes_the_yes_no_words),
		cmocka_unit_test(test_version_builds_no_command),
		cmocka_unit_test(test_aarch64_compiler_gets_cyg_mode_and_its_runtime),
		cmocka_unit_test(test_aarch64_gets_mcount_mode_with_gcc),
		cmocka_unit_test(test_aarch64_refuses_the_modes_not_built_there),
		cmocka_unit_test(test_help_builds_no_command),
		cmocka_unit_test(test_help_names_every_option_and_variable),
		cmocka_unit_test(test_print_cmd_quotes_what_a_shell_would_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
