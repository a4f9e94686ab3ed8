/* test_raw_meta.c - loading raw/process.meta: every record type lands in
 * struct raw_process; a file cut short loads what precedes the cut; a file
 * that is not ours, or is damaged, is refused with one line naming it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/capture.h"
#include "raw.h"
#include "raw_fixture.h"

/* ---- a process.meta built by hand -------------------------------------------- */

static struct rf_meta_dir md;
static struct rf_meta meta;
static struct raw_process proc;

static void funcs(uint32_t first, uint32_t count, const uint64_t *addrs)
{
	struct ada_meta_funcs f = { first, count };

	rf_meta_record(&meta, ADA_META_FUNCS, &f, sizeof(f), addrs, count * sizeof(*addrs));
}

static void thread(uint32_t ordinal, uint32_t tid, const char *name)
{
	struct ada_meta_thread t = { .ordinal = ordinal, .os_tid = tid, .start_tsc = 1000 + ordinal };

	assert_true(strlen(name) < sizeof(t.name));
	memcpy(t.name, name, strlen(name));
	rf_meta_record(&meta, ADA_META_THREAD, &t, sizeof(t), NULL, 0);
}

static void hooked(uint64_t addr, const char *name)
{
	struct ada_meta_hooked h = { .addr = addr };

	rf_meta_record(&meta, ADA_META_HOOKED, &h, sizeof(h), name, strlen(name) + 1);
}

static const struct ada_meta_dynhook dyn_first = {
	.modules = 2, .slots = 40, .functions = 11, .excluded = 1, .untraceable = 3,
	.passes = 1, .startup_ns = 1234567, .total_ns = 1234567
};
static const struct ada_meta_dynhook dyn_last = {
	.modules = 3, .slots = 57, .functions = 19, .excluded = 2, .untraceable = 5,
	.passes = 2, .startup_ns = 1234567, .total_ns = 2000000999
};

static void expect_dynhook(const struct ada_meta_dynhook *d)
{
	assert_true(proc.has_dynhook);
	assert_int_equal(proc.dynhook.modules, d->modules);
	assert_int_equal(proc.dynhook.slots, d->slots);
	assert_int_equal(proc.dynhook.functions, d->functions);
	assert_int_equal(proc.dynhook.excluded, d->excluded);
	assert_int_equal(proc.dynhook.untraceable, d->untraceable);
	assert_int_equal(proc.dynhook.passes, d->passes);
	assert_int_equal(proc.dynhook.startup_ns, d->startup_ns);
	assert_int_equal(proc.dynhook.total_ns, d->total_ns);
}

static void process_record(void)
{
	static const char strings[] = "/usr/bin/prog\0prog\0-v\0two words\0";
	struct ada_meta_process p = { .pid = 4242, .ppid = 1, .parent_pid = 0,
				      .flags = ADA_PROC_TSC_INVARIANT, .start_tsc = 5000,
				      .start_boottime_ns = 7000000, .start_realtime_ns = 9000000,
				      .tsc_hz = 3000000000ull };

	rf_meta_record(&meta, ADA_META_PROCESS, &p, sizeof(p), strings, sizeof(strings) - 1);
}

/* Offsets where each record of full_meta() ends. */
enum { AT_PROCESS, AT_HOOKED2, AT_THREAD1, AT_THREAD_END, AT_END, NMARKS };
static size_t mark[NMARKS];

