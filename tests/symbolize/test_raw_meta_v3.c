/* test_raw_meta_v3.c - what format version 3 added to process.meta: RING,
 * CRASH and RECOVERED records load into struct raw_process, THREAD_END
 * carries waits; version 2 files (80-byte THREAD_END, none of the new
 * records) still load; UNLOAD ends the load it names; a new record shorter than its struct, or a RING whose
 * path is unterminated or empty, is refused with one line naming the file,
 * the record's type, size and offset. PRODUCER (0.15.0) gives the runtime's
 * version, once. */
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

#include "raw.h"
#include "raw_fixture.h"

static struct rf_meta_dir md;
static struct rf_meta meta;
static struct raw_process proc;
static const char *captured;

/* A file of `version` with its PROCESS record and thread 0. */
static void start(uint32_t version)
{
	struct ada_meta_process p = { .pid = 4242, .ppid = 1 };
	struct ada_meta_thread t = { .ordinal = 0, .os_tid = 4242, .name = "prog" };

	rf_meta_header(&meta, ADA_META_MAGIC, version, 1);
	rf_meta_record(&meta, ADA_META_PROCESS, &p, sizeof(p), "/bin/prog", 10);
	rf_meta_record(&meta, ADA_META_THREAD, &t, sizeof(t), NULL, 0);
}

static int load(void)
{
	rf_write_file(md.path, meta.buf, meta.len);
	return rf_meta_load(md.dir, &proc, &captured);
}

/* The record appended last is refused: exactly the reader's one line. */
static void expect_last_refused(uint32_t type, size_t size, size_t at)
{
	char want[256];

	assert_int_equal(load(), -EINVAL);
	snprintf(want, sizeof(want),
		 "ada-symbolize: %s: corrupt record (type %u, %zu bytes) at offset %zu\n", md.path,
		 type, size, at);
	assert_string_equal(captured, want);
}

