/* view_stats.c - what test_views.c compares: per-function figures computed
 * from the ATF of a trace with the tests' own reader, and the same figures
 * read from `ada-symbolize report --ns`.
 */
#include <glob.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e/view_stats.h"
#include "lib/atf_read.h"
#include "lib/proc.h"
#include "lib/tracerun.h"

#define SYM ADA_ROOT "/bin/ada-symbolize"

/* ---- what the ATF says -------------------------------------------------- */

struct fstat *stat_of(struct stats *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].name, name))
			return &s->f[i];
	assert_true(s->n < MAXF);
	snprintf(s->f[s->n].name, sizeof(s->f[s->n].name), "%s", name);
	return &s->f[s->n++];
}

struct symname {
	uint64_t fid;
	char name[128];
};

/* The manifest's symbols: one per line, "function_id" before "name". */
static size_t load_names(const char *manifest, struct symname *v, size_t cap)
{
	const char *p = manifest;
	size_t n = 0;

	while ((p = strstr(p, "\"function_id\": \"0x")) && n < cap) {
		const char *nm = strstr(p, "\"name\": \"");

		v[n].fid = strtoull(p + strlen("\"function_id\": \"0x"), NULL, 16);
		assert_non_null(nm);
		nm += strlen("\"name\": \"");
		snprintf(v[n].name, sizeof(v[n].name), "%.*s", (int)strcspn(nm, "\"@"), nm);
		n++;
		p = nm;
	}
	return n;
}

static const char *name_of(const struct symname *v, size_t n, uint64_t fid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].fid == fid)
			return v[i].name;
	fail_msg("function_id 0x%" PRIx64 " not in the manifest", fid);
	return NULL;
}

struct open_frame {
	uint64_t fid, start, child;
	bool shown;
	uint32_t shown_depth;
};

/* One thread's index.atf into s, through w. t0: the process's first event. */
static void atf_thread(const char *path, const struct symname *names, size_t nnames, uint64_t t0,
		       const struct want *w, struct stats *s)
{
	struct open_frame st[512];
	struct atfr_index idx;
	char err[512];
	size_t depth = 0, i;
	uint32_t excluded_at = 0, only_at = 0, shown = 0;

	if (atfr_read_index(path, &idx, err, sizeof(err)))
		fail_msg("%s", err);
	for (i = 0; i < idx.event_count; i++) {
		const struct atfr_event *e = &idx.events[i];

		if (e->kind == ATFR_CALL) {
			const char *nm = name_of(names, nnames, e->function_id);
			struct open_frame *f = &st[depth++];
			uint64_t t = e->timestamp_ns - t0;

			assert_true(depth < 512);
			*f = (struct open_frame){ .fid = e->function_id, .start = e->timestamp_ns };
			if (!excluded_at && w->notrace && !strcmp(nm, w->notrace))
				excluded_at = (uint32_t)depth;
			if (!only_at && w->only && !strcmp(nm, w->only))
				only_at = (uint32_t)depth;
			f->shown = !excluded_at && (!w->only || only_at) &&
				   (!w->depth || shown < w->depth) &&
				   (!w->range || (t >= w->lo && t < w->hi));
			if (f->shown)
				f->shown_depth = ++shown;
			continue;
		}
		{
			struct open_frame *f = &st[--depth];
			uint64_t dur = e->timestamp_ns - f->start;
			size_t k;

			if (excluded_at == depth + 1)
				excluded_at = 0;
			if (only_at == depth + 1)
				only_at = 0;
			if (f->shown)
				shown = f->shown_depth - 1;
			if (!f->shown || dur < w->min_ns)
				continue;
			{
				struct fstat *fs = stat_of(s, name_of(names, nnames, f->fid));

				if (!fs->calls++ || dur < fs->min)
					fs->min = dur;
				if (dur > fs->max)
					fs->max = dur;
				fs->total += dur;
				fs->self += dur - f->child;
			}
			for (k = depth; k-- > 0;)
				if (st[k].shown) {
					st[k].child += dur;
					break;
				}
		}
	}
	atfr_index_free(&idx);
}

/* The first pid directory of trace (the only one, or the parent's). */
void pid_dirs(const char *trace, glob_t *g)
{
	char pattern[4300];

	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_*", trace);
	assert_int_equal(glob(pattern, 0, NULL, g), 0);
}

