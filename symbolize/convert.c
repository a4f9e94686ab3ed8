/* convert.c - one process's raw trace → ATF v2.
 *
 * Streams every thread file once through a fixed-size writer buffer, so the
 * memory used depends on the call depth and the number of functions, not on
 * the number of events.
 *
 * Frames still open where a thread's record ends (the process exited,
 * crashed or was killed while the thread was inside them) are closed with
 * EXCEPTION events: ATF has no other way to close a frame, and requires
 * every CALL closed (ATF_V2.md §3), so a reader that balances frames keeps
 * working. They are not unwinds, though: the manifest counts them per
 * thread (open_at_end, with the thread's "end"), they are always the
 * thread's last events, and the summary and the views say "open at exit"
 * (or at the crash, or when killed) instead of "unwound". They close at the
 * thread's last event; the crashing thread's at the crash, unless its last
 * event is later (timestamps never go back).
 *
 * An event that came with a DETAIL record (fentry/mcount modes) also gets a
 * record in thread_<N>/detail.atf, linked both ways: the file is created at
 * the thread's first detail, so a thread without any has none. A raw
 * EXCEPTION's detail is written as a return record (event_type 4), the rule
 * the validator applies: the event ends a frame. The EXCEPTIONs made here for
 * frames left open have no detail.
 *
 * A block the malloc family allocated or freed (ADA_ALLOC), a counter sample
 * (ADA_COUNTERS) and a wait or a release (ADA_BLOCKING) get a record in
 * thread_<N>/lanes.atf (docs/atf-extensions.md), linked to the index by the
 * number of index events before it: created at the thread's first, as
 * detail.atf is. The raw stream is asked for them always: a trace recorded
 * without them has none to decode, so its conversion costs the same.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atf.h"
#include "convert.h"
#include "source_priv.h"

#define PROGRESS_EVERY (1u << 20) /* events between looks at the clock */

/* Shared by the threads converting (convert_threads): events counted a
 * batch at a time, one of them printing at a time. */
struct progress {
	bool on, shown;
	double start, last;
	uint64_t events;
	pthread_mutex_t lock;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Shown on a terminal only, from the second second on, twice a second. */
static void progress_tick(struct progress *pg, uint32_t pid, uint32_t thread)
{
	uint64_t events = __atomic_add_fetch(&pg->events, PROGRESS_EVERY, __ATOMIC_RELAXED);
	double t;

	if (!pg->on || pthread_mutex_trylock(&pg->lock))
		return;
	t = now_s();
	if (t - pg->start >= 1.0 && t - pg->last >= 0.5) {
		pg->last = t;
		pg->shown = true;
		fprintf(stderr, "\rada-symbolize: pid %u thread %u: %.1f M events, %.1f M/s   ", pid,
			thread, (double)events / 1e6, (double)events / 1e6 / (t - pg->start));
	}
	pthread_mutex_unlock(&pg->lock);
}

static int make_dirs(const char *path)
{
	char tmp[4200];
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(tmp, 0755) == 0 || errno == EEXIST)
		return 0;
fail:
	fprintf(stderr, "ada-symbolize: %s: cannot create: %s\n", tmp, strerror(errno));
	return -errno;
}

struct thread_conv {
	struct conv_process *cp;
	struct conv_thread *ct;
	struct atf_index_writer *w;
	struct atf_detail_writer *dw;  /* NULL until the thread's first detail */
	struct atf_lanes_writer *lw;   /* NULL until the thread's first lane record */
	const char *out_dir;
	char detail_path[4300], lanes_path[4300];
};

/* The detail record of index event `ev`, which is about to be appended:
 * ev->detail_seq is set to the record's ordinal. */
