/* view_dump.c - every event with its registers, one line each (format in
 * views.h), so a person reads a call's arguments and a return's value
 * without a hex editor.
 *
 * Streams: the index and detail files are mapped and walked side by side,
 * detail records being in index order, so memory does not grow with the
 * trace. So is lanes.atf where a thread has one (docs/atf-extensions.md):
 * each of its records is printed before the index event it precedes, at
 * its frame's depth, in brackets: "[alloc] malloc 64 bytes at 0x5590...",
 * "[free] free 0x5590...", "[sample] cpu 1001234 ns, faults 3+0, switches
 * 1+0, in spin_inner" (minor+major, voluntary+involuntary, since the
 * thread's sample before), "[wait] pthread_mutex_lock(0x5590...) blocked
 * 20114327 ns", "[release] pthread_mutex_unlock(0x5590...)".
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "atf.h"
#include "raw_format.h"
#include "trace_dir.h"
#include "views.h"

struct dump {
	FILE *out;
	const struct ada_dump_options *o;
	struct ada_trace_symbols syms;
	uint64_t time_base;            /* the manifest's time_start_ns */
};

/* The detail records of one thread, read in step with its index. */
struct detail_walk {
	const struct atf_detail_file *f; /* NULL: the thread has none */
	const char *path;
	bool head;                       /* mapped with atf_detail_map_head: check as read */
	uint64_t pos, nth;
	bool valid, failed;
	struct atf_detail rec;
};

