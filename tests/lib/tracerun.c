/* tracerun.c - one traced program per test (see tracerun.h). */
#include "lib/tracerun.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "lib/calltree.h"
#include "lib/target.h"
#include "lib/textdiff.h"
#include "lib/tracee.h"

extern char **environ;

const char *const tr_drop_names[TR_NDROPS] = {
	"ring_full", "max_depth", "reentrant", "no_buffer", "after_exit", "unmatched",
};

/* ---- case set-up ------------------------------------------------------------ */

static bool opt_keep; /* ADA_TEST_KEEP */

int tr_setup(void **state)
{
	struct tr_case *tc = calloc(1, sizeof(*tc));

	if (!tc)
		return -1;
	tc->dir = proc_mkdtemp("ada-rt-");
	if (!tc->dir) {
		print_error("mkdtemp: %s\n", strerror(errno));
		free(tc);
		return -1;
	}
	snprintf(tc->trace, sizeof(tc->trace), "%s/trace", tc->dir);
	*state = tc;
	return 0;
}

static void manifest_free(struct tr_manifest *m)
{
	free(m->text);
	free(m->threads);
	free(m->modules);
	memset(m, 0, sizeof(*m));
}

int tr_teardown(void **state)
{
	struct tr_case *tc = *state;

	if (!tc)
		return 0;
	if (!tc->passed || opt_keep)
		print_message("kept %s\n", tc->dir);
	else if (proc_rm_rf(tc->dir) < 0)
		print_error("cannot remove %s\n", tc->dir);
	free(tc->dir);
	proc_result_free(&tc->plain);
	proc_result_free(&tc->traced);
	proc_result_free(&tc->sym);
	proc_result_free(&tc->check);
	proc_result_free(&tc->replay);
	manifest_free(&tc->mf);
	free(tc);
	*state = NULL;
	return 0;
}

void tr_pass(struct tr_case *tc)
{
	tc->passed = true;
}

void tr_scrub_environment(void)
{
	opt_keep = getenv("ADA_TEST_KEEP") != NULL;
	tracee_scrub_environment();
	/* The trees these tests expect are cyg mode's (every function, inlined
	 * ones too); fentry and mcount have tests of their own (test_hijack,
	 * test_unwind, test_examples), which name their mode. */
	setenv("ADA_MODE", "cyg", 1);
}

const char *tr_path(const struct tr_case *tc, const char *name, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/%s", tc->dir, name);
	return buf;
}

/* ---- running ------------------------------------------------------------------ */

static void start(const struct tr_case *tc, const char *const argv[], const char *const env[],
		  int timeout_ms, struct proc_result *res)
{
	char cmd[2048], why[64];
	int ret;

	const char *output = tc->trace;
	char path[2 * PATH_MAX + sizeof(tc->dir)];

	proc_result_free(res);
	ret = proc_run(argv, env, tc->dir, timeout_ms, res);
	if (ret < 0)
		fail_msg("cannot run %s: %s", proc_cmdline(argv, cmd, sizeof(cmd)), strerror(-ret));
	/* Its trace complete before the test looks at it (its recorder may
	 * finish it after the program ended), as ada-symbolize waits. */
	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], "ADA_OUTPUT=", 11))
			output = env[i] + 11;
	if (output[0] != '/') {
		snprintf(path, sizeof(path), "%s/%s", tc->dir, output);
		output = path;
	}
	if (tracee_settle(output) < 0)
		fail_msg("%s: its recorder did not finish the trace in 30 s",
			 proc_cmdline(argv, cmd, sizeof(cmd)));
	if (res->timed_out)
		fail_msg("%s: %s\nstdout:\n%s\nstderr:\n%s", proc_cmdline(argv, cmd, sizeof(cmd)),
			 proc_describe(res, why, sizeof(why)), res->out, res->err);
}

/* Fails the test with the command and its output unless it exited 0. */
static void expect_success(const char *const argv[], const struct proc_result *res)
{
	char cmd[2048], why[64];

	if (proc_exit_code(res) != 0)
		fail_msg("%s: %s\nstdout:\n%s\nstderr:\n%s", proc_cmdline(argv, cmd, sizeof(cmd)),
			 proc_describe(res, why, sizeof(why)), res->out, res->err);
}

