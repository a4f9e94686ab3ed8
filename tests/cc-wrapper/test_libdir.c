/* test_libdir.c - the runtime is found in lib/ beside adacc's bin/. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "args.h"

static void test_libdir_is_lib_beside_bin(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(ada_cc_libdir("/work/ada/bin/adacc", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/work/ada/lib");
	assert_int_equal(ada_cc_libdir("/usr/local/bin/adacc", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/usr/local/lib");
}

static void test_libdir_of_a_binary_near_root(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(ada_cc_libdir("/bin/adacc", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/lib");
	assert_int_equal(ada_cc_libdir("/adacc", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/lib");
}

static void test_libdir_refuses_relative_path_and_small_buffer(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(ada_cc_libdir("bin/adacc", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(ada_cc_libdir("/a/long/prefix/bin/adacc", buf, sizeof(buf)),
			 -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libdir_is_lib_beside_bin),
		cmocka_unit_test(test_libdir_of_a_binary_near_root),
		cmocka_unit_test(test_libdir_refuses_relative_path_and_small_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