static int setup_group(void **state)
{
	(void)state;
	return rf_meta_dir_make(&md, "/tmp/ada_test_meta_v3_XXXXXX");
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

/* ---- THREAD_END and versions --------------------------------------------------- */

static const struct ada_meta_thread_end tend = {
	.ordinal = 0, .flags = ADA_TEND_EXITED, .end_tsc = 900, .events = 10,
	.dropped = { [ADA_DROP_RING_FULL] = 2 }, .waits = 7, .wait_ns = 123456789,
};

static void test_raw_meta_version_2_thread_end_has_no_waits(void **state)
{
	const struct raw_thread *t;

	(void)state;
	start(2);
	rf_meta_record(&meta, ADA_META_THREAD_END, &tend, offsetof(struct ada_meta_thread_end, waits),
		       NULL, 0);
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	assert_int_equal(proc.version, 2);
	t = raw_process_thread(&proc, 0);
	assert_true(t->ended);
	assert_false(t->has_waits);
	assert_int_equal(t->end.events, 10);
	assert_int_equal(t->end.dropped[ADA_DROP_RING_FULL], 2);
	assert_int_equal(t->end.waits, 0);
	assert_int_equal(t->end.wait_ns, 0);
}

static void test_raw_meta_version_3_thread_end_has_waits(void **state)
{
	const struct raw_thread *t;

	(void)state;
	start(3);
	rf_meta_record(&meta, ADA_META_THREAD_END, &tend, sizeof(tend), NULL, 0);
	assert_int_equal(load(), 0);
	assert_int_equal(proc.version, 3);
	t = raw_process_thread(&proc, 0);
	assert_true(t->has_waits);
	assert_int_equal(t->end.waits, 7);
	assert_int_equal(t->end.wait_ns, 123456789);
}

static void test_raw_meta_thread_end_shorter_than_version_2_is_refused(void **state)
{
	size_t at;

	(void)state;
	start(3);
	at = meta.len;
	rf_meta_record(&meta, ADA_META_THREAD_END, &tend, 72, NULL, 0);
	expect_last_refused(ADA_META_THREAD_END, 72, at);
}

static void test_raw_meta_version_1_is_refused_with_one_line(void **state)
{
	(void)state;
	start(1);
	assert_int_equal(load(), -EINVAL);
	assert_int_equal(count_lines(captured), 1);
	assert_non_null(strstr(captured, "raw format version 1 (endian 1)"));
}

/* ---- RING ------------------------------------------------------------------------ */

static void ring(uint32_t ordinal, const void *path, size_t len)
{
	struct ada_meta_ring r = { .ordinal = ordinal };

	rf_meta_record(&meta, ADA_META_RING, &r, sizeof(r), path, len);
}

static void test_raw_meta_rings_load_in_file_order(void **state)
{
	(void)state;
	start(3);
	ring(1, "/tmp/t/raw/thread_1.ring", 25);
	ring(0, "/dev/shm/ada-4242-0.ring\0future", 31); /* bytes after the NUL: skipped */
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	assert_int_equal(proc.nrings, 2);
	assert_int_equal(proc.rings[0].ordinal, 1);
	assert_string_equal(proc.rings[0].path, "/tmp/t/raw/thread_1.ring");
	assert_int_equal(proc.rings[1].ordinal, 0);
	assert_string_equal(proc.rings[1].path, "/dev/shm/ada-4242-0.ring");
}

static void test_raw_meta_ring_without_a_path_is_refused(void **state)
{
	size_t at;

	(void)state;
	start(3);
	at = meta.len;
	ring(0, NULL, 0);
	expect_last_refused(ADA_META_RING, 8, at);
	assert_int_equal(proc.nrings, 0);
}

static void test_raw_meta_ring_path_without_nul_is_refused(void **state)
{
	size_t at;

	(void)state;
	start(3);
	at = meta.len;
	ring(0, "/tmp/r.ring", 11); /* the zero padding does not terminate it */
	expect_last_refused(ADA_META_RING, 19, at);
}

static void test_raw_meta_ring_empty_path_is_refused(void **state)
{
	size_t at;

	(void)state;
	start(3);
	at = meta.len;
	ring(0, "\0/x", 4);
	expect_last_refused(ADA_META_RING, 12, at);
}

/* ---- CRASH ----------------------------------------------------------------------- */

static const struct ada_meta_crash segv = { .signo = 11, .code = 1, .ordinal = 0,
					    .os_tid = 4242, .addr = 0xdead0, .tsc = 5000 };

static void test_raw_meta_crash_loads_and_the_first_stands(void **state)
{
	struct ada_meta_crash abrt = { .signo = 6, .code = -6, .ordinal = 1, .tsc = 6000 };

	(void)state;
	start(3);
	rf_meta_record(&meta, ADA_META_CRASH, &segv, sizeof(segv), NULL, 0);
	rf_meta_record(&meta, ADA_META_CRASH, &abrt, sizeof(abrt), NULL, 0);
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	assert_true(proc.crashed);
	assert_int_equal(proc.crash.signo, 11);
	assert_int_equal(proc.crash.code, 1);
	assert_int_equal(proc.crash.ordinal, 0);
	assert_int_equal(proc.crash.os_tid, 4242);
	assert_int_equal(proc.crash.addr, 0xdead0);
	assert_int_equal(proc.crash.tsc, 5000);
}

static void test_raw_meta_crash_shorter_than_its_struct_is_refused(void **state)
{
	size_t at;

	(void)state;
	start(3);
	at = meta.len;
	rf_meta_record(&meta, ADA_META_CRASH, &segv, sizeof(segv) - 8, NULL, 0);
	expect_last_refused(ADA_META_CRASH, 24, at);
	assert_false(proc.crashed);
}

/* ---- RECOVERED ------------------------------------------------------------------- */

static void test_raw_meta_recovered_records_add_up_per_thread(void **state)
{
	struct ada_meta_recovered r1 = { .ordinal = 0, .events = 10, .lost = 3, .end_tsc = 700 };
	struct ada_meta_recovered r2 = { .ordinal = 0, .events = 5, .lost = 0, .end_tsc = 650 };
	struct ada_meta_recovered r3 = { .ordinal = 2, .events = 4, .lost = 1, .end_tsc = 90 };
	const struct raw_thread *t;

	(void)state;
	start(3);
	rf_meta_record(&meta, ADA_META_RECOVERED, &r1, sizeof(r1), NULL, 0);
	rf_meta_record(&meta, ADA_META_RECOVERED, &r2, sizeof(r2), NULL, 0);
	rf_meta_record(&meta, ADA_META_RECOVERED, &r3, sizeof(r3), NULL, 0);
	assert_int_equal(load(), 0);
	t = raw_process_thread(&proc, 0);
	assert_true(t->recovered);
	assert_int_equal(t->rec.events, 15);
	assert_int_equal(t->rec.lost, 3);
	assert_int_equal(t->rec.end_tsc, 700);
	t = raw_process_thread(&proc, 2); /* no THREAD record: an entry all the same */
	assert_non_null(t);
	assert_true(t->recovered);
	assert_int_equal(t->rec.events, 4);
	assert_int_equal(t->rec.lost, 1);
	assert_false(raw_process_thread(&proc, 1));
}

static void test_raw_meta_recovered_shorter_than_its_struct_is_refused(void **state)
{
	struct ada_meta_recovered r = { .ordinal = 0, .events = 10 };
	size_t at;

	(void)state;
	start(3);
	at = meta.len;
	rf_meta_record(&meta, ADA_META_RECOVERED, &r, 16, NULL, 0);
	expect_last_refused(ADA_META_RECOVERED, 16, at);
}

/* ---- UNLOAD ---------------------------------------------------------------------- */

static void module(uint32_t no, uint64_t bias, uint64_t load_tsc)
{
	struct ada_meta_module m = { .module_no = no, .bias = bias, .vaddr_hi = 0x4000,
				     .load_tsc = load_tsc };

	rf_meta_record(&meta, ADA_META_MODULE, &m, sizeof(m), "/lib/liba.so", 13);
}

static void unload(uint32_t no, uint64_t tsc)
{
	struct ada_meta_unload u = { .module_no = no, .unload_tsc = tsc };

	rf_meta_record(&meta, ADA_META_UNLOAD, &u, sizeof(u), NULL, 0);
}

/* The same file at the same address twice, a load each, the first ended. */
static void test_raw_meta_unload_ends_the_load_it_names(void **state)
{
	(void)state;
	start(3);
	module(0, 0x7f0000000000, 100);
	unload(0, 200);
	module(1, 0x7f0000000000, 300);
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	assert_int_equal(proc.nmodules, 2);
	assert_true(proc.modules[0].unloaded);
	assert_int_equal(proc.modules[0].unload_tsc, 200);
	assert_false(proc.modules[1].unloaded);
}

static void test_raw_meta_unload_of_no_recorded_module_is_refused(void **state)
{
	size_t at;

	(void)state;
	start(3);
	module(0, 0x7f0000000000, 100);
	at = meta.len;
	unload(1, 200);
	expect_last_refused(ADA_META_UNLOAD, 16, at);
}

static void test_raw_meta_unload_twice_is_refused(void **state)
{
	size_t at;

	(void)state;
	start(3);
	module(0, 0x7f0000000000, 100);
	unload(0, 200);
	at = meta.len;
	unload(0, 300);
	expect_last_refused(ADA_META_UNLOAD, 16, at);
}

/* ---- FILE: a module without a build-id ----------------------------------------------- */

static void file_record(uint32_t no)
{
	struct ada_meta_file f = { .module_no = no, .size = 4096, .mtime_ns = 1700000000123456789ull,
				   .ino = 42 };

	rf_meta_record(&meta, ADA_META_FILE, &f, sizeof(f), NULL, 0);
}

static void test_raw_meta_file_names_its_modules_file(void **state)
{
	(void)state;
	start(3);
	module(0, 0x7f0000000000, 100);
	module(1, 0x7f1000000000, 100);
	file_record(1);
	assert_int_equal(load(), 0);
	assert_string_equal(captured, "");
	assert_false(proc.modules[0].has_file);
	assert_true(proc.modules[1].has_file);
	assert_int_equal(proc.modules[1].file.size, 4096);
	assert_int_equal(proc.modules[1].file.mtime_ns, 1700000000123456789ull);
	assert_int_equal(proc.modules[1].file.ino, 42);
}

/* Of no module recorded, a second one, or of a module with a build-id. */
static void test_raw_meta_file_of_no_such_module_is_refused(void **state)
{
	struct ada_meta_module m = { .module_no = 1, .build_id_len = 1, .build_id = { 0xab },
				     .vaddr_hi = 0x4000 };
	size_t at;

	(void)state;
	start(3);
	module(0, 0x7f0000000000, 100);
	at = meta.len;
	file_record(2);
	expect_last_refused(ADA_META_FILE, 32, at);
	start(3);
	module(0, 0x7f0000000000, 100);
	file_record(0);
	at = meta.len;
	file_record(0);
	expect_last_refused(ADA_META_FILE, 32, at);
	start(3);
	rf_meta_record(&meta, ADA_META_MODULE, &m, sizeof(m), "/lib/libb.so", 13);
	at = meta.len;
	file_record(1);
	expect_last_refused(ADA_META_FILE, 32, at);
}

/* ---- where appending may start ----------------------------------------------------- */

static void test_raw_meta_end_is_after_the_last_whole_record(void **state)
{
	struct ada_meta_recovered r = { .ordinal = 0, .events = 10 };
	size_t whole;

	(void)state;
	start(3);
	whole = meta.len;
	rf_meta_record(&meta, ADA_META_RECOVERED, &r, sizeof(r), NULL, 0);
	meta.len -= 5; /* cut short by a crash */
	assert_int_equal(load(), 0);
	assert_true(proc.truncated);
	assert_int_equal(proc.meta_end, whole);
	assert_false(raw_process_thread(&proc, 0)->recovered);
}

/* ---- PRODUCER (0.15.0) ------------------------------------------------------------ */

static void test_raw_meta_producer_gives_the_runtime_version(void **state)
{
	(void)state;
	start(ADA_RAW_VERSION);
	rf_meta_record(&meta, ADA_META_PRODUCER, "0.15.0", 7, NULL, 0);
	assert_int_equal(load(), 0);
	assert_string_equal(proc.producer, "0.15.0");
}

static void test_raw_meta_without_producer_has_no_version(void **state)
{
	(void)state;
	start(ADA_RAW_VERSION);
	assert_int_equal(load(), 0);
	assert_null(proc.producer);
}

static void test_raw_meta_bad_producer_is_refused_with_one_line(void **state)
{
	char want[256];
	size_t at;

	(void)state;
	start(ADA_RAW_VERSION);
	at = meta.len;
	rf_meta_record(&meta, ADA_META_PRODUCER, "0.15.0", 6, NULL, 0); /* no NUL */
	assert_int_equal(load(), -EINVAL);
	snprintf(want, sizeof(want), "ada-symbolize: %s: corrupt record (type 19, 6 bytes) at offset "
		 "%zu: expected a version and its NUL\n", md.path, at);
	assert_string_equal(captured, want);
	raw_process_free(&proc);

	start(ADA_RAW_VERSION);
	rf_meta_record(&meta, ADA_META_PRODUCER, "0.15.0", 7, NULL, 0);
	at = meta.len;
	rf_meta_record(&meta, ADA_META_PRODUCER, "0.16.0", 7, NULL, 0);
	assert_int_equal(load(), -EINVAL);
	snprintf(want, sizeof(want), "ada-symbolize: %s: corrupt record (type 19, 7 bytes) at offset "
		 "%zu: a second PRODUCER record\n", md.path, at);
	assert_string_equal(captured, want);
}

#define T(name) cmocka_unit_test_teardown(name, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_raw_meta_version_2_thread_end_has_no_waits),
		T(test_raw_meta_version_3_thread_end_has_waits),
		T(test_raw_meta_thread_end_shorter_than_version_2_is_refused),
		T(test_raw_meta_version_1_is_refused_with_one_line),
		T(test_raw_meta_rings_load_in_file_order),
		T(test_raw_meta_ring_without_a_path_is_refused),
		T(test_raw_meta_ring_path_without_nul_is_refused),
		T(test_raw_meta_ring_empty_path_is_refused),
		T(test_raw_meta_crash_loads_and_the_first_stands),
		T(test_raw_meta_crash_shorter_than_its_struct_is_refused),
		T(test_raw_meta_recovered_records_add_up_per_thread),
		T(test_raw_meta_recovered_shorter_than_its_struct_is_refused),
		T(test_raw_meta_end_is_after_the_last_whole_record),
		T(test_raw_meta_unload_ends_the_load_it_names),
		T(test_raw_meta_unload_of_no_recorded_module_is_refused),
		T(test_raw_meta_unload_twice_is_refused),
		T(test_raw_meta_file_names_its_modules_file),
		T(test_raw_meta_file_of_no_such_module_is_refused),
		T(test_raw_meta_producer_gives_the_runtime_version),
		T(test_raw_meta_without_producer_has_no_version),
		T(test_raw_meta_bad_producer_is_refused_with_one_line),
	};

	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
