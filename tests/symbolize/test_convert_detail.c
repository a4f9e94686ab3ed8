/* test_convert_detail.c - a raw trace with DETAIL records converts to an
 * index.atf and a detail.atf linked both ways: each detail record names its
 * index event and repeats its timestamp and function id, carries the
 * registers and stack bytes recorded, and the index event names the record;
 * a thread without details gets no detail.atf; the validator finds nothing.
 * FREGS (the FP registers) become the detail event's fregs with flags bit 0
 * (docs/atf-extensions.md). The views' events (src_event.regs, .fregs)
 * carry the registers and FP registers from the raw trace, decoded here or
 * ahead, and from the ATF alike.
 *
 * The trace is built by hand around a real ELF compiled here, so that its
 * functions resolve: process.meta as the runtime writes it, thread files
 * from the runtime's encoder plus DETAIL records.
 */
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

#include "atf.h"
#include "check.h"
#include "convert.h"
#include "json.h"
#include "lib/capture.h"
#include "raw_fixture.h"
#include "source.h"
#include "symtab.h"

#define PID 4242
#define BIAS 0x555555554000ull
#define BOOT_NS 5000000000ull /* CLOCK pairs: tick t is BOOT_NS + t ns */

static const char prog_src[] =
	"int add(int a, int b) { return a + b; }\n"
	"int mul(int a, int b) { return a * b; }\n"
	"int main(void) { return add(mul(2, 3), 4) - 10; }\n";

enum { F_MAIN, F_ADD, F_MUL, NF };
static const char *const fnames[NF] = { "main", "add", "mul" };

struct world {
	char root[64];
	char pid_dir[160];
	char raw[192];
	char prog[192];
	uint64_t addr[NF];        /* process addresses of the functions, in FUNCS order */
	uint64_t function_id[NF]; /* what ATF must call them: module 1 */
	uint8_t build_id[32];
	uint32_t build_id_len;
	struct rf_meta meta;
};

static struct world *w;

/* ---- the program whose functions the trace names --------------------------------- */

static void build_program(void)
{
	char src[200], cmd[600];
	struct ada_symtab *st;

	snprintf(src, sizeof(src), "%s/prog.c", w->root);
	rf_write_file(src, prog_src, sizeof(prog_src) - 1);
	snprintf(w->prog, sizeof(w->prog), "%s/prog", w->root);
	/* Built in fentry mode, as adacc would: the manifest reads the mode
	 * from the hook the program imports (glibc provides one to link with). */
	snprintf(cmd, sizeof(cmd), "gcc -O0 -g -pg -mfentry -Wl,--build-id=sha1 -o %s %s", w->prog, src);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ada_symtab_load(w->prog, &st), 0);
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	for (int f = 0; f < NF; f++) {
		size_t i;

		for (i = 0; i < st->nfuncs && strcmp(st->funcs[i].name, fnames[f]); i++)
			;
		assert_true(i < st->nfuncs);
		w->addr[f] = BIAS + st->funcs[i].addr;
		w->function_id[f] = 1ull << 32 | (i + 1);
	}
	w->build_id_len = st->build_id_len;
	memcpy(w->build_id, st->build_id, sizeof(w->build_id));
	assert_true(w->build_id_len > 0);
	ada_symtab_free(st);
}

/* ---- process.meta ------------------------------------------------------------------- */

