/* test_vars.c - runtime/vars.h is the one list of ADA_* variables: every
 * "ADA_..." name the runtime's and adacc's sources read is in it (else the
 * runtime would warn about its own variable and --ada-help would omit it),
 * each once, with every column filled; and the yes/no words. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "init_stubs.h"
#include "vars.h"

/* Every string literal that is a whole variable name ("ADA_X", not
 * "ADA_X=%s ...") in the .c and .h files of dir: fails on one not in the
 * table. Returns how many it saw. */
static size_t check_sources(const char *dir)
{
	static char text[1 << 20];
	char path[4096], bad[4200] = "";
	struct dirent *de;
	DIR *d;
	size_t seen = 0;

	snprintf(path, sizeof(path), "%s/%s", ADA_ROOT, dir);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), n;
		FILE *f;

		if (len < 3 || (strcmp(de->d_name + len - 2, ".c") && strcmp(de->d_name + len - 2, ".h")))
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", ADA_ROOT, dir, de->d_name);
		f = fopen(path, "r");
		assert_non_null(f);
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		for (const char *p = strstr(text, "\"ADA_"); p; p = strstr(p + 1, "\"ADA_")) {
			size_t name_len = strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

			if (name_len == 4 || p[1 + name_len] != '"')
				continue; /* "ADA_" itself, or a message */
			if (!ada_var_find(p + 1, name_len) && !bad[0])
				snprintf(bad, sizeof(bad), "%s reads %.*s, which runtime/vars.h does not list",
					 path, (int)name_len, p + 1);
			seen++;
		}
	}
	closedir(d);
	if (bad[0])
		fail_msg("%s", bad);
	return seen;
}

static void test_vars_every_name_the_sources_read_is_in_the_table(void **state)
{
	(void)state;
	/* config.c alone names each runtime variable at least once. */
	assert_true(check_sources("runtime") >= 23);
	check_sources("mcount");
	assert_true(check_sources("cc-wrapper") >= 5);
	check_sources("ctl");
}

static void test_vars_each_name_once_every_column_filled(void **state)
{
	(void)state;
	for (size_t i = 0; i < ADA_NVARS; i++) {
		const struct ada_var *v = &ada_vars[i];

		assert_int_equal(strncmp(v->name, "ADA_", 4), 0);
		assert_ptr_equal(ada_var_find(v->name, strlen(v->name)), v);
		assert_true(*v->accepted && *v->def && *v->meaning);
	}
	assert_null(ada_var_find("ADA_RING", 8));
	assert_null(ada_var_find("ADA_RING_KBS", 12));
	assert_non_null(ada_var_find("ADA_RING_KB=64", 11));
	assert_non_null(ada_var_find("ADA_RING_KB", SIZE_MAX));
	assert_null(ada_var_find("ADA_RING_KB=64", SIZE_MAX));
	assert_null(ada_var_find("ADA_RING", SIZE_MAX));
}

static void test_vars_bool_words(void **state)
{
	static const char *const yes[] = { "1", "yes", "Yes", "TRUE", "on", "oN" };
	static const char *const no[] = { "0", "no", "NO", "false", "False", "off" };
	static const char *const neither[] = { "", "2", "01", "y", "n", "yes ", " on", "offf",
					       "\x11", "tru" };

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_int_equal(ada_bool_word(yes[i]), 1);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(ada_bool_word(no[i]), 0);
	for (size_t i = 0; i < sizeof(neither) / sizeof(neither[0]); i++)
		assert_int_equal(ada_bool_word(neither[i]), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vars_every_name_the_sources_read_is_in_the_table),
		cmocka_unit_test(test_vars_each_name_once_every_column_filled),
		cmocka_unit_test(test_vars_bool_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
