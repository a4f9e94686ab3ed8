#!/bin/sh
# run.sh - ada on real programs nobody here wrote: the Lua 5.4 interpreter
# and SQLite's speedtest1, built from Debian's source packages (fetch.sh,
# build.sh), uninstrumented and with bin/adacc in each mode, at -O2.
#
#   run.sh            make realworld: Lua on every script in lua/, and
#                     speedtest1, in the cyg, fentry and mcount modes, plus
#                     call counts compared with uftrace's (when installed)
#   run.sh --smoke    make check (through smoke.sh): Lua only, fentry and
#                     cyg, errors.lua and coroutines.lua at small sizes
#                     (about half a minute, the Lua builds included)
#   run.sh --target=aarch64
#                     make realworld too (issue 26): Lua and speedtest1
#                     cross-built with Debian's aarch64-linux-gnu-gcc, plain
#                     and with adacc in cyg and mcount modes (aarch64 has no
#                     fentry), run under qemu-aarch64, their traces read by
#                     this machine's ada-symbolize; the same checks as
#                     natively, at smaller sizes (qemu runs the traced Lua
#                     10-25 times slower than natively). Without the cross
#                     tools or lib/aarch64/libada.so (make aarch64) it says
#                     so in one line and passes, as tests/e2e/aarch64.sh does
#
# For every traced run it checks:
#   - stdout and exit status are the uninstrumented build's (speedtest1 runs
#     with --verify, which prints a hash of every result row; its per-test
#     timings are stripped before comparing)
#   - ada-symbolize succeeds and ada-symbolize --check passes
#   - atfstat (the tests' own ATF reader): every thread's frames nest and
#     close, so calls = returns + exceptions
#   - the manifest's "dropped" counts are all zero, detail_full excepted:
#     detail records are dropped by design when the writer falls behind
#     (the events are kept); the count is printed as a note. The traced
#     runs get ADA_RING_KB=524288 (512 MiB, about 30 million events) so
#     that the writer falling behind on a busy machine (ring_full, tested by
#     tests/e2e/test_drops) cannot hide or fake what these checks are about:
#     what ada records of a real program
#   - facts from the programs themselves. Lua: luaV_execute runs;
#     lua_pcallk is called once per pcall/xpcall the script counted, plus 2
#     (lua.c runs pmain and then the script through lua_pcall);
#     luaD_throw is called once per error or yield the script counted, and
#     every one of its frames is closed by an EXCEPTION (it never returns:
#     it longjmps), and the trace holds exactly one unwinding (a run of
#     EXCEPTION events) per throw, each starting at the longjmp. Lua's
#     _longjmp abandons C frames on every error and every coroutine.yield
#     (Lua 5.4 coroutines share the C stack). speedtest1: no unwinding at
#     all (SQLite never longjmps), sqlite3_step called.
#     speedtest1 (full run): call counts of a handful of functions
#     (sqlite3_step among them) equal uftrace's on the same -pg build, as
#     do those of the Lua scripts that raise no error (uftrace cannot
#     follow Lua's _longjmp: it crashes the program).
#
# Sizes keep the traces to 2-10 million events each (Lua: tens of
# milliseconds uninstrumented; about 30 bytes of index and 150 of detail a
# call). The scripts take larger sizes for benchmarks. speedtest1 runs
# --size 1 (REALWORLD_SQL_SIZE overrides it): a run of 1-2 s uninstrumented
# (--size 50) records 200-400 million events, 7-13 GB of ATF index a mode.
#
# The sources are fetched when missing (root and Debian's archive needed).
# When that is impossible the run fails with the reason, unless
# ADA_REALWORLD_SKIP=1 (then it prints SKIP and exits 0). Work and trace
# directories go in a temporary directory, removed at the end unless
# ADA_KEEP=1. Prints one line per check and "N passed, N failed"; exits 1
# if any failed.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$ROOT/bin
SMOKE=0
TARGET=
case ${1:-} in
--smoke) SMOKE=1 ;;
--target=aarch64) TARGET=aarch64 ;;
'') ;;
*) echo "usage: run.sh [--smoke | --target=aarch64]" >&2; exit 2 ;;
esac
# The compiler of the plain builds, adacc's --ada-cc for the traced ones,
# and what runs a built program.
PLAIN_CC=gcc
ADA_CC_FLAG=
RUN=
if [ "$TARGET" = aarch64 ]; then
	for need in aarch64-linux-gnu-gcc qemu-aarch64; do
		command -v "$need" >/dev/null 2>&1 && continue
		echo "SKIP realworld aarch64: no $need (make check-aarch64 installs it as root)"
		exit 0
	done
	[ -f "$ROOT/lib/aarch64/libada.so" ] ||
		{ echo "SKIP realworld aarch64: no $ROOT/lib/aarch64/libada.so (make aarch64 builds it)"; exit 0; }
	PLAIN_CC=aarch64-linux-gnu-gcc
	ADA_CC_FLAG=--ada-cc=aarch64-linux-gnu-gcc
	RUN=qemu-aarch64
