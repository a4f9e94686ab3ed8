/* test_counters.c - ADA_COUNTERS end to end: the counter lane's samples
 * (runtime/counters.c) in report's On-CPU, Off-CPU and Faults columns and
 * in flame --weight cpu, code without hooks under its instrumented caller.
 *
 * tests/e2e/progs/counters.c (see there) with counters_lib.c, a library
 * built without adacc. What each check asserts, and why it holds on a busy
 * machine:
 * - f sleeps 50 ms: its Total is at least 45 ms (a sleep never returns
 *   early; nanosleep is resumed after a signal) and its On-CPU under 5 ms:
 *   its thread has used far less than one sampling period of CPU when f
 *   returns (it calls f first), and a CPU-time timer fires only after a
 *   period of the thread's own CPU, however long the wall.
 * - g touches 2000 fresh pages (no huge pages: one fault a page) and then
 *   spins 200 ms of CPU in g. The kernel looks at a CPU-time timer at its
 *   tick, while the thread runs: a sample comes a period plus a tick or so
 *   of CPU after the one before (4 ms here), and on a loaded machine, where
 *   the thread runs in slices between ticks, up to 83 ms of it (measured
 *   with three busy loops on this 2-core machine). 200 ms leaves a sample
 *   in g after the last fault, so g's Faults are at least what the program
 *   measured with getrusage around the loop (2000 or more).
 * - caller spins 200 ms of CPU in the library's lib_spin, nearly all in its
 *   static spin_inner: at least one sample comes inside it (the gap above),
 *   and of the CPU the samples inside lib_spin carry (its On-CPU), at least
 *   80 % is on flame --weight cpu's stack main;caller;lib_spin;spin_inner
 *   [sampled] (the rest, a sample that interrupted the library's
 *   clock_gettime, which takes a few percent of the loop); report's row
 *   "spin_inner [sampled]" has the same CPU.
 * - prog churn calls tiny 2,000,000 times: most of its CPU is ada's hooks'.
 *   A sample that interrupts a hook is ada's work for the frame the thread
 *   is in (runtime/own_code.c): no "[sampled]" frame is ever one of ada's
 *   functions.
 * - prog clock reads the clock for 200 ms of CPU without the dynamic
 *   hooks: its samples interrupt the vDSO's clock_gettime, which has no
 *   file; the runtime records it as a module of its own, the recorder
 *   keeps its symbols, and flame names it (no "[unmapped]" frame).
 * - a handler the program puts on every real-time signal gets none of
 *   ada's, and each signal the program raises, once each.
 * - The exports (fentry): spin_inner's samples are instants named
 *   "spin_inner... [sampled]" in category "sampled", as many in both
 *   (never slices: they are no calls); chrome's "ph":"C" events and perfetto's counter
 *   tracks give each thread's CPU time and page faults so far at each
 *   sample, never decreasing, the two exports the same values; the
 *   busiest thread's CPU time is at least 200 ms (g's and caller's threads
 *   spin 200 ms each, and a thread's last sample is taken where it ends:
 *   runtime/counters.c's ada_counters_thread_end), the most faults at
 *   least g's.
 * Off (the default): no column, no sample, no timer, the same handlers.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e/dynhook_run.h"
#include "e2e/export_view.h"
#include "lib/tracee.h"
#include "lib/tracerun.h"

#define MS 1000000ul

struct row {
	unsigned long total, self, calls, avg, min, max, cpu, offcpu, faults, switches;
};

/* report --ns's row of name, its counter columns included. */
static struct row report_row(const char *report, const char *name)
{
	const char *p = dh_line_ending(report, name);
	struct row r;

	if (sscanf(p, " %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu", &r.total, &r.self, &r.calls,
		   &r.avg, &r.min, &r.max, &r.cpu, &r.offcpu, &r.faults, &r.switches) != 10)
		fail_msg("report: no counter columns on %s's row:\n%s", name, report);
	return r;
}

/* report --ns's "[sampled]" row of function leaf (a name gcc may have
 * given a suffix): its On-CPU, the time columns being "-"; fails if there
 * is none. */
