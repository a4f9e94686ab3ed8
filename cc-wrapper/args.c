/* args.c - from the wrapper's argv to the compiler's.
 *
 * The compiler's argv is: the compiler, the mode's compile flags, the user's
 * arguments as given (--ada-* removed, @file kept), then the runtime's link
 * flags. The compile flags go first so that a -fno-instrument-functions in
 * the user's flags, which comes later, still wins: that is how one file or
 * target opts out. The link flags go last because the linker resolves
 * libraries left to right, after the objects that call the hooks.
 */
#include "args.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rspfile.h"
#include "shape.h"

/* Shared runtime: DT_NEEDED libada.so, found through an RPATH to libdir.
 * Toolchains that default to --as-needed (Ubuntu) would drop it from a link
 * where nothing calls the hooks (objects built without adacc), and the
 * runtime would not start with the program; --no-as-needed keeps it, and
 * push/pop-state restores the user's own setting after it. -rpath goes
 * through -Xlinker rather than -Wl, which would split a path at commas. */
static int link_shared(struct ada_cc_plan *plan, const char *libdir)
{
	int err;

	if (asprintf(&plan->runtime, "%s/libada.so", libdir) < 0) {
		plan->runtime = NULL;
		return -ENOMEM;
	}
	err = ada_strv_pushf(&plan->argv, "-L%s", libdir);
	if (!err)
		err = ada_strv_push_all(&plan->argv, (const char *const[]){
			"-Xlinker", "-rpath", "-Xlinker", libdir,
			"-Wl,--push-state,--no-as-needed", "-lada", "-Wl,--pop-state", NULL });
	return err;
}

/* Static runtime: every object of libada.a (--whole-archive: the hooks are
 * referenced, but the constructors and writer thread are not), then what the
 * runtime itself links against. A dynamic executable also exports the hooks,
 * so that instrumented shared libraries, linked without a runtime of their
 * own, bind to this single copy. A static executable gets libc.a's
 * __execve and __execvpe, which libada's exec functions call there (no
 * RTLD_NEXT to find them by; runtime/exec.c). */
static int link_static(struct ada_cc_plan *plan, const char *libdir, bool static_exe)
{
	int err;

	if (asprintf(&plan->runtime, "%s/libada.a", libdir) < 0) {
		plan->runtime = NULL;
		return -ENOMEM;
	}
	err = ada_strv_push_all(&plan->argv, (const char *const[]){
		"-Wl,--whole-archive", plan->runtime, "-Wl,--no-whole-archive",
		"-llz4", "-lpthread", "-ldl", NULL });
	if (!err && static_exe)
		err = ada_strv_push_all(&plan->argv, (const char *const[]){
			"-Wl,-u,__execve", "-Wl,-u,__execvpe", NULL });
	else if (!err)
		err = ada_strv_push_all(&plan->argv, (const char *const[]){
			"-Wl,--export-dynamic-symbol=__cyg_profile_func_enter",
			"-Wl,--export-dynamic-symbol=__cyg_profile_func_exit",
			"-Wl,--export-dynamic-symbol=__fentry__",
			"-Wl,--export-dynamic-symbol=__ada_fentry_nohijack",
			"-Wl,--export-dynamic-symbol=__return__",
			"-Wl,--export-dynamic-symbol=mcount", NULL });
	/* gcc's -pg calls _mcount on aarch64 (mcount/aarch64/mcount.S). */
	if (!err && !static_exe && plan->opts.target && !strcmp(plan->opts.target, "aarch64"))
		err = ada_strv_push(&plan->argv, "-Wl,--export-dynamic-symbol=_mcount");
	return err;
}

/* Which runtime a link gets, if any:
 * - -r makes an object, not a program: the final link adds the runtime.
 * - -nostdlib, -nodefaultlibs, -nolibc: the program brings its own C
 *   library or none, and libada needs libc's; the compile still calls the
 *   hooks, for the program to define.
 * - -static, -static-pie: libada.so cannot be loaded, so libada.a.
 * - -shared links libada.so like an executable does. The dynamic linker loads
 *   one copy per soname, so the library and the executable share the
 *   runtime. With --ada-static the executable holds the runtime and exports
 *   the hooks, so the library links none and binds to the executable's
 *   (it then fails under -Wl,-z,defs, and loads only into such executables).
 */