void tr_compile(const struct tr_case *tc, const char *const argv[], const char *const env[])
{
	struct proc_result res = { 0 };
	char cmd[2048], why[64];

	start(tc, argv, env, TR_BUILD_TIMEOUT_MS, &res);
	if (proc_exit_code(&res) != 0) {
		print_error("build failed (%s): %s\n%s", proc_describe(&res, why, sizeof(why)),
			    proc_cmdline(argv, cmd, sizeof(cmd)), res.err);
		proc_result_free(&res);
		fail_msg("build failed");
	}
	proc_result_free(&res);
}

void tr_build(const struct tr_case *tc, const char *const env[], const char *cc, const char *prog,
	      const char *out, const char *const flags[])
{
	char src[PATH_MAX], path[PATH_MAX];
	const char *argv[64];
	size_t n = 0;

	if (strchr(prog, '/'))
		snprintf(src, sizeof(src), "%s/%s", ADA_ROOT, prog);
	else
		snprintf(src, sizeof(src), "%s/tests/e2e/progs/%s.c", ADA_ROOT, prog);
	/* For another target (lib/target.h), its cross compiler: in place of
	 * gcc or g++, or given to adacc. */
	argv[n++] = !target_arch || strstr(cc, "adac") ? cc : target_cc(strstr(cc, "++") != NULL);
	if (target_arch && strstr(cc, "adac"))
		argv[n++] = strstr(cc, "++") ? "--ada-cc=" TARGET_CXX_A64 : "--ada-cc=" TARGET_CC_A64;
	argv[n++] = "-g";
	argv[n++] = "-pthread";
	argv[n++] = "-o";
	argv[n++] = tr_path(tc, out, path);
	argv[n++] = src;
	for (size_t i = 0; flags && flags[i] && n < 63; i++)
		argv[n++] = flags[i];
	argv[n] = NULL;
	tr_compile(tc, argv, env);
}

void tr_build_pair(const struct tr_case *tc, const char *prog, const char *out,
		   const char *const flags[])
{
	char plain[PATH_MAX];

	snprintf(plain, sizeof(plain), "%s.plain", out);
	tr_build(tc, NULL, "gcc", prog, plain, flags);
	tr_build(tc, NULL, TR_ADACC, prog, out, flags);
}

void tr_build_mode_pair(const struct tr_case *tc, const char *prog, const char *mode, char *out,
			size_t len, const char *const flags[])
{
	char plain[PATH_MAX], env_mode[64];
	const char *const env[] = { env_mode, NULL };

	snprintf(out, len, "%s-%s", prog, mode);
	snprintf(plain, sizeof(plain), "%s.plain", out);
	snprintf(env_mode, sizeof(env_mode), "ADA_MODE=%s", mode);
	tr_build(tc, NULL, "gcc", prog, plain, flags);
	tr_build(tc, env, TR_ADACC, prog, out, flags);
}

void tr_build_lib_pair(const struct tr_case *tc, const char *prog, const char *lib,
		       const char *const env[], const char *const plain_flags[],
		       const char *const traced_flags[])
{
	char path[PATH_MAX];

	if (mkdir(tr_path(tc, "plain", path), 0755) < 0 || mkdir(tr_path(tc, "traced", path), 0755) < 0)
		fail_msg("mkdir in %s: %s", tc->dir, strerror(errno));
	snprintf(path, sizeof(path), "plain/%s", lib);
	tr_build(tc, NULL, "gcc", prog, path, plain_flags);
	snprintf(path, sizeof(path), "traced/%s", lib);
	tr_build(tc, env, TR_ADACC, prog, path, traced_flags);
}

void tr_run(const struct tr_case *tc, const char *const argv[], const char *const env[],
	    struct proc_result *res)
{
	const char *run[40];

	start(tc, target_argv(argv, run, 40), env, TR_RUN_TIMEOUT_MS, res);
}

