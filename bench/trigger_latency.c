/* trigger_latency.c - how long a detail window takes to reach the disk
 * after its trigger (issue 13's budget: p50 <= 25 ms, p99 <= 250 ms).
 *
 *   ADA_OUTPUT=DIR trigger_latency [MARKS] [INTERVAL_MS] [PAUSE_US]
 *                                                (default 100 20 0)
 *
 * Built with adacc (fentry mode) and run with ADA_DETAIL=window: a loop
 * keeps calling a small function (events for the windows' pre- and
 * post-roll), and calls ada_mark("m<k>"), k = 0..MARKS-1, each INTERVAL_MS
 * after the one before (the first INTERVAL_MS after the start, past the
 * start-up), noting the CLOCK_MONOTONIC time just before the call. A mark
 * also waits for MIN_GAP events after the one before: windows that overlap
 * are written as one record with the first label, and a thread slowed down
 * (a loaded machine, waits for the writer) could make few events in
 * INTERVAL_MS. PAUSE_US: a sleep after every 512 events, to run below
 * the writer's pace (without it the loop makes events as fast as it can). Meanwhile it reads its own
 * process.meta (DIR/session_<id>/pid_<pid>/raw/) as it grows, and notes
 * when each WINDOW record labelled "m<k>" appears: a window is written when
 * it closes, ADA_POST events after its mark, which this loop makes in
 * microseconds. The latency is the time from the mark to the record being
 * readable, up to one poll late (a poll every 100 us at most). After the
 * last mark it waits up to 5 s for the windows still missing.
 * Prints to stderr:
 *
 *   trigger_latency marks N seen S p50_ns A p99_ns B max_ns C kept K lost L
 *       events_per_s E
 *
 * (percentiles by nearest rank over the windows seen; - when none was; K
 * and L the detail records the WINDOW records say were written and lost,
 * summed over the windows seen; E the loop's rate over the whole run).
 * Exits 1 when it cannot find or read the trace, 2 on bad arguments.
 */
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ada.h"
#include "raw_format.h"

#define NOTRACE __attribute__((no_instrument_function))
#define MAX_MARKS 10000
#define POLL_NS 100000LL      /* read process.meta at most this often */
#define DRAIN_NS 5000000000LL /* how long to wait for windows after the last mark */
#define MIN_GAP 65536         /* events between marks: 16 windows of the default 2000 + 2000 */

static long long mark_ns[MAX_MARKS], seen_ns[MAX_MARKS];
static long seen;
static unsigned long long kept, lost;

__attribute__((noinline)) long tl_work(long x)
{
	return x * 3 + 1;
}

NOTRACE static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The reader of process.meta: the file once found, and the offset of its
 * first record not read yet. Records are appended whole, one writev each;
 * one not whole yet is read again at the next poll. */
struct meta_reader {
	int fd;
	off_t off;
	char pattern[4200];
};

NOTRACE static int meta_open(struct meta_reader *mr)
{
	glob_t g;

	if (glob(mr->pattern, 0, NULL, &g) != 0)
		return 0;
	mr->fd = open(g.gl_pathv[0], O_RDONLY | O_CLOEXEC);
	globfree(&g);
	mr->off = 16; /* the file header */
	return mr->fd >= 0;
}

/* A WINDOW record: if labelled "m<k>", mark k seen at time t. */
NOTRACE static void window_seen(const struct ada_meta_window *w, const char *label, size_t len, long nmarks,
				long long t)
{
	char buf[24];
	long k;
	char *end;

	if (len < 2 || len >= sizeof(buf) || label[0] != 'm')
		return;
	memcpy(buf, label + 1, len - 1);
	buf[len - 1] = '\0';
	k = strtol(buf, &end, 10);
	if (*end || k < 0 || k >= nmarks || seen_ns[k])
		return;
	seen_ns[k] = t;
	seen++;
	kept += w->kept;
	lost += w->lost;
}

/* Reads the records process.meta gained since the last poll: each header,
 * and a WINDOW's payload (the others are skipped). */
