#!/bin/sh
# install.sh - make install and make uninstall, and what a user builds with
# the result (mk/install.mk, packaging/).
#
# Installs to a temporary PREFIX, then builds two projects with the
# installed ada only: a CMake project that uses find_package(ada) and
# ada::runtime, configured with the installed toolchain file, and a plain
# Makefile that takes `pkg-config --cflags --libs ada` and CC=adacc. Each
# program calls ada_mark() from ada.h; its trace must hold the traced
# function, the mark's window and the versions that recorded and converted it. Also: the exact file list, a DESTDIR
# staging, the version lines, and that uninstall leaves the prefix empty.
# Prints one line per check and "N passed, N failed"; exits 1 if any failed.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$(cat "$ROOT/VERSION")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ada-install.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
. "$ROOT/tests/lib/check.sh"
P=$TMP/prefix

# The outer make, as a user runs it (it checks the build's packages first).
run_make() {
	make -s --no-print-directory -C "$ROOT" "$@" >"$TMP/make.log" 2>&1 ||
		{ cat "$TMP/make.log"; return 1; }
}

# Files and links under $1, relative, sorted.
files_under() {
	(cd "$1" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort)
}

# What make install puts in a prefix (a tool added to the Makefile's TOOLS
# joins bin/ and this list).
# Each tool has its man page (adac++'s is adacc's); ada.1 is the overview,
# and bin/ada's.
expected_files() {
	for t in $(ls "$ROOT/bin"); do echo "bin/$t"; echo "share/man/man1/$t.1"; done
	printf '%s\n' include/ada.h lib/cmake/ada/ada-config-version.cmake \
		lib/cmake/ada/ada-config.cmake lib/libada.a lib/libada.so lib/pkgconfig/ada.pc \
		share/ada/ada-unwind.py share/ada/ada.cmake share/man/man1/ada.1
}

installs_exactly_its_files() {
	run_make install PREFIX="$P" || return 1
	expected_files | LC_ALL=C sort -u >"$TMP/want"
	files_under "$P" >"$TMP/got"
	diff "$TMP/want" "$TMP/got"
}

destdir_stages_under_prefix() {
	run_make install DESTDIR="$TMP/stage" PREFIX=/opt/ada || return 1
	expected_files | LC_ALL=C sort -u >"$TMP/want"
	files_under "$TMP/stage/opt/ada" >"$TMP/got"
	diff "$TMP/want" "$TMP/got" &&
		grep -qx 'prefix=/opt/ada' "$TMP/stage/opt/ada/lib/pkgconfig/ada.pc" &&
		run_make uninstall DESTDIR="$TMP/stage" PREFIX=/opt/ada &&
		[ -z "$(ls -A "$TMP/stage/opt/ada")" ] || { ls -R "$TMP/stage"; return 1; }
}

version_lines() {
	[ "$("$P/bin/adacc" --ada-version)" = "adacc (ada) $VERSION" ] &&
		[ "$("$P/bin/adac++" --ada-version)" = "adac++ (ada) $VERSION" ] &&
		[ "$("$P/bin/ada-symbolize" --version)" = "ada-symbolize (ada) $VERSION" ] &&
		[ "$("$P/bin/ada" --version)" = "ada (ada) $VERSION" ] &&
		[ "$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --modversion ada)" = "$VERSION" ] &&
		grep -q "^\.TH ADACC 1 \"\" \"ada $VERSION\"" "$P/share/man/man1/adacc.1" &&
		grep -q "^\.TH ADA 1 \"\" \"ada $VERSION\"" "$P/share/man/man1/ada.1"
}

# Every long option a tool's help lists (an indented line opening with it;
# adacc's --ada-help) is in its man page, written by hand: a new option goes
# into both (ada-symbolize.1 had neither --all nor --force).
man_pages_name_every_option() {
	for t in $(ls "$P/bin"); do
		[ "$t" = adac++ ] && continue
		help=--help
		[ "$t" = adacc ] && help=--ada-help
		page=$(sed 's/\\-/-/g' "$P/share/man/man1/$t.1") || return 1
		for o in $("$P/bin/$t" $help 2>&1 | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' |
			grep -oE -- '--[a-z-]+' | sort -u); do
			printf '%s\n' "$page" | grep -q -- "$o\($\|[^a-z-]\)" ||
				{ echo "$t.1 does not name $o (from $t $help)"; return 1; }
		done
	done
}

# A program that marks a moment through ada.h and calls work() three times.
write_program() { # dir
	mkdir -p "$1" && cat >"$1/app.c" <<'EOF'
#include <ada.h>
#include <stdio.h>

int work(int x);
int work(int x) { return x * 2; }

int main(void)
{
	int s = 0;

	for (int i = 0; i < 3; i++)
		s += work(i);
	ada_mark("installed");
	printf("sum %d\n", s);
	return 0;
}
EOF
}

