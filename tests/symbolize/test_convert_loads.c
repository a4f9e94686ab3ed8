/* test_convert_loads.c - a module is an address range and a lifetime.
 *
 * liba.so and libb.so are built from sources of the same shape, so self_a
 * and self_b sit at the same ELF address, and the trace loads one then the
 * other at the same bias: one fid, one address, two functions. Each call
 * must be named after the load that held the address at its tick: the
 * first load until its UNLOAD record, or, in a trace without one (written
 * before UNLOAD existed), until the second load was recorded. Each load is
 * a module of its own in the manifest, with load_ns, and unload_ns once
 * unloaded; each function_id is listed once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "json.h"
#include "raw_fixture.h"
#include "symtab.h"

#define PID 4243
#define BIAS 0x7f0000000000ull

static struct {
	char dir[64];
	char lib[2][128];
	uint8_t id[2][32];
	uint32_t id_len[2];
	uint64_t vaddr; /* of self_a and self_b alike */
} L;

static void build_lib(int i, const char *fn)
{
	char src[160], cmd[512], text[128], dir[64];
	struct ada_symtab *st;
	long k;

	memcpy(dir, L.dir, sizeof(dir));
	snprintf(src, sizeof(src), "%s/lib%c.c", dir, 'a' + i);
	snprintf(L.lib[i], sizeof(L.lib[i]), "%s/lib%c.so", dir, 'a' + i);
	snprintf(text, sizeof(text), "__attribute__((noinline)) int %s(int x) { return x + 1; }\n", fn);
	rf_write_file(src, text, strlen(text));
	snprintf(cmd, sizeof(cmd), "gcc -O2 -fPIC -shared -Wl,--build-id=sha1 -o %s %s", L.lib[i], src);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ada_symtab_load(L.lib[i], &st), 0);
	for (k = 0; k < (long)st->nfuncs && strcmp(st->funcs[k].name, fn); k++)
		;
	assert_true(k < (long)st->nfuncs);
	if (i && st->funcs[k].addr != L.vaddr)
		fail_msg("%s is at 0x%llx, self_a at 0x%llx: the test's premise", fn,
			 (unsigned long long)st->funcs[k].addr, (unsigned long long)L.vaddr);
	L.vaddr = st->funcs[k].addr;
	L.id_len[i] = st->build_id_len;
	memcpy(L.id[i], st->build_id, sizeof(L.id[i]));
	ada_symtab_free(st);
}

static int setup_group(void **state)
{
	(void)state;
	strcpy(L.dir, "/tmp/ada_test_loads_XXXXXX");
	assert_non_null(mkdtemp(L.dir));
	build_lib(0, "self_a");
	build_lib(1, "self_b");
	return 0;
}

static int teardown_group(void **state)
{
	(void)state;
	rf_remove_tree(L.dir);
	return 0;
}

static void module(struct rf_meta *m, uint32_t no, uint64_t load_tsc)
{
	struct ada_meta_module mm = { .module_no = no, .build_id_len = L.id_len[no], .bias = BIAS,
				      .vaddr_hi = 0x5000, .load_tsc = load_tsc };

	memcpy(mm.build_id, L.id[no], sizeof(mm.build_id));
	rf_meta_record(m, ADA_META_MODULE, &mm, sizeof(mm), L.lib[no], strlen(L.lib[no]) + 1);
}

/* liba loaded at tick 10 (and unloaded at 200 if `unload`), libb at 300;
 * calls at ticks 100, 250 and 400, converted. */
static void make_trace(struct rf_trace *t, bool unload)
{
	static const uint64_t ticks[] = { 100, 250, 400 };
	const struct conv_options quiet = { .quiet = true };
	struct ada_meta_unload u = { .module_no = 0, .unload_tsc = 200 };
	struct ada_meta_funcs fs = { 1, 1 };
	struct ada_meta_thread t0 = { .ordinal = 0, .os_tid = PID, .name = "prog" };
	struct ada_meta_end end = { .end_tsc = 1000, .end_boottime_ns = RF_BOOT_NS + 1000 };
	uint64_t addr = BIAS + L.vaddr;
	struct rf_meta *m = calloc(1, sizeof(*m));
	struct rf_frame *f = calloc(1, sizeof(*f));
	struct ada_enc_stream enc = { 0 };
	struct ada_fdict dict;
	char path[300];

	assert_non_null(m);
	assert_non_null(f);
	rf_trace_make(t, "/tmp/ada_test_loads_trace_XXXXXX", PID);
	rf_meta_begin(m, PID);
	module(m, 0, 10);
	if (unload)
		rf_meta_record(m, ADA_META_UNLOAD, &u, sizeof(u), NULL, 0);
	module(m, 1, 300);
	rf_meta_record(m, ADA_META_FUNCS, &fs, sizeof(fs), &addr, sizeof(addr));
	rf_meta_record(m, ADA_META_THREAD, &t0, sizeof(t0), NULL, 0);
	rf_meta_record(m, ADA_META_END, &end, sizeof(end), NULL, 0);
	rf_write_file(t->meta, m->buf, m->len);
	rf_fdict_init(&dict, &addr, 1);
	rf_sync(f, &enc, ticks[0]);
	for (size_t i = 0; i < 3; i++) {
		rf_event(f, &enc, &dict, ticks[i], ADA_RAW_CALL, addr);
		rf_event(f, &enc, &dict, ticks[i] + 10, ADA_RAW_RETURN, addr);
	}
	snprintf(path, sizeof(path), "%s/thread_0.lz4", t->raw);
	rf_append(path, f);
	ada_enc_stream_free(&enc);
	ada_fdict_free(&dict);
	free(f);
	free(m);
	assert_int_equal(convert_process(t->pid_dir, t->pid_dir, &quiet), 0);
}

