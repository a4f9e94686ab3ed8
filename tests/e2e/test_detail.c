/* test_detail.c - fentry and mcount modes: the detail lane holds the exact
 * registers and stack of each call and return.
 *
 * tests/e2e/progs/detail_values.c calls functions with known arguments and
 * known results: six integers, pointers (to a global array and a string),
 * ints, pointers and doubles mixed, a two-word struct result, nine integers
 * (three on the stack) and a caller whose local buffer holds a known byte
 * pattern. It prints the addresses the test cannot know in advance. The
 * test reads thread_0/index.atf and detail.atf back with its own reader
 * (tests/lib/atf_read.c, which checks the layout and CRCs of ATF v2 §2 and
 * §4) and checks:
 *   - the links, both ways: every index event with a detail_seq points to
 *     the record whose index_seq points back, with the same kind (3 CALL,
 *     4 RETURN), timestamp, function id and thread, in index order, and
 *     every record is linked; bit 0 of the index flags says detail.atf
 *     exists; --check passes too;
 *   - the registers: a CALL's regs are rdi rsi rdx rcx r8 r9 0 0 with the
 *     exact argument values (the low 32 bits for int arguments, whose upper
 *     halves the ABI leaves undefined; doubles go in xmm and take no
 *     integer register: they are xmm0 and xmm1 of the record's FP
 *     registers), a RETURN's are rax rdx 0 ... with the exact result;
 *   - lr is the return address of the call (the instruction before it, in
 *     objdump, calls the function), sp is 8-aligned, the same for the CALL
 *     and its RETURN, and below the caller's; at -O0 fp is the caller's
 *     frame pointer (the caller's sp - 8: its `push %rbp`);
 *   - the stack window: the 7th, 8th and 9th arguments at sp+8, sp+16,
 *     sp+24, and the caller's local pattern at exactly its address - sp;
 *     ADA_STACK_BYTES 0, 512 and 100 (rounded down to 96) give windows of
 *     that size (clipped only at the end of the stack), the default 128;
 *   - ADA_DETAIL=off: no detail.atf, flag bit 0 clear, no detail_seq,
 *     has_detail false in the manifest;
 *   - a few `ada-symbolize --dump --dump-stack` lines, exactly.
 * At -O0 and -O2; every test runs once per mode (one cmocka group each).
 */
#include <dirent.h>
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
#include <sys/stat.h>

#include <cmocka.h>

#include "e2e/hijack_run.h"
#include "lib/atf_read.h"
#include "lib/tracerun.h"

#define PROG "detail_values"

/* ---- what the program does -------------------------------------------------- */

enum fn { MAIN, SIX, POINTERS, MIXED, TWO, NINE, WITH_PATTERN, FRAMED, NFN };

static const char *const fn_names[NFN] = {
	"main", "six", "pointers", "mixed", "two", "nine", "with_pattern", "framed",
};

/* Who calls each function. */
static const enum fn caller_of[NFN] = {
	[SIX] = MAIN, [POINTERS] = MAIN, [MIXED] = MAIN, [TWO] = MAIN,
	[NINE] = MAIN, [WITH_PATTERN] = MAIN, [FRAMED] = WITH_PATTERN,
};

/* The index events, in order. */
static const struct {
	enum fn fn;
	uint32_t kind, depth;
} expected_events[] = {
	{ MAIN, ATFR_CALL, 1 },
	{ SIX, ATFR_CALL, 2 },          { SIX, ATFR_RETURN, 2 },
	{ POINTERS, ATFR_CALL, 2 },     { POINTERS, ATFR_RETURN, 2 },
	{ MIXED, ATFR_CALL, 2 },        { MIXED, ATFR_RETURN, 2 },
	{ TWO, ATFR_CALL, 2 },          { TWO, ATFR_RETURN, 2 },
	{ NINE, ATFR_CALL, 2 },         { NINE, ATFR_RETURN, 2 },
	{ WITH_PATTERN, ATFR_CALL, 2 },
	{ FRAMED, ATFR_CALL, 3 },       { FRAMED, ATFR_RETURN, 3 },
	{ WITH_PATTERN, ATFR_RETURN, 2 },
	{ MAIN, ATFR_RETURN, 1 },
};
#define NEVENTS (sizeof(expected_events) / sizeof(expected_events[0]))

/* The addresses the program prints on stderr. */
enum addr { A_TABLE, A_GREETING, A_MIXED_BUF, A_PATTERN, A_POINTERS, NADDR };

static const char *const addr_names[NADDR] = {
	"table", "greeting", "mixed_buf", "pattern", "pointers",
};

static const uint64_t six_args[6] = {
	0x1111111111111111, 0x2222222222222222, 0x3333333333333333,
	0x4444444444444444, 0x5555555555555555, 0x6666666666666666,
};

static const uint64_t nine_args[9] = {
	0x1010101010101010, 0x2020202020202020, 0x3030303030303030,
	0x4040404040404040, 0x5050505050505050, 0x6060606060606060,
	0x7070707070707070, 0x0808080808080808, 0x1919191919191919,
};

#define PATTERN_LEN 64
#define PATTERN_FIRST 0xa0

/* ---- one traced run, read back ------------------------------------------------ */

struct sym {
	uint64_t fid, start, size; /* start: the run's address */
};