# Runs the program with its trace in $2; the trace has work() three times
# under main and the mark's window, read by the installed ada-symbolize.
runs_traced() { # program, trace dir
	out=$(ADA_OUTPUT="$2" "$1") && [ "$out" = "sum 6" ] || { echo "$1 printed '$out'"; return 1; }
	"$P/bin/ada-symbolize" --replay "$2" >"$TMP/replay" || return 1
	grep -Eq '^ *work x3$' "$TMP/replay" || { cat "$TMP/replay"; return 1; }
	m=$(echo "$2"/session_*/pid_*/manifest.json)
	grep -q '"label": "installed"' "$m" || { echo "$m: no window labelled installed"; return 1; }
	# Who wrote the trace and who converted it (the PRODUCER record).
	tr -d ' \n' <"$m" | grep -q "\"producer\":{\"tool\":\"ada-symbolize\",\"version\":\"$VERSION\",\"runtime_version\":\"$VERSION\"}" ||
		{ echo "$m: no producer $VERSION/$VERSION"; grep -A4 producer "$m"; return 1; }
}

cmake_find_package() {
	d=$TMP/cmake
	write_program "$d" && cat >"$d/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(app C)
find_package(ada 0.1 REQUIRED)
if(NOT ada_INSTRUMENTED)
  message(FATAL_ERROR "not configured with ${ada_TOOLCHAIN_FILE}")
endif()
add_executable(app app.c)
target_link_libraries(app PRIVATE ada::runtime)
EOF
	cmake -S "$d" -B "$d/build" -DCMAKE_PREFIX_PATH="$P" \
		-DCMAKE_TOOLCHAIN_FILE="$P/share/ada/ada.cmake" >"$TMP/cmake.log" 2>&1 &&
		cmake --build "$d/build" >>"$TMP/cmake.log" 2>&1 || { cat "$TMP/cmake.log"; return 1; }
	runs_traced "$d/build/app" "$TMP/cmake-trace"
}

make_pkg_config() {
	d=$TMP/make
	write_program "$d" && printf '%s\n' 'CFLAGS += $(shell pkg-config --cflags ada)' \
		'LDLIBS += $(shell pkg-config --libs ada)' 'app: app.c' >"$d/Makefile" &&
		PKG_CONFIG_PATH=$P/lib/pkgconfig make -s -C "$d" CC="$P/bin/adacc" || return 1
	runs_traced "$d/app" "$TMP/make-trace"
}

# pkg-config alone (no adacc) finds ada.h and links the runtime, found at
# run time through the rpath: nothing is instrumented.
plain_cc_links_the_runtime() {
	write_program "$TMP/plain" &&
		cc -o "$TMP/plain/app" "$TMP/plain/app.c" \
			$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs ada) || return 1
	readelf -d "$TMP/plain/app" | grep -q 'NEEDED.*\[libada\.so\]' || return 1
	[ "$(ADA_OUTPUT="$TMP/plain-trace" "$TMP/plain/app")" = "sum 6" ]
}

# The installed front command: ada record makes the trace with its own
# recorder, ada info (ada-symbolize's view, found beside it) says so.
ada_record_and_a_view() {
	out=$(cd "$TMP/make" && "$P/bin/ada" record -o "$TMP/record-trace" ./app) &&
		[ "$out" = "sum 6" ] || { echo "ada record printed '$out'"; return 1; }
	"$P/bin/ada" info "$TMP/record-trace" >"$TMP/info" &&
		grep -q "the recorder of ada record" "$TMP/info" || { cat "$TMP/info"; return 1; }
}

# ADA_DISABLE=yes means what it says: no trace at all.
disable_yes_traces_nothing() {
	[ "$(ADA_DISABLE=yes ADA_OUTPUT="$TMP/off" "$TMP/make/app")" = "sum 6" ] &&
		[ ! -e "$TMP/off" ]
}

uninstall_leaves_the_prefix_empty() {
	run_make uninstall PREFIX="$P" && [ -d "$P" ] && [ -z "$(ls -A "$P")" ] ||
		{ ls -R "$P"; return 1; }
}

check "make install PREFIX=...: exactly its files" installs_exactly_its_files
check "make install DESTDIR=... stages PREFIX; uninstall empties it" destdir_stages_under_prefix
check "adacc --ada-version, ada-symbolize --version, ada.pc, man pages: $VERSION" version_lines
check "every tool's man page names every option of its help" man_pages_name_every_option
if command -v cmake >/dev/null; then
	check "cmake: find_package(ada), ada::runtime, the toolchain file" cmake_find_package
else
	echo "skip cmake: find_package(ada) (no cmake: apt-get install cmake)"
fi
check "make: CC=adacc, pkg-config --cflags --libs ada" make_pkg_config
check "cc \$(pkg-config --cflags --libs ada) links the runtime" plain_cc_links_the_runtime
check "ada record ./app, then ada info: the launcher's recorder" ada_record_and_a_view
check "ADA_DISABLE=yes: no trace" disable_yes_traces_nothing
check "make uninstall leaves the prefix empty" uninstall_leaves_the_prefix_empty

checks_summary