static int link_runtime(struct ada_cc_plan *plan, const struct ada_cc_shape *shape,
			const char *libdir)
{
	char target_dir[PATH_MAX + 16];

	if (shape->relocatable || shape->no_libc)
		return 0;
	/* Another architecture's runtime is built beside adacc's own, in
	 * lib/<arch>/ (make aarch64). */
	if (plan->opts.target) {
		snprintf(target_dir, sizeof(target_dir), "%s/%s", libdir, plan->opts.target);
		libdir = target_dir;
	}
	if (shape->static_exe)
		return link_static(plan, libdir, true);
	if (plan->opts.static_runtime)
		return shape->shared ? 0 : link_static(plan, libdir, false);
	return link_shared(plan, libdir);
}

/* The arguments as the driver will see them, response files expanded. */
static int expand_args(struct ada_cc_plan *plan, struct ada_strv *expanded)
{
	struct ada_cc_opts *o = &plan->opts;
	int err;

	err = ada_rsp_expand(o->args.v, o->args.n, expanded);
	if (err == -ELOOP) {
		snprintf(plan->err, sizeof(plan->err),
			 "response files nest deeper than %d (does one include itself?)",
			 ADA_RSP_MAX_DEPTH);
		err = -EINVAL;
	}
	for (size_t i = 0; !err && i < expanded->n; i++)
		if (strncmp(expanded->v[i], "--ada-", 6) == 0) {
			snprintf(plan->err, sizeof(plan->err),
				 "%s is in a response file: adacc reads --ada-* options "
				 "from its command line only", expanded->v[i]);
			err = -EINVAL;
		}
	return err;
}

static int build_argv(struct ada_cc_plan *plan, const struct ada_cc_shape *shape,
		      const char *libdir)
{
	struct ada_cc_opts *o = &plan->opts;
	int err;

	err = ada_strv_push(&plan->argv, o->compiler);
	if (!err && ada_cc_shape_compiles(shape))
		err = ada_mode_compile_flags(o, &plan->argv);
	for (size_t i = 0; !err && i < o->args.n; i++)
		err = ada_strv_push(&plan->argv, o->args.v[i]);
	if (!err && ada_cc_shape_links(shape))
		err = link_runtime(plan, shape, libdir);
	return err;
}

int ada_cc_rewrite(const struct ada_cc_input *in, struct ada_cc_plan *plan)
{
	struct ada_strv expanded = { 0 };
	struct ada_cc_shape shape;
	int err;

	err = ada_cc_opts_parse(&plan->opts, in->argc, in->argv, in->env,
				plan->err, sizeof(plan->err));
	if (err || plan->opts.help || plan->opts.version)
		return err;
	err = expand_args(plan, &expanded);
	if (!err) {
		ada_cc_shape_scan(expanded.v, expanded.n, &shape);
		err = build_argv(plan, &shape, in->libdir);
	}
	ada_strv_free(&expanded);
	if (err == -ENOMEM)
		snprintf(plan->err, sizeof(plan->err), "out of memory");
	return err;
}

void ada_cc_plan_free(struct ada_cc_plan *plan)
{
	ada_cc_opts_free(&plan->opts);
	ada_strv_free(&plan->argv);
	free(plan->runtime);
	plan->runtime = NULL;
}

/* Characters a POSIX shell reads literally outside quotes. */
#define SHELL_SAFE "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-"

void ada_cc_print_cmd(FILE *f, char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];

		fputs(i ? " " : "", f);
		if (*a && strspn(a, SHELL_SAFE) == strlen(a)) {
			fputs(a, f);
			continue;
		}
		fputc('\'', f);
		for (; *a; a++) {
			if (*a == '\'')
				fputs("'\\''", f);	/* close, escaped quote, reopen */
			else
				fputc(*a, f);
		}
		fputc('\'', f);
	}
	fputc('\n', f);
}
