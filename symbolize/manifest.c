/* manifest.c - manifest.json of one converted process (ATF v2 §5).
 *
 * Beyond the keys ATF requires, it says what a user needs to trust the trace:
 * how it was recorded (mode, command line, configuration), how every thread
 * ended, and every event that was not kept, by reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atf.h"
#include "convert.h"
#include "json.h"

static const char *const drop_names[ADA_DROP_NREASONS] = ADA_DROP_NAMES;

static void put_drops(struct json_writer *w, const char *key, const uint64_t *d)
{
	unsigned r;

	json_open(w, key, '{');
	for (r = 0; r < ADA_DROP_NREASONS; r++)
		json_put_u64(w, drop_names[r], d[r]);
	json_close(w);
}

const char *conv_signal_name(uint32_t signo, char *buf, size_t len)
{
	const char *abbrev = signo < 128 ? sigabbrev_np((int)signo) : NULL;

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %" PRIu32, signo);
	return buf;
}

/* Version 3's backpressure: how often and how long threads waited for
 * room in their ring (ADA_ON_FULL=wait). */
static void put_waits(struct json_writer *w, uint64_t count, uint64_t ns)
{
	json_open(w, "waits", '{');
	json_put_u64(w, "count", count);
	json_put_u64(w, "ns", ns);
	json_close(w);
}

/* What ada-symbolize took from the thread's ring file (RAW_FORMAT.md §6). */
static void put_recovered(struct json_writer *w, const struct raw_thread *t)
{
	if (!t->recovered)
		return;
	json_open(w, "recovered", '{');
	json_put_u64(w, "events", t->rec.events);
	json_put_u64(w, "lost", t->rec.lost);
	json_close(w);
}

/* A coroutine stack's thread: its addresses and the thread that first ran
 * on it (its os_tid is that thread's). */
static void put_stack(struct json_writer *w, const struct ada_meta_stack *st)
{
	json_open(w, "stack", '{');
	json_put_hex(w, "lo", st->lo, 1);
	json_put_hex(w, "hi", st->hi, 1);
	if (st->host != UINT32_MAX)
		json_put_u64(w, "host_thread", st->host);
	json_close(w);
}

/* lanes.atf's records of each kind: "has_lanes": true, "lanes": {...}. */
static void put_lanes(struct json_writer *w, const uint64_t *n)
{
	json_put_bool(w, "has_lanes", true);
	json_open(w, "lanes", '{');
	json_put_u64(w, "allocs", n[ATF_LANE_ALLOC]);
	json_put_u64(w, "samples", n[ATF_LANE_SAMPLE]);
	json_put_u64(w, "blocks", n[ATF_LANE_BLOCK]);
	json_close(w);
}

static void put_threads(struct json_writer *w, const struct conv_process *cp, uint64_t *totals)
{
	size_t i, r;

	json_open(w, "threads", '[');
	for (i = 0; i < cp->nthreads; i++) {
		const struct conv_thread *ct = &cp->threads[i];

		json_open(w, NULL, '{');
		json_put_u64(w, "id", ct->id);
		json_put_u64(w, "os_tid", ct->raw->t.os_tid);
		json_put_bool(w, "has_detail", ct->has_detail);
		json_put_u64(w, "events", ct->events);
		json_put_u64(w, "detail_events", ct->details);
		if (ct->has_lanes) /* docs/atf-extensions.md: absent without lanes.atf */
			put_lanes(w, ct->lanes);
		put_drops(w, "dropped", ct->dropped);
		json_put_str(w, "name", ct->raw->t.name[0] ? ct->raw->t.name : "");
		json_put_str(w, "end", conv_end_names[ct->end]);
		json_put_u64(w, "open_at_end", ct->open_at_end);
		json_put_bool(w, "truncated", ct->truncated);
		put_recovered(w, ct->raw);
		if (ct->raw->has_waits)
			put_waits(w, ct->raw->end.waits, ct->raw->end.wait_ns);
		if (ct->raw->is_stack)
			put_stack(w, &ct->raw->stack);
		json_close(w);
		for (r = 0; r < ADA_DROP_NREASONS; r++)
			totals[r] += ct->dropped[r];
	}
	json_close(w);
}