static int emit_detail(struct thread_conv *tc, struct atf_event *ev, const struct src_event *sev)
{
	const struct ada_raw_detail *rd = sev->detail;
	struct atf_detail d = {
		.index_seq = (uint32_t)atf_index_count(tc->w),
		.event_type = ev->kind == ATF_CALL ? ATF_DETAIL_CALL : ATF_DETAIL_RETURN,
		.timestamp_ns = ev->timestamp_ns,
		.function_id = ev->function_id,
		.lr = rd->lr,
		.fp = rd->fp,
		.sp = rd->sp,
		.stack_size = rd->stack_size,
		.stack = sev->stack,
	};
	int err;

	if (!tc->dw) {
		snprintf(tc->detail_path, sizeof(tc->detail_path), "%s/thread_%u/detail.atf",
			 tc->out_dir, tc->ct->id);
		tc->dw = atf_detail_open(tc->detail_path, tc->ct->id, tc->cp->raw.arch);
		if (!tc->dw)
			return -EIO;
	}
	memcpy(d.regs, rd->regs, sizeof(d.regs));
	if (sev->fregs) {
		d.flags = ATF_DETAIL_FLAG_FREGS;
		memcpy(d.fregs, sev->fregs, sizeof(d.fregs));
	}
	if (sev->no_value && ev->kind == ATF_RETURN) { /* the raw marker: a flag in ATF */
		d.flags |= ATF_DETAIL_FLAG_NOVALUE;
		d.regs[7] = 0;
	}
	ev->detail_seq = (uint32_t)atf_detail_count(tc->dw);
	err = atf_detail_append(tc->dw, &d);
	if (!err)
		tc->ct->details++;
	return err;
}

_Static_assert(ATF_LANE_ALLOC_NOPS == ADA_ALLOC_NOPS && ATF_LANE_BLOCK_NOPS == ADA_BLOCK_NOPS,
	       "lanes.atf's ops are the raw trace's");

/* An ALLOC, SAMPLE or BLOCK event as a lanes.atf record, after the index
 * events written so far. A sample's function is listed in the manifest as
 * a CALL's is. */
static int emit_lane(struct thread_conv *tc, const struct src_event *sev)
{
	struct atf_lane l = {
		.timestamp_ns = sev->ns,
		.index_seq = (uint32_t)atf_index_count(tc->w),
		.call_depth = sev->depth,
	};
	int err;

	if (sev->kind == SRC_ALLOC) {
		l.kind = ATF_LANE_ALLOC;
		l.op = sev->alloc_op;
		l.flags = sev->alloc_freed ? ATF_LANE_FLAG_FREED : 0;
		l.a = sev->alloc_ptr;
		l.b = sev->alloc_size;
	} else if (sev->kind == SRC_SAMPLE) {
		l.kind = ATF_LANE_SAMPLE;
		l.a = sev->sample.cpu_ns;
		l.b = sev->sample.minflt;
		l.c = sev->sample.majflt;
		l.d = (uint32_t)sev->sample.vcsw;
		l.e = (uint32_t)sev->sample.ivcsw;
		if (sev->sample.func != SRC_NO_FUNC) { /* a choice: the stream has no dense ids */
			struct conv_choice *c = &tc->cp->choices[sev->sample.func];

			__atomic_store_n(&c->used, true, __ATOMIC_RELAXED);
			l.function_id = c->func;
		}
	} else {
		l.kind = ATF_LANE_BLOCK;
		l.op = sev->block.op;
		l.a = sev->block.obj;
		l.b = sev->block.start_ns;
	}
	if (!tc->lw) {
		tc->lw = atf_lanes_open(tc->lanes_path, tc->ct->id, tc->cp->raw.arch);
		if (!tc->lw)
			return -EIO;
	}
	if (!(err = atf_lanes_append(tc->lw, &l)))
		tc->ct->lanes[l.kind]++;
	return err;
}

/* One index event, and its detail record if it has one. A frame left open
 * where the record ends closes with an EXCEPTION (see the top). */
static int emit(struct thread_conv *tc, const struct src_event *sev)
{
	struct conv_choice *c = &tc->cp->choices[sev->choice];
	struct atf_event ev = {
		.timestamp_ns = sev->ns,
		.function_id = c->func,
		.thread_id = tc->ct->id,
		.kind = sev->kind == SRC_CALL ? ATF_CALL : sev->kind == SRC_RETURN ? ATF_RETURN
										: ATF_EXCEPTION,
		.call_depth = sev->depth,
		.detail_seq = ATF_NO_DETAIL,
	};
	int err;

	if (__builtin_expect(sev->kind >= SRC_ALLOC, 0))
		return emit_lane(tc, sev);
	if (sev->kind == SRC_CALL) /* the manifest lists it (threads convert in parallel) */
		__atomic_store_n(&c->used, true, __ATOMIC_RELAXED);
	if (sev->kind == SRC_OPEN_AT_END)
		tc->ct->open_at_end++;
	if (!tc->ct->events)
		tc->ct->time_start_ns = sev->ns;
	tc->ct->time_end_ns = sev->ns;
	tc->ct->events++;
	if (sev->detail && (err = emit_detail(tc, &ev, sev)))
		return err;
	return atf_index_append(tc->w, &ev);
}

