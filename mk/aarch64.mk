# mk/aarch64.mk - the runtime cross-built for aarch64 and tested under
# qemu-user: make check-aarch64 (issue 26).
#
# Debian's cross compilers and qemu-user, and from Debian's multiarch the
# aarch64 libraries the runtime links (lz4) and the C++ examples run with
# (libstdc++), installed as the build's own packages are: apt-get when root,
# otherwise one line naming them. The programs run under qemu-aarch64 with
# the multiarch C library (/lib/ld-linux-aarch64.so.1), not with -L and the
# cross compiler's: lz4 brings the multiarch one, and a loader of one build
# with a libc.so.6 of the other corrupts glibc's thread-stack lists
# (pthread_create in a fork child loops forever).

A64_TRIPLE := aarch64-linux-gnu
A64_CC     := $(A64_TRIPLE)-gcc
A64_CXX    := $(A64_TRIPLE)-g++
A64_QEMU   := qemu-aarch64
A64_DEB    := gcc-$(A64_TRIPLE) g++-$(A64_TRIPLE) qemu-user liblz4-dev:arm64 libstdc++6:arm64
# What the packages leave that the build and the tests use.
A64_HAVE   := command -v $(A64_CC) && command -v $(A64_CXX) && command -v $(A64_QEMU) && \
              test -e /usr/lib/$(A64_TRIPLE)/liblz4.so && test -e /usr/lib/$(A64_TRIPLE)/libstdc++.so.6

.PHONY: aarch64-deps
aarch64-deps:
	$(Q){ $(A64_HAVE); } >/dev/null 2>&1 || \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "ada: installing the aarch64 cross tools from Debian ($(A64_DEB))"; \
	  { dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64; } && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-remove \
	    $(A64_DEB) >/dev/null || { echo "ada: could not install $(A64_DEB)"; exit 1; }; \
	else echo "ada: make check-aarch64 needs $(A64_DEB) (dpkg --add-architecture arm64; apt-get install $(A64_DEB))"; exit 1; fi

# --- the runtime, cross-built ---------------------------------------------------
# The same sources as lib/libada.*, with runtime/aarch64/ and mcount/aarch64/
# for the x86_64 directories, less what aarch64 has no hooks for yet: of
# mcount/*.c, all but the return hijacking and the unwinder's interposers
# (cyg and mcount modes: no dynamic hooks, no patchable mode), and of the
# assembly, the hooks of those two modes and vfork. The runtime calls mcount/ only
# through ada_passes, which stays empty here (passes.c is not built).
A64_B       := $(B)/aarch64
A64_LIB     := lib/aarch64
A64_RT_CFLAGS := $(subst /$(ARCH),/aarch64,$(RT_CFLAGS))
A64_RT_SRCS := $(wildcard runtime/*.c recorder/*.c) mcount/hijack.c mcount/unwind.c
A64_RT_ASM  := mcount/aarch64/cyg.S mcount/aarch64/mcount.S mcount/aarch64/return.S mcount/aarch64/vfork.S
A64_RT_OBJS := $(A64_RT_SRCS:%.c=$(A64_B)/%.o) $(A64_RT_ASM:%.S=$(A64_B)/%.o)

# mcount/'s C as on x86_64 (the Makefile): no FP or vector register touched
# on the way back to a function's caller, whose return values they hold.
$(A64_B)/mcount/%.o: mcount/%.c | aarch64-deps
	$(call msg,CC-A64,$<)mkdir -p $(@D) && $(A64_CC) $(A64_RT_CFLAGS) -mgeneral-regs-only -c $< -o $@
$(A64_B)/%.o: %.c | aarch64-deps
	$(call msg,CC-A64,$<)mkdir -p $(@D) && $(A64_CC) $(A64_RT_CFLAGS) -c $< -o $@
$(A64_B)/%.o: %.S | aarch64-deps
	$(call msg,AS-A64,$<)mkdir -p $(@D) && $(A64_CC) $(A64_RT_CFLAGS) -c $< -o $@

$(A64_LIB)/libada.so: $(A64_RT_OBJS) runtime/libada.map
	$(call msg,LD-A64,$@)mkdir -p $(@D) && $(A64_CC) -shared -Wl,-soname,libada.so -Wl,-z,now \
		-Wl,-z,nodelete -Wl,--version-script=runtime/libada.map -o $@ $(A64_RT_OBJS) $(RT_LIBS)
# Less mcount/unwind.c, as lib/libada.a (the Makefile says why).
$(A64_LIB)/libada.a: $(filter-out $(A64_B)/mcount/unwind.o $(A64_B)/runtime/makecontext.o,$(A64_RT_OBJS))
	$(call msg,AR-A64,$@)mkdir -p $(@D) && rm -f $@ && ar rcs $@ $^

.PHONY: aarch64
aarch64: $(A64_LIB)/libada.so $(A64_LIB)/libada.a

# --- the tests ------------------------------------------------------------------
# tests/e2e/aarch64.sh runs the end-to-end tests that take --target=aarch64:
# test_examples (every example at -O0 and -O2 in cyg and mcount modes,
# against the host's expected trees), test_signals (a handler's calls
# nesting under the interrupted frame, siglongjmp out of a hook, calls lost
# in a handler counted exactly, longjmp's skipped frames), and in mcount
# mode test_hijack (longjmp, signals on either stack, tail calls, exit,
# abort, fork, ucontext, 10,000 deep) and test_unwind (C++ exceptions,
# backtrace(), pthread_exit and pthread_cancel through hijacked frames),
# and test_vfork in cyg and mcount modes (the child records nothing, the
# parent's trace stays whole; what qemu-user can run of it: docs/internals.md).
# About 3.5 min here once the packages are there (their install ~30 s more):
# make check runs it too, installing the packages where it can and skipping
# with one line where it cannot (not root, no network).
A64_TESTS := $(addprefix $(B)/tests/e2e/,test_examples test_signals test_hijack test_unwind test_vfork)

.PHONY: check-aarch64 aarch64-if-possible
check-aarch64: all aarch64 $(A64_TESTS)
	$(Q)A64_REQUIRED=1 tests/run.sh tests/e2e/aarch64.sh

check: aarch64-if-possible
aarch64-if-possible:
	$(Q)if $(MAKE) --no-print-directory aarch64-deps; then $(MAKE) --no-print-directory aarch64; \
	else echo "ada: the aarch64 tests will skip (no cross tools)"; fi
