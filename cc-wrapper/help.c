/* help.c - the text of adacc --ada-help. */
#include "args.h"

void ada_cc_print_help(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--ada-OPTION...] [compiler arguments...]\n"
		"\n"
		"Runs gcc (g++ when invoked as adac++) with every argument unchanged,\n"
		"adding -finstrument-functions to each compile and the ada runtime to each\n"
		"link, so that the program records its function calls when it runs.\n"
		"Preprocessing (-E, -M, -MM) and queries (--version, -print-*, ...) are\n"
		"passed through untouched. --ada-* options are read from the command line\n"
		"only, never from @response files, and never reach the compiler.\n"
		"\n"
		"Options:\n", prog);
	ada_cc_opts_help(f);
	fputs("\n"
	      "fentry (the default on x86_64) and mcount record argument registers,\n"
	      "return values and a stack window (the detail lane) and see every return\n"
	      "by hijacking it; cyg sees functions and their callers only. Objects\n"
	      "built in different modes link into one program. LIST is comma-separated, as in gcc's\n"
	      "-finstrument-functions-exclude-{file,function}-list (cyg mode and gcc\n"
	      "only: given without --ada-mode, they select cyg). --ada-static links the hooks into the executable and exports\n"
	      "them, for instrumented shared libraries to use.\n"
	      "\n"
	      "Environment, read by adacc:\n"
	      "  ADA_CC        real C compiler (default gcc); --ada-cc= overrides it\n"
	      "  ADA_CXX       real C++ compiler for adac++ (default g++)\n"
	      "  ADA_MODE      instrumentation mode, as --ada-mode= (which overrides it)\n"
	      "  ADA_VERBOSE   1: as --ada-verbose\n"
	      "  ADA_LIBDIR    directory holding libada.so and libada.a (default: ../lib\n"
	      "                from the directory of the adacc executable)\n"
	      "\n"
	      "Environment, read by the traced program (runtime variables, see README):\n"
	      "  ADA_OUTPUT        directory for traces (default ./ada-trace)\n"
	      "  ADA_DISABLE       1: run without tracing\n"
	      "  ADA_RING_KB       each thread's ring buffer, KiB (64..1048576, default 16384)\n"
	      "  ADA_MAX_DEPTH     deepest call nesting recorded (default: no limit)\n"
	      "  ADA_SHADOW_DEPTH  frames checked for longjmp/unwinding (default 65536)\n"
	      "  ADA_FLUSH_MS      writer interval when idle, ms (1..1000, default 10)\n"
	      "  ADA_QUIET         1: no report of dropped events on stderr at exit\n"
	      "  ADA_DETAIL        all (default) | off: registers and stack (fentry, mcount)\n"
	      "  ADA_STACK_BYTES   stack window per detail record, 0..512 (default 128)\n"
	      "  ADA_DETAIL_KB     each thread's detail ring, KiB (default 16384)\n"
	      "\n"
	      "CMake: -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/ada/ada.cmake\n"
	      "make:  make CC=adacc CXX=adac++\n", f);
}
