/* raw_fixture.h - builds raw trace files for the symbolizer's tests.
 *
 * Thread files: the runtime's encoder writes the events (SYNC, CALL,
 * RETURN, EXCEPTION), the test appends DETAIL records (and anything
 * malformed) by hand where it wants them, and each frame is written as one
 * LZ4 frame with the writer's preferences (recorder/writer.c).
 *
 * process.meta: record by record as RAW_FORMAT.md lays them out, in memory,
 * so that a test can also cut or corrupt the bytes before writing them.
 */
#ifndef ADA_TEST_RAW_FIXTURE_H
#define ADA_TEST_RAW_FIXTURE_H

#include <ftw.h>
#include <lz4frame.h>
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
#include "encode.h"
#include "json.h"
#include "lib/capture.h"
#include "raw.h"
#include "raw_format.h"

#define RF_DETAIL_TAG (ADA_RAW_CONTROL | ADA_CTL_DETAIL << 2)
#define RF_FREGS_TAG (ADA_RAW_CONTROL | ADA_CTL_FREGS << 2)

#define RF_POS_TAG (ADA_RAW_CONTROL | ADA_CTL_POS << 2)

/* One frame's decompressed bytes, and the ring position of the thread's
 * next event: kept from frame to frame, as the writer's POS is. */
struct rf_frame {
	uint8_t buf[1 << 16];
	size_t len;
	uint64_t pos;
};

static inline void rf_put(struct rf_frame *f, const void *p, size_t n)
{
	assert_true(f->len + n <= sizeof(f->buf));
	memcpy(f->buf + f->len, p, n);
	f->len += n;
}

/* POS: the tag, then the position as a varint. */
static inline size_t rf_encode_pos(uint64_t pos, uint8_t *out)
{
	out[0] = RF_POS_TAG;
	return 1 + ada_put_varint(out + 1, pos);
}

/* Starts a frame as the writer does (format version 3): SYNC, then POS. */
static inline void rf_sync(struct rf_frame *f, struct ada_enc_stream *enc, uint64_t tsc)
{
	f->len = 0;
	f->len += ada_encode_sync(enc, tsc, f->pos, f->buf);
}

/* One event as the encoder writes it; kind = ADA_RAW_CALL/RETURN/EXCEPTION. */
static inline void rf_event(struct rf_frame *f, struct ada_enc_stream *enc, struct ada_fdict *dict,
			    uint64_t tsc, unsigned kind, uint64_t addr)
{
	const struct ada_slot slot = { tsc, addr | (uint64_t)kind << 62 };
	size_t n;

	assert_true(f->len + ada_encode_bound(1) <= sizeof(f->buf));
	n = ada_encode_slots(enc, dict, &slot, 1, f->buf + f->len, NULL);
	assert_int_not_equal(n, (size_t)-1);
	f->len += n;
	f->pos += n > 0; /* a close with nothing open is not written */
}

/* A DETAIL record: tag, the packed struct, d->stack_size bytes of stack. */
static inline void rf_detail(struct rf_frame *f, const struct ada_raw_detail *d,
			     const uint8_t *stack)
{
	const uint8_t tag = RF_DETAIL_TAG;

	rf_put(f, &tag, 1);
	rf_put(f, d, ADA_RAW_DETAIL_SIZE);
	if (d->stack_size)
		rf_put(f, stack, d->stack_size);
}

/* A FREGS record (format version 4, right after a DETAIL): the tag, then
 * the eight words rf_make_fregs(seed) makes. */
static inline void rf_make_fregs(unsigned seed, uint64_t fregs[8])
{
	for (unsigned r = 0; r < 8; r++)
		fregs[r] = 0x4000000000000000ull | (uint64_t)seed << 16 | r;
}

static inline void rf_fregs(struct rf_frame *f, unsigned seed)
{
	const uint8_t tag = RF_FREGS_TAG;
	uint64_t fregs[8];

	rf_make_fregs(seed, fregs);
	rf_put(f, &tag, 1);
	rf_put(f, fregs, ADA_RAW_FREGS_SIZE);
}

/* A detail whose every field says which it is (seed) and where it sits. */
static inline void rf_make_detail(unsigned seed, uint16_t stack_size, struct ada_raw_detail *d,
				  uint8_t *stack)
{
	memset(d, 0, sizeof(*d));
	for (unsigned r = 0; r < 8; r++)
		d->regs[r] = (uint64_t)seed << 40 | (uint64_t)r << 8 | 0x11;
	d->lr = 0x555555555000ull + seed;
	d->fp = 0x7ffd00000000ull + 0x100ull * seed;
	d->sp = 0x7ffd00000000ull + 0x100ull * seed - 0x38;
	d->stack_size = stack_size;
	for (unsigned b = 0; b < stack_size; b++)
		stack[b] = (uint8_t)(seed * 31 + b);
}

/* Appends len bytes as one LZ4 frame to `path`, with writer.c's
 * preferences; returns the compressed size. */
