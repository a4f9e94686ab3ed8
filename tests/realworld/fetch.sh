#!/bin/sh
# fetch.sh - Debian's source packages of the real programs the tests trace,
# unpacked once into a cache outside the repository (their code is never
# part of it).
#
#   fetch.sh [PACKAGE...]     default: lua5.4 sqlite3
#
# Prints each package's unpacked source directory, one a line:
# $CACHE/<package>/src. CACHE is $ADA_REALWORLD_CACHE, else
# /var/cache/ada-realworld, else (not writable) $HOME/.cache/ada-realworld.
# A package already unpacked costs nothing; otherwise it needs a deb-src
# entry (deb-src.sh adds one, as root), dpkg-source (dpkg-dev, installed
# when root) and the network. Exits 1 with a one-line reason when it cannot.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)

die() { echo "fetch.sh: $*" >&2; exit 1; }

writable_dir() { mkdir -p "$1" 2>/dev/null && [ -w "$1" ]; }

cache_dir() {
	if [ -n "${ADA_REALWORLD_CACHE:-}" ]; then
		writable_dir "$ADA_REALWORLD_CACHE" || die "ADA_REALWORLD_CACHE=$ADA_REALWORLD_CACHE is not a writable directory"
		echo "$ADA_REALWORLD_CACHE"
	elif writable_dir "$SYSTEM_CACHE"; then
		echo "$SYSTEM_CACHE"
	elif writable_dir "${HOME:-/nonexistent}/.cache/ada-realworld"; then
		echo "$HOME/.cache/ada-realworld"
	else
		die "no writable cache: set ADA_REALWORLD_CACHE"
	fi
}

need_tools() {
	command -v apt-get >/dev/null || die "no apt-get: not a Debian machine, cannot fetch sources"
	command -v dpkg-source >/dev/null && return
	[ "$(id -u)" = 0 ] || die "dpkg-source missing; as root run: apt-get install dpkg-dev"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev >/dev/null ||
		die "apt-get install dpkg-dev failed"
}

# Downloads and unpacks into a scratch directory next to the final one, then
# renames it: a run interrupted halfway, or two runs at once, never leave a
# half-unpacked tree where the next run would take it as complete.
fetch() {
	pkg=$1
	# Sources root unpacked into the system cache serve everyone, even
	# when this user cannot write there.
	if [ -z "${ADA_REALWORLD_CACHE:-}" ] && [ -f "$SYSTEM_CACHE/$pkg/src/.ada-unpacked" ]; then
		echo "$SYSTEM_CACHE/$pkg/src"
		return
	fi
	[ -n "$CACHE" ] || CACHE=$(cache_dir) || exit 1
	dir=$CACHE/$pkg
	[ -f "$dir/src/.ada-unpacked" ] && { echo "$dir/src"; return; }
	need_tools
	"$HERE/deb-src.sh" || exit 1
	mkdir -p "$dir" || die "cannot create $dir"
	tmp=$(mktemp -d "$dir/tmp.XXXXXX") || die "cannot create a directory in $dir"
	(cd "$tmp" && apt-get source -qq --download-only "$pkg" >apt.log 2>&1) ||
		{ sed 's/^/  /' "$tmp/apt.log" >&2; rm -rf "$tmp"; die "apt-get source $pkg failed (network? deb-src?)"; }
	(cd "$tmp" && dpkg-source -x --skip-patches ./*.dsc src >dpkg.log 2>&1 ||
		dpkg-source -x ./*.dsc src >dpkg.log 2>&1) ||
		{ sed 's/^/  /' "$tmp/dpkg.log" >&2; rm -rf "$tmp"; die "dpkg-source -x $pkg failed"; }
	touch "$tmp/src/.ada-unpacked"
	if mv -T "$tmp/src" "$dir/src" 2>/dev/null; then :; else
		[ -f "$dir/src/.ada-unpacked" ] || { rm -rf "$tmp"; die "cannot move the sources to $dir/src"; }
	fi
	rm -rf "$tmp"
	echo "$dir/src"
}

SYSTEM_CACHE=/var/cache/ada-realworld
CACHE=
[ $# -gt 0 ] || set -- lua5.4 sqlite3
for p in "$@"; do fetch "$p"; done
