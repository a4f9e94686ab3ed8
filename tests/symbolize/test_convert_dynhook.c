/* test_convert_dynhook.c - a trace of the dynamic-hook fallback converts with
 * the names and totals its HOOKED and DYNHOOK records give:
 *   - a function of a stripped library that no symbol starts at (an IFUNC
 *     implementation) takes the name the caller used for it, in the symbol
 *     list and in the module's function_table_hash;
 *   - a function a real symbol starts at keeps the symbol's name;
 *   - an address with no HOOKED record keeps its "<module>+0x<vaddr>" name;
 *   - the library, which imports no instrumentation hook, has mode "plt",
 *     also when it defines the hooks as libc.so.6 does; an executable that
 *     defines them holds the static runtime;
 *   - "dynamic_hooks" holds the last DYNHOOK record's totals, milliseconds
 *     with three decimals, and is absent when the trace has no such record.
 *
 * Built by hand around an executable and a stripped library compiled here,
 * like test_convert_detail.c: process.meta as the runtime writes it, the
 * thread file from the runtime's encoder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "check.h"
#include "convert.h"
#include "json.h"
#include "raw_fixture.h"
#include "symtab.h"

#define PID 4242
#define EXE_BIAS 0x555555554000ull
#define LIB_BIAS 0x7f0000000000ull
#define JIT_ADDR 0x10000ull       /* in no module */
#define BOOT_NS 5000000000ull

static const char prog_src[] = "int main(void) { return 0; }\n";

/* The three hooks, defined: libc.so.6 has them all (gprof's mcount,
 * __fentry__, no-op __cyg_profile_func_*), and so has an executable linked
 * with the static runtime (adacc --ada-static), which exports them. */
#define HOOK_DEFS                                                              \
	"void mcount(void) {}\n"                                               \
	"void __fentry__(void) {}\n"                                           \
	"void __cyg_profile_func_enter(void *f, void *s) { (void)f, (void)s; }\n"

static const char static_prog_src[] = HOOK_DEFS "int main(void) { return 0; }\n";

/* After strip only `exported` and the hooks are left, in .dynsym: impl_avx2
 * stands for an IFUNC implementation (HOOKED names it), helper for any
 * unnamed function. */
static const char lib_src[] = HOOK_DEFS
	"static int __attribute__((noinline, used)) impl_avx2(int x) { return x * 3; }\n"
	"static int __attribute__((noinline, used)) helper(int x) { return x + 1; }\n"
	"int exported(int x) { return impl_avx2(helper(x)); }\n";

enum { F_MAIN, F_EXPORTED, F_IMPL, F_HELPER, F_JIT, NF };
enum { EXE_FENTRY, EXE_STATIC, NEXE };

/* The last DYNHOOK record of the main trace; an earlier one comes first. */
static const struct ada_meta_dynhook dyn_first = {
	.modules = 1, .slots = 12, .functions = 2, .excluded = 0, .untraceable = 1,
	.passes = 1, .startup_ns = 1234567, .total_ns = 1234567
};
static const struct ada_meta_dynhook dyn_last = {
	.modules = 1, .slots = 57, .functions = 3, .excluded = 2, .untraceable = 5,
	.passes = 2, .startup_ns = 1234567, .total_ns = 2000000999
};
static const struct ada_meta_dynhook dyn_small = {
	.modules = 4294967295u, .slots = 0, .functions = 0, .excluded = 0, .untraceable = 0,
	.passes = 1, .startup_ns = 499, .total_ns = 999500
};

struct exe {
	char path[192];
	uint8_t id[32];
	uint32_t id_len;
	uint64_t main_addr;       /* process address */
};

struct world {
	char root[64];
	char session[128];
	char pid_dir[160];
	struct exe exe[NEXE];
	const struct exe *cur;    /* the executable of the trace being made */
	char lib[192];
	uint64_t addr[NF];        /* process addresses of the functions */
	uint64_t lib_vaddr[NF];   /* ELF addresses, for the library's */
	uint8_t lib_id[32];
	uint32_t lib_id_len;
	struct rf_meta meta;
};

static struct world *w;

/* ---- the binaries ------------------------------------------------------------------ */

static uint64_t vaddr_of(const struct ada_symtab *st, const char *name)
{
	for (size_t i = 0; i < st->nfuncs; i++)
		if (!strcmp(st->funcs[i].name, name))
			return st->funcs[i].addr;
	fail_msg("no function %s in %s", name, st->path);
	return 0;
}