static inline size_t rf_append_bytes(const char *path, const void *data, size_t len)
{
	LZ4F_preferences_t prefs;
	LZ4F_cctx *cctx;
	size_t cap, n, total;
	uint8_t *out;
	FILE *fp;

	memset(&prefs, 0, sizeof(prefs));
	prefs.frameInfo.blockSizeID = LZ4F_max1MB;
	prefs.frameInfo.blockMode = LZ4F_blockIndependent;
	prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	cap = LZ4F_compressBound(len, &prefs) + LZ4F_HEADER_SIZE_MAX;
	out = malloc(cap);
	assert_non_null(out);
	assert_false(LZ4F_isError(LZ4F_createCompressionContext(&cctx, LZ4F_VERSION)));
	n = LZ4F_compressBegin(cctx, out, cap, &prefs);
	assert_false(LZ4F_isError(n));
	total = n;
	n = LZ4F_compressUpdate(cctx, out + total, cap - total, data, len, NULL);
	assert_false(LZ4F_isError(n));
	total += n;
	n = LZ4F_compressEnd(cctx, out + total, cap - total, NULL);
	assert_false(LZ4F_isError(n));
	total += n;
	LZ4F_freeCompressionContext(cctx);
	fp = fopen(path, "ab");
	assert_non_null(fp);
	assert_int_equal(fwrite(out, 1, total, fp), total);
	assert_int_equal(fclose(fp), 0);
	free(out);
	return total;
}

/* Appends f as one LZ4 frame to `path`; returns the compressed size. */
static inline size_t rf_append(const char *path, const struct rf_frame *f)
{
	return rf_append_bytes(path, f->buf, f->len);
}

/* A scratch trace directory with raw/ in it and the path of thread 0's
 * file: made from a mkdtemp template, removed with what a test left. */
struct rf_thread_file {
	char dir[64];   /* mkdtemp */
	char raw[96];   /* dir/raw */
	char path[128]; /* raw/thread_0.lz4 */
};

static inline void rf_thread_file_make(struct rf_thread_file *t, const char *tmpl)
{
	snprintf(t->dir, sizeof(t->dir), "%s", tmpl);
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->raw, sizeof(t->raw), "%s/raw", t->dir);
	assert_int_equal(mkdir(t->raw, 0755), 0);
	snprintf(t->path, sizeof(t->path), "%s/thread_0.lz4", t->raw);
}

static inline void rf_thread_file_remove(const struct rf_thread_file *t)
{
	unlink(t->path);
	rmdir(t->raw);
	rmdir(t->dir);
}