fi

# This script's own settings, then no ADA_* for the traced programs: a
# developer's configuration must not change what is tested, and the runtime
# warns about variables it does not know.
KEEP=${ADA_KEEP:-0}
SKIP=${ADA_REALWORLD_SKIP:-0}
CACHE=${ADA_REALWORLD_CACHE:-}
for v in $(env | sed -n 's/^\(ADA_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset LUA_INIT LUA_INIT_5_4 LUA_PATH LUA_PATH_5_4 LUA_CPATH LUA_CPATH_5_4

if [ $SMOKE = 1 ]; then
	MODES="fentry cyg"
	PROGRAMS=lua
	SCRIPTS="errors:150 coroutines:60"
	SQL_SIZE=
elif [ -n "$TARGET" ]; then
	MODES="cyg mcount"
	PROGRAMS="lua speedtest1"
	SCRIPTS="recursion:5 strings:5 tables:5 errors:100 coroutines:50"
	SQL_SIZE=${REALWORLD_SQL_SIZE:-1}
else
	MODES="cyg fentry mcount"
	PROGRAMS="lua speedtest1"
	SCRIPTS="recursion:20 strings:30 tables:20 errors:400 coroutines:150"
	SQL_SIZE=${REALWORLD_SQL_SIZE:-1}
fi
# Functions whose call counts the program's logic fixes. Not luaS_newlstr
# (luaS_new caches C strings by address: the count depends on where argv and
# the environment are), nor luaH_resize or the GC's (Lua seeds its string
# hash from an address and the time: collisions decide when a table grows),
# nor what the GC shrinks (luaE_extendCI, luaD_growstack).
LUA_FUNCS="luaV_execute luaD_precall luaD_poscall luaH_new luaF_newLclosure luaV_concat"
RING_KB=524288
SQL_FUNCS="sqlite3_step sqlite3_prepare_v2 sqlite3_finalize sqlite3_reset sqlite3VdbeExec sqlite3_column_text sqlite3BtreeInsert"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ada-realworld.XXXXXX") || exit 1
if [ "$KEEP" = 1 ]; then
	trap 'echo "run.sh: kept $TMP"' EXIT
else
	trap 'rm -rf "$TMP"' EXIT
fi
CHECK_LOG_LINES=40
. "$ROOT/tests/lib/check.sh"

die() { echo "run.sh: $*" >&2; exit 1; }

[ -x "$BIN/adacc" ] && [ -x "$BIN/ada-symbolize" ] || die "no $BIN/adacc or ada-symbolize (run make first)"


# --- sources: fetched once into the cache, or a clear reason why not ---------
packages=lua5.4
[ $SMOKE = 1 ] || packages="$packages sqlite3"
if ! err=$(ADA_REALWORLD_CACHE=$CACHE "$HERE/fetch.sh" $packages 2>&1 >/dev/null); then
	reason=$(printf '%s\n' "$err" | tail -1)
	if [ "$SKIP" = 1 ]; then
		echo "SKIP realworld: cannot fetch the sources: $reason"
		exit 0
	fi
	echo "FAIL fetch the sources ($packages): $reason (ADA_REALWORLD_SKIP=1 skips)"
	failed=1
	checks_summary
fi

# --- tools and builds ---------------------------------------------------------
atfstat_builds() {
	gcc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -I"$ROOT/tests" -o "$TMP/atfstat" \
		"$HERE/atfstat.c" "$ROOT/tests/lib/atf_read.c" "$ROOT/tests/lib/proc.c"
}
check "atfstat builds" atfstat_builds

# build_prog PROGRAM NAME CC...: OUTDIR $TMP/NAME
build_prog() {
	prog=$1
	dir=$TMP/$2
	shift 2
	ADA_REALWORLD_CACHE=$CACHE CC="$*" CFLAGS=-O2 "$HERE/build.sh" "$prog" "$dir" &&
		[ -x "$dir/$prog" ]
}

UFTRACE=0
if [ $SMOKE = 0 ] && [ -z "$TARGET" ] && command -v uftrace >/dev/null; then UFTRACE=1; fi
for prog in $PROGRAMS; do
	check "build $prog plain ($PLAIN_CC -O2)" build_prog "$prog" plain "$PLAIN_CC"
	for mode in $MODES; do
		check "build $prog with adacc $ADA_CC_FLAG --ada-mode=$mode -O2" build_prog "$prog" \
			"$mode" "$BIN/adacc" $ADA_CC_FLAG "--ada-mode=$mode"
	done
	# adacc's mcount mode compiles with exactly these flags (--ada-verbose).
	[ $UFTRACE = 1 ] &&
		check "build $prog for uftrace (gcc -pg -fno-omit-frame-pointer -O2)" build_prog \
			"$prog" uftrace gcc -pg -fno-omit-frame-pointer
done

# --- one traced run and its checks ---------------------------------------------

# speedtest1 prints each test's time: the rest of its output is the same
# from run to run.
filter_stdout() {
	case $1 in
	speedtest1) sed -E 's/ +[0-9]+\.[0-9]+s$//' ;;
	*) cat ;;
	esac
}

