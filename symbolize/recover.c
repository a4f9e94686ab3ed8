/* recover.c - folding ring files into the trace after an unclean end
 * (RAW_FORMAT.md §6).
 *
 * A process killed or crashed leaves its threads' ring files behind, and in
 * them the events its writer had not written yet: positions [max(tail,
 * head - slots), head) are intact whatever happened. Before such a process is
 * converted, each ring's events after the thread file's last whole frame
 * become one more frame of that file, encoded by the runtime's own encoder
 * (recorder/encode.c), so the converter reads one stream as if the writer had
 * written it. The order of the writes keeps every state on disk readable:
 * FUNCS (and THREAD) first, then the frame, then RECOVERED, then the ring is
 * unlinked; each file is fsync'ed before the next step relies on it.
 *
 * Memory stays bounded: the ring is read CHUNK slots at a time, twice (first
 * to learn the new functions, whose FUNCS record must precede the frame, then
 * to encode), and the frame is compressed as a stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "atf.h"
#include "convert.h"
#include "encode.h"
#include "frame.h"

#define CHUNK 4096 /* slots read at a time */
#define CUT_CALLS 16384 /* frames a ring-mode cut can enter (as snapshot.c's) */

/* A ring file being recovered, and what the thread file already holds. */
struct ring {
	const char *path;
	uint32_t ordinal;
	int fd;
	struct ada_ring_header h;
	bool have_file;          /* thread_<N>.lz4 exists and holds a whole frame */
	uint64_t file_pos;       /* the position after its last whole frame */
	uint64_t whole_end;      /* its bytes up to there */
	uint64_t stream_lost[ADA_DROP_NREASONS];
	uint64_t from, lost, events;
	/* ADA_RECORD=ring: the thread overwrote positions since the file's
	 * last frame, by design: the frame starts at the file's end with a
	 * cut over them (ada_encode_cut) instead of a gap counted as lost. */
	bool cut;
	uint64_t file_end, skip;
	size_t k;
	uint64_t calls[CUT_CALLS];
	struct ada_enc_stream enc; /* the stream's state at its end */
	uint64_t slots_buf[2 * CHUNK];
};

struct recovery {
	struct raw_process *p;
	int meta_fd;
	struct ada_fdict dict;   /* the process's fids, extended as needed */
	uint64_t events, lost;
	unsigned rings;
	bool ring_mode;          /* the process ran with ADA_RECORD=ring */
};

static int fail(const char *path, const char *what, int err)
{
	fprintf(stderr, "ada-symbolize: %s: %s\n", path, what);
	return err;
}

/* ---- is the process still running? ---------------------------------------------- */

/* A live process maps its ring files; a pid reused by another process does
 * not, so the maps, not the pid, decide. */
static bool still_running(const struct raw_process *p)
{
	char path[64], *line = NULL;
	size_t cap = 0, i;
	bool live = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", p->proc.pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!live && getline(&line, &cap, f) > 0)
		for (i = 0; i < p->nrings && !live; i++)
			live = strstr(line, p->rings[i].path) != NULL;
	free(line);
	fclose(f);
	return live;
}

/* ---- process.meta ---------------------------------------------------------------- */

/* One record, as the runtime writes it: header, payload (a, then b), zero
 * padding to a multiple of 8, in one writev so that it is whole or absent. */
static int meta_append(struct recovery *rc, uint32_t type, const void *a, size_t alen,
		       const void *b, size_t blen)
{
	static const uint8_t zeros[8];
	struct ada_meta_rec r = { type, (uint32_t)(alen + blen) };
	struct iovec iov[4] = {
		{ &r, sizeof(r) }, { (void *)a, alen }, { (void *)b, blen },
		{ (void *)zeros, (8 - (alen + blen) % 8) % 8 },
	};
	size_t want = sizeof(r) + alen + blen + iov[3].iov_len;
	ssize_t n = writev(rc->meta_fd, iov, 4);

	if (n != (ssize_t)want) {
		fprintf(stderr, "ada-symbolize: %s/process.meta: cannot append: %s\n", rc->p->dir,
			n < 0 ? strerror(errno) : "short write");
		return -EIO;
	}
	return 0;
}

