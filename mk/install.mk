# mk/install.mk - make install, make uninstall (PREFIX, DESTDIR).
#
#   PREFIX/bin/          ada, adacc, adac++ (a link to adacc), ada-symbolize: every tool in TOOLS
#   PREFIX/lib/          libada.so, libada.a; pkgconfig/ada.pc; cmake/ada/ (find_package(ada))
#   PREFIX/include/      ada.h
#   PREFIX/share/ada/    ada.cmake (the toolchain file), ada-unwind.py (gdb)
#   PREFIX/share/man/man1/  a page per tool, packaging/<tool>.1.in (adac++.1 a link),
#                           and ada.1, the overview (docs/ada.1)
#
# adacc finds the runtime as ../lib from its own directory and the CMake files
# find everything from their own place, so an install can be moved; ada.pc
# names PREFIX. uninstall removes exactly these files, then the directories
# that are left empty (PREFIX itself stays). The version (VERSION) goes into
# ada.pc, the CMake version file and the man pages.

.PHONY: uninstall

DEST := $(DESTDIR)$(PREFIX)

# The tools: whatever TOOLS builds (a new bin/ada-* added there is installed
# and uninstalled with no edit here); adac++ is a link, made below.
INSTALL_BINS := $(filter-out bin/adac++,$(TOOLS))
# Every tool has its man page: a tool added to TOOLS without one stops make
# install ("No rule to make target 'packaging/<tool>.1.in'"); bin/ada's is
# the overview, docs/ada.1.
INSTALL_MANS := $(filter-out share/man/man1/ada.1,$(INSTALL_BINS:bin/%=share/man/man1/%.1))
INSTALL_FILES := $(INSTALL_BINS) bin/adac++ \
	lib/libada.so lib/libada.a lib/pkgconfig/ada.pc \
	lib/cmake/ada/ada-config.cmake lib/cmake/ada/ada-config-version.cmake \
	include/ada.h share/ada/ada.cmake share/ada/ada-unwind.py \
	$(INSTALL_MANS) share/man/man1/adac++.1 share/man/man1/ada.1
# Deepest first, for rmdir.
INSTALL_DIRS := lib/cmake/ada lib/cmake lib/pkgconfig lib include share/ada share/man/man1 \
	share/man share bin

# SOURCE to FILE, with @PREFIX@ and @VERSION@ filled in; fill takes
# packaging/NAME.in.
fill_file = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $(1) > $(DEST)/$(2)
fill = $(call fill_file,packaging/$(1).in,$(2))

install: all $(INSTALL_MANS:share/man/man1/%=packaging/%.in) docs/ada.1
	$(call msg,INSTALL,$(DEST))install -d $(DEST)/bin $(DEST)/lib/pkgconfig $(DEST)/lib/cmake/ada $(DEST)/include \
		$(DEST)/share/ada $(DEST)/share/man/man1
	$(Q)install -m 755 $(INSTALL_BINS) $(DEST)/bin/
	$(Q)ln -sf adacc $(DEST)/bin/adac++
	$(Q)install -m 644 lib/libada.so lib/libada.a $(DEST)/lib/
	$(Q)$(call fill,ada.pc,lib/pkgconfig/ada.pc)
	$(Q)install -m 644 packaging/ada-config.cmake $(DEST)/lib/cmake/ada/
	$(Q)$(call fill,ada-config-version.cmake,lib/cmake/ada/ada-config-version.cmake)
	$(Q)install -m 644 runtime/ada.h $(DEST)/include/
	$(Q)install -m 644 cc-wrapper/ada.cmake mcount/gdb/ada-unwind.py $(DEST)/share/ada/
	$(Q)$(foreach m,$(INSTALL_MANS),$(call fill,$(notdir $(m)),$(m)) &&) true
	$(Q)ln -sf adacc.1 $(DEST)/share/man/man1/adac++.1
	$(Q)$(call fill_file,docs/ada.1,share/man/man1/ada.1)

uninstall:
	$(call msg,RM,$(DEST))rm -f $(INSTALL_FILES:%=$(DEST)/%)
	$(Q)rmdir --ignore-fail-on-non-empty $(INSTALL_DIRS:%=$(DEST)/%) 2>/dev/null || true

# tests/packaging/install.sh builds a CMake project with the installed
# find_package(ada): make check installs cmake when it runs as root, as the
# build does its own packages; elsewhere that check skips with a message.
.PHONY: cmake-deps
check: cmake-deps
cmake-deps:
	$(Q)command -v cmake >/dev/null || \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "ada: installing cmake from Debian (for the install test's find_package(ada))"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake \
	    >/dev/null || echo "ada: could not install cmake: the install test's CMake check will skip"; \
	else echo "ada: no cmake (apt-get install cmake): the install test's CMake check will skip"; fi