# run_case CASE PROGRAM DIR ARGS...: runs $TMP/DIR/PROGRAM ARGS in $TMP/run,
# the traced builds with ADA_OUTPUT=$TMP/trace-CASE-DIR. Leaves
# $TMP/CASE.DIR.out (filtered stdout) and .status.
run_case() {
	case_=$1 prog=$2 dir=$3
	shift 3
	mkdir -p "$TMP/run"
	if [ "$dir" = plain ]; then
		(cd "$TMP/run" && $RUN "$TMP/$dir/$prog" "$@") >"$TMP/$case_.$dir.raw" 2>"$TMP/$case_.$dir.err"
	else
		(cd "$TMP/run" && ADA_OUTPUT="$TMP/trace-$case_-$dir" ADA_RING_KB=$RING_KB \
			$RUN "$TMP/$dir/$prog" "$@") \
			>"$TMP/$case_.$dir.raw" 2>"$TMP/$case_.$dir.err"
	fi
	echo $? >"$TMP/$case_.$dir.status"
	filter_stdout "$prog" <"$TMP/$case_.$dir.raw" >"$TMP/$case_.$dir.out"
}

same_output() { # case mode
	cmp -s "$TMP/$1.plain.status" "$TMP/$1.$2.status" ||
		{ echo "exit status $(cat "$TMP/$1.$2.status"), plain $(cat "$TMP/$1.plain.status")"; cat "$TMP/$1.$2.err"; return 1; }
	diff "$TMP/$1.plain.out" "$TMP/$1.$2.out" >"$TMP/diff" ||
		{ echo "stdout differs from the plain build's:"; head -20 "$TMP/diff"; cat "$TMP/$1.$2.err"; return 1; }
}