static void build_exe(struct exe *e, const char *name, const char *text, const char *flags)
{
	char src[200], cmd[1024];
	struct ada_symtab *st;

	snprintf(src, sizeof(src), "%s/%s.c", w->root, name);
	rf_write_file(src, text, strlen(text));
	snprintf(e->path, sizeof(e->path), "%s/%s", w->root, name);
	snprintf(cmd, sizeof(cmd), "gcc -O0 %s -Wl,--build-id=sha1 -o %s %s", flags, e->path, src);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ada_symtab_load(e->path, &st), 0);
	e->main_addr = EXE_BIAS + vaddr_of(st, "main");
	e->id_len = st->build_id_len;
	memcpy(e->id, st->build_id, sizeof(e->id));
	ada_symtab_free(st);
	assert_true(e->id_len > 0);
}

static void build(void)
{
	char src[200], full[200], cmd[1024];
	struct ada_symtab *st;

	/* In fentry mode it imports __fentry__; -rdynamic exports the hooks
	 * the other defines, as --ada-static does. */
	build_exe(&w->exe[EXE_FENTRY], "prog", prog_src, "-pg -mfentry");
	build_exe(&w->exe[EXE_STATIC], "prog_static", static_prog_src, "-rdynamic");

	/* The library as gcc builds it, then stripped: the one that "ran". */
	snprintf(src, sizeof(src), "%s/lib.c", w->root);
	rf_write_file(src, lib_src, sizeof(lib_src) - 1);
	snprintf(full, sizeof(full), "%s/libdyn_full.so", w->root);
	snprintf(w->lib, sizeof(w->lib), "%s/libdyn.so", w->root);
	snprintf(cmd, sizeof(cmd), "gcc -O0 -fPIC -shared -Wl,--build-id=sha1 -o %s %s && strip -o %s %s",
		 full, src, w->lib, full);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ada_symtab_load(full, &st), 0);
	w->lib_vaddr[F_EXPORTED] = vaddr_of(st, "exported");
	w->lib_vaddr[F_IMPL] = vaddr_of(st, "impl_avx2");
	w->lib_vaddr[F_HELPER] = vaddr_of(st, "helper");
	ada_symtab_free(st);
	for (int f = F_EXPORTED; f <= F_HELPER; f++)
		w->addr[f] = LIB_BIAS + w->lib_vaddr[f];
	w->addr[F_JIT] = JIT_ADDR;

	assert_int_equal(ada_symtab_load(w->lib, &st), 0);
	assert_int_equal(ada_symtab_lookup(st, w->lib_vaddr[F_IMPL]), -1); /* stripped */
	assert_int_equal(ada_symtab_lookup(st, w->lib_vaddr[F_HELPER]), -1);
	w->lib_id_len = st->build_id_len;
	memcpy(w->lib_id, st->build_id, sizeof(w->lib_id));
	ada_symtab_free(st);
	assert_true(w->lib_id_len > 0);
}

/* ---- a pid directory: process.meta and thread_0.lz4 -------------------------------- */

static void hooked(uint64_t addr, const char *name)
{
	struct ada_meta_hooked h = { .addr = addr };

	rf_meta_record(&w->meta, ADA_META_HOOKED, &h, sizeof(h), name, strlen(name) + 1);
}

static void module(uint32_t no, uint64_t bias, const uint8_t *id, uint32_t id_len, const char *path)
{
	struct ada_meta_module m = { .module_no = no, .build_id_len = id_len, .bias = bias,
				     .vaddr_lo = 0, .vaddr_hi = 0x100000, .load_tsc = 1 + no };

	memcpy(m.build_id, id, sizeof(m.build_id));
	rf_meta_record(&w->meta, ADA_META_MODULE, &m, sizeof(m), path, strlen(path) + 1);
}

/* `dyn`: the DYNHOOK records, in order (none when n == 0); with_hooked:
 * the HOOKED records too. */
