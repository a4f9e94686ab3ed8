/* test_corrupt_frames.c - ada-symbolize on damaged thread_<N>.lz4 files.
 *
 * The fixture (damaged_trace.h): the group's setup runs a small traced
 * program once; each test damages a copy of its raw trace in one way and
 * runs ada-symbolize on it, then `ada-symbolize --check`.
 *
 * What a damaged input must give: exit status 1 from a normal exit (never a
 * signal), and stderr exactly one line that names the damaged file and says
 * what is wrong with it.
 *
 * A thread file cut short by a crash or SIGKILL (no END and no THREAD_END
 * in process.meta) is not damage: it converts up to its last complete LZ4
 * frame with the frames left open closed by EXCEPTION events (the summary
 * says they were open at the end, not unwound). After a clean exit the same
 * cut is an error, as is any count the writer recorded that the files
 * contradict.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <lz4frame.h>

#include "e2e/damaged_trace.h"
#include "lib/proc.h"
#include "lib/tracee.h"

/* ---- thread_<N>.lz4 -------------------------------------------------------------- */

static struct tracee_lz4_frame frames[4096];

/* The frames of a thread file; at least `min` of them or the test fails. */
static size_t read_frames(const char *path, uint8_t **buf, size_t *len, size_t min)
{
	int n;

	*buf = (uint8_t *)proc_read_file(path, len);
	if (!*buf)
		fail_msg("%s: %s", path, strerror(errno));
	n = tracee_lz4_frames(*buf, *len, frames, sizeof(frames) / sizeof(frames[0]));
	if (n < 0)
		fail_msg("%s: not a sequence of whole LZ4 frames", path);
	if ((size_t)n < min)
		fail_msg("%s: %d LZ4 frames; the test needs %zu (did the writer change?)", path, n,
			 min);
	return (size_t)n;
}

/* Offset of a byte that is copied to the output as it is: the first literal
 * of the frame's first block (or its first byte if stored uncompressed). */
static size_t literal_of(const uint8_t *buf, const struct tracee_lz4_frame *f)
{
	size_t p = f->block + 4, q = p + 1;
	size_t lits = buf[p] >> 4;

	if (f->block_size & 0x80000000u)
		return p;
	if (lits == 15)
		while (buf[q++] == 255)
			;
	return lits ? q : p; /* no literal: the token itself */
}

