/* view_info.c - `ada-symbolize info`: what a trace holds, before reading it.
 *
 * uftrace's `info` answers "what did I record?" without a pass over the
 * events; so does this: per process, from process.meta alone (no symbols,
 * no thread file decoded), the command line, when it started and how long
 * it ran, how it ended, which modules ran instrumented and how, the
 * recording's configuration, each thread with its events, what was lost
 * and why, the waits for the recorder, and the bytes on disk. Only a trace
 * recorded with ADA_ALLOC or ADA_BLOCKING has its thread files read, for
 * the records no THREAD_END counts: the blocks, the waits and releases.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "raw.h"
#include "symtab.h"
#include "trace_dir.h"
#include "view_cli.h"

static const char *const drop_names[] = ADA_DROP_NAMES;

/* "1.234 ms" */
static void duration(FILE *out, uint64_t ns)
{
	char buf[32];

	view_duration(buf, sizeof(buf), ns, false);
	fputs(buf + strspn(buf, " "), out);
}

/* Bytes of the regular files in dir (raw/: process.meta, thread files). */
static uint64_t dir_bytes(const char *dir)
{
	char path[8400];
	struct dirent *e;
	uint64_t sum = 0;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
	}
	if (d)
		closedir(d);
	return sum;
}

static void ended(FILE *out, const struct raw_process *p)
{
	static const char *const how[] = { "exit", "_exit", "exec" };

	fputs("  ended by       ", out);
	if (p->crashed)
		fprintf(out, "a crash: signal %u (%s)\n", p->crash.signo, strsignal((int)p->crash.signo));
	else if (p->clean_end)
		fprintf(out, "%s\n", p->end.how < 3 ? how[p->end.how] : "?");
	else
		fputs("no end record: killed, or still running\n", out);
}

/* The modules built with adacc, with their modes (from the files, where
 * they still are). */
static void instrumented(FILE *out, const struct raw_process *p)
{
	static const struct {
		unsigned bit;
		const char *name;
	} modes[] = { { ADA_HOOK_FENTRY, "fentry" }, { ADA_HOOK_MCOUNT, "mcount" },
		      { ADA_HOOK_CYG, "cyg" }, { ADA_HOOK_PATCHABLE, "patchable" } };
	size_t shown = 0;

	fputs("  instrumented  ", out);
	for (size_t i = 0; i < p->nmodules; i++) {
		unsigned hooks = p->modules[i].path ? ada_elf_hooks(p->modules[i].path) &
			 (ADA_HOOK_FENTRY | ADA_HOOK_MCOUNT | ADA_HOOK_CYG | ADA_HOOK_PATCHABLE) : 0;
		const char *base = p->modules[i].path ? strrchr(p->modules[i].path, '/') : NULL;

		if (!hooks)
			continue;
		fprintf(out, "%s %s (", shown++ ? "," : "", base ? base + 1 : p->modules[i].path);
		for (size_t k = 0, n = 0; k < sizeof(modes) / sizeof(modes[0]); k++)
			if (hooks & modes[k].bit)
				fprintf(out, "%s%s", n++ ? "+" : "", modes[k].name);
		fputc(')', out);
	}
	fputs(shown ? "\n" : " none found (the files are gone, or none was built with adacc)\n", out);
}

static void threads(FILE *out, const struct raw_process *p, uint64_t *events,
		    uint64_t dropped[ADA_DROP_NREASONS], uint64_t *waits, uint64_t *wait_ns)
{
	fprintf(out, "  threads        %zu\n", p->nthreads);
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct raw_thread *t = &p->threads[i];
		uint64_t n = t->end.events + (t->recovered ? t->rec.events : 0);

		fprintf(out, "    thread %u tid %u", t->t.ordinal, t->t.os_tid);
		if (t->t.name[0])
			fprintf(out, " (%.16s)", t->t.name);
		if (t->is_stack)
			fprintf(out, " stack 0x%" PRIx64 "-0x%" PRIx64, t->stack.lo, t->stack.hi);
		fprintf(out, ": %" PRIu64 " events\n", n);
		*events += n;
		for (int r = 0; r < ADA_DROP_NREASONS; r++)
			dropped[r] += t->end.dropped[r];
		*waits += t->end.waits;
		*wait_ns += t->end.wait_ns;
	}
}

static void lost(FILE *out, const uint64_t dropped[ADA_DROP_NREASONS])
{
	size_t n = 0;

	fputs("  not kept      ", out);
	for (int r = 0; r < ADA_DROP_NREASONS; r++)
		if (dropped[r])
			fprintf(out, "%s %s %" PRIu64, n++ ? "," : "", drop_names[r], dropped[r]);
	fputs(n ? "\n" : " nothing\n", out);
}

/* The counter lane (ADA_COUNTERS): samples kept, and not kept by reason. */
static void samples(FILE *out, const struct raw_process *p)
{
	static const char *const names[] = ADA_SAMPLE_LOST_NAMES;
	uint64_t kept = 0, lost[ADA_SAMPLE_LOST_NREASONS] = { 0 };

	for (size_t i = 0; i < p->nthreads; i++) {
		kept += p->threads[i].end.samples;
		for (int r = 0; r < ADA_SAMPLE_LOST_NREASONS; r++)
			lost[r] += p->threads[i].end.samples_lost[r];
	}
	if (!kept && !lost[0] && !lost[1])
		return;
	fprintf(out, "  samples        %" PRIu64 " (counters)", kept);
	for (int r = 0; r < ADA_SAMPLE_LOST_NREASONS; r++)
		if (lost[r])
			fprintf(out, ", not kept %s %" PRIu64, names[r], lost[r]);
	fputc('\n', out);
}

