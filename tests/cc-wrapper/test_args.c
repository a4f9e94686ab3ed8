/* test_args.c - the command line adacc builds for each shape of driver
 * invocation: what is compiled gets the instrumentation flag, what is linked
 * gets the runtime, and everything else passes through untouched. */
#include "rewrite.h"

#include <unistd.h>

/* What the default mode (fentry on x86_64) adds to a compile: these tests are
 * about the shapes of command lines, not modes (test_options.c covers those). */
#define MODE_FLAGS "-pg", "-mfentry", "-minstrument-return=call", "-mfentry-name=__ada_fentry_nohijack"

static void test_compile_only_adds_instrument_flag_and_no_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-O2", "-c", "x.c", "-o", "x.o"),
		    LIST("gcc", MODE_FLAGS, "-O2", "-c", "x.c", "-o", "x.o"));
}

static void test_compile_and_link_adds_flag_first_and_runtime_last(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "a.c", "b.c", "-lm", "-o", "prog"),
		    LIST("gcc", MODE_FLAGS, "a.c", "b.c", "-lm", "-o", "prog", SHARED_RT));
}

static void test_link_only_of_objects_adds_only_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "a.o", "lib/libb.a", "libc.so.6", "-o", "prog"),
		    LIST("gcc", "a.o", "lib/libb.a", "libc.so.6", "-o", "prog", SHARED_RT));
}

static void test_option_values_are_not_taken_for_inputs(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "a.o", "-o", "prog.c", "-Xlinker", "x.c", "-MF", "d.c"),
		    LIST("gcc", "a.o", "-o", "prog.c", "-Xlinker", "x.c", "-MF", "d.c", SHARED_RT));
}

static void test_shared_library_links_shared_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-shared", "-fPIC", "x.c", "-o", "libx.so"),
		    LIST("gcc", MODE_FLAGS, "-shared", "-fPIC", "x.c", "-o", "libx.so", SHARED_RT));
}

static void test_preprocess_only_adds_nothing(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-E", "x.c"), LIST("gcc", "-E", "x.c"));
}

static void test_dependency_generation_alone_adds_nothing(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-M", "x.c"), LIST("gcc", "-M", "x.c"));
	expect_argv(NO_ENV, LIST("adacc", "-MM", "-MF", "x.d", "x.c"),
		    LIST("gcc", "-MM", "-MF", "x.d", "x.c"));
}

static void test_dependencies_written_while_compiling_still_instrument(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-MMD", "-MP", "-MF", "x.d", "-c", "x.c"),
		    LIST("gcc", MODE_FLAGS, "-MMD", "-MP", "-MF", "x.d", "-c", "x.c"));
	expect_argv(NO_ENV, LIST("adacc", "-MD", "x.c", "-o", "x"),
		    LIST("gcc", MODE_FLAGS, "-MD", "x.c", "-o", "x", SHARED_RT));
}

static void test_assembly_and_syntax_only_instrument_without_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-S", "x.c", "-o", "-"),
		    LIST("gcc", MODE_FLAGS, "-S", "x.c", "-o", "-"));
	expect_argv(NO_ENV, LIST("adacc", "-fsyntax-only", "x.c"),
		    LIST("gcc", MODE_FLAGS, "-fsyntax-only", "x.c"));
}

static void test_stdin_source_with_x_language_is_compiled(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-x", "c", "-c", "-", "-o", "x.o"),
		    LIST("gcc", MODE_FLAGS, "-x", "c", "-c", "-", "-o", "x.o"));
	expect_argv(NO_ENV, LIST("adacc", "-E", "-"), LIST("gcc", "-E", "-"));
}

static void test_x_language_makes_any_suffix_a_source_until_x_none(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-xc", "gen.o", "-c"),
		    LIST("gcc", MODE_FLAGS, "-xc", "gen.o", "-c"));
	expect_argv(NO_ENV, LIST("adacc", "-x", "none", "a.o", "-o", "p"),
		    LIST("gcc", "-x", "none", "a.o", "-o", "p", SHARED_RT));
}

static void test_header_alone_is_precompiled_without_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "pch.h"), LIST("gcc", MODE_FLAGS, "pch.h"));
	expect_argv(NO_ENV, LIST("adacc", "-x", "c++-header", "pch"),
		    LIST("gcc", MODE_FLAGS, "-x", "c++-header", "pch"));
}

