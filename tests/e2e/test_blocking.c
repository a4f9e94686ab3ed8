/* test_blocking.c - ADA_BLOCKING=1 end to end: waits and releases seen
 * through the PLT hooks (mcount/blocking.c), in report's Blocked column
 * and as the Chrome export's flows from a waker to the wait it ended.
 *
 * tests/e2e/progs/blocking.c (see there), -O2, fentry. What each check
 * asserts, and why it holds on a busy machine:
 * - waiter_b's Blocked (its pthread_mutex_lock's wait) is at least 18 ms:
 *   A holds the mutex 20 ms after B's wait has begun (glibc's lock word
 *   says a waiter is in the lock before A's hold starts) and a sleep never
 *   returns early, so the wait is at least 20 ms of the clock ada reads;
 *   the 2 ms are the margin the brief asks for, far above the tick-to-ns
 *   conversion's error (under a microsecond).
 * - pthread_cond_wait's Blocked is at least 28 ms: main sleeps 30 ms after
 *   it took the mutex, which it can only once C's wait released it.
 * - The waker: a flow ("s" then "f", one id) from A's thread (the tid the
 *   program printed) to B's, the "s" inside A's pthread_mutex_unlock
 *   slice, the "f" inside B's pthread_mutex_lock slice of 18 ms or more;
 *   and one from main's thread to C's cond_wait. In the Perfetto export
 *   the same flows: a "wake" instant with a flow id on A's thread track, a
 *   "woken" one ending it on B's (where protoc is).
 * - flame --weight blocked: waiter_b;pthread_mutex_lock weighs at least 18
 *   ms, cond_c;pthread_cond_wait at least 28 ms.
 * - waits: 5 waits in 5 rows (a lock each in holder_a, waiter_b, cond_c
 *   and main, cond_c's condition wait); waiter_b's lock woken once by A's
 *   thread in holder_a, cond_c's condition wait once by main's thread in
 *   main, each 18 to 500 ms (blocking_run.h).
 * Off (the default): no Blocked column, no flow, the configuration says
 * blocking=off, waits says in one line that there is none (exit 0), info
 * has no blocking line.
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

#include "e2e/blocking_run.h"
#include "e2e/dynhook_run.h"
#include "e2e/export_view.h"
#include "lib/tracee.h"
#include "lib/tracerun.h"

#define MS BLK_MS

/* report --ns's Blocked column: the number just before the name. */
static long blocked(const char *report, const char *name)
{
	const char *line = dh_line_ending(report, name), *end = strchr(line, '\n');
	const char *p = (end ? end : line + strlen(line)) - strlen(name) - 2;

	while (p > line && p[-1] == ' ')
		p--;
	while (p > line && p[-1] != ' ')
		p--;
	return strtol(p, NULL, 10);
}

/* Whether thread tid has a slice of name around ts lasting at least min. */
static bool inside(const struct xtrace *x, uint32_t tid, const char *name, int64_t ts, int64_t min)
{
	for (size_t i = 0; i < x->n; i++) {
		const struct xslice *s = &x->slices[i];

		if (s->tid == tid && !strcmp(s->name, name) && s->ts <= ts && ts <= s->ts + s->dur &&
		    s->dur >= min)
			return true;
	}
	return false;
}

/* The flow from waker's thread to waiter's, as the top says. */
static void expect_flow(const struct xtrace *x, uint32_t waker, uint32_t waiter, const char *wait,
			int64_t min)
{
	size_t n = json_count(x->events);

	for (size_t i = 0; i < n; i++) {
		const struct json_value *s = json_at(x->events, i);
		int64_t id, tid, ts;

		if (strcmp(json_string(json_get(s, "ph")), "s") || !json_i64(json_get(s, "id"), &id) ||
		    !json_i64(json_get(s, "tid"), &tid) || tid != waker)
			continue;
		if (!xtrace_time_ns(json_get(s, "ts"), &ts) ||
		    !inside(x, waker, "pthread_mutex_unlock", ts, 0))
			continue;
		for (size_t j = 0; j < n; j++) {
			const struct json_value *f = json_at(x->events, j);
			int64_t fid, ftid, fts;

			if (strcmp(json_string(json_get(f, "ph")), "f") ||
			    !json_i64(json_get(f, "id"), &fid) || fid != id ||
			    !json_i64(json_get(f, "tid"), &ftid) || ftid != waiter)
				continue;
			if (xtrace_time_ns(json_get(f, "ts"), &fts) && inside(x, waiter, wait, fts, min))
				return;
		}
	}
	fail_msg("no flow from thread %u's unlock to thread %u's %s", waker, waiter, wait);
}

/* The tid of the thread whose track is uuid, 0 if none. */
static uint64_t track_tid(const struct pnode *root, uint64_t uuid)
{
	for (size_t i = 0; i < root->nkids; i++) {
		const struct pnode *td = pnode_get(&root->kids[i], 60), *th;
		uint64_t u = 0, tid = 0;

		if (td && pnode_u64(td, 1, &u) && u == uuid && (th = pnode_get(td, 4)) &&
		    pnode_u64(th, 2, &tid))
			return tid;
	}
	return 0;
}

/* The id of a flow's instant (field: 47 its start, 48 its end), from its
 * fixed64's text ("0x..."); 0 if it has none. */
static uint64_t flow_id(const struct pnode *te, uint32_t field)
{
	const struct pnode *f = pnode_get(te, field);

	return f && f->value ? strtoull(f->value, NULL, 0) : 0;
}