struct run {
	char trace[PATH_MAX];         /* its ADA_OUTPUT */
	char thread[PATH_MAX + 64];   /* .../pid_<pid>/thread_0 */
	bool has_detail_file;
	struct atfr_index ix;
	struct atfr_detail dt;
	uint64_t bias;                /* the executable's load bias */
	uint64_t addr[NADDR];
	struct sym sym[NFN];
	/* per function, its CALL and RETURN events' detail records */
	const struct atfr_detail_rec *call[NFN], *ret[NFN];
	const char *opt;
};

/* The run being checked and the traced build's disassembly; freed by
 * teardown, whatever way the test ended. */
static struct run cur;
static char *objdump_out;

static void run_free(struct run *r)
{
	atfr_index_free(&r->ix);
	atfr_detail_free(&r->dt);
	memset(r, 0, sizeof(*r));
}

static int setup(void **state)
{
	run_free(&cur);
	return tr_setup(state);
}

static int teardown(void **state)
{
	run_free(&cur);
	free(objdump_out);
	objdump_out = NULL;
	return tr_teardown(state);
}

static uint64_t hex_after(const char *text, const char *key, const char *what)
{
	const char *p = strstr(text, key);
	char *end;
	uint64_t v;

	if (!p)
		fail_msg("no %s \"%s\" in:\n%s", what, key, text);
	p += strlen(key);
	errno = 0;
	v = strtoull(p, &end, 16);
	if (end == p || errno)
		fail_msg("%s \"%s\": no hex number after it: \"%.40s\"", what, key, p);
	return v;
}

static uint64_t dec_after(const char *text, const char *key, const char *what)
{
	const char *p = strstr(text, key);
	char *end;
	uint64_t v;

	if (!p)
		fail_msg("no %s \"%s\" in:\n%s", what, key, text);
	p += strlen(key);
	v = strtoull(p, &end, 10);
	if (end == p)
		fail_msg("%s \"%s\": no number after it", what, key);
	return v;
}

/* The line of `name` in the manifest's "symbols" (one line each), in line. */
static void symbol_line(const char *manifest, const char *name, char *line, size_t size)
{
	char key[64];
	const char *p, *start, *nl;

	snprintf(key, sizeof(key), "\"name\": \"%s\",", name);
	p = strstr(manifest, key);
	if (!p)
		fail_msg("manifest.json has no symbol %s:\n%s", name, manifest);
	for (start = p; start > manifest && start[-1] != '\n'; start--)
		;
	nl = strchr(p, '\n');
	snprintf(line, size, "%.*s", (int)(nl ? nl - start : (long)strlen(start)), start);
}

static uint64_t symbol_fid(const char *manifest, const char *name)
{
	char line[1024];

	symbol_line(manifest, name, line, sizeof(line));
	return hex_after(line, "\"function_id\": \"0x", "manifest symbol key");
}

static void find_symbol(struct run *r, const char *manifest, enum fn f)
{
	char line[1024];

	symbol_line(manifest, fn_names[f], line, sizeof(line));
	r->sym[f].fid = hex_after(line, "\"function_id\": \"0x", "manifest symbol key");
	r->sym[f].start = r->bias + hex_after(line, "\"address\": \"0x", "manifest symbol key");
	r->sym[f].size = dec_after(line, "\"size\": ", "manifest symbol key");
}

/* "<trace>/session_*\/pid_*" in buf. */
static void only_pid_dir(const char *trace, char *buf, size_t size)
{
	const char *prefixes[] = { "session_", "pid_" };
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", trace);
	for (int level = 0; level < 2; level++) {
		DIR *d = opendir(dir);
		struct dirent *de;
		int n = 0;

		while (d && (de = readdir(d)))
			if (strncmp(de->d_name, prefixes[level], strlen(prefixes[level])) == 0 &&
			    n++ == 0 && snprintf(buf, size, "%s/%s", dir, de->d_name) >= (int)size)
				fail_msg("%s/%s: path too long", dir, de->d_name);
		if (d)
			closedir(d);
		if (n != 1)
			fail_msg("%d %s* entries in %s, expected 1", n, prefixes[level], dir);
		snprintf(dir, sizeof(dir), "%s", buf);
	}
}

static const char *fn_of_fid(const struct run *r, uint64_t fid)
{
	for (int f = 0; f < NFN; f++)
		if (r->sym[f].fid == fid)
			return fn_names[f];
	return "?";
}

/* Builds are the test's; this runs <dir>/detail_values with env (and its
 * plain twin), symbolizes the trace into <dir>/<name>, and reads it back. */