/* Every record type, in the order the runtime writes them. */
static void full_meta(void)
{
	static const uint64_t a1[] = { 0x401000, 0x401100, 0x401200 }, a2[] = { 0x7f0000001000,
										  0x7f0000002000 };
	struct ada_meta_clock c1 = { 5000, 7000000, 40 }, c2 = { 3005000, 8000000, 42 };
	struct ada_meta_module m = { .module_no = 0, .build_id_len = 4, .bias = 0x400000,
				     .vaddr_lo = 0x1000, .vaddr_hi = 0x3000, .load_tsc = 5001,
				     .build_id = { 0xde, 0xad, 0xbe, 0xef } };
	struct ada_meta_thread_end te = { .ordinal = 1, .flags = ADA_TEND_EXITED, .end_tsc = 9999,
					  .events = 12, .dropped = { [ADA_DROP_MAX_DEPTH] = 3 } };
	struct ada_meta_end end = { .end_tsc = 3005500, .end_boottime_ns = 8000100 };
	static const char path[] = "/usr/bin/prog";
	static const char config[] = "ring_kb=64\0max_depth=5\0";
	static const uint8_t future[5] = { 1, 2, 3, 4, 5 };

	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	mark[AT_PROCESS] = meta.len;
	rf_meta_record(&meta, ADA_META_CLOCK, &c2, sizeof(c2), NULL, 0);
	rf_meta_record(&meta, ADA_META_CLOCK, &c1, sizeof(c1), NULL, 0);
	rf_meta_record(&meta, ADA_META_MODULE, &m, sizeof(m), path, sizeof(path));
	funcs(1, 3, a1);
	hooked(0x7f0000002000, "strlen"); /* not in address order */
	hooked(0x7f0000001000, "malloc");
	mark[AT_HOOKED2] = meta.len;
	hooked(0x7f0000002000, "__strlen_avx2"); /* the address again: the first name stands */
	rf_meta_record(&meta, 99, future, sizeof(future), NULL, 0); /* a newer writer's record */
	funcs(4, 2, a2);
	rf_meta_record(&meta, ADA_META_DYNHOOK, &dyn_first, sizeof(dyn_first), NULL, 0);
	thread(1, 4301, "worker");
	mark[AT_THREAD1] = meta.len;
	thread(0, 4242, "prog");
	rf_meta_record(&meta, ADA_META_THREAD_END, &te, sizeof(te), NULL, 0);
	mark[AT_THREAD_END] = meta.len;
	rf_meta_record(&meta, ADA_META_CONFIG, config, sizeof(config) - 1, NULL, 0);
	rf_meta_record(&meta, ADA_META_DYNHOOK, &dyn_last, sizeof(dyn_last), NULL, 0); /* after a dlopen */
	rf_meta_record(&meta, ADA_META_END, &end, sizeof(end), NULL, 0);
	mark[AT_END] = meta.len;
}

static void save(size_t len)
{
	rf_write_file(md.path, meta.buf, len);
}

/* What the last load() wrote to stderr. */
static const char *captured;

/* Loads what was saved; returns raw_process_load's result, stderr in `captured`. */
static int load(void)
{
	return rf_meta_load(md.dir, &proc, &captured);
}

static void expect_refused(int want_err)
{
	assert_int_equal(load(), want_err);
	assert_int_equal(count_lines(captured), 1);
	assert_non_null(strstr(captured, md.path));
	assert_null(proc.fid_addr); /* nothing kept */
	assert_int_equal(proc.nthreads, 0);
}

static int setup_group(void **state)
{
	(void)state;
	return rf_meta_dir_make(&md, "/tmp/ada_test_raw_meta_XXXXXX");
}

static int teardown_group(void **state)
{
	(void)state;
	rf_meta_dir_remove(&md);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	raw_process_free(&proc);
	return 0;
}

/* ---- a whole file ---------------------------------------------------------------- */

