/* config.c - the ADA_* environment variables of the traced program.
 *
 * A bad value never stops the program: one line names the variable, the value
 * and what is accepted, and the default is used. A variable with the ADA_
 * prefix that nobody knows gets a line too, since it is most likely a typo.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ada_internal.h"
#include "path_len.h"
#include "vars.h"

struct int_setting {
	const char *name;
	uint64_t min, max, def;
	const char *unit;
};

static const struct int_setting RING_KB = { "ADA_RING_KB", 64, 1u << 20, 16384, "KiB per thread" };
static const struct int_setting DEPTH = { "ADA_DEPTH", 1, UINT32_MAX, UINT32_MAX, "frames" };
static const struct int_setting SHADOW = { "ADA_SHADOW_DEPTH", 16, 1u << 22, 65536, "frames" };
static const struct int_setting FLUSH_MS = { "ADA_FLUSH_MS", 1, 1000, 10, "ms" };
static const struct int_setting STACK_BYTES = { "ADA_STACK_BYTES", 0, ADA_STACK_MAX, ADA_STACK_DEFAULT, "bytes" };
static const struct int_setting DETAIL_KB = { "ADA_DETAIL_KB", 64, 1u << 20, 16384, "KiB per thread" };
/* For the tests only: the writer sleeps this long after each pass, so that
 * rings fill and backpressure can be checked on any machine. */
static const struct int_setting WRITER_DELAY = { "ADA_TEST_WRITER_DELAY_US", 0, 5000000, 0, "us" };
static const struct int_setting RECORDER_LATE = { "ADA_TEST_RECORDER_LATE_MS", 0, 10000, 0, "ms" };
/* How long a recorder may make no progress before its watchdog ends it. */
static const struct int_setting WATCHDOG_S = { "ADA_TEST_WATCHDOG_S", 1, 3600, 30, "s" };

static uint64_t get_int(const struct int_setting *s, const char *v)
{
	char *end;
	unsigned long long x;

	if (!v)
		return s->def;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (!*v || *end || errno || v[0] == '-' || x < s->min || x > s->max) {
		ada_warn("%s=%s is not valid: expected an integer from %" PRIu64 " to %" PRIu64
			 " (%s); using %" PRIu64, s->name, v, s->min, s->max, s->unit, s->def);
		return s->def;
	}
	return x;
}

/* A yes/no variable (vars.h's words); unset or empty, or a bad value, gives
 * the table's default. */
static bool get_bool(const char *name, const char *v)
{
	const char *def = ada_var_find(name, SIZE_MAX)->def;
	int yes = v && *v ? ada_bool_word(v) : -1;

	if (yes >= 0)
		return yes;
	if (v && *v)
		ada_warn("%s=%s is not valid: expected " ADA_BOOL_WORDS "; using %s", name, v, def);
	return ada_bool_word(def) == 1;
}

/* A variable that takes one of a few words: the index of v in choices,
 * or def (with one line) when it is none of them. */
static unsigned get_choice(const char *name, const char *v, const char *const *choices,
			   unsigned n, unsigned def)
{
	char accepted[128] = "";
	size_t used = 0;
	unsigned i;

	if (!v)
		return def;
	for (i = 0; i < n; i++) {
		if (!strcmp(v, choices[i]))
			return i;
		used += (size_t)snprintf(accepted + used, sizeof(accepted) - used, "%s%s",
					 i ? (i + 1 == n ? " or " : ", ") : "", choices[i]);
	}
	ada_warn("%s=%s is not valid: expected %s; using %s", name, v, accepted, choices[def]);
	return def;
}

static const char *const ON_OFF[] = { "on", "off" };
/* ADA_DETAIL: every record written, records in windows only, none captured. */
static const char *const DETAIL[] = { "all", "window", "off" };
enum { DETAIL_ALL, DETAIL_WINDOW, DETAIL_OFF };
/* ADA_RECORD: every event written as it comes, or rings written at snapshots. */
static const char *const RECORD[] = { "stream", "ring" };
/* The default pre- and post-roll: 2000 events each side of a trigger. */
static const struct ada_roll DEFAULT_ROLL = { 2000, false };
static const char *const ON_FULL[] = { "wait", "drop" };