static int convert_stream(struct thread_conv *tc, struct src_stream *s, struct progress *pg)
{
	struct src_event ev;
	uint64_t n = 0;
	int r;

	while ((r = src_next_sync(s, &ev)) > 0) {
		int err = emit(tc, &ev);

		if (err)
			return err;
		if (!(++n % PROGRESS_EVERY))
			progress_tick(pg, tc->cp->raw.proc.pid, tc->ct->id);
	}
	return r;
}

/* Closes the thread's files; the index's flag says whether detail.atf
 * exists. A writer that fails removes its own file; a detail.atf or
 * lanes.atf whose index could not be written goes too, so none is left
 * without its index. */
static int close_thread(struct thread_conv *tc, int err)
{
	int ierr;

	if (tc->lw) {
		int lerr = atf_lanes_close(tc->lw);

		tc->ct->has_lanes = !lerr;
		if (!err)
			err = lerr;
	}
	if (tc->dw) {
		int derr = atf_detail_close(tc->dw);

		tc->ct->has_detail = !derr;
		if (!err)
			err = derr;
	}
	atf_index_set_has_detail(tc->w, tc->ct->has_detail);
	ierr = atf_index_close(tc->w);
	if (ierr && tc->ct->has_detail) {
		unlink(tc->detail_path);
		tc->ct->has_detail = false;
	}
	if (ierr && tc->ct->has_lanes) {
		unlink(tc->lanes_path);
		tc->ct->has_lanes = false;
	}
	return err ? err : ierr;
}

/* The times of the events at the thread's windows' edges, read back from
 * the index.atf just written: a window's times are its events' there, to
 * the nanosecond (a conversion of the ticks alone could differ by one
 * where the thread's time was kept from stepping back). */
static int read_window_times(struct conv_process *cp, uint32_t tid, const char *index_path,
			     const struct raw_window_edges *edges)
{
	struct atf_index_file f;
	struct atf_event ev;
	bool mapped = false;
	char err[256];

	for (size_t i = 0; i < cp->raw.nwindows; i++) {
		const struct raw_window_edges *e = &edges[i];

		if (cp->raw.windows[i].w.ordinal != tid || !e->has_first || !e->has_last)
			continue;
		if (!mapped && atf_index_map(index_path, &f, err, sizeof(err))) {
			fprintf(stderr, "ada-symbolize: %s: %s\n", index_path, err);
			return -EIO;
		}
		mapped = true;
		if (e->last_event >= f.event_count)
			continue;
		atf_index_get(&f, e->first_event, &ev);
		cp->window_times[i].start_ns = ev.timestamp_ns;
		atf_index_get(&f, e->last_event, &ev);
		cp->window_times[i].end_ns = ev.timestamp_ns;
		cp->window_times[i].has = true;
	}
	if (mapped)
		atf_index_unmap(&f);
	return 0;
}

static int convert_thread(struct conv_process *cp, struct conv_thread *ct, const char *out_dir,
			  struct progress *pg)
{
	struct raw_window_edges *edges = calloc(cp->raw.nwindows + 1, sizeof(*edges));
	struct thread_conv tc = { .cp = cp, .ct = ct, .out_dir = out_dir };
	struct src_stream *s;
	char path[4300];
	unsigned r;
	int err;

