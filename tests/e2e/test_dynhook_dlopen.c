/* test_dynhook_dlopen.c - the dynamic-hook fallback in libraries loaded
 * at run time. (The rest: test_dynhook.c, test_dynhook_flow.c.)
 *
 * With ADA_DYNHOOK=on (the default; tr_scrub_environment turns it off for
 * the other tests, main() here turns it back on) the runtime points the
 * PLT/GOT slots of every loaded module but libada and ld.so at stubs of their
 * targets, so a call into libc, into a plain gcc-built library or into
 * libstdc++ is a CALL and a RETURN (with registers, in fentry and mcount
 * modes) of the function the slot leads to.
 *
 * The trees compared are views of the replay (dynhook_view.h); the programs
 * are built, run and checked as dynhook_run.h says. What is checked here:
 *   - dlopen of an instrumented and an uninstrumented library, kept, or
 *     closed and loaded again elsewhere: every call, every load in the
 *     manifest; dlmopen with immediate and lazy binding, and of an
 *     instrumented library (its own libada stays off); an uninstrumented
 *     program dlopening, calling and dlclosing an instrumented library.
 */
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e/dynhook_run.h"
#include "e2e/dynhook_view.h"
#include "lib/tracerun.h"

/* ---- dlopen and dlclose ------------------------------------------------------------- */

static const char dlopen_tree[] =
	"main\n"
	"  one_round x2\n"
	"    dlopen x2\n"
	"    inst_twice\n"
	"    inst_measure\n"
	"      strlen\n"
	"    plain_count\n"
	"      strlen\n"
	"    malloc\n"
	"    memcpy\n"
	"    printf\n"
	"    free\n"
	"    span_of x2\n"
	"      dlinfo\n"
	"    fprintf\n"
	"    dlclose x2\n"
	"    mmap x2\n";

/* The address "<key> 0x..." that round r printed on stderr. */
static uint64_t printed_base(const char *err, int r, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "round %d ", r);
	p = strstr(err, pat);
	if (p)
		p = strstr(p, key);
	if (!p)
		fail_msg("stderr has no \"round %d ... %s\":\n%s", r, key, err);
	return strtoull(p + strlen(key), NULL, 16);
}

/* The manifest's modules whose path ends with suffix: their count, and
 * their base addresses (at most 4) and build-ids. */
static size_t loads_of(const struct tr_case *tc, const char *suffix, uint64_t base[4],
		       char uuid[4][80])
{
	size_t n = 0;
	const char *line = strstr(tc->mf.text, "\n  \"modules\": [\n");

	for (; line && (line = strstr(line + 1, "\n    {\"module_id\": "));) {
		const char *end = strchr(line + 1, '\n');
		char path[PATH_MAX], b[64];

		if (!end || !tr_json_value(line, end, "path", path, sizeof(path)))
			break;
		if (!dh_ends_with(path, suffix))
			continue;
		if (n < 4) {
			if (!tr_json_value(line, end, "base_address", b, sizeof(b)) ||
			    !tr_json_value(line, end, "uuid", uuid[n], sizeof(uuid[n])))
				fail_msg("manifest.json: module %s has no base_address or uuid", path);
			base[n] = strtoull(b, NULL, 16);
		}
		n++;
	}
	return n;
}

static void expect_two_loads(const struct tr_case *tc, const char *suffix, const char *key,
			     const char *mode)
{
	uint64_t base[4], printed[2];
	char uuid[4][80];
	size_t n = loads_of(tc, suffix, base, uuid);

	printed[0] = printed_base(tc->traced.err, 1, key);
	printed[1] = printed_base(tc->traced.err, 2, key);
	if (n != 2)
		fail_msg("manifest.json lists %zu loads of *%s, expected 2 (at 0x%" PRIx64
			 " and 0x%" PRIx64 ")\n%s",
			 n, suffix, printed[0], printed[1], tc->mf.text);
	assert_int_equal(base[0], printed[0]);
	assert_int_equal(base[1], printed[1]);
	assert_int_equal(strlen(uuid[0]), 40);
	assert_string_equal(uuid[0], uuid[1]);
	dh_expect_module_mode(tc, suffix, mode);
}

/* <dir>/plain/libdlinst.so (gcc), <dir>/traced/libdlinst.so (adacc),
 * <dir>/libdlplain.so (gcc), dl_main.plain (gcc) and dl_main (adacc); their
 * absolute paths in the three buffers (PATH_MAX each). */