static const char *const x86_call_regs[] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };
static const char *const arm64_call_regs[] = { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7" };

static void walk_next(struct detail_walk *d)
{
	char err[256];
	int ret;

	if (!d->f || !d->head) {
		d->valid = d->f && atf_detail_next(d->f, &d->pos, &d->rec);
		return;
	}
	ret = atf_detail_next_checked(d->f, &d->pos, d->nth++, &d->rec, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "ada-symbolize: %s: %s\n", d->path, err);
	d->valid = ret == 0;
	d->failed |= ret < 0;
}

/* The detail record linked to index event i, or NULL. */
static const struct atf_detail *walk_find(struct detail_walk *d, uint64_t i)
{
	while (d->valid && d->rec.index_seq < i)
		walk_next(d);
	return d->valid && d->rec.index_seq == i ? &d->rec : NULL;
}

static void put_name(struct dump *dp, uint64_t fid)
{
	const struct ada_trace_symbol *s = ada_trace_find_symbol(&dp->syms, fid);

	if (s)
		fputs(s->display, dp->out);
	else
		fprintf(dp->out, "0x%016" PRIx64, fid);
}

static void put_call_regs(struct dump *dp, uint8_t arch, const struct atf_detail *d)
{
	const char *const *names = arch == ATF_ARCH_ARM64 ? arm64_call_regs : x86_call_regs;
	size_t n = arch == ATF_ARCH_ARM64 ? 8 : 6;

	for (size_t r = 0; r < n; r++)
		fprintf(dp->out, "%s%s=0x%" PRIx64, r ? " " : "", names[r], d->regs[r]);
}

/* "    xmm0=.. xmm1=.." (ATF_DETAIL_FLAG_FREGS): the FP registers, as hex
 * words: a CALL's eight, a RETURN's two (the rest are 0 by definition). */
static void put_fregs(struct dump *dp, uint8_t arch, const struct atf_detail *d)
{
	const char *name = arch == ATF_ARCH_ARM64 ? "d" : "xmm";
	unsigned n = d->event_type == ATF_DETAIL_CALL ? 8 : 2;

	fputs("   ", dp->out);
	for (unsigned r = 0; r < n; r++)
		fprintf(dp->out, " %s%u=0x%" PRIx64, name, r, d->fregs[r]);
	fputc('\n', dp->out);
}

/* "    sp=.. fp=.. lr=..", then the stack window 16 bytes a line. */
static void put_stack(struct dump *dp, const struct atf_detail *d)
{
	fprintf(dp->out, "    sp=0x%" PRIx64 " fp=0x%" PRIx64 " lr=0x%" PRIx64 "\n", d->sp, d->fp,
		d->lr);
	for (unsigned off = 0; off < d->stack_size; off += 16) {
		fprintf(dp->out, "    +0x%03x:", off);
		for (unsigned b = off; b < off + 16 && b < d->stack_size; b++)
			fprintf(dp->out, " %02x", d->stack[b]);
		fputc('\n', dp->out);
	}
}

static const char *const alloc_ops[] = ADA_ALLOC_OP_NAMES;
static const char *const block_ops[] = ADA_BLOCK_OP_NAMES;

/* The time and the indentation every line starts with. */
static void put_when(struct dump *dp, uint64_t ns, uint64_t depth)
{
	uint64_t t = ns >= dp->time_base ? ns - dp->time_base : 0;

	fprintf(dp->out, "%" PRIu64 ".%06" PRIu64 " ", t / 1000000000u, t % 1000000000u / 1000u);
	for (uint64_t i = 1; i < depth; i++)
		fputs("  ", dp->out);
}

/* A lanes.atf record: inside call_depth frames, so one level deeper. The
 * kinds, ops and flags were checked when the file was mapped. */
static void put_lane(struct dump *dp, const struct atf_lane *l)
{
	put_when(dp, l->timestamp_ns, (uint64_t)l->call_depth + 1);
	switch (l->kind) {
	case ATF_LANE_ALLOC:
		if (l->flags & ATF_LANE_FLAG_FREED)
			fprintf(dp->out, "[free] %s 0x%" PRIx64 "\n", alloc_ops[l->op], l->a);
		else
			fprintf(dp->out, "[alloc] %s %" PRIu64 " bytes at 0x%" PRIx64 "\n",
				alloc_ops[l->op], l->b, l->a);
		break;
	case ATF_LANE_SAMPLE:
		fprintf(dp->out, "[sample] cpu %" PRIu64 " ns, faults %" PRIu64 "+%" PRIu64
			", switches %u+%u", l->a, l->b, l->c, l->d, l->e);
		if (l->function_id) {
			fputs(", in ", dp->out);
			put_name(dp, l->function_id);
		}
		fputc('\n', dp->out);
		break;
	default: /* ATF_LANE_BLOCK */
		if (ada_block_release(l->op)) {
			fprintf(dp->out, "[release] %s(0x%" PRIx64 ")\n", block_ops[l->op], l->a);
		} else {
			fprintf(dp->out, "[wait] %s(0x%" PRIx64 ") blocked %" PRIu64 " ns\n",
				block_ops[l->op], l->a,
				l->timestamp_ns > l->b ? l->timestamp_ns - l->b : 0);
		}
	}
}

/* The lanes records before index event i (i = the event count: the rest). */
static void put_lanes_before(struct dump *dp, const struct atf_lanes_file *lf, uint64_t *next,
			     uint64_t i)
{
	struct atf_lane l;

	for (; lf && *next < lf->event_count; ++*next) {
		atf_lanes_get(lf, *next, &l);
		if (l.index_seq > i)
			break;
		put_lane(dp, &l);
	}
}

/* mark: what an EXCEPTION closes, "(unwound)" or one of ada_trace_open_mark's;
 * depth: the event's frame, 1 for the outermost. */
static void put_event(struct dump *dp, uint8_t arch, const struct atf_event *ev,
		      const struct atf_detail *d, const char *mark, uint64_t depth)
{
	put_when(dp, ev->timestamp_ns, depth);
	put_name(dp, ev->function_id);
	if (ev->kind == ATF_CALL && d) {
		fputc('(', dp->out);
		put_call_regs(dp, arch, d);
		fputs(")\n", dp->out);
	} else if (ev->kind == ATF_CALL) {
		fputs("()\n", dp->out);
	} else if (ev->kind == ATF_RETURN && d) {
		fprintf(dp->out, " = 0x%" PRIx64 " (%s=0x%" PRIx64 ")\n", d->regs[0],
			arch == ATF_ARCH_ARM64 ? "x1" : "rdx", d->regs[1]);
	} else if (ev->kind == ATF_RETURN) {
		fputs(" returns\n", dp->out);
	} else {
		fprintf(dp->out, " %s\n", mark);
	}
	if (d && d->flags & ATF_DETAIL_FLAG_FREGS && ev->kind != ATF_EXCEPTION)
		put_fregs(dp, arch, d);
	if (d && dp->o->stack)
		put_stack(dp, d);
}

/* The thread's last `open` events close the frames its record ended in.
 * The indentation follows the events' nesting, counted here as --replay
 * counts it, not their call_depth field: in a damaged file that could ask
 * for four billion levels (found by make fuzz). In a valid one they agree. */
static int dump_events(struct dump *dp, const struct atf_index_file *f,
		       const struct atf_detail_file *df, const char *detail_path,
		       const struct atf_lanes_file *lf, const char *open_mark, uint64_t open)
{
	struct detail_walk dw = { .f = df, .path = detail_path, .head = dp->o->limit != 0 };
	uint64_t n = f->event_count, first_open = open < n ? n - open : 0, depth = 0, lane = 0;
	struct atf_event ev;

	if (dp->o->limit && dp->o->limit < n)
		n = dp->o->limit;
	walk_next(&dw);
	for (uint64_t i = 0; i < n; i++) {
		atf_index_get(f, i, &ev);
		put_lanes_before(dp, lf, &lane, i);
		if (ev.kind == ATF_CALL)
			depth++;
		put_event(dp, f->arch, &ev, ev.detail_seq == ATF_NO_DETAIL ? NULL : walk_find(&dw, i),
			  i >= first_open ? open_mark : "(unwound)", depth);
		if (ev.kind != ATF_CALL && depth)
			depth--;
	}
	if (n < f->event_count)
		fprintf(dp->out, "# %" PRIu64 " more events not shown\n", (uint64_t)f->event_count - n);
	else
		put_lanes_before(dp, lf, &lane, n);
	return dw.failed ? -EBADMSG : 0;
}

/* With head (--limit), only what is read of the files is touched: no CRC,
 * the detail chain checked as it is walked. */
static int map_thread(const char *pid_dir, uint64_t id, bool head, struct atf_index_file *f,
		      struct atf_detail_file *df, bool *has_detail, char path[PATH_MAX])
{
	char err[256];
	int ret;

	*has_detail = false;
	if (snprintf(path, PATH_MAX, "%s/thread_%" PRIu64 "/index.atf", pid_dir, id) >= PATH_MAX)
		return -ENAMETOOLONG;
	ret = (head ? atf_index_map_head : atf_index_map)(path, f, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, err);
		return ret;
	}
	if (!(f->flags & ATF_FLAG_HAS_DETAIL))
		return 0;
	snprintf(path, PATH_MAX, "%s/thread_%" PRIu64 "/detail.atf", pid_dir, id);
	ret = (head ? atf_detail_map_head : atf_detail_map)(path, df, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, err);
		atf_index_unmap(f);
		return ret;
	}
	*has_detail = true;
	return 0;
}