static void run_traced(struct tr_case *tc, struct run *r, const char *opt, const char *name,
		       const char *const env[])
{
	char output[PATH_MAX + 16], pid_dir[PATH_MAX], path[PATH_MAX + 96], err[PATH_MAX + 256];
	char mode[64];
	const char *envp[8];
	size_t k = 0;
	struct stat st;
	const char *p;

	run_free(r);
	r->opt = opt;
	tr_path(tc, name, r->trace);
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", r->trace);
	for (size_t i = 0; env && env[i] && k < 6; i++)
		envp[k++] = env[i];
	envp[k++] = output;
	envp[k] = NULL;
	tr_run_pair(tc, PROG, NULL, envp, 0);
	if (strcmp(tc->traced.out, "sum 4d7093b6d9fd8175\n") != 0)
		fail_msg("stdout is \"%s\", expected the checksum of every known result",
			 tc->traced.out);
	hj_expect_no_gmon(tc);
	tr_symbolize(tc, r->trace);
	tr_load_manifest(tc, r->trace);

	/* The mode, and nothing dropped: every event has its record. */
	snprintf(mode, sizeof(mode), "\n  \"mode\": \"%s\",\n", hj_manifest_mode());
	if (!strstr(tc->mf.text, mode))
		fail_msg("manifest.json does not say %s:\n%s", mode, tc->mf.text);
	for (unsigned d = 0; d < TR_NDROPS; d++)
		if (tc->mf.dropped[d])
			fail_msg("manifest: %" PRIu64 " %s drops\n%s", tc->mf.dropped[d],
				 tr_drop_names[d], tc->mf.text);
	for (p = tc->mf.text; (p = strstr(p, "\"detail_full\": ")); p++)
		if (p[15] != '0')
			fail_msg("manifest: detail records dropped (detail_full)\n%s", tc->mf.text);

	/* What the program printed, and where its functions are. */
	for (int a = 0; a < NADDR; a++) {
		char key[32];

		snprintf(key, sizeof(key), "%s 0x", addr_names[a]);
		r->addr[a] = hex_after(tc->traced.err, key, "stderr line");
	}
	r->bias = hex_after(tc->mf.text, "\"load_bias\": \"0x", "manifest key");
	for (int f = 0; f < NFN; f++)
		find_symbol(r, tc->mf.text, f);

	only_pid_dir(r->trace, pid_dir, sizeof(pid_dir));
	snprintf(r->thread, sizeof(r->thread), "%s/thread_0", pid_dir);
	snprintf(path, sizeof(path), "%s/index.atf", r->thread);
	if (atfr_read_index(path, &r->ix, err, sizeof(err)))
		fail_msg("%s", err);
	snprintf(path, sizeof(path), "%s/detail.atf", r->thread);
	r->has_detail_file = stat(path, &st) == 0;
	if (!r->has_detail_file && errno != ENOENT)
		fail_msg("%s: %s", path, strerror(errno));
	if (r->has_detail_file && atfr_read_detail(path, &r->dt, err, sizeof(err)))
		fail_msg("%s", err);
}

/* ---- the links -------------------------------------------------------------------- */

/* The index events are the expected ones; each detail record is linked from
 * exactly one index event and links back to it. Fills r->call/ret. */
static void check_links(struct run *r, bool with_detail)
{
	const struct atfr_index *ix = &r->ix;
	const struct atfr_detail *dt = &r->dt;
	uint32_t next = 0;

	if (ix->arch != 1 || ix->os != 4 || ix->clock_type != 3 || ix->thread_id != 0)
		fail_msg("index header: arch %u os %u clock %u thread %u, expected 1 4 3 0",
			 ix->arch, ix->os, ix->clock_type, ix->thread_id);
	if ((ix->flags & 1) != (r->has_detail_file ? 1u : 0u) || (ix->flags & ~1u))
		fail_msg("index flags 0x%x, but detail.atf %s", ix->flags,
			 r->has_detail_file ? "exists" : "does not exist");
	if (r->has_detail_file != with_detail)
		fail_msg("%s/detail.atf %s", r->thread,
			 with_detail ? "is missing" : "exists with ADA_DETAIL=off");
	if (ix->event_count != NEVENTS)
		fail_msg("%u index events, expected %zu", ix->event_count, NEVENTS);
	if (with_detail && (dt->arch != ix->arch || dt->os != ix->os || dt->flags != 0 ||
			    dt->thread_id != ix->thread_id))
		fail_msg("detail header: arch %u os %u flags 0x%x thread %u, index's %u %u 0 %u",
			 dt->arch, dt->os, dt->flags, dt->thread_id, ix->arch, ix->os,
			 ix->thread_id);

	for (uint32_t i = 0; i < ix->event_count; i++) {
		const struct atfr_event *ev = &ix->events[i];
		enum fn f = expected_events[i].fn;
		const struct atfr_detail_rec *d;

		if (ev->function_id != r->sym[f].fid || ev->kind != expected_events[i].kind ||
		    ev->call_depth != expected_events[i].depth || ev->thread_id != ix->thread_id)
			fail_msg("index event %u: %s (0x%016" PRIx64 ") kind %u depth %u thread %u, "
				 "expected %s kind %u depth %u thread %u",
				 i, fn_of_fid(r, ev->function_id), ev->function_id, ev->kind,
				 ev->call_depth, ev->thread_id, fn_names[f], expected_events[i].kind,
				 expected_events[i].depth, ix->thread_id);
		if (i && ev->timestamp_ns < ix->events[i - 1].timestamp_ns)
			fail_msg("index event %u: time goes backwards", i);
		if (ev->detail_seq == ATFR_NO_DETAIL) {
			if (with_detail)
				fail_msg("index event %u (%s) has no detail record", i, fn_names[f]);
			continue;
		}
		if (!with_detail)
			fail_msg("index event %u has detail_seq %u without detail.atf", i,
				 ev->detail_seq);
		if (ev->detail_seq != next || next >= dt->event_count)
			fail_msg("index event %u: detail_seq %u, expected %u (of %" PRIu64 ")", i,
				 ev->detail_seq, next, dt->event_count);
		d = &dt->recs[next++];
		if (d->index_seq != i)
			fail_msg("detail record %u: index_seq %u, but index event %u links it",
				 ev->detail_seq, d->index_seq, i);
		if (d->event_type != (ev->kind == ATFR_CALL ? ATFR_DETAIL_CALL : ATFR_DETAIL_RETURN))
			fail_msg("detail record %u: event_type %u for a kind %u index event",
				 ev->detail_seq, d->event_type, ev->kind);
		if (d->timestamp_ns != ev->timestamp_ns || d->function_id != ev->function_id ||
		    d->thread_id != ev->thread_id)
			fail_msg("detail record %u: time %" PRIu64 " function 0x%016" PRIx64
				 " thread %u; index event %u: %" PRIu64 " 0x%016" PRIx64 " %u",
				 ev->detail_seq, d->timestamp_ns, d->function_id, d->thread_id, i,
				 ev->timestamp_ns, ev->function_id, ev->thread_id);
		/* x86_64 records the FP registers with every record
		 * (docs/atf-extensions.md): flag bit 0, and no other. */
		if (d->flags != ATFR_FLAG_FREGS || d->reserved)
			fail_msg("detail record %u: flags 0x%x reserved 0x%x, expected 0x1 and 0",
				 ev->detail_seq, d->flags, d->reserved);
		if (ev->kind == ATFR_CALL)
			r->call[f] = d;
		else
			r->ret[f] = d;
	}
	if (with_detail && next != dt->event_count)
		fail_msg("%" PRIu64 " detail records, %u linked from the index", dt->event_count,
			 next);
}