static unsigned long sampled_row_cpu(const char *report, const char *leaf)
{
	for (const char *p = strstr(report, leaf); p; p = strstr(p + 1, leaf)) {
		const char *bol = p, *eol = strchr(p, '\n');
		unsigned long cpu;

		while (bol > report && bol[-1] != '\n')
			bol--;
		if (eol && eol - p > 10 && !memcmp(eol - 10, " [sampled]", 10) &&
		    sscanf(bol, " - - - - - - %lu", &cpu) == 1)
			return cpu;
	}
	fail_msg("report: no row %s... [sampled]:\n%s", leaf, report);
	return 0;
}

/* The weight of the folded stacks that start with prefix and whose last
 * frame is a sampled one of function leaf (a name gcc may have given a
 * suffix: spin_inner.constprop.0); fails if there is none. */
static unsigned long sampled(const char *text, const char *prefix, const char *leaf)
{
	static const char mark[] = " [sampled] ";
	size_t np = strlen(prefix), nl = strlen(leaf);
	unsigned long sum = 0;
	bool found = false;

	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n'), *last = p, *m;
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		for (const char *q = p; q < p + len; q++)
			if (*q == ';')
				last = q + 1;
		m = strstr(last, mark);
		if (len > np && !memcmp(p, prefix, np) && last == p + np && m && m < p + len &&
		    !strncmp(last, leaf, nl)) {
			sum += strtoul(m + sizeof(mark) - 1, NULL, 10);
			found = true;
		}
		p += len + (eol != NULL);
	}
	if (!found)
		fail_msg("flame: no stack %s%s... [sampled] in:\n%s", prefix, leaf, text);
	return sum;
}

/* No "[sampled]" frame names a function of ada's. (Whether main;churn
 * carries CPU is chance: most of its samples come inside a hook's guarded
 * part and are not kept, in_ada, and a loaded machine takes few.) */
static void expect_no_hook_samples(const char *mode, const char *flame)
{
	static const char *const ada[] = { "__fentry__", "__return__", "__ada", "ada_",
					   "__cyg_profile_func", "mcount", "_mcount", "__mcount" };

	for (const char *p = flame; *p;) {
		const char *eol = strchr(p, '\n'), *last = p;
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		for (const char *q = p; q < p + len; q++)
			if (*q == ';')
				last = q + 1;
		for (size_t i = 0; i < sizeof(ada) / sizeof(ada[0]); i++)
			if (!strncmp(last, ada[i], strlen(ada[i])) &&
			    memmem(last, (size_t)(p + len - last), " [sampled] ", 11))
				fail_msg("%s: a sample in ada's code named as the program's: %.*s", mode,
					 (int)len, p);
		p += len + (eol != NULL);
	}
}

static char *view(struct tr_case *tc, const char *v, const char *opt, const char *arg)
{
	const char *const argv[] = { TRACEE_SYMBOLIZE, v, tc->trace, opt, arg, NULL };

	return dh_tool_output(tc, argv);
}

/* The library without adacc, the program -O2 with gcc and with adacc in
 * mode, both run (the traced one with env) and the trace symbolized. */
static void build_run_args(struct tr_case *tc, const char *mode, const char *const args[],
			   const char *const env[])
{
	char m[48], lib[4200], rpath[4300];
	const char *const lib_flags[] = { "-O2", "-shared", "-fPIC", NULL };
	const char *const plain[] = { "-O2", lib, rpath, NULL };
	const char *const traced[] = { "-O2", m, lib, rpath, NULL };

	snprintf(m, sizeof(m), "--ada-mode=%s", mode);
	snprintf(lib, sizeof(lib), "%s/libcounters_lib.so", tc->dir);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", tc->dir);
	tr_build(tc, NULL, "gcc", "counters_lib", "libcounters_lib.so", lib_flags);
	tr_build(tc, NULL, "gcc", "counters", "prog.plain", plain);
	tr_build(tc, NULL, TR_ADACC, "counters", "prog", traced);
	tr_run_pair(tc, "prog", args, env, 0);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	for (int r = 0; r < TR_NDROPS; r++)
		if (tc->mf.dropped[r])
			fail_msg("%s: %lu events dropped (%s)", mode, (unsigned long)tc->mf.dropped[r],
				 tr_drop_names[r]);
}

