/* target.h - the architecture an end-to-end test builds its programs for:
 * the host's, or aarch64 when the test is run with --target=aarch64 (make
 * check-aarch64, issue 26): cross-built with Debian's aarch64-linux-gnu-gcc
 * against lib/aarch64/, run under qemu-aarch64, and their traces read by
 * the host's own ada-symbolize, so the expected outputs are the host's.
 */
#ifndef ADA_TEST_TARGET_H
#define ADA_TEST_TARGET_H

#include <stdbool.h>
#include <stddef.h>

/* aarch64's cross compilers (Debian's). */
#define TARGET_CC_A64 "aarch64-linux-gnu-gcc"
#define TARGET_CXX_A64 "aarch64-linux-gnu-g++"

/* "aarch64", or NULL for the host's architecture. */
extern const char *target_arch;

/* Takes --target=ARCH out of main's arguments. Returns 0, or -1 with one
 * line on stderr for an architecture it does not know. */
int target_parse(int *argc, char **argv);

/* The plain compiler for the target: gcc or g++ on the host, the cross
 * compiler else. adacc is given it with --ada-cc=. */
const char *target_cc(bool cxx);

/* argv as it runs a program built for the target: unchanged on the host,
 * behind qemu-aarch64 for aarch64 (with the multiarch C library: no -L).
 * Fills out (n entries, the NULL included) and returns it. */
const char *const *target_argv(const char *const argv[], const char *out[], size_t n);

#endif
