/* raw_stream.c - decoding one thread_<N>.lz4 (format: runtime/raw_format.h).
 *
 * A frame's events are used only once the whole frame has decompressed and
 * its checksums matched (each block's; in traces older than recorder/frame.c
 * the content's): a file cut short by a crash then ends at its last complete
 * frame, and never yields half a frame's events.
 *
 * A DETAIL control record (fentry/mcount modes) belongs to the event just
 * before it, in the same frame: after decoding an event the decoder looks at
 * the next byte, and a DETAIL there is attached to the event. A DETAIL found
 * anywhere else (first in a frame, after SYNC or LOST, after another DETAIL)
 * describes nothing and is an error.
 *
 * Version 3 frames open with SYNC then POS, the ring position of the frame's
 * first event. A frame's POS must be the previous frame's plus the events
 * that frame held: one below is a frame written twice, one above a frame
 * lost, and either would silently corrupt the call tree, so both end the
 * stream with an error naming the frame's offset in the file. The first
 * frame's POS is 0: every ring, a fork child's too, starts there. The position
 * after the last whole frame is where recovery (recover.c) takes over.
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raw.h"

#define IN_CHUNK (256u << 10)

struct raw_stream {
	char path[4200];
	int fd;
	LZ4F_dctx *dctx;
	uint8_t *in;
	size_t in_pos, in_len;
	uint64_t file_off;       /* bytes of the file consumed by lz4 */
	uint64_t frame_off;      /* where the frame being decoded starts in the file */
	uint64_t whole_end;      /* where the last whole frame ends in the file */
	uint32_t version;        /* the meta file's: 3 has POS */
	bool has_pos;            /* a POS was read: next_pos is known */
	uint64_t next_pos;       /* the last frame's POS + its events so far */
	uint64_t gap;            /* one jump of this many positions is known (recovery) */
	uint64_t positions;      /* events and SKIP positions read: THREAD_END's events */
	uint8_t *frame;          /* one decompressed frame */
	size_t frame_len, frame_cap, pos;
	bool eof, truncated, mid_frame;
	LZ4F_decompressOptions_t dopt;   /* skipChecksums for the views */
	uint64_t tsc;
	uint32_t *open;          /* fids of the open frames, innermost last */
	size_t depth, open_cap;
	size_t nfids;
	uint64_t lost[ADA_DROP_NREASONS];
	uint64_t fregs[8];            /* the last event's FREGS (version 4), copied out of the
				       * frame: u64s, aligned (a DETAIL record is read where it is,
				       * its struct packed) */
	uint64_t batch_fregs[RAW_READ_MAX][8]; /* raw_stream_read's, by batch slot */
	struct stream_window *win;    /* the thread's detail windows, by first_pos */
	size_t nwin, win_lo;          /* windows below win_lo ended before the last detail */
	struct stream_window **by_last; /* the same, by last_pos */
	size_t first_cur, last_cur;   /* the next window edges to reach, in each order */
	uint64_t next_edge;           /* the lower of their positions */
	uint64_t events;              /* CALL, RETURN and EXCEPTION events returned */
	bool ended;                   /* raw_stream_read met the end or an error after a batch: */
	int end;                      /* its value, for the next call */
	bool want_allocs;             /* ALLOC records are returned as events */
	struct raw_alloc alloc;       /* the last ALLOC read */
	bool want_samples;            /* SAMPLE records are returned as events */
	struct raw_sample sample;     /* the sample being read: its parts so far */
	uint64_t sample_tsc, sample_pos; /* its tsc, its first part's position */
	unsigned sample_parts;        /* parts read, at consecutive positions */
	bool want_blocks;             /* BLOCK records are returned as events */
	struct raw_block block;       /* the wait or release being read */
	uint64_t block_pos;           /* a wait's BEGIN part's position + 1, 0: none */
	uint64_t block_tsc;           /* the event's tick */
};

/* A detail window of the thread, the DETAIL records read inside it and the
 * events at its first and last positions. */
struct stream_window {
	const struct raw_window *rw;
	uint64_t details;
	struct raw_window_edges edges;
};

_Static_assert(sizeof(struct ada_raw_detail) == ADA_RAW_DETAIL_SIZE, "raw DETAIL record");

#define DETAIL_TAG (ADA_RAW_CONTROL | ADA_CTL_DETAIL << 2)
#define SYNC_TAG (ADA_RAW_CONTROL | ADA_CTL_SYNC << 2)
#define POS_TAG (ADA_RAW_CONTROL | ADA_CTL_POS << 2)
#define FREGS_TAG (ADA_RAW_CONTROL | ADA_CTL_FREGS << 2)

