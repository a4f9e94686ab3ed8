/* test_fuzz_regress.c - every input `make fuzz` found a crash, a leak or
 * undefined behaviour with (tests/fuzz/regress/<target>/) goes through its
 * harness again, built here with the tests' ASan and UBSan: a reader that
 * regressed aborts the test. The harnesses are included as they are, each
 * entry point renamed.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "raw_fixture.h"

#define LLVMFuzzerTestOneInput fuzz_raw_one
#include "fuzz/fuzz_raw.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_atf_one
#include "fuzz/fuzz_atf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_json_one
#include "fuzz/fuzz_json.c"
#undef LLVMFuzzerTestOneInput

#define REGRESS ADA_ROOT "/tests/fuzz/regress"

/* Feeds every file of REGRESS/target to one(); returns how many. */
static size_t replay(const char *target, int (*one)(const uint8_t *, size_t))
{
	char dir[512], path[1024];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", REGRESS, target);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		uint8_t *buf;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		buf = rf_read_file(path, &len);
		/* The readers' one-line complaints are left on stderr, with a
		 * sanitizer's report if one fires. */
		assert_int_equal(one(buf, len), 0);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

static void test_raw_reader_survives_what_fuzzing_found(void **state)
{
	(void)state;
	assert_int_equal(replay("raw", fuzz_raw_one), 2);
}

static void test_atf_reader_survives_what_fuzzing_found(void **state)
{
	(void)state;
	assert_int_equal(replay("atf", fuzz_atf_one), 0);
}

static void test_json_parser_survives_what_fuzzing_found(void **state)
{
	(void)state;
	assert_int_equal(replay("json", fuzz_json_one), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_reader_survives_what_fuzzing_found),
		cmocka_unit_test(test_atf_reader_survives_what_fuzzing_found),
		cmocka_unit_test(test_json_parser_survives_what_fuzzing_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