/* Appending starts after the last whole record: a record cut short by the
 * crash would hide every record written after it from the reader. */
static int meta_open(struct recovery *rc)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/process.meta", rc->p->dir);
	rc->meta_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (rc->meta_fd < 0)
		return fail(path, strerror(errno), -errno);
	if ((rc->p->truncated && ftruncate(rc->meta_fd, (off_t)rc->p->meta_end) < 0) ||
	    lseek(rc->meta_fd, 0, SEEK_END) < 0)
		return fail(path, strerror(errno), -errno);
	return 0;
}

static int meta_sync(struct recovery *rc)
{
	if (fsync(rc->meta_fd) < 0) {
		fprintf(stderr, "ada-symbolize: %s/process.meta: fsync: %s\n", rc->p->dir,
			strerror(errno));
		return -EIO;
	}
	return 0;
}

/* The dictionary gives each known address its fid again, in FUNCS order,
 * so that new addresses get the next fids. */
static int dict_load(struct recovery *rc)
{
	size_t fid;

	if (ada_fdict_init(&rc->dict) < 0)
		return -ENOMEM;
	for (fid = 1; fid <= rc->p->nfids; fid++)
		if (ada_fdict_get(&rc->dict, rc->p->fid_addr[fid]) != fid) {
			fprintf(stderr, "ada-symbolize: %s/process.meta: FUNCS lists an address twice (fid %zu); cannot extend it\n",
				rc->p->dir, fid);
			return -EINVAL;
		}
	rc->dict.npending = 0;
	rc->dict.pending_first = rc->dict.next_fid;
	return 0;
}

/* New fids found in the ring, as one FUNCS record. */
static int write_new_funcs(struct recovery *rc)
{
	struct ada_meta_funcs f = { rc->dict.pending_first, (uint32_t)rc->dict.npending };
	int err;

	if (!f.count)
		return 0;
	err = meta_append(rc, ADA_META_FUNCS, &f, sizeof(f), rc->dict.pending,
			  f.count * sizeof(uint64_t));
	rc->dict.pending_first += f.count;
	rc->dict.npending = 0;
	return err;
}

/* ---- the ring file ---------------------------------------------------------------- */

static int ring_refused(const struct ring *r, const char *what)
{
	fprintf(stderr, "ada-symbolize: %s: %s; left in place\n", r->path, what);
	return -EINVAL;
}

static int ring_check(struct ring *r)
{
	struct stat st;
	char what[200];
	uint64_t need;

	if (pread(r->fd, &r->h, sizeof(r->h), 0) != sizeof(r->h) || fstat(r->fd, &st) < 0)
		return ring_refused(r, "cannot read a 256-byte ring header");
	if (memcmp(r->h.magic, ADA_RING_MAGIC, 8))
		return ring_refused(r, "not a ring file (magic is not " ADA_RING_MAGIC ")");
	if (r->h.version != ADA_RING_VERSION || r->h.ordinal != r->ordinal) {
		snprintf(what, sizeof(what), "ring version %u of thread %u, expected version %u of thread %u",
			 r->h.version, r->h.ordinal, ADA_RING_VERSION, r->ordinal);
		return ring_refused(r, what);
	}
	if (!r->h.slots || (r->h.slots & (r->h.slots - 1)) || r->h.slots > (1ull << 40)) {
		snprintf(what, sizeof(what), "ring of %llu slots, expected a power of two",
			 (unsigned long long)r->h.slots);
		return ring_refused(r, what);
	}
	need = ADA_RING_SLOTS_OFFSET + 16 * r->h.slots;
	if ((uint64_t)st.st_size < need || r->h.head < r->h.base) {
		snprintf(what, sizeof(what), "%llu bytes, expected at least %llu for %llu slots (head %llu, base %llu)",
			 (unsigned long long)st.st_size, (unsigned long long)need,
			 (unsigned long long)r->h.slots, (unsigned long long)r->h.head,
			 (unsigned long long)r->h.base);
		return ring_refused(r, what);
	}
	return 0;
}

