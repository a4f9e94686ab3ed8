/* test_dynhook.c - the dynamic-hook fallback: calls into and between modules
 * that were not built with adacc. (dlopen: test_dynhook_dlopen.c;
 * exceptions, longjmp, vfork/fork/exec, threads: test_dynhook_flow.c.)
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
 *   - an executable calling a plain gcc library that calls libc: the exact
 *     tree in fentry, mcount and cyg mode; --dump's registers (strlen gets
 *     plain_len's argument and returns 5, malloc(0x40)'s result is what
 *     free gets); malloc from two modules is one function; ADA_DISABLE=1
 *     prints the same; the manifest's "dynamic_hooks" and module modes;
 *   - lazy binding, -z now without RELRO, full RELRO and -fno-plt: one tree;
 *     a lazy slot bound as the dynamic linker would (LD_PRELOAD wins);
 *   - ADA_EXCLUDE (a symbol, a module, a list of globs), ADA_DYNHOOK=off,
 *     bad values of both.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "e2e/dynhook_run.h"
#include "e2e/dynhook_view.h"
#include "lib/capture.h"
#include "lib/proc.h"
#include "lib/tracerun.h"

/* ---- an executable, a plain library, libc --------------------------------------------- */

static const char app_tree[] =
	"main\n"
	"  plain_len\n"
	"    strlen\n"
	"  plain_alloc\n"
	"    malloc\n"
	"  malloc\n"
	"  plain_free x2\n"
	"    free\n"
	"  printf\n";

static const char app_out[] = "len 5, allocations ok\n";

/* --dump's line for the next event at or after *pos whose text (after the
 * time and the indentation) starts with `prefix`; *pos moves past it. */
static void dump_next(const char **pos, const char *prefix, char *line, size_t size)
{
	const char *p = *pos;

	while (p && *p) {
		const char *nl = strchr(p, '\n'), *text = p + strcspn(p, " ");

		text += strspn(text, " ");
		if (dh_starts_with(text, prefix)) {
			snprintf(line, size, "%.*s", (int)(nl ? nl - text : (long)strlen(text)), text);
			*pos = nl ? nl + 1 : p + strlen(p);
			return;
		}
		p = nl ? nl + 1 : NULL;
	}
	fail_msg("--dump: no event \"%s...\" after where the last one was found", prefix);
}

static uint64_t dump_hex(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	char *end;
	uint64_t v;

	if (!p)
		fail_msg("--dump line \"%s\" has no \"%s\"", line, key);
	v = strtoull(p + strlen(key), &end, 16);
	if (end == p + strlen(key))
		fail_msg("--dump line \"%s\": no number after \"%s\"", line, key);
	return v;
}

/* The detail lane of the hooked calls: strlen gets plain_len's argument and
 * returns 5 (as an IFUNC implementation, whose name is the CPU's: "strlen"
 * or "__strlen_<impl>"), malloc(0x40) returns what plain_alloc returns and
 * plain_free and free receive; the executable's own malloc(0x10) is the same
 * function as libplain's. */
