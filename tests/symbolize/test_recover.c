/* test_recover.c - ring files left by a process that did not end cleanly are
 * folded into its thread files before conversion (RAW_FORMAT.md §6): the
 * ATF holds exactly the events the thread file had and then the ring's
 * newer ones, new functions get fids in a FUNCS record, what the thread
 * overwrote is counted as lost, a RECOVERED record is written and the ring
 * file removed, so a second run changes nothing. A ring whose header is
 * wrong is named and left in place; a process still running (its rings
 * mapped) is not touched.
 *
 * Ring files are written here from struct ada_ring_header and 16-byte
 * slots, thread files with the runtime's encoder (raw_fixture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "atf.h"
#include "convert.h"
#include "json.h"
#include "raw_fixture.h"

#define PID 4343u
#define TID 4344u
#define RING_DETAIL (1ull << 61)

enum { FA = 0x401000, FB = 0x402000, FC = 0x403000 }; /* symbols 1, 2, 3 */
static const uint64_t known[] = { FA, FB };             /* fids 1, 2 in FUNCS */

/* What thread 0 recorded, by ring position. */
static const struct {
	uint64_t tsc;
	unsigned kind;
	uint64_t addr;
} script[] = {
	{ 100, ADA_RAW_CALL, FA }, { 110, ADA_RAW_CALL, FB }, { 120, ADA_RAW_RETURN, FB },
	{ 130, ADA_RAW_CALL, FC }, { 140, ADA_RAW_RETURN, FC }, { 150, ADA_RAW_CALL, FB },
	{ 160, ADA_RAW_RETURN, FB },
};
#define NSCRIPT (sizeof(script) / sizeof(script[0]))

struct world {
	struct rf_trace t;
	char ring[256];
	char thread0[256];
	struct rf_meta meta;
	uint64_t dropped[ADA_DROP_NREASONS]; /* the ring header's */
};

static struct world *w;

static void world_make(uint32_t pid)
{
	w = calloc(1, sizeof(*w));
	assert_non_null(w);
	rf_trace_make(&w->t, "/tmp/ada_test_recover_XXXXXX", pid);
	snprintf(w->ring, sizeof(w->ring), "%s/thread_0.ring", w->t.raw);
	snprintf(w->thread0, sizeof(w->thread0), "%s/thread_0.lz4", w->t.raw);
}

static int setup(void **state)
{
	(void)state;
	world_make(PID);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rf_remove_tree(w->t.root);
	free(w);
	return 0;
}

/* ---- the raw trace -------------------------------------------------------------- */

/* process.meta of a process that was killed: no END; thread 0's THREAD
 * record only if `registered`. */
static void write_meta(uint32_t pid, bool registered)
{
	struct ada_meta_funcs fs = { 1, 2 };
	struct ada_meta_thread t0 = { .ordinal = 0, .os_tid = TID, .start_tsc = 90, .name = "prog" };
	struct ada_meta_ring r = { .ordinal = 0 };

	rf_meta_begin(&w->meta, pid);
	rf_meta_record(&w->meta, ADA_META_FUNCS, &fs, sizeof(fs), known, sizeof(known));
	if (registered)
		rf_meta_record(&w->meta, ADA_META_THREAD, &t0, sizeof(t0), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_RING, &r, sizeof(r), w->ring, strlen(w->ring) + 1);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
}

/* thread_0.lz4: one frame per [ends[i-1], ends[i]) of the script, the first
 * with a LOST note of `max_depth` events. Returns the first frame's size. */
static size_t write_thread(const size_t *ends, size_t nframes, uint64_t max_depth)
{
	size_t first = 0;
	struct ada_enc_stream enc = { 0 };
	struct ada_fdict dict;
	struct rf_frame *f = calloc(1, sizeof(*f));
	size_t i = 0;

	assert_non_null(f);
	rf_fdict_init(&dict, known, 2);
	for (size_t k = 0; k < nframes; k++) {
		rf_sync(f, &enc, script[i].tsc);
		if (!k && max_depth) {
			uint8_t lost[ADA_ENC_LOST_MAX];

			rf_put(f, lost, ada_encode_lost(ADA_DROP_MAX_DEPTH, max_depth, lost));
		}
		for (; i < ends[k]; i++)
			rf_event(f, &enc, &dict, script[i].tsc, script[i].kind, script[i].addr);
		if (!k)
			first = rf_append(w->thread0, f);
		else
			rf_append(w->thread0, f);
	}
	ada_enc_stream_free(&enc);
	ada_fdict_free(&dict);
	free(f);
	return first;
}

