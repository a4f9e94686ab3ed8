/* test_dump.c - the dump view prints every event with its registers in the
 * exact format views.h states: arguments of calls, return values, frames
 * left by EXCEPTION, events without a detail record, x86_64 and arm64
 * register names, the FP registers (ada's ATF extension) where a record
 * has them, the stack window, and --limit. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/capture.h"
#include "trace_fixture.h"
#include "views.h"

#define T0 1000000000ull /* the manifest's time_start_ns */

static const char *const names[] = { "main", "compute", "helper", "_Z3fooi|foo(int)" };

/* main(1, argv, envp) calls compute(42, 7) = 84, helper() without detail
 * records, and foo(5), left by EXCEPTION; main returns 0. */
static const char script[] = "+1 +2 - +3 - +4 ! -";

struct rec {
	uint64_t regs[8];
	uint16_t stack_size;
	bool has_fregs;
	uint64_t fregs[8];
};

/* The detail of index event i, or NULL for events 3 and 4 (helper). */
static const struct rec *detail_of(size_t i)
{
	static const struct rec recs[] = {
		[0] = { { 0x1, 0x7ffd5c1e2a38, 0x7ffd5c1e2a48, 0, 0, 0x7f1c00001000, 0, 0 }, 0 },
		/* compute(42, 7, 1.5, 2.25f) = 84, 6.25 */
		[1] = { { 0x2a, 0x7, 0, 0, 0, 0, 0, 0 }, 0, true,
			{ 0x3ff8000000000000, 0x40100000, 0, 0, 0, 0, 0, 0x7 } },
		[2] = { { 0x54, 0, 0, 0, 0, 0, 0, 0 }, 0, true, { 0x4019000000000000, 0 } },
		[5] = { { 0x5, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7 }, 20 },
		[6] = { { 0xdead, 0xbeef, 0, 0, 0, 0, 0, 0 }, 0 },
		[7] = { { 0, 0x10, 0, 0, 0, 0, 0, 0 }, 0 },
	};

	return i == 3 || i == 4 ? NULL : &recs[i];
}

/* Thread tid from the script, timestamps 12.345678901 s after T0 then 11,
 * 12, 13... microseconds later, with the detail records above. */
static void write_thread(const struct fixture *fx, uint32_t tid, uint8_t arch, bool details)
{
	struct atf_event ev[FX_MAX_EVENTS];
	size_t n = fx_events(script, tid, ev);
	struct atf_index_writer *iw;
	struct atf_detail_writer *dw = NULL;
	char dir[256], path[300];
	uint8_t stack[32];

	for (unsigned b = 0; b < sizeof(stack); b++)
		stack[b] = (uint8_t)(0xa0 + b);
	fx_thread_dir(fx, tid, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/index.atf", dir);
	iw = atf_index_open(path, tid, arch);
	assert_non_null(iw);
	if (details) {
		snprintf(path, sizeof(path), "%s/detail.atf", dir);
		dw = atf_detail_open(path, tid, arch);
		assert_non_null(dw);
	}
	for (size_t i = 0; i < n; i++) {
		const struct rec *r = detail_of(i);

		ev[i].timestamp_ns = T0 + 12345678901ull + (i ? 11000 + 1000 * i : 0);
		if (dw && r) {
			struct atf_detail d = {
				.index_seq = (uint32_t)i,
				.event_type = ev[i].kind == ATF_CALL ? ATF_DETAIL_CALL : ATF_DETAIL_RETURN,
				.timestamp_ns = ev[i].timestamp_ns,
				.function_id = ev[i].function_id,
				.lr = 0x5555555551a0 + i, .fp = 0x7ffd5c1e2a50, .sp = 0x7ffd5c1e2a28 - 0x20 * i,
				.stack_size = r->stack_size, .stack = stack,
			};

			memcpy(d.regs, r->regs, sizeof(d.regs));
			if (r->has_fregs) {
				d.flags = ATF_DETAIL_FLAG_FREGS;
				memcpy(d.fregs, r->fregs, sizeof(d.fregs));
			}
			ev[i].detail_seq = (uint32_t)atf_detail_count(dw);
			assert_int_equal(atf_detail_append(dw, &d), 0);
		}
		assert_int_equal(atf_index_append(iw, &ev[i]), 0);
	}
	if (dw)
		assert_int_equal(atf_detail_close(dw), 0);
	atf_index_set_has_detail(iw, details);
	assert_int_equal(atf_index_close(iw), 0);
}

static void write_manifest(const struct fixture *fx, const char *threads)
{
	char text[4096], *p = text;

	p += sprintf(p, "{\"format_version\": \"2.1\", \"threads\": [%s],\n"
		     "\"time_start_ns\": %llu, \"time_end_ns\": %llu, \"clock_type\": 3,\n"
		     "\"modules\": [{\"module_id\": 1, \"path\": \"/bin/app\"}],\n\"symbols\": [",
		     threads, T0, T0 + 20000000000ull);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *bar = strchr(names[i], '|');

		p += sprintf(p, "%s{\"function_id\": \"0x00000001%08zx\", \"name\": \"%.*s\"",
			     i ? ",\n" : "", i + 1,
			     bar ? (int)(bar - names[i]) : (int)strlen(names[i]), names[i]);
		if (bar)
			p += sprintf(p, ", \"demangled\": \"%s\"", bar + 1);
		p += sprintf(p, "}");
	}
	sprintf(p, "]}\n");
	fx_write(fx, "manifest.json", text);
}