/* Whether the configuration (space-separated key=value) holds key=on. */
static bool config_on(const char *config, const char *key)
{
	size_t n = strlen(key);

	for (const char *c = config; c && (c = strstr(c, key)); c += n)
		if ((c == config || c[-1] == ' ') && !strncmp(c + n, "=on", 3) &&
		    (c[n + 3] == ' ' || !c[n + 3]))
			return true;
	return false;
}

/* The ALLOC and BLOCK records of the threads' files (ADA_ALLOC,
 * ADA_BLOCKING): blocks allocated and freed, waits and releases. Decoded
 * without symbols or times, a pass of the lz4 frames alone. */
static void records(FILE *out, const struct raw_process *p, const char *raw)
{
	bool allocs = config_on(p->config, "alloc"), blocks = config_on(p->config, "blocking");
	uint64_t made = 0, freed = 0, waits = 0, releases = 0;
	bool whole = true;

	if (!allocs && !blocks)
		return;
	for (size_t i = 0; i < p->nthreads; i++) {
		struct raw_stream *s = raw_stream_open(raw, p->threads[i].t.ordinal, p->nfids,
						       p->version);
		struct raw_event ev[RAW_READ_MAX];
		int n;

		if (!s) {
			whole = false;
			continue;
		}
		raw_stream_skip_checksums(s);
		if (allocs)
			raw_stream_want_allocs(s);
		if (blocks)
			raw_stream_want_blocks(s);
		while ((n = raw_stream_read(s, ev, RAW_READ_MAX)) > 0)
			for (int k = 0; k < n; k++) {
				if (ev[k].kind == RAW_EV_ALLOC)
					*(ev[k].alloc.freed ? &freed : &made) += 1;
				else if (ev[k].kind == RAW_EV_BLOCK)
					*(ada_block_release(ev[k].block.op) ? &releases : &waits) += 1;
			}
		whole &= n == 0;
		raw_stream_close(s);
	}
	if (allocs)
		fprintf(out, "  allocations    %s%" PRIu64 " blocks allocated, %" PRIu64 " freed\n",
			whole ? "" : "at least ", made, freed);
	if (blocks)
		fprintf(out, "  blocking       %s%" PRIu64 " waits, %" PRIu64 " releases\n",
			whole ? "" : "at least ", waits, releases);
}

static int one_process(FILE *out, const char *pid_dir)
{
	struct raw_process p;
	struct clock_map cm;
	uint64_t events = 0, dropped[ADA_DROP_NREASONS] = { 0 }, waits = 0, wait_ns = 0, last = 0, bytes;
	char raw[4300], when[64];
	time_t start;
	struct tm tm;
	int err;

	snprintf(raw, sizeof(raw), "%s/raw", pid_dir);
	if ((err = raw_process_load(raw, &p)) < 0)
		return err;
	start = (time_t)(p.proc.start_realtime_ns / 1000000000u);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", localtime_r(&start, &tm));
	fprintf(out, "# pid %u %s\n", p.proc.pid, p.cmdline && *p.cmdline ? p.cmdline : p.exe);
	fprintf(out, "  executable     %s\n", p.exe ? p.exe : "?");
	if (p.proc.parent_pid)
		fprintf(out, "  forked from    pid %u\n", p.proc.parent_pid);
	fprintf(out, "  started        %s\n", when);
	for (size_t i = 0; i < p.nthreads; i++)
		if (p.threads[i].end.end_tsc > last)
			last = p.threads[i].end.end_tsc;
	if (p.clean_end && p.end.end_tsc > last)
		last = p.end.end_tsc;
	clock_map_init(&cm, &p);
	fputs("  ran for        ", out);
	duration(out, last > p.proc.start_tsc ? clock_map_duration_ns(&cm, last - p.proc.start_tsc) : 0);
	fputc('\n', out);
	ended(out, &p);
	instrumented(out, &p);
	fprintf(out, "  recorded by    ada %s%s\n", p.producer ? p.producer : "(before 0.15.0)",
		p.proc.flags & ADA_PROC_LAUNCHED ? ", the recorder of ada record" : "");
	fprintf(out, "  configuration  %s\n", p.config ? p.config : "?");
	threads(out, &p, &events, dropped, &waits, &wait_ns);
	fprintf(out, "  events         %" PRIu64 "\n", events);
	lost(out, dropped);
	samples(out, &p);
	records(out, &p, raw);
	if (waits) {
		fprintf(out, "  waited         %" PRIu64 " times for the recorder, ", waits);
		duration(out, wait_ns);
		fputs(" in all\n", out);
	}
	if (p.nwindows)
		fprintf(out, "  detail windows %zu\n", p.nwindows);
	fprintf(out, "  modules        %zu loaded\n", p.nmodules);
	bytes = dir_bytes(raw);
	fprintf(out, "  raw trace      %.1f %s\n", bytes < 1000000 ? (double)bytes / 1e3 : (double)bytes / 1e6,
		bytes < 1000000 ? "KB" : "MB");
	raw_process_free(&p);
	return 0;
}

int view_info_main(const struct view_args *a, FILE *out)
{
	int err = 0;

	for (int i = 0; i < a->npaths && !err; i++) {
		struct ada_trace_pid *pids;
		size_t n;

		if ((err = ada_trace_find_pids(a->paths[i], &pids, &n)))
			break;
		for (size_t k = 0; k < n && !err; k++) {
			if (!view_filter_wants_pid(&a->filter, (uint32_t)pids[k].pid))
				continue;
			err = one_process(out, pids[k].dir);
		}
		ada_trace_free_pids(pids, n);
	}
	return err;
}