/* The name of each CALL's function, in order, joined by spaces; and
 * checks each function_id is listed once. */
static void call_names(const struct rf_trace *t, char *out, size_t len)
{
	char path[300], err[256] = "";
	const struct json_value *syms;
	struct atf_index_file f;
	struct json_doc *doc;
	struct atf_event ev;

	snprintf(path, sizeof(path), "%s/manifest.json", t->pid_dir);
	if (json_parse_file(path, &doc, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	syms = json_get(json_root(doc), "symbols");
	assert_int_equal(json_count(syms), 2);
	snprintf(path, sizeof(path), "%s/thread_0/index.atf", t->pid_dir);
	if (atf_index_map(path, &f, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	out[0] = '\0';
	for (size_t i = 0; i < f.event_count; i++) {
		char id[32];
		size_t k;

		atf_index_get(&f, i, &ev);
		if (ev.kind != ATF_CALL)
			continue;
		snprintf(id, sizeof(id), "0x%016llx", (unsigned long long)ev.function_id);
		for (k = 0; k < json_count(syms); k++)
			if (!strcmp(json_string(json_get(json_at(syms, k), "function_id")), id))
				break;
		assert_true(k < json_count(syms));
		snprintf(out + strlen(out), len - strlen(out), "%s%s", *out ? " " : "",
			 json_string(json_get(json_at(syms, k), "name")));
	}
	atf_index_unmap(&f);
	json_free(doc);
}

/* Whether module `i` of the manifest has "key", and its value. */
static bool module_u64(const struct rf_trace *t, size_t i, const char *key, uint64_t *v)
{
	char path[300], err[256] = "";
	struct json_doc *doc;
	bool found;

	snprintf(path, sizeof(path), "%s/manifest.json", t->pid_dir);
	if (json_parse_file(path, &doc, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	assert_int_equal(json_count(json_get(json_root(doc), "modules")), 2);
	found = json_u64(json_get(json_at(json_get(json_root(doc), "modules"), i), key), v);
	json_free(doc);
	return found;
}

static void test_loads_unload_ends_the_first_load(void **state)
{
	struct rf_trace t;
	char names[128];
	uint64_t ns;

	(void)state;
	make_trace(&t, true);
	call_names(&t, names, sizeof(names));
	assert_string_equal(names, "self_a self_b self_b");
	assert_true(module_u64(&t, 0, "load_ns", &ns));
	assert_int_equal(ns, RF_BOOT_NS + 10);
	assert_true(module_u64(&t, 0, "unload_ns", &ns));
	assert_int_equal(ns, RF_BOOT_NS + 200);
	assert_true(module_u64(&t, 1, "load_ns", &ns));
	assert_int_equal(ns, RF_BOOT_NS + 300);
	assert_false(module_u64(&t, 1, "unload_ns", &ns));
	rf_expect_valid(t.pid_dir);
	rf_remove_tree(t.root);
}

static void test_loads_without_unload_the_next_load_ends_it(void **state)
{
	struct rf_trace t;
	char names[128];
	uint64_t ns;

	(void)state;
	make_trace(&t, false);
	call_names(&t, names, sizeof(names));
	assert_string_equal(names, "self_a self_a self_b");
	assert_false(module_u64(&t, 0, "unload_ns", &ns));
	rf_expect_valid(t.pid_dir);
	rf_remove_tree(t.root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads_unload_ends_the_first_load),
		cmocka_unit_test(test_loads_without_unload_the_next_load_ends_it),
	};

	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
