/* test_names.c - the names views print (symbolize/names.c): the simple form
 * of demangled C++ names, and symbol versions left out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "source.h"

static void expect_simple(const char *full, const char *want)
{
	char buf[256];

	assert_string_equal(src_simple_name(full, buf, sizeof(buf)), want);
}

static void simple_form_drops_parameters_and_qualifiers(void **state)
{
	(void)state;
	expect_simple("main", "main");
	expect_simple("ns::Foo::bar(int, char const*)", "ns::Foo::bar");
	expect_simple("ns::Foo::bar(int) const", "ns::Foo::bar");
	expect_simple("ns::Foo::bar() const &&", "ns::Foo::bar");
	expect_simple("std::vector<int, std::allocator<int> >::push_back(int const&)",
		      "std::vector<int, std::allocator<int> >::push_back");
}

static void simple_form_drops_a_template_function_return_type(void **state)
{
	(void)state;
	expect_simple("int ns::twice<int>(int)", "ns::twice<int>");
	expect_simple("unsigned long f<unsigned long>(unsigned long)", "f<unsigned long>");
	expect_simple("void (*signal_for(int))(int)", "signal_for");
}

static void simple_form_keeps_what_is_part_of_the_name(void **state)
{
	(void)state;
	expect_simple("(anonymous namespace)::helper(int)", "(anonymous namespace)::helper");
	expect_simple("Foo::operator()(int)", "Foo::operator()");
	expect_simple("operator new(unsigned long)", "operator new");
	expect_simple("Foo::operator<(Foo const&) const", "Foo::operator<");
	expect_simple("main::{lambda(int)#1}::operator()(int) const",
		      "main::{lambda(int)#1}::operator()");
	expect_simple("fib.part.0", "fib.part.0");
}

static void symbol_versions_are_left_out(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(src_unversioned("memcpy@@GLIBC_2.14", buf, sizeof(buf)), "memcpy");
	assert_string_equal(src_unversioned("pthread_create@GLIBC_2.2.5", buf, sizeof(buf)),
			    "pthread_create");
	assert_string_equal(src_unversioned("plain", buf, sizeof(buf)), "plain");
	expect_simple("memcpy@@GLIBC_2.14", "memcpy");
	/* Cut to the buffer, never past it. */
	assert_string_equal(src_unversioned("abcdefgh", buf, 4), "abc");
	assert_string_equal(src_simple_name("ns::f(int)", buf, 4), "ns:");
}

static void expect_display(const char *full, const char *module, const char *want)
{
	char buf[256];

	assert_string_equal(src_display_name(full, module, buf, sizeof(buf)), want);
}

/* glibc's per-CPU variants show as the function they implement, in libc
 * and libm only; other double-underscore names are left alone. */
static void libc_variants_show_as_their_function(void **state)
{
	(void)state;
	expect_display("__memchr_avx2", "libc.so.6", "memchr");
	expect_display("__memset_avx2_unaligned_erms", "libc.so.6", "memset");
	expect_display("__memmove_avx_unaligned_erms", "libc.so.6", "memmove");
	expect_display("__strchrnul_evex", "libc.so.6", "strchrnul");
	expect_display("__memcpy_chk_avx_unaligned", "libc.so.6", "memcpy_chk");
	expect_display("__strcasecmp_l_sse2", "libc-2.31.so", "strcasecmp_l");
	expect_display("__sin_fma", "libm.so.6", "sin");
	expect_display("__libc_start_main", "libc.so.6", "__libc_start_main");
	expect_display("__vfprintf_internal", "libc.so.6", "__vfprintf_internal");
	expect_display("__avx2_x", "libc.so.6", "__avx2_x");
	expect_display("__memchr_avx2", "app", "__memchr_avx2");
	expect_display("ns::f(int)", "app", "ns::f");
}

/* Overloads (one simple name, several full names) are named with their
 * parameters; where even those repeat (const and not), whole; functions of
 * one name and one full name (a C function in two modules) are left as
 * they are. */
static void overloads_are_told_apart(void **state)
{
	struct src_func f[] = {
		{ .full = "YAML::operator<<(YAML::Emitter&, char const*)" },
		{ .full = "main" },
		{ .full = "YAML::operator<<(YAML::Emitter&, bool)" },
		{ .full = "int Box<int>::get() const" },
		{ .full = "int Box<int>::get()" },
		{ .full = "helper" },
		{ .full = "helper" },
		{ .full = "std::vector<int>::size() const" },
	};
	const char *const want[] = {
		"YAML::operator<<(YAML::Emitter&, char const*)", "main", "YAML::operator<<(YAML::Emitter&, bool)",
		"Box<int>::get() const", "Box<int>::get()", "helper", "helper", "std::vector<int>::size",
	};
	char buf[256];
	size_t i, n = sizeof(f) / sizeof(f[0]);

	(void)state;
	for (i = 0; i < n; i++)
		f[i].name = strdup(src_simple_name(f[i].full, buf, sizeof(buf)));
	assert_int_equal(src_names_disambiguate(f, n), 0);
	for (i = 0; i < n; i++) {
		assert_string_equal(f[i].name, want[i]);
		if (i == 0 || i == 2)
			assert_string_equal(f[i].base, "YAML::operator<<");
		else if (i == 3 || i == 4)
			assert_string_equal(f[i].base, "Box<int>::get");
		else
			assert_null(f[i].base);
		free((char *)f[i].name);
		free((char *)f[i].base);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(simple_form_drops_parameters_and_qualifiers),
		cmocka_unit_test(simple_form_drops_a_template_function_return_type),
		cmocka_unit_test(simple_form_keeps_what_is_part_of_the_name),
		cmocka_unit_test(symbol_versions_are_left_out),
		cmocka_unit_test(libc_variants_show_as_their_function),
		cmocka_unit_test(overloads_are_told_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
