/* test_check.c - the validator passes well-formed traces and names each kind
 * of violation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check.h"
#include "trace_fixture.h"

static const char *const names[] = { "main", "fib", "leaf" };

struct result {
	char *text;
	int violations;
};

static struct result check(const char *path)
{
	struct result r = { 0 };
	size_t len = 0;
	FILE *out = open_memstream(&r.text, &len);

	assert_int_equal(ada_check_path(path, out, &r.violations), 0);
	fclose(out);
	return r;
}

/* Checks fx and expects exactly `n` violations, one of them mentioning `what`. */
static void expect_violation(struct fixture *fx, int n, const char *what)
{
	struct result r = check(fx->pid_dir);

	if (r.violations != n || !strstr(r.text, what))
		fail_msg("want %d violations incl. \"%s\", got %d:\n%s", n, what, r.violations, r.text);
	free(r.text);
	fx_cleanup(fx);
}

/* A fixture with thread 0 from `script`, the stock manifest and the events
 * left in ev for the test to break before writing. */
static size_t setup_thread(struct fixture *fx, const char *script, struct atf_event *ev)
{
	fx_init(fx);
	fx_manifest(fx, FX_THREAD0, names, 3);
	return fx_events(script, 0, ev);
}

/* Detail records for the events ev[seqs[i]], with `flags` (their fregs, if
 * ATF_DETAIL_FLAG_FREGS, are 1.0 and 2.0). */
static void write_detail_flags(const struct fixture *fx, uint32_t tid, const struct atf_event *ev,
			       const uint32_t *seqs, size_t n, uint16_t flags)
{
	char path[300];
	struct atf_detail_writer *w;

	snprintf(path, sizeof(path), "%s/thread_%u/detail.atf", fx->pid_dir, tid);
	w = atf_detail_open(path, tid, ATF_ARCH_X86_64);
	assert_non_null(w);
	for (size_t i = 0; i < n; i++) {
		const struct atf_event *e = &ev[seqs[i]];
		struct atf_detail d = { .index_seq = seqs[i], .timestamp_ns = e->timestamp_ns,
					.function_id = e->function_id,
					.event_type = e->kind == ATF_CALL ? ATF_DETAIL_CALL
									 : ATF_DETAIL_RETURN,
					.flags = flags,
					.fregs = { 0x3ff0000000000000ull, 0x4000000000000000ull } };

		assert_int_equal(atf_detail_append(w, &d), 0);
	}
	assert_int_equal(atf_detail_close(w), 0);
}

static void write_detail(const struct fixture *fx, uint32_t tid, const struct atf_event *ev,
			 const uint32_t *seqs, size_t n)
{
	write_detail_flags(fx, tid, ev, seqs, n, 0);
}

/* Thread 0's detail.atf with byte `off` of its events section set to v and
 * the footer's CRC made right again: what the check finds is that byte. */
