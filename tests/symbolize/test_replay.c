/* test_replay.c - the replay view prints the exact call tree, collapsing
 * identical consecutive subtrees at every level. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "trace_fixture.h"
#include "views.h"

static const char *const names[] = { "main", "fib", "worker", "leaf", "_Z3fooi|foo(int)" };

/* Replays PATH and returns the text (caller frees). */
static char *replay(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(ada_view_replay(path, out), 0);
	fclose(out);
	return text;
}

/* One thread 0 running `script`; checks the replay of the pid directory. */
static void expect_replay(const char *script, const char *want)
{
	struct fixture fx;
	char *got;

	fx_init(&fx);
	fx_manifest(&fx, FX_THREAD0, names, 5);
	fx_thread(&fx, 0, script);
	got = replay(fx.pid_dir);
	assert_string_equal(got, want);
	free(got);
	fx_cleanup(&fx);
}

static void test_replay_nested_calls_repeats_and_unwound_frame(void **state)
{
	(void)state;
	expect_replay("+1 +2 +2 - +2 - - +3 ! -",
		      "# pid 4242 thread 0 tid 4242\n"
		      "main\n"
		      "  fib\n"
		      "    fib x2\n"
		      "  worker (unwound)\n");
}

static void test_replay_collapses_three_identical_calls(void **state)
{
	(void)state;
	expect_replay("+1 +4 - +4 - +4 - -",
		      "# pid 4242 thread 0 tid 4242\n"
		      "main\n"
		      "  leaf x3\n");
}

static void test_replay_collapses_inside_a_collapsed_parent(void **state)
{
	(void)state;
	expect_replay("+1 +2 +4 - +4 - - +2 +4 - +4 - - -",
		      "# pid 4242 thread 0 tid 4242\n"
		      "main\n"
		      "  fib x2\n"
		      "    leaf x2\n");
}

static void test_replay_keeps_different_subtrees_apart(void **state)
{
	(void)state;
	expect_replay("+1 +2 +4 - - +2 +4 - +4 - - +2 +4 - - -",
		      "# pid 4242 thread 0 tid 4242\n"
		      "main\n"
		      "  fib\n"
		      "    leaf\n"
		      "  fib\n"
		      "    leaf x2\n"
		      "  fib\n"
		      "    leaf\n");
}

static void test_replay_unwound_differs_from_returned(void **state)
{
	(void)state;
	expect_replay("+1 +4 - +4 ! +4 ! -",
		      "# pid 4242 thread 0 tid 4242\n"
		      "main\n"
		      "  leaf\n"
		      "  leaf x2 (unwound)\n");
}

static void test_replay_collapses_top_level_repeats(void **state)
{
	(void)state;
	expect_replay("+1 +4 - - +1 +4 - - +2 -",
		      "# pid 4242 thread 0 tid 4242\n"
		      "main x2\n"
		      "  leaf\n"
		      "fib\n");
}

static void test_replay_prints_demangled_names(void **state)
{
	(void)state;
	expect_replay("+5 -", "# pid 4242 thread 0 tid 4242\nfoo(int)\n");
}

static void test_replay_closes_frames_left_open_as_unwound(void **state)
{
	(void)state;
	expect_replay("+1 +4 - +4",
		      "# pid 4242 thread 0 tid 4242\n"
		      "main (unwound)\n"
		      "  leaf\n"
		      "  leaf (unwound)\n");
}

static void test_replay_orders_threads_and_accepts_every_path_form(void **state)
{
	const char *want = "# pid 4242 thread 0 tid 4242\n"
			   "main\n"
			   "# pid 4242 thread 1 tid 4300\n"
			   "worker\n"
			   "  leaf\n";
	struct fixture fx;
	char *got;

	(void)state;
	fx_init(&fx);
	fx_manifest(&fx, "{\"id\": 1, \"os_tid\": 4300, \"has_detail\": false}, " FX_THREAD0,
		    names, 5);
	fx_thread(&fx, 0, "+1 -");
	fx_thread(&fx, 1, "+3 +4 - -");
	const char *paths[] = { fx.root, fx.session, fx.pid_dir };
	for (size_t i = 0; i < 3; i++) {
		got = replay(paths[i]);
		assert_string_equal(got, want);
		free(got);
	}
	fx_cleanup(&fx);
}

static void test_replay_of_a_long_loop_stays_one_line(void **state)
{
	enum { LOOPS = 100000 };
	struct atf_event ev[FX_MAX_EVENTS];
	struct atf_index_writer *w;
	struct fixture fx;
	char path[300], *got;

	(void)state;
	fx_init(&fx);
	fx_manifest(&fx, FX_THREAD0, names, 5);
	fx_thread(&fx, 0, "");
	snprintf(path, sizeof(path), "%s/thread_0/index.atf", fx.pid_dir);
	w = atf_index_open(path, 0, ATF_ARCH_X86_64);
	fx_events("+1", 0, ev);
	atf_index_append(w, &ev[0]);
	for (int i = 0; i < LOOPS; i++) {
		size_t n = fx_events("+1 +2 +4 - - -", 0, ev);

		for (size_t k = 1; k < n - 1; k++) {
			ev[k].timestamp_ns = 2000 + (uint64_t)i;
			atf_index_append(w, &ev[k]);
		}
	}
	fx_events("+1 -", 0, ev);
	atf_index_append(w, &ev[1]);
	assert_int_equal(atf_index_close(w), 0);
	got = replay(fx.pid_dir);
	assert_string_equal(got, "# pid 4242 thread 0 tid 4242\nmain\n  fib x100000\n    leaf\n");
	free(got);
	fx_cleanup(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_nested_calls_repeats_and_unwound_frame),
		cmocka_unit_test(test_replay_collapses_three_identical_calls),
		cmocka_unit_test(test_replay_collapses_inside_a_collapsed_parent),
		cmocka_unit_test(test_replay_keeps_different_subtrees_apart),
		cmocka_unit_test(test_replay_unwound_differs_from_returned),
		cmocka_unit_test(test_replay_collapses_top_level_repeats),
		cmocka_unit_test(test_replay_prints_demangled_names),
		cmocka_unit_test(test_replay_closes_frames_left_open_as_unwound),
		cmocka_unit_test(test_replay_orders_threads_and_accepts_every_path_form),
		cmocka_unit_test(test_replay_of_a_long_loop_stays_one_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
