/* kept_symbols.h - the symbols kept with a trace, so that it outlives its
 * build: a rebuild, a `make clean`, a binary deleted (configure's conftest)
 * or the trace moved to another machine. Written by the runtime's writer
 * (symbols_keep.c: every function symbol, no source lines: the runtime has
 * no DWARF reader) and completed by ada-symbolize the first time it names
 * the trace with the binary at hand (symbolize/kept_symbols.c: source lines
 * of the functions that occur too). ada-symbolize reads it when a module's
 * file is gone or is not the one that ran.
 *
 * One file per build-id, <output>/.ada-symbols/<build-id in hex>.syms,
 * shared by every session of the output directory (a library is kept once):
 *
 *   ada-symbols 1
 *   machine <ELF e_machine>
 *   lines <0 | 1>                   1: source lines where known
 *   path <the module's path where it ran>
 *   <vaddr hex> <size hex> <rank> <name>[\t<file>\t<line>]     one per symbol
 *
 * rank: 0 global, 1 weak, 2 local (which of a function's aliases names it).
 * A module without a build-id is not kept: nothing would tell its file.
 */
#ifndef ADA_KEPT_SYMBOLS_H
#define ADA_KEPT_SYMBOLS_H

#define ADA_KEPT_DIR ".ada-symbols"
#define ADA_KEPT_MAGIC "ada-symbols 1"

#endif