static void write_meta(const char *raw, const struct ada_meta_dynhook *const *dyn, size_t n,
		       bool with_hooked)
{
	struct ada_meta_process p = { .pid = PID, .ppid = 1, .start_boottime_ns = BOOT_NS };
	struct ada_meta_clock c0 = { 0, BOOT_NS, 10 }, c1 = { 1000000, BOOT_NS + 1000000, 10 };
	struct ada_meta_funcs fs = { 1, NF };
	struct ada_meta_thread t0 = { .ordinal = 0, .os_tid = PID, .name = "prog" };
	struct ada_meta_end end = { .end_tsc = 1000, .end_boottime_ns = BOOT_NS + 1000 };
	char strings[256], path[300];
	int len;

	/* exe path, then argv: the executable's module has the same path */
	len = snprintf(strings, sizeof(strings), "%s%cprog", w->cur->path, '\0');
	rf_meta_header(&w->meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
	rf_meta_record(&w->meta, ADA_META_PROCESS, &p, sizeof(p), strings, (size_t)len + 1);
	rf_meta_record(&w->meta, ADA_META_CLOCK, &c0, sizeof(c0), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_CLOCK, &c1, sizeof(c1), NULL, 0);
	module(0, EXE_BIAS, w->cur->id, w->cur->id_len, w->cur->path);
	module(1, LIB_BIAS, w->lib_id, w->lib_id_len, w->lib);
	if (n)
		rf_meta_record(&w->meta, ADA_META_DYNHOOK, dyn[0], sizeof(*dyn[0]), NULL, 0);
	if (with_hooked) {
		hooked(w->addr[F_EXPORTED], "exported_alias"); /* a real symbol starts there */
		hooked(w->addr[F_IMPL], "strlen");
		hooked(w->addr[F_JIT], "jit_stub");
	}
	rf_meta_record(&w->meta, ADA_META_FUNCS, &fs, sizeof(fs), w->addr, sizeof(w->addr));
	rf_meta_record(&w->meta, ADA_META_THREAD, &t0, sizeof(t0), NULL, 0);
	for (size_t i = 1; i < n; i++)
		rf_meta_record(&w->meta, ADA_META_DYNHOOK, dyn[i], sizeof(*dyn[i]), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_END, &end, sizeof(end), NULL, 0);
	snprintf(path, sizeof(path), "%s/process.meta", raw);
	rf_write_file(path, w->meta.buf, w->meta.len);
}

/* main → exported → helper, impl_avx2; then the JIT stub. */
static void write_thread0(const char *raw)
{
	static const struct { uint64_t tsc; unsigned kind; int fn; } steps[] = {
		{ 100, ADA_RAW_CALL, F_MAIN },     { 110, ADA_RAW_CALL, F_EXPORTED },
		{ 120, ADA_RAW_CALL, F_HELPER },   { 130, ADA_RAW_RETURN, F_HELPER },
		{ 140, ADA_RAW_CALL, F_IMPL },     { 150, ADA_RAW_RETURN, F_IMPL },
		{ 160, ADA_RAW_RETURN, F_EXPORTED }, { 170, ADA_RAW_CALL, F_JIT },
		{ 180, ADA_RAW_RETURN, F_JIT },    { 190, ADA_RAW_RETURN, F_MAIN },
	};
	struct ada_enc_stream enc = { 0 };
	struct ada_fdict dict;
	struct rf_frame *f = calloc(1, sizeof(*f));
	char path[300];

	assert_non_null(f);
	rf_fdict_init(&dict, w->addr, NF);
	snprintf(path, sizeof(path), "%s/thread_0.lz4", raw);
	rf_sync(f, &enc, steps[0].tsc);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		rf_event(f, &enc, &dict, steps[i].tsc, steps[i].kind, w->addr[steps[i].fn]);
	rf_append(path, f);
	ada_enc_stream_free(&enc);
	ada_fdict_free(&dict);
	free(f);
}

/* session/pid_<pid>/raw with the trace of executable `exe`, converted in place. */
static void make_trace(uint32_t pid, int exe, const struct ada_meta_dynhook *const *dyn, size_t n,
		       bool with_hooked, char *pid_dir, size_t size)
{
	const struct conv_options quiet = { .quiet = true };
	char raw[200];

	w->cur = &w->exe[exe];
	w->addr[F_MAIN] = w->cur->main_addr;
	snprintf(pid_dir, size, "%s/pid_%u", w->session, pid);
	snprintf(raw, sizeof(raw), "%s/raw", pid_dir);
	assert_int_equal(mkdir(pid_dir, 0755), 0);
	assert_int_equal(mkdir(raw, 0755), 0);
	write_meta(raw, dyn, n, with_hooked);
	write_thread0(raw);
	assert_int_equal(convert_process(pid_dir, pid_dir, &quiet), 0);
}

static int setup(void **state)
{
	static const struct ada_meta_dynhook *const dyn[] = { &dyn_first, &dyn_last };

	(void)state;
	w = calloc(1, sizeof(*w));
	strcpy(w->root, "/tmp/ada_test_dynhook_XXXXXX");
	assert_non_null(mkdtemp(w->root));
	snprintf(w->session, sizeof(w->session), "%s/session_20260101_120000", w->root);
	assert_int_equal(mkdir(w->session, 0755), 0);
	build();
	make_trace(PID, EXE_FENTRY, dyn, 2, true, w->pid_dir, sizeof(w->pid_dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rf_remove_tree(w->root);
	free(w);
	return 0;
}

/* ---- reading back ------------------------------------------------------------------- */

static struct json_doc *manifest(const char *pid_dir)
{
	struct json_doc *doc;
	char path[256], err[256] = "";

	snprintf(path, sizeof(path), "%s/manifest.json", pid_dir);
	if (json_parse_file(path, &doc, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	return doc;
}

static char *manifest_text(const char *pid_dir)
{
	char path[256];
	char *text;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/manifest.json", pid_dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return text;
}

static uint64_t u64_of(const struct json_value *obj, const char *key)
{
	uint64_t v = 0;

	if (!json_u64(json_get(obj, key), &v))
		fail_msg("no integer \"%s\"", key);
	return v;
}

/* The library's table as resolve must have made it: the stripped file's
 * symbols plus the two synthetic entries, impl_avx2's named or not. */
static struct ada_symtab *expected_lib_table(const char *impl_name)
{
	struct ada_symtab *st;

	assert_int_equal(ada_symtab_load(w->lib, &st), 0);
	ada_symtab_add_synthetic(st, w->lib_vaddr[F_IMPL], impl_name);
	ada_symtab_add_synthetic(st, w->lib_vaddr[F_HELPER], NULL);
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	return st;
}

static void expect_symbol(const struct json_value *s, uint64_t module_id, const char *name,
			  bool synthetic, uint64_t address)
{
	bool b = false;
	char hex[32];

	assert_int_equal(u64_of(s, "module_id"), module_id);
	assert_string_equal(json_string(json_get(s, "name")), name);
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)address);
	assert_string_equal(json_string(json_get(s, "address")), hex);
	if (synthetic)
		assert_true(json_bool(json_get(s, "synthetic"), &b) && b);
	else
		assert_null(json_get(s, "synthetic"));
}

/* ---- the tests ------------------------------------------------------------------------ */

static void test_dynhook_hooked_names_only_what_no_symbol_starts_at(void **state)
{
	struct json_doc *doc = manifest(w->pid_dir);
	const struct json_value *syms = json_get(json_root(doc), "symbols");
	struct ada_symtab *lib = expected_lib_table("strlen");
	long impl = ada_symtab_lookup(lib, w->lib_vaddr[F_IMPL]);
	long helper = ada_symtab_lookup(lib, w->lib_vaddr[F_HELPER]);
	long exported = ada_symtab_lookup(lib, w->lib_vaddr[F_EXPORTED]);
	char name[64], id[32];

	(void)state;
	assert_int_equal(json_count(syms), NF);
	expect_symbol(json_at(syms, F_MAIN), 1, "main", false,
		      w->exe[EXE_FENTRY].main_addr - EXE_BIAS);
	expect_symbol(json_at(syms, F_EXPORTED), 2, "exported", false, w->lib_vaddr[F_EXPORTED]);
	expect_symbol(json_at(syms, F_IMPL), 2, "strlen", true, w->lib_vaddr[F_IMPL]);
	snprintf(name, sizeof(name), "libdyn.so+0x%llx", (unsigned long long)w->lib_vaddr[F_HELPER]);
	expect_symbol(json_at(syms, F_HELPER), 2, name, true, w->lib_vaddr[F_HELPER]);
	expect_symbol(json_at(syms, F_JIT), 3, "jit_stub", true, JIT_ADDR);
	/* Indices in the table the names went into. */
	snprintf(id, sizeof(id), "0x00000002%08lx", (unsigned long)impl + 1);
	assert_string_equal(json_string(json_get(json_at(syms, F_IMPL), "function_id")), id);
	snprintf(id, sizeof(id), "0x00000002%08lx", (unsigned long)helper + 1);
	assert_string_equal(json_string(json_get(json_at(syms, F_HELPER), "function_id")), id);
	snprintf(id, sizeof(id), "0x00000002%08lx", (unsigned long)exported + 1);
	assert_string_equal(json_string(json_get(json_at(syms, F_EXPORTED), "function_id")), id);
	assert_string_equal(json_string(json_get(json_at(syms, F_JIT), "function_id")),
			    "0x0000000300000001");
	ada_symtab_free(lib);
	json_free(doc);
}

/* function_table_hash covers the names given: the library's equals the hash
 * of its table with "strlen" in it, not without; the unmapped module's is
 * FNV-1a of (0x10000, 0, "jit_stub\0"). */
static void test_dynhook_function_table_hash_covers_the_names_given(void **state)
{
	struct json_doc *doc = manifest(w->pid_dir);
	const struct json_value *mods = json_get(json_root(doc), "modules");
	struct ada_symtab *named = expected_lib_table("strlen"), *plain = expected_lib_table(NULL);
	char hn[17], hp[17];

	(void)state;
	ada_symtab_hash(named, hn);
	ada_symtab_hash(plain, hp);
	assert_string_not_equal(hn, hp);
	assert_int_equal(json_count(mods), 3);
	assert_string_equal(json_string(json_get(json_at(mods, 1), "function_table_hash")), hn);
	assert_int_equal(u64_of(json_at(mods, 1), "function_count"), named->nfuncs);
	assert_string_equal(json_string(json_get(json_at(mods, 2), "function_table_hash")),
			    "a004c69a333bdf64");
	assert_int_equal(u64_of(json_at(mods, 2), "function_count"), 1);
	ada_symtab_free(named);
	ada_symtab_free(plain);
	json_free(doc);
}

static void test_dynhook_module_without_a_hook_has_mode_plt(void **state)
{
	struct json_doc *doc = manifest(w->pid_dir);
	const struct json_value *mods = json_get(json_root(doc), "modules");

	(void)state;
	assert_int_equal(ada_elf_hooks(w->lib), ADA_HOOK_STATIC); /* it defines them */
	assert_string_equal(json_string(json_get(json_root(doc), "mode")), "fentry");
	assert_string_equal(json_string(json_get(json_at(mods, 0), "path")), w->exe[EXE_FENTRY].path);
	assert_string_equal(json_string(json_get(json_at(mods, 0), "mode")), "fentry");
	assert_string_equal(json_string(json_get(json_at(mods, 1), "path")), w->lib);
	assert_string_equal(json_string(json_get(json_at(mods, 1), "mode")), "plt");
	assert_string_equal(json_string(json_get(json_at(mods, 2), "path")), "[unmapped]");
	assert_string_equal(json_string(json_get(json_at(mods, 2), "mode")), "none");
	json_free(doc);
}

/* The last DYNHOOK record, exactly as written (milliseconds rounded half up). */
static void test_dynhook_manifest_has_the_last_totals(void **state)
{
	static const char block[] =
		"\n  \"dynamic_hooks\": {\n"
		"    \"modules\": 1,\n"
		"    \"slots\": 57,\n"
		"    \"functions\": 3,\n"
		"    \"excluded\": 2,\n"
		"    \"untraceable\": 5,\n"
		"    \"passes\": 2,\n"
		"    \"startup_ms\": 1.235,\n"
		"    \"total_ms\": 2000.001\n"
		"  },\n";
	struct json_doc *doc = manifest(w->pid_dir);
	const struct json_value *d = json_get(json_root(doc), "dynamic_hooks");
	char *text = manifest_text(w->pid_dir);

	(void)state;
	if (!strstr(text, block))
		fail_msg("no dynamic_hooks block as expected in:\n%s", text);
	assert_non_null(d);
	assert_int_equal(d->type, JSON_OBJECT);
	assert_int_equal(d->obj.n, 8);
	assert_int_equal(u64_of(d, "slots"), 57);
	assert_true(json_get(d, "startup_ms")->num.d == 1.235);
	assert_true(json_get(d, "total_ms")->num.d == 2000.001);
	free(text);
	json_free(doc);
}

static void test_dynhook_output_passes_the_validator(void **state)
{
	(void)state;
	rf_expect_valid(w->pid_dir);
}

/* Sub-millisecond totals keep their three decimals; a u32 total stays exact. */
static void test_dynhook_small_totals_keep_three_decimals(void **state)
{
	static const struct ada_meta_dynhook *const dyn[] = { &dyn_small };
	static const char block[] =
		"\n  \"dynamic_hooks\": {\n"
		"    \"modules\": 4294967295,\n"
		"    \"slots\": 0,\n"
		"    \"functions\": 0,\n"
		"    \"excluded\": 0,\n"
		"    \"untraceable\": 0,\n"
		"    \"passes\": 1,\n"
		"    \"startup_ms\": 0.000,\n"
		"    \"total_ms\": 1.000\n"
		"  },\n";
	char pid_dir[160], *text;

	(void)state;
	make_trace(PID + 1, EXE_FENTRY, dyn, 1, true, pid_dir, sizeof(pid_dir));
	text = manifest_text(pid_dir);
	if (!strstr(text, block))
		fail_msg("no dynamic_hooks block as expected in:\n%s", text);
	free(text);
}

/* Without the records: no "dynamic_hooks", synthetic names as before; the
 * library still imports no hook. */
static void test_dynhook_without_records_nothing_is_named_or_totalled(void **state)
{
	struct ada_symtab *plain = expected_lib_table(NULL);
	const struct json_value *syms, *mods;
	struct json_doc *doc;
	char pid_dir[160], name[64], hp[17];

	(void)state;
	make_trace(PID + 2, EXE_FENTRY, NULL, 0, false, pid_dir, sizeof(pid_dir));
	doc = manifest(pid_dir);
	assert_null(json_get(json_root(doc), "dynamic_hooks"));
	syms = json_get(json_root(doc), "symbols");
	snprintf(name, sizeof(name), "libdyn.so+0x%llx", (unsigned long long)w->lib_vaddr[F_IMPL]);
	expect_symbol(json_at(syms, F_IMPL), 2, name, true, w->lib_vaddr[F_IMPL]);
	snprintf(name, sizeof(name), "[unmapped]+0x%llx", JIT_ADDR);
	expect_symbol(json_at(syms, F_JIT), 3, name, true, JIT_ADDR);
	mods = json_get(json_root(doc), "modules");
	ada_symtab_hash(plain, hp);
	assert_string_equal(json_string(json_get(json_at(mods, 1), "function_table_hash")), hp);
	assert_string_equal(json_string(json_get(json_at(mods, 1), "mode")), "plt");
	assert_string_equal(json_string(json_get(json_at(mods, 2), "function_table_hash")),
			    "87de1b638149be60");
	ada_symtab_free(plain);
	json_free(doc);
}

/* The executable defining the hooks holds the static runtime; the library
 * defining them too is still "plt". */
static void test_dynhook_executable_defining_the_hooks_is_the_static_runtime(void **state)
{
	static const struct ada_meta_dynhook *const dyn[] = { &dyn_last };
	const struct json_value *mods;
	struct json_doc *doc;
	char pid_dir[160];

	(void)state;
	assert_int_equal(ada_elf_hooks(w->exe[EXE_STATIC].path), ADA_HOOK_STATIC);
	make_trace(PID + 3, EXE_STATIC, dyn, 1, true, pid_dir, sizeof(pid_dir));
	doc = manifest(pid_dir);
	mods = json_get(json_root(doc), "modules");
	assert_string_equal(json_string(json_get(json_root(doc), "mode")), "static runtime");
	assert_string_equal(json_string(json_get(json_at(mods, 0), "path")), w->exe[EXE_STATIC].path);
	assert_string_equal(json_string(json_get(json_at(mods, 0), "mode")), "static runtime");
	assert_string_equal(json_string(json_get(json_at(mods, 1), "mode")), "plt");
	assert_string_equal(json_string(json_get(json_at(mods, 2), "mode")), "none");
	json_free(doc);
}

#define T(name) cmocka_unit_test(name)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_dynhook_hooked_names_only_what_no_symbol_starts_at),
		T(test_dynhook_function_table_hash_covers_the_names_given),
		T(test_dynhook_module_without_a_hook_has_mode_plt),
		T(test_dynhook_manifest_has_the_last_totals),
		T(test_dynhook_output_passes_the_validator),
		T(test_dynhook_small_totals_keep_three_decimals),
		T(test_dynhook_without_records_nothing_is_named_or_totalled),
		T(test_dynhook_executable_defining_the_hooks_is_the_static_runtime),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