static void corrupt_lz4_frame_is_one_error_naming_the_file(void **state)
{
	static const char *const phrases[] = { "corrupt", "checksum", "decompress", NULL };
	struct damaged d;
	uint8_t *buf;
	size_t len, n, at;

	(void)state;
	dt_copy_case("lz4-corrupt", &d);
	n = read_frames(d.thread0, &buf, &len, 3);
	at = literal_of(buf, &frames[n / 2]);
	buf[at] ^= 0x55;
	dt_write_bytes(d.thread0, buf, len);
	free(buf);
	dt_expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

/* The events of <pid>/thread_0/index.atf, malloc'd. */
static struct tracee_event *events_of(const char *pid, size_t *n)
{
	char index[PATH_MAX + 300];
	struct tracee_event *ev;

	snprintf(index, sizeof(index), "%s/thread_0/index.atf", pid);
	if (tracee_read_index(index, &ev, n) < 0)
		fail_msg("cannot read %s", index);
	return ev;
}

/* Converts a copy whose thread_0.lz4 is cut at `cut` bytes and whose
 * process.meta has lost its END and THREAD_END records, as a SIGKILL leaves
 * them: exit 0, --check passes, and the events are a prefix of the full
 * trace's followed by EXCEPTIONs that close every frame still open,
 * innermost first. */
static struct tracee_event *convert_cut(const char *name, size_t cut, size_t *n)
{
	struct proc_result res;
	struct damaged d;
	struct tracee_event *ev;
	uint64_t open_fid[256];
	size_t k, depth = 0;
	char why[64];

	dt_copy_case(name, &d);
	dt_drop_meta_records(d.meta, 8);  /* ADA_META_END */
	dt_drop_meta_records(d.meta, 6);  /* ADA_META_THREAD_END */
	dt_cut_file(d.thread0, cut);
	dt_symbolize(NULL, d.root, &res);
	if (proc_exit_code(&res) != 0)
		fail_msg("%s cut at %zu: %s\n%s", d.thread0, cut,
			 proc_describe(&res, why, sizeof(why)), res.err);
	if (!strstr(res.out, "frames open "))
		fail_msg("%s cut at %zu: the summary does not say frames were left open:\n%s",
			 d.thread0, cut, res.out);
	proc_result_free(&res);
	dt_symbolize("--check", d.root, &res);
	if (proc_exit_code(&res) != 0)
		fail_msg("--check on %s cut at %zu: %s\n%s%s", d.thread0, cut,
			 proc_describe(&res, why, sizeof(why)), res.out, res.err);
	proc_result_free(&res);

	ev = events_of(d.pid, n);
	for (k = *n; k > 0 && ev[k - 1].kind == TRACEE_EXCEPTION; k--)
		;
	if (k == 0 || k >= dt_fx.full_n)
		fail_msg("cut at %zu: %zu events before the closing EXCEPTIONs, the full trace has %zu",
			 cut, k, dt_fx.full_n);
	if (memcmp(ev, dt_fx.full_ev, k * sizeof(*ev)) != 0)
		fail_msg("cut at %zu: the events are not a prefix of the full trace's", cut);
	for (size_t i = 0; i < k; i++) {
		if (ev[i].kind == TRACEE_CALL && depth < 256)
			open_fid[depth++] = ev[i].function_id;
		else if (ev[i].kind != TRACEE_CALL && depth)
			depth--;
	}
	if (depth == 0 || *n - k != depth)
		fail_msg("cut at %zu: %zu frames open, %zu closing EXCEPTIONs", cut, depth, *n - k);
	for (size_t i = k; i < *n; i++, depth--) {
		if (ev[i].call_depth != depth || ev[i].function_id != open_fid[depth - 1] ||
		    ev[i].timestamp_ns != ev[k - 1].timestamp_ns)
			fail_msg("cut at %zu: EXCEPTION %zu closes depth %u fid 0x%llx at %llu, expected depth %zu fid 0x%llx at %llu",
				 cut, i, ev[i].call_depth, (unsigned long long)ev[i].function_id,
				 (unsigned long long)ev[i].timestamp_ns, depth,
				 (unsigned long long)open_fid[depth - 1],
				 (unsigned long long)ev[k - 1].timestamp_ns);
	}

	dt_symbolize("--replay", d.root, &res);
	/* No END record: the process was killed with main open. */
	if (proc_exit_code(&res) != 0 || !strstr(res.out, "\nmain (open when killed)\n"))
		fail_msg("--replay on %s cut at %zu: no \"main (open when killed)\":\n%s%s", d.thread0,
			 cut, res.out, res.err);
	proc_result_free(&res);
	return ev;
}

static void lz4_cut_mid_frame_converts_the_complete_frames(void **state)
{
	struct damaged d;
	uint8_t *buf;
	size_t len, n, k, whole_n;
	struct tracee_event *whole;

	(void)state;
	dt_copy_case("lz4-frames", &d);
	n = read_frames(d.thread0, &buf, &len, 3);
	free(buf);
	k = n / 2; /* frames 0..k complete, k+1 cut */

	const struct {
		const char *name;
		size_t cut;
	} cuts[] = {
		{ "cut-in-magic", frames[k + 1].start + 3 },
		{ "cut-in-header", frames[k + 1].block - 1 },
		{ "cut-in-block", frames[k + 1].block + 4 + (frames[k + 1].block_size & 0x7fffffffu) / 2 },
		{ "cut-in-block-checksum", frames[k + 1].block + 4 + (frames[k + 1].block_size & 0x7fffffffu) + 2 },
		{ "cut-in-end-mark", frames[k + 1].end - 2 },
	};

	whole = convert_cut("cut-at-frame-end", frames[k].end, &whole_n);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct tracee_event *ev;
		size_t ev_n;

		ev = convert_cut(cuts[i].name, cuts[i].cut, &ev_n);
		if (ev_n != whole_n || memcmp(ev, whole, ev_n * sizeof(*ev)) != 0)
			fail_msg("%s (byte %zu): %zu events; cut after frame %zu: %zu events; they must be the same",
				 cuts[i].name, cuts[i].cut, ev_n, k, whole_n);
		free(ev);
	}
	free(whole);
	PASSED();
}