/* ---- the values ---------------------------------------------------------------- */

/* The instruction before `lr` in <dir>/detail_values calls `callee`:
 * objdump's line for it has "call" and "<callee>", the next line's address
 * is lr - load bias. */
static void expect_return_address(const char *disasm, const struct run *r, enum fn callee,
				  uint64_t lr)
{
	char target[64], next[32];
	const char *p;
	int n;

	snprintf(target, sizeof(target), " <%s>\n", fn_names[callee]);
	n = snprintf(next, sizeof(next), "\n%*" PRIx64 ":", 8, lr - r->bias);
	for (p = disasm; (p = strstr(p, target)); p++) {
		const char *bol = p, *nl = p + strlen(target) - 1;

		while (bol > disasm && bol[-1] != '\n')
			bol--;
		if (memmem(bol, (size_t)(p - bol), "call", 4) &&
		    strncmp(nl, next, (size_t)n) == 0)
			return;
	}
	fail_msg("%s: lr 0x%" PRIx64 " (0x%" PRIx64 " in the file) does not follow a call to %s",
		 fn_names[callee], lr, lr - r->bias, fn_names[callee]);
}

static void expect_reg(enum fn f, const char *kind, int reg, uint64_t got, uint64_t want)
{
	if (got != want)
		fail_msg("%s %s: regs[%d] = 0x%" PRIx64 ", expected 0x%" PRIx64, fn_names[f], kind,
			 reg, got, want);
}

/* The low 32 bits of an int argument's register. */
static void expect_reg32(enum fn f, int reg, uint64_t got, uint32_t want)
{
	if ((uint32_t)got != want)
		fail_msg("%s CALL: regs[%d] = 0x%" PRIx64 ", low 32 bits expected 0x%" PRIx32,
			 fn_names[f], reg, got, want);
}

/* Every record's window is `want` bytes, except where the end of the
 * thread's stack clips it: then it ends there, the same place for all. */
static void check_stack_sizes(const struct run *r, uint32_t want)
{
	uint64_t end = 0;

	for (uint64_t i = 0; i < r->dt.event_count; i++) {
		const struct atfr_detail_rec *d = &r->dt.recs[i];

		if (d->stack_size == want)
			continue;
		if (d->stack_size > want || d->stack_size % 8)
			fail_msg("detail record %" PRIu64 ": stack_size %u, expected %u (or less, "
				 "a multiple of 8, at the end of the stack)",
				 i, d->stack_size, want);
		if (end && d->sp + d->stack_size != end)
			fail_msg("detail record %" PRIu64 ": window clipped at 0x%" PRIx64
				 ", another at 0x%" PRIx64, i, d->sp + d->stack_size, end);
		end = d->sp + d->stack_size;
	}
	for (uint64_t i = 0; end && i < r->dt.event_count; i++)
		if (r->dt.recs[i].sp + want > end + 7 && r->dt.recs[i].stack_size == want)
			fail_msg("detail record %" PRIu64 ": %u-byte window past the stack end 0x%" PRIx64
				 " that clips others", i, want, end);
}

/* The bytes at sp + off of a CALL's window, if it has them. */
static bool window_has(const struct atfr_detail_rec *d, uint64_t off, uint64_t len)
{
	return off <= d->stack_size && len <= d->stack_size - off;
}

