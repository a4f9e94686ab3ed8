# mk/browser.mk - ada's views in a real browser: make browser.
#
# tests/browser/install.sh installs Chromium (Debian's, with apt-get as root)
# and speedscope (npm, into build/browser/); tests/browser/run.py traces
# examples/demo.c and opens, in headless Chromium, the SVG flame graph as a
# file (zoomed too), a differential flame graph of two runs of
# tests/browser/diffwork.c, and ada's Chrome JSON export and folded stacks
# in speedscope served on 127.0.0.1, checking what lands in the DOM; the
# screenshots stay in build/browser/*.png (build artefacts). About ten
# seconds once installed.
#
# make check runs the short part (no screenshots) where Chromium is already
# installed, fetching speedscope from npm if it is missing; it installs
# nothing else, and says it skipped where Chromium is not there.

BROWSER_DIR := $(B)/browser

.PHONY: browser browser-check
browser: all
	$(Q)tests/browser/install.sh $(BROWSER_DIR)
	$(Q)tests/browser/run.py $(BROWSER_DIR)

browser-check: all
	$(Q)if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then \
	  tests/browser/install.sh $(BROWSER_DIR) || echo "browser: speedscope could not be installed"; \
	fi; tests/browser/run.py --short $(BROWSER_DIR)
check: browser-check