static void test_raw_meta_loads_every_record(void **state)
{
	const struct raw_thread *t;

	(void)state;
	full_meta();
	save(meta.len);
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	assert_string_equal(proc.dir, md.dir);
	assert_int_equal(proc.arch, ADA_ARCH_X86_64);
	assert_false(proc.truncated);

	assert_int_equal(proc.proc.pid, 4242);
	assert_int_equal(proc.proc.ppid, 1);
	assert_int_equal(proc.proc.flags, ADA_PROC_TSC_INVARIANT);
	assert_int_equal(proc.proc.start_tsc, 5000);
	assert_int_equal(proc.proc.start_boottime_ns, 7000000);
	assert_int_equal(proc.proc.start_realtime_ns, 9000000);
	assert_int_equal(proc.proc.tsc_hz, 3000000000ull);
	assert_string_equal(proc.exe, "/usr/bin/prog");
	/* An argument with a space reads as one: quoted as a shell would. */
	assert_string_equal(proc.cmdline, "prog -v 'two words'");

	assert_int_equal(proc.nclocks, 2); /* in file order; clock_map sorts them */
	assert_int_equal(proc.clocks[0].tsc, 3005000);
	assert_int_equal(proc.clocks[1].boottime_ns, 7000000);
	assert_int_equal(proc.clocks[1].window, 40);

	assert_int_equal(proc.nmodules, 1);
	assert_string_equal(proc.modules[0].path, "/usr/bin/prog");
	assert_int_equal(proc.modules[0].m.bias, 0x400000);
	assert_int_equal(proc.modules[0].m.vaddr_lo, 0x1000);
	assert_int_equal(proc.modules[0].m.vaddr_hi, 0x3000);
	assert_int_equal(proc.modules[0].m.load_tsc, 5001);
	assert_int_equal(proc.modules[0].m.build_id_len, 4);
	assert_int_equal(proc.modules[0].m.build_id[3], 0xef);

	assert_int_equal(proc.nfids, 5);
	assert_int_equal(proc.fid_addr[1], 0x401000);
	assert_int_equal(proc.fid_addr[2], 0x401100);
	assert_int_equal(proc.fid_addr[3], 0x401200);
	assert_int_equal(proc.fid_addr[4], 0x7f0000001000);
	assert_int_equal(proc.fid_addr[5], 0x7f0000002000);

	assert_int_equal(proc.nthreads, 2); /* sorted by ordinal */
	assert_int_equal(proc.threads[0].t.ordinal, 0);
	assert_string_equal(proc.threads[0].t.name, "prog");
	assert_false(proc.threads[0].ended);
	t = raw_process_thread(&proc, 1);
	assert_ptr_equal(t, &proc.threads[1]);
	assert_int_equal(t->t.os_tid, 4301);
	assert_int_equal(t->t.start_tsc, 1001);
	assert_string_equal(t->t.name, "worker");
	assert_true(t->ended);
	assert_int_equal(t->end.flags, ADA_TEND_EXITED);
	assert_int_equal(t->end.end_tsc, 9999);
	assert_int_equal(t->end.events, 12);
	assert_int_equal(t->end.dropped[ADA_DROP_MAX_DEPTH], 3);
	assert_null(raw_process_thread(&proc, 2));

	assert_string_equal(proc.config, "ring_kb=64 max_depth=5");
	assert_true(proc.clean_end);
	assert_int_equal(proc.end.end_tsc, 3005500);
	assert_int_equal(proc.end.end_boottime_ns, 8000100);

	assert_int_equal(proc.nhooked, 2); /* sorted by address, one per address */
	assert_int_equal(proc.hooked[0].addr, 0x7f0000001000);
	assert_string_equal(proc.hooked[0].name, "malloc");
	assert_int_equal(proc.hooked[1].addr, 0x7f0000002000);
	assert_string_equal(proc.hooked[1].name, "strlen");
	assert_string_equal(raw_process_hooked_name(&proc, 0x7f0000001000), "malloc");
	assert_string_equal(raw_process_hooked_name(&proc, 0x7f0000002000), "strlen");
	assert_null(raw_process_hooked_name(&proc, 0x7f0000001001));
	assert_null(raw_process_hooked_name(&proc, 0x7f0000000fff));
	assert_null(raw_process_hooked_name(&proc, 0));
	assert_null(raw_process_hooked_name(&proc, UINT64_MAX));
	expect_dynhook(&dyn_last); /* the last record holds */
}

static void test_raw_meta_process_without_command_line(void **state)
{
	struct ada_meta_process p = { .pid = 7 };

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	rf_meta_record(&meta, ADA_META_PROCESS, &p, sizeof(p), NULL, 0);
	thread(0, 7, "prog");
	save(meta.len);
	assert_int_equal(load(), 0);
	assert_string_equal(proc.exe, "");
	assert_null(proc.cmdline);
	assert_int_equal(proc.nfids, 0);
	assert_false(proc.clean_end);
	assert_int_equal(proc.nhooked, 0);
	assert_null(raw_process_hooked_name(&proc, 0x401000));
	assert_false(proc.has_dynhook);
}