static void check_values(const struct run *r, const char *disasm, uint32_t stack_bytes)
{
	const struct atfr_detail_rec *c, *x;
	uint64_t off;

	/* What every record of a function holds. */
	for (int f = 0; f < NFN; f++) {
		c = r->call[f], x = r->ret[f];
		for (int i = 6; i < 8; i++)
			expect_reg(f, "CALL", i, c->regs[i], 0);
		for (int i = 2; i < 8; i++)
			expect_reg(f, "RETURN", i, x->regs[i], 0);
		if (c->sp % 8 || x->sp != c->sp || x->lr != c->lr)
			fail_msg("%s: CALL sp 0x%" PRIx64 " lr 0x%" PRIx64 ", RETURN sp 0x%" PRIx64
				 " lr 0x%" PRIx64 ": expected one 8-aligned slot, one return address",
				 fn_names[f], c->sp, c->lr, x->sp, x->lr);
		if (f == MAIN) {
			if (!strcmp(r->opt, "-O0") && !c->fp)
				fail_msg("main CALL: fp is 0 at -O0");
			continue;
		}
		const struct atfr_detail_rec *up = r->call[caller_of[f]];
		const struct sym *s = &r->sym[caller_of[f]];

		if (c->sp >= up->sp)
			fail_msg("%s CALL: sp 0x%" PRIx64 " not below its caller %s's 0x%" PRIx64,
				 fn_names[f], c->sp, fn_names[caller_of[f]], up->sp);
		if (c->lr <= s->start || c->lr >= s->start + s->size)
			fail_msg("%s CALL: lr 0x%" PRIx64 " is not inside its caller %s [0x%" PRIx64
				 ", 0x%" PRIx64 ")", fn_names[f], c->lr, fn_names[caller_of[f]],
				 s->start, s->start + s->size);
		expect_return_address(disasm, r, f, c->lr);
		/* -O0: the caller pushed its frame pointer just below its slot. */
		if (!strcmp(r->opt, "-O0") && c->fp != up->sp - 8)
			fail_msg("%s CALL: fp 0x%" PRIx64 ", expected its caller's frame pointer "
				 "0x%" PRIx64 " (the caller's sp - 8)",
				 fn_names[f], c->fp, up->sp - 8);
	}

	/* Six integers; the result. */
	for (int i = 0; i < 6; i++)
		expect_reg(SIX, "CALL", i, r->call[SIX]->regs[i], six_args[i]);
	expect_reg(SIX, "RETURN", 0, r->ret[SIX]->regs[0], 0x0123456789abcdef);

	/* Pointers to a global array and a string; a pointer result. */
	expect_reg(POINTERS, "CALL", 0, r->call[POINTERS]->regs[0], r->addr[A_TABLE]);
	expect_reg(POINTERS, "CALL", 1, r->call[POINTERS]->regs[1], r->addr[A_GREETING]);
	expect_reg(POINTERS, "RETURN", 0, r->ret[POINTERS]->regs[0], r->addr[A_TABLE] + 3 * 8);
	expect_reg(POINTERS, "RETURN", 0, r->ret[POINTERS]->regs[0], r->addr[A_POINTERS]);

	/* mixed(int, double, char *, double, unsigned, unsigned long): the
	 * doubles are in xmm0 and xmm1, the rest in order in rdi rsi rdx rcx. */
	c = r->call[MIXED];
	expect_reg32(MIXED, 0, c->regs[0], 0xfffffff9u);
	expect_reg(MIXED, "CALL", 1, c->regs[1], r->addr[A_MIXED_BUF]);
	expect_reg32(MIXED, 2, c->regs[2], 0x7fffffffu);
	expect_reg(MIXED, "CALL", 3, c->regs[3], 0xfedcba9876543210);
	expect_reg(MIXED, "CALL fregs", 0, c->fregs[0], 0x3ff8000000000000); /* 1.5 */
	expect_reg(MIXED, "CALL fregs", 1, c->fregs[1], 0x4002000000000000); /* 2.25 */
	expect_reg(MIXED, "RETURN", 0, r->ret[MIXED]->regs[0], 0x5eed);

	/* struct pair { long a, b; } in rax:rdx. */
	expect_reg(TWO, "RETURN", 0, r->ret[TWO]->regs[0], 0x0a0b0c0d0e0f1011);
	expect_reg(TWO, "RETURN", 1, r->ret[TWO]->regs[1], (uint64_t)-2);

	/* Nine integers: six in registers, three on the stack above the
	 * return address. */
	c = r->call[NINE];
	for (int i = 0; i < 6; i++)
		expect_reg(NINE, "CALL", i, c->regs[i], nine_args[i]);
	for (int i = 6; i < 9; i++) {
		off = 8 * (uint64_t)(i - 5);
		if (window_has(c, off, 8) && atfr_u64(c->stack + off) != nine_args[i])
			fail_msg("nine CALL: stack at sp+%" PRIu64 " holds 0x%" PRIx64 ", expected "
				 "argument %d 0x%" PRIx64, off, atfr_u64(c->stack + off), i + 1,
				 nine_args[i]);
	}
	if (stack_bytes >= 32 && !window_has(c, 8, 24))
		fail_msg("nine CALL: a %u-byte window, too small for its stack arguments",
			 c->stack_size);
	expect_reg(NINE, "RETURN", 0, r->ret[NINE]->regs[0], 0x4242424242424242);

	/* framed(buf, 64): its caller's buffer is in its window, exactly at
	 * buf - sp, byte for byte. */
	c = r->call[FRAMED];
	expect_reg(FRAMED, "CALL", 0, c->regs[0], r->addr[A_PATTERN]);
	expect_reg(FRAMED, "CALL", 1, c->regs[1], PATTERN_LEN);
	if (r->addr[A_PATTERN] < c->sp + 8)
		fail_msg("with_pattern's buffer at 0x%" PRIx64 " is not above framed's slot 0x%" PRIx64,
			 r->addr[A_PATTERN], c->sp);
	off = r->addr[A_PATTERN] - c->sp;
	if (stack_bytes >= 128 && !window_has(c, off, PATTERN_LEN))
		fail_msg("framed CALL: the pattern at sp+%" PRIu64 " is not inside the %u-byte "
			 "window: the test's premise does not hold", off, c->stack_size);
	for (uint64_t i = 0; window_has(c, off + i, 1) && i < PATTERN_LEN; i++)
		if (c->stack[off + i] != PATTERN_FIRST + i)
			fail_msg("framed CALL: stack byte sp+%" PRIu64 " is 0x%02x, expected 0x%02x "
				 "(with_pattern's buffer byte %" PRIu64 ")",
				 off + i, c->stack[off + i], (unsigned)(PATTERN_FIRST + i), i);
	expect_reg(FRAMED, "RETURN", 0, r->ret[FRAMED]->regs[0], 0xa0 + 0xdf);
	expect_reg(WITH_PATTERN, "RETURN", 0, r->ret[WITH_PATTERN]->regs[0], 0xa0 + 0xdf + 0xa1);

	check_stack_sizes(r, stack_bytes);
}

