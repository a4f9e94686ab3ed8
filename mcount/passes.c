/* passes.c - mcount/'s passes over loaded code, handed to the runtime.
 *
 * The runtime (runtime/) starts the trace, runs the writer and applies
 * ada-ctl's commands; when and where code is patched is mcount/'s:
 * patchable entries (patch.c) and the PLT/GOT hooks (dynhook.c). They are
 * handed over here, before ada_start runs (constructor 102 there, 101
 * here: before the writer it starts can look), so that nothing of the
 * runtime calls into mcount/: the hooks call the runtime, not the other
 * way round.
 */
#include "passes.h"

/* Start-up's passes: the entries, then the slots (the dynamic hooks leave
 * calls into a patchable module alone: it must be known first). */
static void start(void)
{
	ada_patch_modules();
	if (ada_rt.cfg.dynhook)
		ada_dynhook_start();
}

static void trace_begun(void)
{
	if (ada_rt.cfg.dynhook)
		ada_dynhook_after_fork();
}

__attribute__((constructor(101))) static void passes_hand_over(void)
{
	ada_passes = (struct ada_code_passes){
		.start = start,
		.trace_begun = trace_begun,
		.modules = ada_patch_modules,
		.sync = ada_patch_sync,
		.refilter = ada_patch_refilter,
	};
}
