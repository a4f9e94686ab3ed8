/* test_sig_format.c - a signature's values as replay prints them
 * (symbolize/sig_format.c): each kind from its register, SSE register or
 * stack slot, truncated and extended by its size; characters and strings
 * escaped; strings from the stack window, from read-only memory, cut; and
 * "?" where the record has no such register or the window ends first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sig.h"

#define SP 0x7ffe0000u

static struct sig_enumerator colors[] = { { 0, "RED" }, { 5, "GREEN" }, { -2, "BLUE" } };

static char got[480];

static const char *args(const struct ada_sig *sig, const struct sig_frame *fr)
{
	size_t n = sig_format_args(sig, fr, got, sizeof(got));

	assert_int_equal(n, strlen(got));
	return got;
}

static void integers_by_size_and_signedness(void **state)
{
	struct {
		struct ada_sig s;
		struct sig_value v[6];
	} sig = { .s = { .nparams = 6 },
		  .v = { { "a", SIG_SIGNED, 4, LOC_GPR, 0 }, { "b", SIG_UNSIGNED, 4, LOC_GPR, 1 },
			 { "c", SIG_SIGNED, 2, LOC_GPR, 2 }, { "d", SIG_UNSIGNED, 1, LOC_GPR, 3 },
			 { "e", SIG_SIGNED, 8, LOC_GPR, 4 }, { NULL, SIG_BOOL, 1, LOC_GPR, 5 } } };
	/* upper halves the ABI leaves undefined: garbage on purpose */
	uint64_t regs[8] = { 0xdeadbeeffffffffd, 0x12345678ee6b2800, 0xfffffffffffffff9,
			     0xabcdefc8, 0x8000000000000000, 0xff00 };
	struct sig_frame fr = { .regs = regs };

	(void)state;
	assert_string_equal(args(&sig.s, &fr),
			    "a=-3, b=4000000000, c=-7, d=200, e=-9223372036854775808, false");
	regs[5] = 0x1;
	sig.s.variadic = true;
	assert_string_equal(args(&sig.s, &fr),
			    "a=-3, b=4000000000, c=-7, d=200, e=-9223372036854775808, true, ...");
}

static void characters_enums_pointers(void **state)
{
	struct {
		struct ada_sig s;
		struct sig_value v[5];
	} sig = { .s = { .nparams = 5 },
		  .v = { { "c", SIG_CHAR, 1, LOC_GPR, 0 }, { "q", SIG_CHAR, 1, LOC_GPR, 1 },
			 { "col", SIG_ENUM, 4, LOC_GPR, 2, .is_signed = true, .nenum = 3, .enums = colors },
			 { "other", SIG_ENUM, 4, LOC_GPR, 3, .is_signed = true, .nenum = 3, .enums = colors },
			 { "p", SIG_POINTER, 8, LOC_GPR, 4 } } };
	uint64_t regs[8] = { '\n', 0x80, 0xfffffffe, 7, 0 };
	struct sig_frame fr = { .regs = regs };

	(void)state;
	assert_string_equal(args(&sig.s, &fr), "c='\\n', q='\\x80', col=BLUE, other=7, p=0x0");
	regs[0] = '\'';
	regs[4] = 0x7f00dead;
	assert_string_equal(args(&sig.s, &fr), "c='\\'', q='\\x80', col=BLUE, other=7, p=0x7f00dead");
}

static void floats_need_the_sse_registers(void **state)
{
	struct {
		struct ada_sig s;
		struct sig_value v[3];
	} sig = { .s = { .nparams = 3, .ret = { NULL, SIG_FLOAT, 8, LOC_SSE, 0 } },
		  .v = { { "d", SIG_FLOAT, 8, LOC_SSE, 0 }, { "f", SIG_FLOAT, 4, LOC_SSE, 1 },
			 { "n", SIG_SIGNED, 4, LOC_GPR, 0 } } };
	double d = 0.1, r = -2.5;
	float f = 1.5f;
	uint32_t fbits;
	uint64_t regs[8] = { 3 }, fregs[8] = { 0 };
	struct sig_frame fr = { .regs = regs };
	char ret[32];

	(void)state;
	assert_string_equal(args(&sig.s, &fr), "d=?, f=?, n=3");
	memcpy(&fregs[0], &d, 8);
	memcpy(&fbits, &f, 4);
	fregs[1] = 0xffffffff00000000ull | fbits; /* a float's upper half: not its */
	fr.fregs = fregs;
	assert_string_equal(args(&sig.s, &fr), "d=0.1, f=1.5, n=3");
	memcpy(&fregs[0], &r, 8);
	assert_int_equal(sig_format_ret(&sig.s, &fr, ret, sizeof(ret)), 4);
	assert_string_equal(ret, "-2.5");
}

static void stack_arguments_and_strings(void **state)
{
	struct {
		struct ada_sig s;
		struct sig_value v[4];
	} sig = { .s = { .nparams = 4 },
		  .v = { { "s", SIG_STRING, 8, LOC_GPR, 0 }, { "g", SIG_SIGNED, 8, LOC_STACK, .stack_off = 8 },
			 { "h", SIG_SIGNED, 4, LOC_STACK, .stack_off = 16 },
			 { "far", SIG_SIGNED, 4, LOC_STACK, .stack_off = 32 } } };
	uint8_t window[32] = { 0 };
	uint64_t regs[8] = { SP + 24 };
	int64_t g = -7;
	int32_t h = 9;
	struct sig_frame fr = { .regs = regs, .sp = SP, .stack = window, .stack_size = sizeof(window) };

	(void)state;
	memcpy(window + 8, &g, 8);
	memcpy(window + 16, &h, 4);
	memcpy(window + 24, "a\"b\t", 5);
	assert_string_equal(args(&sig.s, &fr), "s=\"a\\\"b\\t\", g=-7, h=9, far=?");
	memcpy(window + 24, "abcdefgh", 8); /* no NUL before the window ends */
	assert_string_equal(args(&sig.s, &fr), "s=\"abcdefgh\"..., g=-7, h=9, far=?");
	regs[0] = 0x400000; /* not in the window, nothing to read it with */
	assert_string_equal(args(&sig.s, &fr), "s=0x400000, g=-7, h=9, far=?");
}

