/* test_flame.c - the flame graph's stack tree (one node per distinct stack,
 * folded lines in frame order) and its SVG (frames merged, widths by
 * weight, names escaped and clipped, colours by module weight). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flame_svg.h"
#include "flame_tree.h"

/* ---- the tree ---------------------------------------------------------------- */

/* lib_* in libc.so.6, mN_* in module mN.so, the rest in demo. */
static const char *module_of(void *ctx, const char *name)
{
	static const char *const m[] = { "m0.so", "m1.so", "m2.so", "m3.so", "m4.so", "m5.so",
					 "m6.so", "m7.so", "m8.so", "m9.so" };

	(void)ctx;
	if (name[0] == 'm' && name[1] >= '0' && name[1] <= '9' && name[2] == '_')
		return m[name[1] - '0'];
	return strncmp(name, "lib_", 4) == 0 ? "libc.so.6" : "demo";
}


/* The node of the stack of names given as "a;b;c", weight w added; each
 * name in the module module_of gives it. */
static uint32_t add(struct flame_tree *t, const char *stack, uint64_t w)
{
	char buf[256], *save = NULL;
	uint32_t node = FLAME_ROOT;

	snprintf(buf, sizeof(buf), "%s", stack);
	for (char *f = strtok_r(buf, ";", &save); f; f = strtok_r(NULL, ";", &save))
		node = flame_tree_child(t, node, flame_tree_name(t, f, module_of(NULL, f)));
	t->nodes[node].weight += w;
	return node;
}

static char *folded(const struct flame_tree *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(flame_tree_write_folded(t, out), 0);
	fclose(out);
	return text;
}

static void test_tree_same_stack_is_one_node(void **state)
{
	struct flame_tree t;

	(void)state;
	assert_int_equal(flame_tree_init(&t), 0);
	uint32_t a = add(&t, "main;fib;fib", 5);
	assert_int_equal(add(&t, "main;fib;fib", 7), a);
	assert_int_not_equal(add(&t, "main;fib", 1), a);
	assert_int_equal(t.nodes[a].weight, 12);
	assert_int_equal(t.nodes[a].depth, 3);
	assert_int_equal(t.nnodes, 4); /* the root, main, main;fib, main;fib;fib */
	flame_tree_free(&t);
}

static void test_tree_folded_lines_in_frame_order_without_empty_stacks(void **state)
{
	struct flame_tree t;

	(void)state;
	assert_int_equal(flame_tree_init(&t), 0);
	add(&t, "main;zeta", 3);
	add(&t, "worker;job", 4);
	add(&t, "main;alpha;leaf", 2);
	add(&t, "main", 1);
	add(&t, "main;alpha", 0);     /* a stack with no weight of its own */
	add(&t, "main+;x", 6);        /* '+' sorts before ';': not inside main's lines */
	char *text = folded(&t);
	assert_string_equal(text, "main 1\n"
				  "main;alpha;leaf 2\n"
				  "main;zeta 3\n"
				  "main+;x 6\n"
				  "worker;job 4\n");
	free(text);
	flame_tree_free(&t);
}

static void test_tree_names_without_separators_and_with_their_first_module(void **state)
{
	struct flame_tree t;

	(void)state;
	assert_int_equal(flame_tree_init(&t), 0);
	uint32_t a = flame_tree_name(&t, "odd;name\n", "libodd.so");
	assert_int_equal(flame_tree_name(&t, "odd:name ", "other.so"), a);
	assert_string_equal(flame_tree_name_text(&t, a), "odd:name ");
	assert_string_equal(flame_tree_name_module(&t, a), "libodd.so");
	assert_string_equal(flame_tree_module_of(&t, "odd:name "), "libodd.so");
	assert_null(flame_tree_module_of(&t, "missing"));
	flame_tree_free(&t);
}