static void expect_perfetto_flow(struct tr_case *tc, const struct ex_trace *t, uint64_t waker,
				 uint64_t waiter)
{
	char out[PATH_MAX];
	struct pnode root = { 0 };

	if (!tr_have_tool("protoc")) {
		print_message("protoc missing: the Perfetto flows not checked\n");
		return;
	}
	tr_path(tc, "flows.pftrace", out);
	ex_run_view(tc, "perfetto", t, NULL, out);
	ex_decode_raw(tc, out, &root);
	for (size_t i = 0; i < root.nkids; i++) {
		const struct pnode *s = pnode_get(&root.kids[i], 11);
		uint64_t id = s ? flow_id(s, 47) : 0, track = 0;

		if (!id || !pnode_u64(s, 11, &track) || track_tid(&root, track) != waker)
			continue;
		for (size_t j = 0; j < root.nkids; j++) {
			const struct pnode *e = pnode_get(&root.kids[j], 11);

			if (e && flow_id(e, 48) == id && pnode_u64(e, 11, &track) &&
			    track_tid(&root, track) == waiter) {
				pnode_free(&root);
				return;
			}
		}
	}
	fail_msg("perfetto: no flow from thread %lu to thread %lu", (unsigned long)waker,
		 (unsigned long)waiter);
}

/* flame's weight of exactly the stack given. */
static long folded(const char *text, const char *stack)
{
	size_t n = strlen(stack);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, stack, n) && p[n] == ' ')
			return strtol(p + n + 1, NULL, 10);
	fail_msg("flame: no stack %s in:\n%s", stack, text);
	return 0;
}

static void on(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_BLOCKING=1", "ADA_DYNHOOK=on", NULL };
	const char *const argv[] = { TRACEE_SYMBOLIZE, "report", tc->trace, "--ns", NULL };
	const char *const fargv[] = { TRACEE_SYMBOLIZE, "flame", tc->trace, "--weight", "blocked",
				      NULL };
	struct ex_trace t = { .ready = true };
	unsigned a, b, c, main_tid;
	struct xtrace x;
	char *report, *flame, *waits;

	blk_build_run(tc, "blocking", env);
	if (sscanf(tc->traced.err, "a %u b %u c %u", &a, &b, &c) != 3)
		fail_msg("the program printed \"%s\"", tc->traced.err);
	report = dh_tool_output(tc, argv);
	if (blocked(report, "waiter_b") < 18 * MS || blocked(report, "pthread_cond_wait") < 28 * MS)
		fail_msg("waiter_b blocked %ld ns, pthread_cond_wait %ld:\n%s",
			 blocked(report, "waiter_b"), blocked(report, "pthread_cond_wait"), report);
	snprintf(t.trace, sizeof(t.trace), "%s", tc->trace);
	ex_chrome(tc, &t, NULL, &x);
	main_tid = x.slices[0].pid;
	expect_flow(&x, a, b, "pthread_mutex_lock", 18 * MS);
	expect_flow(&x, main_tid, c, "pthread_cond_wait", 28 * MS);
	expect_perfetto_flow(tc, &t, a, b);
	expect_perfetto_flow(tc, &t, main_tid, c);
	flame = dh_tool_output(tc, fargv);
	if (folded(flame, "waiter_b;pthread_mutex_lock") < 18 * MS ||
	    folded(flame, "cond_c;pthread_cond_wait") < 28 * MS)
		fail_msg("flame --weight blocked:\n%s", flame);
	waits = blk_view(tc, "waits", "--ns");
	if (!strstr(waits, "\n5 waits, ") || blk_rows(waits) != 5)
		fail_msg("waits: expected 5 waits in 5 rows:\n%s", waits);
	blk_expect_row(waits, "waiter_b", "pthread_mutex_lock(", 1, a, "holder_a");
	blk_expect_row(waits, "cond_c", "pthread_cond_wait(", 1, main_tid, "main");
	xtrace_free(&x);
	free(report);
	free(flame);
	free(waits);
	tr_pass(tc);
}

static void off_by_default(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DYNHOOK=on", NULL };
	const char *const argv[] = { TRACEE_SYMBOLIZE, "report", tc->trace, NULL };
	struct ex_trace t = { .ready = true };
	struct xtrace x;
	char *report, *waits, *info;

	blk_build_run(tc, "blocking", env);
	report = dh_tool_output(tc, argv);
	waits = blk_view(tc, "waits", NULL);
	info = blk_view(tc, "info", NULL);
	if (!strstr(waits, "\nno wait recorded (a trace recorded with ADA_BLOCKING=1 has them)\n") ||
	    strstr(info, "  blocking "))
		fail_msg("without ADA_BLOCKING, waits:\n%s\ninfo:\n%s", waits, info);
	free(waits);
	free(info);
	snprintf(t.trace, sizeof(t.trace), "%s", tc->trace);
	ex_chrome(tc, &t, NULL, &x);
	for (size_t i = 0; i < json_count(x.events); i++)
		if (!strcmp(json_string(json_get(json_at(x.events, i), "ph")), "s"))
			fail_msg("a flow without ADA_BLOCKING");
	if (strstr(report, "Blocked") || !strstr(tc->mf.config, "blocking=off"))
		fail_msg("blocking without ADA_BLOCKING (config %s):\n%s", tc->mf.config, report);
	xtrace_free(&x);
	free(report);
	tr_pass(tc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(on, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(off_by_default, tr_setup, tr_teardown),
	};

	tr_scrub_environment(); /* no ADA_* of the caller's (make sanitize sets some) */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