static void write_meta(void)
{
	struct ada_meta_process p = { .pid = PID, .ppid = 1, .start_tsc = 0,
				      .start_boottime_ns = BOOT_NS };
	struct ada_meta_clock c0 = { 0, BOOT_NS, 10 }, c1 = { 1000000, BOOT_NS + 1000000, 10 };
	struct ada_meta_module m = { .module_no = 0, .build_id_len = w->build_id_len, .bias = BIAS,
				     .vaddr_lo = 0, .vaddr_hi = 0x100000, .load_tsc = 1 };
	struct ada_meta_funcs fs = { 1, NF };
	struct ada_meta_thread t0 = { .ordinal = 0, .os_tid = PID, .name = "prog" };
	struct ada_meta_thread t1 = { .ordinal = 1, .os_tid = PID + 1, .name = "worker" };
	struct ada_meta_thread_end e1 = { .ordinal = 1, .flags = ADA_TEND_EXITED, .end_tsc = 900,
					  .events = 2 };
	struct ada_meta_end end = { .end_tsc = 1000, .end_boottime_ns = BOOT_NS + 1000 };
	static const char strings[] = "/prog\0prog\0";
	static const char config[] = "ring_kb=64\0";
	char path[256];

	memcpy(m.build_id, w->build_id, sizeof(m.build_id));
	rf_meta_header(&w->meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	rf_meta_record(&w->meta, ADA_META_PROCESS, &p, sizeof(p), strings, sizeof(strings) - 1);
	rf_meta_record(&w->meta, ADA_META_CONFIG, config, sizeof(config) - 1, NULL, 0);
	rf_meta_record(&w->meta, ADA_META_CLOCK, &c0, sizeof(c0), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_CLOCK, &c1, sizeof(c1), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_MODULE, &m, sizeof(m), w->prog, strlen(w->prog) + 1);
	rf_meta_record(&w->meta, ADA_META_FUNCS, &fs, sizeof(fs), w->addr, sizeof(w->addr));
	rf_meta_record(&w->meta, ADA_META_THREAD, &t0, sizeof(t0), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_THREAD, &t1, sizeof(t1), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_THREAD_END, &e1, sizeof(e1), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_END, &end, sizeof(end), NULL, 0);
	snprintf(path, sizeof(path), "%s/process.meta", w->raw);
	rf_write_file(path, w->meta.buf, w->meta.len);
}

/* ---- the threads --------------------------------------------------------------------- */

/* What thread 0 recorded, in order: each event and, if seed != 0, the
 * detail rf_make_detail(seed, stack) made for it. */
struct step {
	uint64_t tsc;
	unsigned kind;   /* ADA_RAW_* */
	int fn;          /* F_* */
	unsigned seed;   /* 0: no detail */
	uint16_t stack;
	unsigned fseed;  /* FREGS rf_make_fregs(fseed) made after it; 0: none */
};

static const struct step thread0[] = {
	{ 100, ADA_RAW_CALL, F_MAIN, 1, 32, 11 },
	{ 110, ADA_RAW_CALL, F_MUL, 0, 0, 0 },       /* no detail: detail_full, counted */
	{ 120, ADA_RAW_RETURN, F_MUL, 2, 0, 12 },
	{ 130, ADA_RAW_CALL, F_ADD, 3, ADA_STACK_MAX, 0 }, /* a detail without FREGS */
	{ 140, ADA_RAW_RETURN, F_ADD, 0, 0, 0 },
	/* second frame */
	{ 300, ADA_RAW_CALL, F_MUL, 4, 8, 14 },
	{ 310, ADA_RAW_EXCEPTION, F_MUL, 5, 16, 15 }, /* a return record (type 4) */
	{ 320, ADA_RAW_CALL, F_ADD, 6, 0, 16 },       /* left open: closed at the end */
};
#define NSTEPS (sizeof(thread0) / sizeof(thread0[0]))
#define SECOND_FRAME 5

static void write_thread0(void)
{
	struct ada_enc_stream enc = { 0 };
	struct ada_fdict dict;
	struct rf_frame *f = calloc(1, sizeof(*f));
	char path[256];

	assert_non_null(f);
	rf_fdict_init(&dict, w->addr, NF);
	snprintf(path, sizeof(path), "%s/thread_0.lz4", w->raw);
	for (size_t i = 0; i < NSTEPS; i++) {
		const struct step *s = &thread0[i];

		if (i == 0 || i == SECOND_FRAME) {
			if (i) {
				uint8_t lost[ADA_ENC_LOST_MAX];

				rf_put(f, lost, ada_encode_lost(ADA_DROP_DETAIL_FULL, 1, lost));
				rf_append(path, f);
			}
			rf_sync(f, &enc, s->tsc);
		}
		rf_event(f, &enc, &dict, s->tsc, s->kind, w->addr[s->fn]);
		if (s->seed) {
			struct ada_raw_detail d;
			uint8_t stack[ADA_STACK_MAX];

			rf_make_detail(s->seed, s->stack, &d, stack);
			rf_detail(f, &d, stack);
			if (s->fseed)
				rf_fregs(f, s->fseed);
		}
	}
	rf_append(path, f);
	ada_enc_stream_free(&enc);
	ada_fdict_free(&dict);
	free(f);
}

static void write_thread1(void)
{
	struct ada_enc_stream enc = { 0 };
	struct ada_fdict dict;
	struct rf_frame *f = calloc(1, sizeof(*f));
	char path[256];

	assert_non_null(f);
	rf_fdict_init(&dict, w->addr, NF);
	snprintf(path, sizeof(path), "%s/thread_1.lz4", w->raw);
	rf_sync(f, &enc, 200);
	rf_event(f, &enc, &dict, 200, ADA_RAW_CALL, w->addr[F_ADD]);
	rf_event(f, &enc, &dict, 210, ADA_RAW_RETURN, w->addr[F_ADD]);
	rf_append(path, f);
	ada_enc_stream_free(&enc);
	ada_fdict_free(&dict);
	free(f);
}

/* ---- the trace, built and converted once for every test ---------------------------- */

static int setup(void **state)
{
	char session[128];
	const struct conv_options quiet = { .quiet = true };

	(void)state;
	w = calloc(1, sizeof(*w));
	strcpy(w->root, "/tmp/ada_test_convdetail_XXXXXX");
	assert_non_null(mkdtemp(w->root));
	snprintf(session, sizeof(session), "%s/session_20260101_120000", w->root);
	snprintf(w->pid_dir, sizeof(w->pid_dir), "%s/pid_%d", session, PID);
	snprintf(w->raw, sizeof(w->raw), "%s/raw", w->pid_dir);
	assert_int_equal(mkdir(session, 0755), 0);
	assert_int_equal(mkdir(w->pid_dir, 0755), 0);
	assert_int_equal(mkdir(w->raw, 0755), 0);
	build_program();
	write_meta();
	write_thread0();
	write_thread1();
	assert_int_equal(convert_process(w->pid_dir, w->pid_dir, &quiet), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rf_remove_tree(w->root);
	free(w);
	return 0;
}

/* ---- reading back --------------------------------------------------------------------- */

static void map_index(uint32_t tid, struct atf_index_file *f)
{
	char path[256], err[256] = "";

	snprintf(path, sizeof(path), "%s/thread_%u/index.atf", w->pid_dir, tid);
	if (atf_index_map(path, f, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
}

static void map_detail(uint32_t tid, struct atf_detail_file *f)
{
	char path[256], err[256] = "";

	snprintf(path, sizeof(path), "%s/thread_%u/detail.atf", w->pid_dir, tid);
	if (atf_detail_map(path, f, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
}

static void expect_record(const struct atf_detail *d, const struct atf_event *ev, uint64_t i,
			  const struct step *s)
{
	struct ada_raw_detail want;
	uint8_t stack[ADA_STACK_MAX];
	uint64_t fregs[8];

	rf_make_detail(s->seed, s->stack, &want, stack);
	assert_int_equal(d->index_seq, i);
	assert_int_equal(d->event_type, s->kind == ADA_RAW_CALL ? ATF_DETAIL_CALL : ATF_DETAIL_RETURN);
	assert_int_equal(d->flags, s->fseed ? ATF_DETAIL_FLAG_FREGS : 0);
	rf_make_fregs(s->fseed, fregs);
	for (int r = 0; r < 8; r++)
		assert_int_equal(d->fregs[r], s->fseed ? fregs[r] : 0);
	assert_int_equal(d->timestamp_ns, ev->timestamp_ns);
	assert_int_equal(d->function_id, ev->function_id);
	for (int r = 0; r < 8; r++)
		assert_int_equal(d->regs[r], want.regs[r]);
	assert_int_equal(d->lr, want.lr);
	assert_int_equal(d->fp, want.fp);
	assert_int_equal(d->sp, want.sp);
	assert_int_equal(d->stack_size, s->stack);
	if (s->stack)
		assert_memory_equal(d->stack, stack, s->stack);
}

/* Index event i against step i: kind, time, function, depth. */
static void expect_event(const struct atf_event *ev, const struct step *s, uint32_t depth)
{
	static const uint32_t kinds[] = { ATF_CALL, ATF_RETURN, ATF_EXCEPTION };

	assert_int_equal(ev->kind, kinds[s->kind]);
	assert_int_equal(ev->timestamp_ns, BOOT_NS + s->tsc);
	assert_int_equal(ev->function_id, w->function_id[s->fn]);
	assert_int_equal(ev->thread_id, 0);
	assert_int_equal(ev->call_depth, depth);
}

static void test_convert_detail_links_both_ways_with_exact_contents(void **state)
{
	static const uint32_t depth[NSTEPS] = { 1, 2, 2, 2, 2, 2, 2, 2 };
	struct atf_index_file idx;
	struct atf_detail_file det;
	struct atf_detail d;
	struct atf_event ev;
	uint64_t pos = 0, nd = 0;

	(void)state;
	map_index(0, &idx);
	map_detail(0, &det);
	assert_int_equal(idx.flags, ATF_FLAG_HAS_DETAIL);
	assert_int_equal(idx.event_count, NSTEPS + 2); /* + add and main closed at the end */
	assert_int_equal(det.thread_id, 0);
	assert_int_equal(det.arch, ATF_ARCH_X86_64);
	assert_int_equal(det.event_count, 6);
	for (uint64_t i = 0; i < NSTEPS; i++) {
		const struct step *s = &thread0[i];

		atf_index_get(&idx, i, &ev);
		expect_event(&ev, s, depth[i]);
		if (!s->seed) {
			assert_int_equal(ev.detail_seq, ATF_NO_DETAIL);
			continue;
		}
		assert_int_equal(ev.detail_seq, nd); /* 0, 1, 2, ... in index order */
		assert_true(atf_detail_next(&det, &pos, &d));
		expect_record(&d, &ev, i, s);
		nd++;
	}
	assert_false(atf_detail_next(&det, &pos, &d));
	assert_int_equal(det.index_seq_start, 0);
	assert_int_equal(det.index_seq_end, 7);
	assert_int_equal(det.time_start_ns, BOOT_NS + 100);
	assert_int_equal(det.time_end_ns, BOOT_NS + 320);
	/* The frames left open close as EXCEPTION, with no detail of their own. */
	for (uint64_t i = NSTEPS; i < NSTEPS + 2; i++) {
		atf_index_get(&idx, i, &ev);
		assert_int_equal(ev.kind, ATF_EXCEPTION);
		assert_int_equal(ev.detail_seq, ATF_NO_DETAIL);
		assert_int_equal(ev.timestamp_ns, BOOT_NS + 320);
		assert_int_equal(ev.function_id, w->function_id[i == NSTEPS ? F_ADD : F_MAIN]);
	}
	atf_detail_unmap(&det);
	atf_index_unmap(&idx);
}

static void test_convert_detail_thread_without_details_has_no_file(void **state)
{
	struct atf_index_file idx;
	char path[256];

	(void)state;
	map_index(1, &idx);
	assert_int_equal(idx.flags, 0);
	assert_int_equal(idx.event_count, 2);
	atf_index_unmap(&idx);
	snprintf(path, sizeof(path), "%s/thread_1/detail.atf", w->pid_dir);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_convert_detail_manifest_tells_which_threads_have_detail(void **state)
{
	const struct json_value *threads, *t;
	struct json_doc *doc;
	char path[256], err[256] = "";
	bool b = true;
	uint64_t n = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/manifest.json", w->pid_dir);
	if (json_parse_file(path, &doc, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	assert_string_equal(json_string(json_get(json_root(doc), "mode")), "fentry");
	threads = json_get(json_root(doc), "threads");
	assert_int_equal(json_count(threads), 2);
	t = json_at(threads, 0);
	assert_true(json_bool(json_get(t, "has_detail"), &b) && b);
	assert_true(json_u64(json_get(t, "detail_events"), &n));
	assert_int_equal(n, 6);
	t = json_at(threads, 1);
	assert_true(json_bool(json_get(t, "has_detail"), &b) && !b);
	json_free(doc);
}

static void test_convert_detail_output_passes_the_validator(void **state)
{
	(void)state;
	rf_expect_valid(w->pid_dir);
}

/* Thread 0's events as the views read them (src_next), decoded here or
 * ahead: whether each had registers, and their first; whether it had FP
 * registers, and them. */
struct seen {
	int open, end;       /* src_open's and the last src_next's results */
	size_t n;
	bool regs[NSTEPS + 2], has_fregs[NSTEPS + 2];
	uint64_t reg0[NSTEPS + 2], fregs[NSTEPS + 2][8];
};

static void read_src(bool async, struct seen *out)
{
	struct src_process *p;
	struct src_stream *st;
	const struct src_event *ev;

	memset(out, 0, sizeof(*out));
	if ((out->open = src_open(w->pid_dir, &p)))
		return;
	st = async ? src_stream_open_async(p, 0) : src_stream_open(p, 0);
	while (st && (out->end = src_next(st, &ev)) > 0 && out->n < NSTEPS + 2) {
		out->regs[out->n] = ev->regs != NULL;
		if (ev->regs)
			out->reg0[out->n] = ev->regs[0];
		out->has_fregs[out->n] = ev->fregs != NULL;
		if (ev->fregs)
			memcpy(out->fregs[out->n], ev->fregs, sizeof(out->fregs[0]));
		out->n++;
	}
	src_stream_close(st);
	src_close(p);
}

/* Each step's registers exactly where it had a detail, and its FP
 * registers where it had a FREGS; NULL elsewhere (no detail, a detail
 * without FREGS, the frames closed at the end). */
static void expect_src_regs(const struct seen *got)
{
	struct ada_raw_detail want;
	uint8_t stack[ADA_STACK_MAX];
	uint64_t fregs[8];

	assert_int_equal(got->open, 0);
	assert_int_equal(got->end, 0);
	assert_int_equal(got->n, NSTEPS + 2);
	for (size_t i = 0; i < NSTEPS + 2; i++) {
		unsigned seed = i < NSTEPS ? thread0[i].seed : 0, fseed = i < NSTEPS ? thread0[i].fseed : 0;

		assert_int_equal(got->regs[i], seed != 0);
		if (seed) {
			rf_make_detail(seed, 0, &want, stack);
			assert_int_equal(got->reg0[i], want.regs[0]);
		}
		assert_int_equal(got->has_fregs[i], fseed != 0);
		if (fseed) {
			rf_make_fregs(fseed, fregs);
			assert_memory_equal(got->fregs[i], fregs, sizeof(fregs));
		}
	}
}

static void test_convert_detail_views_see_the_registers_of_the_raw_trace(void **state)
{
	struct seen got;

	(void)state;
	read_src(false, &got);
	expect_src_regs(&got);
	read_src(true, &got);
	expect_src_regs(&got);
}

/* With raw/ gone, the views read the ATF: the same registers and FP
 * registers (ATF_DETAIL_FLAG_FREGS), also for the events after one without
 * a detail (the record that links back to an
 * event by its index position, not by its detail_seq). */
static void test_convert_detail_views_see_the_registers_of_the_atf(void **state)
{
	struct seen sync, async;
	char away[256];

	(void)state;
	snprintf(away, sizeof(away), "%s.away", w->raw);
	assert_int_equal(rename(w->raw, away), 0);
	read_src(false, &sync);
	read_src(true, &async);
	assert_int_equal(rename(away, w->raw), 0);
	expect_src_regs(&sync);
	expect_src_regs(&async);
}

/* Converting again gives the same files, and none stale. */
static void test_convert_detail_converting_again_gives_the_same_detail(void **state)
{
	const struct conv_options quiet = { .quiet = true };
	struct atf_detail_file a, b;
	uint8_t *first;
	size_t len;

	(void)state;
	map_detail(0, &a);
	len = a.map_len;
	first = malloc(len);
	memcpy(first, a.map, len);
	atf_detail_unmap(&a);
	assert_int_equal(convert_process(w->pid_dir, w->pid_dir, &quiet), 0);
	map_detail(0, &b);
	assert_int_equal(b.map_len, len);
	assert_memory_equal(b.map, first, len);
	atf_detail_unmap(&b);
	free(first);
}

/* The summary says a detail record not kept apart from events not
 * recorded: the event is in the trace. */
static void test_convert_detail_summary_tells_detail_full_from_lost_events(void **state)
{
	const struct conv_options loud = { .quiet = false };
	const char *text;
	int ret;

	(void)state;
	capture_fd_begin(STDOUT_FILENO);
	ret = convert_process(w->pid_dir, w->pid_dir, &loud);
	text = capture_end();
	assert_int_equal(ret, 0);
	if (!strstr(text, "1 detail records were not kept, their events were") ||
	    strstr(text, "events were not recorded"))
		fail_msg("summary:\n%s", text);
}

#define T(name) cmocka_unit_test(name)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_convert_detail_links_both_ways_with_exact_contents),
		T(test_convert_detail_thread_without_details_has_no_file),
		T(test_convert_detail_manifest_tells_which_threads_have_detail),
		T(test_convert_detail_output_passes_the_validator),
		T(test_convert_detail_views_see_the_registers_of_the_raw_trace),
		T(test_convert_detail_views_see_the_registers_of_the_atf),
		T(test_convert_detail_converting_again_gives_the_same_detail),
		T(test_convert_detail_summary_tells_detail_full_from_lost_events),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
