/* init_stubs.h - init.c (the process lifecycle) and mcount/ (the hooks) are
 * not linked into the runtime's unit tests: init.c's state and the
 * functions the other files call (mcount/'s passes are none: ada_passes
 * stays empty). */
#ifndef ADA_TEST_INIT_STUBS_H
#define ADA_TEST_INIT_STUBS_H

#include <stdio.h>

#include "ada_internal.h"

union ada_rt_area ada_rt_area;
struct ada_code_passes ada_passes;
void ada_before_exec(void)
{
}
void ada_before__exit(void)
{
}
void ada_after_failed_exec(void)
{
}
void ada_trace_remove(void)
{
}
int ada_trace_again(bool hold)
{
	(void)hold;
	return 0;
}
int ada_process_files(void)
{
	return 0;
}

#endif