symbolizes() { # trace
	"$BIN/ada-symbolize" -q "$1" || return 1
	set -- "$1"/session_*/pid_*
	[ $# = 1 ] && [ -f "$1/manifest.json" ] || { echo "expected one pid_* directory: $*"; return 1; }
}

checks() { "$BIN/ada-symbolize" --check "$1"; }

# atfstat's report, kept in $STAT for the checks that follow.
balanced() { # trace
	"$TMP/atfstat" "$1"/session_*/pid_* >"$STAT" || { grep -v '^function ' "$STAT"; return 1; }
	awk '$1 == "thread" { n++; if ($6 != $8 + $10) { print; bad = 1 } }
	     END { if (!n) { print "no thread"; bad = 1 } exit bad }' "$STAT"
}

# The process's "dropped" counts (the top-level object, indented by two;
# the threads' ones sum to it), as "reason count" lines.
drops() { # trace
	cat "$1"/session_*/pid_*/manifest.json |
		awk '/^  "dropped": \{/ { on = 1 } on { printf "%s", $0 } on && /}/ { exit }' |
		sed 's/"dropped": {//; s/}//' | tr ',' '\n' | tr -d '" ' | tr ':' ' '
}

nothing_dropped() { # trace
	drops "$1" | awk '{ n++ } $1 != "detail_full" && $2 != 0 { print "dropped: " $0; bad = 1 }
		END { if (!n) { print "no \"dropped\" in the manifest"; bad = 1 } exit bad }'
}

calls_of() { # function: its CALL count in $STAT, 0 if never called
	awk -v f="$1" '$1 == "function" && $4 == f { n += $2 } END { print n + 0 }' "$STAT"
}

exceptions_of() {
	awk -v f="$1" '$1 == "function" && $4 == f { n += $3 } END { print n + 0 }' "$STAT"
}

# "count pcall N" / "count throw N" from a Lua script's output.
script_count() { # case what
	awk -v w="$2" '$1 == "count" && $2 == w { print $3 }' "$TMP/$1.plain.out"
}

lua_facts() { # case
	ok=0
	n=$(calls_of luaV_execute)
	[ "$n" -gt 0 ] || { echo "luaV_execute never called"; ok=1; }
	want=$(($(script_count "$1" pcall) + 2))
	n=$(calls_of lua_pcallk)
	[ "$n" = "$want" ] || { echo "lua_pcallk called $n times, expected $want (script's pcalls + 2)"; ok=1; }
	want=$(script_count "$1" throw)
	n=$(calls_of luaD_throw)
	[ "$n" = "$want" ] || { echo "luaD_throw called $n times, expected $want (errors + yields the script counted)"; ok=1; }
	n=$(exceptions_of luaD_throw)
	[ "$n" = "$want" ] || { echo "luaD_throw frames closed by EXCEPTION: $n, expected $want (it never returns)"; ok=1; }
	# Each throw is one longjmp: one run of EXCEPTIONs, starting at the
	# longjmp (hooked in libc) or, were it not hooked, at luaD_throw.
	n=$(awk '$1 == "unwind" { n += $2 } END { print n + 0 }' "$STAT")
	[ "$n" = "$want" ] || { echo "$n unwindings (runs of EXCEPTION events), expected $want (one a throw)"; ok=1; }
	awk '$1 == "unwind" && $3 !~ /^(_*longjmp|siglongjmp|__longjmp_chk|luaD_throw)$/ {
		print "an unwinding that does not start at a longjmp: " $0; bad = 1 } END { exit bad }' "$STAT" || ok=1
	return $ok
}

# SQLite never longjmps and speedtest1 exits from main: no frame is left
# without its return but the ones open at exit.
sqlite_facts() {
	! grep '^unwind ' "$STAT" || { echo "frames closed by EXCEPTION in a program that never longjmps"; return 1; }
	n=$(calls_of sqlite3_step)
	[ "$n" -gt 0 ] || { echo "sqlite3_step never called"; return 1; }
}

# Call counts of the functions in $2 in uftrace's report of the -pg build
# ($TMP/CASE.uftrace.calls) and in ada's mcount trace must agree.
same_as_uftrace() { # case functions
	ok=0 total=0
	for f in $2; do
		u=$(awk -v f="$f" '$2 == f { n += $1 } END { print n + 0 }' "$TMP/$1.uftrace.calls")
		a=$(calls_of "$f")
		if [ "$u" != "$a" ]; then
			echo "$f: ada $a calls, uftrace $u"; ok=1
		else
			echo "$f: $a calls"
		fi
		total=$((total + u))
	done
	[ $total -gt 0 ] || { echo "uftrace saw none of them"; ok=1; }
	return $ok
}

