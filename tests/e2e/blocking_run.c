/* blocking_run.c - the ADA_BLOCKING tests' shared steps (blocking_run.h). */
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
#include "lib/tracee.h"

void blk_build_run(struct tr_case *tc, const char *prog, const char *const env[])
{
	const char *const flags[] = { "-O2", "-pthread", NULL };
	const char *const traced[] = { "-O2", "-pthread", "--ada-mode=fentry", NULL };

	tr_build(tc, NULL, "gcc", prog, "prog.plain", flags);
	tr_build(tc, NULL, TR_ADACC, prog, "prog", traced);
	tr_run_pair(tc, "prog", NULL, env, 0);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
}

char *blk_view(const struct tr_case *tc, const char *view, const char *opt)
{
	const char *const argv[] = { TRACEE_SYMBOLIZE, view, tc->trace, opt, NULL };

	return dh_tool_output(tc, argv);
}

/* The table's rows: the lines after the "====" line, up to a line that is
 * not one of them. Calls row(ctx, line, its length) for each row and each
 * waker line (those start with spaces, then "woken"). */
static void each_line(const char *waits, void (*row)(void *ctx, const char *line, size_t len),
		      void *ctx)
{
	const char *p = strstr(waits, "  ==========");

	for (p = p ? strchr(p, '\n') : NULL; p && *++p == ' ';) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		row(ctx, p, len);
		p = eol;
	}
}

static bool is_waker(const char *line)
{
	return !strncmp(line + strspn(line, " "), "woken ", 6);
}

static void count_row(void *ctx, const char *line, size_t len)
{
	(void)len;
	*(size_t *)ctx += !is_waker(line);
}

size_t blk_rows(const char *waits)
{
	size_t n = 0;

	each_line(waits, count_row, &n);
	return n;
}

struct find {
	const char *func, *wait;
	struct blk_row row;
	size_t found;
	bool in_row; /* the waker lines after it are its */
};

static void find_row(void *ctx, const char *line, size_t len)
{
	struct find *f = ctx;
	struct blk_row r = { 0 };
	char func[256];
	int at = 0;

	if (is_waker(line)) {
		size_t have = strlen(f->row.wakers), skip = strspn(line, " ");

		if (f->in_row)
			snprintf(f->row.wakers + have, sizeof(f->row.wakers) - have, "%.*s\n",
				 (int)(len - skip), line + skip);
		return;
	}
	f->in_row = sscanf(line, "%lu %ld %ld %lu %255s %n", &r.waits, &r.total, &r.max, &r.woken,
			   func, &at) == 5 && at && !strcmp(func, f->func) &&
		    !strncmp(line + at, f->wait, strlen(f->wait));
	if (f->in_row) {
		f->row = r;
		f->found++;
	}
}

struct blk_row blk_row(const char *waits, const char *func, const char *wait)
{
	struct find f = { .func = func, .wait = wait };

	each_line(waits, find_row, &f);
	if (f.found != 1)
		fail_msg("waits: %zu rows of %s %s in:\n%s", f.found, func, wait, waits);
	return f.row;
}

void blk_expect_row(const char *waits, const char *func, const char *wait, unsigned long n,
		    unsigned tid, const char *waker)
{
	struct blk_row r = blk_row(waits, func, wait);
	char want[256], *by = strstr(r.wakers, " by thread "), *tail;

	snprintf(want, sizeof(want), " (tid %u) in %s\n", tid, waker ? waker : "");
	tail = by ? strchr(by, '(') : NULL;
	if (r.waits != n || r.total < 18 * BLK_MS * (long)n || r.total >= 500 * BLK_MS * (long)n ||
	    r.max < 18 * BLK_MS || r.max > r.total)
		fail_msg("waits: %s %s: %lu waits, %ld ns in all, at most %ld; expected %lu of "
			 "18 to 500 ms:\n%s", func, wait, r.waits, r.total, r.max, n, waits);
	if (!waker ? r.woken || *r.wakers :
		     r.woken != n || !tail || strcmp(tail - 1, want) ||
		     strncmp(r.wakers, "woken ", 6) || strtoul(r.wakers + 6, NULL, 10) != n ||
		     strchr(r.wakers, '\n')[1])
		fail_msg("waits: %s %s: woken %lu by \"%s\", expected %s%lu by%s:\n%s", func, wait,
			 r.woken, r.wakers, waker ? "" : "none of ", n, want, waits);
}
