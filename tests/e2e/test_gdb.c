/* test_gdb.c - gdb's `bt` inside a traced function shows the real call chain.
 *
 * In fentry and mcount modes the return addresses of traced frames point at
 * ada_return_trampoline; mcount/gdb/ada-unwind.py gives gdb the real ones
 * from the shadow stack. gdb, stopped in leaf(), must list leaf, mid, top,
 * main in that order, and the program must still finish normally after the
 * breakpoint (the hijacked returns work under the debugger). Skipped when gdb
 * is not installed.
 *
 * The program's output goes to a file of its own (`run > file`): on gdb's
 * stdout it interleaved with gdb's asynchronous lines ("[36\nThread 0x...
 * exited]"), which made the check of it fail at random.
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

#include "e2e/hijack_run.h"
#include "lib/proc.h"
#include "lib/tracerun.h"

/* The frames of `bt` ("#N  0x... in fn (...)" or "#0  fn (...)") name the
 * functions of `want` in order, and nothing else (no "??" frame). */
static void expect_chain(const char *out, const char *const want[], size_t n)
{
	const char *p = strstr(out, "\n#0 ");
	size_t i = 0;

	for (; p && *p; p = strchr(p + 1, '\n')) {
		const char *line = p + 1, *name;
		size_t len = strcspn(line, "\n");
		char fn[64];

		if (line[0] != '#')
			break;
		/* "#1  0x... in mid (...)", or "#0  leaf (...)" for the innermost */
		name = strstr(line, " in ");
		if (name && name < line + len) {
			name += 4;
		} else {
			name = line + strcspn(line, " ");
			name += strspn(name, " ");
		}
		snprintf(fn, sizeof(fn), "%.*s", (int)strcspn(name, " ("), name);
		if (i == n || strcmp(fn, want[i]))
			fail_msg("frame %zu is \"%s\", expected %s, in:\n%s", i, fn,
				 i < n ? want[i] : "no more frames", out);
		i++;
	}
	if (i != n)
		fail_msg("%zu frames, expected %zu, in:\n%s", i, n, out);
}

/* What gdb and the program printed: freed by the teardown, so a failed
 * check (which leaves the test by a longjmp) leaks nothing. */
static struct proc_result gdb_res;
static char *prog_out;

static int teardown(void **state)
{
	proc_result_free(&gdb_res);
	free(prog_out);
	prog_out = NULL;
	return tr_teardown(state);
}

static void bt_shows_the_real_chain(void **state)
{
	struct tr_case *tc = *state;
	static const char *const chain[] = { "leaf", "mid", "top", "main" };
	char exe[PATH_MAX], script[PATH_MAX], source[PATH_MAX + 16], out[PATH_MAX];
	char run[PATH_MAX + 16];
	size_t len;

	tr_require_tool(tc, "gdb");
	hj_build(tc, "gdb_chain", "-O0");
	tr_path(tc, "gdb_chain", exe);
	snprintf(script, sizeof(script), "%s/mcount/gdb/ada-unwind.py", ADA_ROOT);
	snprintf(source, sizeof(source), "source %s", script);
	tr_path(tc, "gdb_chain.out", out);
	snprintf(run, sizeof(run), "run > %s", out);
	{
		const char *const argv[] = { "gdb", "-nx", "-batch", "-ex", source,
					     "-ex", "break leaf", "-ex", run, "-ex", "bt",
					     "-ex", "continue", exe, NULL };
		char out_env[PATH_MAX + 16];
		const char *const env[] = { out_env, NULL };

		snprintf(out_env, sizeof(out_env), "ADA_OUTPUT=%s/trace", tc->dir);
		if (proc_run(argv, env, tc->dir, 60000, &gdb_res) < 0)
			fail_msg("cannot run gdb");
	}
	expect_chain(gdb_res.out, chain, 4);
	if (!strstr(gdb_res.out, "\n[Inferior 1 (process ") ||
	    !strstr(gdb_res.out, ") exited normally]\n"))
		fail_msg("the program did not finish normally under gdb:\n%s", gdb_res.out);
	prog_out = proc_read_file(out, &len);
	if (!prog_out || strcmp(prog_out, "36\n"))
		fail_msg("the program printed \"%s\", expected \"36\\n\"",
			 prog_out ? prog_out : "(no file)");
	tr_pass(tc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(bt_shows_the_real_chain, tr_setup, teardown),
	};

	tr_scrub_environment();
	return hj_run_groups("gdb bt", tests, sizeof(tests) / sizeof(tests[0]));
}