static void build_dl(struct tr_case *tc, char *plain_inst, char *traced_inst, char *plain_lib)
{
	static const char *const lib[] = { "-O2", "-shared", "-fPIC", NULL };
	static const char *const inst[] = { "-O2", "-shared", "-fPIC", "--ada-mode=fentry", NULL };
	static const char *const exe_plain[] = { "-O2", "-ldl", NULL };
	static const char *const exe[] = { "-O2", "-ldl", "--ada-mode=fentry", NULL };

	dh_make_dir(tc, "plain");
	dh_make_dir(tc, "traced");
	tr_build(tc, NULL, "gcc", DH_PROGS "dl_inst.c", "plain/libdlinst.so", lib);
	tr_build(tc, NULL, TR_ADACC, DH_PROGS "dl_inst.c", "traced/libdlinst.so", inst);
	tr_build(tc, NULL, "gcc", DH_PROGS "dl_plain.c", "libdlplain.so", lib);
	tr_build(tc, NULL, "gcc", DH_PROGS "dl_main.c", "dl_main.plain", exe_plain);
	tr_build(tc, NULL, TR_ADACC, DH_PROGS "dl_main.c", "dl_main", exe);
	tr_path(tc, "plain/libdlinst.so", plain_inst);
	tr_path(tc, "traced/libdlinst.so", traced_inst);
	tr_path(tc, "libdlplain.so", plain_lib);
}

/* Two rounds of dlopen, calls, dlclose: every call is traced after every
 * load (the instrumented library's functions, the uninstrumented one's calls
 * through its PLT), and the manifest lists each load of each library with
 * its own base address and the same build-id. The program keeps each
 * library's old range mapped (PROT_NONE) after the first dlclose, so the
 * second round loads both elsewhere: the addresses it prints differ
 * (checked: the test's premise). A library loaded and unloaded between two
 * module scans of the writer (every 10 ms) must be recorded all the same:
 * by the pass that runs after each dlopen (otherwise its functions show as
 * "[unmapped]+0x7f..." and the manifest does not list it). */
static void dlopen_dlclose_twice_traces_every_load(void **state)
{
	struct tr_case *tc = *state;
	char plain_inst[PATH_MAX], traced_inst[PATH_MAX], plain_lib[PATH_MAX];
	const char *const plain_args[] = { plain_inst, plain_lib, NULL };
	const char *const traced_args[] = { traced_inst, plain_lib, NULL };

	build_dl(tc, plain_inst, traced_inst, plain_lib);
	dh_run_args(tc, "dl_main", "trace", plain_args, traced_args, NULL, 0);
	assert_string_equal(tc->traced.out, "round 1: 42 10 hello\nround 2: 42 10 hello\n");
	if (printed_base(tc->traced.err, 1, "inst 0x") == printed_base(tc->traced.err, 2, "inst 0x") ||
	    printed_base(tc->traced.err, 1, "plain 0x") == printed_base(tc->traced.err, 2, "plain 0x"))
		fail_msg("a library was loaded at the same address twice: the test's premise\n%s",
			 tc->traced.err);
	/* 1 at start-up, and one after each dlopen and dlclose (4 + 4). */
	assert_true(dh_hooks_value(tc, "passes") == 9);
	dh_expect_direct_tree(tc, dlopen_tree);
	expect_two_loads(tc, "/traced/libdlinst.so", "inst 0x", "fentry");
	expect_two_loads(tc, "/libdlplain.so", "plain 0x", "plt");
	tr_pass(tc);
}

/* dlopen of an instrumented library (its functions traced by their own
 * hooks, its strlen call through its hooked PLT) and of an uninstrumented
 * one (plain_copy and plain_release, called through pointers, are not
 * traced; their calls through the library's PLT are: plain_count, its own
 * exported function, and libc's), without dlclose: both are still loaded at
 * exit, when the writer records the module map for the last time, so they
 * are named whatever the timing. The second round's dlopen loads nothing:
 * no pass after it (1 at start-up + 2), and one load of each in the
 * manifest, libdlplain's with mode "plt". */