void atf_stats(const char *pid_dir, const struct want *w, struct stats *s)
{
	static struct symname names[4096];
	char path[4400], *manifest;
	glob_t g;
	size_t nn, i;
	uint64_t t0;
	const char *p;

	snprintf(path, sizeof(path), "%s/manifest.json", pid_dir);
	manifest = proc_read_file(path, NULL);
	assert_non_null(manifest);
	nn = load_names(manifest, names, 4096);
	p = strstr(manifest, "\"time_start_ns\": ");
	assert_non_null(p);
	t0 = strtoull(p + strlen("\"time_start_ns\": "), NULL, 10);
	snprintf(path, sizeof(path), "%s/thread_*/index.atf", pid_dir);
	assert_int_equal(glob(path, 0, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++) {
		unsigned id;

		assert_int_equal(sscanf(strstr(g.gl_pathv[i], "thread_"), "thread_%u", &id), 1);
		if (w->thread >= 0 && (long)id != w->thread)
			continue;
		atf_thread(g.gl_pathv[i], names, nn, t0, w, s);
	}
	globfree(&g);
	free(manifest);
}

/* ---- what the views say ---------------------------------------------------- */

/* Runs ada-symbolize with argv (NULL-terminated, after the program name). */
void run_sym(const char *const *args, struct proc_result *res)
{
	const char *argv[32] = { SYM };
	size_t n = 1;

	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	assert_int_equal(proc_run(argv, NULL, NULL, TR_TOOL_TIMEOUT_MS, res), 0);
}

char *view_ok(const char *const *args)
{
	struct proc_result res;
	char *out;

	run_sym(args, &res);
	if (proc_exit_code(&res) != 0)
		fail_msg("ada-symbolize %s %s: exit %d: %s", args[0], args[1], proc_exit_code(&res),
			 res.err);
	assert_string_equal(res.err, "");
	out = res.out;
	res.out = NULL;
	proc_result_free(&res);
	return out;
}

/* report --ns's rows into s. */
void parse_report(const char *text, struct stats *s)
{
	const char *line = text;

	for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		struct fstat f = { 0 };
		uint64_t avg;
		char name[128];

		if (sscanf(line, " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %127[^\n]", &f.total, &f.self, &f.calls, &avg, &f.min, &f.max, name) != 7)
			continue;
		assert_int_equal(avg, f.total / f.calls);
		snprintf(f.name, sizeof(f.name), "%s", name);
		*stat_of(s, name) = f;
	}
}

void expect_same(const struct stats *got, const struct stats *want, const char *what)
{
	size_t i;

	if (got->n != want->n)
		fail_msg("%s: %zu functions in the report, %zu in the ATF", what, got->n, want->n);
	for (i = 0; i < want->n; i++) {
		const struct fstat *w = &want->f[i], *g = NULL;

		for (size_t k = 0; k < got->n; k++)
			if (!strcmp(got->f[k].name, w->name))
				g = &got->f[k];
		if (!g)
			fail_msg("%s: %s is not in the report", what, w->name);
		if (g->calls != w->calls || g->total != w->total || g->self != w->self ||
		    g->min != w->min || g->max != w->max)
			fail_msg("%s: %s: report calls %" PRIu64 " total %" PRIu64 " self %" PRIu64
				 " min %" PRIu64 " max %" PRIu64 "; ATF %" PRIu64 " %" PRIu64 " %" PRIu64
				 " %" PRIu64 " %" PRIu64, what, w->name, g->calls, g->total, g->self,
				 g->min, g->max, w->calls, w->total, w->self, w->min, w->max);
	}
}

/* The time of thread `thread`'s event i since the process's first event. */
uint64_t event_time(const char *pid_dir, unsigned thread, size_t i)
{
	char path[4400], err[512], *manifest;
	struct atfr_index idx;
	uint64_t t, t0;

	snprintf(path, sizeof(path), "%s/manifest.json", pid_dir);
	manifest = proc_read_file(path, NULL);
	assert_non_null(manifest);
	t0 = strtoull(strstr(manifest, "\"time_start_ns\": ") + strlen("\"time_start_ns\": "), NULL, 10);
	free(manifest);
	snprintf(path, sizeof(path), "%s/thread_%u/index.atf", pid_dir, thread);
	if (atfr_read_index(path, &idx, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(i < idx.event_count);
	t = idx.events[i].timestamp_ns - t0;
	atfr_index_free(&idx);
	return t;
}

void view_expect_error(const char *const *args, int status, const char *message)
{
	struct proc_result res;

	run_sym(args, &res);
	if (proc_exit_code(&res) != status || strcmp(res.err, message))
		fail_msg("ada-symbolize %s ...: exit %d, stderr \"%s\"; expected exit %d, \"%s\"", args[0],
			 proc_exit_code(&res), res.err, status, message);
	assert_string_equal(res.out, "");
	proc_result_free(&res);
}

/* ---- the traces ------------------------------------------------------------ */

static void first_pid_dir(const struct tr_case *tc, char *out, size_t len)
{
	glob_t g;

	pid_dirs(tc->trace, &g);
	snprintf(out, len, "%s", g.gl_pathv[0]);
	globfree(&g);
}

int view_fixture_setup(struct view_fixture *fx, void **state)
{
	/* demo with its library calls (the tests' default is without). */
	fx->demo = tr_traced_case("examples/demo.c", "demo", "fentry", "ADA_DYNHOOK=on");
	fx->rec = tr_traced_case("examples/recursion.c", "rec", "fentry", NULL);
	fx->fork = tr_traced_case("examples/fork.c", "fork", "cyg", NULL);
	first_pid_dir(fx->demo, fx->demo_pid, sizeof(fx->demo_pid));
	first_pid_dir(fx->rec, fx->rec_pid, sizeof(fx->rec_pid));
	*state = fx;
	return 0;
}

int view_fixture_teardown(void **state)
{
	struct view_fixture *fx = *state;
	struct tr_case **cases[] = { &fx->demo, &fx->rec, &fx->fork };

	if (!fx)
		return 0;
	for (size_t i = 0; i < 3; i++) {
		void *s = *cases[i];

		if (s)
			((struct tr_case *)s)->passed = fx->passed == fx->ntests;
		tr_teardown(&s);
	}
	return 0;
}
