/* test_raw_read.c - raw_stream_read, the views' batch decoder, against
 * raw_stream_next, the one-event decoder it leaves everything unusual to.
 *
 * A thread file made to take every branch of the batch loop and of its
 * way out: functions numbered past the tag's 6 bits (a varint fid), time
 * deltas of one to five varint bytes, RETURNs whose delta overflows the
 * tag, EXCEPTIONs, DETAIL records with and without FREGS, frames that end
 * (an event within reach of a frame's end goes to the slow path), nesting
 * deep enough to grow the open-frame stack. Read in batches of 1, 3, 7
 * and 64 it must give exactly the events, in order, that raw_stream_next
 * gives: kind, depth, function, time, and the same detail record, each
 * record of a batch still its own when the batch is read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "raw_fixture.h"

enum { NFUNCS = 300, NEVENTS = 6000 };

static struct rf_thread_file loc;

struct want {
	uint64_t tsc;
	uint32_t fid, depth;
	uint8_t kind;
	bool detail;
	uint64_t reg0, freg0;
	uint16_t stack_size;
	uint8_t stack0;
};

static struct want *want;
static size_t nwant;

static int setup(void **state)
{
	(void)state;
	rf_thread_file_make(&loc, "/tmp/ada_test_read_XXXXXX");
	want = calloc(2 * NEVENTS, sizeof(*want));
	assert_non_null(want);
	nwant = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rf_thread_file_remove(&loc);
	free(want);
	return 0;
}

/* The gap before event i: 1 to 5 varint bytes, in a pattern that mixes
 * them within every frame. */
static uint64_t gap(unsigned i)
{
	static const uint64_t gaps[] = { 3, 90, 200, 17000, 40, 2500000, 7, 400000000, 1, 130 };

	return gaps[i % (sizeof(gaps) / sizeof(gaps[0]))];
}

/* Writes the file: frames of about 500 events, calls to any of NFUNCS
 * functions nested up to 300 deep, every 13th event an EXCEPTION instead
 * of a RETURN, every 9th a DETAIL (every other one with FREGS). Returns
 * the number of functions the dictionary numbered. */
static size_t write_file(void)
{
	static uint64_t addr[NFUNCS];
	static struct rf_frame f;
	struct ada_enc_stream enc;
	struct ada_fdict dict;
	uint64_t tsc = 1000, open[400];
	size_t depth = 0, nf;
	unsigned seed = 1;

	for (size_t k = 0; k < NFUNCS; k++)
		addr[k] = 0x401000 + 0x40 * k;
	memset(&enc, 0, sizeof(enc));
	rf_fdict_init(&dict, addr, NFUNCS);
	f.pos = 0;
	for (unsigned i = 0; i < NEVENTS;) {
		rf_sync(&f, &enc, tsc);
		for (unsigned k = 0; k < 500 && i < NEVENTS; k++, i++) {
			/* Deep runs, then unwinding: the open stack passes 256. */
			bool call = depth == 0 || (depth < 300 && (i / 700) % 2 == 0) ||
				    (depth < 300 && i % 3 == 0);
			struct ada_raw_detail d;
			uint8_t stack[64];

			tsc += gap(i);
			if (call) {
				open[depth] = addr[(i * 7919u) % NFUNCS];
				rf_event(&f, &enc, &dict, tsc, ADA_RAW_CALL, open[depth]);
				depth++;
				want[nwant] = (struct want){ .tsc = tsc, .depth = (uint32_t)depth,
							     .fid = (uint32_t)((i * 7919u) % NFUNCS) + 1,
							     .kind = ADA_RAW_CALL };
			} else {
				unsigned kind = i % 13 ? ADA_RAW_RETURN : ADA_RAW_EXCEPTION;

				depth--;
				rf_event(&f, &enc, &dict, tsc, kind, open[depth]);
				want[nwant] = (struct want){ .tsc = tsc, .depth = (uint32_t)depth + 1,
							     .fid = (uint32_t)((open[depth] - 0x401000) / 0x40) + 1,
							     .kind = (uint8_t)kind };
			}
			if (i % 9 == 4) {
				rf_make_detail(seed, (uint16_t)(seed % 3 ? 16 * (seed % 4) : 0), &d, stack);
				rf_detail(&f, &d, stack);
				want[nwant].detail = true;
				want[nwant].reg0 = d.regs[0];
				want[nwant].stack_size = d.stack_size;
				want[nwant].stack0 = d.stack_size ? stack[0] : 0;
				if (seed % 2) {
					uint64_t fr[8];

					rf_fregs(&f, seed);
					rf_make_fregs(seed, fr);
					want[nwant].freg0 = fr[0];
				}
				seed++;
			}
			nwant++;
		}
		rf_append(loc.path, &f);
	}
	nf = dict.next_fid - 1;
	ada_fdict_free(&dict);
	ada_enc_stream_free(&enc);
	return nf;
}