/* Slots [pos, pos + n) into r->slots_buf; n never crosses the ring's end. */
static int ring_read(struct ring *r, uint64_t pos, size_t n)
{
	uint64_t idx = pos & (r->h.slots - 1);
	size_t bytes = n * sizeof(struct ada_slot);

	if (pread(r->fd, r->slots_buf, bytes, (off_t)(ADA_RING_SLOTS_OFFSET + 16 * idx)) !=
	    (ssize_t)bytes)
		return ring_refused(r, "cannot read its slots");
	return 0;
}

/* How many slots from pos to read next: up to CHUNK, head, or the ring's end. */
static size_t ring_run(const struct ring *r, uint64_t pos)
{
	uint64_t left = r->h.head - pos, to_end = r->h.slots - (pos & (r->h.slots - 1));
	uint64_t n = left < to_end ? left : to_end;

	return n < CHUNK ? (size_t)n : CHUNK;
}

/* ---- the thread file --------------------------------------------------------------- */

/* Reads thread_<N>.lz4 to its end: its position, its open frames (the
 * encoder's state, so the recovered events nest under them), its LOST notes. */
static int thread_tail(struct recovery *rc, struct ring *r)
{
	struct raw_stream *s = raw_stream_open(rc->p->dir, r->ordinal, rc->p->nfids, rc->p->version);
	const uint32_t *fids;
	struct raw_event ev;
	size_t i;
	int ret;

	if (!s)
		return -ENOMEM;
	while ((ret = raw_stream_next(s, &ev)) > 0)
		;
	r->have_file = raw_stream_position(s, &r->file_pos);
	r->whole_end = raw_stream_whole_end(s);
	memcpy(r->stream_lost, raw_stream_lost(s), sizeof(r->stream_lost));
	r->enc.last_tsc = raw_stream_last_tsc(s);
	r->enc.depth = r->enc.cap = raw_stream_open_frames(s);
	r->enc.open = malloc((r->enc.cap ? r->enc.cap : 1) * sizeof(*r->enc.open));
	fids = raw_stream_open_fids(s);
	for (i = 0; r->enc.open && i < r->enc.depth; i++)
		r->enc.open[i] = rc->p->fid_addr[fids[i]];
	raw_stream_close(s);
	if (!ret && !r->enc.open)
		ret = -ENOMEM;
	if (ret < 0)
		fprintf(stderr, "ada-symbolize: %s: not recovered: the thread file cannot be read to its end; left in place\n",
			r->path);
	return ret;
}

/* ---- the frame ---------------------------------------------------------------------- */

/* First pass: the events the frame will hold (a close with nothing open is
 * not written by the encoder, nor counted), and the fids of new functions. */
static int count_events(struct recovery *rc, struct ring *r)
{
	uint64_t depth = r->cut ? r->k : r->enc.depth, pos;
	size_t n, i;
	int err;

	r->events = r->cut ? r->enc.depth + r->k : 0; /* the cut's closes and calls */
	for (i = 0; r->cut && i < r->k; i++)
		if (!ada_fdict_get(&rc->dict, r->calls[i]))
			return -ENOMEM;
	for (pos = r->from; pos < r->h.head; pos += n) {
		const struct ada_slot *slots = (const void *)r->slots_buf;

		n = ring_run(r, pos);
		if ((err = ring_read(r, pos, n)))
			return err;
		for (i = 0; i < n; i++) {
			unsigned kind = ADA_SLOT_KIND(slots[i].word);

			if (kind == ADA_SLOT_ALLOC_KIND) { /* a block: a position, no frame */
				r->events++;
				continue;
			}
			if (kind == ADA_RAW_CALL) {
				if (!ada_fdict_get(&rc->dict, ADA_SLOT_ADDR(slots[i].word)))
					return -ENOMEM;
				depth++;
			} else if (depth) {
				depth--;
			} else {
				continue;
			}
			r->events++;
		}
	}
	return 0;
}

struct frame_out {
	int fd;
	const char *path;
	LZ4F_cctx *cctx;
	uint8_t *lz4, *enc;
	size_t lz4_cap;
};

/* Compresses len encoded bytes and appends what lz4 gives back. */
static int frame_put(struct frame_out *fo, const uint8_t *buf, size_t len)
{
	size_t n = LZ4F_compressUpdate(fo->cctx, fo->lz4, fo->lz4_cap, buf, len, NULL);

	if (LZ4F_isError(n))
		return fail(fo->path, LZ4F_getErrorName(n), -EIO);
	return n ? atf_write_all(fo->fd, fo->lz4, n) : 0;
}

