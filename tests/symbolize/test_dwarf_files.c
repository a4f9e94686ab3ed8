/* test_dwarf_files.c - a file's DWARF is read once for every process an
 * ada-symbolize run names (symbolize/dwarf_lines.c keeps it open), and a
 * file rebuilt meanwhile is read anew.
 *
 * tests/symbolize/fixtures/app.c, compiled at test time with -g; the
 * rebuilt copy has two more lines at its top, so each of its functions is
 * declared two lines further down.
 */
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symtab.h"

#define APP_C ADA_ROOT "/tests/symbolize/fixtures/app.c"

static char tmpdir[] = "/tmp/ada-test-dwarf-files-XXXXXX";

static const char *path_of(const char *name, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/%s", tmpdir, name);
	return buf;
}

/* out, compiled with -g from app.c with `blank` empty lines put on top. */
static void build(const char *out, int blank)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "cd %s && { yes '' | head -n %d; cat " APP_C "; } >%s.c && "
		 "gcc -O0 -g -o %s %s.c", tmpdir, blank, out, out, out);
	assert_int_equal(system(cmd), 0);
}

/* main's declaration line in binary, its lines read through the symbol
 * table as a conversion reads them. */
static uint32_t main_line(const char *binary)
{
	struct ada_symtab *st = NULL;
	char path[PATH_MAX];
	uint32_t line = 0;

	assert_int_equal(ada_symtab_load(path_of(binary, path), &st), 0);
	assert_int_equal(ada_symtab_finalize(st, NULL, 0), 0);
	for (size_t i = 0; i < st->nfuncs; i++)
		if (!strcmp(st->funcs[i].name, "main"))
			line = st->funcs[i].line;
	ada_symtab_free(st);
	assert_true(line > 0);
	return line;
}

/* How many of this process's descriptors are open on binary. */
static int open_on(const char *binary)
{
	char want[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	path_of(binary, want);
	while ((de = readdir(d))) {
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += !strcmp(target, want);
	}
	closedir(d);
	return n;
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd);
}

/* Named for a second process: the same lines, from the file kept open
 * (one descriptor, not a second open and a second inflating of its DWARF). */
static void a_files_dwarf_is_read_once_for_every_process(void **state)
{
	uint32_t line;

	(void)state;
	build("once", 0);
	line = main_line("once");
	assert_int_equal(open_on("once"), 1);
	assert_int_equal(main_line("once"), line);
	assert_int_equal(open_on("once"), 1);
}

/* Rebuilt between two processes (another file at the same path): read
 * anew, so its functions have their new lines. */
static void a_rebuilt_file_is_read_anew(void **state)
{
	char path[PATH_MAX], moved[PATH_MAX];
	uint32_t line;

	(void)state;
	build("rebuilt", 0);
	line = main_line("rebuilt");
	build("rebuilt2", 2);
	assert_int_equal(rename(path_of("rebuilt2", moved), path_of("rebuilt", path)), 0);
	assert_int_equal(main_line("rebuilt"), line + 2);
}

/* Source paths read as a person would write them: no "." segments, and a
 * file already under a relative compilation directory not joined to it
 * again (glibc's DWARF: "./malloc" and "./malloc/malloc.c"). */
static void source_paths_are_clean(void **state)
{
	const struct {
		const char *dir, *file, *want;
	} cases[] = {
		{ "./malloc", "./malloc/malloc.c", "malloc/malloc.c" },
		{ "/src/app", "main.c", "/src/app/main.c" },
		{ "/src/app", "./lib/../lib/x.c", "/src/app/lib/../lib/x.c" },
		{ "build", "../src/a.c", "build/../src/a.c" },
		{ NULL, "a.c", "a.c" },
		{ "/src", "/usr/include/stdio.h", "/usr/include/stdio.h" },
		{ "/src//app/.", "./b.c", "/src/app/b.c" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = ada_source_path(cases[i].dir, cases[i].file);

		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(source_paths_are_clean),
		cmocka_unit_test(a_files_dwarf_is_read_once_for_every_process),
		cmocka_unit_test(a_rebuilt_file_is_read_anew),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