/* Dumps PATH with the options and returns the text (caller frees). */
static char *dump(const char *path, uint64_t limit, bool stack)
{
	const struct ada_dump_options o = { .limit = limit, .stack = stack };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(ada_view_dump(path, &o, out), 0);
	fclose(out);
	return text;
}

/* Thread 1 (with details, arch) and thread 0 (none, written second: the
 * output is in thread order), dumped with the options. */
static void expect_dump(uint8_t arch, uint64_t limit, bool stack, const char *want)
{
	struct fixture fx;
	char *got;

	fx_init(&fx);
	write_manifest(&fx, "{\"id\": 1, \"os_tid\": 4243, \"has_detail\": true},"
			    "{\"id\": 0, \"os_tid\": 4242, \"has_detail\": false}");
	write_thread(&fx, 1, arch, true);
	write_thread(&fx, 0, arch, false);
	got = dump(fx.session, limit, stack);
	assert_string_equal(got, want);
	free(got);
	fx_cleanup(&fx);
}

#define THREAD0 \
	"# pid 4242 thread 0 tid 4242\n" \
	"12.345678 main()\n" \
	"12.345690   compute()\n" \
	"12.345691   compute returns\n" \
	"12.345692   helper()\n" \
	"12.345693   helper returns\n" \
	"12.345694   foo(int)()\n" \
	"12.345695   foo(int) (unwound)\n" \
	"12.345696 main returns\n"

static void test_dump_x86_64_arguments_and_return_values(void **state)
{
	(void)state;
	expect_dump(ATF_ARCH_X86_64, 0, false,
		    THREAD0
		    "# pid 4242 thread 1 tid 4243\n"
		    "12.345678 main(rdi=0x1 rsi=0x7ffd5c1e2a38 rdx=0x7ffd5c1e2a48 rcx=0x0 r8=0x0 r9=0x7f1c00001000)\n"
		    "12.345690   compute(rdi=0x2a rsi=0x7 rdx=0x0 rcx=0x0 r8=0x0 r9=0x0)\n"
		    "    xmm0=0x3ff8000000000000 xmm1=0x40100000 xmm2=0x0 xmm3=0x0 xmm4=0x0 xmm5=0x0 xmm6=0x0 xmm7=0x7\n"
		    "12.345691   compute = 0x54 (rdx=0x0)\n"
		    "    xmm0=0x4019000000000000 xmm1=0x0\n"
		    "12.345692   helper()\n"
		    "12.345693   helper returns\n"
		    "12.345694   foo(int)(rdi=0x5 rsi=0x1 rdx=0x2 rcx=0x3 r8=0x4 r9=0x5)\n"
		    "12.345695   foo(int) (unwound)\n"
		    "12.345696 main = 0x0 (rdx=0x10)\n");
}