/* The LOST notes: events the writer had taken but not written whole
 * (ring_full), and drops the header counted beyond those the stream has. */
static size_t encode_lost(const struct ring *r, uint8_t *out)
{
	size_t len = 0;
	unsigned k;

	for (k = 0; k < ADA_DROP_NREASONS; k++) {
		uint64_t more = r->h.dropped[k] > r->stream_lost[k] ? r->h.dropped[k] - r->stream_lost[k] : 0;

		if (k == ADA_DROP_RING_FULL)
			more += r->lost;
		if (more)
			len += ada_encode_lost(k, more, out + len);
	}
	return len;
}

/* SYNC, POS, the slots [from, head), SKIP, the LOST notes: one frame. */
static int frame_body(struct recovery *rc, struct ring *r, struct frame_out *fo)
{
	uint64_t pos = r->from, dropped = r->enc.dropped;
	size_t n, len, m0;
	int err;

	n = ring_run(r, pos);
	if (n && (err = ring_read(r, pos, n)))
		return err;
	if (r->cut) {
		len = ada_encode_sync(&r->enc, r->enc.last_tsc, r->file_end, fo->enc);
		m0 = ada_encode_cut(&r->enc, &rc->dict, r->skip, r->calls, r->k,
				    n ? ((struct ada_slot *)r->slots_buf)[0].tsc : r->enc.last_tsc,
				    fo->enc + len);
		if (m0 == (size_t)-1)
			return -ENOMEM;
		if ((err = frame_put(fo, fo->enc, len + m0)))
			return err;
		len = 0;
	} else {
		len = ada_encode_sync(&r->enc,
				      n ? ((struct ada_slot *)r->slots_buf)[0].tsc : r->enc.last_tsc,
				      r->from, fo->enc);
	}
	while (n) {
		size_t m = ada_encode_slots(&r->enc, &rc->dict, (const void *)r->slots_buf, n,
					    fo->enc + len, NULL);

		if (m == (size_t)-1)
			return -ENOMEM;
		if ((err = frame_put(fo, fo->enc, len + m)))
			return err;
		len = 0;
		pos += n;
		n = ring_run(r, pos);
		if (n && (err = ring_read(r, pos, n)))
			return err;
	}
	if (r->enc.dropped != dropped) /* closes with nothing open: not written */
		len += ada_encode_skip(r->enc.dropped - dropped, fo->enc + len);
	len += encode_lost(r, fo->enc + len);
	return frame_put(fo, fo->enc, len);
}

/* The frame, appended whole to the thread file (created if need be) after
 * its last whole frame, or not at all: a failure cuts the file back. */
static int write_frame(struct recovery *rc, struct ring *r)
{
	LZ4F_preferences_t prefs;
	size_t enc_cap = ada_encode_bound(CHUNK) + 16 + ADA_ENC_SKIP_MAX +
			 ADA_DROP_NREASONS * ADA_ENC_LOST_MAX;
	char path[4300];
	struct frame_out fo = { .path = path };
	size_t n;
	int err = -ENOMEM;

	ada_frame_prefs(&prefs); /* the recorder's frames */
	snprintf(path, sizeof(path), "%s/thread_%u.lz4", rc->p->dir, r->ordinal);
	fo.fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fo.fd < 0)
		return fail(path, strerror(errno), -errno);
	/* Whatever follows the last whole frame is a frame cut short: the
	 * reader would stop there and never see the recovered one. */
	if (ftruncate(fo.fd, (off_t)r->whole_end) < 0 || lseek(fo.fd, 0, SEEK_END) < 0) {
		err = fail(path, strerror(errno), -errno);
		goto out;
	}
	fo.lz4_cap = LZ4F_compressBound(enc_cap, &prefs) + LZ4F_HEADER_SIZE_MAX;
	fo.lz4 = malloc(fo.lz4_cap);
	fo.enc = malloc(enc_cap);
	if (!fo.lz4 || !fo.enc || LZ4F_isError(LZ4F_createCompressionContext(&fo.cctx, LZ4F_VERSION)))
		goto out;
	n = LZ4F_compressBegin(fo.cctx, fo.lz4, fo.lz4_cap, &prefs);
	if (LZ4F_isError(n) || (err = atf_write_all(fo.fd, fo.lz4, n)) ||
	    (err = frame_body(rc, r, &fo)))
		goto out;
	n = LZ4F_compressEnd(fo.cctx, fo.lz4, fo.lz4_cap, NULL);
	err = LZ4F_isError(n) ? -EIO : atf_write_all(fo.fd, fo.lz4, n);
	if (!err && fsync(fo.fd) < 0)
		err = -errno;