static void test_raw_meta_process_with_no_thread_loads(void **state)
{
	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	save(meta.len);
	assert_int_equal(load(), 0);
	assert_int_equal(proc.nthreads, 0);
	assert_null(raw_process_thread(&proc, 0));
}

/* ---- a file cut short by a crash ----------------------------------------------------- */

static void test_raw_meta_record_cut_short_loads_what_precedes(void **state)
{
	(void)state;
	full_meta();
	save(mark[AT_END] - 4); /* inside END's payload */
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	assert_true(proc.truncated);
	assert_false(proc.clean_end);
	assert_int_equal(proc.nfids, 5);
	assert_int_equal(proc.nthreads, 2);
	assert_string_equal(proc.config, "ring_kb=64 max_depth=5");
}

static void test_raw_meta_record_header_cut_short_loads_what_precedes(void **state)
{
	(void)state;
	full_meta();
	save(mark[AT_THREAD1] + 5); /* inside the second THREAD's record header */
	assert_int_equal(load(), 0);
	assert_true(proc.truncated);
	assert_int_equal(proc.nfids, 5);
	assert_int_equal(proc.nthreads, 1);
	assert_int_equal(proc.threads[0].t.ordinal, 1);
	assert_false(proc.threads[0].ended);
	assert_null(proc.config);
}

static void test_raw_meta_cut_at_a_record_boundary_is_not_truncated(void **state)
{
	(void)state;
	full_meta();
	save(mark[AT_THREAD_END]);
	assert_int_equal(load(), 0);
	assert_false(proc.truncated);
	assert_int_equal(proc.nthreads, 2);
	assert_true(proc.threads[1].ended);
	assert_false(proc.clean_end);
	expect_dynhook(&dyn_first); /* the later one was never written */
}

static void test_raw_meta_hooked_cut_short_in_its_name_loads_what_precedes(void **state)
{
	(void)state;
	full_meta();
	save(mark[AT_HOOKED2] - 6); /* inside malloc's name: 16 + "ma" of 16 + "malloc\0" */
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	assert_true(proc.truncated);
	assert_int_equal(proc.nfids, 3);
	assert_int_equal(proc.nhooked, 1);
	assert_int_equal(proc.hooked[0].addr, 0x7f0000002000);
	assert_string_equal(proc.hooked[0].name, "strlen");
	assert_null(raw_process_hooked_name(&proc, 0x7f0000001000));
	assert_false(proc.has_dynhook);
}

static void test_raw_meta_cut_before_the_process_record_is_refused(void **state)
{
	(void)state;
	full_meta();
	save(mark[AT_PROCESS] - 8);
	expect_refused(-EINVAL);
}

/* ---- refused files ----------------------------------------------------------------- */

static void test_raw_meta_bad_magic_is_refused_with_one_line(void **state)
{
	(void)state;
	full_meta();
	memcpy(meta.buf, "ADAMETA2", 8);
	save(meta.len);
	expect_refused(-EINVAL);
	assert_non_null(strstr(captured, "bad magic"));
}

static void test_raw_meta_wrong_version_is_refused_with_one_line(void **state)
{
	(void)state;
	full_meta();
	meta.buf[offsetof(struct ada_meta_file_header, version)] = ADA_RAW_VERSION + 1;
	save(meta.len);
	expect_refused(-EINVAL);
	assert_non_null(strstr(captured, "reads versions 2 to 7"));
}

static void test_raw_meta_big_endian_file_is_refused_with_one_line(void **state)
{
	(void)state;
	full_meta();
	meta.buf[offsetof(struct ada_meta_file_header, endian)] = 2;
	save(meta.len);
	expect_refused(-EINVAL);
}

static void test_raw_meta_file_shorter_than_its_header_is_refused_with_one_line(void **state)
{
	(void)state;
	full_meta();
	save(10);
	expect_refused(-EINVAL);
}

