/* view_dump.c - every event with its registers, one line each (format in
 * views.h), so a person reads a call's arguments and a return's value
 * without a hex editor.
 *
 * Streams: the index and detail files are mapped and walked side by side,
 * detail records being in index order, so memory does not grow with the
 * trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "atf.h"
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

/* mark: what an EXCEPTION closes, "(unwound)" or one of ada_trace_open_mark's;
 * depth: the event's frame, 1 for the outermost. */
static void put_event(struct dump *dp, uint8_t arch, const struct atf_event *ev,
		      const struct atf_detail *d, const char *mark, uint64_t depth)
{
	uint64_t t = ev->timestamp_ns >= dp->time_base ? ev->timestamp_ns - dp->time_base : 0;

	fprintf(dp->out, "%" PRIu64 ".%06" PRIu64 " ", t / 1000000000u, t % 1000000000u / 1000u);
	for (uint64_t i = 1; i < depth; i++)
		fputs("  ", dp->out);
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
		       const char *open_mark, uint64_t open)
{
	struct detail_walk dw = { .f = df, .path = detail_path, .head = dp->o->limit != 0 };
	uint64_t n = f->event_count, first_open = open < n ? n - open : 0, depth = 0;
	struct atf_event ev;

	if (dp->o->limit && dp->o->limit < n)
		n = dp->o->limit;
	walk_next(&dw);
	for (uint64_t i = 0; i < n; i++) {
		atf_index_get(f, i, &ev);
		if (ev.kind == ATF_CALL)
			depth++;
		put_event(dp, f->arch, &ev, ev.detail_seq == ATF_NO_DETAIL ? NULL : walk_find(&dw, i),
			  i >= first_open ? open_mark : "(unwound)", depth);
		if (ev.kind != ATF_CALL && depth)
			depth--;
	}
	if (n < f->event_count)
		fprintf(dp->out, "# %" PRIu64 " more events not shown\n", (uint64_t)f->event_count - n);
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
	uint64_t id, open;
	const char *open_mark = ada_trace_open_mark(thread, &open);
	bool has_detail;
	char path[PATH_MAX];
	int ret;

	id = ada_trace_thread_header(dp->out, pid, thread);
	ret = map_thread(pid_dir, id, dp->o->limit != 0, &f, &df, &has_detail, path);
	if (ret)
		return ret;
	ret = dump_events(dp, &f, has_detail ? &df : NULL, path, open_mark, open);
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
