/* test_fpregs.c - the detail lane's FP registers (docs/atf-extensions.md),
 * end to end: their exact bit patterns at a call and at its return, in
 * every mode and on every path that writes a detail record.
 *
 * tests/e2e/progs/fp_values.c calls mix(1.5, 2.25f, 3, 0.125) = 6.25,
 * half(6.25) = 3.125 and, through a PLT slot, lib_scale(3.125, 4.0f) = 12.5
 * in fp_lib.c, a library built with plain gcc. Run with ADA_DETAIL=all, each
 * CALL must hold its FP arguments in xmm0..: a double's 64 bits, a float's
 * 32 in the low half of its word (the upper half is whatever the register
 * held), the int taking none (mix's d is in xmm2); each RETURN the result
 * in xmm0. Read twice: from the raw trace through a view (`chrome --args`,
 * keys xmm0..xmm7 and ret_xmm0) and from the converted ATF (`--dump`, which
 * reads detail.atf, whose --check passes too).
 *
 * Modes and paths: fentry with gcc (__ada_fentry_nohijack's and
 * __return__'s fast paths), --ada-returns=hijack (__fentry__'s and the
 * return trampoline's), both again with ADA_STACK_BYTES=64 (a window the
 * fast paths leave to C: the C entries and returns, hijack.c's detail_put),
 * mcount and patchable (their C entries). The library call goes through the
 * PLT hook in each (dynhook.S's fast path, or its C path with 64 bytes).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e/dynhook_run.h"
#include "e2e/export_read.h"
#include "lib/tracee.h"
#include "lib/tracerun.h"

#define PROG "fp_values"

#define F64_1_5 0x3ff8000000000000ull
#define F64_0_125 0x3fc0000000000000ull
#define F64_6_25 0x4019000000000000ull
#define F64_3_125 0x4009000000000000ull
#define F64_12_5 0x4029000000000000ull
#define F32_2_25 0x40100000u
#define F32_4 0x40800000u

/* What one function's CALL and RETURN must hold: the FP argument
 * registers that carry an argument (a float's: its low 32 bits only), and
 * xmm0 at the return. */
struct want {
	const char *fn;
	unsigned nargs;
	uint64_t args[3];
	bool is_float[3];
	uint64_t ret;
};

static const struct want wants[] = {
	{ "mix", 3, { F64_1_5, F32_2_25, F64_0_125 }, { false, true, false }, F64_6_25 },
	{ "half", 1, { F64_6_25 }, { false }, F64_3_125 },
	{ "lib_scale", 2, { F64_3_125, F32_4 }, { false, true }, F64_12_5 },
};
#define NWANTS (sizeof(wants) / sizeof(wants[0]))

static void expect_word(const char *where, const char *fn, const char *reg, uint64_t got,
			uint64_t want, bool is_float)
{
	if (is_float ? (uint32_t)got != want : got != want)
		fail_msg("%s: %s's %s is 0x%" PRIx64 ", expected %s0x%" PRIx64, where, fn, reg, got,
			 is_float ? "low 32 bits " : "", want);
}

/* ---- building and running ------------------------------------------------------ */

/* <dir>/libfplib.so with plain gcc; <dir>/fp_values.plain with gcc and
 * <dir>/fp_values with adacc in `mode` (and `returns`, if not NULL), both
 * -O2 and linked with it. */
static void build(const struct tr_case *tc, const char *mode, const char *returns)
{
	char libdir[PATH_MAX + 8], rpath[PATH_MAX + 16], ada_mode[48];
	const char *const lib_flags[] = { "-O2", "-g0", "-shared", "-fPIC", NULL };
	const char *const plain_flags[] = { "-O2", libdir, rpath, "-lfplib", NULL };
	/* -g0: chrome --args then gives the registers themselves (with the
	 * DWARF, the parameters' values: test_view_args) */
	const char *const traced_flags[] = { "-O2", "-g0", libdir, rpath, "-lfplib", ada_mode, returns, NULL };

	snprintf(libdir, sizeof(libdir), "-L%s", tc->dir);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", tc->dir);
	snprintf(ada_mode, sizeof(ada_mode), "--ada-mode=%s", mode);
	tr_build(tc, NULL, "gcc", "fp_lib", "libfplib.so", lib_flags);
	tr_build(tc, NULL, "gcc", PROG, PROG ".plain", plain_flags);
	tr_build(tc, NULL, TR_ADACC, PROG, PROG, traced_flags);
}

/* Runs both builds (the traced one with ADA_DETAIL=all, the PLT hooks on,
 * which tr_scrub_environment turns off, and `env`, if not NULL),
 * symbolizes and checks the trace: every record kept. */
static void run(struct tr_case *tc, const char *env)
{
	const char *const envp[] = { "ADA_DETAIL=all", "ADA_DYNHOOK=on", env, NULL };
	const char *p;

	tr_run_pair(tc, PROG, NULL, envp, 0);
	if (strcmp(tc->traced.out, "12.5000\n") != 0)
		fail_msg("stdout is \"%s\", expected 12.5000", tc->traced.out);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	for (p = tc->mf.text; (p = strstr(p, "\"detail_full\": ")); p++)
		if (p[15] != '0')
			fail_msg("manifest: detail records dropped (detail_full)\n%s", tc->mf.text);
}

