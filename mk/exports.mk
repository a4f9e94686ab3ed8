# mk/exports.mk - what the exports' end-to-end test needs (tests/e2e/test_views_export.c).
#
# It decodes the Perfetto export with `protoc --decode_raw` (Debian's
# protobuf-compiler): make check and make e2e install protoc when they run
# as root, as the build does its own packages; elsewhere the test skips
# that part with a message. (It reads the JSON export with the symbolizer's
# own parser: the Makefile's TEST_LIB_SRCS.)

.PHONY: protoc-deps
check e2e: protoc-deps
protoc-deps:
	$(Q)command -v protoc >/dev/null || \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "ada: installing protobuf-compiler from Debian (protoc, for the Perfetto export's test)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq protobuf-compiler \
	    >/dev/null || echo "ada: could not install protobuf-compiler: the Perfetto export's test will skip"; \
	else echo "ada: no protoc (apt-get install protobuf-compiler): the Perfetto export's test will skip"; fi

# test_exports plays frames of its own to the view through a view_run
# of its own (a link seam, as STYLE.md's tests do).
$(B)/tests/symbolize/test_exports: TEST_LIBS += -Wl,--wrap=view_run