/* 200,000 distinct stacks (the tables grow many times) are each found again. */
static void test_tree_grows_and_finds_every_stack_again(void **state)
{
	struct flame_tree t;
	enum { NAMES = 2000, DEPTH = 100 };
	uint32_t names[NAMES];
	char buf[32];

	(void)state;
	assert_int_equal(flame_tree_init(&t), 0);
	for (int i = 0; i < NAMES; i++) {
		snprintf(buf, sizeof(buf), "f%d", i);
		names[i] = flame_tree_name(&t, buf, NULL);
	}
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < NAMES; i++) {
			uint32_t node = FLAME_ROOT;

			for (int d = 0; d < DEPTH; d++)
				node = flame_tree_child(&t, node, names[(i + d) % NAMES]);
			assert_int_not_equal(node, FLAME_NONE);
			t.nodes[node].weight++;
			assert_int_equal(t.nodes[node].weight, round + 1);
		}
	}
	/* Each i starts its own chain at depth 1 (f<i>), so none is shared. */
	assert_int_equal(t.nnodes, 1 + NAMES * DEPTH);
	flame_tree_free(&t);
}

/* ---- the SVG ------------------------------------------------------------------- */

static char *svg_of_tree(const struct flame_tree *t, bool count)
{
	struct flame_svg_opts o = { .title = "T", .subtitle = "S", .unit = count ? "call" : NULL,
				    .main_module = "demo" };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_int_equal(flame_svg_write(t, &o, f), 0);
	fclose(f);
	return out;
}

/* The SVG of folded stacks ("a;b 3" lines, in any order). */
static char *svg(const char *text, bool count)
{
	struct flame_tree t;
	char line[256];

	assert_int_equal(flame_tree_init(&t), 0);
	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
		char *sp = strrchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		add(&t, line, strtoull(sp + 1, NULL, 10));
	}
	char *out = svg_of_tree(&t, count);
	flame_tree_free(&t);
	return out;
}

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The <g> of frame `name` at depth d: its attributes up to the title. */
static const char *frame_of(const char *text, const char *name, unsigned d)
{
	char needle[128];

	snprintf(needle, sizeof(needle), "data-d=\"%u\" data-n=\"%s\"", d, name);
	return strstr(text, needle);
}

static double width_of(const char *text, const char *name, unsigned d)
{
	const char *g = frame_of(text, name, d);

	assert_non_null(g);
	while (g > text && strncmp(g, "data-w=\"", 8) != 0)
		g--;
	return strtod(g + 8, NULL);
}

static void test_svg_merges_a_frame_over_unsorted_stacks(void **state)
{
	(void)state;
	char *out = svg("main;b 1\nworker 2\nmain;a 1\nmain 4\n", false);

	/* all, main, a, b, worker: main's stacks were not consecutive. */
	assert_int_equal(count_of(out, "<g class=\"f\""), 5);
	assert_int_equal(count_of(out, "data-n=\"main\""), 1);
	assert_float_equal(width_of(out, "all", 0), 1180.0, 1e-9);
	assert_float_equal(width_of(out, "main", 1), 1180.0 * 6 / 8, 1e-3);
	assert_float_equal(width_of(out, "a", 2), 1180.0 / 8, 1e-3);
	assert_float_equal(width_of(out, "worker", 1), 1180.0 * 2 / 8, 1e-3);
	/* Module colours: the legend names both, the title names the module. */
	assert_non_null(strstr(out, "<title>main (demo): 6 ns, 75.00%</title>"));
	assert_non_null(strstr(out, ">demo</text>"));
	assert_null(strstr(out, ">libc.so.6</text>"));
	free(out);
}

static void test_svg_titles_in_calls_and_time_units(void **state)
{
	(void)state;
	char *out = svg("main;lib_write 3\nmain 1\n", true);

	assert_non_null(strstr(out, "<title>lib_write (libc.so.6): 3 calls, 75.00%</title>"));
	assert_non_null(strstr(out, "<title>all: 4 calls, 100.00%</title>"));
	assert_non_null(strstr(out, ">libc.so.6</text>"));
	free(out);
	out = svg("main 2500000\n", false);
	assert_non_null(strstr(out, "<title>main (demo): 2.50 ms, 100.00%</title>"));
	free(out);
}

