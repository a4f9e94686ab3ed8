#!/bin/sh
# build_systems.sh - adacc as a drop-in compiler for real build systems.
#
# Builds examples/multifile with make (CC=adacc) and with CMake (the
# ada.cmake toolchain file), from the build tree and from an installed
# layout, plus the static runtime and adac++, then runs each program and
# checks its output line, that it loads libada.so and that it calls the hooks.
#
# Uses the runtime in $ROOT/lib, or in $ADA_LIBDIR when that is set.
# Prints one line per check and "N passed, N failed"; exits 1 if any failed.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$ROOT/bin
LIBDIR=${ADA_LIBDIR:-$ROOT/lib}
EXPECT='multifile: sum=39 max=9 fib(10)=55'
# The entry hook the default mode (fentry on x86_64) calls with gcc.
HOOK=__ada_fentry_nohijack

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ada-build-systems.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
. "$ROOT/tests/lib/check.sh"

die() { echo "build_systems.sh: $*" >&2; exit 1; }

[ -x "$BIN/adacc" ] && [ -e "$BIN/adac++" ] || die "no $BIN/adacc or adac++ (run make first)"
[ -f "$LIBDIR/libada.so" ] || die "no runtime $LIBDIR/libada.so (run make first, or set ADA_LIBDIR)"


# A fresh copy of the example, so no build leaves files in the source tree.
copy_example() {
	rm -rf "$TMP/$1" && cp -r "$ROOT/examples/multifile" "$TMP/$1"
}

# The program prints the expected line, with tracing off: this test is about
# the build, and the runtime may write nothing here.
prints_expected() {
	out=$(cd "$TMP" && ADA_DISABLE=1 "$1") || { echo "$1 failed"; return 1; }
	[ "$out" = "$EXPECT" ] || { echo "$1 printed '$out', expected '$EXPECT'"; return 1; }
}

needs_libada() {
	readelf -d "$1" | grep -q 'NEEDED.*\[libada\.so\]' ||
		{ echo "$1 has no DT_NEEDED libada.so:"; readelf -d "$1"; return 1; }
}

# The hook as the executable's dynamic symbol table shows it: UND when it
# comes from libada.so, defined when the static runtime is linked in.
hook_ndx() {
	readelf -W --dyn-syms "$1" |
		awk -v s="$HOOK" '$8 == s || index($8, s "@") == 1 { print $7; exit }'
}

calls_shared_hook() {
	[ "$(hook_ndx "$1")" = UND ] || { echo "$1 does not import $HOOK"; return 1; }
}

exports_static_hook() {
	ndx=$(hook_ndx "$1")
	[ -n "$ndx" ] && [ "$ndx" != UND ] || { echo "$1 does not export $HOOK"; return 1; }
	! readelf -d "$1" | grep -q 'NEEDED.*libada' || { echo "$1 still needs libada.so"; return 1; }
}

runpath_is() {
	readelf -d "$1" | grep -q "R.*PATH.*\[$2\]" ||
		{ echo "$1 has no RUNPATH $2:"; readelf -d "$1" | grep PATH; return 1; }
}

traced_shared() {
	prints_expected "$1" && needs_libada "$1" && calls_shared_hook "$1"
}

build_make() { # dir, CC
	copy_example "$1" && make -s -C "$TMP/$1" CC="$2"
}

build_cmake() { # dir, toolchain file
	copy_example "$1" &&
		cmake -S "$TMP/$1" -B "$TMP/$1/build" -DCMAKE_TOOLCHAIN_FILE="$2" >/dev/null &&
		cmake --build "$TMP/$1/build" >/dev/null
}

make_shared() {
	build_make make "$BIN/adacc" && traced_shared "$TMP/make/multifile" &&
		runpath_is "$TMP/make/multifile" "$LIBDIR"
}

make_static() {
	build_make static "$BIN/adacc --ada-static" && prints_expected "$TMP/static/multifile" &&
		exports_static_hook "$TMP/static/multifile"
}

cmake_toolchain() {
	build_cmake cmake "$ROOT/cc-wrapper/ada.cmake" && traced_shared "$TMP/cmake/build/multifile"
}