static void build_run(struct tr_case *tc, const char *mode, const char *const env[])
{
	build_run_args(tc, mode, NULL, env);
}

/* What the program said of its signals and timers, traced or not. */
static void expect_signals(const char *err, int timers)
{
	int t, h, n;

	if (!strstr(err, "handled 0 during the spin\n"))
		fail_msg("the program's own handler took a signal of ada's: %s", err);
	if (!strstr(err, "handled ") || sscanf(strstr(err, "handled 0 during the spin\n") + 26,
					       "handled %d of %d", &h, &n) != 2 || h != n || n < 8)
		fail_msg("a signal the program raised did not reach its handler: %s", err);
	if (!strstr(err, "timers ") || sscanf(strstr(err, "timers "), "timers %d", &t) != 1 ||
	    (timers ? t < 1 : t != 0))
		fail_msg("expected %s timer: %s", timers ? "a" : "no", err);
}

static const char *const on[] = { "ADA_COUNTERS=1", "ADA_DYNHOOK=on", NULL };

/* The exports' counter tracks (see the top). */
static void expect_counter_tracks(struct tr_case *tc, unsigned long g_faults)
{
	struct ex_trace t = { .ready = true };
	struct ex_series s[32];
	const struct ex_series *cpu, *faults;
	size_t n;

	snprintf(t.trace, sizeof(t.trace), "%s", tc->trace);
	ex_expect_counters_agree(tc, &t, s, &n, 32);
	for (size_t i = 0; i < n; i++)
		if (!s[i].monotone || s[i].min < 0)
			fail_msg("counter %s decreased or went below 0", s[i].name);
	cpu = ex_series_find(s, n, "CPU time (tid ");
	faults = ex_series_find(s, n, "page faults (tid ");
	if (cpu->last < 200 * (int64_t)MS || faults->last < (int64_t)g_faults)
		fail_msg("the busiest thread's CPU time %lld ns, its faults %lld (g's %lu)",
			 (long long)cpu->last, (long long)faults->last, g_faults);
}

static void check(void **state, const char *mode)
{
	struct tr_case *tc = *state;
	unsigned long touched, faults, spin;
	char *report, *flame, *info;
	struct row r;

	build_run(tc, mode, on);
	expect_signals(tc->traced.err, 1);
	expect_signals(tc->plain.err, 0);
	if (!strstr(tc->traced.err, "touched ") ||
	    sscanf(strstr(tc->traced.err, "touched "), "touched %lu faults %lu", &touched, &faults) != 2)
		fail_msg("the program printed \"%s\"", tc->traced.err);
	assert_int_equal(touched, 2000);
	if (faults < touched)
		fail_msg("%s: the program measured %lu faults for %lu pages", mode, faults, touched);

	report = view(tc, "report", "--ns", NULL);
	r = report_row(report, "f");
	if (r.total < 45 * MS || r.cpu >= 5 * MS || r.offcpu + r.cpu != r.total)
		fail_msg("%s: f slept 50 ms: wall %lu ns, on-CPU %lu, off-CPU %lu:\n%s", mode, r.total,
			 r.cpu, r.offcpu, report);
	r = report_row(report, "g");
	if (r.faults < faults)
		fail_msg("%s: g faulted %lu times, report says %lu:\n%s", mode, faults, r.faults, report);

	r = report_row(report, "lib_spin");
	flame = view(tc, "flame", "--weight", "cpu");
	spin = sampled(flame, "main;caller;lib_spin;", "spin_inner");
	if (r.cpu == 0 || spin < r.cpu / 10 * 8)
		fail_msg("%s: lib_spin's samples carry %lu ns, %lu of them in spin_inner:\n%s\n%s",
			 mode, r.cpu, spin, report, flame);
	if (sampled_row_cpu(report, "spin_inner") != spin)
		fail_msg("%s: report's spin_inner [sampled] row is not flame's %lu ns:\n%s", mode, spin,
			 report);
	if (!strcmp(mode, "fentry")) {
		struct ex_trace t = { .ready = true };

		expect_counter_tracks(tc, report_row(report, "g").faults);
		snprintf(t.trace, sizeof(t.trace), "%s", tc->trace);
		if (!ex_expect_sampled_instants(tc, &t, "spin_inner"))
			fail_msg("no instant of spin_inner [sampled] in the exports");
	}
	info = view(tc, "info", NULL, NULL);
	if (!strstr(info, "  samples        ") || !strstr(tc->mf.config, "counters=1000us"))
		fail_msg("%s: info does not count the samples:\n%s", mode, info);
	free(report);
	free(flame);
	free(info);
	tr_pass(tc);
}