/* ---- --dump -------------------------------------------------------------------- */

/* The line after the one `line` points into, or NULL. */
static const char *next_line(const char *line)
{
	const char *nl = line ? strchr(line, '\n') : NULL;

	return nl ? nl + 1 : NULL;
}

/* Does the line at `line` read "<seconds>.<6 digits> " + want exactly? */
static bool event_line_is(const char *line, const char *want)
{
	size_t n = strspn(line, "0123456789"), len = strlen(want);

	if (!n || line[n] != '.' || strspn(line + n + 1, "0123456789") != 6 || line[n + 7] != ' ')
		return false;
	line += n + 8;
	return strncmp(line, want, len) == 0 && line[len] == '\n';
}

/* The first event line that is `want` (after its timestamp); fails if none.
 * Returns the line after it. */
static const char *expect_event_line(const char *dump, const char *want)
{
	for (const char *l = dump; l && *l; l = next_line(l))
		if (event_line_is(l, want))
			return next_line(l);
	fail_msg("--dump has no line \"<time> %s\":\n%s", want, dump);
	return NULL;
}

static void expect_plain_line(const char *line, const char *want)
{
	size_t len = strlen(want);

	if (!line || strncmp(line, want, len) != 0 || line[len] != '\n')
		fail_msg("--dump: expected the line\n%s\ngot\n%.*s", want,
			 line ? (int)strcspn(line, "\n") : 6, line ? line : "(none)");
}

/* A CALL's FP registers, the line after its event line. */
static void fregs_line(char *buf, size_t size, const struct atfr_detail_rec *d)
{
	int n = snprintf(buf, size, "   ");

	for (unsigned r = 0; r < 8 && n > 0 && (size_t)n < size; r++)
		n += snprintf(buf + n, size - (size_t)n, " xmm%u=0x%" PRIx64, r, d->fregs[r]);
}

static void sp_line(char *buf, size_t size, const struct atfr_detail_rec *d)
{
	snprintf(buf, size, "    sp=0x%" PRIx64 " fp=0x%" PRIx64 " lr=0x%" PRIx64, d->sp, d->fp,
		 d->lr);
}

static void hex_line(char *buf, size_t size, const struct atfr_detail_rec *d, unsigned off)
{
	int n = snprintf(buf, size, "    +0x%03x:", off);

	for (unsigned b = off; b < off + 16 && b < d->stack_size && n > 0 && (size_t)n < size; b++)
		n += snprintf(buf + n, size - (size_t)n, " %02x", d->stack[b]);
}