/* The time of an event's tick as its index.atf timestamp: the events' own
 * conversion (clock_map_ns_fast) from a fresh cursor, which lands on the
 * segment holding tsc whatever came before. (An event whose rounding at a
 * segment's end would step back a nanosecond keeps its predecessor's time
 * in index.atf: the one case where the two differ, by that nanosecond.) */
static uint64_t event_ns(const struct conv_process *cp, uint64_t tsc)
{
	struct clock_cursor k = { 0 };

	return clock_map_ns_fast(&cp->clock, tsc, &k);
}

/* The detail windows (RAW_FORMAT.md §2.3), in the order they closed. A
 * window's times are those of its first and last events in the thread's
 * index.atf (the record's own ticks, of the first and last events the
 * writer looked at for a detail record, stand in where there was no event
 * at an edge). */
static void put_windows(struct json_writer *w, const struct conv_process *cp)
{
	static const char *const trig_names[] = ADA_TRIG_NAMES;

	if (!cp->raw.nwindows)
		return;
	json_open(w, "windows", '[');
	for (size_t i = 0; i < cp->raw.nwindows; i++) {
		const struct raw_window *rw = &cp->raw.windows[i];
		const struct ada_meta_window *m = &rw->w;
		const struct conv_window_times *t = &cp->window_times[i];

		json_open(w, NULL, '{');
		json_put_u64(w, "thread", m->ordinal); /* the ATF thread id is the ordinal */
		json_put_str(w, "trigger", trig_names[m->trigger]);
		json_put_str(w, "label", rw->label);
		json_put_u64(w, "trigger_position", m->trigger_pos);
		json_put_u64(w, "first_position", m->first_pos);
		json_put_u64(w, "last_position", m->last_pos);
		json_put_u64(w, "time_start_ns", t->has ? t->start_ns : event_ns(cp, m->first_tsc));
		json_put_u64(w, "time_end_ns", t->has ? t->end_ns : event_ns(cp, m->last_tsc));
		json_put_u64(w, "details_kept", m->kept);
		json_put_u64(w, "details_lost", m->lost);
		json_put_u64(w, "triggers", m->triggers);
		json_close(w);
	}
	json_close(w);
}

/* "cyg", "fentry", "mcount", "patchable" or several joined with "+" (objects built in
 * different modes linked together); "static runtime" when the module holds
 * libada itself; "none" when no hook says (module_mode tells "plt" apart). */
static const char *mode_name(unsigned hooks, char *buf, size_t len)
{
	/* By bit: ADA_HOOK_STATIC (8) is not a mode. */
	static const char *const names[] = { "cyg", "fentry", "mcount", NULL, "patchable" };
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i] && hooks & (1u << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "+" : "", names[i]);
	if (!n)
		snprintf(buf, len, "%s", hooks & ADA_HOOK_STATIC ? "static runtime" : "none");
	return buf;
}

static bool is_executable(const struct conv_process *cp, const struct conv_module *cm)
{
	return cm->raw && cp->raw.exe && !strcmp(cm->raw->path, cp->raw.exe);
}

/* The hooks that tell how a module was built. Defining them makes the
 * executable the static runtime, never a library: adacc links libada.a into
 * executables only, and libc.so.6 defines all three (gprof's mcount,
 * __fentry__, no-op __cyg_profile_func_*). */
static unsigned module_hooks(const struct conv_process *cp, const struct conv_module *cm)
{
	return is_executable(cp, cm) ? cm->hooks : cm->hooks & ~(unsigned)ADA_HOOK_STATIC;
}

/* A library with no hook (libc.so.6, one built without adacc) has functions
 * in the trace only because calls reached them through PLT/GOT slots the
 * dynamic-hook fallback redirected: "plt". The executable keeps what its
 * hooks say, addresses in no module "none". */
static const char *module_mode(const struct conv_process *cp, const struct conv_module *cm,
			       char *buf, size_t len)
{
	unsigned hooks = module_hooks(cp, cm);

	if (!hooks && cm->raw && !is_executable(cp, cm))
		return "plt";
	return mode_name(hooks, buf, len);
}

