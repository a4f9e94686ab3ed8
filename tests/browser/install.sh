#!/bin/sh
# install.sh - what `make browser` needs: Chromium from Debian (apt-get, as
# root) and speedscope from npm, installed into build/browser/ (never
# fetched at test time). Safe to run again: what is there is kept.
#
#   tests/browser/install.sh [BUILD_DIR]      (default build/browser)
#
# Exit status 0 when both are there afterwards; 1 with one line naming what
# is missing and the command that installs it otherwise.
set -u
dir=${1:-build/browser}

chromium_bin() {
	for c in chromium chromium-browser; do
		command -v "$c" 2>/dev/null && return 0
	done
	return 1
}

if ! chromium_bin >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "ada: installing chromium from Debian"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq chromium fonts-dejavu-core >/dev/null || {
			echo "ada: apt-get install chromium failed"; exit 1; }
	else
		echo "ada: chromium is missing; install: apt-get install chromium"
		exit 1
	fi
fi

# speedscope's package holds its built site (dist/release: index.html and
# its scripts): the test serves those files, nothing is built here.
if [ ! -f "$dir/node_modules/speedscope/dist/release/index.html" ]; then
	if ! command -v npm >/dev/null; then
		echo "ada: npm is missing; install: apt-get install npm"
		exit 1
	fi
	echo "ada: installing speedscope from npm into $dir"
	mkdir -p "$dir" && npm install --silent --no-audit --no-fund --prefix "$dir" speedscope >/dev/null || {
		echo "ada: npm install --prefix $dir speedscope failed"; exit 1; }
fi
[ -f "$dir/node_modules/speedscope/dist/release/index.html" ] || {
	echo "ada: $dir/node_modules/speedscope has no dist/release/index.html"; exit 1; }
exit 0
