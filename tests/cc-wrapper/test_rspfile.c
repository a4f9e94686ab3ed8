/* test_rspfile.c - response-file text splits into the arguments gcc's driver
 * would see. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "rspfile.h"

/* Splits text and checks it gives exactly the n arguments in want. */
static void expect_split(const char *text, const char *const *want, size_t n)
{
	struct ada_strv sv = { 0 };

	assert_int_equal(ada_rsp_split(text, &sv), 0);
	assert_int_equal(sv.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(sv.v[i], want[i]);
	ada_strv_free(&sv);
}

#define SPLIT(text, ...) do { \
	const char *const want_[] = { __VA_ARGS__ }; \
	expect_split(text, want_, sizeof(want_) / sizeof(want_[0])); \
} while (0)

static void test_split_on_any_whitespace(void **state)
{
	(void)state;
	SPLIT("  -c\tx.c\n\n-o  x.o \r\n", "-c", "x.c", "-o", "x.o");
}

static void test_quotes_keep_spaces_and_join_adjacent_text(void **state)
{
	(void)state;
	SPLIT("'my file.c' \"-DNAME=a b\" pre'fix'\"ed\"", "my file.c", "-DNAME=a b", "prefixed");
	SPLIT("\"it's\" 'say \"hi\"'", "it's", "say \"hi\"");
}

static void test_backslash_takes_next_character_even_in_quotes(void **state)
{
	(void)state;
	SPLIT("a\\ b \"q\\\"q\" 'x\\'y' c:\\\\dir", "a b", "q\"q", "x'y", "c:\\dir");
}

static void test_empty_quotes_give_empty_argument(void **state)
{
	(void)state;
	SPLIT("-o '' x", "-o", "", "x");
}

static void test_empty_text_gives_no_argument(void **state)
{
	struct ada_strv sv = { 0 };

	(void)state;
	assert_int_equal(ada_rsp_split(" \n\t ", &sv), 0);
	assert_int_equal(sv.n, 0);
	ada_strv_free(&sv);
}

static void test_bare_at_sign_and_missing_file_stay_as_given(void **state)
{
	char *args[] = { "@", "@/nonexistent/file", "x.c" };
	struct ada_strv sv = { 0 };

	(void)state;
	assert_int_equal(ada_rsp_expand(args, 3, &sv), 0);
	assert_int_equal(sv.n, 3);
	assert_string_equal(sv.v[0], "@");
	assert_string_equal(sv.v[1], "@/nonexistent/file");
	assert_string_equal(sv.v[2], "x.c");
	assert_null(sv.v[3]);
	ada_strv_free(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_on_any_whitespace),
		cmocka_unit_test(test_quotes_keep_spaces_and_join_adjacent_text),
		cmocka_unit_test(test_backslash_takes_next_character_even_in_quotes),
		cmocka_unit_test(test_empty_quotes_give_empty_argument),
		cmocka_unit_test(test_empty_text_gives_no_argument),
		cmocka_unit_test(test_bare_at_sign_and_missing_file_stay_as_given),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
