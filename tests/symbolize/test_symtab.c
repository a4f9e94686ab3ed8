/* test_symtab.c - the function table against binaries compiled at test time
 * from tests/symbolize/fixtures/ (gcc, g++, clang when installed), so that
 * every expected fact comes from a known source and known link options.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symtab.h"

#define FIXTURES ADA_ROOT "/tests/symbolize/fixtures"
#define BUILD_ID_HEX "0123456789abcdef0123456789abcdef01234567"

static const uint8_t build_id[20] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
				      0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
				      0xcd, 0xef, 0x01, 0x23, 0x45, 0x67 };

static char tmpdir[] = "/tmp/ada-test-symtab-XXXXXX";

/* ---- helpers ------------------------------------------------------------- */

static int __attribute__((format(printf, 1, 2))) sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static const char *out_path(const char *name)
{
	static char buf[4][256];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

static struct ada_symtab *load(const char *name)
{
	struct ada_symtab *st = NULL;

	assert_int_equal(ada_symtab_load(out_path(name), &st), 0);
	assert_non_null(st);
	return st;
}

static long find(const struct ada_symtab *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->nfuncs; i++)
		if (!strcmp(st->funcs[i].name, name))
			return (long)i;
	return -1;
}

static long find_ok(const struct ada_symtab *st, const char *name)
{
	long i = find(st, name);

	if (i < 0)
		fail_msg("no function %s in %s", name, st->path);
	return i;
}

/* 1-based line of the first line of a fixture starting with prefix. */
static uint32_t line_of(const char *fixture, const char *prefix)
{
	char path[512], buf[512];
	uint32_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), FIXTURES "/%s", fixture);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (!strncmp(buf, prefix, strlen(prefix))) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("%s: no line starts with %s", fixture, prefix);
	return 0;
}

/* Compiled from the temporary directory: with the source outside the
 * compilation directory, clang's DWARF 5 names it by file index 0, which
 * DWARF 4 reserved for "no file" and libdw 0.188 still reads that way. */
static void build_app(const char *cc, const char *out, const char *flags)
{
	assert_int_equal(sh("cd %s && %s -O0 %s -o %s " FIXTURES "/app.c "
			    "-Wl,--build-id=0x" BUILD_ID_HEX, tmpdir, cc, flags, out), 0);
}

/* ---- fixtures ------------------------------------------------------------ */

static int build_fixtures(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	build_app("gcc", "app", "-no-pie");
	/* -O2: a function's first line-table row is then a line of its body,
	 * not its declaration, so the tests see which one was read. */
	build_app("gcc", "app_dwarf4", "-O2 -g -gdwarf-4");
	build_app("gcc", "app_dwarf5", "-O2 -g -gdwarf-5");
	/* A stripped program whose .symtab and DWARF live in app.debug. */
	assert_int_equal(sh("cd %s && objcopy --only-keep-debug app_dwarf5 app.debug && "
			    "strip -o app_stripped app_dwarf5 && "
			    "objcopy --add-gnu-debuglink=app.debug app_stripped", tmpdir), 0);
	assert_int_equal(sh("gcc -O0 -fPIC -shared -o %s " FIXTURES "/lib.c", out_path("lib.so")), 0);
	assert_int_equal(sh("strip -o %s %s", out_path("lib_stripped.so"), out_path("lib.so")), 0);
	assert_int_equal(sh("g++ -O0 -o %s " FIXTURES "/klass.cpp", out_path("klass")), 0);
	assert_int_equal(sh("gcc -c -o %s " FIXTURES "/lib.c", out_path("lib.o")), 0);
	assert_int_equal(sh("gcc -shared -nostdlib -o %s " FIXTURES "/overlap.S",
			    out_path("overlap.so")), 0);
	return 0;
}

static int remove_fixtures(void **state)
{
	(void)state;
	return sh("rm -rf %s", tmpdir) ? -1 : 0;
}

/* ---- symbols ------------------------------------------------------------- */

