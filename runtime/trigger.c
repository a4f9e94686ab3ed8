/* trigger.c - ADA_TRIGGER, ADA_PRE and ADA_POST, parsed at start.
 *
 * A bad item never stops the program: one line names the variable, the
 * item and what was expected, and the rest of the list is kept.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ada_internal.h"
#include "trigger.h"

/* The signals a user may mark with by hand: ones a program rarely relies on
 * for itself and whose default action ada keeps. */
static const struct {
	const char *name;
	int signo;
} mark_signals[] = { { "SIGUSR1", SIGUSR1 }, { "SIGUSR2", SIGUSR2 }, { "SIGTRAP", SIGTRAP } };

/* "5ms", "200us", "1s", "30ns" -> ns; 0 when it is not one. */
static uint64_t duration_ns(const char *v)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	char *end;
	unsigned long long x;

	if (*v < '0' || *v > '9')
		return 0;
	errno = 0;
	x = strtoull(v, &end, 10);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!errno && !strcmp(end, units[i].unit) && x && x <= UINT64_MAX / units[i].ns)
			return x * units[i].ns;
	return 0;
}

struct ada_roll ada_roll_parse(const char *name, const char *v, struct ada_roll def)
{
	struct ada_roll r = { 0, false };
	char *end;
	unsigned long long x;

	if (!v)
		return def;
	if (*v >= '0' && *v <= '9') {
		errno = 0;
		x = strtoull(v, &end, 10);
		if (!errno && (!*end || !strcmp(end, "ev")) && x <= 1u << 24) {
			r.n = x;
			return r;
		}
		r.n = duration_ns(v);
		if (r.n && r.n <= 10000000000ull) {
			r.time = true;
			return r;
		}
	}
	ada_warn("%s=%s is not valid: expected a number of events (e.g. 2000 or 2000ev, at most "
		 "16777216) or a time up to 10s (e.g. 500us, 5ms); using %llu%s",
		 name, v, (unsigned long long)def.n, def.time ? "ns" : "ev");
	return def;
}

static void bad_item(const char *v, size_t len, const char *item, const char *expected)
{
	ada_warn("ADA_TRIGGER=%s: \"%.*s\" is not valid: expected %s; ignoring it", v, (int)len, item,
		 expected);
}

/* func:GLOB:trace_on / trace_off: the glob joins its list. */
static bool parse_switch(const char *v, const char *item, size_t len, struct ada_trigger_cfg *out)
{
	static const char *const actions[2] = { ":trace_on", ":trace_off" };

	for (int i = 0; i < 2; i++) {
		size_t alen = strlen(actions[i]), glen = len - 5 - alen;
		char *list = i ? out->trace_off : out->trace_on;
		size_t used = strlen(list);

		if (len < 5 + alen || strncmp(item + len - alen, actions[i], alen))
			continue;
		if (!glen || memchr(item + 5, '>', glen) || memchr(item + 5, ':', glen) ||
		    used + glen + 2 > sizeof(out->trace_on))
			bad_item(v, len, item, "func:GLOB:trace_on or func:GLOB:trace_off (a function "
					       "name or shell glob; 500 characters in all)");
		else
			snprintf(list + used, sizeof(out->trace_on) - used, "%s%.*s", used ? "," : "",
				 (int)glen, item + 5);
		return true;
	}
	return false;
}

/* func:GLOB or func:GLOB>DURATION. */
static void parse_func(const char *v, const char *item, size_t len, struct ada_trigger_cfg *out)
{
	struct ada_trigger_func *f = &out->funcs[out->nfuncs];
	const char *glob = item + 5, *gt = memchr(glob, '>', len - 5);
	size_t glen = gt ? (size_t)(gt - glob) : len - 5;

	if (parse_switch(v, item, len, out))
		return;
	if (out->nfuncs == ADA_TRIGGER_FUNCS) {
		bad_item(v, len, item, "at most 16 func: triggers");
		return;
	}
	if (!glen || len >= sizeof(f->spec)) {
		bad_item(v, len, item, "func:GLOB or func:GLOB>DURATION (a function name or shell "
				       "glob, at most 115 characters)");
		return;
	}
	memset(f, 0, sizeof(*f));
	if (gt) {
		char dur[32];

		snprintf(dur, sizeof(dur), "%.*s", (int)(len - 5 - glen - 1), gt + 1);
		f->min_ns = duration_ns(dur);
		if (!f->min_ns || len - 5 - glen - 1 >= sizeof(dur)) {
			bad_item(v, len, item, "a duration after '>' (e.g. func:parse>5ms; units "
					       "ns, us, ms, s)");
			return;
		}
	}
	memcpy(f->spec, item, len);
	memcpy(f->glob, glob, glen);
	out->nfuncs++;
}

/* The mark signal named by name[0..len), with or without its SIG; 0 if none. */
static int signal_named(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(mark_signals) / sizeof(mark_signals[0]); i++) {
		const char *n = mark_signals[i].name;

		if ((len == strlen(n) && !strncmp(name, n, len)) ||
		    (len == strlen(n) - 3 && !strncmp(name, n + 3, len)))
			return mark_signals[i].signo;
	}
	return 0;
}

static void parse_signal(const char *v, const char *item, size_t len, struct ada_trigger_cfg *out)
{
	int sig = signal_named(item + 7, len - 7);

	if (sig)
		out->signals |= 1ull << sig;
	else
		bad_item(v, len, item, "signal:SIGUSR1, signal:SIGUSR2 or signal:SIGTRAP");
}

void ada_trigger_parse(const char *v, struct ada_trigger_cfg *out)
{
	const char *item;

	out->nfuncs = 0;
	out->trace_on[0] = out->trace_off[0] = '\0';
	out->crash = true;
	out->signals = 0;
	if (!v)
		return;
	for (item = v; *item; item += strcspn(item, ","), item += *item == ',') {
		size_t len = strcspn(item, ",");

		if (len > 5 && !strncmp(item, "func:", 5))
			parse_func(v, item, len, out);
		else if (len > 7 && !strncmp(item, "signal:", 7))
			parse_signal(v, item, len, out);
		else if (len == 5 && !strncmp(item, "crash", 5))
			out->crash = true;
		else if (len == 7 && !strncmp(item, "nocrash", 7))
			out->crash = false;
		else
			bad_item(v, len, item, "func:GLOB, func:GLOB>DURATION, func:GLOB:trace_on, "
					       "func:GLOB:trace_off, signal:NAME, crash or nocrash");
	}
}

int ada_toggle_signal_parse(const char *v)
{
	int sig = v ? signal_named(v, strlen(v)) : 0;

	if (v && !sig)
		ada_warn("ADA_TOGGLE_SIGNAL=%s is not valid: expected SIGUSR1, SIGUSR2 or SIGTRAP; "
			 "no signal toggles tracing", v);
	return sig;
}

const char *ada_trigger_signal_name(int signo)
{
	for (size_t i = 0; i < sizeof(mark_signals) / sizeof(mark_signals[0]); i++)
		if (mark_signals[i].signo == signo)
			return mark_signals[i].name;
	return "signal";
}