/* ADA_COUNTERS: a yes/no word (on: 1 ms), or a period with its unit, "500us",
 * "2ms". Returns the period in microseconds, 0 for off. */
static uint32_t get_counters(const char *v)
{
	unsigned long long x;
	char *end;
	int yes;

	if (!v || !*v)
		return 0;
	if ((yes = ada_bool_word(v)) >= 0)
		return yes ? 1000 : 0;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (v[0] != '-' && !errno && end != v && (!strcmp(end, "ms") || !strcmp(end, "us"))) {
		if (!strcmp(end, "ms"))
			x = x <= 1000 ? x * 1000 : 0;
		if (x >= 250 && x <= 1000000)
			return (uint32_t)x;
	}
	ada_warn("ADA_COUNTERS=%s is not valid: expected 1/on (every 1 ms of CPU time), a period "
		 "from 250us to 1000ms (e.g. 500us, 2ms), or 0/off; counters are off", v);
	return 0;
}

/* ADA_EXCLUDE: a comma-separated list of MODULE[:SYMBOL] shell globs; each
 * item needs a module glob (use * for any). */
static void get_exclude(const char *v, char *out, size_t len)
{
	const char *item;

	out[0] = '\0';
	if (!v)
		return;
	if (strlen(v) >= len) {
		ada_warn("ADA_EXCLUDE is not valid: %zu characters, at most %zu accepted; "
			 "excluding nothing", strlen(v), len - 1);
		return;
	}
	for (item = v; *item; item += strcspn(item, ","), item += *item == ',') {
		size_t n = strcspn(item, ",");

		if (!n || *item == ':' || item[n - 1] == ':') {
			ada_warn("ADA_EXCLUDE=%s is not valid: expected MODULE[:SYMBOL] globs "
				 "separated by commas (e.g. libc.so.6:malloc,libfoo*); excluding "
				 "nothing", v);
			return;
		}
	}
	snprintf(out, len, "%s", v);
}

/* ADA_FILTER, ADA_NOTRACE: function-name globs separated by commas. */
static void get_globs(const char *name, const char *v, char *out, size_t len)
{
	const char *item;

	out[0] = '\0';
	if (!v)
		return;
	if (strlen(v) >= len) {
		ada_warn("%s is not valid: %zu characters, at most %zu accepted; ignored", name,
			 strlen(v), len - 1);
		return;
	}
	for (item = v; *item; item += strcspn(item, ","), item += *item == ',') {
		if (!strcspn(item, ",")) {
			ada_warn("%s=%s is not valid: expected function-name globs separated by "
				 "commas (e.g. parse_*,main); ignored", name, v);
			return;
		}
	}
	snprintf(out, len, "%s", v);
}

static uint64_t round_pow2(uint64_t x)
{
	uint64_t p = 1;

	while (p < x)
		p <<= 1;
	return p;
}

void ada_config_warn_unknown(char *const *env)
{
	char *const *e;

	for (e = env; e && *e; e++) {
		size_t len = strcspn(*e, "=");

		if (strncmp(*e, "ADA_", 4))
			continue;
		if (!ada_var_find(*e, len))
			ada_warn("unknown variable %.*s ignored (see adacc --ada-help)", (int)len, *e);
	}
}