static void test_load_sorts_functions_by_address_in_dense_order(void **state)
{
	struct ada_symtab *st = load("app");
	long first = find_ok(st, "fixture_first");
	size_t i;

	(void)state;
	for (i = 1; i < st->nfuncs; i++)
		assert_true(st->funcs[i - 1].addr < st->funcs[i].addr);
	/* -O0 lays functions out in definition order, aliases take no slot. */
	assert_int_equal(find(st, "fixture_static"), first + 1);
	assert_int_equal(find(st, "fixture_target"), first + 2);
	assert_int_equal(find(st, "fx_short"), first + 3);
	assert_int_equal(find(st, "fx_global"), first + 4);
	assert_int_equal(find(st, "fixture_public"), first + 5);
	assert_int_equal(find(st, "main"), first + 6);
	assert_int_equal(st->machine, 62 /* EM_X86_64 */);
	ada_symtab_free(st);
}

static void test_load_keeps_static_functions_and_skips_objects(void **state)
{
	struct ada_symtab *st = load("app");
	long i = find_ok(st, "fixture_static");

	(void)state;
	assert_true(st->funcs[i].size > 0);
	assert_false(st->funcs[i].synthetic);
	assert_null(st->funcs[i].demangled);
	assert_int_equal(find(st, "fixture_data"), -1);
	ada_symtab_free(st);
}

static void test_load_collapses_aliases_to_preferred_name(void **state)
{
	struct ada_symtab *st = load("app");

	(void)state;
	assert_int_equal(find(st, "fixture_weak_alias"), -1); /* global beats weak */
	assert_int_equal(find(st, "fixture_long_name"), -1);  /* shorter of two globals */
	assert_int_equal(find(st, "fixture_local"), -1);      /* global beats local */
	assert_int_equal(find(st, "__fixture_impl"), -1);     /* public beats reserved */
	find_ok(st, "fixture_public");
	ada_symtab_free(st);
}

static void test_load_relocatable_object_is_rejected(void **state)
{
	struct ada_symtab *st = (void *)1;

	(void)state;
	assert_int_equal(ada_symtab_load(out_path("lib.o"), &st), -ENOEXEC);
	assert_null(st);
}

static void test_load_missing_file_returns_enoent(void **state)
{
	struct ada_symtab *st = (void *)1;
	uint8_t id[32];

	(void)state;
	assert_int_equal(ada_symtab_load(out_path("no-such-file"), &st), -ENOENT);
	assert_null(st);
	assert_int_equal(ada_elf_build_id(out_path("no-such-file"), id), -ENOENT);
}

static void test_load_non_elf_file_returns_error(void **state)
{
	struct ada_symtab *st = (void *)1;
	uint8_t id[32];

	(void)state;
	assert_int_equal(ada_symtab_load(FIXTURES "/app.c", &st), -ENOEXEC);
	assert_null(st);
	assert_int_equal(ada_elf_build_id(FIXTURES "/app.c", id), -ENOEXEC);
}

/* ---- lookup -------------------------------------------------------------- */

static void test_lookup_finds_function_at_first_and_inner_byte(void **state)
{
	struct ada_symtab *st = load("app");
	long i = find_ok(st, "fixture_target");
	const struct ada_func *f = &st->funcs[i];

	(void)state;
	assert_int_equal(ada_symtab_lookup(st, f->addr), i);
	assert_int_equal(ada_symtab_lookup(st, f->addr + 1), i);
	assert_int_equal(ada_symtab_lookup(st, f->addr + f->size - 1), i);
	assert_int_not_equal(ada_symtab_lookup(st, f->addr + f->size), i);
	ada_symtab_free(st);
}

static void test_lookup_of_nested_symbols_picks_innermost_holder(void **state)
{
	struct ada_symtab *st = load("overlap.so");
	long outer = find_ok(st, "outer"), inner = find_ok(st, "inner");
	uint64_t base = st->funcs[outer].addr;

	(void)state;
	assert_int_equal(st->funcs[inner].addr, base + 4);
	assert_int_equal(ada_symtab_lookup(st, base + 3), outer);
	assert_int_equal(ada_symtab_lookup(st, base + 4), inner);
	assert_int_equal(ada_symtab_lookup(st, base + 7), inner);
	assert_int_equal(ada_symtab_lookup(st, base + 8), outer);
	assert_int_equal(ada_symtab_lookup(st, base + 15), outer);
	assert_int_equal(ada_symtab_lookup(st, base + 16), -1);
	ada_symtab_free(st);
}