/* A copy of the trace, its process exited cleanly, with thread_0.lz4 cut
 * inside frame k (mid) or after it (!mid): the message names the file and
 * the byte where the frame started, or the counts. */
static void cut_after_a_clean_exit(const char *name, bool mid)
{
	struct damaged d;
	uint8_t *buf;
	size_t len, k;
	char phrase[96];
	const char *const phrases[] = { phrase, NULL };

	dt_copy_case(name, &d);
	k = read_frames(d.thread0, &buf, &len, 3) / 2;
	free(buf);
	if (mid) {
		dt_cut_file(d.thread0, frames[k].block + 4 + (frames[k].block_size & 0x7fffffffu) / 2);
		snprintf(phrase, sizeof(phrase), "cut short inside the frame at byte %zu",
			 frames[k].start);
	} else {
		dt_cut_file(d.thread0, frames[k].end);
		snprintf(phrase, sizeof(phrase), "THREAD_END says %zu were written", dt_fx.full_n);
	}
	dt_expect_error_both_ways(d.root, d.thread0, phrases);
}

/* After a clean exit every frame was written whole: a thread file cut inside
 * one lost events no crash explains. */
static void lz4_cut_mid_frame_after_a_clean_exit_is_one_error(void **state)
{
	(void)state;
	cut_after_a_clean_exit("lz4-cut-clean", true);
	PASSED();
}

/* Whole frames gone from the end: the file reads cleanly, but THREAD_END
 * says how many events the writer wrote. */
static void lz4_cut_at_a_frame_end_after_a_clean_exit_is_one_error(void **state)
{
	(void)state;
	cut_after_a_clean_exit("lz4-cut-frames", false);
	PASSED();
}

/* thread_0.lz4 with frame k written twice (repeat) or left out. */
static void repeat_or_drop_frame(const char *path, size_t k, bool repeat)
{
	uint8_t *buf, *out;
	size_t len, n, flen;

	n = read_frames(path, &buf, &len, 3);
	if (k + 1 >= n)
		fail_msg("%s: frame %zu is the last", path, k);
	flen = frames[k].end - frames[k].start;
	out = malloc(len + flen);
	if (!out)
		fail_msg("out of memory");
	if (repeat) { /* ... frame k, frame k, ... */
		memcpy(out, buf, frames[k].end);
		memcpy(out + frames[k].end, buf + frames[k].start, len - frames[k].start);
	} else {
		memcpy(out, buf, frames[k].start);
		memcpy(out + frames[k].start, buf + frames[k].end, len - frames[k].end);
	}
	dt_write_bytes(path, out, repeat ? len + flen : len - flen);
	free(out);
	free(buf);
}