	snprintf(path, sizeof(path), "%s/thread_%u", out_dir, ct->id);
	if ((err = make_dirs(path)))
		return err;
	/* One left by an earlier conversion would no longer be linked. */
	snprintf(path, sizeof(path), "%s/thread_%u/detail.atf", out_dir, ct->id);
	unlink(path);
	snprintf(tc.lanes_path, sizeof(tc.lanes_path), "%s/thread_%u/lanes.atf", out_dir, ct->id);
	unlink(tc.lanes_path);
	s = src_raw_stream_open(cp, ct->raw, NULL, true);
	if (s) {
		raw_stream_want_allocs(src_stream_raw(s));
		raw_stream_want_samples(src_stream_raw(s));
		raw_stream_want_blocks(src_stream_raw(s));
	}
	if (!s || !edges) {
		src_stream_close(s);
		free(edges);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "%s/thread_%u/index.atf", out_dir, ct->id);
	tc.w = atf_index_open(path, ct->id, cp->raw.arch);
	if (!tc.w) {
		src_stream_close(s);
		free(edges);
		return -EIO;
	}
	err = convert_stream(&tc, s, pg);
	if (!err && ct->events && !cp->raw.nclocks) {
		/* Ticks with no CLOCK pair to convert them would be made-up times. */
		fprintf(stderr, "ada-symbolize: %s/process.meta: no CLOCK record, so the %llu events of thread %u have no time\n",
			cp->raw.dir, (unsigned long long)ct->events, ct->id);
		err = -EINVAL;
	}
	ct->truncated = raw_stream_truncated(src_stream_raw(s));
	raw_stream_window_edges(src_stream_raw(s), &cp->raw, edges);
	for (r = 0; r < ADA_DROP_NREASONS; r++)
		ct->dropped[r] = ct->raw->ended ? ct->raw->end.dropped[r] :
			raw_stream_lost(src_stream_raw(s))[r];
	src_stream_close(s);
	err = close_thread(&tc, err);
	if (!err)
		err = read_window_times(cp, ct->id, path, edges);
	free(edges);
	return err;
}

const char *const conv_end_names[] = { "exited", "running at exit", "crashed", "killed",
				       "running at exec" };

/* A crash ends every thread that had not ended; an END record says how the
 * image ended (exit, _exit: at exit; or an exec); no END record and no CRASH
 * means the process was killed. */
enum conv_end conv_thread_end(const struct raw_process *p, const struct raw_thread *t)
{
	if (t->ended && (t->end.flags & ADA_TEND_EXITED))
		return CONV_EXITED;
	if (p->crashed)
		return CONV_CRASHED;
	if (p->clean_end && p->end.how == ADA_END_EXEC)
		return CONV_EXEC;
	/* A recorder writes the ends of a process that died (ADA_TEND_DIED). */
	return (t->ended && !(t->end.flags & ADA_TEND_DIED)) || p->clean_end ? CONV_RUNNING
										 : CONV_KILLED;
}

static bool lost_any(const struct ada_meta_thread_end *e)
{
	for (unsigned r = 0; r < ADA_DROP_NREASONS; r++)
		if (e->dropped[r])
			return true;
	return false;
}

/* A thread that recorded nothing has no file and no directory in ATF. */
static bool thread_has_file(const struct conv_process *cp, uint32_t id)
{
	char path[4300];

	snprintf(path, sizeof(path), "%s/thread_%u.lz4", cp->raw.dir, id);
	return access(path, F_OK) == 0;
}

/* The writer registers a thread (THREAD) before its first frame: a thread
 * file process.meta does not list would be left out without a word. */
static int check_thread_files(const struct raw_process *p)
{
	DIR *d = opendir(p->dir);
	struct dirent *de;
	int err = 0;

	if (!d)
		return 0; /* process.meta was read from it: nothing else to see */
	while ((de = readdir(d))) {
		const struct raw_thread *t;
		unsigned n;
		int len = 0;

		if (sscanf(de->d_name, "thread_%u.lz4%n", &n, &len) != 1 || !len || de->d_name[len])
			continue;
		t = raw_process_thread(p, n);
		if (t && t->registered)
			continue;
		fprintf(stderr, "ada-symbolize: %s/%s: process.meta has no THREAD record of thread %u\n",
			p->dir, de->d_name, n);
		err = -EINVAL;
	}
	closedir(d);
	return err;
}

/* A thread without a file wrote no position, so no window can be its: the
 * record is refused, as raw_stream_verify refuses one beyond the file. */
