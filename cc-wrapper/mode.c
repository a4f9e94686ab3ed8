/* mode.c - the compile flags of each instrumentation mode.
 *
 * Only cyg exists so far. fentry and mcount are named so that --ada-mode= can
 * tell a user they are coming rather than unknown; each will add its own
 * flags function here and its hooks in the runtime.
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
	switch (o->mode) {
	case ADA_MODE_CYG:
		return cyg_flags(o, out);
	case ADA_MODE_FENTRY:
	case ADA_MODE_MCOUNT:
		break;	/* refused by the option parser until implemented */
	}
	return -ENOSYS;
}