/* The ring after the thread wrote positions [0, head) into `slots` slots:
 * each slot holds the newest position that maps to it. Position 3 says a
 * detail went with it, which recovery ignores. */
static void write_ring(uint64_t slots, uint64_t head)
{
	size_t size = ADA_RING_SLOTS_OFFSET + 16 * slots;
	uint8_t *file = calloc(1, size);
	struct ada_ring_header h = { .version = ADA_RING_VERSION, .ordinal = 0, .os_tid = TID,
				     .pid = PID, .slots = slots, .start_tsc = 90, .base = 0,
				     .head = head, .tail = head };
	struct ada_slot *slot = (struct ada_slot *)(file + ADA_RING_SLOTS_OFFSET);

	assert_non_null(file);
	memcpy(h.magic, ADA_RING_MAGIC, 8);
	memcpy(h.dropped, w->dropped, sizeof(h.dropped));
	memcpy(file, &h, sizeof(h));
	for (uint64_t p = head > slots ? head - slots : 0; p < head; p++) {
		slot[p & (slots - 1)].tsc = script[p].tsc;
		slot[p & (slots - 1)].word = script[p].addr | (uint64_t)script[p].kind << 62 |
					     (p == 3 ? RING_DETAIL : 0);
	}
	rf_write_file(w->ring, file, size);
	free(file);
}

/* ---- converting and reading back --------------------------------------------------- */

struct run {
	int ret;
	char text[4096]; /* what it wrote to fd */
};

/* Converts, capturing one descriptor: STDOUT_FILENO the summary, or
 * STDERR_FILENO the messages. */
static void convert_fd(struct run *r, int fd)
{
	const struct conv_options loud = { .quiet = false };

	capture_fd_begin(fd);
	r->ret = convert_process(w->t.pid_dir, w->t.pid_dir, &loud);
	snprintf(r->text, sizeof(r->text), "%s", capture_end());
}
#define convert(r) convert_fd((r), STDOUT_FILENO)
#define convert_err(r) convert_fd((r), STDERR_FILENO)

static void expect_ring_gone(void)
{
	assert_int_equal(access(w->ring, F_OK), -1);
	assert_int_equal(errno, ENOENT);
}

/* process.meta now says: these functions, this RECOVERED record. */
static void expect_meta(size_t nfids, uint64_t events, uint64_t lost, uint64_t end_tsc)
{
	struct raw_process p;
	const struct raw_thread *t;

	assert_int_equal(raw_process_load(w->t.raw, &p), 0);
	assert_int_equal(p.nfids, nfids);
	assert_int_equal(p.fid_addr[1], FA);
	assert_int_equal(p.fid_addr[2], FB);
	if (nfids > 2)
		assert_int_equal(p.fid_addr[3], FC);
	t = raw_process_thread(&p, 0);
	assert_non_null(t);
	assert_true(t->registered);
	assert_int_equal(t->t.os_tid, TID);
	assert_true(t->recovered);
	assert_int_equal(t->rec.events, events);
	assert_int_equal(t->rec.lost, lost);
	assert_int_equal(t->rec.end_tsc, end_tsc);
	raw_process_free(&p);
}

/* The manifest's thread 0: its "recovered" and "dropped" entries. */
static void expect_manifest(uint64_t events, uint64_t lost, uint64_t ring_full,
			    uint64_t max_depth)
{
	char path[300], err[256];
	struct json_doc *doc;
	const struct json_value *t, *v;
	uint64_t n;

	snprintf(path, sizeof(path), "%s/manifest.json", w->t.pid_dir);
	assert_int_equal(json_parse_file(path, &doc, err, sizeof(err)), 0);
	t = json_at(json_get(json_root(doc), "threads"), 0);
	v = json_get(t, "recovered");
	assert_true(json_u64(json_get(v, "events"), &n) && n == events);
	assert_true(json_u64(json_get(v, "lost"), &n) && n == lost);
	v = json_get(t, "dropped");
	assert_true(json_u64(json_get(v, "ring_full"), &n) && n == ring_full);
	assert_true(json_u64(json_get(v, "max_depth"), &n) && n == max_depth);
	assert_string_equal(json_string(json_get(t, "end")), "killed"); /* no END, no CRASH */
	assert_true(json_u64(json_get(t, "open_at_end"), &n) && n == 1);
	json_free(doc);
}