static void patch_detail(const struct fixture *fx, size_t off, uint8_t v)
{
	char path[300];
	uint8_t *b;
	size_t len;
	uint32_t crc;
	FILE *f;

	snprintf(path, sizeof(path), "%s/thread_0/detail.atf", fx->pid_dir);
	f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	b = malloc(len);
	rewind(f);
	assert_int_equal(fread(b, 1, len, f), len);
	b[64 + off] = v;
	crc = atf_crc32(0, b + 64, len - 128);
	for (int i = 0; i < 4; i++)
		b[len - 64 + 4 + i] = (uint8_t)(crc >> 8 * i);
	rewind(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
	free(b);
}

static void test_check_passes_a_valid_trace_from_any_path_form(void **state)
{
	struct fixture fx;
	struct result r;

	(void)state;
	fx_init(&fx);
	fx_manifest(&fx, FX_THREAD0 ", {\"id\": 1, \"os_tid\": 4300, \"has_detail\": false}",
		    names, 3);
	fx_thread(&fx, 0, "+1 +2 +3 - +3 ! - -");
	fx_thread(&fx, 1, "+2 - +2 -");
	const char *paths[] = { fx.root, fx.session, fx.pid_dir };
	for (size_t i = 0; i < 3; i++) {
		r = check(paths[i]);
		assert_string_equal(r.text, "checked 3 files, 12 events: OK\n");
		assert_int_equal(r.violations, 0);
		free(r.text);
	}
	fx_cleanup(&fx);
}

/* Thread 0's "+1 +2 - -" with the middle two events' detail records, of
 * `flags`: the check passes. */
static void expect_linked_detail_passes(uint16_t flags)
{
	struct atf_event ev[FX_MAX_EVENTS];
	static const uint32_t seqs[] = { 1, 2 };
	struct fixture fx;
	size_t n;
	struct result r;

	fx_init(&fx);
	fx_manifest(&fx, "{\"id\": 0, \"os_tid\": 1, \"has_detail\": true}", names, 3);
	n = fx_events("+1 +2 - -", 0, ev);
	ev[1].detail_seq = 0;
	ev[2].detail_seq = 1;
	fx_write_index(&fx, 0, ev, n, true);
	write_detail_flags(&fx, 0, ev, seqs, 2, flags);
	r = check(fx.pid_dir);
	assert_string_equal(r.text, "checked 3 files, 4 events: OK\n");
	free(r.text);
	fx_cleanup(&fx);
}

static void test_check_passes_linked_detail_file(void **state)
{
	(void)state;
	expect_linked_detail_passes(0);
}

/* ada's extension (docs/atf-extensions.md): detail events with the FP
 * registers, 64 bytes more each. */
static void test_check_passes_detail_with_fp_registers(void **state)
{
	(void)state;
	expect_linked_detail_passes(ATF_DETAIL_FLAG_FREGS);
}

/* A detail event's flags (offset 6) with the FP registers' bit and no
 * bytes for them, and with a bit nobody defined. */
static void expect_detail_flags_violation(uint16_t written, uint8_t patched, const char *what)
{
	struct atf_event ev[FX_MAX_EVENTS];
	static const uint32_t seqs[] = { 1 };
	struct fixture fx;
	size_t n;

	fx_init(&fx);
	fx_manifest(&fx, "{\"id\": 0, \"os_tid\": 1, \"has_detail\": true}", names, 3);
	n = fx_events("+1 +2 - -", 0, ev);
	ev[1].detail_seq = 0;
	fx_write_index(&fx, 0, ev, n, true);
	write_detail_flags(&fx, 0, ev, seqs, 1, written);
	patch_detail(&fx, 6, patched);
	/* and the index's link, to a record the file cannot be read for */
	expect_violation(&fx, 2, what);
}

static void test_check_detects_fp_registers_flag_without_their_bytes(void **state)
{
	(void)state;
	expect_detail_flags_violation(0, ATF_DETAIL_FLAG_FREGS,
				      "detail event #0: total_length 124 != 124 + stack_size 0 + fregs 64");
}

static void test_check_detects_fp_registers_without_their_flag(void **state)
{
	(void)state;
	expect_detail_flags_violation(ATF_DETAIL_FLAG_FREGS, 0,
				      "detail event #0: total_length 188 != 124 + stack_size 0");
}

static void test_check_detects_undefined_detail_flag(void **state)
{
	(void)state;
	expect_detail_flags_violation(ATF_DETAIL_FLAG_FREGS, 0x5,
				      "detail event #0: flags 0x5 set undefined bits");
}

static void test_check_detects_frame_left_open(void **state)
{
	struct fixture fx;

	(void)state;
	setup_thread(&fx, "", NULL);
	fx_thread(&fx, 0, "+1 +2 -");
	expect_violation(&fx, 1, "index.atf: ends with 1 frames open");
}

static void test_check_detects_wrong_call_depth(void **state)
{
	struct atf_event ev[FX_MAX_EVENTS];
	struct fixture fx;
	size_t n = setup_thread(&fx, "+1 +2 - -", ev);

	(void)state;
	ev[1].call_depth = 3;
	ev[2].call_depth = 3;
	fx_write_index(&fx, 0, ev, n, false);
	expect_violation(&fx, 2, "event 1: CALL at depth 3, expected 2");
}

static void test_check_detects_return_of_another_function(void **state)
{
	struct atf_event ev[FX_MAX_EVENTS];
	struct fixture fx;
	size_t n = setup_thread(&fx, "+1 +2 - -", ev);

	(void)state;
	ev[2].function_id = ev[0].function_id;
	fx_write_index(&fx, 0, ev, n, false);
	expect_violation(&fx, 1, "event 2: closes function 0x0000000100000002 with 0x0000000100000001");
}

static void test_check_detects_bad_kind_thread_and_time(void **state)
{
	struct atf_event ev[FX_MAX_EVENTS];
	struct fixture fx;
	size_t n = setup_thread(&fx, "+1 +2 - -", ev);

	(void)state;
	ev[4] = ev[3];
	ev[3] = ev[2];
	ev[3].kind = 7;          /* an extra event of no known kind */
	ev[0].thread_id = 9;
	ev[4].timestamp_ns = 1;  /* earlier than the one before */
	fx_write_index(&fx, 0, ev, n + 1, false);
	expect_violation(&fx, 3, "event 3: event_kind 7 not in 1..3");
}

static void test_check_detects_function_missing_from_symbols(void **state)
{
	struct fixture fx;

	(void)state;
	setup_thread(&fx, "", NULL);
	fx_manifest(&fx, FX_THREAD0, names, 2);
	fx_thread(&fx, 0, "+1 +3 - -");
	expect_violation(&fx, 2, "event 1: function_id 0x0000000100000003 not in \"symbols\"");
}

static void test_check_detects_zero_function_id(void **state)
{
	struct atf_event ev[FX_MAX_EVENTS];
	struct fixture fx;
	size_t n = setup_thread(&fx, "+1 -", ev);

	(void)state;
	ev[0].function_id = ev[1].function_id = 1;
	fx_write_index(&fx, 0, ev, n, false);
	expect_violation(&fx, 2, "has a zero module id or symbol index");
}

static void test_check_detects_thread_dir_not_listed(void **state)
{
	struct fixture fx;

	(void)state;
	setup_thread(&fx, "", NULL);
	fx_thread(&fx, 0, "+1 -");
	fx_thread(&fx, 3, "+1 -");
	expect_violation(&fx, 1, "manifest.json: thread_3 is not listed in \"threads\"");
}

static void test_check_detects_listed_thread_without_dir(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx);
	fx_manifest(&fx, FX_THREAD0 ", {\"id\": 1, \"os_tid\": 5, \"has_detail\": false}", names, 3);
	fx_thread(&fx, 0, "+1 -");
	expect_violation(&fx, 1, "threads[1]: no directory thread_1");
}

