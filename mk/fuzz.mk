# fuzz.mk - `make fuzz`: libFuzzer targets (clang-14, ASan+UBSan) for the
# readers of files ada-symbolize is given: the raw trace (tests/fuzz/fuzz_raw.c),
# ATF with its validator and views (fuzz_atf.c) and the manifest's JSON (fuzz_json.c).
#
#   make fuzz                 every target FUZZ_MINUTES (default 5) minutes
#   make ADA_INNER=1 fuzz-raw one target (fuzz-atf, fuzz-json)
#
# Seeds come from real traces made at fuzz time (tests/fuzz/seeds.py); the
# corpus grows in $(B)/fuzz/corpus/<target> and is kept between runs. An
# input that crashes lands in $(B)/fuzz/crashes/<target>/ and fails the run:
# fix the reader and keep the input under tests/fuzz/regress/<target>/, which
# tests/symbolize/test_fuzz_regress.c replays in `make check` (and which seeds
# the target's next runs).

FUZZ_MINUTES ?= 5
FUZZ_CC      := clang-14
FUZZ_DEB     := clang-14 libclang-rt-14-dev lz4 python3
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -D_GNU_SOURCE -MMD -MP -Iruntime -Isymbolize -Itests/fuzz $(FUZZ_SAN) \
                $(shell pkg-config --cflags liblz4 2>/dev/null)
FUZZ_TARGETS := raw atf json

# What each harness links: the reader it fuzzes and what that reader calls.
FUZZ_SRCS_raw  := raw_meta raw_stream clock_map
FUZZ_SRCS_atf  := atf_check atf_check_lanes atf_reader view_replay view_dump trace_dir json json_write crc32
FUZZ_SRCS_json := json json_write
FUZZ_LIBS      := $(shell pkg-config --libs liblz4 libisal 2>/dev/null)

.PHONY: fuzz fuzz-deps $(FUZZ_TARGETS:%=fuzz-%)

# clang-14 and its libFuzzer runtime from Debian, and what seeds.py runs
# (python3, lz4), as `deps` installs the build's packages: apt-get when root,
# else the line to run.
fuzz-deps:
	$(Q)if ! command -v $(FUZZ_CC) >/dev/null || ! command -v lz4 >/dev/null || \
	   ! command -v python3 >/dev/null || \
	   [ ! -f "$$($(FUZZ_CC) -print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-$(ARCH).a" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "ada: installing $(FUZZ_DEB) from Debian"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(FUZZ_DEB) >/dev/null || exit 1; \
	  else echo "ada: make fuzz needs $(FUZZ_DEB); install: apt-get install $(FUZZ_DEB)"; exit 1; fi; \
	fi

$(B)/fuzz/obj/%.o: symbolize/%.c | fuzz-deps
	$(call msg,FUZZ-CC,$<)mkdir -p $(@D) && $(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

fuzz_objs = $(addprefix $(B)/fuzz/obj/,$(addsuffix .o,$(FUZZ_SRCS_$(1))))

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_input.h $$(call fuzz_objs,$$*) | fuzz-deps
	$(call msg,FUZZ-LD,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(call fuzz_objs,$*) $(FUZZ_LIBS)

$(B)/fuzz/seeds/stamp: tests/fuzz/seeds.py $(TOOLS) $(LIBS) | fuzz-deps
	$(call msg,SEEDS,$(@D))rm -rf $(@D) && tests/fuzz/seeds.py $(CURDIR) $(@D) && touch $@

# The harnesses write their input as files: in memory (/dev/shm) they run
# about three times as fast as on disk. A directory per run, removed after
# it even when the harness died.
FUZZ_TMP ?= $(if $(wildcard /dev/shm),/dev/shm,/tmp)

# -close_fd_mask=3: the readers print one line per bad input; libFuzzer
# keeps its own output. -timeout=10: an input that takes longer is a hang
# (a view once indented by a damaged depth of four billion). The last lines
# of the log say what ran.
$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: $(B)/fuzz/fuzz_% $(B)/fuzz/seeds/stamp
	$(Q)mkdir -p $(B)/fuzz/corpus/$* $(B)/fuzz/crashes/$*
	$(Q)echo "fuzz $*: $(FUZZ_MINUTES) min, log $(B)/fuzz/$*.log"
	$(Q)tmp=$$(mktemp -d $(FUZZ_TMP)/ada-fuzz-$*.XXXXXX) && \
	TMPDIR=$$tmp $(B)/fuzz/fuzz_$* -max_total_time=$$(($(FUZZ_MINUTES) * 60)) -timeout=10 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix=$(B)/fuzz/crashes/$*/ \
		$(B)/fuzz/corpus/$* $(B)/fuzz/seeds/$* tests/fuzz/regress/$* >$(B)/fuzz/$*.log 2>&1; \
	status=$$?; rm -rf "$$tmp"; grep -E '^#[0-9]+[[:space:]]+DONE|^stat::number_of_executed_units|^stat::peak_rss|ERROR|SUMMARY' \
		$(B)/fuzz/$*.log; ls $(B)/fuzz/crashes/$* | sed 's/^/  crash: /'; exit $$status

fuzz: $(FUZZ_TARGETS:%=fuzz-%)