static void test_raw_meta_missing_file_is_refused_with_one_line(void **state)
{
	(void)state;
	unlink(md.path);
	expect_refused(-ENOENT);
}

static void test_raw_meta_funcs_with_a_gap_in_fids_is_refused(void **state)
{
	static const uint64_t a1[] = { 0x401000, 0x401100, 0x401200 }, a2[] = { 0x402000 };

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	funcs(1, 3, a1);
	funcs(5, 1, a2); /* fid 4 never assigned */
	save(meta.len);
	expect_refused(-EINVAL);
	assert_non_null(strstr(captured, "corrupt record (type 4"));
}

static void test_raw_meta_funcs_not_starting_at_fid_1_is_refused(void **state)
{
	static const uint64_t a[] = { 0x401000 };

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	funcs(2, 1, a);
	save(meta.len);
	expect_refused(-EINVAL);
}

static void test_raw_meta_funcs_with_fewer_addresses_than_counted_is_refused(void **state)
{
	static const uint64_t a[] = { 0x401000, 0x401100 };
	struct ada_meta_funcs f = { 1, 3 };

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	rf_meta_record(&meta, ADA_META_FUNCS, &f, sizeof(f), a, sizeof(a));
	save(meta.len);
	expect_refused(-EINVAL);
}

static void test_raw_meta_record_smaller_than_its_struct_is_refused(void **state)
{
	struct ada_meta_clock c = { 1, 2, 3 };

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	rf_meta_record(&meta, ADA_META_CLOCK, &c, sizeof(c) - 8, NULL, 0);
	save(meta.len);
	expect_refused(-EINVAL);
}

/* One HOOKED record with `len` name bytes (no NUL added), after PROCESS;
 * expects it refused with the reader's one line, exactly. */
static void expect_hooked_refused(const char *name, size_t len)
{
	struct ada_meta_hooked h = { .addr = 0x7f0000001000 };
	char want[256];
	size_t at;

	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	at = meta.len;
	rf_meta_record(&meta, ADA_META_HOOKED, &h, sizeof(h), name, len);
	save(meta.len);
	expect_refused(-EINVAL);
	snprintf(want, sizeof(want), "ada-symbolize: %s: corrupt record (type 10, %zu bytes) at offset %zu\n",
		 md.path, sizeof(h) + len, at);
	assert_string_equal(captured, want);
	assert_int_equal(proc.nhooked, 0);
}

static void test_raw_meta_hooked_name_without_nul_is_refused(void **state)
{
	(void)state;
	/* The padding after the payload is zero: the NUL must be in the payload. */
	expect_hooked_refused("strlen", 6);
}

static void test_raw_meta_hooked_empty_name_is_refused(void **state)
{
	(void)state;
	expect_hooked_refused("", 1);
	expect_hooked_refused("\0abc", 5);
}

static void test_raw_meta_hooked_without_a_name_is_refused(void **state)
{
	(void)state;
	expect_hooked_refused(NULL, 0);
}

static void test_raw_meta_hooked_shorter_than_its_struct_is_refused(void **state)
{
	uint64_t addr = 0x7f0000001000;

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	rf_meta_record(&meta, ADA_META_HOOKED, &addr, sizeof(addr), NULL, 0);
	save(meta.len);
	expect_refused(-EINVAL);
	assert_non_null(strstr(captured, "corrupt record (type 10, 8 bytes)"));
}

static void test_raw_meta_hooked_bytes_after_the_name_are_skipped(void **state)
{
	struct ada_meta_hooked h = { .addr = 0x7f0000003000 };

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	rf_meta_record(&meta, ADA_META_HOOKED, &h, sizeof(h), "free\0xyz", 8); /* a newer writer's field */
	save(meta.len);
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	assert_int_equal(proc.nhooked, 1);
	assert_string_equal(raw_process_hooked_name(&proc, 0x7f0000003000), "free");
}

