# ada — one Makefile for the whole tree.
#
#   make            build bin/ada, bin/adacc, bin/adac++, bin/ada-symbolize, bin/ada-ctl, lib/libada.so, lib/libada.a
#   make check      build and run every test (unit + end-to-end)
#   make demo       build, trace an example, symbolize it, show the result
#   make bench      the benchmark (not a test: prints medians and ratios)
#   make realworld  Lua and SQLite from Debian's sources, traced in every mode
#   make stress     ada under stress: threads on tiny rings, churn, signal and fork storms, dlopen loops
#   make sanitize   every test with the tools and the runtime under ASan, UBSan and TSan
#   make fuzz       libFuzzer on the raw-trace, ATF and JSON readers (FUZZ_MINUTES each)
#   make browser    the views in headless Chromium: the SVG flame graph, speedscope
#   make aarch64    the runtime cross-built for aarch64, cyg mode: lib/aarch64/ (mk/aarch64.mk)
#   make check-aarch64  the examples cross-built for aarch64, run under qemu-aarch64
#   make install PREFIX=/usr/local   (DESTDIR too; make uninstall: mk/install.mk)
#
# Quiet unless V=1. Sources are found by glob: a new .c file in a component
# directory is part of that component with no edit here.

PREFIX  ?= /usr/local
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)
msg      = $(if $(filter 1,$(V)),,@printf '  %-8s %s\n' '$(1)' '$(2)';)

CC      := gcc
CXX     := g++
B       := build

# --- dependencies (Debian packages) -------------------------------------------
PKGS     := libelf libdw liblz4 libisal cmocka
DEB_PKGS := pkg-config libelf-dev libdw-dev liblz4-dev libisal-dev libcmocka-dev

# --- flags --------------------------------------------------------------------
WARN    := -Wall -Wextra -Wstrict-prototypes -Wshadow -Wundef $(if $(CI),-Werror)
ARCH    := $(shell uname -m)
# The project's version, in one place: VERSION, given to every binary (mk/version.mk).
VERSION := $(shell cat VERSION)
BASE    := -std=gnu11 -g -O2 -D_GNU_SOURCE -MMD -MP -Iruntime -Iruntime/$(ARCH) -Imcount/$(ARCH) $(WARN) \
           -DADA_VERSION='"$(VERSION)"'

# The runtime is linked into the traced program. It must never be instrumented
# itself: a hook that fired inside the runtime would recurse into the hook (the
# kernel builds kernel/trace/ without -pg for the same reason). -fvisibility=hidden
# keeps every symbol private except the hooks and the few ada_* controls.
RT_CFLAGS := $(BASE) -fPIC -fvisibility=hidden -fno-instrument-functions \
             -ftls-model=initial-exec -fno-stack-protector $(EXTRA_RT_CFLAGS)
RT_LIBS   := -llz4 -lpthread -ldl

TOOL_CFLAGS := $(BASE) -Isymbolize -Irecorder $(shell pkg-config --cflags libelf libdw liblz4 libisal 2>/dev/null)
TOOL_LIBS   := $(shell pkg-config --libs libelf libdw liblz4 libisal 2>/dev/null) -lstdc++

# Tests get the sanitizers; the code under test is recompiled for them.
SAN         := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TEST_CFLAGS := $(BASE) -O1 $(SAN) -Isymbolize -Irecorder -Icc-wrapper -Itests \
               $(shell pkg-config --cflags cmocka libelf libdw liblz4 libisal 2>/dev/null) \
               -DADA_ROOT='"$(CURDIR)"'
TEST_LIBS   := $(shell pkg-config --libs cmocka libelf libdw liblz4 libisal 2>/dev/null) -lstdc++ -lpthread -ldl

