/* test_view_flame.c - `ada-symbolize flame` on hand-made traces whose times
 * are known (events 10 ns apart): exact folded lines, weighted by self time
 * and by calls, threads adding up without a root of their own, filters. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "trace_fixture.h"
#include "view_cli.h"

/* Thread 0: main calls fib, which returns; fib again, which calls leaf.
 * Thread 1: fib calls leaf then foo(int), which is left by an exception.
 * 10 ns between events: thread 0's self times are main 30 (70 - 10 - 30),
 * fib 10 and 20, leaf 10; thread 1's fib 30 (50 - 10 - 10), leaf 10, foo 10.
 * The manifest is what source_atf.c reads of a process that has only ATF. */
static void two_threads(struct fixture *fx)
{
	fx_init(fx);
	fx_write(fx, "manifest.json",
		 "{\"format_version\": \"2.1\", \"pid\": 4242, \"executable\": \"/bin/app\",\n"
		 "\"command_line\": \"app 7\", \"time_start_ns\": 0, \"time_end_ns\": 1000000,\n"
		 "\"clock_type\": 3, \"threads\": [\n"
		 "{\"id\": 0, \"os_tid\": 4242, \"has_detail\": false, \"events\": 8},\n"
		 "{\"id\": 1, \"os_tid\": 4243, \"has_detail\": false, \"events\": 6}],\n"
		 "\"modules\": [{\"module_id\": 1, \"path\": \"/bin/app\"}],\n"
		 "\"symbols\": [\n"
		 "{\"function_id\": \"0x0000000100000001\", \"module_id\": 1, \"name\": \"main\"},\n"
		 "{\"function_id\": \"0x0000000100000002\", \"module_id\": 1, \"name\": \"fib\"},\n"
		 "{\"function_id\": \"0x0000000100000003\", \"module_id\": 1, \"name\": \"leaf\"},\n"
		 "{\"function_id\": \"0x0000000100000004\", \"module_id\": 1, \"name\": \"_Z3fooi\",\n"
		 " \"demangled\": \"foo(int)\"}]}\n");
	fx_thread(fx, 0, "+1 +2 - +2 +3 - - -");
	fx_thread(fx, 1, "+2 +3 - +4 ! -");
}

/* The view's output with options opts (NULL-terminated filter options
 * "name", "value", ...) and count/format as given. */
static char *flame(struct fixture *fx, bool count, const char *format, const char *const *opts)
{
	struct view_args a = { .count = count, .format = format, .npaths = 1 };
	char *paths[] = { fx->pid_dir, NULL }, *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	for (; opts && *opts; opts += 2)
		assert_int_equal(view_filter_add(&a.filter, opts[0], opts[1]), 0);
	a.paths = paths;
	assert_int_equal(view_flame_main(&a, out), 0);
	fclose(out);
	view_filter_free(&a.filter);
	return text;
}

static void expect_flame(bool count, const char *const *opts, const char *want)
{
	struct fixture fx;

	two_threads(&fx);
	char *got = flame(&fx, count, NULL, opts);
	assert_string_equal(got, want);
	free(got);
	fx_cleanup(&fx);
}

static void test_flame_weighs_each_stack_by_its_self_time(void **state)
{
	(void)state;
	expect_flame(false, NULL,
		     "fib 30\n"
		     "fib;foo 10\n"
		     "fib;leaf 10\n"
		     "main 30\n"
		     "main;fib 30\n"
		     "main;fib;leaf 10\n");
}

static void test_flame_count_weighs_each_stack_by_its_calls(void **state)
{
	(void)state;
	expect_flame(true, NULL,
		     "fib 1\n"
		     "fib;foo 1\n"
		     "fib;leaf 1\n"
		     "main 1\n"
		     "main;fib 2\n"
		     "main;fib;leaf 1\n");
}

/* A hidden frame's time is its shown parent's self time: leaf's 10 ns go
 * to fib, foo's to fib. */
static void test_flame_notrace_gives_hidden_time_to_the_parent(void **state)
{
	static const char *const opts[] = { "notrace", "leaf", "notrace", "foo", NULL };

	(void)state;
	expect_flame(false, opts,
		     "fib 50\n"
		     "main 30\n"
		     "main;fib 40\n");
}

static void test_flame_filter_starts_stacks_at_the_function(void **state)
{
	static const char *const opts[] = { "filter", "fib", NULL };

	(void)state;
	expect_flame(true, opts,
		     "fib 3\n"
		     "fib;foo 1\n"
		     "fib;leaf 2\n");
}

static void test_flame_depth_and_thread_filters(void **state)
{
	static const char *const depth[] = { "depth", "1", NULL };
	static const char *const thread[] = { "thread", "1", NULL };

	(void)state;
	/* The outermost frames only, with all of their threads' time. */
	expect_flame(false, depth, "fib 50\nmain 70\n");
	expect_flame(false, thread, "fib 30\nfib;foo 10\nfib;leaf 10\n");
}

static void test_flame_full_names_keep_parameters(void **state)
{
	struct fixture fx;
	struct view_args a = { .full_names = true, .npaths = 1 };
	char *paths[] = { NULL, NULL }, *text = NULL;
	size_t len = 0;

	(void)state;
	two_threads(&fx);
	paths[0] = fx.pid_dir;
	a.paths = paths;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(view_flame_main(&a, out), 0);
	fclose(out);
	assert_non_null(strstr(text, "fib;foo(int) 10\n"));
	free(text);
	fx_cleanup(&fx);
}

static void test_flame_svg_has_every_frame_with_its_module(void **state)
{
	struct fixture fx;

	(void)state;
	two_threads(&fx);
	char *svg = flame(&fx, true, "svg", NULL);
	const char *want[] = {
		"<title>main (app): 4 calls, 57.14%</title>",
		"<title>fib (app): 3 calls, 42.86%</title>",
		"<title>leaf (app): 1 call, 14.29%</title>",
		"<title>all: 7 calls, 100.00%</title>",
		"app 7 (pid 4242), width: calls</text>",
		">app</text>",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(svg, want[i]))
			fail_msg("no %s in\n%s", want[i], svg);
	free(svg);
	fx_cleanup(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flame_weighs_each_stack_by_its_self_time),
		cmocka_unit_test(test_flame_count_weighs_each_stack_by_its_calls),
		cmocka_unit_test(test_flame_notrace_gives_hidden_time_to_the_parent),
		cmocka_unit_test(test_flame_filter_starts_stacks_at_the_function),
		cmocka_unit_test(test_flame_depth_and_thread_filters),
		cmocka_unit_test(test_flame_full_names_keep_parameters),
		cmocka_unit_test(test_flame_svg_has_every_frame_with_its_module),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