/* One past a function; a size-0 symbol covers its first byte only. */
static uint64_t end_of(const struct ada_func *f)
{
	return f->addr + (f->size ? f->size : 1);
}

/* Index of the first function followed by a gap (alignment padding, or
 * the end of the table), whose first byte belongs to no function. */
static size_t gap_after(const struct ada_symtab *st)
{
	size_t i;

	for (i = 0; i + 1 < st->nfuncs; i++)
		if (end_of(&st->funcs[i]) < st->funcs[i + 1].addr)
			return i;
	return st->nfuncs - 1;
}

static void test_lookup_outside_functions_returns_minus_one(void **state)
{
	struct ada_symtab *st = load("app");
	const struct ada_func *g = &st->funcs[gap_after(st)];
	const struct ada_func *last = &st->funcs[st->nfuncs - 1];

	(void)state;
	assert_int_equal(ada_symtab_lookup(st, 0), -1);
	assert_int_equal(ada_symtab_lookup(st, st->funcs[0].addr - 1), -1);
	assert_int_equal(ada_symtab_lookup(st, end_of(g)), -1);
	assert_int_equal(ada_symtab_lookup(st, end_of(last) + 0x1000), -1);
	ada_symtab_free(st);
}

/* ---- synthetic entries --------------------------------------------------- */

static void test_add_synthetic_shifts_indices_and_names_by_offset(void **state)
{
	struct ada_symtab *st = load("app");
	size_t gap = gap_after(st), n = st->nfuncs;
	uint64_t in_gap = end_of(&st->funcs[gap]);
	long main_before = find_ok(st, "main");
	char name[64];

	(void)state;
	ada_symtab_add_synthetic(st, 0x10, NULL);
	ada_symtab_add_synthetic(st, in_gap, NULL);
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	assert_int_equal(st->nfuncs, n + 2);

	assert_true(st->funcs[0].synthetic);
	assert_string_equal(st->funcs[0].name, "app+0x10");
	assert_int_equal(st->funcs[0].size, 0);
	assert_int_equal(st->funcs[gap + 2].addr, in_gap);
	assert_true(st->funcs[gap + 2].synthetic);
	snprintf(name, sizeof(name), "app+0x%llx", (unsigned long long)in_gap);
	assert_string_equal(st->funcs[gap + 2].name, name);
	assert_int_equal(find(st, "main"), main_before + (gap + 1 <= (size_t)main_before ? 2 : 1));
	/* A synthetic entry covers its own address only. */
	assert_int_equal(ada_symtab_lookup(st, in_gap), gap + 2);
	assert_int_equal(ada_symtab_lookup(st, 0x11), -1);
	ada_symtab_free(st);
}

static void test_add_synthetic_ignores_known_and_repeated_addresses(void **state)
{
	struct ada_symtab *st = load("app");
	long i = find_ok(st, "fixture_first");
	size_t k, n = st->nfuncs;

	(void)state;
	ada_symtab_add_synthetic(st, st->funcs[i].addr + 1, NULL);
	for (k = 0; k < 1000; k++)
		ada_symtab_add_synthetic(st, 0x20 + (k % 3), NULL);
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	assert_int_equal(st->nfuncs, n + 3);
	assert_string_equal(st->funcs[2].name, "app+0x22");
	ada_symtab_free(st);
}

static void test_add_synthetic_named_takes_the_name_and_demangles_it(void **state)
{
	struct ada_symtab *st = load("app");
	size_t gap = gap_after(st), n = st->nfuncs;
	uint64_t in_gap = end_of(&st->funcs[gap]);

	(void)state;
	ada_symtab_add_synthetic(st, in_gap, "strlen");
	ada_symtab_add_synthetic(st, 0x10, "_ZN2ns3fooEv");
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	assert_int_equal(st->nfuncs, n + 2);
	assert_int_equal(st->funcs[0].addr, 0x10);
	assert_string_equal(st->funcs[0].name, "_ZN2ns3fooEv");
	assert_string_equal(st->funcs[0].demangled, "ns::foo()");
	assert_true(st->funcs[0].synthetic);
	assert_int_equal(st->funcs[gap + 2].addr, in_gap);
	assert_string_equal(st->funcs[gap + 2].name, "strlen");
	assert_null(st->funcs[gap + 2].demangled);
	assert_int_equal(st->funcs[gap + 2].size, 0);
	assert_true(st->funcs[gap + 2].synthetic);
	assert_int_equal(ada_symtab_lookup(st, in_gap), gap + 2);
	ada_symtab_free(st);
}