static void test_svg_escapes_names_and_clips_them_to_the_width(void **state)
{
	(void)state;
	char *out = svg("std::vector<int>::at&\"x\" 1\n"
			"a_function_with_a_name_far_too_long_for_its_small_share_of_the_graph 1\n"
			"tiny 0\n", false);

	assert_non_null(strstr(out, "data-n=\"std::vector&lt;int&gt;::at&amp;&quot;x&quot;\""));
	assert_null(strstr(out, "<int>"));
	/* 590 px: (590 - 6) / 7.3 = 80 characters fit, the name's 68 do. */
	assert_non_null(strstr(out, ">a_function_with_a_name_far_too_long_for_its_small_share_of_the_graph</text>"));
	assert_null(strstr(out, "tiny"));
	free(out);
	out = svg("a_function_with_a_rather_long_name 1\nb 15\n", false);
	/* 1180 / 16 = 73.75 px: 9 characters fit, 7 shown and "..". */
	assert_non_null(strstr(out, ">a_funct..</text>"));
	free(out);
}

/* The legend's text in order: the program, then by weight, then the rest. */
static void test_svg_colours_the_heaviest_modules_first(void **state)
{
	(void)state;
	char *out = svg("main;lib_a 3\nmain;m1_a 5\nm2_a 9\nm3_a 2\nm4_a 2\nm5_a 2\nm6_a 1\nm7_a 1\n"
			"m8_a 1\n", false);
	const char *order[] = { ">demo</text>", ">m2.so</text>", ">m1.so</text>", ">libc.so.6</text>",
				">m3.so</text>", ">m4.so</text>", ">m5.so</text>",
				">other modules</text>" };
	const char *at = out;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *p = strstr(at, order[i]);

		if (!p)
			fail_msg("%s is not in the legend after the one before", order[i]);
		at = p;
	}
	/* The lightest, past the seven families: grey, one legend entry. */
	assert_null(strstr(out, ">m6.so</text>"));
	assert_null(strstr(out, ">m8.so</text>"));
	free(out);
}

/* A frame far narrower than a pixel is there, for the zoom to show. */
static void test_svg_draws_every_frame_of_a_small_tree(void **state)
{
	(void)state;
	char *out = svg("big 100000\nbig;small 1\nbig;none 0\n", false);

	assert_non_null(frame_of(out, "big", 1));
	assert_non_null(frame_of(out, "small", 2));
	assert_null(frame_of(out, "none", 2)); /* nothing to draw */
	free(out);
}

/* Past 50,000 stacks, frames under a tenth of a pixel are left out. */
static void test_svg_of_a_large_tree_leaves_out_frames_under_a_tenth_of_a_pixel(void **state)
{
	struct flame_tree t;
	char name[32];

	(void)state;
	assert_int_equal(flame_tree_init(&t), 0);
	add(&t, "big", 1000000000);
	for (int i = 0; i < 50000; i++) {
		snprintf(name, sizeof(name), "big;c%d", i);
		add(&t, name, 1);
	}
	char *out = svg_of_tree(&t, false);
	assert_non_null(frame_of(out, "big", 1));
	assert_null(frame_of(out, "c0", 2));
	assert_null(strstr(out, "data-d=\"2\""));
	free(out);
	flame_tree_free(&t);
}

static void test_svg_of_nothing_is_all_alone(void **state)
{
	(void)state;
	char *out = svg("", false);

	assert_int_equal(count_of(out, "<g class=\"f\""), 1);
	assert_non_null(strstr(out, "<title>all: 0 ns, 0.00%</title>"));
	assert_non_null(strstr(out, "</svg>\n"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_same_stack_is_one_node),
		cmocka_unit_test(test_tree_folded_lines_in_frame_order_without_empty_stacks),
		cmocka_unit_test(test_tree_names_without_separators_and_with_their_first_module),
		cmocka_unit_test(test_tree_grows_and_finds_every_stack_again),
		cmocka_unit_test(test_svg_merges_a_frame_over_unsorted_stacks),
		cmocka_unit_test(test_svg_titles_in_calls_and_time_units),
		cmocka_unit_test(test_svg_escapes_names_and_clips_them_to_the_width),
		cmocka_unit_test(test_svg_colours_the_heaviest_modules_first),
		cmocka_unit_test(test_svg_draws_every_frame_of_a_small_tree),
		cmocka_unit_test(test_svg_of_a_large_tree_leaves_out_frames_under_a_tenth_of_a_pixel),
		cmocka_unit_test(test_svg_of_nothing_is_all_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