/* ADA_DETAIL_KB's default. In window mode the detail ring only has to keep
 * a window's records until the writer has them. When every trigger is one
 * the thread learns of at once (ada_mark, ada_snapshot, signals, a crash:
 * marks.c holds each thread back from the window's records from then on, a
 * quarter of its ring later at most) and both rolls are counts, twice a
 * window's events are enough: 8192 records of 288 bytes, 2.25 MiB (of
 * ADA_DETAIL_KB's 4096, a power of two), for the default 2000 + 2000. A ring that small stays in the caches, where 16 MiB streamed the
 * records through memory and took the program's data out of them (same-run
 * trials: micro's default mode ×0.76-0.83 of the CPU, Lua's ×0.85). A func:
 * trigger is found by the writer, late, and a time roll can span any
 * number of events; ADA_DETAIL=all keeps every record until the writer has
 * it, ring mode keeps history for a snapshot: those keep 16 MiB. */
static uint64_t detail_kb_default(const struct ada_config *c)
{
	uint64_t rec = ADA_DREC_STACK * 8 + c->stack_bytes, kb;

	if (!c->detail_window || c->ring_mode || c->trigger.nfuncs || c->trigger.pre.time ||
	    c->trigger.post.time)
		return DETAIL_KB.def;
	kb = 2 * (c->trigger.pre.n + c->trigger.post.n) * rec / 1024;
	return kb < DETAIL_KB.min ? DETAIL_KB.min : kb > DETAIL_KB.def ? DETAIL_KB.def : kb;
}

/* An architecture without the dynamic hooks yet (runtime/<arch>/arch.h)
 * records without them, its recorder reading the program's maps for the
 * modules as with ADA_DYNHOOK=off; a program that asked for them, or for
 * the blocks they see, is told in one line, and runs on. */
static void no_dynhook(struct ada_config *c, const char *(*getenv_fn)(const char *))
{
	const char *v = getenv_fn("ADA_DYNHOOK");

	if (c->alloc)
		ada_warn("ADA_ALLOC=1 needs the dynamic hooks, not there yet on " ADA_ARCH_NAME
			 ": allocations are not recorded");
	else if (c->dynhook && v && *v)
		ada_warn("ADA_DYNHOOK=%s: the dynamic hooks are not there yet on " ADA_ARCH_NAME
			 ": calls into libraries built without adacc are not recorded", v);
	c->dynhook = c->alloc = false;
}

/* The same for the detail lane (runtime/<arch>/arch.h): the records are
 * kept without it. */
static void no_detail(struct ada_config *c, const char *(*getenv_fn)(const char *))
{
	const char *v = getenv_fn("ADA_DETAIL");

	if (c->detail && v && *v)
		ada_warn("ADA_DETAIL=%s: the detail lane is not there yet on " ADA_ARCH_NAME
			 ": calls are recorded without their registers", v);
	c->detail = c->detail_window = false;
}