static int dump_thread(struct dump *dp, const char *pid_dir, uint64_t pid,
		       const struct json_value *thread)
{
	struct atf_index_file f;
	struct atf_detail_file df;
	struct atf_lanes_file lf;
	uint64_t id, open;
	const char *open_mark = ada_trace_open_mark(thread, &open);
	bool has_detail, has_lanes = false;
	char path[PATH_MAX], lanes[PATH_MAX], err[256];
	int ret;

	id = ada_trace_thread_header(dp->out, pid, thread);
	ret = map_thread(pid_dir, id, dp->o->limit != 0, &f, &df, &has_detail, path);
	if (ret)
		return ret;
	/* A few records a millisecond at most: mapped and checked whole. */
	snprintf(lanes, sizeof(lanes), "%s/thread_%" PRIu64 "/lanes.atf", pid_dir, id);
	if (access(lanes, F_OK) == 0) {
		if ((ret = atf_lanes_map(lanes, &lf, true, err, sizeof(err))))
			fprintf(stderr, "ada-symbolize: %s: %s\n", lanes, err);
		has_lanes = !ret;
	}
	if (!ret)
		ret = dump_events(dp, &f, has_detail ? &df : NULL, path, has_lanes ? &lf : NULL,
				  open_mark, open);
	if (has_lanes)
		atf_lanes_unmap(&lf);
	if (has_detail)
		atf_detail_unmap(&df);
	atf_index_unmap(&f);
	return ret;
}

static int dump_threads(struct dump *dp, const struct ada_trace_pid *p,
			const struct json_value *manifest)
{
	const struct json_value **order;
	size_t n;
	int ret = ada_trace_sorted_threads(manifest, &order, &n);

	for (size_t i = 0; !ret && i < n; i++)
		ret = dump_thread(dp, p->dir, p->pid, order[i]);
	free(order);
	return ret;
}

static int dump_pid(const struct ada_trace_pid *p, const struct ada_dump_options *o, FILE *out)
{
	struct dump dp = { .out = out, .o = o };
	struct json_doc *doc;
	char path[PATH_MAX], err[256];
	int ret;

	if (snprintf(path, sizeof(path), "%s/manifest.json", p->dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = json_parse_file(path, &doc, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, err);
		return ret;
	}
	json_u64(json_get(json_root(doc), "time_start_ns"), &dp.time_base);
	ret = ada_trace_load_symbols(json_root(doc), &dp.syms);
	if (!ret)
		ret = dump_threads(&dp, p, json_root(doc));
	if (ret == -ENOMEM)
		fprintf(stderr, "ada-symbolize: %s: %s\n", p->dir, strerror(ENOMEM));
	ada_trace_free_symbols(&dp.syms);
	json_free(doc);
	return ret;
}

int ada_view_dump(const char *path, const struct ada_dump_options *o, FILE *out)
{
	struct ada_trace_pid *pids;
	size_t n;
	int ret = ada_trace_find_pids(path, &pids, &n);

	for (size_t i = 0; !ret && i < n; i++)
		ret = dump_pid(&pids[i], o, out);
	if (!ret && ferror(out))
		ret = -EIO;
	ada_trace_free_pids(pids, n);
	return ret;
}