/* The whole script, FA left open and closed at the last event. */
static const struct rf_want all_events[] = {
	{ ATF_CALL, 100, 1, 1 },   { ATF_CALL, 110, 2, 2 },   { ATF_RETURN, 120, 2, 2 },
	{ ATF_CALL, 130, 3, 2 },   { ATF_RETURN, 140, 3, 2 }, { ATF_CALL, 150, 2, 2 },
	{ ATF_RETURN, 160, 2, 2 }, { ATF_EXCEPTION, 160, 1, 1 },
};
#define NALL (sizeof(all_events) / sizeof(all_events[0]))

/* ---- tests ---------------------------------------------------------------------------- */

static void test_recover_appends_the_events_after_the_thread_file(void **state)
{
	const size_t ends[] = { 2, 3 };
	struct run r;

	(void)state;
	write_meta(PID, true);
	write_thread(ends, 2, 0);
	write_ring(16, NSCRIPT);
	convert(&r);
	assert_int_equal(r.ret, 0);
	assert_non_null(strstr(r.text, "pid 4343: recovered 4 events from 1 ring file (0 lost)\n"));
	rf_expect_index(w->t.pid_dir, 0, all_events, NALL);
	expect_ring_gone();
	expect_meta(3, 4, 0, 160);
	expect_manifest(4, 0, 0, 0);
	rf_expect_valid(w->t.pid_dir);
}

static void test_recover_a_second_run_changes_nothing(void **state)
{
	const size_t ends[] = { 3 };
	uint8_t *meta1, *thread1, *meta2, *thread2;
	size_t mlen1, tlen1, mlen2, tlen2;
	struct run r;

	(void)state;
	write_meta(PID, true);
	write_thread(ends, 1, 0);
	write_ring(16, NSCRIPT);
	convert(&r);
	assert_int_equal(r.ret, 0);
	meta1 = rf_read_file(w->t.meta, &mlen1);
	thread1 = rf_read_file(w->thread0, &tlen1);
	convert(&r);
	assert_int_equal(r.ret, 0);
	assert_null(strstr(r.text, "recovered"));
	meta2 = rf_read_file(w->t.meta, &mlen2);
	thread2 = rf_read_file(w->thread0, &tlen2);
	assert_int_equal(mlen2, mlen1);
	assert_memory_equal(meta2, meta1, mlen1);
	assert_int_equal(tlen2, tlen1);
	assert_memory_equal(thread2, thread1, tlen1);
	rf_expect_index(w->t.pid_dir, 0, all_events, NALL);
	free(meta1), free(thread1), free(meta2), free(thread2);
}

/* The file holds position 0; a 4-slot ring at head 7 holds 3..6: positions
 * 1 and 2 were taken by the writer and overwritten since. The header's
 * drops beyond the stream's LOST notes are added. */
static void test_recover_counts_what_the_thread_overwrote_as_lost(void **state)
{
	static const struct rf_want want[] = {
		{ ATF_CALL, 100, 1, 1 },   { ATF_CALL, 130, 3, 2 },   { ATF_RETURN, 140, 3, 2 },
		{ ATF_CALL, 150, 2, 2 },   { ATF_RETURN, 160, 2, 2 }, { ATF_EXCEPTION, 160, 1, 1 },
	};
	const size_t ends[] = { 1 };
	struct run r;

	(void)state;
	write_meta(PID, true);
	write_thread(ends, 1, 1);              /* the stream says max_depth 1 */
	w->dropped[ADA_DROP_MAX_DEPTH] = 3;    /* the thread counted 3 */
	w->dropped[ADA_DROP_RING_FULL] = 5;
	write_ring(4, NSCRIPT);
	convert(&r);
	assert_int_equal(r.ret, 0);
	assert_non_null(strstr(r.text, "pid 4343: recovered 4 events from 1 ring file (2 lost)\n"));
	rf_expect_index(w->t.pid_dir, 0, want, sizeof(want) / sizeof(want[0]));
	expect_ring_gone();
	expect_meta(3, 4, 2, 160);
	expect_manifest(4, 2, 5 + 2, 3);
	rf_expect_valid(w->t.pid_dir);
}

