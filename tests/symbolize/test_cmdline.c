/* test_cmdline.c - a command line's words and its quoted line
 * (symbolize/cmdline.c), and the process name the exports give viewers
 * (export_process_name): the program's basename and its arguments, cut
 * where a character starts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdline.h"
#include "export.h"

/* argv's words as process.meta records them */
static const char words[] = "/opt/my app/run\0-v\0two words\0it's\0\0$HOME\0a\\b\0";

static void test_split_gives_back_the_words_join_quoted(void **state)
{
	char *line = cmdline_join(words, sizeof(words) - 1), *back;
	size_t len;

	(void)state;
	assert_string_equal(line, "'/opt/my app/run' -v 'two words' 'it'\\''s' '' '$HOME' 'a\\b'");
	back = cmdline_split(line, &len);
	assert_int_equal(len, sizeof(words) - 1);
	assert_memory_equal(back, words, len);
	free(back);
	free(line);
	back = cmdline_split("", &len);
	assert_int_equal(len, 0);
	free(back);
}

static void test_process_name_is_the_basename_and_the_arguments(void **state)
{
	struct src_process p = { .exe = "/opt/my app/run",
				 .cmdline = "'/opt/my app/run' -v 'two words'" };
	char name[EXPORT_NAME_MAX];

	(void)state;
	assert_string_equal(export_process_name(name, &p), "run -v 'two words'");
	p.cmdline = "./demo";
	assert_string_equal(export_process_name(name, &p), "demo");
	p.cmdline = ""; /* a trace without the command line */
	assert_string_equal(export_process_name(name, &p), "run");
}

/* "app '" and 200 bytes of an argument (quoted: é is not plain to a
 * shell), a two-byte é at the name's bytes 123 and 124: the cut at 124
 * would split it, so it goes before it, and "..." follows. */
static void test_a_long_process_name_is_cut_on_a_character(void **state)
{
	char line[256] = "./app ", want[EXPORT_NAME_MAX], name[EXPORT_NAME_MAX];
	struct src_process p = { .exe = "/app", .cmdline = line };

	(void)state;
	memset(line + 6, 'x', 200);
	line[206] = '\0';
	memcpy(line + 6 + 118, "\xc3\xa9", 2);
	snprintf(want, sizeof(want), "app '%.*s...", 118, line + 6);
	assert_string_equal(export_process_name(name, &p), want);
	assert_int_equal(strlen(name), 5 + 118 + 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_gives_back_the_words_join_quoted),
		cmocka_unit_test(test_process_name_is_the_basename_and_the_arguments),
		cmocka_unit_test(test_a_long_process_name_is_cut_on_a_character),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