/* A load's lifetime: when the runtime saw it loaded, and unloaded. */
static void put_lifetime(struct json_writer *w, const struct conv_process *cp,
			 const struct raw_module *rm)
{
	size_t seg = 0;

	json_put_u64(w, "load_ns", clock_map_ns(&cp->clock, rm->m.load_tsc, &seg));
	seg = 0;
	if (rm->unloaded)
		json_put_u64(w, "unload_ns", clock_map_ns(&cp->clock, rm->unload_tsc, &seg));
}

static void put_modules(struct json_writer *w, const struct conv_process *cp)
{
	char uuid[65], mode[32];
	size_t i, b;

	json_open(w, "modules", '[');
	for (i = 0; i < cp->nmodules; i++) {
		const struct conv_module *cm = &cp->modules[i];
		const struct ada_meta_module *m = cm->raw ? &cm->raw->m : NULL;

		uuid[0] = '\0';
		for (b = 0; m && b < m->build_id_len; b++)
			sprintf(uuid + 2 * b, "%02x", m->build_id[b]);
		json_open(w, NULL, '{');
		json_put_u64(w, "module_id", i + 1);
		json_put_str(w, "path", cm->raw ? cm->raw->path : "[unmapped]");
		json_put_hex(w, "base_address", m ? m->bias + m->vaddr_lo : 0, 1);
		json_put_u64(w, "size", m ? m->vaddr_hi - m->vaddr_lo : 0);
		json_put_str(w, "uuid", uuid);
		json_put_str(w, "function_table_hash", cm->hash);
		json_put_hex(w, "load_bias", m ? m->bias : 0, 1);
		json_put_u64(w, "function_count", cm->st ? cm->st->nfuncs : 0);
		if (m)
			put_lifetime(w, cp, cm->raw);
		json_put_str(w, "mode", module_mode(cp, cm, mode, sizeof(mode)));
		json_close(w);
	}
	json_close(w);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Every function an event names, once, in fid order: fids whose addresses
 * several loads held name several, and two fids may name one function. */
static uint64_t *used_functions(const struct conv_process *cp, size_t *n)
{
	size_t c, k, m = 0, total = cp->fid_choices[cp->raw.nfids + 1];
	uint64_t *ids = malloc((total ? total : 1) * sizeof(*ids));
	uint64_t *sorted = malloc((total ? total : 1) * sizeof(*sorted));
	bool *listed = calloc(total ? total : 1, sizeof(*listed));

	*n = 0;
	if (!ids || !sorted || !listed) {
		free(ids);
		ids = NULL;
		goto out;
	}
	for (c = 0; c < total; c++)
		if (cp->choices[c].used)
			sorted[m++] = cp->choices[c].func;
	qsort(sorted, m, sizeof(*sorted), cmp_u64);
	for (c = 0; c < total; c++) {
		const uint64_t *at;

		if (!cp->choices[c].used)
			continue;
		at = bsearch(&cp->choices[c].func, sorted, m, sizeof(*sorted), cmp_u64);
		/* the first of equal ids stands for them all */
		for (k = (size_t)(at - sorted); k > 0 && sorted[k - 1] == *at; k--)
			;
		if (!listed[k]) {
			listed[k] = true;
			ids[(*n)++] = *at;
		}
	}
out:
	free(sorted);
	free(listed);
	return ids;
}

static void put_symbols(struct json_writer *w, const struct conv_process *cp, const uint64_t *ids,
			size_t n)
{
	size_t i;

	json_open(w, "symbols", '[');
	for (i = 0; i < n; i++) {
		uint64_t id = ids[i];
		const struct ada_func *f = &cp->modules[(id >> 32) - 1].st->funcs[(uint32_t)id - 1];

		json_open(w, NULL, '{');
		json_put_hex(w, "function_id", id, 16);
		json_put_u64(w, "module_id", id >> 32);
		json_put_u64(w, "symbol_index", (uint32_t)id);
		json_put_str(w, "name", f->name);
		if (f->demangled)
			json_put_str(w, "demangled", f->demangled);
		json_put_hex(w, "address", f->addr, 1);
		json_put_u64(w, "size", f->size);
		if (f->file) {
			json_put_str(w, "file", f->file);
			json_put_u64(w, "line", f->line);
		}
		if (f->synthetic)
			json_put_bool(w, "synthetic", true);
		json_close(w);
	}
	json_close(w);
}

/* The upper edge of a latency bucket (recorder/latency.c), in ticks. */
static uint64_t bucket_top(unsigned b)
{
	unsigned msb = b / 8 + 2;

	return b < 8 ? b + 1 : (uint64_t)(8 + b % 8 + 1) << (msb - 3);
}

static uint64_t latency_quantile(const struct ada_meta_latency *l, double q)
{
	uint64_t want = (uint64_t)(q * (double)l->samples), seen = 0;
	unsigned b;

	for (b = 0; b < ADA_LATENCY_BUCKETS; b++) {
		seen += l->counts[b];
		if (seen > want)
			return bucket_top(b) < l->max_ticks ? bucket_top(b) : l->max_ticks;
	}
	return l->max_ticks;
}

/* Recorded → written to the thread file, from the writer's sample; each
 * figure is a bucket's upper edge: at most 12.5 % above the true value. */
static void put_latency(struct json_writer *w, const struct conv_process *cp)
{
	const struct ada_meta_latency *l = &cp->raw.latency;
	const struct clock_map *c = &cp->clock;

	if (!cp->raw.has_latency)
		return;
	json_open(w, "latency_to_disk", '{');
	json_put_u64(w, "samples", l->samples);
	json_put_u64(w, "p50_ns", clock_map_duration_ns(c, latency_quantile(l, 0.50)));
	json_put_u64(w, "p99_ns", clock_map_duration_ns(c, latency_quantile(l, 0.99)));
	json_put_u64(w, "max_ns", clock_map_duration_ns(c, l->max_ticks));
	json_close(w);
}

/* Nanoseconds as milliseconds with three decimals, rounded half up in
 * integers (exact, unlike %.3f of a double). json.h has no fractional
 * numbers: the integer part goes through the writer, which places the key
 * and comma, and the fraction follows it in the same token. */
static void put_ms(struct json_writer *w, const char *key, uint64_t ns)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);

	json_put_u64(w, key, us / 1000);
	fprintf(w->f, ".%03u", (unsigned)(us % 1000));
}