out:
	if (err && ftruncate(fo.fd, (off_t)r->whole_end) == 0)
		fprintf(stderr, "ada-symbolize: %s: recovered frame not written (%s)\n", path,
			strerror(-err));
	LZ4F_freeCompressionContext(fo.cctx);
	free(fo.lz4);
	free(fo.enc);
	close(fo.fd);
	return err;
}

/* ---- one ring ------------------------------------------------------------------------ */

/* Where the recovered events start: after the file's last whole frame, but
 * never below head - slots, which the thread has overwritten since. */
static void ring_plan(struct ring *r)
{
	uint64_t file_end = r->have_file ? r->file_pos : r->h.base;
	uint64_t oldest = r->h.head > r->h.slots ? r->h.head - r->h.slots : 0;

	r->from = file_end > oldest ? file_end : oldest;
	if (r->from > r->h.head) /* the file holds all of it */
		r->from = r->h.head;
	r->lost = r->from - file_end;
	r->file_end = file_end;
}

/* The frames [pos, head) returns from without entering them there. */
static int scan_cut(struct ring *r, uint64_t pos, size_t *k)
{
	struct ada_cut_scan cs = { 0, 0 };
	size_t n;
	int err;

	for (; pos < r->h.head; pos += n) {
		n = ring_run(r, pos);
		if ((err = ring_read(r, pos, n)))
			return err;
		ada_cut_scan(&cs, (const void *)r->slots_buf, n, r->calls, CUT_CALLS);
	}
	*k = cs.k;
	return 0;
}

/* Ring mode: positions before from are gone by design. The stream's open
 * frames close there and the frames the ring's events return from are
 * entered, each a position before from (which moves up if need be). */
static int ring_plan_cut(struct ring *r)
{
	size_t open = r->enc.depth;
	int err;

	if (r->from == r->file_end)
		return 0;
	for (unsigned tries = 0; tries < 8; tries++) {
		if ((err = scan_cut(r, r->from, &r->k)))
			return err;
		if (r->k <= CUT_CALLS && r->from - r->file_end >= open + r->k)
			break;
		if (r->h.head - r->file_end < open + (r->k <= CUT_CALLS ? r->k : CUT_CALLS))
			return ring_refused(r, "fewer positions than the frames a cut must close and enter");
		r->from = r->file_end + open + (r->k <= CUT_CALLS ? r->k : CUT_CALLS);
	}
	if (r->k > CUT_CALLS || r->from - r->file_end < open + r->k)
		return ring_refused(r, "no place for a cut with its frames");
	r->cut = true;
	r->skip = r->from - r->file_end - open - r->k;
	r->lost = 0;
	return 0;
}

/* A thread that died before its THREAD record reached the file gets one
 * from the ring header, so that the converter knows its tid. */
static int ensure_thread(struct recovery *rc, const struct ring *r)
{
	const struct raw_thread *t = raw_process_thread(rc->p, r->ordinal);
	struct ada_meta_thread rec = { .ordinal = r->ordinal, .os_tid = r->h.os_tid,
				       .start_tsc = r->h.start_tsc };

	if (t && t->registered)
		return 0;
	return meta_append(rc, ADA_META_THREAD, &rec, sizeof(rec), NULL, 0);
}

static bool frame_needed(const struct ring *r)
{
	uint8_t notes[ADA_DROP_NREASONS * ADA_ENC_LOST_MAX];

	return r->events || encode_lost(r, notes);
}