void ada_config_load(struct ada_config *c, const char *(*getenv_fn)(const char *))
{
	struct int_setting detail_kb = DETAIL_KB;
	const char *out = getenv_fn("ADA_OUTPUT");
	unsigned detail;
	int n;

	memset(c, 0, sizeof(*c));
	c->disabled = get_bool("ADA_DISABLE", getenv_fn("ADA_DISABLE"));
	c->quiet = get_bool("ADA_QUIET", getenv_fn("ADA_QUIET"));
	c->verbose = get_bool("ADA_VERBOSE", getenv_fn("ADA_VERBOSE"));
	if (out && (!*out || strlen(out) >= sizeof(c->output) - 64)) {
		ada_warn("ADA_OUTPUT=%s is not valid: expected a directory path; using ada-trace", out);
		out = NULL;
	}
	/* Every trace path is joined to it: no "dir//session_..." for "dir/". */
	n = snprintf(c->output, sizeof(c->output), "%s", out ? out : "ada-trace");
	c->output[ada_path_dir_len(c->output, (size_t)n)] = '\0';
	/* The ring is indexed with a mask: round up to a power of two. */
	c->ring_bytes = round_pow2(get_int(&RING_KB, getenv_fn("ADA_RING_KB"))) * 1024;
	c->depth = (uint32_t)get_int(&DEPTH, getenv_fn("ADA_DEPTH"));
	c->shadow_depth = (uint32_t)get_int(&SHADOW, getenv_fn("ADA_SHADOW_DEPTH"));
	c->flush_ms = (uint32_t)get_int(&FLUSH_MS, getenv_fn("ADA_FLUSH_MS"));
	detail = get_choice("ADA_DETAIL", getenv_fn("ADA_DETAIL"), DETAIL, 3, DETAIL_WINDOW);
	c->detail = detail != DETAIL_OFF;
	c->detail_window = detail == DETAIL_WINDOW;
	if (!ADA_ARCH_HAS_DETAIL)
		no_detail(c, getenv_fn);
	c->ring_mode = get_choice("ADA_RECORD", getenv_fn("ADA_RECORD"), RECORD, 2, 0) == 1;
	ada_trigger_parse(getenv_fn("ADA_TRIGGER"), &c->trigger);
	if (c->ring_mode && c->trigger.nfuncs) {
		/* The writer does not read the rings in ring mode: no call is seen. */
		ada_warn("ADA_TRIGGER=%s: func: triggers are not taken with ADA_RECORD=ring; "
			 "the other triggers are", getenv_fn("ADA_TRIGGER"));
		c->trigger.nfuncs = 0;
	}
	c->trigger.pre = ada_roll_parse("ADA_PRE", getenv_fn("ADA_PRE"), DEFAULT_ROLL);
	c->trigger.post = ada_roll_parse("ADA_POST", getenv_fn("ADA_POST"), DEFAULT_ROLL);
	c->stack_bytes = (uint32_t)get_int(&STACK_BYTES, getenv_fn("ADA_STACK_BYTES"));
	/* The window is copied in whole words. */
	c->stack_bytes &= ~7u;
	detail_kb.def = detail_kb_default(c);
	c->detail_bytes = round_pow2(get_int(&detail_kb, getenv_fn("ADA_DETAIL_KB"))) * 1024;
	c->dynhook = get_bool("ADA_DYNHOOK", getenv_fn("ADA_DYNHOOK"));
	c->alloc = get_bool("ADA_ALLOC", getenv_fn("ADA_ALLOC"));
	if (!ADA_ARCH_HAS_DYNHOOK)
		no_dynhook(c, getenv_fn);
	if (c->alloc && !c->dynhook) {
		/* The blocks are seen by the hooks' wrappers (mcount/alloc.c). */
		ada_warn("ADA_ALLOC=1 needs the dynamic hooks, which ADA_DYNHOOK=off turns off: "
			 "allocations are not recorded");
		c->alloc = false;
	}
	c->counters_us = get_counters(getenv_fn("ADA_COUNTERS"));
	c->blocking = get_bool("ADA_BLOCKING", getenv_fn("ADA_BLOCKING"));
	if (c->blocking && !c->dynhook) {
		ada_warn("ADA_BLOCKING=1 needs the dynamic hooks, which ADA_DYNHOOK=off turns off: "
			 "waits are not recorded");
		c->blocking = false;
	}
	c->on_full_drop = get_choice("ADA_ON_FULL", getenv_fn("ADA_ON_FULL"), ON_FULL, 2, 0) == 1;
	c->writer_delay_us = (uint32_t)get_int(&WRITER_DELAY, getenv_fn("ADA_TEST_WRITER_DELAY_US"));
	c->recorder_late_ms = (uint32_t)get_int(&RECORDER_LATE, getenv_fn("ADA_TEST_RECORDER_LATE_MS"));
	c->watchdog_s = (uint32_t)get_int(&WATCHDOG_S, getenv_fn("ADA_TEST_WATCHDOG_S"));
	c->test_hang = get_bool("ADA_TEST_RECORDER_HANG", getenv_fn("ADA_TEST_RECORDER_HANG"));
	c->test_refused = get_bool("ADA_TEST_RECORDER_REFUSED", getenv_fn("ADA_TEST_RECORDER_REFUSED"));
	c->test_launch_taken = get_bool("ADA_TEST_LAUNCH_TAKEN", getenv_fn("ADA_TEST_LAUNCH_TAKEN"));
	get_exclude(getenv_fn("ADA_EXCLUDE"), c->exclude, sizeof(c->exclude));
	get_globs("ADA_FILTER", getenv_fn("ADA_FILTER"), c->filter, sizeof(c->filter));
	get_globs("ADA_NOTRACE", getenv_fn("ADA_NOTRACE"), c->notrace, sizeof(c->notrace));
	get_globs("ADA_GRAPH", getenv_fn("ADA_GRAPH"), c->graph, sizeof(c->graph));
	c->start_off = !get_bool("ADA_TRACE", getenv_fn("ADA_TRACE"));
	c->toggle_signal = ada_toggle_signal_parse(getenv_fn("ADA_TOGGLE_SIGNAL"));
	if (c->toggle_signal && c->trigger.signals & 1ull << c->toggle_signal) {
		ada_warn("ADA_TOGGLE_SIGNAL=%s is also a trigger in ADA_TRIGGER; it toggles "
			 "tracing only", ada_trigger_signal_name(c->toggle_signal));
		c->trigger.signals &= ~(1ull << c->toggle_signal);
	}
}

