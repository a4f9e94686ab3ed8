# mk/sanitize.mk - ada checked by the sanitizers: make sanitize.
#
# The unit tests are always built with ASan+UBSan (TEST_CFLAGS). This adds:
#
#  - build/san/root: the tools as the end-to-end tests run them, sanitized
#    (bin/adacc and bin/ada-symbolize with ASan+UBSan), beside a runtime
#    built with UBSan (lib/libada.{so,a}), and links to the sources the
#    tests read. Every end-to-end test is built a second time with
#    ADA_ROOT there, so it runs unchanged against the sanitized tree.
#    The runtime gets UBSan in trap mode (-fsanitize-undefined-trap-on-error):
#    its hooks run before any sanitizer runtime is initialised, in signal
#    handlers, in static executables and on paths that must not touch the
#    vector registers; a trap needs no runtime at all (a failed check is a
#    ud2: the program dies by SIGILL, and ada's crash record names the
#    address). ASan does not go there: a traced program would need libasan
#    linked first, which these tests' programs are not.
#  - build/asan/lib and build/tsan/lib: the runtime with ASan+UBSan (with
#    diagnostics) and with TSan, for tests/sanitize/test_runtime_san.c,
#    which traces programs with them (the sanitizer's runtime preloaded,
#    as it must come first): the ring protocol, the writer, thread churn,
#    fork, a crash, coroutine stacks changing threads and the end of the
#    process with many threads, in every mode.
#
# make check runs a short part of it (SAN_CHECK below, ~1 min).
# gcc's sanitizer runtimes (libasan, libubsan, libtsan) come with gcc on
# Debian (libgcc-12-dev): nothing to install.

SAN_ROOT := $(B)/san/root

# ---- the runtime, three ways ------------------------------------------------
# $(1): output directory, $(2): where libada goes, $(3): sanitizer flags.
# Each variant is compiled as the real runtime is (RT_CFLAGS, the mcount
# files without vector registers) plus $(3).
define san_runtime
$(1)/runtime/%.o: runtime/%.c
	$$(call msg,CC,$$@)mkdir -p $$(@D) && $$(CC) $$(RT_CFLAGS) $(3) -c $$< -o $$@
$(1)/recorder/%.o: recorder/%.c
	$$(call msg,CC,$$@)mkdir -p $$(@D) && $$(CC) $$(RT_CFLAGS) $(3) -c $$< -o $$@
$(1)/mcount/%.o: mcount/%.c
	$$(call msg,CC,$$@)mkdir -p $$(@D) && $$(CC) $$(RT_CFLAGS) $(3) -mgeneral-regs-only -c $$< -o $$@
$(1)/mcount/%.o: mcount/%.S
	$$(call msg,AS,$$@)mkdir -p $$(@D) && $$(CC) $$(RT_CFLAGS) -c $$< -o $$@
$(2)/libada.so: $(RT_OBJS:$(B)/%=$(1)/%) runtime/libada.map
	$$(call msg,LD,$$@)mkdir -p $$(@D) && $$(CC) -shared $(3) -Wl,-soname,libada.so -Wl,-z,now \
		-Wl,-z,nodelete -Wl,--version-script=runtime/libada.map -o $$@ \
		$(RT_OBJS:$(B)/%=$(1)/%) $$(RT_LIBS)
$(2)/libada.a: $(filter-out $(1)/mcount/unwind.o,$(RT_OBJS:$(B)/%=$(1)/%))
	$$(call msg,AR,$$@)mkdir -p $$(@D) && rm -f $$@ && ar rcs $$@ $$^
endef

SAN_UBSAN_TRAP := -fsanitize=undefined -fsanitize-undefined-trap-on-error
# No fake stacks for use-after-return: they are calls into libasan on every
# function entry, hooks included.
SAN_ASAN_RT := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
               --param asan-use-after-return=0
# TSan does not model fences (-Wtsan says so at each one): the ring's two
# fences pair a store with a load on each side (ring.c); the values they
# order are atomics, which TSan sees.
SAN_TSAN_RT := -fsanitize=thread -Wno-tsan

$(eval $(call san_runtime,$(B)/san,$(SAN_ROOT)/lib,$(SAN_UBSAN_TRAP)))
$(eval $(call san_runtime,$(B)/asan,$(B)/asan/lib,$(SAN_ASAN_RT)))
$(eval $(call san_runtime,$(B)/tsan,$(B)/tsan/lib,$(SAN_TSAN_RT)))

# ---- the tools, with ASan+UBSan -------------------------------------------------
SAN_TOOL_CFLAGS := $(TOOL_CFLAGS) -O1 $(SAN)

$(B)/san/symbolize/%.o: symbolize/%.c
	$(call msg,CC,$@)mkdir -p $(@D) && $(CC) $(SAN_TOOL_CFLAGS) -c $< -o $@
$(B)/san/tool/recorder/%.o: recorder/%.c
	$(call msg,CC,$@)mkdir -p $(@D) && $(CC) $(SAN_TOOL_CFLAGS) -c $< -o $@
$(B)/san/cc-wrapper/%.o: cc-wrapper/%.c
	$(call msg,CC,$@)mkdir -p $(@D) && $(CC) $(SAN_TOOL_CFLAGS) -c $< -o $@

$(SAN_ROOT)/bin/ada-symbolize: $(SYM_OBJS:$(B)/%=$(B)/san/%)
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) $(SAN) -o $@ $^ $(TOOL_LIBS)
$(SAN_ROOT)/bin/adacc: $(CCW_OBJS:$(B)/%=$(B)/san/%)
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) $(SAN) -o $@ $^
$(SAN_ROOT)/bin/adac++: $(SAN_ROOT)/bin/adacc
	$(call msg,LN,$@)ln -sf adacc $@