static void check(const struct raw_event *ev, size_t i)
{
	const struct want *w = &want[i];

	assert_true(i < nwant);
	assert_int_equal(ev->kind, w->kind);
	assert_int_equal(ev->depth, w->depth);
	assert_int_equal(ev->fid, w->fid);
	assert_int_equal(ev->tsc, w->tsc);
	assert_int_equal(ev->detail != NULL, w->detail);
	if (!w->detail)
		return;
	assert_int_equal(ev->detail->regs[0], w->reg0);
	assert_int_equal(ev->detail->stack_size, w->stack_size);
	if (w->stack_size)
		assert_int_equal(ev->stack[0], w->stack0);
	assert_int_equal(ev->fregs != NULL, w->freg0 != 0);
	if (w->freg0)
		assert_int_equal(ev->fregs[0], w->freg0);
}

/* raw_stream_next alone: the file says what write_file meant. */
static void test_raw_read_the_file_is_what_was_written(void **state)
{
	size_t nf = write_file(), i = 0;
	struct raw_stream *s = raw_stream_open(loc.raw, 0, nf, ADA_RAW_VERSION);
	struct raw_event ev;
	int r;

	(void)state;
	assert_int_equal(nf, NFUNCS);
	assert_non_null(s);
	while ((r = raw_stream_next(s, &ev)) > 0)
		check(&ev, i++);
	assert_int_equal(r, 0);
	assert_int_equal(i, NEVENTS);
	raw_stream_close(s);
}

/* In batches of every size, the same events, the same end, the same
 * position and open frames after it. */
static void test_raw_read_batches_give_the_same_events(void **state)
{
	static const size_t sizes[] = { 1, 3, 7, 64 };
	size_t nf = write_file();

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct raw_stream *s = raw_stream_open(loc.raw, 0, nf, ADA_RAW_VERSION);
		struct raw_event ev[64];
		size_t i = 0, batches = 0;
		int most = 0;
		uint64_t pos;
		int r;

		assert_non_null(s);
		while ((r = raw_stream_read(s, ev, sizes[k])) > 0) {
			int records = 0;

			/* Checked once the batch is read: every record and
			 * stack of it is still its own. */
			assert_true((size_t)r <= sizes[k]);
			for (int j = 0; j < r; j++) {
				check(&ev[j], i++);
				records += ev[j].detail != NULL;
			}
			most = records > most ? records : most;
			batches++;
		}
		if (sizes[k] == 64) /* a record every 9 events */
			assert_true(most >= 2); /* records do not end a batch */
		assert_int_equal(r, 0);
		assert_int_equal(raw_stream_read(s, ev, sizes[k]), 0); /* and again */
		assert_int_equal(i, NEVENTS);
		if (sizes[k] == 64)
			assert_true(batches < NEVENTS / 8); /* batches, not events one by one */
		assert_true(raw_stream_position(s, &pos));
		assert_int_equal(pos, NEVENTS);
		assert_int_equal(raw_stream_open_frames(s), want[NEVENTS - 1].depth -
							     (want[NEVENTS - 1].kind != ADA_RAW_CALL));
		raw_stream_close(s);
	}
}

/* A file cut inside its last frame: the batches end where the last whole
 * frame ends, as raw_stream_next's events do, and say the end (0). */
static void test_raw_read_a_cut_file_ends_at_its_last_whole_frame(void **state)
{
	size_t nf = write_file(), a = 0, b = 0;
	struct raw_stream *s;
	struct raw_event one, ev[64];
	FILE *fp;
	long len;
	int r;

	(void)state;
	assert_non_null(fp = fopen(loc.path, "r+"));
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	assert_true((len = ftell(fp)) > 100);
	assert_int_equal(ftruncate(fileno(fp), len - 50), 0);
	fclose(fp);
	assert_non_null(s = raw_stream_open(loc.raw, 0, nf, ADA_RAW_VERSION));
	while ((r = raw_stream_next(s, &one)) > 0)
		a++;
	assert_int_equal(r, 0);
	raw_stream_close(s);
	assert_non_null(s = raw_stream_open(loc.raw, 0, nf, ADA_RAW_VERSION));
	while ((r = raw_stream_read(s, ev, 64)) > 0)
		for (int j = 0; j < r; j++)
			check(&ev[j], b++);
	assert_int_equal(r, 0);
	assert_int_equal(a, b);
	assert_true(b < NEVENTS && b >= NEVENTS - 500);
	assert_true(raw_stream_truncated(s));
	raw_stream_close(s);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_raw_read_the_file_is_what_was_written),
		T(test_raw_read_batches_give_the_same_events),
		T(test_raw_read_a_cut_file_ends_at_its_last_whole_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
