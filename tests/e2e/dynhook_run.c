/* dynhook_run.c - how the test_dynhook*.c tests build and run their
 * programs and check their traces (see dynhook_run.h).
 */
#include "e2e/dynhook_run.h"

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

#include "e2e/dynhook_view.h"
#include "lib/atf_read.h"
#include "lib/proc.h"
#include "lib/tracerun.h"

/* ---- traces ----------------------------------------------------------------------- */

/* The only "<trace>/session_*" in buf. */
static void session_dir(const char *trace, char *buf, size_t size)
{
	DIR *d = opendir(trace);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		if (dh_starts_with(de->d_name, "session_") && n++ == 0 &&
		    snprintf(buf, size, "%s/%s", trace, de->d_name) >= (int)size)
			fail_msg("%s/%s: path too long", trace, de->d_name);
	if (d)
		closedir(d);
	if (n != 1)
		fail_msg("%d session_* entries in %s, expected 1", n, trace);
}

/* Calls fn with each "<session>/pid_*" directory of trace; returns how many. */
static size_t for_each_pid(const char *trace, void (*fn)(const char *pid, void *arg), void *arg)
{
	char session[PATH_MAX], pid[PATH_MAX + 300];
	struct dirent **list = NULL;
	int n;
	size_t pids = 0;

	session_dir(trace, session, sizeof(session));
	n = scandir(session, &list, NULL, alphasort);
	if (n < 0)
		fail_msg("%s: %s", session, strerror(errno));
	for (int i = 0; i < n; i++) {
		if (dh_starts_with(list[i]->d_name, "pid_")) {
			snprintf(pid, sizeof(pid), "%s/%s", session, list[i]->d_name);
			pids++;
			if (fn)
				fn(pid, arg);
		}
		free(list[i]);
	}
	free(list);
	return pids;
}

/* One process: every thread's CALLs = RETURNs + EXCEPTIONs, in its
 * index.atf as the tests' own reader (tests/lib/atf_read.c) reads it. */