static inline int rf_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Removes a scratch directory and everything in it. */
static inline void rf_remove_tree(const char *root)
{
	nftw(root, rf_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* What ada-symbolize wrote under pid_dir passes its validator (--check). */
static inline void rf_expect_valid(const char *pid_dir)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int violations = -1;

	assert_int_equal(ada_check_path(pid_dir, out, &violations), 0);
	fclose(out);
	if (violations)
		fail_msg("%s", text);
	assert_non_null(strstr(text, ": OK"));
	free(text);
}

/* A dictionary that gives addr[i] the fid i + 1, as a FUNCS record listing
 * addr in that order makes the symbolizer expect. */
static inline void rf_fdict_init(struct ada_fdict *dict, const uint64_t *addr, size_t n)
{
	assert_int_equal(ada_fdict_init(dict), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ada_fdict_get(dict, addr[i]), (uint32_t)i + 1);
}

/* ---- process.meta ---------------------------------------------------------------- */

struct rf_meta {
	uint8_t buf[16384];
	size_t len;
};

static inline void rf_meta_put(struct rf_meta *m, const void *p, size_t n)
{
	assert_true(m->len + n <= sizeof(m->buf));
	memcpy(m->buf + m->len, p, n);
	m->len += n;
}

/* Starts the file over: its header alone. */
static inline void rf_meta_header(struct rf_meta *m, const char *magic, uint32_t version,
				  uint8_t endian)
{
	struct ada_meta_file_header h = { .version = version, .arch = ADA_ARCH_X86_64,
					  .endian = endian, .header_size = sizeof(h) };

	memcpy(h.magic, magic, 8);
	m->len = 0;
	rf_meta_put(m, &h, sizeof(h));
}

/* One record: header, payload, extra, zero padding to a multiple of 8. */
static inline void rf_meta_record(struct rf_meta *m, uint32_t type, const void *payload,
				  size_t len, const void *extra, size_t extra_len)
{
	struct ada_meta_rec r = { type, (uint32_t)(len + extra_len) };
	static const uint8_t zeros[8];

	rf_meta_put(m, &r, sizeof(r));
	rf_meta_put(m, payload, len);
	if (extra_len)
		rf_meta_put(m, extra, extra_len);
	rf_meta_put(m, zeros, (8 - (len + extra_len) % 8) % 8);
}

/* A scratch directory for a process.meta, from a mkdtemp template. */
struct rf_meta_dir {
	char dir[64];
	char path[96]; /* dir/process.meta */
};

static inline int rf_meta_dir_make(struct rf_meta_dir *d, const char *tmpl)
{
	snprintf(d->dir, sizeof(d->dir), "%s", tmpl);
	if (!mkdtemp(d->dir))
		return -1;
	snprintf(d->path, sizeof(d->path), "%s/process.meta", d->dir);
	return 0;
}

static inline void rf_meta_dir_remove(const struct rf_meta_dir *d)
{
	unlink(d->path);
	rmdir(d->dir);
}

/* raw_process_load(dir, p), what it wrote to stderr in *err (valid until
 * the next capture). */
static inline int rf_meta_load(const char *dir, struct raw_process *p, const char **err)
{
	int rc;

	capture_begin();
	rc = raw_process_load(dir, p);
	*err = capture_end();
	return rc;
}

/* `path` holds the n bytes at p, and nothing else. */
static inline void rf_write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* ---- a whole pid directory, converted ------------------------------------------ */

/* CLOCK pairs that make tick t convert to RF_BOOT_NS + t ns. */
#define RF_BOOT_NS 5000000000ull

/* root/session_…/pid_<pid>/raw, from a mkdtemp template. */
struct rf_trace {
	char root[64];
	char pid_dir[160];
	char raw[192];
	char meta[224];  /* raw/process.meta */
};

static inline void rf_trace_make(struct rf_trace *t, const char *tmpl, uint32_t pid)
{
	char session[128];

	snprintf(t->root, sizeof(t->root), "%s", tmpl);
	assert_non_null(mkdtemp(t->root));
	snprintf(session, sizeof(session), "%s/session_20260101_120000", t->root);
	snprintf(t->pid_dir, sizeof(t->pid_dir), "%s/pid_%u", session, pid);
	snprintf(t->raw, sizeof(t->raw), "%s/raw", t->pid_dir);
	snprintf(t->meta, sizeof(t->meta), "%s/process.meta", t->raw);
	assert_int_equal(mkdir(session, 0755), 0);
	assert_int_equal(mkdir(t->pid_dir, 0755), 0);
	assert_int_equal(mkdir(t->raw, 0755), 0);
}

/* A version 3 process.meta begun: header, PROCESS of pid, the CLOCK pairs.
 * Functions in no MODULE get synthetic names in module 1, indexed by
 * address from 1. */
static inline void rf_meta_begin(struct rf_meta *m, uint32_t pid)
{
	struct ada_meta_process p = { .pid = pid, .ppid = 1, .start_boottime_ns = RF_BOOT_NS };
	struct ada_meta_clock c0 = { 0, RF_BOOT_NS, 10 }, c1 = { 1000000, RF_BOOT_NS + 1000000, 10 };

	rf_meta_header(m, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	rf_meta_record(m, ADA_META_PROCESS, &p, sizeof(p), "/prog\0prog", 11);
	rf_meta_record(m, ADA_META_CLOCK, &c0, sizeof(c0), NULL, 0);
	rf_meta_record(m, ADA_META_CLOCK, &c1, sizeof(c1), NULL, 0);
}

/* One ATF event expected: kind (ATF_*), tick, symbol index in module 1, depth. */
struct rf_want {
	uint32_t kind;
	uint64_t tsc;
	uint32_t sym;
	uint32_t depth;
};

/* thread_<tid>/index.atf holds exactly these events. */
static inline void rf_expect_index(const char *pid_dir, uint32_t tid, const struct rf_want *want,
				   size_t n)
{
	char path[300], err[256] = "";
	struct atf_index_file f;
	struct atf_event ev;

	snprintf(path, sizeof(path), "%s/thread_%u/index.atf", pid_dir, tid);
	if (atf_index_map(path, &f, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	assert_int_equal(f.event_count, n);
	for (size_t i = 0; i < n; i++) {
		atf_index_get(&f, i, &ev);
		assert_int_equal(ev.kind, want[i].kind);
		assert_int_equal(ev.timestamp_ns, RF_BOOT_NS + want[i].tsc);
		assert_int_equal(ev.function_id, 1ull << 32 | want[i].sym);
		assert_int_equal(ev.call_depth, want[i].depth);
	}
	atf_index_unmap(&f);
}

/* convert_process of pid_dir into itself, quietly: its return, and what it
 * said on stderr in err. */
static inline int rf_convert(const char *pid_dir, char *err, size_t len)
{
	const struct conv_options quiet = { .quiet = true };
	int ret;

	capture_begin();
	ret = convert_process(pid_dir, pid_dir, &quiet);
	snprintf(err, len, "%s", capture_end());
	return ret;
}

/* pid_dir/manifest.json, parsed (json_free it). */
static inline struct json_doc *rf_manifest(const char *pid_dir)
{
	char path[300], err[256];
	struct json_doc *doc;

	snprintf(path, sizeof(path), "%s/manifest.json", pid_dir);
	if (json_parse_file(path, &doc, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	return doc;
}

/* The unsigned integer obj[key]; the test fails if there is none. */
static inline uint64_t rf_u64(const struct json_value *obj, const char *key)
{
	uint64_t v;

	if (!json_u64(json_get(obj, key), &v))
		fail_msg("no number \"%s\"", key);
	return v;
}

/* The whole of a small file, malloc'd, and its size. */
static inline uint8_t *rf_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

#endif