$(B)/san/ctl/%.o: ctl/%.c
	$(call msg,CC,$@)mkdir -p $(@D) && $(CC) $(SAN_TOOL_CFLAGS) -c $< -o $@
$(SAN_ROOT)/bin/ada-ctl: $(CTL_OBJS:$(B)/%=$(B)/san/%)
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) $(SAN) -o $@ $^

# ada record: its recorder is the sanitized static runtime's, as bin/ada's is
# lib/libada.a's (Makefile).
$(B)/san/launcher/%.o: launcher/%.c
	$(call msg,CC,$@)mkdir -p $(@D) && $(CC) $(RT_CFLAGS) $(SAN_UBSAN_TRAP) -c $< -o $@
$(SAN_ROOT)/bin/ada: $(LAUNCH_OBJS:$(B)/%=$(B)/san/%) $(SAN_ROOT)/lib/libada.a
	$(call msg,LD,$@)mkdir -p $(@D) && $(CC) $(SAN_UBSAN_TRAP) -o $@ $(LAUNCH_OBJS:$(B)/%=$(B)/san/%) \
		-Wl,--whole-archive $(SAN_ROOT)/lib/libada.a -Wl,--no-whole-archive $(RT_LIBS)

# What the tests read from ADA_ROOT besides bin/ and lib/ (runtime/: ada.h,
# which test programs include).
SAN_ROOT_LINKS := $(addprefix $(SAN_ROOT)/,examples tests mcount cc-wrapper runtime recorder bench)
$(SAN_ROOT_LINKS):
	$(Q)mkdir -p $(@D) && ln -sfn $(CURDIR)/$(@F) $@

SAN_ROOT_ALL := $(addprefix $(SAN_ROOT)/bin/,adacc adac++ ada-symbolize ada-ctl ada) \
                $(SAN_ROOT)/lib/libada.so $(SAN_ROOT)/lib/libada.a $(SAN_ROOT_LINKS)

# ---- the end-to-end tests against the sanitized tree ----------------------------
SAN_TEST_CFLAGS := $(filter-out -DADA_ROOT=%,$(TEST_CFLAGS)) -DADA_ROOT='"$(CURDIR)/$(SAN_ROOT)"'
SAN_E2E_BINS := $(E2E_BINS:$(B)/%=$(B)/san/%)
SAN_TEST_LIB_OBJS := $(TEST_LIB_OBJS:$(B)/%=$(B)/san/%)

$(B)/san/t/%.o: %.c
	$(call msg,CC,$@)mkdir -p $(@D) && $(CC) $(SAN_TEST_CFLAGS) -c $< -o $@
$(B)/san/tests/e2e/%: $(B)/san/t/tests/e2e/%.o $(SAN_TEST_LIB_OBJS)
	$(call msg,TEST-LD,$@)mkdir -p $(@D) && $(CC) $(SAN_TEST_CFLAGS) -o $@ $^ $(TEST_LIBS)

# ---- the runtime under ASan and TSan in traced programs -------------------------
# The sanitizers' runtimes, preloaded into the traced programs. The compiler
# gives a bare name back when it has none.
SAN_ASAN_SO := $(shell $(CC) -print-file-name=libasan.so)
SAN_TSAN_SO := $(shell $(CC) -print-file-name=libtsan.so)
SAN_RT_TEST := $(B)/tests/sanitize/test_runtime_san
$(SAN_RT_TEST): tests/sanitize/test_runtime_san.c $(TEST_LIB_OBJS) $(B)/asan/lib/libada.so \
		$(B)/tsan/lib/libada.so
	$(Q)for so in $(SAN_ASAN_SO) $(SAN_TSAN_SO); do case $$so in /*) ;; \
	  *) echo "ada: $(CC) has no $$so (Debian: libgcc-12-dev, which gcc-12 depends on)"; exit 1;; \
	esac; done
	$(call msg,TEST-LD,$@)mkdir -p $(@D) && $(CC) $(TEST_CFLAGS) \
		-DSAN_ASAN_LIBDIR='"$(CURDIR)/$(B)/asan/lib"' -DSAN_TSAN_LIBDIR='"$(CURDIR)/$(B)/tsan/lib"' \
		-DSAN_ASAN_PRELOAD='"$(SAN_ASAN_SO)"' -DSAN_TSAN_PRELOAD='"$(SAN_TSAN_SO)"' \
		-o $@ $< $(TEST_LIB_OBJS) $(TEST_LIBS)

# ---- targets -------------------------------------------------------------------
# Everything: the unit tests, every end-to-end test against the sanitized
# tree, and the runtime's full matrix under ASan and TSan.
sanitize: all $(UNIT_BINS) $(SAN_ROOT_ALL) $(SAN_E2E_BINS) $(SAN_RT_TEST)
	$(Q)ADA_TEST_SAN_FULL=1 tests/run.sh $(UNIT_BINS) $(SAN_E2E_BINS) $(SAN_RT_TEST)

# make check's share (~1 min on two cores): the runtime's short matrix, and
# the symbolizer and adacc sanitized on the examples' real traces.
SAN_CHECK := $(B)/san/tests/e2e/test_examples $(SAN_RT_TEST)
sanitize-check: all $(SAN_ROOT_ALL) $(SAN_CHECK)
	$(Q)tests/run.sh $(SAN_CHECK)
check: sanitize-check
.PHONY: sanitize sanitize-check