static void dlopened_libraries_are_hooked_and_named(void **state)
{
	struct tr_case *tc = *state;
	char plain_inst[PATH_MAX], traced_inst[PATH_MAX], plain_lib[PATH_MAX];
	const char *const plain_args[] = { plain_inst, plain_lib, "keep", NULL };
	const char *const traced_args[] = { traced_inst, plain_lib, "keep", NULL };
	uint64_t base[4];
	char uuid[4][80];

	build_dl(tc, plain_inst, traced_inst, plain_lib);
	dh_run_args(tc, "dl_main", "trace", plain_args, traced_args, NULL, 0);
	assert_string_equal(tc->traced.out, "round 1: 42 10 hello\nround 2: 42 10 hello\n");
	assert_true(dh_hooks_value(tc, "passes") == 3);
	dh_expect_direct_tree(tc,
			      "main\n"
			      "  one_round x2\n"
			      "    dlopen x2\n"
			      "    inst_twice\n"
			      "    inst_measure\n"
			      "      strlen\n"
			      "    plain_count\n"
			      "      strlen\n"
			      "    malloc\n"
			      "    memcpy\n"
			      "    printf\n"
			      "    free\n"
			      "    span_of x2\n"
			      "      dlinfo\n"
			      "    fprintf\n");
	assert_int_equal(loads_of(tc, "/traced/libdlinst.so", base, uuid), 1);
	assert_int_equal(base[0], printed_base(tc->traced.err, 1, "inst 0x"));
	assert_int_equal(strlen(uuid[0]), 40);
	assert_int_equal(loads_of(tc, "/libdlplain.so", base, uuid), 1);
	assert_int_equal(base[0], printed_base(tc->traced.err, 1, "plain 0x"));
	assert_int_equal(strlen(uuid[0]), 40);
	dh_expect_module_mode(tc, "/traced/libdlinst.so", "fentry");
	dh_expect_module_mode(tc, "/libdlplain.so", "plt");
	tr_pass(tc);
}

/* A library loaded with dlmopen into a new namespace, with its own copy of
 * libc: its calls through its PLT are hooked (runtime/modmap.c finds the
 * namespace's modules through r_debug's chain, dl_iterate_phdr lists only
 * the caller's), bound in its namespace, and named from the manifest's
 * module records. plain_copy and plain_release are called through dlsym'd
 * pointers, so their frames are not seen: their calls nest in
 * in_namespace. */
static void check_dlmopen(struct tr_case *tc, const char *binding)
{
	static const char *const lib[] = { "-O2", "-shared", "-fPIC", NULL };
	static const char *const ldl[] = { "-ldl", NULL };
	char plain_lib[PATH_MAX];
	const char *const args[] = { plain_lib, binding, NULL };

	tr_build(tc, NULL, "gcc", DH_PROGS "dl_plain.c", "libdlplain.so", lib);
	dh_build_fentry_pair(tc, "dlmopen", ldl);
	tr_path(tc, "libdlplain.so", plain_lib);
	dh_run_args(tc, "dlmopen", "trace", args, args, NULL, 0);
	assert_string_equal(tc->traced.out, "copy namespace\n");
	assert_true(dh_hooks_value(tc, "passes") == 3);
	dh_expect_direct_tree(tc,
			      "main\n"
			      "  strcmp\n"
			      "  in_namespace\n"
			      "    dlmopen\n"
			      "    plain_count\n"
			      "      strlen\n"
			      "    malloc\n"
			      "    memcpy\n"
			      "    printf\n"
			      "    free\n"
			      "    dlclose\n");
	dh_expect_module_mode(tc, "/libdlplain.so", "plt");
	tr_pass(tc);
}

/* An instrumented library loaded with dlmopen brings a second libada into
 * its namespace. That copy stays off (one session, one writer), and the
 * namespace is not hooked: two runtimes would hijack the same frames. The
 * program's output is unchanged; the library's calls are not recorded (a
 * documented limit), the program's own are. */
static void dlmopen_of_an_instrumented_library_keeps_one_runtime(void **state)
{
	struct tr_case *tc = *state;
	static const char *const inst[] = { "-O2", "-shared", "-fPIC", "--ada-mode=fentry", NULL };
	static const char *const ldl[] = { "-ldl", NULL };
	char lib[PATH_MAX];
	const char *const args[] = { lib, "lazy", NULL };

	tr_build(tc, NULL, TR_ADACC, DH_PROGS "dl_plain.c", "libdlinst.so", inst);
	dh_build_fentry_pair(tc, "dlmopen", ldl);
	tr_path(tc, "libdlinst.so", lib);
	dh_run_args(tc, "dlmopen", "trace", args, args, NULL, 0); /* one session_* only */
	assert_string_equal(tc->traced.out, "copy namespace\n");
	dh_expect_direct_tree(tc,
			      "main\n"
			      "  strcmp\n"
			      "  in_namespace\n"
			      "    dlmopen\n"
			      "    printf\n"
			      "    dlclose\n");
	tr_pass(tc);
}