static void test_dump_arm64_register_names(void **state)
{
	(void)state;
	expect_dump(ATF_ARCH_ARM64, 0, false,
		    THREAD0
		    "# pid 4242 thread 1 tid 4243\n"
		    "12.345678 main(x0=0x1 x1=0x7ffd5c1e2a38 x2=0x7ffd5c1e2a48 x3=0x0 x4=0x0 x5=0x7f1c00001000 x6=0x0 x7=0x0)\n"
		    "12.345690   compute(x0=0x2a x1=0x7 x2=0x0 x3=0x0 x4=0x0 x5=0x0 x6=0x0 x7=0x0)\n"
		    "    d0=0x3ff8000000000000 d1=0x40100000 d2=0x0 d3=0x0 d4=0x0 d5=0x0 d6=0x0 d7=0x7\n"
		    "12.345691   compute = 0x54 (x1=0x0)\n"
		    "    d0=0x4019000000000000 d1=0x0\n"
		    "12.345692   helper()\n"
		    "12.345693   helper returns\n"
		    "12.345694   foo(int)(x0=0x5 x1=0x1 x2=0x2 x3=0x3 x4=0x4 x5=0x5 x6=0x6 x7=0x7)\n"
		    "12.345695   foo(int) (unwound)\n"
		    "12.345696 main = 0x0 (x1=0x10)\n");
}

static void test_dump_stack_windows_and_limit(void **state)
{
	(void)state;
	expect_dump(ATF_ARCH_X86_64, 7, true,
		    "# pid 4242 thread 0 tid 4242\n"
		    "12.345678 main()\n"
		    "12.345690   compute()\n"
		    "12.345691   compute returns\n"
		    "12.345692   helper()\n"
		    "12.345693   helper returns\n"
		    "12.345694   foo(int)()\n"
		    "12.345695   foo(int) (unwound)\n"
		    "# 1 more events not shown\n"
		    "# pid 4242 thread 1 tid 4243\n"
		    "12.345678 main(rdi=0x1 rsi=0x7ffd5c1e2a38 rdx=0x7ffd5c1e2a48 rcx=0x0 r8=0x0 r9=0x7f1c00001000)\n"
		    "    sp=0x7ffd5c1e2a28 fp=0x7ffd5c1e2a50 lr=0x5555555551a0\n"
		    "12.345690   compute(rdi=0x2a rsi=0x7 rdx=0x0 rcx=0x0 r8=0x0 r9=0x0)\n"
		    "    xmm0=0x3ff8000000000000 xmm1=0x40100000 xmm2=0x0 xmm3=0x0 xmm4=0x0 xmm5=0x0 xmm6=0x0 xmm7=0x7\n"
		    "    sp=0x7ffd5c1e2a08 fp=0x7ffd5c1e2a50 lr=0x5555555551a1\n"
		    "12.345691   compute = 0x54 (rdx=0x0)\n"
		    "    xmm0=0x4019000000000000 xmm1=0x0\n"
		    "    sp=0x7ffd5c1e29e8 fp=0x7ffd5c1e2a50 lr=0x5555555551a2\n"
		    "12.345692   helper()\n"
		    "12.345693   helper returns\n"
		    "12.345694   foo(int)(rdi=0x5 rsi=0x1 rdx=0x2 rcx=0x3 r8=0x4 r9=0x5)\n"
		    "    sp=0x7ffd5c1e2988 fp=0x7ffd5c1e2a50 lr=0x5555555551a5\n"
		    "    +0x000: a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af\n"
		    "    +0x010: b0 b1 b2 b3\n"
		    "12.345695   foo(int) (unwound)\n"
		    "    sp=0x7ffd5c1e2968 fp=0x7ffd5c1e2a50 lr=0x5555555551a6\n"
		    "# 1 more events not shown\n");
}

/* Overwrites the byte at off of thread tid's file name with value. */
static void damage(const struct fixture *fx, uint32_t tid, const char *name, long off, int value)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/thread_%u/%s", fx->pid_dir, tid, name);
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, off, SEEK_SET), 0);
	assert_int_equal(fputc(value, f), value);
	assert_int_equal(fclose(f), 0);
}

/* --limit reads no further than its events: damage past them (an index
 * event, so the CRC fails; a detail record's length) does not stop it, as
 * it stops a whole dump; damage within them is still found, in one line. */