/* The dynamic-hook fallback's totals: the last DYNHOOK record, written after
 * the last hooking pass. */
static void put_dynamic_hooks(struct json_writer *w, const struct conv_process *cp)
{
	const struct ada_meta_dynhook *d = &cp->raw.dynhook;

	if (!cp->raw.has_dynhook)
		return;
	json_open(w, "dynamic_hooks", '{');
	json_put_u64(w, "modules", d->modules);
	json_put_u64(w, "slots", d->slots);
	json_put_u64(w, "functions", d->functions);
	json_put_u64(w, "excluded", d->excluded);
	json_put_u64(w, "untraceable", d->untraceable);
	json_put_u64(w, "passes", d->passes);
	put_ms(w, "startup_ms", d->startup_ns);
	put_ms(w, "total_ms", d->total_ns);
	json_close(w);
}

/* Patchable mode's totals: the last PATCHED record. */
static void put_patchable(struct json_writer *w, const struct conv_process *cp)
{
	const struct ada_meta_patched *pt = &cp->raw.patched;

	if (!cp->raw.has_patched)
		return;
	json_open(w, "patchable", '{');
	json_put_u64(w, "modules", pt->modules);
	json_put_u64(w, "sites", pt->sites);
	json_put_u64(w, "patched", pt->patched);
	json_put_u64(w, "refused", pt->refused);
	json_put_u64(w, "passes", pt->passes);
	put_ms(w, "startup_ms", pt->startup_ns);
	put_ms(w, "total_ms", pt->total_ns);
	json_close(w);
}

/* The modes of the modules the trace points into. */
static void put_mode(struct json_writer *w, const struct conv_process *cp)
{
	unsigned hooks = 0, modes;
	char buf[32];

	for (size_t i = 0; i < cp->nmodules; i++)
		hooks |= module_hooks(cp, &cp->modules[i]);
	/* A static runtime says nothing about the mode when another module does. */
	modes = hooks & (ADA_HOOK_CYG | ADA_HOOK_FENTRY | ADA_HOOK_MCOUNT);
	json_put_str(w, "mode", mode_name(modes ? modes : hooks, buf, sizeof(buf)));
}

/* The fatal signal (RAW_FORMAT.md §7); "thread" is absent when it hit a
 * thread that recorded nothing. */