static void check_dump(struct tr_case *tc, const struct run *r)
{
	const char *const argv[] = { ADA_ROOT "/bin/ada-symbolize", "--dump", "--dump-stack",
				     r->trace, NULL };
	struct proc_result *res = &tc->sym; /* freed with the case */
	const struct atfr_detail_rec *c;
	const char *l;
	char want[512];

	tr_run(tc, argv, NULL, res);
	if (proc_exit_code(res) != 0)
		fail_msg("ada-symbolize --dump --dump-stack failed:\n%s", res->err);

	l = expect_event_line(res->out,
			      "  six(rdi=0x1111111111111111 rsi=0x2222222222222222 "
			      "rdx=0x3333333333333333 rcx=0x4444444444444444 "
			      "r8=0x5555555555555555 r9=0x6666666666666666)");
	fregs_line(want, sizeof(want), r->call[SIX]);
	expect_plain_line(l, want);
	sp_line(want, sizeof(want), r->call[SIX]);
	expect_plain_line(next_line(l), want);
	snprintf(want, sizeof(want), "  six = 0x123456789abcdef (rdx=0x%" PRIx64 ")",
		 r->ret[SIX]->regs[1]);
	expect_event_line(res->out, want);
	expect_event_line(res->out, "  two = 0xa0b0c0d0e0f1011 (rdx=0xfffffffffffffffe)");

	c = r->call[NINE];
	l = expect_event_line(res->out,
			      "  nine(rdi=0x1010101010101010 rsi=0x2020202020202020 "
			      "rdx=0x3030303030303030 rcx=0x4040404040404040 "
			      "r8=0x5050505050505050 r9=0x6060606060606060)");
	fregs_line(want, sizeof(want), c);
	expect_plain_line(l, want);
	l = next_line(l);
	sp_line(want, sizeof(want), c);
	expect_plain_line(l, want);
	l = next_line(l);
	hex_line(want, sizeof(want), c, 0);
	if (!strstr(want, " 70 70 70 70 70 70 70 70"))
		fail_msg("nine's window does not start with its return address and 0x7070...: %s",
			 want);
	expect_plain_line(l, want);
	expect_plain_line(next_line(l),
			  "    +0x010: 08 08 08 08 08 08 08 08 19 19 19 19 19 19 19 19");

	c = r->call[FRAMED];
	snprintf(want, sizeof(want),
		 "    framed(rdi=0x%" PRIx64 " rsi=0x40 rdx=0x%" PRIx64 " rcx=0x%" PRIx64
		 " r8=0x%" PRIx64 " r9=0x%" PRIx64 ")",
		 r->addr[A_PATTERN], c->regs[2], c->regs[3], c->regs[4], c->regs[5]);
	expect_event_line(res->out, want);
}

/* objdump -d of the traced build, into objdump_out. */
static void disassemble(struct tr_case *tc)
{
	char exe[PATH_MAX];
	const char *const argv[] = { "objdump", "-d", "--no-show-raw-insn", tr_path(tc, PROG, exe),
				     NULL };
	struct proc_result res = { 0 };

	tr_run(tc, argv, NULL, &res);
	free(objdump_out);
	objdump_out = proc_exit_code(&res) == 0 ? res.out : NULL;
	if (objdump_out)
		res.out = NULL;
	else
		print_error("objdump -d %s failed:\n%s", exe, res.err);
	proc_result_free(&res);
	if (!objdump_out)
		fail_msg("objdump -d failed");
}

/* ---- tests ------------------------------------------------------------------------ */

static void check_registers(struct tr_case *tc, const char *opt)
{
	hj_build(tc, PROG, opt);
	disassemble(tc);
	run_traced(tc, &cur, opt, "trace", NULL);
	check_links(&cur, true);
	if (!strstr(tc->mf.text, "\"has_detail\": true"))
		fail_msg("manifest: thread 0 not has_detail true:\n%s", tc->mf.text);
	check_values(&cur, objdump_out, 128);
	check_dump(tc, &cur);
	tr_pass(tc);
}

static void registers_and_stack_are_exact_O0(void **state)
{
	check_registers(*state, "-O0");
}

static void registers_and_stack_are_exact_O2(void **state)
{
	check_registers(*state, "-O2");
}

/* ADA_STACK_BYTES: the window is that size, rounded down to 8. */
static void stack_window_follows_ada_stack_bytes(void **state)
{
	static const struct {
		const char *env;
		uint32_t bytes;
	} sizes[] = {
		{ "ADA_STACK_BYTES=0", 0 },
		{ "ADA_STACK_BYTES=512", 512 },
		{ "ADA_STACK_BYTES=100", 96 },
	};
	struct tr_case *tc = *state;
	char config[32], name[32];

	hj_build(tc, PROG, "-O0");
	disassemble(tc);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const char *const env[] = { sizes[i].env, NULL };

		snprintf(name, sizeof(name), "trace%zu", i);
		run_traced(tc, &cur, "-O0", name, env);
		snprintf(config, sizeof(config), " stack_bytes=%u ", sizes[i].bytes);
		if (!strstr(tc->mf.config, config) && !strstr(tc->mf.text, config))
			fail_msg("%s: manifest config does not say%s:\n%s", sizes[i].env, config,
				 tc->mf.text);
		if (strstr(tc->traced.err, "ADA_STACK_BYTES"))
			fail_msg("%s: the runtime complained:\n%s", sizes[i].env, tc->traced.err);
		check_links(&cur, true);
		check_values(&cur, objdump_out, sizes[i].bytes);
	}
	tr_pass(tc);
}

/* ADA_DETAIL=off: index only. */
static void detail_off_writes_no_detail(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DETAIL=off", NULL };
	const char *const dump[] = { ADA_ROOT "/bin/ada-symbolize", "--dump", tc->trace, NULL };

	hj_build(tc, PROG, "-O0");
	run_traced(tc, &cur, "-O0", "trace", env);
	check_links(&cur, false);
	if (!strstr(tc->mf.text, "\"has_detail\": false") ||
	    strstr(tc->mf.text, "\"has_detail\": true"))
		fail_msg("manifest: has_detail should be false:\n%s", tc->mf.text);
	if (!strstr(tc->mf.text, " detail=off "))
		fail_msg("manifest config does not say detail=off:\n%s", tc->mf.text);

	tr_run(tc, dump, NULL, &tc->sym);
	if (proc_exit_code(&tc->sym) != 0)
		fail_msg("ada-symbolize --dump failed:\n%s", tc->sym.err);
	expect_event_line(tc->sym.out, "  six()");
	expect_event_line(tc->sym.out, "  six returns");
	tr_pass(tc);
}