static int bad(struct raw_stream *s, const char *what)
{
	fprintf(stderr, "ada-symbolize: %s: %s (near compressed byte %llu)\n", s->path, what,
		(unsigned long long)s->file_off);
	return -EINVAL;
}

/* A frame's position is wrong: one line naming the frame. */
static int bad_frame(struct raw_stream *s, const char *what)
{
	fprintf(stderr, "ada-symbolize: %s: frame at byte %llu: %s\n", s->path,
		(unsigned long long)s->frame_off, what);
	return -EINVAL;
}

struct raw_stream *raw_stream_open(const char *raw_dir, uint32_t ordinal, size_t nfids,
				   uint32_t version)
{
	struct raw_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	snprintf(s->path, sizeof(s->path), "%s/thread_%u.lz4", raw_dir, ordinal);
	s->nfids = nfids;
	s->version = version;
	s->next_edge = UINT64_MAX; /* no window: no edge */
	s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
	s->in = malloc(IN_CHUNK);
	if (s->fd < 0) {
		/* A thread that recorded nothing before a crash has no file. */
		if (errno != ENOENT)
			fprintf(stderr, "ada-symbolize: %s: %s\n", s->path, strerror(errno));
		s->eof = true;
	}
	if (!s->in || LZ4F_isError(LZ4F_createDecompressionContext(&s->dctx, LZ4F_VERSION))) {
		raw_stream_close(s);
		return NULL;
	}
	return s;
}

static int fill_input(struct raw_stream *s)
{
	ssize_t n;

	if (s->in_pos < s->in_len || s->eof)
		return 0;
	do
		n = read(s->fd, s->in, IN_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", s->path, strerror(errno));
		return -errno;
	}
	s->in_pos = 0;
	s->in_len = (size_t)n;
	s->eof = n == 0;
	return 0;
}

/* Decompresses the next whole frame into s->frame. 1, 0 at the end, <0 error. */
static int next_frame(struct raw_stream *s)
{
	s->frame_len = s->pos = 0;
	for (;;) {
		size_t in_n, out_n, hint;
		int err = fill_input(s);

		if (err)
			return err;
		if (s->in_pos == s->in_len) { /* end of file */
			/* A frame cut short is never used, not even in part. */
			s->truncated = s->mid_frame;
			s->frame_len = 0;
			return 0;
		}
		if (s->frame_cap - s->frame_len < 65536) {
			size_t cap = s->frame_cap ? 2 * s->frame_cap : 1u << 20;
			uint8_t *p = realloc(s->frame, cap);

			if (!p)
				return -ENOMEM;
			s->frame = p;
			s->frame_cap = cap;
		}
		in_n = s->in_len - s->in_pos;
		out_n = s->frame_cap - s->frame_len;
		hint = LZ4F_decompress(s->dctx, s->frame + s->frame_len, &out_n, s->in + s->in_pos,
				       &in_n, &s->dopt);
		if (!s->mid_frame)
			s->frame_off = s->file_off;
		if (LZ4F_isError(hint)) {
			char what[128];

			snprintf(what, sizeof(what), "corrupt lz4 frame: %s", LZ4F_getErrorName(hint));
			return bad(s, what);
		}
		s->in_pos += in_n;
		s->file_off += in_n;
		s->frame_len += out_n;
		s->mid_frame = hint != 0;
		if (!hint) { /* frame complete, checksum verified (unless skipped) */
			s->whole_end = s->file_off;
			return 1;
		}
	}
}