static void balanced_pid(const char *pid, void *arg)
{
	char path[PATH_MAX + 600], err[PATH_MAX + 256];
	DIR *d = opendir(pid);
	struct dirent *de;

	if (!d)
		fail_msg("%s: %s", pid, strerror(errno));
	while ((de = readdir(d))) {
		struct atfr_index ix;
		uint64_t kinds[4] = { 0 };

		if (!dh_starts_with(de->d_name, "thread_"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/index.atf", pid, de->d_name);
		if (atfr_read_index(path, &ix, err, sizeof(err)) < 0) {
			closedir(d);
			fail_msg("%s", err);
		}
		for (uint32_t i = 0; i < ix.event_count; i++)
			kinds[ix.events[i].kind & 3]++;
		atfr_index_free(&ix);
		if (kinds[ATFR_CALL] != kinds[ATFR_RETURN] + kinds[ATFR_EXCEPTION]) {
			closedir(d);
			fail_msg("%s: %" PRIu64 " CALLs, %" PRIu64 " RETURNs, %" PRIu64 " EXCEPTIONs",
				 path, kinds[ATFR_CALL], kinds[ATFR_RETURN], kinds[ATFR_EXCEPTION]);
		}
		(*(size_t *)arg)++;
	}
	closedir(d);
}

/* Every thread of every process of the trace is balanced; returns the
 * number of processes. */
size_t dh_expect_balanced(const char *trace)
{
	size_t threads = 0, pids = for_each_pid(trace, balanced_pid, &threads);

	if (!threads)
		fail_msg("no thread_* directory in %s", trace);
	return pids;
}

struct names_arg {
	struct names *nm;
	const struct tr_case *tc;
};

static void names_of_pid(const char *pid, void *arg)
{
	struct names_arg *a = arg;
	char path[PATH_MAX + 32];
	char *text;

	snprintf(path, sizeof(path), "%s/manifest.json", pid);
	text = proc_read_file(path, NULL);
	if (!text)
		fail_msg("%s: %s", path, strerror(errno));
	dh_names_add(a->nm, a->tc, text);
	free(text);
}

/* dh_expect_direct_tree() for a trace of several processes (tc->replay holds
 * them all), the program's functions taken from every manifest. */
void dh_expect_direct_trees(const struct tr_case *tc, const char *trace, const char *expected)
{
	struct view v = { VIEW_DIRECT, NULL, &dh_scratch.nm };
	struct names_arg a = { &dh_scratch.nm, tc };

	dh_names_free(&dh_scratch.nm);
	for_each_pid(trace, names_of_pid, &a);
	dh_expect_view(tc, &v, expected);
	dh_names_free(&dh_scratch.nm);
}

static void expect_no_drops(const struct tr_case *tc)
{
	for (unsigned r = 0; r < TR_NDROPS; r++)
		if (tc->mf.dropped[r])
			fail_msg("manifest: %" PRIu64 " %s drops\n%s", tc->mf.dropped[r],
				 tr_drop_names[r], tc->mf.text);
	for (size_t t = 0; t < tc->mf.nthreads; t++)
		for (unsigned r = 0; r < TR_NDROPS; r++)
			if (tc->mf.threads[t].dropped[r])
				fail_msg("manifest: thread %" PRIu64 " dropped %s\n%s",
					 tc->mf.threads[t].id, tr_drop_names[r], tc->mf.text);
}

/* Runs <exe>.plain and <exe> (args for each, env for the traced one) into
 * the trace <dir>/<name>; both must exit with status and print the same.
 * Then: symbolized, --check passes, balanced, the manifest loaded, no drops.
 * tc->replay holds the call trees. */
void dh_run_args(struct tr_case *tc, const char *exe, const char *name,
		 const char *const plain_args[], const char *const traced_args[],
		 const char *const env[], int status)
{
	char trace[PATH_MAX], output[PATH_MAX + 16];
	const char *envp[16];
	size_t k = 0;

	tr_path(tc, name, trace);
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", trace);
	for (size_t i = 0; env && env[i] && k < 14; i++)
		envp[k++] = env[i];
	envp[k++] = output;
	envp[k] = NULL;
	tr_run_pair_args(tc, exe, plain_args, traced_args, envp, status);
	tr_symbolize(tc, trace);
	dh_expect_balanced(trace);
	tr_load_manifest(tc, trace);
	expect_no_drops(tc);
}

void dh_run(struct tr_case *tc, const char *exe, const char *name, const char *const env[],
	    int status)
{
	dh_run_args(tc, exe, name, NULL, NULL, env, status);
}

/* ---- builds ----------------------------------------------------------------------- */

void dh_make_dir(const struct tr_case *tc, const char *sub)
{
	char dir[PATH_MAX];

	if (mkdir(tr_path(tc, sub, dir), 0755) < 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", dir, strerror(errno));
}

/* NULL-terminated concatenation of two NULL-terminated lists (32 at most). */
static const char **cat_flags(const char **out, const char *const a[], const char *const b[])
{
	size_t n = 0;

	for (size_t i = 0; a && a[i] && n < 31; i++)
		out[n++] = a[i];
	for (size_t i = 0; b && b[i] && n < 31; i++)
		out[n++] = b[i];
	out[n] = NULL;
	return out;
}

/* <dir>/<sub>/libplain.so with gcc -O2 and extra flags. */
void dh_build_libplain(const struct tr_case *tc, const char *sub, const char *const extra[])
{
	static const char *const base[] = { "-O2", "-shared", "-fPIC", NULL };
	const char *flags[32];
	char out[PATH_MAX];

	snprintf(out, sizeof(out), "%s/libplain.so", sub);
	tr_build(tc, NULL, "gcc", DH_PROGS "plain.c", out, cat_flags(flags, base, extra));
}

/* <dir>/<sub>/<name>.plain (gcc) and <dir>/<sub>/<name> (adacc in `mode`)
 * from prog, linked with <sub>/libplain.so, both with extra flags. */
void dh_build_against_libplain(const struct tr_case *tc, const char *sub, const char *prog,
			       const char *name, const char *mode, const char *const extra[])
{
	char lflag[PATH_MAX + 8], rpath[64], out[PATH_MAX], mode_flag[32];
	const char *const link[] = { "-O2", lflag, "-lplain", rpath, NULL };
	const char *const traced[] = { mode_flag, NULL };
	const char *flags[32], *all[32];

	snprintf(lflag, sizeof(lflag), "-L%s", sub);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,$ORIGIN");
	snprintf(mode_flag, sizeof(mode_flag), "--ada-mode=%s", mode);
	cat_flags(flags, link, extra);
	snprintf(out, sizeof(out), "%s/%s.plain", sub, name);
	tr_build(tc, NULL, "gcc", prog, out, flags);
	snprintf(out, sizeof(out), "%s/%s", sub, name);
	tr_build(tc, NULL, TR_ADACC, prog, out, cat_flags(all, flags, traced));
}

/* <dir>/<name>.plain (gcc) and <dir>/<name> (adacc in fentry mode) from
 * DH_PROGS <name>.c, both -O2 with extra flags (NULL-terminated, may be NULL). */
void dh_build_fentry_pair(const struct tr_case *tc, const char *name,
			  const char *const extra[])
{
	static const char *const base[] = { "-O2", NULL };
	static const char *const mode[] = { "--ada-mode=fentry", NULL };
	const char *flags[32], *traced[32];
	char prog[PATH_MAX], out[PATH_MAX];

	snprintf(prog, sizeof(prog), DH_PROGS "%s.c", name);
	snprintf(out, sizeof(out), "%s.plain", name);
	tr_build(tc, NULL, "gcc", prog, out, cat_flags(flags, base, extra));
	tr_build(tc, NULL, TR_ADACC, prog, name, cat_flags(traced, flags, mode));
}

/* The output of a tool run in the case directory (fails the test unless it
 * exits 0), malloc'd. */
char *dh_tool_output(const struct tr_case *tc, const char *const argv[])
{
	struct proc_result res = { 0 };
	char cmd[2048];
	char *out;

	tr_run(tc, argv, NULL, &res);
	if (proc_exit_code(&res) != 0) {
		print_error("%s", res.err);
		proc_result_free(&res);
		fail_msg("%s failed", proc_cmdline(argv, cmd, sizeof(cmd)));
	}
	out = res.out;
	res.out = NULL;
	proc_result_free(&res);
	return out;
}

const char *dh_line_ending(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len > n + 2 && !memcmp(p + len - n - 2, "  ", 2) && !memcmp(p + len - n, name, n))
			return p;
		p += len + (eol != NULL);
	}
	fail_msg("no line ends with \"  %s\" in:\n%s", name, text);
	return NULL;
}

/* ---- the manifest ----------------------------------------------------------------- */

/* The numeric value of key in the manifest's "dynamic_hooks" object. */
double dh_hooks_value(const struct tr_case *tc, const char *key)
{
	const char *p = strstr(tc->mf.text, "\n  \"dynamic_hooks\": {"), *end;
	char v[64];

	if (!p)
		fail_msg("manifest.json has no \"dynamic_hooks\":\n%s", tc->mf.text);
	end = strchr(p, '}');
	if (!tr_json_value(p, end, key, v, sizeof(v)))
		fail_msg("manifest.json: no \"%s\" in \"dynamic_hooks\":\n%.*s", key,
			 (int)(end - p + 1), p);
	return strtod(v, NULL);
}

/* The line of the manifest's first module whose path ends with suffix, in
 * [*line, *end); false if there is none. */
static bool module_line(const struct tr_case *tc, const char *suffix, const char **line,
			const char **end)
{
	const char *p = strstr(tc->mf.text, "\n  \"modules\": [\n");

	while (p && (p = strstr(p + 1, "\n    {\"module_id\": "))) {
		const char *e = strchr(p + 1, '\n');
		char path[PATH_MAX];

		if (!e || !tr_json_value(p, e, "path", path, sizeof(path)))
			break;
		if (dh_ends_with(path, suffix)) {
			*line = p + 1;
			*end = e;
			return true;
		}
	}
	return false;
}

/* The "mode" of the manifest's module whose path ends with suffix. */
static void module_mode(const struct tr_case *tc, const char *suffix, char *mode, size_t size)
{
	const char *line, *end;

	if (!module_line(tc, suffix, &line, &end))
		fail_msg("manifest.json lists no module *%s:\n%s", suffix, tc->mf.text);
	if (!tr_json_value(line, end, "mode", mode, size))
		fail_msg("manifest.json: module *%s has no mode", suffix);
}

void dh_expect_module_mode(const struct tr_case *tc, const char *suffix, const char *want)
{
	char mode[64];

	module_mode(tc, suffix, mode, sizeof(mode));
	if (strcmp(mode, want) != 0)
		fail_msg("manifest.json: module *%s has mode \"%s\", expected \"%s\"\n%s", suffix,
			 mode, want, tc->mf.text);
}

/* ---- teardown --------------------------------------------------------------------- */

int dh_teardown(void **state)
{
	dh_names_free(&dh_scratch.nm);
	free(dh_scratch.dump);
	dh_scratch.dump = NULL;
	return tr_teardown(state);
}