static void expect_app_dump(struct tr_case *tc, const char *trace)
{
	const char *const sym = ADA_ROOT "/bin/ada-symbolize";
	const char *const argv[] = { sym, "--dump", trace, NULL };
	const char *pos = dh_scratch.dump = dh_tool_output(tc, argv);
	char line[1024], prefix[160], strlen_name[128];
	uint64_t s, p;

	dump_next(&pos, "plain_len(", line, sizeof(line));
	s = dump_hex(line, "rdi=0x");
	/* The next event's line (past plain_len's FP registers, indented):
	 * the call plain_len's tail call made. */
	while (*pos == ' ')
		pos += strcspn(pos, "\n") + 1;
	{
		const char *name = pos + strcspn(pos, " ");

		name += strspn(name, " ");
		snprintf(strlen_name, sizeof(strlen_name), "%.*s", (int)strcspn(name, "( \n"), name);
	}
	if (strcmp(strlen_name, "strlen") != 0 && !dh_starts_with(strlen_name, "__strlen"))
		fail_msg("plain_len's callee is \"%s\", not strlen or __strlen*\n%s", strlen_name,
			 dh_scratch.dump);
	snprintf(prefix, sizeof(prefix), "%s(", strlen_name);
	dump_next(&pos, prefix, line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), s);
	snprintf(prefix, sizeof(prefix), "%s = ", strlen_name);
	dump_next(&pos, prefix, line, sizeof(line));
	assert_int_equal(dump_hex(line, " = 0x"), 5);
	dump_next(&pos, "plain_len = ", line, sizeof(line));
	assert_int_equal(dump_hex(line, " = 0x"), 5);

	dump_next(&pos, "plain_alloc(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), 0x40);
	dump_next(&pos, "malloc(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), 0x40);
	dump_next(&pos, "malloc = ", line, sizeof(line));
	p = dump_hex(line, " = 0x");
	assert_true(p != 0);
	dump_next(&pos, "plain_alloc = ", line, sizeof(line));
	assert_int_equal(dump_hex(line, " = 0x"), p);
	dump_next(&pos, "malloc(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), 0x10);
	dump_next(&pos, "plain_free(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), p);
	dump_next(&pos, "free(", line, sizeof(line));
	assert_int_equal(dump_hex(line, "rdi=0x"), p);
	free(dh_scratch.dump);
	dh_scratch.dump = NULL;
}

/* One symbol per function: malloc, called from libplain, from the
 * executable and from inside libc, is one function (its target address). */
static void expect_one_symbol(const struct tr_case *tc, const char *name)
{
	char key[128];
	const char *const needles[] = { key, NULL };

	snprintf(key, sizeof(key), "\"name\": \"%s\",", name);
	if (tr_count_lines(tc->mf.text, needles) != 1)
		fail_msg("manifest.json: %zu symbols named %s, expected 1\n%s",
			 tr_count_lines(tc->mf.text, needles), name, tc->mf.text);
}

static void build_app(struct tr_case *tc, const char *mode)
{
	dh_make_dir(tc, "b");
	dh_build_libplain(tc, "b", NULL);
	dh_build_against_libplain(tc, "b", DH_PROGS "app.c", "app", mode, NULL);
}

static void library_calls_nest_exactly_fentry(void **state)
{
	struct tr_case *tc = *state;
	char trace[PATH_MAX], disabled[PATH_MAX], output[PATH_MAX + 16];
	const char *const env[] = { "ADA_DISABLE=1", output, NULL };
	const char *const argv[] = { "b/app", NULL };
	struct proc_result off = { 0 };
	struct stat st;

	build_app(tc, "fentry");
	dh_run(tc, "b/app", "trace", NULL, 3);
	assert_string_equal(tc->traced.out, app_out);
	dh_expect_direct_tree(tc, app_tree);
	expect_one_symbol(tc, "malloc");
	expect_app_dump(tc, tr_path(tc, "trace", trace));

	/* ADA_DISABLE=1: the same output and status, nothing on stderr, no
	 * trace. */
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", tr_path(tc, "disabled", disabled));
	tr_run(tc, argv, env, &off);
	assert_int_equal(proc_exit_code(&off), 3);
	assert_string_equal(off.out, tc->plain.out);
	assert_string_equal(off.err, "");
	proc_result_free(&off);
	assert_true(stat(disabled, &st) < 0 && errno == ENOENT);
	tr_pass(tc);
}

static void library_calls_nest_exactly_mcount(void **state)
{
	struct tr_case *tc = *state;
	char trace[PATH_MAX];

	build_app(tc, "mcount");
	dh_run(tc, "b/app", "trace", NULL, 3);
	assert_string_equal(tc->traced.out, app_out);
	dh_expect_direct_tree(tc, app_tree);
	expect_app_dump(tc, tr_path(tc, "trace", trace));
	tr_pass(tc);
}

/* cyg mode: the same tree, without the detail lane. A cyg frame's stack
 * position must be strictly above the return-address slot of a hooked call
 * it makes (runtime/cyg.c takes the hook's canonical frame address), or the
 * call would close it as abandoned: main (unwound) with plain_len & co. as
 * its siblings, and main's exit "unmatched". */
static void library_calls_nest_exactly_cyg(void **state)
{
	struct tr_case *tc = *state;

	build_app(tc, "cyg");
	dh_run(tc, "b/app", "trace", NULL, 3);
	assert_string_equal(tc->traced.out, app_out);
	dh_expect_direct_tree(tc, app_tree);
	tr_pass(tc);
}

/* ---- the manifest ----------------------------------------------------------------- */

/* "dynamic_hooks" has every total; one pass (no dlopen), nothing excluded,
 * at least the seven functions the program reaches (plain_len, plain_alloc,
 * plain_free, strlen, malloc, free, printf) in at least three modules (the
 * executable, libplain, libc), each slot leading to one of them. Times are
 * not checked (no wall-clock assertion), only that they are there. The
 * executable is "fentry"; libplain and libc, reached through hooks only,
 * "plt". */
static void manifest_counts_hooks_and_names_modes(void **state)
{
	struct tr_case *tc = *state;

	build_app(tc, "fentry");
	dh_run(tc, "b/app", "trace", NULL, 3);
	assert_true(dh_hooks_value(tc, "modules") >= 3);
	assert_true(dh_hooks_value(tc, "functions") >= 7);
	assert_true(dh_hooks_value(tc, "slots") >= dh_hooks_value(tc, "functions"));
	assert_true(dh_hooks_value(tc, "excluded") == 0);
	dh_hooks_value(tc, "untraceable");
	assert_true(dh_hooks_value(tc, "passes") == 1);
	assert_true(dh_hooks_value(tc, "startup_ms") >= 0);
	assert_true(dh_hooks_value(tc, "total_ms") >= dh_hooks_value(tc, "startup_ms"));
	if (!strstr(tc->mf.text, "\n  \"mode\": \"fentry\",\n"))
		fail_msg("manifest.json: the process's mode is not fentry\n%s", tc->mf.text);
	dh_expect_module_mode(tc, "/b/app", "fentry");
	dh_expect_module_mode(tc, "/b/libplain.so", "plt");
	/* libc defines mcount (gprof's), __fentry__ and __cyg_profile_func_*
	 * (no-ops), which in an executable would mean the static runtime. */
	dh_expect_module_mode(tc, "/libc.so.6", "plt");
	tr_pass(tc);
}

/* ---- binding and relocation modes ------------------------------------------------- */

struct binding {
	const char *sub;
	const char *flags[4];  /* for the library and the executable */
	bool bind_now;         /* readelf -d says BIND_NOW */
	bool relro;            /* readelf -l shows GNU_RELRO */
	bool glob_dat;         /* libplain calls strlen through a GLOB_DAT slot, not a JUMP_SLOT */
};

static const struct binding bindings[] = {
	{ "lazy", { "-Wl,-z,lazy", NULL }, false, true, false },
	{ "now", { "-Wl,-z,norelro", "-Wl,-z,now", NULL }, true, false, false },
	{ "relro", { "-Wl,-z,relro", "-Wl,-z,now", NULL }, true, true, false },
	{ "noplt", { "-fno-plt", NULL }, false, true, true },
};

/* What the test relies on: each build binds and relocates as named. */
static void expect_binding(const struct tr_case *tc, const struct binding *b, const char *file)
{
	char path[PATH_MAX], what[PATH_MAX + 64];
	const char *const dyn_argv[] = { "readelf", "-dW", path, NULL };
	const char *const seg_argv[] = { "readelf", "-lW", path, NULL };
	const char *const rel_argv[] = { "readelf", "-rW", path, NULL };
	const char *const bind_now[] = { "BIND_NOW", NULL };
	const char *const relro[] = { "GNU_RELRO", NULL };
	const char *const glob_dat[] = { "R_X86_64_GLOB_DAT", "strlen", NULL };
	const char *const jump_slot[] = { "R_X86_64_JUMP_SLOT", "strlen", NULL };
	char *dyn, *seg, *rel;

	snprintf(path, sizeof(path), "%s/%s/%s", tc->dir, b->sub, file);
	snprintf(what, sizeof(what), "%s (%s)", path, b->sub);
	dyn = dh_tool_output(tc, dyn_argv);
	seg = dh_tool_output(tc, seg_argv);
	rel = dh_tool_output(tc, rel_argv);
	if ((tr_count_lines(dyn, bind_now) > 0) != b->bind_now)
		fail_msg("%s: BIND_NOW is%s there:\n%s", what, b->bind_now ? " not" : "", dyn);
	if ((tr_count_lines(seg, relro) > 0) != b->relro)
		fail_msg("%s: GNU_RELRO is%s there:\n%s", what, b->relro ? " not" : "", seg);
	if (!strcmp(file, "libplain.so") &&
	    (tr_count_lines(rel, b->glob_dat ? glob_dat : jump_slot) != 1))
		fail_msg("%s: strlen is not called through a %s slot:\n%s", what,
			 b->glob_dat ? "GLOB_DAT" : "JUMP_SLOT", rel);
	free(dyn);
	free(seg);
	free(rel);
}

/* Lazy binding (the slots still lead into the PLT when they are hooked),
 * -z now without RELRO (bound, writable), full RELRO (bound, read-only:
 * opened for the hook and closed again) and -fno-plt (GLOB_DAT slots,
 * `call *slot(%rip)` and `jmp *slot(%rip)` in the code): the same tree. */
static void every_binding_gives_the_same_tree(void **state)
{
	struct tr_case *tc = *state;

	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++) {
		const struct binding *b = &bindings[i];
		char exe[64];

		dh_make_dir(tc, b->sub);
		dh_build_libplain(tc, b->sub, b->flags);
		dh_build_against_libplain(tc, b->sub, DH_PROGS "app.c", "app", "fentry", b->flags);
		expect_binding(tc, b, "libplain.so");
		expect_binding(tc, b, "app");
		snprintf(exe, sizeof(exe), "%s/app", b->sub);
		dh_run(tc, exe, b->sub, NULL, 3);
		assert_string_equal(tc->traced.out, app_out);
		dh_expect_direct_tree(tc, app_tree);
	}
	tr_pass(tc);
}

/* A slot still lazily unbound when the hooks are set is bound by the
 * runtime, not by the dynamic linker: to the definition the dynamic linker
 * would have chosen, the first in the global scope, unversioned or not,
 * even for a versioned reference. An LD_PRELOAD'ed strlen
 * (progs/dynhook/preload.c: unversioned, adds 100, in a library that has
 * version information of its own) wins over libc's for libplain's
 * strlen@GLIBC_2.2.5: "len 105". (dlvsym(RTLD_DEFAULT, name, version) would
 * skip it, and libada's own unversioned interposers too: see
 * cxx_exception_from_libstdcxx_unwinds_hooked_frames.) */
static void lazy_slots_bind_like_the_dynamic_linker(void **state)
{
	struct tr_case *tc = *state;
	static const char *const lazy[] = { "-Wl,-z,lazy", NULL };
	static const char *const pre[] = { "-O2", "-shared", "-fPIC", NULL };
	static const char want[] = "len 105, allocations ok\n";
	char preload[PATH_MAX + 16], output[PATH_MAX + 16], lib[PATH_MAX], trace[PATH_MAX];
	const char *const plain_env[] = { preload, NULL };
	const char *const env[] = { preload, output, NULL };
	const char *const plain_argv[] = { "lazy/app.plain", NULL };
	const char *const argv[] = { "lazy/app", NULL };

	dh_make_dir(tc, "lazy");
	dh_build_libplain(tc, "lazy", lazy);
	dh_build_against_libplain(tc, "lazy", DH_PROGS "app.c", "app", "fentry", lazy);
	tr_build(tc, NULL, "gcc", DH_PROGS "preload.c", "libpreload.so", pre);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", tr_path(tc, "libpreload.so", lib));
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", tr_path(tc, "trace", trace));
	/* The premise: the interposer wins in the plain program. */
	tr_run(tc, plain_argv, plain_env, &tc->plain);
	if (strcmp(tc->plain.out, want) != 0)
		fail_msg("LD_PRELOAD's strlen is not used by the plain program (the test's "
			 "premise): %s", tc->plain.out);
	tr_run(tc, argv, env, &tc->traced);
	assert_int_equal(proc_exit_code(&tc->traced), 3);
	if (strcmp(tc->traced.out, want) != 0)
		fail_msg("the traced program prints \"%s\", the plain one \"%s\": libplain's lazy "
			 "strlen slot was not bound to LD_PRELOAD's strlen", tc->traced.out, want);
	tr_symbolize(tc, trace);
	dh_expect_balanced(trace);
	tr_pass(tc);
}

/* A library that interposes a function the runtime calls while it sets a
 * thread up, and passes the call on through its own (hooked) PLT slot
 * (progs/dynhook/sigmask_shim.c: pthread_sigmask through sigprocmask; ASan's
 * interceptors are such a library). The hook on that slot fired before the
 * thread's state existed and set the thread up again, recursing until the
 * stack overflowed: every traced thread crashed. The runtime now blocks
 * signals there with the system call itself. 200 threads run and exit. */
static void interposed_sigmask_does_not_recurse_into_thread_setup(void **state)
{
	struct tr_case *tc = *state;
	static const char *const pre[] = { "-O2", "-shared", "-fPIC", NULL };
	char preload[PATH_MAX + 16], lib[PATH_MAX];
	const char *const env[] = { preload, NULL };

	tr_build(tc, NULL, "gcc", DH_PROGS "sigmask_shim.c", "libsigmask.so", pre);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", tr_path(tc, "libsigmask.so", lib));
	tr_build_pair(tc, "many_threads", "many_threads", NULL);
	tr_run_pair(tc, "many_threads", NULL, env, 0);
	assert_string_equal(tc->traced.out, "200 threads, sum 19900\n");
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	assert_int_equal(tc->mf.nthreads, 201);
	tr_pass(tc);
}

/* ---- ADA_EXCLUDE and ADA_DYNHOOK ------------------------------------------------------- */

/* Excluding a symbol leaves its slots alone, in every module: libplain's
 * malloc and the executable's own (and libc's internal ones); free stays. */
static void exclude_a_symbol_keeps_the_rest(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_EXCLUDE=libc.so.6:malloc", NULL };

	build_app(tc, "fentry");
	dh_run(tc, "b/app", "trace", env, 3);
	assert_string_equal(tc->traced.err, "");
	dh_expect_direct_tree(tc,
			      "main\n"
			      "  plain_len\n"
			      "    strlen\n"
			      "  plain_alloc\n"
			      "  plain_free x2\n"
			      "    free\n"
			      "  printf\n");
	assert_true(dh_hooks_value(tc, "excluded") >= 2);
	tr_pass(tc);
}

/* Excluding a module leaves alone the slots that lead *into* it (the
 * executable's three, to plain_len, plain_alloc and plain_free), not the
 * module's own: its calls into libc are still recorded, under the caller
 * of the unrecorded plain_* function. */
static void exclude_a_module_unhooks_calls_into_it(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_EXCLUDE=libplain*", NULL };

	build_app(tc, "fentry");
	dh_run(tc, "b/app", "trace", env, 3);
	assert_string_equal(tc->traced.err, "");
	dh_expect_direct_tree(tc,
			      "main\n"
			      "  strlen\n"
			      "  malloc x2\n"
			      "  free x2\n"
			      "  printf\n");
	assert_true(dh_hooks_value(tc, "excluded") == 3);
	tr_pass(tc);
}

/* Several items, comma-separated, and symbol globs. */
static void exclude_takes_a_list_of_globs(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_EXCLUDE=libc.so.6:*len*,libc*:free,libplain*:plain_alloc",
				    NULL };

	build_app(tc, "fentry");
	dh_run(tc, "b/app", "trace", env, 3);
	assert_string_equal(tc->traced.err, "");
	dh_expect_direct_tree(tc,
			      "main\n"
			      "  plain_len\n"
			      "  malloc x2\n"
			      "  plain_free x2\n"
			      "  printf\n");
	tr_pass(tc);
}

/* ADA_DYNHOOK=off: only the executable's own functions, no dynamic_hooks in
 * the manifest, no module reached through hooks. */
static void dynhook_off_records_no_library_call(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DYNHOOK=off", NULL };
	const char *const plt[] = { "\"mode\": \"plt\"", NULL };

	build_app(tc, "fentry");
	dh_run(tc, "b/app", "trace", env, 3);
	assert_string_equal(tc->traced.err, "");
	dh_expect_direct_tree(tc, "main\n");
	assert_null(strstr(tc->mf.text, "\"dynamic_hooks\""));
	assert_int_equal(tr_count_lines(tc->mf.text, plt), 0);
	assert_non_null(strstr(tc->mf.config, "dynhook=off"));
	tr_pass(tc);
}

/* A bad value: one line on stderr naming the variable and the value, and
 * the default (on; excluding nothing). */
static void bad_values_warn_once_and_keep_the_defaults(void **state)
{
	struct tr_case *tc = *state;
	static const struct {
		const char *env, *name;
	} bad[] = {
		{ "ADA_DYNHOOK=maybe", "ADA_DYNHOOK=maybe" },
		{ "ADA_EXCLUDE=libc.so.6:", "ADA_EXCLUDE=libc.so.6:" },
		{ "ADA_EXCLUDE=,libplain*", "ADA_EXCLUDE=,libplain*" },
	};

	build_app(tc, "fentry");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const env[] = { bad[i].env, NULL };
		const char *const named[] = { bad[i].name, NULL };
		char trace[32];

		snprintf(trace, sizeof(trace), "trace%zu", i);
		dh_run(tc, "b/app", trace, env, 3);
		if (count_lines(tc->traced.err) != 1 || tr_count_lines(tc->traced.err, named) != 1)
			fail_msg("%s: stderr is not one line naming it:\n%s", bad[i].env,
				 tc->traced.err);
		dh_expect_direct_tree(tc, app_tree);
		assert_true(dh_hooks_value(tc, "excluded") == 0);
	}
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, dh_teardown)
	const struct CMUnitTest tests[] = {
		T(library_calls_nest_exactly_fentry),
		T(library_calls_nest_exactly_mcount),
		T(library_calls_nest_exactly_cyg),
		T(manifest_counts_hooks_and_names_modes),
		T(every_binding_gives_the_same_tree),
		T(lazy_slots_bind_like_the_dynamic_linker),
		T(interposed_sigmask_does_not_recurse_into_thread_setup),
		T(exclude_a_symbol_keeps_the_rest),
		T(exclude_a_module_unhooks_calls_into_it),
		T(exclude_takes_a_list_of_globs),
		T(dynhook_off_records_no_library_call),
		T(bad_values_warn_once_and_keep_the_defaults),
	};
#undef T

	tr_scrub_environment();
	/* Every detail record written (the default writes them in windows
	 * around triggers only: test_windows): these tests check them all. */
	setenv("ADA_DETAIL", "all", 1);
	/* tr_scrub_environment turns the hooks off for the other tests. */
	setenv("ADA_DYNHOOK", "on", 1);
	return cmocka_run_group_tests_name("dynamic hooks", tests, NULL, NULL);
}