static const char *roll_unit(const struct ada_roll *r)
{
	return r->time ? "ns" : "ev";
}

int ada_config_format(const struct ada_config *c, char *buf, size_t len)
{
	const struct ada_trigger_cfg *t = &c->trigger;
	char counters[16] = "off";
	int n;

	if (c->counters_us)
		snprintf(counters, sizeof(counters), "%uus", c->counters_us);
	n = snprintf(buf, len,
			 "output=%s%cring_kb=%" PRIu64 "%cdepth=%u%cshadow_depth=%u%cflush_ms=%u%c"
			 "detail=%s%cstack_bytes=%u%cdetail_kb=%" PRIu64 "%cdynhook=%s%calloc=%s%ccounters=%s%cblocking=%s%cexclude=%s%c"
			 "on_full=%s%crecord=%s%ctrace=%s%cfilter=%s%cnotrace=%s%cgraph=%s%cpre=%" PRIu64 "%s%cpost=%" PRIu64 "%s%ctrigger=",
			 c->output, 0, c->ring_bytes / 1024, 0, c->depth, 0, c->shadow_depth, 0,
			 c->flush_ms, 0,
			 DETAIL[!c->detail ? DETAIL_OFF : c->detail_window ? DETAIL_WINDOW : DETAIL_ALL],
			 0, c->stack_bytes, 0, c->detail_bytes / 1024, 0, c->dynhook ? "on" : "off", 0,
			 c->alloc ? "on" : "off", 0, counters, 0, c->blocking ? "on" : "off", 0, c->exclude, 0, ON_FULL[c->on_full_drop], 0, RECORD[c->ring_mode], 0, ON_OFF[c->start_off], 0, c->filter, 0, c->notrace, 0, c->graph, 0, t->pre.n,
			 roll_unit(&t->pre), 0, t->post.n, roll_unit(&t->post), 0);

	/* The triggers as they were understood: the accepted items, in order. */
	for (unsigned i = 0; i < t->nfuncs && n > 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s,", t->funcs[i].spec);
	for (int i = 0; i < 2; i++) {
		const char *g = i ? t->trace_off : t->trace_on;

		for (; *g && n > 0 && (size_t)n < len; g += strcspn(g, ","), g += *g == ',')
			n += snprintf(buf + n, len - (size_t)n, "func:%.*s:%s,", (int)strcspn(g, ","), g,
				      i ? "trace_off" : "trace_on");
	}
	for (int sig = 1; sig < 64 && n > 0 && (size_t)n < len; sig++)
		if (t->signals & 1ull << sig)
			n += snprintf(buf + n, len - (size_t)n, "signal:%s,", ada_trigger_signal_name(sig));
	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%s%c", t->crash ? "crash" : "nocrash", 0);
	return n;
}
