/* hijack_run.c - fentry/mcount builds and runs for test_hijack*.c. */
#include "e2e/hijack_run.h"

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

#include "lib/target.h"

const char *hj_mode = "fentry";

bool hj_hijacks(void)
{
	return strcmp(hj_mode, "fentry") != 0;
}

/* The entry hook each mode's code calls (gcc's -pg calls _mcount on
 * aarch64). */
static const char *entry_hook(void)
{
	if (strcmp(hj_mode, "mcount") == 0)
		return target_arch ? "_mcount" : "mcount";
	return hj_hijacks() ? "__fentry__" : "__ada_fentry_nohijack";
}

const char *hj_manifest_mode(void)
{
	return strcmp(hj_mode, "mcount") == 0 ? "mcount" : "fentry";
}

static void expect_instrumented(const struct tr_case *tc, const char *prog)
{
	char exe[PATH_MAX], undefined[64];
	const char *const argv[] = { target_arch ? "aarch64-linux-gnu-nm" : "nm", "--undefined-only",
				     tr_path(tc, prog, exe), NULL };
	const char *const hook[] = { undefined, NULL };
	const char *const cyg[] = { "__cyg_profile_func_enter", NULL };
	struct proc_result res = { 0 };

	snprintf(undefined, sizeof(undefined), " U %s", entry_hook());
	tr_run_host(tc, argv, &res);
	if (proc_exit_code(&res) != 0 || tr_count_lines(res.out, hook) != 1 ||
	    tr_count_lines(res.out, cyg) != 0) {
		print_error("nm --undefined-only %s:\n%s%s", exe, res.out, res.err);
		proc_result_free(&res);
		fail_msg("%s was not built in %s mode: no \"%s\", or cyg hooks", prog, hj_mode,
			 undefined);
	}
	proc_result_free(&res);
}

void hj_build(const struct tr_case *tc, const char *prog, const char *opt)
{
	char mode[32], plain[NAME_MAX];
	const char *const plain_flags[] = { opt, NULL };
	const char *const traced_flags[] = { opt, mode,
					     strcmp(hj_mode, "fentry-hijack") == 0 ? "--ada-returns=hijack"
										  : NULL,
					     NULL };

	snprintf(mode, sizeof(mode), "--ada-mode=%s", hj_manifest_mode());
	snprintf(plain, sizeof(plain), "%s.plain", prog);
	tr_build(tc, NULL, "gcc", prog, plain, plain_flags);
	tr_build(tc, NULL, TR_ADACC, prog, prog, traced_flags);
	expect_instrumented(tc, prog);
}

void hj_expect_no_gmon(const struct tr_case *tc)
{
	char path[PATH_MAX];
	struct stat st;

	if (stat(tr_path(tc, "gmon.out", path), &st) == 0)
		fail_msg("%s exists: glibc's gprof ran in the traced program", path);
}

void hj_run(struct tr_case *tc, const char *prog, const char *const args[],
	    const char *const env[], int status, const char *out)
{
	tr_run_pair(tc, prog, args, env, status);
	if (out && strcmp(tc->traced.out, out) != 0)
		fail_msg("stdout is\n%s\nexpected\n%s", tc->traced.out, out);
	hj_expect_no_gmon(tc);
	tr_symbolize(tc, NULL);
}

void hj_expect_manifest(struct tr_case *tc, uint64_t max_depth, bool reentrant_ok)
{
	char mode[64];

	tr_load_manifest(tc, NULL);
	snprintf(mode, sizeof(mode), "\n  \"mode\": \"%s\",\n", hj_manifest_mode());
	if (!strstr(tc->mf.text, mode))
		fail_msg("manifest.json does not say %s:\n%s", mode, tc->mf.text);
	for (unsigned r = 0; r < TR_NDROPS; r++) {
		uint64_t want = r == TR_MAX_DEPTH ? max_depth : 0;

		if (r == TR_REENTRANT && reentrant_ok)
			continue;
		if (tc->mf.dropped[r] != want)
			fail_msg("manifest: %llu %s drops, expected %llu\n%s",
				 (unsigned long long)tc->mf.dropped[r], tr_drop_names[r],
				 (unsigned long long)want, tc->mf.text);
	}
}

void hj_only_session(const struct tr_case *tc, char *buf, size_t size)
{
	DIR *d = opendir(tc->trace);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		if (strncmp(de->d_name, "session_", 8) == 0 && n++ == 0)
			snprintf(buf, size, "%s/%s", tc->trace, de->d_name);
	if (d)
		closedir(d);
	if (n != 1)
		fail_msg("%d session_* directories in %s, expected 1", n, tc->trace);
}

/* The disassembly of one function: from its "<from>:" line to the blank line
 * that ends it, in *body (pointing into text); its length is returned. */
static size_t function_body(const char *text, const char *from, const char **body)
{
	char label[128];
	const char *start, *end;

	snprintf(label, sizeof(label), " <%s>:\n", from);
	start = strstr(text, label);
	if (!start)
		return 0;
	end = strstr(start, "\n\n");
	*body = start;
	return end ? (size_t)(end - start) : strlen(start);
}

void hj_expect_jump(const struct tr_case *tc, const char *prog, const char *from,
		    const char *to)
{
	char exe[PATH_MAX], target[128];
	const char *const argv[] = { target_arch ? "aarch64-linux-gnu-objdump" : "objdump", "-d",
				     "--no-show-raw-insn", tr_path(tc, prog, exe), NULL };
	/* A jump: x86_64's jmp, aarch64's b (bl is a call). */
	const char *jump = target_arch ? "\tb\t" : "\tjmp ";
	struct proc_result res = { 0 };
	const char *body = NULL;
	size_t len;

	tr_run_host(tc, argv, &res);
	if (proc_exit_code(&res) != 0) {
		print_error("%s", res.err);
		proc_result_free(&res);
		fail_msg("objdump -d %s failed", exe);
	}
	len = function_body(res.out, from, &body);
	snprintf(target, sizeof(target), "<%s>", to);
	for (const char *p = body; p && p < body + len; p = strchr(p, '\n')) {
		const char *nl = strchr(++p, '\n');
		size_t line = nl ? (size_t)(nl - p) : strlen(p);

		if (memmem(p, line, jump, strlen(jump)) && memmem(p, line, target, strlen(target))) {
			proc_result_free(&res);
			return;
		}
	}
	print_error("%.*s\n", (int)len, body ? body : "(not found)");
	proc_result_free(&res);
	fail_msg("%s does not tail-call %s (no \"%s... %s\"): the test's premise does not hold",
		 from, to, jump + 1, target);
}

int hj_run_groups(const char *name, const struct CMUnitTest *tests, size_t n)
{
	static const char *const modes[] = { "fentry", "fentry-hijack", "mcount" };
	int failed = 0;
	char group[64];

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		/* aarch64 has mcount mode alone of these (lib/target.h). */
		if (target_arch && strcmp(modes[m], "mcount") != 0)
			continue;
		hj_mode = modes[m];
		snprintf(group, sizeof(group), "%s %s", name, hj_mode);
		failed += _cmocka_run_group_tests(group, tests, n, NULL, NULL);
	}
	return failed;
}
