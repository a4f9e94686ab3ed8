/* test_lanes.c - lanes.atf end to end: a trace recorded with ADA_ALLOC=1,
 * ADA_COUNTERS=1 and ADA_BLOCKING=1 converted with `ada-symbolize -o DIR`
 * keeps its blocks, samples and waits (docs/atf-extensions.md).
 *
 * tests/e2e/progs/lanes.c (see there): a worker whose thread's lanes.atf
 * is exactly 190 ALLOC records (90 frees), 2 BLOCK records and the
 * SAMPLE taken where the thread ended, main's
 * 30 ms of CPU in spin, sampled each 1 ms of it. Asserted:
 * - each lanes.atf byte by byte as the page lays it out, read here with
 *   no code of the symbolizer's: the header's fields, the records (kinds,
 *   order, each index_seq within the thread's index.atf and its
 *   call_depth the depth the index has there), the footer's CRC-32 and
 *   counts, and the manifest's has_lanes and counts;
 * - the counts are the raw trace's: the worker's 190 and 2, 4 BLOCK
 *   records in all (the program's four calls), as many SAMPLE records as
 *   `info` on the raw trace says were kept, one at least in spin;
 * - `--check` passes, and one byte changed in a record makes it fail with
 *   a line naming the file; `--dump` prints each record;
 * - report, leaks, flame --weight alloc-bytes, cpu and blocked print the
 *   same bytes on the raw trace and on the ATF.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "json.h"
#include "e2e/dynhook_run.h"
#include "lib/atf_read.h"
#include "lib/proc.h"
#include "lib/tracee.h"
#include "lib/tracerun.h"

#define REC 64

enum { K_ALLOC = 1, K_SAMPLE = 2, K_BLOCK = 3, NK = 4 };

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* The one directory pattern matches. */
static void one_dir(const char *pattern, char *out, size_t len)
{
	glob_t g;

	if (glob(pattern, 0, NULL, &g) || g.gl_pathc != 1)
		fail_msg("%s: expected one directory", pattern);
	snprintf(out, len, "%s", g.gl_pathv[0]);
	globfree(&g);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc(n > 0 ? (size_t)n : 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* What one thread's lanes.atf holds. */
struct lanes_seen {
	uint64_t count[NK], freed;
	bool in_spin;        /* a sample named spin */
};

/* The depth the index leaves open after its first n events. */
static uint32_t depth_after(const struct atfr_index *idx, uint32_t n)
{
	const struct atfr_event *e;

	if (!n)
		return 0;
	e = &idx->events[n - 1];
	return e->kind == ATFR_CALL ? e->call_depth : e->call_depth - 1;
}

/* Records' fields as the page says, against the thread's index. */
static void check_records(const uint8_t *b, uint32_t n, const struct atfr_index *idx,
			  uint64_t spin_id, struct lanes_seen *s)
{
	uint64_t last_ns = 0;
	uint32_t last_seq = 0;

	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *r = b + 64 + (size_t)i * REC;
		uint64_t ns = le64(r);
		uint32_t seq = le32(r + 8), depth = le32(r + 12), flags = le32(r + 20);
		uint16_t kind = le16(r + 16), op = le16(r + 18);

		if (ns < last_ns || seq < last_seq || seq > idx->event_count)
			fail_msg("record %u: time %llu index_seq %u after %llu, %u (index: %u events)", i,
				 (unsigned long long)ns, seq, (unsigned long long)last_ns, last_seq,
				 idx->event_count);
		if (depth != depth_after(idx, seq))
			fail_msg("record %u: call_depth %u, the index has %u open", i, depth,
				 depth_after(idx, seq));
		if (seq && ns < idx->events[seq - 1].timestamp_ns)
			fail_msg("record %u: before its index event", i);
		last_ns = ns;
		last_seq = seq;
		assert_in_range(kind, K_ALLOC, K_BLOCK);
		s->count[kind]++;
		if (kind == K_ALLOC) {
			assert_in_range(op, 1, 14);
			assert_true(flags <= 1);
			s->freed += flags;
			if (flags) /* a block freed has no size */
				assert_int_equal(le64(r + 32), 0);
		} else if (kind == K_BLOCK) {
			assert_in_range(op, 1, 9);
			assert_int_equal(flags, 0);
			assert_true(le64(r + 32) <= ns); /* start_ns, at most the end */
		} else {
			assert_int_equal(op, 0);
			assert_int_equal(flags, 0);
			s->in_spin |= le64(r + 56) == spin_id;
		}
		if (kind != K_SAMPLE)
			for (int k = 40; k < REC; k++)
				assert_int_equal(r[k], 0);
	}
}

/* thread_<id>/lanes.atf's bytes: header, records, footer (see the top). */
static void check_file(const char *pid, uint32_t id, uint64_t spin_id, struct lanes_seen *s)
{
	char path[4700], err[512];
	struct atfr_index idx;
	size_t len;
	uint8_t *b;
	uint32_t n, flags = 0;
	const uint8_t *ft;

	snprintf(path, sizeof(path), "%s/thread_%u/index.atf", pid, id);
	if (atfr_read_index(path, &idx, err, sizeof(err)))
		fail_msg("%s", err);
	snprintf(path, sizeof(path), "%s/thread_%u/lanes.atf", pid, id);
	if (!(b = read_file(path, &len))) {
		atfr_index_free(&idx);
		return;
	}
	assert_true(len >= 128);
	assert_memory_equal(b, "ATL2", 4);
	assert_int_equal(b[4], 1);
	assert_int_equal(b[5], 1);
	assert_int_equal(b[6], 1); /* x86_64 */
	assert_int_equal(b[7], 4); /* Linux */
	assert_int_equal(le32(b + 12), id);
	assert_int_equal(b[16], 3); /* CLOCK_BOOTTIME */
	for (int k = 17; k < 24; k++)
		assert_int_equal(b[k], 0);
	assert_int_equal(le32(b + 24), REC);
	n = le32(b + 28);
	assert_true(n > 0); /* none: no file */
	assert_int_equal(le64(b + 32), 64);
	assert_int_equal(le64(b + 40), 64 + (uint64_t)n * REC);
	assert_int_equal(len, 64 + (size_t)n * REC + 64);
	assert_int_equal(le64(b + 48), le64(b + 64));
	assert_int_equal(le64(b + 56), le64(b + 64 + (size_t)(n - 1) * REC));
	check_records(b, n, &idx, spin_id, s);
	ft = b + 64 + (size_t)n * REC;
	assert_memory_equal(ft, "2LTA", 4);
	assert_int_equal(le32(ft + 4), atfr_crc32(b + 64, (size_t)n * REC));
	assert_int_equal(le64(ft + 8), n);
	assert_int_equal(le64(ft + 16), le64(b + 48));
	assert_int_equal(le64(ft + 24), le64(b + 56));
	assert_int_equal(le64(ft + 32), (uint64_t)n * REC);
	for (int k = K_ALLOC; k < NK; k++) {
		assert_int_equal(le64(ft + 40 + 8 * (k - 1)), s->count[k]);
		if (s->count[k])
			flags |= 1u << (k - 1);
	}
	assert_int_equal(le32(b + 8), flags);
	free(b);
	atfr_index_free(&idx);
}

/* The function_id of the symbol `name` in the manifest, 0 if none. */
static uint64_t symbol_id(const struct json_value *root, const char *name)
{
	const struct json_value *syms = json_get(root, "symbols");

	for (size_t i = 0; i < json_count(syms); i++) {
		const char *n = json_string(json_get(json_at(syms, i), "name"));
		const char *id = json_string(json_get(json_at(syms, i), "function_id"));

		if (n && id && !strcmp(n, name))
			return strtoull(id, NULL, 16);
	}
	return 0;
}

/* The manifest's has_lanes and counts are the file's. */
static void check_listed(const struct json_value *t, bool has, const struct lanes_seen *s)
{
	static const char *const keys[NK] = { NULL, "allocs", "samples", "blocks" };
	const struct json_value *lanes = json_get(t, "lanes");
	bool listed = false;
	uint64_t v;

	if (!has) {
		assert_null(json_get(t, "has_lanes"));
		return;
	}
	assert_true(json_bool(json_get(t, "has_lanes"), &listed) && listed);
	for (int k = K_ALLOC; k < NK; k++) {
		assert_true(json_u64(json_get(lanes, keys[k]), &v));
		assert_int_equal(v, s->count[k]);
	}
}

/* info's "samples N (counters)" on the raw trace. */
static uint64_t raw_samples(struct tr_case *tc, const char *raw_pid)
{
	const char *const argv[] = { TRACEE_SYMBOLIZE, "info", raw_pid, NULL };
	char *out = dh_tool_output(tc, argv);
	const char *p = strstr(out, "  samples ");
	unsigned long long n;

	if (!p || sscanf(p, " samples %llu (counters)", &n) != 1)
		fail_msg("info says no samples:\n%s", out);
	free(out);
	return n;
}

/* Every thread's lanes.atf, and the totals against the raw trace's. */
static void check_lanes_files(struct tr_case *tc, const char *raw_pid, const char *atf_pid)
{
	char path[4700], err[256];
	struct json_doc *doc;
	const struct json_value *root, *threads;
	uint64_t total[NK] = { 0 }, spin_id;
	bool worker = false, in_spin = false;

	snprintf(path, sizeof(path), "%s/manifest.json", atf_pid);
	if (json_parse_file(path, &doc, err, sizeof(err)))
		fail_msg("%s", err);
	root = json_root(doc);
	if (!(spin_id = symbol_id(root, "spin"))) {
		json_free(doc);
		fail_msg("%s: no symbol spin", path);
	}
	threads = json_get(root, "threads");
	for (size_t i = 0; i < json_count(threads); i++) {
		struct lanes_seen s = { 0 };
		uint64_t id;

		assert_true(json_u64(json_get(json_at(threads, i), "id"), &id));
		snprintf(path, sizeof(path), "%s/thread_%u/lanes.atf", atf_pid, (unsigned)id);
		check_file(atf_pid, (uint32_t)id, spin_id, &s);
		check_listed(json_at(threads, i), access(path, F_OK) == 0, &s);
		for (int k = K_ALLOC; k < NK; k++)
			total[k] += s.count[k];
		in_spin |= s.in_spin;
		/* and one sample: its last, where it ended (it uses far less than
		 * the 1 ms of CPU a periodic sample waits for) */
		if (s.count[K_ALLOC] == 190 && s.freed == 90 && s.count[K_BLOCK] == 2 &&
		    s.count[K_SAMPLE] == 1)
			worker = true;
	}
	json_free(doc);
	if (!worker)
		fail_msg("no thread's lanes.atf holds the worker's 190 ALLOC (90 freed), 2 BLOCK and 1 SAMPLE records");
	assert_int_equal(total[K_BLOCK], 4);
	assert_int_equal(total[K_SAMPLE], raw_samples(tc, raw_pid));
	assert_true(in_spin);
}

static void same_view(struct tr_case *tc, const char *raw_pid, const char *atf_pid,
		      const char *view, const char *opt, const char *arg)
{
	const char *const a[] = { TRACEE_SYMBOLIZE, view, raw_pid, opt, arg, NULL };
	const char *const b[] = { TRACEE_SYMBOLIZE, view, atf_pid, opt, arg, NULL };
	char *ra = dh_tool_output(tc, a), *rb = dh_tool_output(tc, b);

	if (strcmp(ra, rb))
		fail_msg("%s %s %s differs on the ATF:\n--- raw\n%s--- ATF\n%s", view, opt ? opt : "",
			 arg ? arg : "", ra, rb);
	free(ra);
	free(rb);
}

/* --check on dir: its exit status, its output in *out (malloc'd). */
static int check(struct tr_case *tc, const char *dir, char **out)
{
	const char *const argv[] = { TRACEE_SYMBOLIZE, "--check", dir, NULL };
	struct proc_result res = { 0 };
	int code;

	tr_run(tc, argv, NULL, &res);
	code = proc_exit_code(&res);
	*out = res.out;
	res.out = NULL;
	proc_result_free(&res);
	return code;
}

/* One byte of thread 0's first lanes record changed: --check names the file. */
static void corrupt_fails_check(struct tr_case *tc, const char *atf_pid)
{
	char copy[4400], path[4700], *out;
	const char *const cp[] = { "cp", "-r", atf_pid, copy, NULL };
	struct proc_result res;
	FILE *f;
	int c;

	snprintf(copy, sizeof(copy), "%s/corrupt", tc->dir);
	assert_int_equal(proc_run(cp, NULL, NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), 0);
	proc_result_free(&res);
	snprintf(path, sizeof(path), "%s/thread_0/lanes.atf", copy);
	assert_non_null(f = fopen(path, "r+b"));
	fseek(f, 64 + 24, SEEK_SET); /* the first record's a */
	c = fgetc(f);
	fseek(f, 64 + 24, SEEK_SET);
	fputc(c ^ 0x40, f);
	fclose(f);
	if (!check(tc, copy, &out))
		fail_msg("--check passed a changed lanes.atf:\n%s", out);
	snprintf(path, sizeof(path), "%s/thread_0/lanes.atf: footer CRC 0x", copy);
	if (!strstr(out, path))
		fail_msg("--check does not name %s:\n%s", path, out);
	free(out);
}

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* --dump prints every lanes.atf record where it lies (view_dump.c): the
 * worker's 100 blocks of 48 bytes and 90 frees, the four BLOCK records,
 * and as many samples as the raw trace has. */
static void dump_shows_lanes(struct tr_case *tc, const char *raw_pid, const char *atf)
{
	const char *const a[] = { TRACEE_SYMBOLIZE, "--dump", atf, NULL };
	char *out = dh_tool_output(tc, a);
	uint64_t samples = raw_samples(tc, raw_pid);

	if (count_of(out, "[alloc] malloc 48 bytes at 0x") != 100 || count_of(out, "[free] free 0x") != 90 ||
	    count_of(out, "[wait] pthread_mutex_lock(0x") != 2 ||
	    count_of(out, "[release] pthread_mutex_unlock(0x") != 2 ||
	    count_of(out, "[sample] cpu ") != samples)
		fail_msg("--dump: expected 100 [alloc], 90 [free], 2 [wait], 2 [release] and %llu [sample] lines:\n%s",
			 (unsigned long long)samples, out);
	free(out);
}

static void lanes_survive_the_conversion(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_ALLOC=1", "ADA_COUNTERS=1", "ADA_BLOCKING=1",
				    "ADA_DYNHOOK=on", NULL };
	const char *const flags[] = { "-O2", "-pthread", NULL };
	const char *const traced[] = { "-O2", "-pthread", "--ada-mode=fentry", NULL };
	char atf[4300], pattern[4400], raw_pid[4400], atf_pid[4400], *out;
	const char *conv[] = { TRACEE_SYMBOLIZE, "-q", "-o", atf, tc->trace, NULL };

	tr_build(tc, NULL, "gcc", "lanes", "prog.plain", flags);
	tr_build(tc, NULL, TR_ADACC, "lanes", "prog", traced);
	tr_run_pair(tc, "prog", NULL, env, 0);
	snprintf(atf, sizeof(atf), "%s/atf", tc->dir);
	free(dh_tool_output(tc, conv));
	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_*", tc->trace);
	one_dir(pattern, raw_pid, sizeof(raw_pid));
	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_*", atf);
	one_dir(pattern, atf_pid, sizeof(atf_pid));

	check_lanes_files(tc, raw_pid, atf_pid);
	if (check(tc, atf, &out) || !strstr(out, ": OK\n"))
		fail_msg("--check %s:\n%s", atf, out);
	free(out);
	dump_shows_lanes(tc, raw_pid, atf);
	corrupt_fails_check(tc, atf_pid);

	same_view(tc, raw_pid, atf_pid, "report", NULL, NULL);
	same_view(tc, raw_pid, atf_pid, "report", "--ns", NULL);
	same_view(tc, raw_pid, atf_pid, "leaks", NULL, NULL);
	same_view(tc, raw_pid, atf_pid, "flame", "--weight", "alloc-bytes");
	same_view(tc, raw_pid, atf_pid, "flame", "--weight", "cpu");
	same_view(tc, raw_pid, atf_pid, "flame", "--weight", "blocked");
	tr_pass(tc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(lanes_survive_the_conversion, tr_setup, tr_teardown),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