# --- sources ------------------------------------------------------------------
RT_SRCS    := $(wildcard runtime/*.c recorder/*.c mcount/*.c)
RT_ASM     := $(wildcard mcount/$(ARCH)/*.S)
RT_OBJS    := $(RT_SRCS:%.c=$(B)/%.o) $(RT_ASM:%.S=$(B)/%.o)
SYM_SRCS   := $(wildcard symbolize/*.c)
# ada-symbolize recovers ring files with the recorder's own encoder and frames (recover.c).
SYM_RT_SRCS := recorder/encode.c recorder/frame.c
SYM_OBJS   := $(SYM_SRCS:%.c=$(B)/%.o) $(SYM_RT_SRCS:%.c=$(B)/tool/%.o)
CCW_SRCS   := $(wildcard cc-wrapper/*.c)
CCW_OBJS   := $(CCW_SRCS:%.c=$(B)/%.o)
CTL_OBJS   := $(patsubst %.c,$(B)/%.o,$(wildcard ctl/*.c))
LAUNCH_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard launcher/*.c))

# Unit tests mirror the tree: tests/<component>/test_*.c links that component's
# objects (rebuilt with sanitizers), except the file holding main() or, for the
# runtime, the process lifecycle (init.c), which end-to-end tests exercise.
UNIT_DIRS  := runtime recorder symbolize cc-wrapper mcount
UNIT_SRCS  := $(foreach d,$(UNIT_DIRS),$(wildcard tests/$(d)/test_*.c))
UNIT_BINS  := $(UNIT_SRCS:%.c=$(B)/%)
E2E_SRCS   := $(wildcard tests/e2e/test_*.c)
E2E_BINS   := $(E2E_SRCS:%.c=$(B)/%)
# The tests read JSON (the chrome export) with the symbolizer's own parser.
TEST_LIB_SRCS := $(filter-out tests/e2e/test_%,$(wildcard tests/e2e/*.c)) $(wildcard tests/lib/*.c) \
                 symbolize/json.c symbolize/json_write.c
TEST_LIB_OBJS := $(TEST_LIB_SRCS:%.c=$(B)/t/%.o)

unit_objs   = $(patsubst %.c,$(B)/t/%.o,$(or $(UNIT_ONLY_$(1)),$(filter-out %/main.c %/init.c %/cyg.c,$(wildcard $(1)/*.c))) $(TEST_EXTRA_$(1)))
# The hooks are tested end to end (tests/e2e); of mcount/, the module reader
# and its cache alone stand without the runtime.
UNIT_ONLY_mcount := mcount/dynscan.c mcount/dyncache.c
# The symbolizer's tests round-trip what the runtime's encoder writes.
TEST_EXTRA_symbolize := recorder/encode.c recorder/frame.c runtime/drop.c runtime/util.c
# runtime/ and recorder/ are one library: each one's tests link the other's
# objects too.
TEST_EXTRA_runtime := $(wildcard recorder/*.c)
TEST_EXTRA_recorder := $(filter-out runtime/init.c runtime/cyg.c,$(wildcard runtime/*.c))

TOOLS := bin/adacc bin/adac++ bin/ada-symbolize bin/ada-ctl bin/ada
LIBS  := lib/libada.so lib/libada.a

.PHONY: all deps check unit e2e demo bench realworld clean install fuzz

ifeq ($(ADA_INNER),)
# The outer make only makes sure the Debian packages are there, then runs the
# inner make, which reads the pkg-config flags of what 'deps' just installed.
all check unit e2e demo bench realworld install uninstall stress fuzz sanitize sanitize-check browser browser-check \
  aarch64 check-aarch64 aarch64-deps: deps
	$(Q)$(MAKE) --no-print-directory ADA_INNER=1 $@

# Install what the build needs from Debian when it is missing: apt-get when we
# are root, otherwise one line naming the packages. Building and installing
# need no cmocka (only the tests do), uninstalling nothing.
GOALS     := $(or $(MAKECMDGOALS),all)
NEED_PKGS := $(if $(filter-out all install uninstall demo bench realworld,$(GOALS)),$(PKGS),$(filter-out cmocka,$(PKGS)))
NEED_PKGS := $(if $(filter-out uninstall,$(GOALS)),$(NEED_PKGS))
deps:
	$(Q)missing=; for p in $(NEED_PKGS); do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "ada: installing$$missing from Debian ($(DEB_PKGS))"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PKGS) >/dev/null || exit 1; \
	  else echo "ada: missing$$missing; install: apt-get install $(DEB_PKGS)"; exit 1; fi; \
	fi

else
# Programs run by the recipes (the demo, the tests) must not see this in their
# environment: the runtime warns about ADA_* variables it does not know.
unexport ADA_INNER
all: $(TOOLS) $(LIBS)

# --- runtime ------------------------------------------------------------------
$(B)/runtime/%.o: runtime/%.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(RT_CFLAGS) -c $< -o $@
$(B)/recorder/%.o: recorder/%.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(RT_CFLAGS) -c $< -o $@

# Code the trampolines call must not clobber registers they do not save:
# the x87 and vector registers that carry return values (uftrace builds its
# libmcount the same way).
$(B)/mcount/%.o: mcount/%.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(RT_CFLAGS) -mgeneral-regs-only -c $< -o $@

$(B)/mcount/%.o: mcount/%.S
	$(call msg,AS,$<)mkdir -p $(@D) && $(CC) $(RT_CFLAGS) -c $< -o $@

lib/libada.so: $(RT_OBJS) runtime/libada.map
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) -shared -Wl,-soname,libada.so -Wl,-z,now -Wl,-z,nodelete \
		-Wl,--version-script=runtime/libada.map -o $@ $(RT_OBJS) $(RT_LIBS)

# The static runtime leaves out mcount/unwind.c: it interposes the unwinder
# and libc by symbol, which a static link cannot do (its definitions would
# replace libgcc_eh's and libc.a's instead). fentry/mcount programs linked
# statically therefore cannot throw C++ exceptions through traced frames.
lib/libada.a: $(filter-out $(B)/mcount/unwind.o $(B)/runtime/makecontext.o,$(RT_OBJS))
	$(call msg,AR,$@)mkdir -p $(@D) && rm -f $@ && ar rcs $@ $^

# --- tools --------------------------------------------------------------------
$(B)/symbolize/%.o: symbolize/%.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(TOOL_CFLAGS) -c $< -o $@
$(B)/tool/recorder/%.o: recorder/%.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(TOOL_CFLAGS) -c $< -o $@
$(B)/cc-wrapper/%.o: cc-wrapper/%.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(TOOL_CFLAGS) -c $< -o $@
$(B)/ctl/%.o: ctl/%.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(TOOL_CFLAGS) -c $< -o $@

bin/ada-symbolize: $(SYM_OBJS)
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) -o $@ $^ $(TOOL_LIBS)

# The encoder's and lz4's benchmark on a fixed input (bench/encbench.c says
# how); not part of `all`: make ADA_INNER=1 build/bench/encbench.
$(B)/bench/%.o: bench/%.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(TOOL_CFLAGS) -c $< -o $@
$(B)/bench/encbench: $(B)/bench/encbench.o $(filter-out $(B)/symbolize/main.o,$(SYM_OBJS))
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) -o $@ $^ $(TOOL_LIBS)

bin/adacc: $(CCW_OBJS)
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) -o $@ $^

bin/ada-ctl: $(CTL_OBJS)
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) -o $@ $^

# ada record's recorder is libada's (launcher/record.c): the whole static
# runtime, so that its shared section is laid out as the program's.
# Linked static-pie: bin/ada's exec is the first part of every `ada record`'s
# start-up, and without a loader, libc.so and liblz4.so to map and relocate it
# is 0.37 ms shorter here (issue 23). ld warns that libada's dlopen and
# dlmopen (dynhook.c, init.c's secondary_copy) would want this glibc's shared
# libraries at run time; bin/ada's runtime never runs them (main.c keeps it
# off), and those lines are left out of the build's output.
$(B)/launcher/%.o: launcher/%.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(RT_CFLAGS) -c $< -o $@
bin/ada: $(LAUNCH_OBJS) lib/libada.a
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) -static-pie -o $@ $(LAUNCH_OBJS) \
		-Wl,--whole-archive lib/libada.a -Wl,--no-whole-archive $(RT_LIBS) 2>$@.ld || \
		{ cat $@.ld >&2; rm -f $@.ld; exit 1; }; \
		grep -v -e 'statically linked applications requires' -e ': in function ' $@.ld >&2; rm -f $@.ld

# The C++ twin is the same program; it picks g++/clang++ from its own name.
bin/adac++: bin/adacc
	$(call msg,LN,$@)ln -sf adacc $@

# --- tests --------------------------------------------------------------------
$(B)/t/%.o: %.c
	$(call msg,CC,$<)mkdir -p $(@D) && $(CC) $(TEST_CFLAGS) -c $< -o $@

.SECONDARY:
.SECONDEXPANSION:
# Linked from the test's source and the objects only: -MMD lists what the
# source includes (test_fuzz_regress.c includes the fuzz targets' sources)
# among the prerequisites too.
# A test in UNIT_SELF includes the one source it tests and links none of
# its component's objects.
UNIT_SELF := test_patch_write
$(B)/tests/%: tests/%.c $$(if $$(filter $$(notdir $$*),$(UNIT_SELF)),,$$(call unit_objs,$$(firstword $$(subst /, ,$$*)))) $(TEST_LIB_OBJS)
	$(call msg,TEST-LD,$@)mkdir -p $(@D) && $(CC) $(TEST_CFLAGS) -o $@ $< $(filter %.o,$^) $(TEST_LIBS)

unit: $(UNIT_BINS)
	$(Q)tests/run.sh $(UNIT_BINS)

e2e: all $(E2E_BINS)
	$(Q)tests/run.sh $(E2E_BINS)

check: all $(UNIT_BINS) $(E2E_BINS)
	$(Q)tests/run.sh $(UNIT_BINS) $(E2E_BINS) tests/cc-wrapper/build_systems.sh \
		tests/packaging/install.sh tests/realworld/smoke.sh tests/e2e/aarch64.sh

# --- demo, bench, install -----------------------------------------------------
demo: all
	$(Q)examples/demo.sh

bench: all
	$(Q)$(MAKE) --no-print-directory -C bench

# Real programs from Debian's source packages (tests/realworld/run.sh), the
# same cross-built for aarch64 and run under qemu where the cross tools are
# (run.sh --target=aarch64, issue 26: about 7 min), and a library's own test
# suite (suite.sh: libuv's, each test's verdict as plain): not part of
# check, which runs run.sh's --smoke subset; fetches the sources once.
realworld: all aarch64-if-possible
	$(Q)r=0; tests/realworld/run.sh || r=1; tests/realworld/run.sh --target=aarch64 || r=1; \
	tests/realworld/suite.sh && exit $$r

include mk/stress.mk
include mk/fuzz.mk
include mk/sanitize.mk
include mk/exports.mk
include mk/browser.mk
include mk/aarch64.mk
include mk/install.mk
include mk/version.mk

endif

clean:
	rm -rf $(B) bin lib ada-trace

-include $(shell find $(B) -name '*.d' 2>/dev/null)