static size_t rodata(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const char *text = ctx;
	size_t n = strlen(text) + 1;

	assert_int_equal(addr, 0x400000);
	memcpy(buf, text, n < len ? n : len);
	return n < len ? n : len;
}

static void strings_from_the_binary_and_cut(void **state)
{
	struct {
		struct ada_sig s;
		struct sig_value v[1];
	} sig = { .s = { .nparams = 1 }, .v = { { "path", SIG_STRING, 8, LOC_GPR, 0 } } };
	uint64_t regs[8] = { 0x400000 };
	struct sig_frame fr = { .regs = regs, .read_const = rodata, .ctx = "/etc/passwd" };

	(void)state;
	assert_string_equal(args(&sig.s, &fr), "path=\"/etc/passwd\"");
	fr.ctx = "0123456789012345678901234567890123456789012345678901234567890123456789";
	assert_string_equal(args(&sig.s, &fr),
			    "path=\"012345678901234567890123456789012345678901234567\"...");
}

static void aggregates_void_and_unknown(void **state)
{
	struct {
		struct ada_sig s;
		struct sig_value v[3];
	} sig = { .s = { .nparams = 3, .ret = { NULL, SIG_VOID, 0, LOC_NONE } },
		  .v = { { "p", SIG_AGGREGATE, 8, LOC_GPR, 0 }, { "b", SIG_AGGREGATE, 24, LOC_STACK, .stack_off = 8 },
			 { "x", SIG_OTHER, 16, LOC_UNKNOWN } } };
	uint64_t regs[8] = { 0 };
	struct sig_frame fr = { .regs = regs };
	char ret[8] = "junk";

	(void)state;
	assert_string_equal(args(&sig.s, &fr), "p={...}, b={...}, x=?");
	assert_int_equal(sig_format_ret(&sig.s, &fr, ret, sizeof(ret)), 0);
	assert_string_equal(ret, "");
}

static void cut_to_the_buffer(void **state)
{
	struct {
		struct ada_sig s;
		struct sig_value v[2];
	} sig = { .s = { .nparams = 2 },
		  .v = { { "first", SIG_SIGNED, 8, LOC_GPR, 0 }, { "second", SIG_SIGNED, 8, LOC_GPR, 1 } } };
	uint64_t regs[8] = { 123456789, 2 };
	struct sig_frame fr = { .regs = regs };
	char small[12];

	(void)state;
	assert_int_equal(sig_format_args(&sig.s, &fr, small, sizeof(small)), 11);
	assert_string_equal(small, "first=12345");
}

/* The C library's known prototypes: by the name views show, in the C
 * library's modules only, placed by the ABI (floats in xmm). */
static void libc_prototypes(void **state)
{
	const struct ada_sig *s = sig_libc("snprintf", "libc.so.6");
	uint64_t regs[8] = { 0x1000, 64, 0x400000 }, fregs[8] = { 0 };
	struct sig_frame fr = { .regs = regs, .read_const = rodata, .ctx = "%d items" };
	double x = 2.0, y = 0.5;
	char ret[32];

	(void)state;
	assert_non_null(s);
	assert_true(s->builtin);
	assert_string_equal(args(s, &fr), "str=0x1000, size=64, format=\"%d items\", ...");
	assert_ptr_equal(sig_libc("snprintf", "libc.so.6"), s); /* parsed once */
	assert_null(sig_libc("snprintf", "libfoo.so"));
	assert_null(sig_libc("snprint", "libc.so.6"));
	assert_null(sig_libc("no_such_function", "libc.so.6"));
	s = sig_libc("pow", "libm.so.6");
	assert_non_null(s);
	memcpy(&fregs[0], &x, 8);
	memcpy(&fregs[1], &y, 8);
	memcpy(&fregs[2], &x, 8);
	fr.fregs = fregs;
	assert_string_equal(args(s, &fr), "x=2, y=0.5");
	fregs[0] = fregs[2]; /* the result, in xmm0 */
	sig_format_ret(s, &fr, ret, sizeof(ret));
	assert_string_equal(ret, "2");
	regs[0] = 0x41;
	assert_string_equal(args(sig_libc("putchar", "libc.so.6"), &fr), "c='A'");
	ada_sig_free((struct ada_sig *)s); /* a builtin one: left alone */
	assert_ptr_equal(sig_libc("pow", "libm.so.6"), s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers_by_size_and_signedness),
		cmocka_unit_test(characters_enums_pointers),
		cmocka_unit_test(floats_need_the_sse_registers),
		cmocka_unit_test(stack_arguments_and_strings),
		cmocka_unit_test(strings_from_the_binary_and_cut),
		cmocka_unit_test(aggregates_void_and_unknown),
		cmocka_unit_test(cut_to_the_buffer),
		cmocka_unit_test(libc_prototypes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