static int check_no_window(const struct raw_process *p, uint32_t ordinal)
{
	for (size_t i = 0; i < p->nwindows; i++) {
		const struct raw_window *rw = &p->windows[i];

		if (rw->w.ordinal != ordinal)
			continue;
		fprintf(stderr, "ada-symbolize: %s/thread_%u.lz4: missing, but process.meta's window at offset %zu covers positions %llu..%llu\n",
			p->dir, ordinal, rw->offset, (unsigned long long)rw->w.first_pos,
			(unsigned long long)rw->w.last_pos);
		return -EINVAL;
	}
	return 0;
}

/* The threads' conversions, one per CPU at a time: each thread file is
 * read, named and written on its own (the function table is read-only by
 * now; a thread's windows are its own). */
struct pool {
	struct conv_process *cp;
	const char *out_dir;
	struct progress *pg;
	size_t next;
	int *errs;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->cp->nthreads)
		p->errs[i] = convert_thread(p->cp, &p->cp->threads[i], p->out_dir, p->pg);
	return NULL;
}

static int convert_all(struct conv_process *cp, const char *out_dir, struct progress *pg)
{
	struct pool p = { cp, out_dir, pg, 0, calloc(cp->nthreads + 1, sizeof(int)) };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cp->nthreads < (size_t)(cpus > 1 ? cpus : 1) ? cp->nthreads : (size_t)cpus;
	pthread_t *t = calloc(n + 1, sizeof(*t));
	size_t started = 0;
	int err = 0;

	if (!p.errs || !t) {
		free(p.errs);
		free(t);
		return -ENOMEM;
	}
	/* The calling thread is one of the workers. */
	while (started + 1 < n && pthread_create(&t[started], NULL, pool_worker, &p) == 0)
		started++;
	pool_worker(&p);
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	for (size_t i = 0; i < cp->nthreads && !err; i++)
		err = p.errs[i];
	free(p.errs);
	free(t);
	return err;
}

static int convert_threads(struct conv_process *cp, const char *out_dir, const struct conv_options *o)
{
	struct progress pg = { .on = o->progress, .start = now_s(), .lock = PTHREAD_MUTEX_INITIALIZER };
	size_t i;
	int err = 0;

	if ((err = check_thread_files(&cp->raw)))
		return err;
	cp->threads = calloc(cp->raw.nthreads, sizeof(*cp->threads));
	cp->window_times = calloc(cp->raw.nwindows + 1, sizeof(*cp->window_times));
	if (!cp->threads || !cp->window_times)
		return -ENOMEM;
	for (i = 0; i < cp->raw.nthreads && !err; i++) {
		struct conv_thread *ct = &cp->threads[cp->nthreads];

		if (!thread_has_file(cp, cp->raw.threads[i].t.ordinal)) {
			const struct raw_thread *rt = &cp->raw.threads[i];

			if ((err = check_no_window(&cp->raw, rt->t.ordinal)))
				break;
			if (!rt->ended || (!rt->end.events && !lost_any(&rt->end)))
				continue; /* it recorded nothing */
			if (rt->end.events) {
				fprintf(stderr, "ada-symbolize: %s/thread_%u.lz4: missing (process.meta says the thread wrote %llu events)\n",
					cp->raw.dir, rt->t.ordinal, (unsigned long long)rt->end.events);
				err = -ENOENT;
				break;
			}
			/* It lost every event (no file could be written): it is
			 * listed, with what it lost. */
		}
		ct->raw = &cp->raw.threads[i];
		ct->id = ct->raw->t.ordinal;
		ct->end = conv_thread_end(&cp->raw, ct->raw);
		cp->nthreads++;
	}
	if (!err)
		err = convert_all(cp, out_dir, &pg);
	for (i = 0; i < cp->nthreads && !err; i++) {
		const struct conv_thread *ct = &cp->threads[i];

		if (!ct->events)
			continue;
		if (!cp->events || ct->time_start_ns < cp->time_start_ns)
			cp->time_start_ns = ct->time_start_ns;
		if (ct->time_end_ns > cp->time_end_ns)
			cp->time_end_ns = ct->time_end_ns;
		cp->events += ct->events;
	}
	if (pg.shown)
		fputc('\n', stderr);
	return err;
}