static int fold_ring(struct recovery *rc, struct ring *r)
{
	struct ada_meta_recovered rec = { .ordinal = r->ordinal };
	int err;

	if ((err = ring_check(r)) || (err = thread_tail(rc, r)))
		return err;
	ring_plan(r);
	if (rc->ring_mode && (err = ring_plan_cut(r)))
		return err;
	if ((err = count_events(rc, r)))
		return err;
	if (frame_needed(r)) {
		if ((err = ensure_thread(rc, r)) || (err = write_new_funcs(rc)) ||
		    (err = meta_sync(rc)) || (err = write_frame(rc, r)))
			return err;
	}
	rec.events = r->events;
	rec.lost = r->lost;
	rec.end_tsc = r->enc.last_tsc;
	if ((err = meta_append(rc, ADA_META_RECOVERED, &rec, sizeof(rec), NULL, 0)) ||
	    (err = meta_sync(rc)))
		return err;
	if (unlink(r->path) < 0)
		return fail(r->path, strerror(errno), -errno);
	rc->events += r->events;
	rc->lost += r->lost;
	rc->rings++;
	return 0;
}

/* A pool's ring (RING without a thread): the thread that took it last, from
 * its header, into r->ordinal; false if none did (or the header is
 * unreadable: ring_check says so). */
static bool ring_owner(struct ring *r)
{
	uint32_t ordinal;

	if (pread(r->fd, &ordinal, sizeof(ordinal), offsetof(struct ada_ring_header, ordinal)) !=
	    sizeof(ordinal))
		return true;
	r->ordinal = ordinal;
	return ordinal != ADA_RING_UNOWNED;
}

static int recover_ring(struct recovery *rc, const struct raw_ring *rr)
{
	struct ring *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	r->path = rr->path;
	r->ordinal = rr->ordinal;
	r->fd = open(rr->path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		/* Gone: the writer deleted it, or an earlier run recovered it. */
		err = errno == ENOENT ? 0 : fail(rr->path, strerror(errno), -errno);
	} else if (rr->ordinal == ADA_RING_UNOWNED && !ring_owner(r)) {
		/* A ready ring no thread took: nothing to recover. */
		close(r->fd);
		err = unlink(r->path) < 0 ? fail(r->path, strerror(errno), -errno) : 0;
	} else {
		err = fold_ring(rc, r);
		close(r->fd);
	}
	ada_enc_stream_free(&r->enc);
	free(r);
	return err;
}

/* Whether an earlier RING record names ring i's file: a ring the runtime
 * reused for a thread that started later (the file is folded once, for the
 * thread its header names). */
static bool named_before(const struct raw_process *p, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!strcmp(p->rings[k].path, p->rings[i].path))
			return true;
	return false;
}

int recover_process(struct raw_process *p, bool quiet, bool *changed)
{
	struct recovery rc = { .p = p, .meta_fd = -1 };
	int err = 0, ret = 0;
	size_t i;

	*changed = false;
	/* After a clean end the writer wrote every ring and removed its file,
	 * except where none ran: the rings were written to their files at the
	 * end, for this (the runtime's rings_only.c). */
	if ((p->clean_end && !(p->end.flags & ADA_END_RINGS)) || !p->nrings)
		return 0;
	if (still_running(p)) {
		fprintf(stderr, "ada-symbolize: pid %u: still running (its ring files are mapped): not recovered\n",
			p->proc.pid);
		return 0;
	}
	if ((err = meta_open(&rc)) || (err = dict_load(&rc)))
		goto out;
	rc.ring_mode = p->config && strstr(p->config, " record=ring ");
	/* A ring that cannot be recovered is named and left; the others are
	 * still folded in. */
	for (i = 0; i < p->nrings; i++) {
		if (named_before(p, i))
			continue;
		err = recover_ring(&rc, &p->rings[i]);
		if (err && !ret)
			ret = err;
	}
	err = 0;
	if (rc.rings && !quiet)
		printf("pid %u: recovered %llu events from %u ring file%s (%llu lost)\n", p->proc.pid,
		       (unsigned long long)rc.events, rc.rings, rc.rings == 1 ? "" : "s",
		       (unsigned long long)rc.lost);
out:
	*changed = rc.meta_fd >= 0;
	if (rc.meta_fd >= 0)
		close(rc.meta_fd);
	ada_fdict_free(&rc.dict);
	return err ? err : ret;
}