void tr_run_host(const struct tr_case *tc, const char *const argv[], struct proc_result *res)
{
	start(tc, argv, NULL, TR_RUN_TIMEOUT_MS, res);
}

static bool status_is(const char *what, const struct proc_result *res, int status)
{
	char why[64];

	if (proc_exit_code(res) == status)
		return true;
	print_error("%s: %s, expected exit status %d\nstdout:\n%s\nstderr:\n%s\n", what,
		    proc_describe(res, why, sizeof(why)), status, res->out, res->err);
	return false;
}

void tr_run_pair(struct tr_case *tc, const char *out, const char *const args[],
		 const char *const env[], int status)
{
	tr_run_pair_args(tc, out, args, args, env, status);
}

/* argv[0] = exe, then args, in argv (32 entries). */
static void make_argv(const char **argv, const char *exe, const char *const args[])
{
	size_t n = 1;

	argv[0] = exe;
	for (size_t i = 0; args && args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
}

void tr_run_pair_args(struct tr_case *tc, const char *out, const char *const plain_args[],
		      const char *const traced_args[], const char *const env[], int status)
{
	char traced[PATH_MAX], plain[PATH_MAX + 8], output[sizeof(tc->trace) + 16];
	const char *argv[32], *envp[32];
	size_t k = 0;

	tr_path(tc, out, traced);
	snprintf(plain, sizeof(plain), "%s.plain", traced);
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", tc->trace);
	for (size_t i = 0; env && env[i] && k < 31; i++)
		envp[k++] = env[i];
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], "ADA_OUTPUT", 10) == 0 && strchr("=", env[i][10]))
			output[0] = '\0';
	if (output[0])
		envp[k++] = output;
	envp[k] = NULL;

	make_argv(argv, plain, plain_args);
	tr_run(tc, argv, NULL, &tc->plain);
	make_argv(argv, traced, traced_args);
	tr_run(tc, argv, envp, &tc->traced);
	if (!status_is("plain build", &tc->plain, status))
		fail_msg("the program itself does not exit with %d", status);
	if (!status_is("traced build", &tc->traced, status))
		fail_msg("tracing changed the exit status");
	if (tc->plain.out_len != tc->traced.out_len ||
	    memcmp(tc->plain.out, tc->traced.out, tc->plain.out_len) != 0) {
		textdiff_print(stderr, "plain stdout", tc->plain.out, "traced stdout",
			       tc->traced.out);
		fail_msg("tracing changed stdout");
	}
}

void tr_symbolize(struct tr_case *tc, const char *trace)
{
	const char *const sym = ADA_ROOT "/bin/ada-symbolize";
	const char *t = trace ? trace : tc->trace;
	const char *const sym_argv[] = { sym, "-q", t, NULL };
	const char *const check_argv[] = { sym, "--check", t, NULL };
	const char *const replay_argv[] = { sym, "--replay", t, NULL };

	start(tc, sym_argv, NULL, TR_TOOL_TIMEOUT_MS, &tc->sym);
	expect_success(sym_argv, &tc->sym);
	start(tc, check_argv, NULL, TR_TOOL_TIMEOUT_MS, &tc->check);
	expect_success(check_argv, &tc->check);
	start(tc, replay_argv, NULL, TR_TOOL_TIMEOUT_MS, &tc->replay);
	expect_success(replay_argv, &tc->replay);
}

struct tr_case *tr_traced_case(const char *prog, const char *out, const char *mode,
			       const char *env)
{
	const char *const envp[] = { env, NULL };
	const char *const flags[] = { "-O0", NULL };
	void *s = NULL;

	assert_int_equal(tr_setup(&s), 0);
	setenv("ADA_MODE", mode, 1); /* adacc's, gcc does not look */
	tr_build_pair(s, prog, out, flags);
	unsetenv("ADA_MODE");
	tr_run_pair(s, out, NULL, envp, 0);
	tr_symbolize(s, NULL);
	return s;
}