/* "crashed with SIGSEGV at 0x… in thread N". */
static void summary_crash(const struct raw_process *p)
{
	const struct ada_meta_crash *c = &p->crash;
	char sig[24];

	printf("pid %u: crashed with %s at 0x%llx in ", p->proc.pid,
	       conv_signal_name(c->signo, sig, sizeof(sig)), (unsigned long long)c->addr);
	if (c->ordinal == UINT32_MAX)
		printf("an untraced thread (tid %u)\n", c->os_tid);
	else
		printf("thread %u\n", c->ordinal);
}

/* Frames a crash or a kill left open: said with what ended them. A normal
 * end leaves frames open too (exit() inside main's caller, an exec) and
 * says nothing: the views mark them "(open at exit)". */
static void summary_open(const struct conv_process *cp, uint64_t open)
{
	const struct raw_process *p = &cp->raw;

	if (p->crashed && p->crash.ordinal != UINT32_MAX)
		printf("pid %u: %llu frames open at the crash, closed at the crash (thread %u) or at their thread's last event\n",
		       p->proc.pid, (unsigned long long)open, p->crash.ordinal);
	else
		printf("pid %u: %llu frames open %s, closed at the thread's last event\n", p->proc.pid,
		       (unsigned long long)open,
		       p->crashed ? "at the crash" : "when the process was killed");
}

static void summary(const struct conv_process *cp, const char *out_dir)
{
	uint64_t dropped = 0, details = 0, open = 0;
	size_t i, r;

	/* detail_full loses a detail record, not its event: said apart. */
	for (i = 0; i < cp->nthreads; i++) {
		open += cp->threads[i].open_at_end;
		details += cp->threads[i].dropped[ADA_DROP_DETAIL_FULL];
		for (r = 0; r < ADA_DROP_NREASONS; r++)
			if (r != ADA_DROP_DETAIL_FULL)
				dropped += cp->threads[i].dropped[r];
	}
	printf("pid %u: %zu thread%s, %llu events, %zu module%s, %zu functions -> %s\n",
	       cp->raw.proc.pid, cp->nthreads, cp->nthreads == 1 ? "" : "s",
	       (unsigned long long)cp->events, cp->nmodules, cp->nmodules == 1 ? "" : "s",
	       cp->raw.nfids, out_dir);
	if (dropped)
		printf("pid %u: %llu events were not recorded (see \"dropped\" in manifest.json)\n",
		       cp->raw.proc.pid, (unsigned long long)dropped);
	if (details)
		printf("pid %u: %llu detail records were not kept, their events were (detail_full in "
		       "manifest.json)\n",
		       cp->raw.proc.pid, (unsigned long long)details);
	if (cp->raw.crashed)
		summary_crash(&cp->raw);
	if (open && (cp->raw.crashed || !cp->raw.clean_end))
		summary_open(cp, open);
}

int conv_load(const char *pid_dir, struct conv_process *cp, bool quiet, int *recover_err)
{
	char raw_dir[4200];
	bool changed;
	int err;

	snprintf(raw_dir, sizeof(raw_dir), "%s/raw", pid_dir);
	err = raw_process_load(raw_dir, &cp->raw);
	if (err)
		return err;
	*recover_err = recover_process(&cp->raw, quiet, &changed);
	if (changed) {
		raw_process_free(&cp->raw);
		if ((err = raw_process_load(raw_dir, &cp->raw)))
			return err;
	}
	clock_map_init(&cp->clock, &cp->raw);
	return resolve_functions(cp);
}

void conv_unload(struct conv_process *cp)
{
	resolve_free(cp);
	free(cp->threads);
	free(cp->window_times);
	raw_process_free(&cp->raw);
}

int convert_process(const char *pid_dir, const char *out_dir, const struct conv_options *o)
{
	struct conv_process cp = { 0 };
	int err, rerr = 0;

	err = conv_load(pid_dir, &cp, o->quiet, &rerr);
	if (!err)
		err = make_dirs(out_dir);
	if (!err)
		err = convert_threads(&cp, out_dir, o);
	if (!err)
		err = manifest_write(out_dir, &cp);
	if (!err && !o->quiet)
		summary(&cp, out_dir);
	conv_unload(&cp);
	return err ? err : rerr;
}