static void test_check_detects_broken_detail_link(void **state)
{
	struct atf_event ev[FX_MAX_EVENTS];
	static const uint32_t seqs[] = { 2 };
	struct fixture fx;
	size_t n;

	(void)state;
	fx_init(&fx);
	fx_manifest(&fx, "{\"id\": 0, \"os_tid\": 1, \"has_detail\": true}", names, 3);
	n = fx_events("+1 +2 - -", 0, ev);
	ev[1].detail_seq = 0; /* but detail event 0 links index event 2 */
	fx_write_index(&fx, 0, ev, n, true);
	write_detail(&fx, 0, ev, seqs, 1);
	expect_violation(&fx, 2, "event 1: detail_seq 0 but no detail event links back to it");
}

static void test_check_detects_detail_type_mismatch(void **state)
{
	struct atf_event ev[FX_MAX_EVENTS];
	static const uint32_t seqs[] = { 1 };
	struct fixture fx;
	size_t n;

	(void)state;
	fx_init(&fx);
	fx_manifest(&fx, "{\"id\": 0, \"os_tid\": 1, \"has_detail\": true}", names, 3);
	n = fx_events("+1 +2 - -", 0, ev);
	ev[1].detail_seq = 0;
	fx_write_index(&fx, 0, ev, n, true);
	ev[1].kind = ATF_RETURN; /* the detail record says "return" */
	write_detail(&fx, 0, ev, seqs, 1);
	expect_violation(&fx, 1, "detail event 0 has event_type 4, expected 3");
}