static void test_add_synthetic_named_keeps_a_real_symbols_name(void **state)
{
	struct ada_symtab *st = load("app");
	long t = find_ok(st, "fixture_target");
	size_t n = st->nfuncs;

	(void)state;
	ada_symtab_add_synthetic(st, st->funcs[t].addr, "other_name");
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	assert_int_equal(st->nfuncs, n);
	assert_string_equal(st->funcs[t].name, "fixture_target");
	assert_false(st->funcs[t].synthetic);
	assert_int_equal(find(st, "other_name"), -1);
	ada_symtab_free(st);
}

/* A named entry point no symbol starts at, inside another function's range,
 * gets an entry of its own; the rest of the range stays the function's. */
static void test_add_synthetic_named_inside_a_function_gets_its_own_entry(void **state)
{
	struct ada_symtab *st = load("app");
	long t = find_ok(st, "fixture_target");
	uint64_t start = st->funcs[t].addr;
	size_t n = st->nfuncs;

	(void)state;
	assert_true(st->funcs[t].size > 2);
	ada_symtab_add_synthetic(st, start + 1, "alt_entry");
	ada_symtab_add_synthetic(st, start + 2, NULL); /* unnamed: fixture_target holds it */
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	assert_int_equal(st->nfuncs, n + 1);
	assert_string_equal(st->funcs[t].name, "fixture_target");
	assert_int_equal(st->funcs[t + 1].addr, start + 1);
	assert_string_equal(st->funcs[t + 1].name, "alt_entry");
	assert_true(st->funcs[t + 1].synthetic);
	assert_int_equal(ada_symtab_lookup(st, start), t);
	assert_int_equal(ada_symtab_lookup(st, start + 1), t + 1);
	assert_int_equal(ada_symtab_lookup(st, start + 2), t);
	assert_int_equal(ada_symtab_lookup(st, start + st->funcs[t].size - 1), t);
	ada_symtab_free(st);
}

/* Per address: a name beats none, and the first name given stands, also
 * across the deduplication that runs while pending entries pile up. */
static void test_add_synthetic_keeps_the_first_name_of_an_address(void **state)
{
	struct ada_symtab *st = load("app");
	size_t k, n = st->nfuncs;

	(void)state;
	ada_symtab_add_synthetic(st, 0x20, NULL);
	ada_symtab_add_synthetic(st, 0x20, "first");
	ada_symtab_add_synthetic(st, 0x20, "second");
	ada_symtab_add_synthetic(st, 0x20, NULL);
	for (k = 0; k < 1000; k++)
		ada_symtab_add_synthetic(st, 0x30 + k % 3, k < 500 ? NULL : k < 600 ? "early" : "late");
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	assert_int_equal(st->nfuncs, n + 4);
	assert_string_equal(st->funcs[0].name, "first");
	assert_string_equal(st->funcs[1].name, "early");
	assert_string_equal(st->funcs[2].name, "early");
	assert_string_equal(st->funcs[3].name, "early");
	assert_int_equal(st->funcs[3].addr, 0x32);
	ada_symtab_free(st);
}

/* ---- build-id ------------------------------------------------------------ */

static void test_build_id_matches_linker_option(void **state)
{
	struct ada_symtab *st = load("app_dwarf5");
	uint8_t id[32];

	(void)state;
	assert_int_equal(st->build_id_len, sizeof(build_id));
	assert_memory_equal(st->build_id, build_id, sizeof(build_id));
	assert_int_equal(ada_elf_build_id(out_path("app"), id), sizeof(build_id));
	assert_memory_equal(id, build_id, sizeof(build_id));
	ada_symtab_free(st);
}

/* ---- DWARF --------------------------------------------------------------- */

/* fixture_target's declaration line and file, as the compiler recorded the
 * source path it was given. */
