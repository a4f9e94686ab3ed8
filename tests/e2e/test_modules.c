/* test_modules.c - a module is an address range and a lifetime.
 *
 * progs/swap/swap_main.c loads two libraries of the same size in turn,
 * liba.so then libb.so, 20 rounds, each time calling the library's
 * lib_entry(), which calls lib<a|b>_self() through the library's PLT, then
 * closing it: the loader maps each where the other was (the program says in
 * how many rounds it did: at least one is the test's premise). Every load is a module of its own in
 * the manifest, with its base address and the times it was loaded and
 * unloaded, and each event's address is named after the load that held it
 * when the event happened: 20 modules for each library, each with exactly
 * one call of its own functions, none of the other's; every function_id
 * listed once; `ada-symbolize --check` OK.
 *
 * The libraries are instrumented (adacc -shared, the program's mode: fentry,
 * cyg), so lib_entry and lib<x>_self record themselves, once each: a call
 * into an instrumented module through a hooked PLT slot is not recorded a
 * second time by the hook; or plain gcc builds, whose lib<x>_self the
 * dynamic hooks record through the library's own PLT slot.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/atf_read.h"
#include "lib/tracee.h"
#include "lib/tracerun.h"

#define PROG "tests/e2e/progs/swap/"
#define ROUNDS 20
#define MAX_MODULES 64
#define MAX_SYMBOLS 256

/* What the manifest says about each module and function the events name. */
struct model {
	struct mod {
		uint64_t id;
		char path[PATH_MAX];
		bool unloaded;
		size_t calls;      /* CALL events naming its functions */
		char names[4][64]; /* the functions called, and how often */
		size_t counts[4], nnames;
	} mods[MAX_MODULES];
	size_t nmods;
	struct sym {
		uint64_t fid;
		char name[64];
		size_t mod;        /* index into mods */
	} syms[MAX_SYMBOLS];
	size_t nsyms;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static uint64_t json_u64(const char *line, const char *end, const char *key, int base)
{
	char buf[64];

	if (!tr_json_value(line, end, key, buf, sizeof(buf)))
		fail_msg("manifest.json: no \"%s\" in %.*s", key, (int)(end - line), line);
	return strtoull(buf, NULL, base);
}

static void read_modules(const char *text, struct model *md)
{
	const char *close, *p = tr_json_array(text, "modules", &close);

	for (; p < close; p = strchr(p, '\n') + 1) {
		const char *end = strchr(p, '\n');
		struct mod *m = &md->mods[md->nmods++];
		char unload[32];

		assert_true(md->nmods <= MAX_MODULES);
		m->id = json_u64(p, end, "module_id", 10);
		assert_true(tr_json_value(p, end, "path", m->path, sizeof(m->path)));
		m->unloaded = tr_json_value(p, end, "unload_ns", unload, sizeof(unload));
	}
}

static size_t module_index(const struct model *md, uint64_t id)
{
	for (size_t i = 0; i < md->nmods; i++)
		if (md->mods[i].id == id)
			return i;
	fail_msg("manifest.json: module %llu is not in \"modules\"", (unsigned long long)id);
	return 0;
}

/* Also: no function_id is listed twice. */
static void read_symbols(const char *text, struct model *md)
{
	const char *close, *p = tr_json_array(text, "symbols", &close);

	for (; p < close; p = strchr(p, '\n') + 1) {
		const char *end = strchr(p, '\n');
		struct sym *s = &md->syms[md->nsyms];

		assert_true(md->nsyms < MAX_SYMBOLS);
		s->fid = json_u64(p, end, "function_id", 16);
		for (size_t i = 0; i < md->nsyms; i++)
			if (md->syms[i].fid == s->fid)
				fail_msg("manifest.json: function_id 0x%016llx listed twice",
					 (unsigned long long)s->fid);
		assert_true(tr_json_value(p, end, "name", s->name, sizeof(s->name)));
		s->mod = module_index(md, json_u64(p, end, "module_id", 10));
		md->nsyms++;
	}
}

/* --check has made sure every event's function_id is listed. */
static const struct sym *symbol(const struct model *md, uint64_t fid)
{
	size_t i;

	for (i = 0; i < md->nsyms - 1 && md->syms[i].fid != fid; i++)
		;
	return &md->syms[i];
}

/* Counted for the libraries' modules only (a fifth name is counted in
 * calls, not named: the test fails on the count). */
static void count_call(struct mod *m, const char *name)
{
	size_t i;

	if (!ends_with(m->path, "/liba.so") && !ends_with(m->path, "/libb.so"))
		return;
	m->calls++;
	for (i = 0; i < m->nnames && strcmp(m->names[i], name); i++)
		;
	if (i == m->nnames && m->nnames < 4) {
		size_t len = strnlen(name, sizeof(m->names[0]) - 1);

		memcpy(m->names[m->nnames], name, len);
		m->names[m->nnames++][len] = '\0';
	}
	if (i < 4)
		m->counts[i]++;
}

/* The manifest, and the CALLs of the program's only thread counted per
 * module and function. */
static void load_model(struct tr_case *tc, struct model *md)
{
	char *pid = tracee_pid_dir(tc->trace), path[PATH_MAX], err[512];
	struct atfr_index ix;

	assert_non_null(pid);
	tr_load_manifest(tc, NULL);
	read_modules(tc->mf.text, md);
	read_symbols(tc->mf.text, md);
	snprintf(path, sizeof(path), "%s/thread_0/index.atf", pid);
	free(pid);
	if (atfr_read_index(path, &ix, err, sizeof(err)))
		fail_msg("%s", err);
	for (uint32_t i = 0; i < ix.event_count; i++) {
		const struct sym *s = symbol(md, ix.events[i].function_id);

		if (ix.events[i].kind == ATFR_CALL)
			count_call(&md->mods[s->mod], s->name);
	}
	atfr_index_free(&ix);
}

/* Every load of lib<who>.so is a module that was unloaded, whose events
 * are exactly one call of each of `names` (NULL-terminated). */
static void expect_loads(const struct model *md, const char *who, const char *const names[])
{
	char suffix[16];
	size_t loads = 0, n = 0;

	snprintf(suffix, sizeof(suffix), "/lib%s.so", who);
	while (names[n])
		n++;
	for (size_t i = 0; i < md->nmods; i++) {
		const struct mod *m = &md->mods[i];

		if (!ends_with(m->path, suffix))
			continue;
		loads++;
		if (!m->unloaded)
			fail_msg("module %llu (%s) has no unload_ns", (unsigned long long)m->id, m->path);
		if (m->calls != n || m->nnames != n)
			fail_msg("module %llu (%s): %zu calls of %zu functions (%s%s%s...), expected one of each of %zu",
				 (unsigned long long)m->id, m->path, m->calls, m->nnames, m->names[0],
				 m->nnames > 1 ? ", " : "", m->nnames > 1 ? m->names[1] : "", n);
		for (size_t k = 0; k < n; k++) {
			size_t j;

			for (j = 0; j < m->nnames && strcmp(m->names[j], names[k]); j++)
				;
			if (j == m->nnames || m->counts[j] != 1)
				fail_msg("module %llu (%s): %s is not called once", (unsigned long long)m->id,
					 m->path, names[k]);
		}
	}
	if (loads != ROUNDS)
		fail_msg("manifest.json lists %zu loads of lib%s.so, expected %d", loads, who, ROUNDS);
}

static void expect_replay_lines(const char *replay, const char *name, size_t want)
{
	size_t got = 0, len = strlen(name);

	for (const char *p = replay; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *s = p + strspn(p, " ");

		if (!strncmp(s, name, len) && (s[len] == '\n' || s[len] == '\0'))
			got++;
	}
	if (got != want)
		fail_msg("--replay shows %s %zu times, expected %zu:\n%s", name, got, want, replay);
}

/* Builds the libraries (instrumented in `mode` when `inst`) and the
 * program in `mode`, runs it, checks the trace. */
static void swap_libraries(struct tr_case *tc, const char *mode, bool inst)
{
	const char *const lib_a[] = { "-O2", "-shared", "-fPIC", "-DWHO=a", mode, NULL };
	const char *const lib_b[] = { "-O2", "-shared", "-fPIC", "-DWHO=b", mode, NULL };
	const char *const exe[] = { "-O2", "-ldl", mode, NULL };
	const char *const exe_plain[] = { "-O2", "-ldl", NULL };
	const char *const plain_lib_a[] = { "-O2", "-shared", "-fPIC", "-DWHO=a", NULL };
	const char *const plain_lib_b[] = { "-O2", "-shared", "-fPIC", "-DWHO=b", NULL };
	char a[PATH_MAX], b[PATH_MAX], pa[PATH_MAX], pb[PATH_MAX], rounds[16];
	const char *const plain_args[] = { pa, pb, rounds, NULL };
	const char *const traced_args[] = { a, b, rounds, NULL };
	struct model *md = calloc(1, sizeof(*md));
	const char *names_a[3], *names_b[3];
	const char *premise;
	int same = 0;

	assert_non_null(md);
	snprintf(rounds, sizeof(rounds), "%d", ROUNDS);
	tr_build(tc, NULL, "gcc", PROG "swap_lib.c", "liba.plain.so", plain_lib_a);
	tr_build(tc, NULL, "gcc", PROG "swap_lib.c", "libb.plain.so", plain_lib_b);
	tr_build(tc, NULL, inst ? TR_ADACC : "gcc", PROG "swap_lib.c", "liba.so", inst ? lib_a : plain_lib_a);
	tr_build(tc, NULL, inst ? TR_ADACC : "gcc", PROG "swap_lib.c", "libb.so", inst ? lib_b : plain_lib_b);
	tr_build(tc, NULL, "gcc", PROG "swap_main.c", "swap.plain", exe_plain);
	tr_build(tc, NULL, TR_ADACC, PROG "swap_main.c", "swap", exe);
	tr_path(tc, "liba.so", a);
	tr_path(tc, "libb.so", b);
	tr_path(tc, "liba.plain.so", pa);
	tr_path(tc, "libb.plain.so", pb);
	tr_run_pair_args(tc, "swap", plain_args, traced_args, NULL, 0);
	assert_string_equal(tc->traced.out, "20 rounds, sum 840\n");
	premise = strstr(tc->traced.err, "same address in ");
	if (!premise || sscanf(premise, "same address in %d of", &same) != 1 || same < 1)
		fail_msg("the libraries were never loaded at one address (the test's premise):\n%s",
			 tc->traced.err);
	tr_symbolize(tc, NULL);
	load_model(tc, md);
	/* lib_entry, called through a pointer, records itself only where the
	 * library is instrumented. */
	names_a[0] = inst ? "lib_entry" : "liba_self";
	names_a[1] = inst ? "liba_self" : NULL;
	names_a[2] = NULL;
	names_b[0] = inst ? "lib_entry" : "libb_self";
	names_b[1] = inst ? "libb_self" : NULL;
	names_b[2] = NULL;
	expect_loads(md, "a", names_a);
	expect_loads(md, "b", names_b);
	expect_replay_lines(tc->replay.out, "liba_self", ROUNDS);
	expect_replay_lines(tc->replay.out, "libb_self", ROUNDS);
	expect_replay_lines(tc->replay.out, "lib_entry", inst ? 2 * ROUNDS : 0);
	free(md);
	tr_pass(tc);
}

static void instrumented_libraries_swapped_at_one_address_fentry(void **state)
{
	swap_libraries(*state, "--ada-mode=fentry", true);
}

static void instrumented_libraries_swapped_at_one_address_cyg(void **state)
{
	swap_libraries(*state, "--ada-mode=cyg", true);
}

static void plain_libraries_swapped_at_one_address_fentry(void **state)
{
	swap_libraries(*state, "--ada-mode=fentry", false);
}

static void plain_libraries_swapped_at_one_address_cyg(void **state)
{
	swap_libraries(*state, "--ada-mode=cyg", false);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(instrumented_libraries_swapped_at_one_address_fentry),
		T(instrumented_libraries_swapped_at_one_address_cyg),
		T(plain_libraries_swapped_at_one_address_fentry),
		T(plain_libraries_swapped_at_one_address_cyg),
	};
#undef T

	tr_scrub_environment();
	/* The dynamic hooks record the plain libraries' calls, and their pass
	 * after each dlopen and dlclose names every load. */
	setenv("ADA_DYNHOOK", "on", 1);
	return cmocka_run_group_tests_name("modules", tests, NULL, NULL);
}
