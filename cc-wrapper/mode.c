/* mode.c - the compile flags of each instrumentation mode.
 *
 * cyg: -finstrument-functions calls __cyg_profile_func_enter/exit
 * (runtime/cyg.c). fentry: -pg -mfentry puts `call __fentry__` before each
 * function's prologue; mcount: -pg puts `call mcount` after it, which needs
 * the frame pointer to find the return address. Both are served by the
 * trampolines in mcount/<arch>/, which hijack the return to see it. A -pg
 * link also brings in glibc's gprof start-up; libada disables it
 * (runtime/gmon.c), so no gmon.out appears. patchable: functions start
 * with NOPs, and the runtime patches the ones it is to trace into calls of
 * the fentry path (mcount/patch.c): untraced functions cost their NOPs.
 */
#include "options.h"

#include <errno.h>

/* gcc's exclusion lists are comma-separated; each --ada-exclude-*= becomes
 * one flag and gcc joins repeated flags.
 *
 * clang instruments after inlining: its inlined hooks would run in the
 * caller's frame with the caller's return address, and a frame that an
 * exception leaves without its exit hook (clang runs none while unwinding)
 * could then not be told from the caller. Inlined functions are therefore
 * absent from clang -O2 traces, as they are in fentry mode. */
static int cyg_flags(const struct ada_cc_opts *o, struct ada_strv *out)
{
	int err = ada_strv_push(out, o->clang ? "-finstrument-functions-after-inlining"
					      : "-finstrument-functions");

	for (size_t i = 0; !err && i < o->exclude_files.n; i++)
		err = ada_strv_pushf(out, "-finstrument-functions-exclude-file-list=%s",
				     o->exclude_files.v[i]);
	for (size_t i = 0; !err && i < o->exclude_funcs.n; i++)
		err = ada_strv_pushf(out, "-finstrument-functions-exclude-function-list=%s",
				     o->exclude_funcs.v[i]);
	return err;
}

int ada_mode_compile_flags(const struct ada_cc_opts *o, struct ada_strv *out)
{
	int err;

	switch (o->mode) {
	case ADA_MODE_CYG:
		return cyg_flags(o, out);
	case ADA_MODE_FENTRY:
		err = ada_strv_push(out, "-pg");
		return err ? err : ada_strv_push(out, "-mfentry");
	case ADA_MODE_MCOUNT:
		err = ada_strv_push(out, "-pg");
		return err ? err : ada_strv_push(out, "-fno-omit-frame-pointer");
	case ADA_MODE_PATCHABLE:
		/* 5 bytes before the entry (a call, once patched) and 2 at it
		 * (a jump back to them): mcount/patch.c. */
		return ada_strv_push(out, "-fpatchable-function-entry=7,5");
	}
	return -ENOSYS;
}