static void assert_decl_line(const char *binary)
{
	struct ada_symtab *st = load(binary);
	long t, s;

	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	t = find_ok(st, "fixture_target");
	assert_string_equal(st->funcs[t].file, FIXTURES "/app.c");
	assert_int_equal(st->funcs[t].line, line_of("app.c", "int fixture_target("));
	s = find_ok(st, "fixture_static");
	assert_int_equal(st->funcs[s].line, line_of("app.c", "static int __attribute__"));
	assert_int_equal(st->funcs[find_ok(st, "main")].line, line_of("app.c", "int main("));
	ada_symtab_free(st);
}

static void test_gcc_dwarf4_gives_declaration_line(void **state)
{
	(void)state;
	assert_decl_line("app_dwarf4");
}

static void test_gcc_dwarf5_gives_declaration_line(void **state)
{
	(void)state;
	assert_decl_line("app_dwarf5");
}

static void clang_case(const char *out, const char *flags)
{
	if (sh("command -v clang >/dev/null 2>&1"))
		skip();
	build_app("clang", out, flags);
	assert_decl_line(out);
}

static void test_clang_dwarf4_gives_declaration_line(void **state)
{
	(void)state;
	clang_case("app_clang4", "-O2 -g -gdwarf-4");
}

static void test_clang_dwarf5_gives_declaration_line(void **state)
{
	(void)state;
	clang_case("app_clang5", "-O2 -g -gdwarf-5");
}

static void test_finalize_fills_only_wanted_entries(void **state)
{
	struct ada_symtab *st = load("app_dwarf5");
	long t = find_ok(st, "fixture_target"), m = find_ok(st, "main");
	uint64_t want = st->funcs[t].addr + 2; /* any address inside counts */

	(void)state;
	assert_int_equal(ada_symtab_finalize(st, &want, 1), 0);
	assert_non_null(st->funcs[t].file);
	assert_int_equal(st->funcs[t].line, line_of("app.c", "int fixture_target("));
	assert_null(st->funcs[m].file);
	assert_int_equal(st->funcs[m].line, 0);
	ada_symtab_free(st);
}

static void test_no_debug_info_leaves_file_empty(void **state)
{
	struct ada_symtab *st = load("app");
	size_t i;

	(void)state;
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	for (i = 0; i < st->nfuncs; i++) {
		assert_null(st->funcs[i].file);
		assert_int_equal(st->funcs[i].line, 0);
	}
	ada_symtab_free(st);
}

static void test_stripped_binary_reads_its_debuglink_file(void **state)
{
	struct ada_symtab *st = load("app_stripped");
	long s;

	(void)state;
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	s = find_ok(st, "fixture_static"); /* only the debug file's .symtab has it */
	assert_string_equal(st->funcs[s].file, FIXTURES "/app.c");
	assert_int_equal(st->funcs[s].line, line_of("app.c", "static int __attribute__"));
	assert_memory_equal(st->build_id, build_id, sizeof(build_id));
	ada_symtab_free(st);
}

/* ---- C++ and shared libraries -------------------------------------------- */

static void test_cxx_names_are_demangled(void **state)
{
	struct ada_symtab *st = load("klass");
	long i = find_ok(st, "_ZN2ns5Klass6methodEi");

	(void)state;
	assert_string_equal(st->funcs[i].demangled, "ns::Klass::method(int)");
	assert_null(st->funcs[find_ok(st, "main")].demangled);
	ada_symtab_free(st);
}

static void test_stripped_library_falls_back_to_dynsym(void **state)
{
	struct ada_symtab *full = load("lib.so");
	struct ada_symtab *st = load("lib_stripped.so");
	long e = find_ok(st, "lib_exported");

	(void)state;
	find_ok(full, "lib_static");
	find_ok(full, "lib_hidden");
	assert_int_equal(find(st, "lib_static"), -1);
	assert_int_equal(find(st, "lib_hidden"), -1);
	assert_int_equal(st->funcs[e].addr, full->funcs[find_ok(full, "lib_exported")].addr);
	assert_int_equal(ada_symtab_lookup(st, st->funcs[e].addr + 1), e);
	ada_symtab_free(st);
	ada_symtab_free(full);
}

/* ---- hash ---------------------------------------------------------------- */

static void test_hash_of_empty_table_is_fnv_offset_basis(void **state)
{
	struct ada_symtab empty = { 0 };
	char hash[17];

	(void)state;
	ada_symtab_hash(&empty, hash);
	assert_string_equal(hash, "cbf29ce484222325");
}