static void dlmopen_namespace_is_hooked(void **state)
{
	check_dlmopen(*state, "now");
}

/* Its lazy slots bound in its namespace: a lookup from the default one
 * would give the other libc's malloc (or crash in dlsym, as a first
 * attempt did with a dependency's link map as the handle). */
static void dlmopen_namespace_binds_lazily(void **state)
{
	check_dlmopen(*state, "lazy");
}

/* A program built without adacc dlopens a library built with it, which
 * brings libada.so in: the hooks are set inside that dlopen. The library's
 * __fentry__ GOT slot (adacc's code calls `call *__fentry__@GOTPCREL(%rip)`)
 * is bound by the dynamic linker to libc.so.6's __fentry__ (glibc's gprof
 * hook; libc is in the global scope, libada only in the library's local
 * one), so the rule "functions defined in libada are never hooked" does not
 * cover it: instrumentation hooks are never hooked by name. Hooked, the
 * fentry call would return through ada_return_trampoline, which keeps only
 * the return registers, while __fentry__ must preserve every register: the
 * functions' arguments arrived clobbered (inst_twice(21) gave 960, strlen
 * got a garbage pointer and the program died of SIGSEGV). Whether such a
 * library's own functions are traced (its __fentry__ is libc's no-op) is
 * not asked here. */
static void uninstrumented_host_dlopens_an_instrumented_library(void **state)
{
	struct tr_case *tc = *state;
	static const char *const lib[] = { "-O2", "-shared", "-fPIC", NULL };
	static const char *const inst[] = { "-O2", "-shared", "-fPIC", "--ada-mode=fentry", NULL };
	static const char *const exe[] = { "-O2", "-ldl", NULL };
	char plain_inst[PATH_MAX], traced_inst[PATH_MAX];
	const char *const plain_args[] = { plain_inst, NULL };
	const char *const traced_args[] = { traced_inst, NULL };
	const char *const fentry[] = { "__fentry__", NULL };

	dh_make_dir(tc, "plain");
	dh_make_dir(tc, "traced");
	tr_build(tc, NULL, "gcc", DH_PROGS "dl_inst.c", "plain/libdlinst.so", lib);
	tr_build(tc, NULL, TR_ADACC, DH_PROGS "dl_inst.c", "traced/libdlinst.so", inst);
	tr_build(tc, NULL, "gcc", DH_PROGS "dl_host.c", "host.plain", exe);
	tr_build(tc, NULL, "gcc", DH_PROGS "dl_host.c", "host", exe);
	tr_path(tc, "plain/libdlinst.so", plain_inst);
	tr_path(tc, "traced/libdlinst.so", traced_inst);
	dh_run_args(tc, "host", "trace", plain_args, traced_args, NULL, 0);
	assert_string_equal(tc->traced.out, "twice 42\nmeasure 10\nclosed\n");
	if (tr_count_lines(tc->replay.out, fentry) != 0)
		fail_msg("__fentry__ was hooked:\n%s", tc->replay.out);
	/* The library's own functions are recorded: its __fentry__ reference
	 * is versioned (runtime/libada.map), so glibc's no-op __fentry__,
	 * ahead in the host's search order, does not take it. After dlclose
	 * the host's hooked slots still work: libada is never unloaded
	 * (-z nodelete; the host crashed in puts before). */
	dh_expect_direct_tree(tc, "inst_twice\nprintf\ninst_measure\n  strlen\nprintf\ndlclose\n"
			      "puts\n__cxa_finalize\n");
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, dh_teardown)
	const struct CMUnitTest tests[] = {
		T(dlopened_libraries_are_hooked_and_named),
		T(dlopen_dlclose_twice_traces_every_load),
		T(dlmopen_namespace_is_hooked),
		T(dlmopen_namespace_binds_lazily),
		T(dlmopen_of_an_instrumented_library_keeps_one_runtime),
		T(uninstrumented_host_dlopens_an_instrumented_library),
	};
#undef T

	tr_scrub_environment();
	/* tr_scrub_environment turns the hooks off for the other tests. */
	setenv("ADA_DYNHOOK", "on", 1);
	return cmocka_run_group_tests_name("dynamic hooks: dlopen", tests, NULL, NULL);
}