uftrace_records() { # case program args...
	case_=$1 prog=$2
	shift 2
	(cd "$TMP/run" && uftrace record --no-libcall -d "$TMP/uftrace-$case_" "$TMP/uftrace/$prog" "$@") \
		>"$TMP/$case_.uftrace.raw" 2>"$TMP/$case_.uftrace.err" ||
		{ cat "$TMP/$case_.uftrace.err"; return 1; }
	filter_stdout "$prog" <"$TMP/$case_.uftrace.raw" | diff "$TMP/$case_.plain.out" - ||
		{ echo "stdout under uftrace differs"; return 1; }
	uftrace report -d "$TMP/uftrace-$case_" -f call >"$TMP/$case_.uftrace.calls" 2>&1
}

# traced CASE PROGRAM MODE FACTS ARGS...: the checks of one traced run;
# FACTS is a function (or :) run on atfstat's report.
traced() {
	case_=$1 prog=$2 mode=$3 facts=$4
	shift 4
	trace=$TMP/trace-$case_-$mode
	STAT=$TMP/$case_.$mode.stat
	t0=$(date +%s)
	run_case "$case_" "$prog" "$mode" "$@"
	secs=$(($(date +%s) - t0))
	label="$case_ $mode"
	check "$label: stdout and exit status as plain (${secs}s)" same_output "$case_" "$mode"
	if ! check "$label: ada-symbolize" symbolizes "$trace"; then
		rm -rf "$trace"
		return
	fi
	check "$label: ada-symbolize --check" checks "$trace"
	check "$label: frames nest, calls = returns + exceptions" balanced "$trace"
	check "$label: nothing dropped" nothing_dropped "$trace"
	[ "$facts" = : ] || check "$label: $facts" "$facts" "$case_"
	[ "$mode" = mcount ] && [ $UFTRACE = 1 ] && [ -f "$TMP/$case_.uftrace.calls" ] &&
		check "$label: call counts equal uftrace's ($(echo "$UFTRACE_FUNCS" | wc -w) functions)" \
			same_as_uftrace "$case_" "$UFTRACE_FUNCS"
	detail=$(drops "$trace" | awk '$1 == "detail_full" { n += $2 } END { print n + 0 }')
	[ "$detail" = 0 ] || echo "note $label: $detail detail records dropped (detail_full)"
	grep '^thread ' "$STAT" 2>/dev/null | sed "s/^/     $label: /"
	[ "$KEEP" = 1 ] || rm -rf "$trace"
}

# One program run: plain, then optionally uftrace, then each mode.
run_all() { # case program facts uftrace-functions args...
	case_=$1 prog=$2 facts=$3
	UFTRACE_FUNCS=$4
	shift 4
	run_case "$case_" "$prog" plain "$@"
	if [ "$(cat "$TMP/$case_.plain.status")" != 0 ]; then
		check "$case_: the plain build runs" false
		sed 's/^/     /' "$TMP/$case_.plain.err"
		return
	fi
	[ $UFTRACE = 1 ] && [ -n "$UFTRACE_FUNCS" ] &&
		check "$case_: uftrace records the -pg build" uftrace_records "$case_" "$prog" "$@"
	for mode in $MODES; do
		traced "$case_" "$prog" "$mode" "$facts" "$@"
	done
}

for s in $SCRIPTS; do
	name=${s%%:*}
	size=${s#*:}
	# uftrace crashes on the scripts whose C code longjmps (errors, yields).
	ufuncs=$LUA_FUNCS
	case $name in errors | coroutines) ufuncs= ;; esac
	run_all "lua-$name" lua lua_facts "$ufuncs" "$HERE/lua/$name.lua" "$size"
done
if [ -n "$SQL_SIZE" ]; then
	run_all speedtest1 speedtest1 sqlite_facts "$SQL_FUNCS" --memdb --verify --size "$SQL_SIZE"
fi

checks_summary