static void test_hash_is_stable_across_loads_and_changes_with_entries(void **state)
{
	struct ada_symtab *a = load("app"), *b = load("app");
	char ha[17], hb[17];

	(void)state;
	ada_symtab_hash(a, ha);
	ada_symtab_hash(b, hb);
	assert_int_equal(strlen(ha), 16);
	assert_string_equal(ha, hb);
	ada_symtab_add_synthetic(b, 0x10, NULL);
	assert_int_equal(ada_symtab_finalize(b, NULL, 0), 0);
	ada_symtab_hash(b, hb);
	assert_string_not_equal(ha, hb);
	ada_symtab_free(a);
	ada_symtab_free(b);
}

/* FNV-1a of (0x1000 LE, 0 LE, "jit\0"): the name given is what is hashed. */
static void test_hash_of_a_named_synthetic_entry_hashes_its_name(void **state)
{
	struct ada_symtab *named = ada_symtab_empty("[unmapped]");
	struct ada_symtab *plain = ada_symtab_empty("[unmapped]");
	char hash[17];

	(void)state;
	assert_non_null(named);
	assert_non_null(plain);
	ada_symtab_add_synthetic(named, 0x1000, "jit");
	ada_symtab_add_synthetic(plain, 0x1000, NULL);
	assert_int_equal(ada_symtab_finalize(named, NULL, 0), 0);
	assert_int_equal(ada_symtab_finalize(plain, NULL, 0), 0);
	ada_symtab_hash(named, hash);
	assert_string_equal(hash, "7431598019cfaef8");
	assert_string_equal(plain->funcs[0].name, "[unmapped]+0x1000");
	ada_symtab_hash(plain, hash);
	assert_string_equal(hash, "f0116fe12fd9747d");
	ada_symtab_free(named);
	ada_symtab_free(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_sorts_functions_by_address_in_dense_order),
		cmocka_unit_test(test_load_keeps_static_functions_and_skips_objects),
		cmocka_unit_test(test_load_collapses_aliases_to_preferred_name),
		cmocka_unit_test(test_load_relocatable_object_is_rejected),
		cmocka_unit_test(test_load_missing_file_returns_enoent),
		cmocka_unit_test(test_load_non_elf_file_returns_error),
		cmocka_unit_test(test_lookup_finds_function_at_first_and_inner_byte),
		cmocka_unit_test(test_lookup_outside_functions_returns_minus_one),
		cmocka_unit_test(test_lookup_of_nested_symbols_picks_innermost_holder),
		cmocka_unit_test(test_add_synthetic_shifts_indices_and_names_by_offset),
		cmocka_unit_test(test_add_synthetic_ignores_known_and_repeated_addresses),
		cmocka_unit_test(test_add_synthetic_named_takes_the_name_and_demangles_it),
		cmocka_unit_test(test_add_synthetic_named_keeps_a_real_symbols_name),
		cmocka_unit_test(test_add_synthetic_named_inside_a_function_gets_its_own_entry),
		cmocka_unit_test(test_add_synthetic_keeps_the_first_name_of_an_address),
		cmocka_unit_test(test_build_id_matches_linker_option),
		cmocka_unit_test(test_gcc_dwarf4_gives_declaration_line),
		cmocka_unit_test(test_gcc_dwarf5_gives_declaration_line),
		cmocka_unit_test(test_clang_dwarf4_gives_declaration_line),
		cmocka_unit_test(test_clang_dwarf5_gives_declaration_line),
		cmocka_unit_test(test_finalize_fills_only_wanted_entries),
		cmocka_unit_test(test_no_debug_info_leaves_file_empty),
		cmocka_unit_test(test_stripped_binary_reads_its_debuglink_file),
		cmocka_unit_test(test_cxx_names_are_demangled),
		cmocka_unit_test(test_stripped_library_falls_back_to_dynsym),
		cmocka_unit_test(test_hash_of_empty_table_is_fnv_offset_basis),
		cmocka_unit_test(test_hash_is_stable_across_loads_and_changes_with_entries),
		cmocka_unit_test(test_hash_of_a_named_synthetic_entry_hashes_its_name),
	};

	return cmocka_run_group_tests(tests, build_fixtures, remove_fixtures);
}