/* prog churn (see the top). */
static void hook_samples(void **state, const char *mode)
{
	static const char *const args[] = { "churn", NULL };
	struct tr_case *tc = *state;
	char *flame;

	build_run_args(tc, mode, args, on);
	flame = view(tc, "flame", "--weight", "cpu");
	expect_no_hook_samples(mode, flame);
	free(flame);
	tr_pass(tc);
}

/* prog clock (see the top). */
static void vdso_named(void **state)
{
	static const char *const args[] = { "clock", NULL };
	static const char *const env[] = { "ADA_COUNTERS=1", "ADA_DYNHOOK=off", NULL };
	struct tr_case *tc = *state;
	char *flame;

	build_run_args(tc, "fentry", args, env);
	flame = view(tc, "flame", "--weight", "cpu");
	if (strstr(flame, "[unmapped]") ||
	    (!strstr(flame, ";clock_gettime [sampled] ") && !strstr(flame, ";__vdso_clock_gettime [sampled] ")))
		fail_msg("the vDSO's clock_gettime is not named:\n%s", flame);
	free(flame);
	tr_pass(tc);
}

static void hooks_fentry(void **state) { hook_samples(state, "fentry"); }
static void hooks_cyg(void **state) { hook_samples(state, "cyg"); }
static void hooks_mcount(void **state) { hook_samples(state, "mcount"); }
static void hooks_patchable(void **state) { hook_samples(state, "patchable"); }

static void fentry(void **state) { check(state, "fentry"); }
static void cyg(void **state) { check(state, "cyg"); }
static void mcount(void **state) { check(state, "mcount"); }
static void patchable(void **state) { check(state, "patchable"); }

/* Without the dynamic hooks lib_spin has no frame: its samples are under
 * caller, named by the function they interrupted. */
static void without_hooks(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_COUNTERS=1", "ADA_DYNHOOK=off", NULL };
	char *report, *flame;
	unsigned long spin;
	struct row r;

	build_run(tc, "fentry", env);
	report = view(tc, "report", "--ns", NULL);
	r = report_row(report, "caller");
	flame = view(tc, "flame", "--weight", "cpu");
	spin = sampled(flame, "main;caller;", "spin_inner");
	if (r.cpu == 0 || spin < r.cpu / 10 * 8)
		fail_msg("caller's samples carry %lu ns, %lu of them in spin_inner:\n%s\n%s", r.cpu,
			 spin, report, flame);
	free(report);
	free(flame);
	tr_pass(tc);
}

/* Off by default: no counter column, no sample, no timer, no handler. */
static void off_by_default(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DYNHOOK=on", NULL };
	char *report, *flame, *info;

	build_run(tc, "fentry", env);
	expect_signals(tc->traced.err, 0);
	report = view(tc, "report", NULL, NULL);
	flame = view(tc, "flame", "--weight", "cpu");
	info = view(tc, "info", NULL, NULL);
	if (strstr(report, "On-CPU") || *flame || strstr(info, "samples"))
		fail_msg("counters without ADA_COUNTERS:\n%s\n%s\n%s", report, flame, info);
	if (!strstr(tc->mf.config, "counters=off"))
		fail_msg("the configuration does not say counters=off: %s", tc->mf.config);
	free(report);
	free(flame);
	free(info);
	tr_pass(tc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(fentry, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(cyg, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(mcount, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(patchable, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(without_hooks, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(vdso_named, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(hooks_fentry, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(hooks_cyg, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(hooks_mcount, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(hooks_patchable, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(off_by_default, tr_setup, tr_teardown),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
