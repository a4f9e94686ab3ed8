/* test_proc_maps.c - recorder/proc_maps.c reads another process's images
 * from /proc/<pid>/maps (a recorder without the dynamic hooks follows its
 * program so): a live process's list is complete and names its executable;
 * a process that has ended (a zombie: its maps are empty) gives an
 * incomplete list, so that nothing is taken for unloaded from it. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/init_stubs.h"

struct seen {
	unsigned images;
	bool exe;
	char want[PATH_MAX];
};

static bool known(uint64_t start, void *arg)
{
	(void)start;
	(void)arg;
	return false;
}

static void found(uint64_t start, const char *path, const struct ada_meta_module *m, void *arg)
{
	struct seen *s = arg;

	(void)start;
	s->images++;
	if (m && !strcmp(path, s->want))
		s->exe = true;
}

static void a_live_process_lists_its_executable(void **state)
{
	struct seen s = { 0 };
	const struct ada_image_visitor v = { known, found, &s };
	ssize_t n = readlink("/proc/self/exe", s.want, sizeof(s.want) - 1);

	(void)state;
	assert_true(n > 0);
	s.want[n] = '\0';
	assert_int_equal(ada_proc_images((uint32_t)getpid(), &v), 0);
	assert_true(s.images >= 2); /* the executable, libc at least */
	assert_true(s.exe);
}

static void an_ended_process_gives_an_incomplete_list(void **state)
{
	struct seen s = { 0 };
	const struct ada_image_visitor v = { known, found, &s };
	siginfo_t si;
	pid_t child = fork();

	(void)state;
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	/* A zombie until reaped below: its maps are there, and empty. */
	assert_int_equal(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(ada_proc_images((uint32_t)child, &v), -1);
	assert_int_equal(s.images, 0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	/* Reaped: no maps at all. */
	assert_int_equal(ada_proc_images((uint32_t)child, &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_live_process_lists_its_executable),
		cmocka_unit_test(an_ended_process_gives_an_incomplete_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