static void test_queries_pass_through_untouched(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "--version"), LIST("gcc", "--version"));
	expect_argv(NO_ENV, LIST("adacc", "-v"), LIST("gcc", "-v"));
	expect_argv(NO_ENV, LIST("adacc", "-dumpversion"), LIST("gcc", "-dumpversion"));
	expect_argv(NO_ENV, LIST("adacc", "-dumpmachine"), LIST("gcc", "-dumpmachine"));
	expect_argv(NO_ENV, LIST("adacc", "-print-file-name=libc.so"),
		    LIST("gcc", "-print-file-name=libc.so"));
	expect_argv(NO_ENV, LIST("adacc", "-O2", "--help=optimizers"),
		    LIST("gcc", "-O2", "--help=optimizers"));
	expect_argv(NO_ENV, LIST("adacc", "--version", "x.c"), LIST("gcc", "--version", "x.c"));
}

static void test_verbose_driver_with_inputs_still_builds(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-v", "-c", "x.c"), LIST("gcc", MODE_FLAGS, "-v", "-c", "x.c"));
}

static void test_relocatable_link_adds_no_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-r", "a.o", "b.o", "-o", "ab.o"),
		    LIST("gcc", "-r", "a.o", "b.o", "-o", "ab.o"));
}

static void test_nostdlib_instruments_but_links_no_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-nostdlib", "x.c", "-o", "x"),
		    LIST("gcc", MODE_FLAGS, "-nostdlib", "x.c", "-o", "x"));
	expect_argv(NO_ENV, LIST("adacc", "-nodefaultlibs", "x.o"),
		    LIST("gcc", "-nodefaultlibs", "x.o"));
}

static void test_nostartfiles_still_links_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-nostartfiles", "x.o"),
		    LIST("gcc", "-nostartfiles", "x.o", SHARED_RT));
}

static void test_ada_static_links_whole_archive_and_exports_hooks(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "--ada-static", "x.c", "-o", "x"),
		    LIST("gcc", MODE_FLAGS, "x.c", "-o", "x", STATIC_RT, EXPORT_HOOKS));
}

static void test_ada_static_shared_library_links_no_runtime(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "--ada-static", "-shared", "-fPIC", "x.c", "-o", "x.so"),
		    LIST("gcc", MODE_FLAGS, "-shared", "-fPIC", "x.c", "-o", "x.so"));
}

static void test_static_executable_gets_static_runtime_without_exports(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-static", "x.o", "-o", "x"),
		    LIST("gcc", "-static", "x.o", "-o", "x", STATIC_RT, STATIC_EXEC));
}

static void test_runtime_file_is_reported_for_links_only(void **state)
{
	struct ada_cc_plan plan;

	(void)state;
	assert_int_equal(rewrite(NO_ENV, LIST("adacc", "x.o"), &plan), 0);
	assert_string_equal(plan.runtime, LIBDIR "/libada.so");
	ada_cc_plan_free(&plan);
	assert_int_equal(rewrite(NO_ENV, LIST("adacc", "--ada-static", "x.o"), &plan), 0);
	assert_string_equal(plan.runtime, LIBDIR "/libada.a");
	ada_cc_plan_free(&plan);
	assert_int_equal(rewrite(NO_ENV, LIST("adacc", "-c", "x.c"), &plan), 0);
	assert_null(plan.runtime);
	ada_cc_plan_free(&plan);
}

/* ---- response files ---------------------------------------------------- */

static char rsp_dir[] = "/tmp/ada-test-rsp-XXXXXX";

static const char *rsp_path(const char *name)
{
	static char path[sizeof(rsp_dir) + 64];

	snprintf(path, sizeof(path), "%s/%s", rsp_dir, name);
	return path;
}