void tr_expect_tree(const char *replay, const char *expected, size_t npids)
{
	struct calltree got = { 0 }, want = { 0 };
	char *got_text = NULL, *want_text = NULL, err[256], why[512] = "";

	if (calltree_from_expected(expected, &want, err, sizeof(err)) < 0)
		snprintf(why, sizeof(why), "expected tree: %s", err);
	else if (calltree_from_replay(replay, &got, err, sizeof(err)) < 0)
		snprintf(why, sizeof(why), "--replay output: %s", err);
	else if (got.npids != npids)
		snprintf(why, sizeof(why), "--replay shows %zu processes, expected %zu", got.npids,
			 npids);
	else if (!(got_text = calltree_format(&got)) || !(want_text = calltree_format(&want)))
		snprintf(why, sizeof(why), "out of memory");
	else if (strcmp(got_text, want_text) != 0) {
		textdiff_print(stderr, "expected", want_text, "--replay", got_text);
		snprintf(why, sizeof(why), "call tree differs (threads sorted, headers dropped)");
	}
	free(got_text);
	free(want_text);
	calltree_free(&got);
	calltree_free(&want);
	if (why[0])
		fail_msg("%s\n--replay:\n%s", why, replay);
}

/* ---- manifest.json -------------------------------------------------------------
 * ada-symbolize writes one thread and one module per line; the values needed
 * here are found by key within a line or a block, which is all a test needs. */

bool tr_json_value(const char *s, const char *end, const char *key, char *buf, size_t size)
{
	char pat[80];
	const char *p, *q;
	size_t n;

	n = (size_t)snprintf(pat, sizeof(pat), "\"%s\": ", key);
	for (p = s; p && p + n <= end; p = memchr(p + 1, '"', (size_t)(end - p - 1))) {
		if (strncmp(p, pat, n) != 0)
			continue;
		p += n;
		if (*p == '"') {
			p++;
			q = memchr(p, '"', (size_t)(end - p));
		} else {
			for (q = p; q < end && *q != ',' && *q != '}' && *q != '\n'; q++)
				;
		}
		if (!q)
			return false;
		snprintf(buf, size, "%.*s", (int)(q - p), p);
		return true;
	}
	return false;
}

/* The value of "key": in [s, end) as a number; fails the test if missing. */
static uint64_t u64_in(const char *s, const char *end, const char *key)
{
	char v[32];

	if (!tr_json_value(s, end, key, v, sizeof(v)))
		fail_msg("manifest.json: no \"%s\" in %.*s", key, (int)(end - s), s);
	return strtoull(v, NULL, 10);
}

/* The string value of "key": in [s, end) into buf; fails the test if missing. */
static void str_in(const char *s, const char *end, const char *key, char *buf, size_t size)
{
	if (!tr_json_value(s, end, key, buf, size))
		fail_msg("manifest.json: no \"%s\" in %.*s", key, (int)(end - s), s);
}

static void drops_in(const char *s, const char *end, uint64_t d[TR_NDROPS])
{
	const char *p = strstr(s, "\"dropped\": {");

	if (!p || p >= end)
		fail_msg("manifest.json: no \"dropped\" in %.*s", (int)(end - s), s);
	end = strchr(p, '}');
	for (unsigned r = 0; r < TR_NDROPS; r++)
		d[r] = u64_in(p, end, tr_drop_names[r]);
}

const char *tr_json_array(const char *text, const char *key, const char **close)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\n  \"%s\": [\n", key);
	p = strstr(text, pat);
	if (!p)
		fail_msg("manifest.json: no \"%s\" array:\n%s", key, text);
	p += strlen(pat);
	*close = strstr(p, "\n  ]");
	if (!*close)
		fail_msg("manifest.json: \"%s\" is not closed", key);
	return p;
}

/* The start of each line of the array "key" (one element per line) in
 * *lines, followed by the position just past the last; returns the count. */
static size_t array_lines(const char *text, const char *key, const char ***lines)
{
	const char *close, *p = tr_json_array(text, key, &close);
	size_t n = 0;

	*lines = calloc(2 + (size_t)(close - p) / 8, sizeof(**lines));
	if (!*lines)
		fail_msg("out of memory");
	while (p < close) {
		(*lines)[n++] = p;
		p = strchr(p, '\n') + 1;
	}
	(*lines)[n] = close + 1;
	return n;
}