NOTRACE static void meta_poll(struct meta_reader *mr, long nmarks)
{
	long long t = now_ns();
	struct stat st;

	if ((mr->fd < 0 && !meta_open(mr)) || fstat(mr->fd, &st) != 0)
		return;
	for (;;) {
		struct ada_meta_rec h;
		union {
			struct ada_meta_window w;
			char bytes[sizeof(struct ada_meta_window) + 128];
		} rec;
		off_t whole;

		if (mr->off + (off_t)sizeof(h) > st.st_size ||
		    pread(mr->fd, &h, sizeof(h), mr->off) != (ssize_t)sizeof(h))
			return;
		whole = sizeof(h) + ((h.size + 7) & ~(off_t)7);
		if (mr->off + whole > st.st_size)
			return;
		if (h.type == ADA_META_WINDOW && h.size >= sizeof(struct ada_meta_window) && h.size <= sizeof(rec) &&
		    pread(mr->fd, &rec, h.size, mr->off + sizeof(h)) == (ssize_t)h.size)
			window_seen(&rec.w, rec.bytes + sizeof(rec.w), h.size - sizeof(rec.w), nmarks, t);
		mr->off += whole;
	}
}

NOTRACE static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least p percent at or below. */
NOTRACE static long long rank(const long long *v, long n, int p)
{
	long i = (n * p + 99) / 100;

	return v[i > 0 ? i - 1 : 0];
}

NOTRACE static long arg(const char *s, const char *what, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min || v > max) {
		fprintf(stderr, "trigger_latency: %s '%s': expected an integer from %ld to %ld\n", what, s, min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long nmarks = argc > 1 ? arg(argv[1], "MARKS", 1, MAX_MARKS) : 100;
	long long interval = (argc > 2 ? arg(argv[2], "INTERVAL_MS", 1, 10000) : 20) * 1000000LL;
	long pause_us = argc > 3 ? arg(argv[3], "PAUSE_US", 0, 1000000) : 0;
	struct timespec pause = { pause_us / 1000000, pause_us % 1000000 * 1000 };
	const char *out = getenv("ADA_OUTPUT");
	struct meta_reader mr = { .fd = -1 };
	long long t0, t, next_poll = 0, lat[MAX_MARKS];
	long k = 0, s = 0, n = 0, since = 0; /* events since the last mark */
	long long events = 0;

	if (!out || !*out) {
		fprintf(stderr, "trigger_latency: ADA_OUTPUT is not set: expected the trace directory\n");
		return 1;
	}
	snprintf(mr.pattern, sizeof(mr.pattern), "%s/session_*/pid_%d/raw/process.meta", out, (int)getpid());
	t0 = now_ns();
	for (;;) {
		for (int i = 0; i < 256; i++)
			s = tl_work(s);
		since += 2 * 256;
		events += 2 * 256;
		if (pause_us)
			nanosleep(&pause, NULL);
		t = now_ns();
		if (k < nmarks && t >= (k ? mark_ns[k - 1] : t0) + interval && since >= MIN_GAP) {
			char label[24];

			snprintf(label, sizeof(label), "m%ld", k);
			mark_ns[k] = now_ns();
			ada_mark(label);
			k++;
			since = 0;
		}
		if (t >= next_poll) {
			meta_poll(&mr, nmarks);
			next_poll = t + POLL_NS;
		}
		if (seen == nmarks || (k == nmarks && t > mark_ns[nmarks - 1] + DRAIN_NS))
			break;
	}
	t = now_ns() - t0;
	if (mr.fd < 0) {
		fprintf(stderr, "trigger_latency: no %s: is the program traced (adacc) and ADA_DETAIL=window?\n", mr.pattern);
		return 1;
	}
	for (k = 0; k < nmarks; k++)
		if (seen_ns[k])
			lat[n++] = seen_ns[k] - mark_ns[k];
	qsort(lat, n, sizeof(lat[0]), cmp_ll);
	if (n)
		fprintf(stderr, "trigger_latency marks %ld seen %ld p50_ns %lld p99_ns %lld max_ns %lld kept %llu lost %llu",
			nmarks, n, rank(lat, n, 50), rank(lat, n, 99), lat[n - 1], kept, lost);
	else
		fprintf(stderr, "trigger_latency marks %ld seen 0 p50_ns - p99_ns - max_ns - kept 0 lost 0", nmarks);
	fprintf(stderr, " events_per_s %.0f\n", events / (t / 1e9));
	printf("%ld\n", s);
	return 0;
}
