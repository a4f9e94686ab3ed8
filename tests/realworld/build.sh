#!/bin/sh
# build.sh - builds one of the real programs from its Debian source package
# with the compiler the caller chooses, so the same program can run plain,
# traced by ada in any mode, or under another tracer.
#
#   CC="..." CFLAGS="..." build.sh PROGRAM OUTDIR
#
#   PROGRAM  lua         the Lua 5.4 interpreter (src/*.c but luac.c;
#                        -DLUA_USE_LINUX, no readline)
#            speedtest1  SQLite's test/speedtest1.c with the sqlite3.c
#                        amalgamation
#   OUTDIR   gets OUTDIR/PROGRAM (objects in OUTDIR/obj-PROGRAM/)
#   CC       a command line, split into words: "gcc", "bin/adacc
#            --ada-mode=cyg", "gcc -pg -mfentry", "clang-14 -fxray-instrument"
#                                                    default gcc
#   CFLAGS   compile flags                           default -O2
#   LDFLAGS  extra link flags                        default none
#   JOBS     compilers run at once                   default 2
#
# Always rebuilds. The sources come from fetch.sh (cached outside the
# repository); the amalgamation is generated once (it needs tclsh: the tcl
# package is installed when root) and cached next to SQLite's sources.
# Prints only errors; exits 1 when the program could not be built.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}
CFLAGS=${CFLAGS:--O2}
LDFLAGS=${LDFLAGS:-}
JOBS=${JOBS:-2}
export CC CFLAGS

die() { echo "build.sh: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: CC=... CFLAGS=... build.sh lua|speedtest1 OUTDIR"
PROGRAM=$1
mkdir -p "$2" || die "cannot create $2"
OUT=$(cd "$2" && pwd)
OBJ=$OUT/obj-$PROGRAM

# Compiles each source named on stdin into $OBJ/<basename>.o, JOBS at a
# time; $1... are extra flags. Stops at the first failing compile.
compile() {
	rm -rf "$OBJ" && mkdir -p "$OBJ" || die "cannot create $OBJ"
	xargs -P "$JOBS" -n 1 sh -c 'o='"$OBJ"'/$(basename "$0" .c).o
		$CC $CFLAGS '"$*"' -c "$0" -o "$o" || exit 255' ||
		die "compiling $PROGRAM with CC='$CC' CFLAGS='$CFLAGS' failed"
}

link() {
	# shellcheck disable=SC2086 # CC, CFLAGS and LDFLAGS are word lists
	$CC $CFLAGS $LDFLAGS -o "$OUT/$PROGRAM" "$OBJ"/*.o "$@" ||
		die "linking $PROGRAM with CC='$CC' failed"
}

build_lua() {
	src=$("$HERE/fetch.sh" lua5.4) || exit 1
	for f in "$src"/src/*.c; do
		case $f in */luac.c) ;; *) echo "$f" ;; esac
	done | compile -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX
	link -lm -ldl
}

# sqlite3.c and sqlite3.h, made by SQLite's own build (configure, then its
# mksqlite3c.tcl) in a scratch directory and moved into place at the end, so
# a concurrent or interrupted build never leaves half a file in the cache.
amalgamation() {
	src=$1
	dir=$(dirname "$src")/amalgamation
	[ -f "$dir/sqlite3.c" ] && [ -f "$dir/sqlite3.h" ] && { echo "$dir"; return; }
	if ! command -v tclsh >/dev/null; then
		[ "$(id -u)" = 0 ] || die "generating sqlite3.c needs tclsh; as root run: apt-get install tcl"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tcl >/dev/null ||
			die "apt-get install tcl failed"
	fi
	tmp=$(mktemp -d "$dir.XXXXXX") || die "cannot create a directory next to $src"
	(cd "$tmp" && "$src/configure" --disable-tcl --disable-readline >build.log 2>&1 &&
		make -j"$JOBS" sqlite3.c >>build.log 2>&1) ||
		{ tail -20 "$tmp/build.log" >&2; rm -rf "$tmp"; die "generating sqlite3.c failed"; }
	mkdir -p "$dir" && cp "$tmp/sqlite3.h" "$dir/sqlite3.h.tmp" && cp "$tmp/sqlite3.c" "$dir/sqlite3.c.tmp" &&
		mv "$dir/sqlite3.h.tmp" "$dir/sqlite3.h" && mv "$dir/sqlite3.c.tmp" "$dir/sqlite3.c" ||
		{ rm -rf "$tmp"; die "cannot write $dir"; }
	rm -rf "$tmp"
	echo "$dir"
}

build_speedtest1() {
	src=$("$HERE/fetch.sh" sqlite3) || exit 1
	amal=$(amalgamation "$src") || exit 1
	printf '%s\n' "$amal/sqlite3.c" "$src/test/speedtest1.c" | compile -I"$amal"
	link -lpthread -lm -ldl
}

case $PROGRAM in
lua) build_lua ;;
speedtest1) build_speedtest1 ;;
*) die "unknown program '$PROGRAM' (lua or speedtest1)" ;;
esac