/* A thread that died before its first frame and its THREAD record reached
 * the files: both are made from the ring. */
static void test_recover_makes_the_thread_file_and_record_from_the_ring(void **state)
{
	struct run r;

	(void)state;
	write_meta(PID, false);
	write_ring(16, NSCRIPT);
	convert(&r);
	assert_int_equal(r.ret, 0);
	assert_non_null(strstr(r.text, "pid 4343: recovered 7 events from 1 ring file (0 lost)\n"));
	rf_expect_index(w->t.pid_dir, 0, all_events, NALL);
	expect_ring_gone();
	expect_meta(3, 7, 0, 160);
	rf_expect_valid(w->t.pid_dir);
}

/* The last frame was cut short by the kill: the recovered frame replaces
 * what is left of it, and starts where the last whole frame ended. */
static void test_recover_starts_after_the_last_whole_frame_of_a_cut_file(void **state)
{
	const size_t ends[] = { 2, 5 }; /* the second frame: positions 2..4 */
	struct run r;

	(void)state;
	write_meta(PID, true);
	assert_int_equal(truncate(w->thread0, (off_t)write_thread(ends, 2, 0) + 9), 0);
	write_ring(16, NSCRIPT);
	convert(&r);
	assert_int_equal(r.ret, 0);
	assert_non_null(strstr(r.text, "pid 4343: recovered 5 events from 1 ring file (0 lost)\n"));
	rf_expect_index(w->t.pid_dir, 0, all_events, NALL);
	expect_meta(3, 5, 0, 160);
}

/* A header that is not a ring's: one line naming the file, the file left
 * where it is, process.meta untouched; the trace converts without it. */
static void expect_ring_refused(uint64_t slots, size_t size, bool bad_magic, const char *what)
{
	const size_t ends[] = { 3 };
	uint8_t *before, *after;
	size_t blen, alen;
	char want[512];
	struct run r;

	write_meta(PID, true);
	write_thread(ends, 1, 0);
	write_ring(slots, NSCRIPT);
	if (size)
		assert_int_equal(truncate(w->ring, (off_t)size), 0);
	if (bad_magic)
		rf_write_file(w->ring, "not a ring", 10);
	before = rf_read_file(w->t.meta, &blen);
	convert_err(&r);
	after = rf_read_file(w->t.meta, &alen);
	assert_int_equal(r.ret, -EINVAL);
	snprintf(want, sizeof(want), "ada-symbolize: %s: %s; left in place\n", w->ring, what);
	assert_string_equal(r.text, want);
	assert_int_equal(access(w->ring, F_OK), 0);
	assert_int_equal(alen, blen);
	assert_memory_equal(after, before, blen);
	free(before), free(after);
}

static void test_recover_refuses_a_ring_whose_slots_are_not_a_power_of_two(void **state)
{
	(void)state;
	expect_ring_refused(12, 0, false, "ring of 12 slots, expected a power of two");
}

static void test_recover_refuses_a_ring_file_shorter_than_its_slots(void **state)
{
	(void)state;
	expect_ring_refused(16, 4096 + 16 * 15, false,
			    "4336 bytes, expected at least 4352 for 16 slots (head 7, base 0)");
}

static void test_recover_refuses_a_file_that_is_not_a_ring(void **state)
{
	(void)state;
	expect_ring_refused(16, 0, true, "cannot read a 256-byte ring header");
}

