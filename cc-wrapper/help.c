/* help.c - the text of adacc --ada-help. The variables come from the
 * runtime's own table (runtime/vars.h), which its unknown-variable check
 * uses too. */
#include "args.h"
#include "vars.h"

#include <string.h>

/* One group of the table: the name and its meaning, then what it takes. */
static void print_vars(FILE *f, enum ada_var_reader reader, const char *title)
{
	fprintf(f, "%s\n", title);
	for (size_t i = 0; i < ADA_NVARS; i++) {
		const struct ada_var *v = &ada_vars[i];

		if (v->reader != reader)
			continue;
		fprintf(f, "  %-18s%s%s\n", v->name, strlen(v->name) < 18 ? " " : "\n                     ",
			v->meaning);
		fprintf(f, "  %-18s %s (default %s)\n", "", v->accepted, v->def);
	}
	fputc('\n', f);
}

void ada_cc_print_help(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--ada-OPTION...] [compiler arguments...]\n"
		"\n"
		"Runs gcc (g++ when invoked as adac++) with every argument unchanged,\n"
		"adding the instrumentation mode's flags (-pg -mfentry by default on\n"
		"x86_64, -finstrument-functions elsewhere) to each compile and the ada\n"
		"runtime to each link, so that the program records its function calls\n"
		"when it runs. Preprocessing (-E, -M, -MM) and queries (--version,\n"
		"-print-*, ...) are passed through untouched: --version is the\n"
		"compiler's, --ada-version ada's. --ada-* options are read from the\n"
		"command line only, never from @response files, and never reach the\n"
		"compiler.\n"
		"\n"
		"Options:\n", prog);
	ada_cc_opts_help(f);
	fputs("\n"
	      "fentry (the default on x86_64) and mcount record argument registers,\n"
	      "return values and a stack window (the detail lane) and see every return:\n"
	      "fentry with gcc by a call before it (--ada-returns=call), else by\n"
	      "hijacking it; cyg sees functions and their callers only. patchable\n"
	      "compiles NOPs at each function's entry, which the runtime patches into\n"
	      "fentry's path for the functions ADA_FILTER / ADA_NOTRACE choose. Objects\n"
	      "built in different modes link into one program. LIST is comma-separated, as in gcc's\n"
	      "-finstrument-functions-exclude-{file,function}-list (cyg mode and gcc\n"
	      "only: given without --ada-mode, they select cyg). --ada-static links the hooks into the executable and exports\n"
	      "them, for instrumented shared libraries to use.\n"
	      "\n", f);
	print_vars(f, ADA_VAR_ADACC, "Environment, read by adacc:");
	print_vars(f, ADA_VAR_RUNTIME, "Environment, read by the traced program (docs/configuration.md):");
	print_vars(f, ADA_VAR_TEST, "Environment, for ada's own tests:");
	fputs("Tools: ada-symbolize TRACE_DIR converts and shows a trace; ada-ctl PID\n"
	      "enable|disable|status|filter GLOBS|notrace GLOBS changes what a running\n"
	      "traced process records (see docs/user-guide.md).\n"
	      "\n"
	      "CMake: -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/ada/ada.cmake, or find_package(ada)\n"
	      "       (ada::runtime, ada_TOOLCHAIN_FILE; docs/user-guide.md: Installing)\n"
	      "make:  make CC=adacc CXX=adac++\n"
	      "pkg-config --cflags --libs ada: ada.h and the runtime, for a program that calls\n"
	      "       ada_enable() and the like (instrumenting needs adacc)\n", f);
}