static void test_check_detects_has_detail_that_lies(void **state)
{
	struct atf_event ev[FX_MAX_EVENTS];
	struct fixture fx;
	size_t n;

	(void)state;
	fx_init(&fx);
	fx_manifest(&fx, "{\"id\": 0, \"os_tid\": 1, \"has_detail\": true}", names, 3);
	n = fx_events("+1 -", 0, ev);
	fx_write_index(&fx, 0, ev, n, true);
	expect_violation(&fx, 2, "header has_detail flag is 1 but detail.atf does not exist");
}

static void test_check_reports_reader_failure_with_file_name(void **state)
{
	struct fixture fx;
	char path[300];
	FILE *f;

	(void)state;
	setup_thread(&fx, "", NULL);
	fx_thread(&fx, 0, "+1 -");
	snprintf(path, sizeof(path), "%s/thread_0/index.atf", fx.pid_dir);
	f = fopen(path, "r+");
	fseek(f, 64 + 3, SEEK_SET);
	fputc(0x55, f);
	fclose(f);
	expect_violation(&fx, 1, "thread_0/index.atf: footer CRC");
}

static void test_check_detects_bad_manifest_json(void **state)
{
	struct fixture fx;

	(void)state;
	setup_thread(&fx, "", NULL);
	fx_thread(&fx, 0, "+1 -");
	fx_write(&fx, "manifest.json", "{\"threads\": [}");
	expect_violation(&fx, 1, "manifest.json: byte 13: unexpected character '}'");
}

static void test_check_caps_lines_per_file(void **state)
{
	struct atf_event ev[FX_MAX_EVENTS];
	struct fixture fx;
	struct result r;
	size_t n = setup_thread(&fx, "+1 - +1 - +1 - +1 - +1 - +1 - +1 - +1 - +1 - +1 - +1 - +1 -",
				ev);

	(void)state;
	for (size_t i = 0; i < n; i++)
		ev[i].thread_id = 5;
	fx_write_index(&fx, 0, ev, n, false);
	r = check(fx.pid_dir);
	assert_int_equal(r.violations, 24);
	assert_non_null(strstr(r.text, "index.atf: ... 4 more\nchecked 2 files, 24 events: 24 violations\n"));
	free(r.text);
	fx_cleanup(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_passes_a_valid_trace_from_any_path_form),
		cmocka_unit_test(test_check_passes_linked_detail_file),
		cmocka_unit_test(test_check_passes_detail_with_fp_registers),
		cmocka_unit_test(test_check_detects_fp_registers_flag_without_their_bytes),
		cmocka_unit_test(test_check_detects_fp_registers_without_their_flag),
		cmocka_unit_test(test_check_detects_undefined_detail_flag),
		cmocka_unit_test(test_check_detects_frame_left_open),
		cmocka_unit_test(test_check_detects_wrong_call_depth),
		cmocka_unit_test(test_check_detects_return_of_another_function),
		cmocka_unit_test(test_check_detects_bad_kind_thread_and_time),
		cmocka_unit_test(test_check_detects_function_missing_from_symbols),
		cmocka_unit_test(test_check_detects_zero_function_id),
		cmocka_unit_test(test_check_detects_thread_dir_not_listed),
		cmocka_unit_test(test_check_detects_listed_thread_without_dir),
		cmocka_unit_test(test_check_detects_broken_detail_link),
		cmocka_unit_test(test_check_detects_detail_type_mismatch),
		cmocka_unit_test(test_check_detects_has_detail_that_lies),
		cmocka_unit_test(test_check_reports_reader_failure_with_file_name),
		cmocka_unit_test(test_check_detects_bad_manifest_json),
		cmocka_unit_test(test_check_caps_lines_per_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