static void test_raw_meta_dynhook_shorter_than_its_struct_is_refused(void **state)
{
	char want[256];
	size_t at;

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	at = meta.len;
	rf_meta_record(&meta, ADA_META_DYNHOOK, &dyn_last, sizeof(dyn_last) - 8, NULL, 0);
	save(meta.len);
	expect_refused(-EINVAL);
	snprintf(want, sizeof(want), "ada-symbolize: %s: corrupt record (type 11, 32 bytes) at offset %zu\n",
		 md.path, at);
	assert_string_equal(captured, want);
}

static void test_raw_meta_dynhook_longer_than_its_struct_loads_what_it_knows(void **state)
{
	static const uint8_t more[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	rf_meta_record(&meta, ADA_META_DYNHOOK, &dyn_last, sizeof(dyn_last), more, sizeof(more));
	save(meta.len);
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	expect_dynhook(&dyn_last);
}

static void test_raw_meta_dynhook_cut_short_keeps_the_one_before(void **state)
{
	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	rf_meta_record(&meta, ADA_META_DYNHOOK, &dyn_first, sizeof(dyn_first), NULL, 0);
	rf_meta_record(&meta, ADA_META_DYNHOOK, &dyn_last, sizeof(dyn_last), NULL, 0);
	save(meta.len - 1);
	assert_int_equal(load(), 0);
	assert_true(proc.truncated);
	expect_dynhook(&dyn_first);
}

static void test_raw_meta_thread_end_of_a_thread_that_recorded_nothing_loads(void **state)
{
	struct ada_meta_thread_end te = { .ordinal = 3, .flags = ADA_TEND_FINAL,
					  .dropped = { [ADA_DROP_UNMATCHED] = 1 } };
	const struct raw_thread *t;

	(void)state;
	rf_meta_header(&meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	process_record();
	thread(0, 4242, "prog");
	rf_meta_record(&meta, ADA_META_THREAD_END, &te, sizeof(te), NULL, 0);
	save(meta.len);
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	t = raw_process_thread(&proc, 3);
	assert_non_null(t);
	assert_true(t->ended);
	assert_int_equal(t->end.dropped[ADA_DROP_UNMATCHED], 1);
}

#define T(name) cmocka_unit_test_teardown(name, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_raw_meta_loads_every_record),
		T(test_raw_meta_process_without_command_line),
		T(test_raw_meta_process_with_no_thread_loads),
		T(test_raw_meta_record_cut_short_loads_what_precedes),
		T(test_raw_meta_record_header_cut_short_loads_what_precedes),
		T(test_raw_meta_cut_at_a_record_boundary_is_not_truncated),
		T(test_raw_meta_cut_before_the_process_record_is_refused),
		T(test_raw_meta_bad_magic_is_refused_with_one_line),
		T(test_raw_meta_wrong_version_is_refused_with_one_line),
		T(test_raw_meta_big_endian_file_is_refused_with_one_line),
		T(test_raw_meta_file_shorter_than_its_header_is_refused_with_one_line),
		T(test_raw_meta_missing_file_is_refused_with_one_line),
		T(test_raw_meta_funcs_with_a_gap_in_fids_is_refused),
		T(test_raw_meta_funcs_not_starting_at_fid_1_is_refused),
		T(test_raw_meta_funcs_with_fewer_addresses_than_counted_is_refused),
		T(test_raw_meta_record_smaller_than_its_struct_is_refused),
		T(test_raw_meta_thread_end_of_a_thread_that_recorded_nothing_loads),
		T(test_raw_meta_hooked_cut_short_in_its_name_loads_what_precedes),
		T(test_raw_meta_hooked_name_without_nul_is_refused),
		T(test_raw_meta_hooked_empty_name_is_refused),
		T(test_raw_meta_hooked_without_a_name_is_refused),
		T(test_raw_meta_hooked_shorter_than_its_struct_is_refused),
		T(test_raw_meta_hooked_bytes_after_the_name_are_skipped),
		T(test_raw_meta_dynhook_shorter_than_its_struct_is_refused),
		T(test_raw_meta_dynhook_longer_than_its_struct_loads_what_it_knows),
		T(test_raw_meta_dynhook_cut_short_keeps_the_one_before),
	};

	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