/* This process is "the traced one", and keeps its ring mapped: it runs. */
static void test_recover_leaves_a_running_process_alone(void **state)
{
	static const struct rf_want want[] = {
		{ ATF_CALL, 100, 1, 1 }, { ATF_CALL, 110, 2, 2 }, { ATF_RETURN, 120, 2, 2 },
		{ ATF_EXCEPTION, 120, 1, 1 },
	};
	const size_t ends[] = { 3 };
	uint8_t *before, *after;
	size_t blen, alen;
	char note[200];
	struct run r;
	void *map;
	int fd;

	(void)state;
	rf_remove_tree(w->t.root);
	free(w);
	world_make((uint32_t)getpid());
	write_meta((uint32_t)getpid(), true);
	write_thread(ends, 1, 0);
	write_ring(16, NSCRIPT);
	fd = open(w->ring, O_RDWR);
	assert_true(fd >= 0);
	map = mmap(NULL, 4096 + 16 * 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(map != MAP_FAILED);
	before = rf_read_file(w->t.meta, &blen);
	convert_err(&r);
	after = rf_read_file(w->t.meta, &alen);
	munmap(map, 4096 + 16 * 16);
	close(fd);
	assert_int_equal(r.ret, 0);
	snprintf(note, sizeof(note),
		 "ada-symbolize: pid %d: still running (its ring files are mapped): not recovered\n",
		 getpid());
	assert_string_equal(r.text, note);
	assert_int_equal(access(w->ring, F_OK), 0);
	assert_int_equal(alen, blen);
	assert_memory_equal(after, before, blen);
	rf_expect_index(w->t.pid_dir, 0, want, sizeof(want) / sizeof(want[0]));
	free(before), free(after);
}

/* The runtime's ring pool (runtime/pool.c): each ring file is named once,
 * when it was made, by a RING record without a thread; the thread that took
 * it wrote its ordinal into the header. Thread 0's ring is folded into
 * thread 0; a ring no thread took holds nothing, and goes. */
static void test_recover_finds_a_pool_rings_thread_in_its_header(void **state)
{
	const size_t ends[] = { 2, 3 };
	struct ada_meta_funcs fs = { 1, 2 };
	struct ada_meta_thread t0 = { .ordinal = 0, .os_tid = TID, .start_tsc = 90, .name = "prog" };
	struct ada_meta_ring unowned = { .ordinal = ADA_RING_UNOWNED };
	struct ada_ring_header spare = { .version = ADA_RING_VERSION, .ordinal = ADA_RING_UNOWNED,
					 .pid = PID, .slots = 16, .ring_no = 1 };
	uint8_t spare_file[ADA_RING_SLOTS_OFFSET + 16 * 16] = { 0 };
	char spare_path[300];
	struct run r;

	(void)state;
	snprintf(w->ring, sizeof(w->ring), "%s/ring_0.ring", w->t.raw);
	snprintf(spare_path, sizeof(spare_path), "%s/ring_1.ring", w->t.raw);
	rf_meta_begin(&w->meta, PID);
	rf_meta_record(&w->meta, ADA_META_FUNCS, &fs, sizeof(fs), known, sizeof(known));
	rf_meta_record(&w->meta, ADA_META_RING, &unowned, sizeof(unowned), w->ring,
		       strlen(w->ring) + 1);
	rf_meta_record(&w->meta, ADA_META_THREAD, &t0, sizeof(t0), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_RING, &unowned, sizeof(unowned), spare_path,
		       strlen(spare_path) + 1);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(ends, 2, 0);
	write_ring(16, NSCRIPT);
	memcpy(spare.magic, ADA_RING_MAGIC, 8);
	memcpy(spare_file, &spare, sizeof(spare));
	rf_write_file(spare_path, spare_file, sizeof(spare_file));
	convert(&r);
	assert_int_equal(r.ret, 0);
	assert_non_null(strstr(r.text, "pid 4343: recovered 4 events from 1 ring file (0 lost)\n"));
	rf_expect_index(w->t.pid_dir, 0, all_events, NALL);
	expect_ring_gone();
	assert_int_equal(access(spare_path, F_OK), -1);
	expect_meta(3, 4, 0, 160);
	rf_expect_valid(w->t.pid_dir);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_recover_appends_the_events_after_the_thread_file),
		T(test_recover_a_second_run_changes_nothing),
		T(test_recover_counts_what_the_thread_overwrote_as_lost),
		T(test_recover_makes_the_thread_file_and_record_from_the_ring),
		T(test_recover_starts_after_the_last_whole_frame_of_a_cut_file),
		T(test_recover_refuses_a_ring_whose_slots_are_not_a_power_of_two),
		T(test_recover_refuses_a_ring_file_shorter_than_its_slots),
		T(test_recover_refuses_a_file_that_is_not_a_ring),
		T(test_recover_leaves_a_running_process_alone),
		T(test_recover_finds_a_pool_rings_thread_in_its_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