static void put_crash(struct json_writer *w, const struct conv_process *cp)
{
	const struct ada_meta_crash *c = &cp->raw.crash;
	size_t seg = 0;
	char sig[24];

	if (!cp->raw.crashed)
		return;
	json_open(w, "crash", '{');
	json_put_u64(w, "signal", c->signo);
	json_put_str(w, "signal_name", conv_signal_name(c->signo, sig, sizeof(sig)));
	json_put_i64(w, "code", c->code);
	if (c->ordinal != UINT32_MAX)
		json_put_u64(w, "thread", c->ordinal);
	json_put_u64(w, "os_tid", c->os_tid);
	json_put_hex(w, "address", c->addr, 1);
	json_put_u64(w, "time_ns", clock_map_ns(&cp->clock, c->tsc, &seg));
	json_close(w);
}

/* The threads' waits added up, when their THREAD_END records have them. */
static void put_process_waits(struct json_writer *w, const struct conv_process *cp)
{
	uint64_t count = 0, ns = 0;
	bool any = false;

	for (size_t i = 0; i < cp->nthreads; i++) {
		const struct raw_thread *t = cp->threads[i].raw;

		any |= t->has_waits;
		count += t->has_waits ? t->end.waits : 0;
		ns += t->has_waits ? t->end.wait_ns : 0;
	}
	if (any)
		put_waits(w, count, ns);
}

/* Who wrote what: this ada-symbolize the ATF, the program's libada the raw
 * trace (its PRODUCER record; none before 0.15.0, and then no key). */
static void put_producer(struct json_writer *w, const struct raw_process *p)
{
	json_open(w, "producer", '{');
	json_put_str(w, "tool", "ada-symbolize");
	json_put_str(w, "version", ADA_VERSION);
	if (p->producer)
		json_put_str(w, "runtime_version", p->producer);
	json_close(w);
}

static void put_process(struct json_writer *w, const struct conv_process *cp)
{
	const struct raw_process *p = &cp->raw;

	json_put_str(w, "format_version", "2.1");
	put_producer(w, &cp->raw);
	put_mode(w, cp);
	json_put_u64(w, "pid", p->proc.pid);
	json_put_u64(w, "ppid", p->proc.ppid);
	if (p->proc.parent_pid)
		json_put_u64(w, "fork_parent_pid", p->proc.parent_pid);
	json_put_str(w, "executable", p->exe ? p->exe : "");
	json_put_str(w, "command_line", p->cmdline ? p->cmdline : "");
	json_put_str(w, "config", p->config ? p->config : "");
	json_put_bool(w, "clean_exit", p->clean_end);
	json_put_bool(w, "tsc_invariant", p->proc.flags & ADA_PROC_TSC_INVARIANT);
	if (p->proc.flags & ADA_PROC_LAUNCHED) /* RAW_FORMAT.md: `ada record` recorded it */
		json_put_str(w, "recorder", "ada record");
	json_put_u64(w, "clock_type", ATF_CLOCK_BOOTTIME);
	json_put_u64(w, "time_start_ns", cp->time_start_ns);
	json_put_u64(w, "time_end_ns", cp->time_end_ns);
	json_put_u64(w, "events", cp->events);
	put_latency(w, cp);
	put_dynamic_hooks(w, cp);
	put_patchable(w, cp);
	put_crash(w, cp);
	put_process_waits(w, cp);
}

int manifest_write(const char *out_dir, const struct conv_process *cp)
{
	uint64_t totals[ADA_DROP_NREASONS] = { 0 };
	struct json_writer w;
	char path[4300];
	size_t nids;
	uint64_t *ids = used_functions(cp, &nids);
	FILE *f;
	int bad;

	if (!ids)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/manifest.json", out_dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, strerror(errno));
		free(ids);
		return -errno;
	}
	json_writer_init(&w, f);
	json_open(&w, NULL, '{');
	put_process(&w, cp);
	put_threads(&w, cp, totals);
	put_drops(&w, "dropped", totals);
	put_windows(&w, cp);
	put_modules(&w, cp);
	put_symbols(&w, cp, ids, nids);
	free(ids);
	json_close(&w);
	fputc('\n', f);
	bad = ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, "ada-symbolize: %s: write failed\n", path);
		return -EIO;
	}
	return 0;
}