static int get_varint(struct raw_stream *s, uint64_t *v)
{
	unsigned shift = 0;

	/* Most deltas fit a byte or two: no loop for those. */
	if (s->frame_len - s->pos >= 2) {
		const uint8_t *b = s->frame + s->pos;

		if (!(b[0] & 0x80)) {
			*v = b[0];
			s->pos++;
			return 0;
		}
		if (!(b[1] & 0x80)) {
			*v = (uint64_t)(b[0] & 0x7f) | (uint64_t)b[1] << 7;
			s->pos += 2;
			return 0;
		}
	}
	*v = 0;
	while (s->pos < s->frame_len && shift < 64) {
		uint8_t b = s->frame[s->pos++];

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return bad(s, "event cut short inside a frame");
}

static int push_fid(struct raw_stream *s, uint32_t fid)
{
	if (s->depth == s->open_cap) {
		size_t cap = s->open_cap ? 2 * s->open_cap : 256;
		uint32_t *p = realloc(s->open, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->open = p;
		s->open_cap = cap;
	}
	s->open[s->depth++] = fid;
	return 0;
}

#define ALLOC_READY 1 /* control(): an ALLOC to return */

static int read_alloc(struct raw_stream *s)
{
	struct raw_alloc *a = &s->alloc;
	uint64_t what;

	if (get_varint(s, &what) || get_varint(s, &a->ptr))
		return -EINVAL;
	a->size = 0;
	if (what > (ADA_ALLOC_FREED | ADA_ALLOC_OP_MASK) || !(what & ADA_ALLOC_OP_MASK) ||
	    (what & ADA_ALLOC_OP_MASK) >= ADA_ALLOC_NOPS)
		return bad(s, "ALLOC record of an unknown kind");
	if (!(what & ADA_ALLOC_FREED) && get_varint(s, &a->size))
		return -EINVAL;
	a->op = (uint8_t)(what & ADA_ALLOC_OP_MASK);
	a->freed = what & ADA_ALLOC_FREED;
	s->next_pos++;
	s->positions++;
	return s->want_allocs ? ALLOC_READY : 0;
}

#define SAMPLE_READY 2 /* control(): a whole SAMPLE to return */

/* A part of a counter sample; the sample is whole when its three parts
 * came at consecutive positions (a ring-mode cut may leave a part alone:
 * passed over). */
static int read_sample(struct raw_stream *s)
{
	uint64_t part, a, b;
	bool whole = false;

	if (get_varint(s, &part) || get_varint(s, &a) || get_varint(s, &b))
		return -EINVAL;
	if (part >= ADA_SAMPLE_PARTS)
		return bad(s, "SAMPLE record of an unknown part");
	if (part == 0) {
		if (b > s->nfids)
			return bad(s, "function id not in process.meta");
		s->sample = (struct raw_sample){ .ip_fid = (uint32_t)b };
		s->sample_tsc = a > s->tsc ? a : s->tsc;
		s->sample_pos = s->next_pos;
		s->sample_parts = 1;
	} else if (s->sample_parts != part || s->next_pos != s->sample_pos + part) {
		s->sample_parts = 0;
	} else if (part == 1) {
		s->sample.cpu_ns = a;
		s->sample.minflt = b;
		s->sample_parts = 2;
	} else {
		s->sample.nvcsw = (uint32_t)a;
		s->sample.nivcsw = (uint32_t)(a >> 32);
		s->sample.majflt = b;
		s->sample_parts = 0;
		whole = true;
	}
	s->next_pos++;
	s->positions++;
	return whole && s->want_samples ? SAMPLE_READY : 0;
}

#define BLOCK_READY 3 /* control(): a whole wait, or a release, to return */

/* A part of a wait (its BEGIN, then its end at the next position: a
 * ring-mode cut may leave one alone, passed over) or a release. Ticks are
 * the record's own, clamped to the stream's. */
static int read_block(struct raw_stream *s)
{
	uint64_t op, obj, tsc;
	unsigned base;
	bool whole = false;

	if (get_varint(s, &op) || get_varint(s, &obj) || get_varint(s, &tsc))
		return -EINVAL;
	base = (unsigned)op & ~ADA_BLOCK_BEGIN;
	if (op > 0xff || base == 0 || base >= ADA_BLOCK_NOPS)
		return bad(s, "BLOCK record of an unknown kind");
	tsc = tsc > s->tsc ? tsc : s->tsc;
	if (op & ADA_BLOCK_BEGIN) {
		s->block = (struct raw_block){ .obj = obj, .start_tsc = tsc, .op = (uint8_t)base };
		s->block_pos = s->next_pos + 1;
	} else if (ada_block_release(base)) {
		s->block = (struct raw_block){ .obj = obj, .start_tsc = tsc, .op = (uint8_t)base };
		s->block_tsc = tsc;
		whole = true;
	} else if (s->block_pos == s->next_pos && s->block.op == base && s->block.obj == obj) {
		s->block_tsc = tsc;
		s->block_pos = 0;
		whole = true;
	}
	s->next_pos++;
	s->positions++;
	return whole && s->want_blocks ? BLOCK_READY : 0;
}

/* An ALLOC, a SAMPLE or a BLOCK as an event (ready: control()'s value),
 * inside the frames open now. */
static void inside_event(struct raw_stream *s, struct raw_event *ev, int ready)
{
	ev->kind = ready == ALLOC_READY ? RAW_EV_ALLOC : ready == SAMPLE_READY ? RAW_EV_SAMPLE :
		   RAW_EV_BLOCK;
	ev->tsc = ready == ALLOC_READY ? s->tsc : ready == SAMPLE_READY ? s->sample_tsc :
		  s->block_tsc;
	ev->depth = (uint32_t)s->depth;
	ev->fid = s->depth ? s->open[s->depth - 1] : 0;
	if (ready == ALLOC_READY)
		ev->alloc = s->alloc;
	else if (ready == SAMPLE_READY)
		ev->sample = s->sample;
	else
		ev->block = s->block;
	ev->detail = NULL;
	ev->stack = NULL;
	ev->fregs = NULL;
}

static int control(struct raw_stream *s, unsigned c)
{
	uint64_t reason, count;
	int i;

	switch (c) {
	case ADA_CTL_SYNC:
		if (s->frame_len - s->pos < 8)
			return bad(s, "SYNC cut short");
		for (i = 7, reason = 0; i >= 0; i--)
			reason = reason << 8 | s->frame[s->pos + (size_t)i];
		s->pos += 8;
		if (reason > s->tsc) /* timestamps never go backwards */
			s->tsc = reason;
		return 0;
	case ADA_CTL_LOST:
		if (get_varint(s, &reason) || get_varint(s, &count))
			return -EINVAL;
		if (reason < ADA_DROP_NREASONS)
			s->lost[reason] += count;
		return 0;
	case ADA_CTL_DETAIL:
		return bad(s, "DETAIL record that follows no CALL, RETURN or EXCEPTION");
	case ADA_CTL_POS: /* version 2 had none: unknown there */
		if (s->version >= 3)
			return bad(s, "POS that does not follow its frame's SYNC");
		break;
	case ADA_CTL_SKIP: /* positions without an event: they count all the same */
		if (s->version < 3)
			break;
		if (get_varint(s, &count))
			return -EINVAL;
		s->next_pos += count;
		s->positions += count;
		return 0;
	case ADA_CTL_FREGS: /* version 4; read with its DETAIL (attach_detail) */
		if (s->version >= 4)
			return bad(s, "FREGS record that follows no DETAIL");
		break;
	case ADA_CTL_ALLOC: /* version 5: a block, a position of its own */
		if (s->version >= 5)
			return read_alloc(s);
		break;
	case ADA_CTL_SAMPLE: /* version 6: a counter sample's part */
		if (s->version >= 6)
			return read_sample(s);
		break;
	case ADA_CTL_BLOCK: /* version 7: a wait's part or a release */
		if (s->version >= 7)
			return read_block(s);
		break;
	}
	return bad(s, "unknown control record");
}

/* The detail of the event at position pos counts for every window holding
 * pos. Details come in position order, so windows that ended before it are
 * passed for good; overlapping windows (which coalescing should prevent)
 * still count right, each for itself. */
static void count_window_detail(struct raw_stream *s, uint64_t pos)
{
	while (s->win_lo < s->nwin && s->win[s->win_lo].rw->w.last_pos < pos)
		s->win_lo++;
	for (size_t k = s->win_lo; k < s->nwin && s->win[k].rw->w.first_pos <= pos; k++)
		if (s->win[k].rw->w.last_pos >= pos)
			s->win[k].details++;
}

static void find_next_edge(struct raw_stream *s)
{
	s->next_edge = UINT64_MAX;
	if (s->first_cur < s->nwin)
		s->next_edge = s->win[s->first_cur].rw->w.first_pos;
	if (s->last_cur < s->nwin && s->by_last[s->last_cur]->rw->w.last_pos < s->next_edge)
		s->next_edge = s->by_last[s->last_cur]->rw->w.last_pos;
}

/* The event at pos reached the next window edge: the windows that start
 * or end there note which event it is. An edge on a SKIP position has no
 * event and is passed. */
static void note_window_edges(struct raw_stream *s, uint64_t pos)
{
	for (; s->first_cur < s->nwin && s->win[s->first_cur].rw->w.first_pos <= pos; s->first_cur++)
		if (s->win[s->first_cur].rw->w.first_pos == pos) {
			s->win[s->first_cur].edges.first_event = s->events;
			s->win[s->first_cur].edges.has_first = true;
		}
	for (; s->last_cur < s->nwin && s->by_last[s->last_cur]->rw->w.last_pos <= pos; s->last_cur++)
		if (s->by_last[s->last_cur]->rw->w.last_pos == pos) {
			s->by_last[s->last_cur]->edges.last_event = s->events;
			s->by_last[s->last_cur]->edges.has_last = true;
		}
	find_next_edge(s);
}

/* The DETAIL record at s->pos (its tag included), if there is one, into ev.
 * The record and its stack bytes stay in the frame (the struct is packed),
 * which is not touched before the next call. */
static int attach_detail(struct raw_stream *s, struct raw_event *ev)
{
	const struct ada_raw_detail *d;
	size_t left;

	ev->detail = NULL;
	ev->stack = NULL;
	ev->fregs = NULL;
	if (s->pos == s->frame_len || s->frame[s->pos] != DETAIL_TAG)
		return 0;
	left = s->frame_len - s->pos - 1;
	if (left < ADA_RAW_DETAIL_SIZE)
		return bad(s, "DETAIL record cut short inside a frame");
	d = (const struct ada_raw_detail *)(s->frame + s->pos + 1);
	if (d->stack_size > ADA_STACK_MAX) {
		char what[96];

		snprintf(what, sizeof(what), "DETAIL stack_size %u > %u", d->stack_size,
			 ADA_STACK_MAX);
		return bad(s, what);
	}
	if (left - ADA_RAW_DETAIL_SIZE < d->stack_size)
		return bad(s, "DETAIL stack bytes cut short inside a frame");
	s->pos += 1 + ADA_RAW_DETAIL_SIZE;
	ev->detail = d;
	ev->stack = s->frame + s->pos;
	s->pos += d->stack_size;
	if (s->version >= 4 && s->pos < s->frame_len && s->frame[s->pos] == FREGS_TAG) {
		if (s->frame_len - s->pos - 1 < ADA_RAW_FREGS_SIZE)
			return bad(s, "FREGS record cut short inside a frame");
		memcpy(s->fregs, s->frame + s->pos + 1, ADA_RAW_FREGS_SIZE);
		s->pos += 1 + ADA_RAW_FREGS_SIZE;
		ev->fregs = s->fregs;
	}
	if (s->nwin)
		count_window_detail(s, s->next_pos - 1); /* the event's: counted already */
	return 0;
}

/* Version 3: the frame opens with SYNC and POS, and POS continues the
 * previous frame's positions. */
static int frame_start(struct raw_stream *s)
{
	char what[160];
	uint64_t pos;
	int err;

	if (s->version < 3)
		return 0;
	if (s->frame_len < 10 || s->frame[0] != SYNC_TAG || s->frame[9] != POS_TAG)
		return bad_frame(s, "no POS after the frame's SYNC (every version 3 frame has one)");
	s->pos = 1;
	if ((err = control(s, ADA_CTL_SYNC)))
		return err;
	s->pos = 10;
	if (get_varint(s, &pos))
		return -EINVAL;
	/* next_pos starts at 0: every thread's ring starts there. */
	if (s->gap && pos == s->next_pos + s->gap) {
		s->next_pos = pos; /* the positions recovery counted as lost */
		s->gap = 0;
	}
	if (pos != s->next_pos) {
		snprintf(what, sizeof(what), "POS %llu where %llu was expected: %s",
			 (unsigned long long)pos, (unsigned long long)s->next_pos,
			 pos < s->next_pos ? "a frame written twice" : "a frame missing before it");
		return bad_frame(s, what);
	}
	s->has_pos = true;
	s->next_pos = pos;
	return 0;
}

int raw_stream_next(struct raw_stream *s, struct raw_event *ev)
{
	for (;;) {
		uint64_t delta, fid;
		uint8_t tag;
		int err;

		if (s->pos == s->frame_len) {
			err = next_frame(s);
			if (err <= 0 || (err = frame_start(s)))
				return err;
			continue;
		}
		tag = s->frame[s->pos++];
		if ((tag & 3) == ADA_RAW_CONTROL) {
			if ((err = control(s, tag >> 2)) > 0) { /* ALLOC_READY, SAMPLE_READY, BLOCK_READY */
				inside_event(s, ev, err);
				return 1;
			}
			if (err)
				return err;
			continue;
		}
		if ((tag & 3) == ADA_RAW_CALL) {
			if (get_varint(s, &delta))
				return -EINVAL;
			fid = tag >> 2;
			if (fid == ADA_RAW_INLINE_MAX && get_varint(s, &fid))
				return -EINVAL;
			if (!fid || fid > s->nfids)
				return bad(s, "function id not in process.meta");
			if ((err = push_fid(s, (uint32_t)fid)))
				return err;
			ev->depth = (uint32_t)s->depth;
		} else {
			delta = tag >> 2;
			if (delta == ADA_RAW_INLINE_MAX && get_varint(s, &delta))
				return -EINVAL;
			if (!s->depth)
				return bad(s, "a return with no open call");
			ev->depth = (uint32_t)s->depth;
			fid = s->open[--s->depth];
		}
		s->tsc += delta;
		if (__builtin_expect(s->next_pos >= s->next_edge, 0))
			note_window_edges(s, s->next_pos);
		s->next_pos++;
		s->positions++;
		s->events++;
		ev->tsc = s->tsc;
		ev->fid = (uint32_t)fid;
		ev->kind = tag & 3;
		return attach_detail(s, ev) ? -EINVAL : 1;
	}
}

/* A varint of at most three bytes at f + *pos (read_plain has made sure
 * they are in the frame): false, *pos unchanged, if it is longer. */
static inline bool short_varint(const uint8_t *f, size_t *pos, uint64_t *v)
{
	uint64_t b0 = f[*pos], b1, b2;

	if (!(b0 & 0x80)) {
		*v = b0;
		*pos += 1;
		return true;
	}
	b1 = f[*pos + 1];
	if (!(b1 & 0x80)) {
		*v = (b0 & 0x7f) | b1 << 7;
		*pos += 2;
		return true;
	}
	b2 = f[*pos + 2];
	if (!(b2 & 0x80)) {
		*v = (b0 & 0x7f) | (b1 & 0x7f) << 7 | b2 << 14;
		*pos += 3;
		return true;
	}
	return false;
}

/* The DETAIL record (and FREGS) at f + *pos for the event batch slot k:
 * the record and its stack bytes left in the frame, the FREGS copied into
 * the stream's slot k (aligned):
 * false, nothing moved, if it is not whole inside the frame or its stack
 * size is out of range (raw_stream_next then says which). */
static inline bool plain_detail(struct raw_stream *s, size_t *pos, size_t k, struct raw_event *ev)
{
	const uint8_t *f = s->frame;
	size_t at = *pos + 1, end;
	uint16_t stack_size;

	if (s->frame_len - at < ADA_RAW_DETAIL_SIZE)
		return false;
	memcpy(&stack_size, f + at + offsetof(struct ada_raw_detail, stack_size), sizeof(stack_size));
	end = at + ADA_RAW_DETAIL_SIZE + stack_size;
	if (stack_size > ADA_STACK_MAX || end > s->frame_len)
		return false;
	ev->fregs = NULL;
	if (s->version >= 4 && end < s->frame_len && f[end] == FREGS_TAG) {
		if (s->frame_len - end - 1 < ADA_RAW_FREGS_SIZE)
			return false;
		memcpy(s->batch_fregs[k], f + end + 1, ADA_RAW_FREGS_SIZE);
		ev->fregs = s->batch_fregs[k];
		end += 1 + ADA_RAW_FREGS_SIZE;
	}
	ev->detail = (const struct ada_raw_detail *)(f + at);
	ev->stack = f + at + ADA_RAW_DETAIL_SIZE;
	*pos = end;
	return true;
}

/* raw_stream_read's loop, from batch slot k: the plain events (a CALL,
 * RETURN or EXCEPTION whose varints take at most three bytes each, with
 * or without a DETAIL (outside windows), no window edge at its position,
 * not within reach of the frame's end) decoded with the stream's state in
 * registers. Anything else is left to raw_stream_next. */
static size_t read_plain(struct raw_stream *s, struct raw_event *ev, size_t k, size_t max,
			 bool *stacks)
{
	/* The stream's fields in locals: the stores into ev could alias them. */
	const uint8_t *f = s->frame;
	const size_t frame_len = s->frame_len, nfids = s->nfids, open_cap = s->open_cap;
	uint32_t *open = s->open;
	size_t pos = s->pos, depth = s->depth, n = 0;
	uint64_t tsc = s->tsc;

	if (s->next_pos >= s->next_edge) /* (a SKIP may have passed it) */
		max = 0;
	else if (max > s->next_edge - s->next_pos)
		max = s->next_edge - s->next_pos;
	/* 12 bytes: a tag, two varints of three and the next event's tag */
	while (n < max && pos + 12 <= frame_len) {
		struct raw_event *e = &ev[n];
		uint8_t tag = f[pos];
		bool call = (tag & 3) == ADA_RAW_CALL;
		uint64_t delta, fid;
		size_t next = pos + 1;

		if (call) {
			fid = tag >> 2; /* the delta first, then the function if not in the tag */
			if (!short_varint(f, &next, &delta) ||
			    (fid == ADA_RAW_INLINE_MAX && !short_varint(f, &next, &fid)))
				break;
			if (!fid || fid > nfids || depth == open_cap)
				break;
		} else if ((tag & 3) != ADA_RAW_CONTROL) {
			delta = tag >> 2;
			if ((delta == ADA_RAW_INLINE_MAX && !short_varint(f, &next, &delta)) || !depth)
				break;
			fid = open[depth - 1];
		} else {
			break;
		}
		if (__builtin_expect(f[next] == DETAIL_TAG, 0)) {
			if (s->nwin || !plain_detail(s, &next, k + n, e))
				break; /* a window counts its records: raw_stream_next */
			*stacks |= e->stack != NULL;
		} else {
			e->detail = NULL;
			e->stack = NULL;
			e->fregs = NULL;
		}
		if (call) {
			open[depth++] = (uint32_t)fid;
			e->depth = (uint32_t)depth;
		} else {
			e->depth = (uint32_t)depth--;
		}
		pos = next;
		tsc += delta;
		e->tsc = tsc;
		e->fid = (uint32_t)fid;
		e->kind = tag & 3;
		n++;
	}
	s->pos = pos;
	s->depth = depth;
	s->tsc = tsc;
	s->next_pos += n;
	s->positions += n;
	s->events += n;
	return n;
}

int raw_stream_read(struct raw_stream *s, struct raw_event *ev, size_t max)
{
	size_t n = 0;
	bool stacks = false; /* the batch points into the frame: it ends with the frame */
	int r;

	if (s->ended)
		return s->end;
	if (max > RAW_READ_MAX)
		max = RAW_READ_MAX;
	while (n < max) {
		n += read_plain(s, ev + n, n, max - n, &stacks);
		/* What follows may load the next frame: a control record, the
		 * frame's end. */
		if (n == max || (stacks && (s->pos == s->frame_len ||
					    (s->frame[s->pos] & 3) == ADA_RAW_CONTROL)))
			break;
		if ((r = raw_stream_next(s, &ev[n])) <= 0) {
			if (!n)
				return r;
			s->ended = true;
			s->end = r;
			break;
		}
		if (ev[n].detail) { /* in the frame: the batch ends with it */
			stacks |= ev[n].stack != NULL;
			if (ev[n].fregs) { /* the stream's one copy, into the batch's slot */
				memcpy(s->batch_fregs[n], ev[n].fregs, sizeof(s->batch_fregs[n]));
				ev[n].fregs = s->batch_fregs[n];
			}
		}
		n++;
	}
	return (int)n;
}

/* A thread file cut inside a frame lost events only a crash or a kill can
 * excuse: once the process exited cleanly (END of an exit or _exit) or the
 * thread's end was recorded (THREAD_END, written after its last frame), the
 * file was whole. An exec's END is no such proof: the writer goes on
 * draining the threads still running until the exec replaces the image,
 * which may stop it inside a write. */
static int verify_whole(const struct raw_stream *s, const struct raw_process *p,
			const struct raw_thread *t)
{
	bool exited = p->clean_end && p->end.how != ADA_END_EXEC;

	if (!s->truncated || (!exited && !t->ended))
		return 0;
	fprintf(stderr, "ada-symbolize: %s: cut short inside the frame at byte %llu (the file ends at byte %llu), though %s\n",
		s->path, (unsigned long long)s->whole_end, (unsigned long long)s->file_off,
		exited ? "the process ended cleanly (END in process.meta)"
		       : "process.meta records the thread's end (THREAD_END)");
	return -EINVAL;
}

/* THREAD_END counts the positions the writer wrote (events and SKIPs), and
 * the LOST notes it put in the stream are part of its drop totals. */
static int verify_counts(const struct raw_stream *s, const struct raw_thread *t)
{
	static const char *const names[ADA_DROP_NREASONS] = ADA_DROP_NAMES;
	uint64_t want;
	unsigned r;

	if (!t->ended)
		return 0;
	want = t->end.events + (t->recovered ? t->rec.events : 0);
	if (s->positions != want) {
		fprintf(stderr, "ada-symbolize: %s: %llu events read, but process.meta's THREAD_END says %llu were written\n",
			s->path, (unsigned long long)s->positions, (unsigned long long)want);
		return -EINVAL;
	}
	for (r = 0; r < ADA_DROP_NREASONS; r++) {
		if (s->lost[r] <= t->end.dropped[r])
			continue;
		fprintf(stderr, "ada-symbolize: %s: LOST notes count %llu events %s, but process.meta's THREAD_END says %llu in all\n",
			s->path, (unsigned long long)s->lost[r], names[r],
			(unsigned long long)t->end.dropped[r]);
		return -EINVAL;
	}
	return 0;
}

/* Each window covers positions the file holds, [0, the position after its
 * last whole frame): the writer appends a WINDOW record once the window's
 * frames are written. And its DETAIL records are the ones it says it kept. */
static int verify_windows(const struct raw_stream *s)
{
	for (size_t k = 0; k < s->nwin; k++) {
		const struct raw_window *rw = s->win[k].rw;
		const struct ada_meta_window *w = &rw->w;

		if (w->last_pos >= s->next_pos) {
			fprintf(stderr, "ada-symbolize: %s: process.meta's window at offset %zu covers positions %llu..%llu, but the file holds %llu positions\n",
				s->path, rw->offset, (unsigned long long)w->first_pos,
				(unsigned long long)w->last_pos, (unsigned long long)s->next_pos);
			return -EINVAL;
		}
		if (s->win[k].details != w->kept) {
			fprintf(stderr, "ada-symbolize: %s: %llu DETAIL records at positions %llu..%llu, but process.meta's window at offset %zu says %llu were kept\n",
				s->path, (unsigned long long)s->win[k].details,
				(unsigned long long)w->first_pos, (unsigned long long)w->last_pos,
				rw->offset, (unsigned long long)w->kept);
			return -EINVAL;
		}
	}
	return 0;
}

int raw_stream_verify(const struct raw_stream *s, const struct raw_process *p,
		      const struct raw_thread *t)
{
	int err = verify_whole(s, p, t);

	if (!err)
		err = verify_counts(s, t);
	return err ? err : verify_windows(s);
}

static int cmp_window(const void *a, const void *b)
{
	const struct stream_window *x = a, *y = b;
	uint64_t fx = x->rw->w.first_pos, fy = y->rw->w.first_pos;

	return (fx > fy) - (fx < fy);
}

static int cmp_window_last(const void *a, const void *b)
{
	const struct stream_window *const *x = a, *const *y = b;
	uint64_t lx = (*x)->rw->w.last_pos, ly = (*y)->rw->w.last_pos;

	return (lx > ly) - (lx < ly);
}

int raw_stream_expect_windows(struct raw_stream *s, const struct raw_process *p, uint32_t ordinal)
{
	size_t i, n = 0;

	for (i = 0; i < p->nwindows; i++)
		n += p->windows[i].w.ordinal == ordinal;
	if (!n)
		return 0;
	s->win = calloc(n, sizeof(*s->win));
	s->by_last = calloc(n, sizeof(*s->by_last));
	if (!s->win || !s->by_last)
		return -ENOMEM;
	for (i = 0; i < p->nwindows; i++)
		if (p->windows[i].w.ordinal == ordinal)
			s->win[s->nwin++].rw = &p->windows[i];
	qsort(s->win, s->nwin, sizeof(*s->win), cmp_window);
	for (i = 0; i < n; i++)
		s->by_last[i] = &s->win[i];
	qsort(s->by_last, n, sizeof(*s->by_last), cmp_window_last);
	find_next_edge(s);
	return 0;
}

void raw_stream_window_edges(const struct raw_stream *s, const struct raw_process *p,
			     struct raw_window_edges *edges)
{
	for (size_t k = 0; k < s->nwin; k++)
		edges[s->win[k].rw - p->windows] = s->win[k].edges;
}

uint32_t raw_stream_open_frames(const struct raw_stream *s)
{
	return (uint32_t)s->depth;
}

uint32_t raw_stream_pop(struct raw_stream *s)
{
	return s->depth ? s->open[--s->depth] : 0;
}

const uint32_t *raw_stream_open_fids(const struct raw_stream *s)
{
	return s->open;
}

void raw_stream_allow_gap(struct raw_stream *s, uint64_t lost)
{
	s->gap = lost;
}

bool raw_stream_position(const struct raw_stream *s, uint64_t *pos)
{
	*pos = s->next_pos;
	return s->has_pos;
}

uint64_t raw_stream_whole_end(const struct raw_stream *s)
{
	return s->whole_end;
}

bool raw_stream_truncated(const struct raw_stream *s)
{
	return s->truncated;
}

uint64_t raw_stream_last_tsc(const struct raw_stream *s)
{
	return s->tsc;
}

const uint64_t *raw_stream_lost(const struct raw_stream *s)
{
	return s->lost;
}

void raw_stream_want_allocs(struct raw_stream *s)
{
	s->want_allocs = true;
}

void raw_stream_want_samples(struct raw_stream *s)
{
	s->want_samples = true;
}

void raw_stream_want_blocks(struct raw_stream *s)
{
	s->want_blocks = true;
}

void raw_stream_skip_checksums(struct raw_stream *s)
{
	s->dopt.skipChecksums = 1;
}

void raw_stream_close(struct raw_stream *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	LZ4F_freeDecompressionContext(s->dctx);
	free(s->in);
	free(s->frame);
	free(s->open);
	free(s->win);
	free(s->by_last);
	free(s);
}