static void test_dump_limit_reads_no_further(void **state)
{
	const struct ada_dump_options all = { 0 }, three = { .limit = 3 };
	struct fixture fx;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	fx_init(&fx);
	write_manifest(&fx, "{\"id\": 1, \"os_tid\": 4243, \"has_detail\": true}");
	write_thread(&fx, 1, ATF_ARCH_X86_64, true);
	damage(&fx, 1, "index.atf", 64 + 32 * 7, 0x77);     /* event 7's time */
	damage(&fx, 1, "detail.atf", 64 + 3 * 124 + 2 * 64, 0x01); /* the 4th record's length
								   * (the 2nd and 3rd have fregs) */
	out = open_memstream(&text, &len);
	assert_int_equal(ada_view_dump(fx.pid_dir, &three, out), 0);
	fclose(out);
	assert_string_equal(text, "# pid 4242 thread 1 tid 4243\n"
		"12.345678 main(rdi=0x1 rsi=0x7ffd5c1e2a38 rdx=0x7ffd5c1e2a48 rcx=0x0 r8=0x0 r9=0x7f1c00001000)\n"
		"12.345690   compute(rdi=0x2a rsi=0x7 rdx=0x0 rcx=0x0 r8=0x0 r9=0x0)\n"
		"    xmm0=0x3ff8000000000000 xmm1=0x40100000 xmm2=0x0 xmm3=0x0 xmm4=0x0 xmm5=0x0 xmm6=0x0 xmm7=0x7\n"
		"12.345691   compute = 0x54 (rdx=0x0)\n"
		"    xmm0=0x4019000000000000 xmm1=0x0\n"
		"# 5 more events not shown\n");
	free(text);

	out = open_memstream(&text, &len);
	capture_begin();
	assert_int_equal(ada_view_dump(fx.pid_dir, &all, out), -EBADMSG);
	assert_non_null(strstr(capture_end(), "/thread_1/index.atf: footer CRC"));
	fclose(out);
	free(text);

	/* The 2nd record's length, within the limit. */
	damage(&fx, 1, "detail.atf", 64 + 124, 0x01);
	out = open_memstream(&text, &len);
	capture_begin();
	assert_int_equal(ada_view_dump(fx.pid_dir, &three, out), -EBADMSG);
	assert_int_equal(count_lines(capture_end()), 1);
	fclose(out);
	free(text);
	fx_cleanup(&fx);
}

/* A function the manifest does not name is printed by its id. */
static void test_dump_unknown_function_by_id(void **state)
{
	struct fixture fx;
	char *got;

	(void)state;
	fx_init(&fx);
	fx_manifest(&fx, FX_THREAD0, names, 1);
	fx_thread(&fx, 0, "+1 +9 - -");
	got = dump(fx.pid_dir, 0, false);
	assert_string_equal(got, "# pid 4242 thread 0 tid 4242\n"
				 "0.000001 main()\n"
				 "0.000001   0x0000000100000009()\n"
				 "0.000001   0x0000000100000009 returns\n"
				 "0.000001 main returns\n");
	free(got);
	fx_cleanup(&fx);
}

/* A damaged call_depth does not drive the indentation, the nesting does (as
 * in --replay): a file whose field said four billion made --dump write
 * gigabytes of spaces (found by make fuzz). */
static void test_dump_indents_by_the_nesting_not_a_damaged_depth_field(void **state)
{
	struct atf_event ev[FX_MAX_EVENTS];
	struct fixture fx;
	size_t n;
	char *got;

	(void)state;
	fx_init(&fx);
	fx_manifest(&fx, FX_THREAD0, names, 2);
	n = fx_events("+1 +2 - -", 0, ev);
	ev[1].call_depth = 1000;
	ev[3].call_depth = 1000;
	fx_write_index(&fx, 0, ev, n, false);
	got = dump(fx.pid_dir, 0, false);
	assert_string_equal(got, "# pid 4242 thread 0 tid 4242\n"
				 "0.000001 main()\n"
				 "0.000001   compute()\n"
				 "0.000001   compute returns\n"
				 "0.000001 main returns\n");
	free(got);
	fx_cleanup(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_x86_64_arguments_and_return_values),
		cmocka_unit_test(test_dump_arm64_register_names),
		cmocka_unit_test(test_dump_stack_windows_and_limit),
		cmocka_unit_test(test_dump_limit_reads_no_further),
		cmocka_unit_test(test_dump_unknown_function_by_id),
		cmocka_unit_test(test_dump_indents_by_the_nesting_not_a_damaged_depth_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
