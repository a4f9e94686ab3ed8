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
 *
 * A module without a build-id (linked with --build-id=none) is known by what
 * the trace recorded of its file (the FILE record: RAW_FORMAT.md): its path,
 * size, modification time and inode, hashed into file-<16 hex>.syms
 * (ada_kept_file_key). A rebuild changes the time, so it gets a file of its
 * own, as a build-id would; "file-" cannot start a build-id's hex.
 */
#ifndef ADA_KEPT_SYMBOLS_H
#define ADA_KEPT_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "raw_format.h"

#define ADA_KEPT_DIR ".ada-symbols"
#define ADA_KEPT_MAGIC "ada-symbols 1"
#define ADA_KEPT_FILE_PREFIX "file-"

/* The FILE record of a module numbered module_no whose file stat(2) saw as st. */
static inline struct ada_meta_file ada_kept_file_of(const struct stat *st, uint32_t module_no)
{
	return (struct ada_meta_file){
		.module_no = module_no, .size = (uint64_t)st->st_size,
		.mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec,
		.ino = (uint64_t)st->st_ino,
	};
}

/* Whether two FILE records tell the same file (their module numbers aside). */
static inline bool ada_kept_same_file(const struct ada_meta_file *a, const struct ada_meta_file *b)
{
	return a->size == b->size && a->mtime_ns == b->mtime_ns && a->ino == b->ino;
}

/* Whether the file at path is still the one its FILE record f tells (the
 * writer before keeping its symbols, ada-symbolize before naming from it). */
static inline bool ada_kept_file_unchanged(const char *path, const struct ada_meta_file *f)
{
	struct ada_meta_file now;
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	now = ada_kept_file_of(&st, f->module_no);
	return ada_kept_same_file(&now, f);
}

/* FNV-1a 64 over the path with its NUL, then size, mtime_ns and ino as
 * little-endian u64: the writer and ada-symbolize, from the same record,
 * name the same file. */
static inline uint64_t ada_kept_file_key(const char *path, const struct ada_meta_file *f)
{
	const uint64_t v[3] = { f->size, f->mtime_ns, f->ino };
	uint64_t h = 0xcbf29ce484222325ull;

	do
		h = (h ^ (uint8_t)*path) * 0x100000001b3ull;
	while (*path++);
	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 64; b += 8)
			h = (h ^ (uint8_t)(v[i] >> b)) * 0x100000001b3ull;
	return h;
}

/* A module's kept file name without ".syms": its build-id in hex (id, len),
 * or with len 0, ADA_KEPT_FILE_PREFIX and the key of its FILE record (file,
 * recorded at path). out holds 65 bytes. */
static inline char *ada_kept_name(char out[65], const uint8_t *id, uint32_t len, const char *path,
				  const struct ada_meta_file *file)
{
	static const char digits[] = "0123456789abcdef";
	uint64_t key;
	size_t n = 0;

	if (len) {
		for (uint32_t i = 0; i < len && i < 32; i++) {
			out[n++] = digits[id[i] >> 4];
			out[n++] = digits[id[i] & 15];
		}
	} else {
		key = ada_kept_file_key(path, file);
		for (n = 0; ADA_KEPT_FILE_PREFIX[n]; n++)
			out[n] = ADA_KEPT_FILE_PREFIX[n];
		for (int b = 60; b >= 0; b -= 4)
			out[n++] = digits[(key >> b) & 15];
	}
	out[n] = '\0';
	return out;
}

#endif