static void repeated_frame_is_one_error_naming_the_file(void **state)
{
	static const char *const phrases[] = { "a frame written twice", NULL };
	struct damaged d;

	(void)state;
	dt_copy_case("lz4-repeated", &d);
	repeat_or_drop_frame(d.thread0, 2, true);
	dt_expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

static void missing_middle_frame_is_one_error_naming_the_file(void **state)
{
	static const char *const phrases[] = { "a frame missing before it", NULL };
	struct damaged d;

	(void)state;
	dt_copy_case("lz4-dropped", &d);
	repeat_or_drop_frame(d.thread0, 2, false);
	dt_expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

/* Replaces thread_0.lz4 with one valid LZ4 frame (block checksums on, as
 * the recorder writes) holding `len` bytes of events. */
static void write_thread_frame(const struct damaged *d, const uint8_t *events, size_t len)
{
	LZ4F_preferences_t prefs = { .frameInfo = { .blockChecksumFlag = LZ4F_blockChecksumEnabled } };
	size_t cap = LZ4F_compressFrameBound(len, &prefs), n;
	uint8_t *out = malloc(cap);

	if (!out)
		fail_msg("out of memory");
	n = LZ4F_compressFrame(out, cap, events, len, &prefs);
	if (LZ4F_isError(n))
		fail_msg("LZ4F_compressFrame: %s", LZ4F_getErrorName(n));
	dt_write_bytes(d->thread0, out, n);
	free(out);
}

/* A SYNC record, POS 0, then a RETURN: nothing is open for it to close. */
static void return_without_call_is_one_error_naming_the_file(void **state)
{
	static const char *const phrases[] = { "no open call", NULL };
	static const uint8_t events[] = { 3, 1, 0, 0, 0, 0, 0, 0, 0, 3 | 3 << 2, 0, 1 | 5 << 2 };
	struct damaged d;

	(void)state;
	dt_copy_case("lz4-return", &d);
	write_thread_frame(&d, events, sizeof(events));
	dt_expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

/* Frames of pseudo-random event bytes, intact as LZ4: the event decoder
 * must reject or accept them, never crash. */
static void random_events_never_crash(void **state)
{
	uint8_t events[600];
	uint32_t x = 12345;
	struct damaged d;

	(void)state;
	dt_copy_case("lz4-random", &d);
	for (int round = 0; round < 30; round++) {
		struct proc_result res;
		char what[64];
		int code;

		/* Start with a SYNC and POS 0 so the bytes after them are read
		 * as events. */
		events[0] = 3;
		for (size_t i = 1; i < sizeof(events); i++) {
			x = x * 1103515245u + 12345u;
			events[i] = (uint8_t)(x >> 16);
			/* mostly small fids and deltas, so calls nest deep */
			if (round % 2 && i > 10 && (events[i] & 3) == 0)
				events[i] &= 0x0f;
		}
		events[9] = 3 | 3 << 2;
		events[10] = 0;
		write_thread_frame(&d, events, sizeof(events));
		dt_symbolize("-q", d.root, &res);
		snprintf(what, sizeof(what), "random events, round %d", round);
		dt_expect_no_signal(&res, what);
		code = WEXITSTATUS(res.wstatus);
		if (code != 0 && (code != 1 || res.err_len == 0))
			fail_msg("%s: exit status %d, stderr:\n%s", what, code, res.err);
		proc_result_free(&res);
	}
	PASSED();
}

static void missing_thread_file_is_one_error_naming_it(void **state)
{
	static const char *const phrases[] = { "missing", "No such file", NULL };
	struct damaged d;

	(void)state;
	dt_copy_case("lz4-missing", &d);
	if (unlink(d.thread0) < 0)
		fail_msg("rm %s: %s", d.thread0, strerror(errno));
	dt_expect_error_both_ways(d.root, d.thread0, phrases);
	PASSED();
}

/* ---- main ------------------------------------------------------------------------ */

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup(fn, dt_test_setup)
		T(corrupt_lz4_frame_is_one_error_naming_the_file),
		T(lz4_cut_mid_frame_converts_the_complete_frames),
		T(lz4_cut_mid_frame_after_a_clean_exit_is_one_error),
		T(lz4_cut_at_a_frame_end_after_a_clean_exit_is_one_error),
		T(repeated_frame_is_one_error_naming_the_file),
		T(missing_middle_frame_is_one_error_naming_the_file),
		T(return_without_call_is_one_error_naming_the_file),
		T(random_events_never_crash),
		T(missing_thread_file_is_one_error_naming_it),
#undef T
	};

	tracee_scrub_environment();
	return cmocka_run_group_tests_name("ada-symbolize on damaged thread files", tests,
					   dt_group_setup, dt_group_teardown);
}