/* ATF v2 §4: sp points at the return address and the window is the stack
 * from sp up, so its first 8 bytes are lr: the program's view of its stack,
 * not the hijacked slot. */
static void call_window_starts_with_return_address(void **state)
{
	struct tr_case *tc = *state;

	hj_build(tc, PROG, "-O0");
	run_traced(tc, &cur, "-O0", "trace", NULL);
	check_links(&cur, true);
	for (int f = 0; f < NFN; f++) {
		const struct atfr_detail_rec *c = cur.call[f];

		if (c->stack_size < 8 || atfr_u64(c->stack) != c->lr)
			fail_msg("%s CALL: the window starts with 0x%" PRIx64 ", expected lr 0x%" PRIx64,
				 fn_names[f], c->stack_size >= 8 ? atfr_u64(c->stack) : 0, c->lr);
	}
	tr_pass(tc);
}

/* A tail-called function enters on its caller's slot, hijacked already
 * (hijack_tail.c at -O2: f ends with `jmp g`): its CALL record's lr must
 * still be the real return address, where g returns, in main. f's return:
 * where returns are hijacked, after g's with g's value; where __return__
 * sees it (fentry with gcc), before the jump, where it has no value yet:
 * its record says so (flags bit 1) and holds no register. */
static void tail_call_records_the_real_return_address(void **state)
{
	struct tr_case *tc = *state;
	char pid_dir[PATH_MAX], path[PATH_MAX + 96], err[PATH_MAX + 256];
	const struct atfr_detail_rec *f_call = NULL, *g_call = NULL, *f_ret = NULL;
	uint64_t f_fid, g_fid;

	hj_build(tc, "hijack_tail", "-O2");
	hj_expect_jump(tc, "hijack_tail", "f", "g");
	hj_run(tc, "hijack_tail", NULL, NULL, 0, NULL);
	tr_load_manifest(tc, NULL);
	f_fid = symbol_fid(tc->mf.text, "f");
	g_fid = symbol_fid(tc->mf.text, "g");
	only_pid_dir(tc->trace, pid_dir, sizeof(pid_dir));
	snprintf(path, sizeof(path), "%s/thread_0/detail.atf", pid_dir);
	if (atfr_read_detail(path, &cur.dt, err, sizeof(err)))
		fail_msg("%s", err);
	for (uint64_t i = 0; i < cur.dt.event_count; i++) {
		const struct atfr_detail_rec *d = &cur.dt.recs[i];

		if (d->event_type == ATFR_DETAIL_CALL && d->function_id == f_fid && !f_call)
			f_call = d;
		if (d->event_type == ATFR_DETAIL_CALL && d->function_id == g_fid && !g_call)
			g_call = d;
		if (d->event_type == ATFR_DETAIL_RETURN && d->function_id == f_fid && !f_ret)
			f_ret = d;
	}
	if (!f_call || !g_call)
		fail_msg("no CALL record of f or g in %s", path);
	if (g_call->sp != f_call->sp || g_call->lr != f_call->lr)
		fail_msg("g, tail-called by f on its slot: sp 0x%" PRIx64 " lr 0x%" PRIx64
			 ", expected f's sp 0x%" PRIx64 " and lr 0x%" PRIx64 " (in main)",
			 g_call->sp, g_call->lr, f_call->sp, f_call->lr);
	if (!f_ret)
		fail_msg("no RETURN record of f in %s", path);
	if (!(f_ret->flags & ATFR_FLAG_NOVALUE) != hj_hijacks())
		fail_msg("f's return record has flags 0x%x: %s", f_ret->flags,
			 hj_hijacks() ? "a value (g's) was expected" : "no value (bit 1) was expected");
	for (int i = 0; !hj_hijacks() && i < 8; i++)
		if (f_ret->regs[i] || f_ret->fregs[i])
			fail_msg("f's return without a value holds regs[%d] 0x%" PRIx64 ", fregs[%d] 0x%" PRIx64,
				 i, f_ret->regs[i], i, f_ret->fregs[i]);
	if (f_ret->sp != f_call->sp)
		fail_msg("f's return record: sp 0x%" PRIx64 ", its call's 0x%" PRIx64, f_ret->sp, f_call->sp);
	tr_pass(tc);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(registers_and_stack_are_exact_O0),
		TEST(registers_and_stack_are_exact_O2),
		TEST(stack_window_follows_ada_stack_bytes),
		TEST(detail_off_writes_no_detail),
		TEST(call_window_starts_with_return_address),
		TEST(tail_call_records_the_real_return_address),
	};

	tr_scrub_environment();
	/* Every detail record written (the default writes them in windows
	 * around triggers only: test_windows): these tests check them all. */
	setenv("ADA_DETAIL", "all", 1);
	return hj_run_groups("detail", tests, sizeof(tests) / sizeof(tests[0]));
}