/* ---- the raw trace, through chrome --args -------------------------------------- */

static uint64_t hex_arg(const struct xslice *s, const char *key)
{
	const char *v = xslice_arg(s, key);
	char *end;
	uint64_t x;

	if (!v)
		fail_msg("chrome: %s has no argument %s", s->name, key);
	errno = 0;
	x = strtoull(v, &end, 16);
	if (strncmp(v, "0x", 2) || *end || errno)
		fail_msg("chrome: %s's %s is \"%s\", not a hex word", s->name, key, v);
	return x;
}

static void expect_raw(struct tr_case *tc)
{
	char json[PATH_MAX + 16], err[512], reg[16];
	const char *const argv[] = { TRACEE_SYMBOLIZE, "chrome", "--args", "-o", json, tc->trace,
				     NULL };
	struct xtrace t;

	tr_path(tc, "trace.json", json);
	free(dh_tool_output(tc, argv));
	if (xtrace_load(json, &t, err, sizeof(err)))
		fail_msg("%s: %s", json, err);
	for (size_t w = 0; w < NWANTS; w++) {
		const struct xslice *s = NULL;

		for (size_t i = 0; i < t.n && !s; i++)
			if (strcmp(t.slices[i].name, wants[w].fn) == 0)
				s = &t.slices[i];
		if (!s)
			fail_msg("chrome: no slice named %s", wants[w].fn);
		for (unsigned r = 0; r < wants[w].nargs; r++) {
			snprintf(reg, sizeof(reg), "xmm%u", r);
			expect_word("raw trace", wants[w].fn, reg, hex_arg(s, reg), wants[w].args[r],
				    wants[w].is_float[r]);
		}
		expect_word("raw trace", wants[w].fn, "return's xmm0", hex_arg(s, "ret_xmm0"),
			    wants[w].ret, false);
	}
	xtrace_free(&t);
}

/* ---- the ATF, through --dump ---------------------------------------------------- */

/* The n FP registers on the line after the first line of dump holding
 * `event` ("  mix(", "  mix = "): "    xmm0=0x.. xmm1=0x..". */
static void dump_fregs(const char *dump, const char *event, uint64_t *out, unsigned n)
{
	const char *p = strstr(dump, event);
	char key[24], *end;

	if (!p || !(p = strchr(p, '\n')))
		fail_msg("--dump: no \"%s\" line in:\n%s", event, dump);
	if (strncmp(p + 1, "    xmm0=0x", 11) != 0)
		fail_msg("--dump: the line after \"%s\" has no FP registers:\n%.200s", event, p + 1);
	for (unsigned r = 0; r < n; r++) {
		snprintf(key, sizeof(key), " xmm%u=0x", r);
		p = strstr(p, key);
		if (!p)
			fail_msg("--dump: no xmm%u after \"%s\"", r, event);
		out[r] = strtoull(p + strlen(key), &end, 16);
		p = end;
	}
}

static void expect_atf(struct tr_case *tc)
{
	const char *const argv[] = { TRACEE_SYMBOLIZE, "--dump", tc->trace, NULL };
	char *dump = dh_tool_output(tc, argv), event[32], reg[16];
	uint64_t fregs[8];

	for (size_t w = 0; w < NWANTS; w++) {
		snprintf(event, sizeof(event), " %s(rdi=", wants[w].fn);
		dump_fregs(dump, event, fregs, 8);
		for (unsigned r = 0; r < wants[w].nargs; r++) {
			snprintf(reg, sizeof(reg), "xmm%u", r);
			expect_word("ATF", wants[w].fn, reg, fregs[r], wants[w].args[r],
				    wants[w].is_float[r]);
		}
		snprintf(event, sizeof(event), " %s = 0x", wants[w].fn);
		dump_fregs(dump, event, fregs, 2);
		expect_word("ATF", wants[w].fn, "return's xmm0", fregs[0], wants[w].ret, false);
	}
	free(dump);
}

/* ---- the modes ---------------------------------------------------------------------- */

static void check_mode(void **state, const char *mode, const char *returns, const char *env)
{
	struct tr_case *tc = *state;

	build(tc, mode, returns);
	run(tc, env);
	expect_raw(tc);
	expect_atf(tc);
	tr_pass(tc);
}

static void fentry_fast_paths(void **state)
{
	check_mode(state, "fentry", NULL, NULL);
}

static void fentry_c_paths(void **state)
{
	check_mode(state, "fentry", NULL, "ADA_STACK_BYTES=64");
}

static void hijack_fast_paths(void **state)
{
	check_mode(state, "fentry", "--ada-returns=hijack", NULL);
}

static void hijack_c_paths(void **state)
{
	check_mode(state, "fentry", "--ada-returns=hijack", "ADA_STACK_BYTES=64");
}

static void mcount_mode(void **state)
{
	check_mode(state, "mcount", NULL, NULL);
}

static void patchable_mode(void **state)
{
	check_mode(state, "patchable", NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(fentry_fast_paths, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(fentry_c_paths, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(hijack_fast_paths, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(hijack_c_paths, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(mcount_mode, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(patchable_mode, tr_setup, tr_teardown),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
