/* mode.c - the compile flags of each instrumentation mode.
 *
 * cyg: -finstrument-functions calls __cyg_profile_func_enter/exit
 * (runtime/cyg.c). fentry: -pg -mfentry puts a call of the entry hook before
 * each function's prologue. With gcc, -minstrument-return=call also puts
 * `call __return__` before each return (and before a tail call's jump), so
 * the return is seen without touching the return address and the CPU's
 * return predictor stays right; the entry hook is then __ada_fentry_nohijack
 * (-mfentry-name), which knows its function will call __return__ (clang
 * has neither option, and --ada-returns=hijack asks for the other way).
 * Else the entry hook is __fentry__, which hijacks the return to see it, as
 * mcount does: -pg puts `call mcount` after the prologue, which needs the
 * frame pointer to find the return address. The hooks are in mcount/<arch>/.
 * A -pg link also brings in glibc's gprof start-up; libada disables it
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
		err = ada_strv_push_all(out, (const char *const[]){ "-pg", "-mfentry", NULL });
		if (!err && !o->clang && !o->hijack_returns)
			err = ada_strv_push_all(out, (const char *const[]){
				"-minstrument-return=call", "-mfentry-name=__ada_fentry_nohijack",
				NULL });
		return err;
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