make_clang() { # clang has no -mfentry-name: its entry hook is __fentry__
	ADA_CC=clang build_make clang "$BIN/adacc" || return 1
	HOOK=__fentry__
	traced_shared "$TMP/clang/multifile"
	r=$?
	HOOK=__ada_fentry_nohijack
	return $r
}

adacxx_builds_cxx() {
	printf '#include <iostream>\nstatic int f(int x) { return x * 2; }\n%s\n' \
		'int main() { std::cout << "cxx " << f(21) << std::endl; }' >"$TMP/t.cc" &&
		"$BIN/adac++" -O2 "$TMP/t.cc" -o "$TMP/cxx" &&
		[ "$(ADA_DISABLE=1 "$TMP/cxx")" = "cxx 42" ] && needs_libada "$TMP/cxx" &&
		calls_shared_hook "$TMP/cxx"
}

# The layout of make install PREFIX=...: the toolchain file finds
# ../../bin, and adacc finds its runtime in ../lib, with no ADA_LIBDIR.
installed_layout() {
	p=$TMP/prefix
	mkdir -p "$p/bin" "$p/lib" "$p/share/ada" &&
		cp "$BIN/adacc" "$p/bin/" && ln -sf adacc "$p/bin/adac++" &&
		cp "$LIBDIR"/libada.* "$p/lib/" && cp "$ROOT/cc-wrapper/ada.cmake" "$p/share/ada/" &&
		(unset ADA_LIBDIR; build_cmake installed "$p/share/ada/ada.cmake") &&
		traced_shared "$TMP/installed/build/multifile" &&
		runpath_is "$TMP/installed/build/multifile" "$p/lib"
}

# Queries reach the compiler untouched, and its output is the compiler's.
version_passes_through() {
	[ "$("$BIN/adacc" --version)" = "$(gcc --version)" ] &&
		[ "$("$BIN/adacc" -dumpmachine)" = "$(gcc -dumpmachine)" ]
}

# The compiler's own failure is the build's: same status, adacc says nothing.
compile_error_status_is_the_compilers() {
	echo 'int main(void) { return x; }' >"$TMP/bad.c"
	gcc -c "$TMP/bad.c" -o "$TMP/bad.o" 2>"$TMP/gcc.err"
	want=$?
	"$BIN/adacc" -c "$TMP/bad.c" -o "$TMP/bad.o" 2>"$TMP/adacc.err"
	got=$?
	[ "$got" = "$want" ] && [ "$got" != 0 ] || { echo "status $got, gcc gave $want"; return 1; }
	cmp "$TMP/gcc.err" "$TMP/adacc.err"
}

missing_compiler_exits_127() {
	err=$(ADA_CC=gcc-nope "$BIN/adacc" -c x.c 2>&1)
	status=$?
	[ "$status" = 127 ] || { echo "status $status"; return 1; }
	[ "$err" = "adacc: cannot run 'gcc-nope': No such file or directory (set ADA_CC or --ada-cc=)" ] ||
		{ echo "message: $err"; return 1; }
}

# ADA_LIBDIR=dir/ names dir/libada.so, not dir//libada.so.
missing_runtime_is_named_once() {
	err=$(ADA_LIBDIR=$TMP/nolib/ "$BIN/adacc" x.c 2>&1)
	status=$?
	[ "$status" = 2 ] || { echo "status $status"; return 1; }
	[ "$err" = "adacc: runtime not found: $TMP/nolib/libada.so: No such file or directory (build it with make, or set ADA_LIBDIR)" ] ||
		{ echo "message: $err"; return 1; }
}

check "make CC=adacc: traced, loads libada.so" make_shared
check "make CC='adacc --ada-static': runtime inside, hooks exported" make_static
check "cmake with cc-wrapper/ada.cmake" cmake_toolchain
if command -v clang >/dev/null; then
	check "make CC=adacc with ADA_CC=clang" make_clang
else
	echo "skip make CC=adacc with ADA_CC=clang (no clang)"
fi
check "adac++ builds a C++ program" adacxx_builds_cxx
check "installed layout: share/ada/ada.cmake, bin/, lib/" installed_layout
check "adacc --version is gcc's" version_passes_through
check "a failing compile keeps gcc's status and stderr" compile_error_status_is_the_compilers
check "a missing compiler: one line, status 127" missing_compiler_exits_127
check "a missing runtime: one line naming it, status 2" missing_runtime_is_named_once

checks_summary
