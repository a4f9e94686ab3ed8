/* shape.h - what a gcc/clang command line will do: compile, link, both, or
 * neither.
 *
 * adacc adds its compile flag only where the driver compiles and the runtime
 * only where it links, so it reads the command line (response files already
 * expanded) the way the driver does: options that take the next argument,
 * -x languages, and inputs by suffix.
 */
#ifndef ADA_SHAPE_H
#define ADA_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

struct ada_cc_shape {
	bool query;		/* --version, -dumpmachine, -print-*, --help: nothing is built */
	bool preprocess;	/* -E, -M or -MM: the driver stops after the preprocessor */
	bool compile_only;	/* -c, -S or -fsyntax-only: the driver does not link */
	bool has_source;	/* an input the driver compiles (a header counts) */
	bool has_link_input;	/* an input that reaches the linker if it runs */
	bool shared;		/* -shared */
	bool relocatable;	/* -r: a partial link into another object */
	bool static_exe;	/* -static or -static-pie */
	bool no_libc;		/* -nostdlib, -nodefaultlibs or -nolibc */
};

void ada_cc_shape_scan(char *const *args, size_t n, struct ada_cc_shape *shape);

/* The driver compiles at least one input: the instrumentation flag applies. */
bool ada_cc_shape_compiles(const struct ada_cc_shape *shape);

/* The driver runs the linker. */
bool ada_cc_shape_links(const struct ada_cc_shape *shape);

#endif