static void write_rsp(const char *name, const char *text)
{
	FILE *f = fopen(rsp_path(name), "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int rsp_setup(void **state)
{
	(void)state;
	return mkdtemp(rsp_dir) ? 0 : -1;
}

static int rsp_teardown(void **state)
{
	const char *names[] = { "compile", "objects", "outer", "self", "ada" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(rsp_path(names[i]));
	return rmdir(rsp_dir);
}

static void test_response_file_decides_shape_and_passes_unchanged(void **state)
{
	char at[128];

	(void)state;
	write_rsp("compile", "-c 'my file.c'\n-o out.o\n");
	snprintf(at, sizeof(at), "@%s", rsp_path("compile"));
	expect_argv(NO_ENV, LIST("adacc", at), LIST("gcc", MODE_FLAGS, at));
	write_rsp("objects", "a.o b.o");
	snprintf(at, sizeof(at), "@%s", rsp_path("objects"));
	expect_argv(NO_ENV, LIST("adacc", at, "-o", "p"), LIST("gcc", at, "-o", "p", SHARED_RT));
}

static void test_nested_response_file_is_followed(void **state)
{
	char outer[128], at[128];

	(void)state;
	write_rsp("compile", "-c x.c");
	snprintf(outer, sizeof(outer), "-O2 @%s", rsp_path("compile"));
	write_rsp("outer", outer);
	snprintf(at, sizeof(at), "@%s", rsp_path("outer"));
	expect_argv(NO_ENV, LIST("adacc", at), LIST("gcc", MODE_FLAGS, at));
}

static void test_unreadable_response_file_is_kept_as_an_argument(void **state)
{
	(void)state;
	expect_argv(NO_ENV, LIST("adacc", "-c", "x.c", "@/nonexistent/rsp"),
		    LIST("gcc", MODE_FLAGS, "-c", "x.c", "@/nonexistent/rsp"));
}

static void test_response_file_including_itself_is_refused(void **state)
{
	char at[128];

	(void)state;
	snprintf(at, sizeof(at), "@%s", rsp_path("self"));
	write_rsp("self", at);
	expect_error(NO_ENV, LIST("adacc", at), "nest deeper");
}

static void test_ada_option_inside_response_file_is_refused(void **state)
{
	char at[128];

	(void)state;
	write_rsp("ada", "--ada-static x.o");
	snprintf(at, sizeof(at), "@%s", rsp_path("ada"));
	expect_error(NO_ENV, LIST("adacc", at), "--ada-static is in a response file");
}

int main(void)
{
	const struct CMUnitTest shapes[] = {
		cmocka_unit_test(test_compile_only_adds_instrument_flag_and_no_runtime),
		cmocka_unit_test(test_compile_and_link_adds_flag_first_and_runtime_last),
		cmocka_unit_test(test_link_only_of_objects_adds_only_runtime),
		cmocka_unit_test(test_option_values_are_not_taken_for_inputs),
		cmocka_unit_test(test_shared_library_links_shared_runtime),
		cmocka_unit_test(test_preprocess_only_adds_nothing),
		cmocka_unit_test(test_dependency_generation_alone_adds_nothing),
		cmocka_unit_test(test_dependencies_written_while_compiling_still_instrument),
		cmocka_unit_test(test_assembly_and_syntax_only_instrument_without_runtime),
		cmocka_unit_test(test_stdin_source_with_x_language_is_compiled),
		cmocka_unit_test(test_x_language_makes_any_suffix_a_source_until_x_none),
		cmocka_unit_test(test_header_alone_is_precompiled_without_runtime),
		cmocka_unit_test(test_queries_pass_through_untouched),
		cmocka_unit_test(test_verbose_driver_with_inputs_still_builds),
		cmocka_unit_test(test_relocatable_link_adds_no_runtime),
		cmocka_unit_test(test_nostdlib_instruments_but_links_no_runtime),
		cmocka_unit_test(test_nostartfiles_still_links_runtime),
		cmocka_unit_test(test_ada_static_links_whole_archive_and_exports_hooks),
		cmocka_unit_test(test_ada_static_shared_library_links_no_runtime),
		cmocka_unit_test(test_static_executable_gets_static_runtime_without_exports),
		cmocka_unit_test(test_runtime_file_is_reported_for_links_only),
	};
	const struct CMUnitTest rsp[] = {
		cmocka_unit_test(test_response_file_decides_shape_and_passes_unchanged),
		cmocka_unit_test(test_nested_response_file_is_followed),
		cmocka_unit_test(test_unreadable_response_file_is_kept_as_an_argument),
		cmocka_unit_test(test_response_file_including_itself_is_refused),
		cmocka_unit_test(test_ada_option_inside_response_file_is_refused),
	};

	return cmocka_run_group_tests_name("shapes", shapes, NULL, NULL) |
	       cmocka_run_group_tests_name("response files", rsp, rsp_setup, rsp_teardown);
}