static void parse_manifest(struct tr_manifest *m)
{
	const char *t = m->text, *top, **lines = NULL;
	size_t n, i;

	m->clean_exit = strstr(t, "\"clean_exit\": true") != NULL;
	m->events = u64_in(t, t + strlen(t), "events");
	str_in(t, t + strlen(t), "config", m->config, sizeof(m->config));
	top = strstr(t, "\n  \"dropped\": {");
	if (!top)
		fail_msg("manifest.json: no top-level \"dropped\":\n%s", t);
	drops_in(top, t + strlen(t), m->dropped);
	top = strstr(t, "\n  \"waits\": {");
	m->waits = top ? u64_in(top, strchr(top, '}'), "count") : 0;

	n = array_lines(t, "threads", &lines);
	m->threads = calloc(n + 1, sizeof(*m->threads));
	for (i = 0; m->threads && i < n; i++) {
		struct tr_thread *th = &m->threads[i];
		const char *end = lines[i + 1];

		th->id = u64_in(lines[i], end, "id");
		th->events = u64_in(lines[i], end, "events");
		th->open_at_end = u64_in(lines[i], end, "open_at_end");
		drops_in(lines[i], end, th->dropped);
		str_in(lines[i], end, "end", th->end, sizeof(th->end));
	}
	m->nthreads = n;
	free(lines);

	n = array_lines(t, "modules", &lines);
	m->modules = calloc(n + 1, sizeof(*m->modules));
	for (i = 0; m->modules && i < n; i++) {
		str_in(lines[i], lines[i + 1], "path", m->modules[i].path,
		       sizeof(m->modules[i].path));
		str_in(lines[i], lines[i + 1], "uuid", m->modules[i].uuid,
		       sizeof(m->modules[i].uuid));
	}
	m->nmodules = n;
	free(lines);
	if (!m->threads || !m->modules)
		fail_msg("out of memory");
}

/* The path of the only entry of dir starting with prefix, in buf. */
static void only_entry(const char *dir, const char *prefix, char *buf, size_t size)
{
	long n = tr_count_entries(dir, prefix);
	DIR *d;
	struct dirent *de;

	if (n != 1)
		fail_msg("%ld %s* entries in %s, expected 1", n, prefix, dir);
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			snprintf(buf, size, "%s/%s", dir, de->d_name);
	if (d)
		closedir(d);
}

void tr_load_manifest(struct tr_case *tc, const char *trace)
{
	char session[PATH_MAX], pid[PATH_MAX], path[PATH_MAX + 16];

	only_entry(trace ? trace : tc->trace, "session_", session, sizeof(session));
	only_entry(session, "pid_", pid, sizeof(pid));
	snprintf(path, sizeof(path), "%s/manifest.json", pid);
	manifest_free(&tc->mf);
	tc->mf.text = proc_read_file(path, NULL);
	if (!tc->mf.text)
		fail_msg("%s: %s", path, strerror(errno));
	parse_manifest(&tc->mf);
}

/* ---- small queries ----------------------------------------------------------- */

size_t tr_count_lines(const char *text, const char *const needles[])
{
	size_t n = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		bool all = true;

		for (size_t i = 0; needles[i] && all; i++)
			all = memmem(line, len, needles[i], strlen(needles[i])) != NULL;
		n += all;
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

long tr_count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	long n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

bool tr_have_tool(const char *tool)
{
	struct proc_result res = { 0 };
	const char *const argv[] = { tool, "--version", NULL };
	bool ok = proc_run(argv, NULL, NULL, 20000, &res) == 0 && proc_exit_code(&res) == 0;

	proc_result_free(&res);
	return ok;
}

void tr_require_tool(struct tr_case *tc, const char *tool)
{
	if (tr_have_tool(tool))
		return;
	tr_pass(tc);
	print_message("%s is not installed: skipped\n", tool);
	skip();
}
