#!/bin/sh
# suite.sh - a library's own test suite, built plain and with bin/adacc in
# the fentry, cyg and patchable modes at -O2: each traced build must pass,
# fail and skip exactly the tests the plain build does.
#
# The suite is libuv's (Debian's libuv1, 1.44: about 410 tests). Its runner
# starts every test as a process of its own (fork and exec of itself), and
# the tests use threads and a thread pool, signals (several loops each
# watching signals, signals to child processes), fork (a loop used on both
# sides of it), child processes with pipes, descriptors passed between
# processes over Unix sockets (ipc_send_recv_*), timers, and TCP and UDP on
# loopback. libuv refuses to run its suite as root: as root the runs are made
# as nobody (setpriv).
#
# A test the traced build passes and the plain one fails, or the other way,
# is run alone three more times with each build: only a difference that
# stays is a failure, a traced build none of whose three runs gives the
# plain build's verdict (the majority of its three; a test that the plain
# build itself passes only sometimes says so, as a note). Also checked: no "ada:" line in the suite's
# output, and every trace the runs left (one a test process) passes
# ada-symbolize --check, with nothing dropped but detail_full and reentrant
# (a note counts those).
#
# --load runs a busy process per CPU (sh -c 'while :; do :; done') through
# every run, the plain build's too: as a build would load the machine.
#
# The sources are fetched when missing (fetch.sh); when that is impossible
# the run fails with the reason, unless ADA_REALWORLD_SKIP=1 (then it prints
# SKIP and exits 0). Work goes in a temporary directory, removed at the end
# unless ADA_KEEP=1. Prints one line per check and "N passed, N failed".
set -u

LOAD=0
case ${1:-} in
--load) LOAD=1 ;;
'') ;;
*) echo "usage: suite.sh [--load]" >&2; exit 2 ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$ROOT/bin
MODES="fentry cyg patchable"

KEEP=${ADA_KEEP:-0}
SKIP=${ADA_REALWORLD_SKIP:-0}
CACHE=${ADA_REALWORLD_CACHE:-}
for v in $(env | sed -n 's/^\(ADA_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ada-suite.XXXXXX") || exit 1
BUSY= # --load's busy processes
finish() {
	[ -z "$BUSY" ] || kill $BUSY 2>/dev/null
	if [ "$KEEP" = 1 ]; then echo "suite.sh: kept $TMP"; else rm -rf "$TMP"; fi
}
trap finish EXIT
CHECK_LOG_LINES=40
. "$ROOT/tests/lib/check.sh"

die() { echo "suite.sh: $*" >&2; exit 1; }
[ -x "$BIN/adacc" ] && [ -x "$BIN/ada-symbolize" ] || die "no $BIN/adacc or ada-symbolize (run make first)"
command -v cmake >/dev/null || die "cmake is needed to build libuv's suite"

if ! SRC=$(ADA_REALWORLD_CACHE=$CACHE "$HERE/fetch.sh" libuv1 2>"$TMP/fetch.err"); then
	reason=$(tail -1 "$TMP/fetch.err")
	if [ "$SKIP" = 1 ]; then
		echo "SKIP suite: cannot fetch libuv's sources: $reason"
		exit 0
	fi
	echo "FAIL fetch libuv's sources: $reason (ADA_REALWORLD_SKIP=1 skips)"
	failed=1
	checks_summary
fi

# As root, the runs are nobody's: the work directory must be theirs to read.
AS=
if [ "$(id -u)" = 0 ]; then
	AS="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	chmod 755 "$TMP"
fi
own() { [ -z "$AS" ] || chown nobody "$@"; }

build() { # NAME CC
	dir=$TMP/$1
	mkdir -p "$dir" &&
		(cd "$dir" && cmake -S "$SRC" -B . -DLIBUV_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release \
			-DCMAKE_C_FLAGS="-O2 $3" -DCMAKE_C_COMPILER="$2" >cmake.log 2>&1 &&
			make -j2 uv_run_tests_a >make.log 2>&1) ||
		{ tail -20 "$dir/cmake.log" "$dir/make.log" 2>/dev/null; return 1; }
}

# The suite's working directory: its fixtures (test/fixtures) are read
# from there, its scratch files written there.
rundir() { # NAME
	d=$TMP/run-$1
	mkdir -p "$d" && ln -sfn "$SRC/test" "$d/test" && own "$d"
	echo "$d"
}

# run NAME [TEST]: the whole suite (or one test) of build NAME, its TAP
# output in $TMP/NAME.tap; traced builds write into $TMP/trace-NAME.
run() {
	d=$(rundir "$1")
	if [ "$1" = plain ]; then
		(cd "$d" && $AS "$TMP/$1/uv_run_tests_a" ${2:-}) >"$TMP/$1.tap" 2>&1
	else
		mkdir -p "$TMP/trace-$1" && own "$TMP/trace-$1"
		(cd "$d" && $AS env ADA_OUTPUT="$TMP/trace-$1" "$TMP/$1/uv_run_tests_a" ${2:-}) \
			>"$TMP/$1.tap" 2>&1
	fi
	return 0
}

# "name verdict" per test: ok, not-ok or skip.
verdicts() {
	sed -n -E 's/^(not )?ok [0-9]+ - ([^ ]+)( # (SKIP|skip).*)?$/\2 \1ok\4/p' "$1" |
		sed -E 's/ okSKIP$| okskip$/ skip/; s/ not ok$/ not-ok/' | LC_ALL=C sort
}

# One test alone, three times: its verdicts, space-separated.
alone() { # NAME TEST
	v=
	for i in 1 2 3; do
		run "$1" "$2"
		if grep -q "^ok" "$TMP/$1.tap"; then v="$v ok"; else v="$v not-ok"; fi
	done
	echo "$v"
}

same_verdicts() { # MODE
	verdicts "$TMP/plain.first.tap" >"$TMP/plain.v"
	verdicts "$TMP/$1.tap" >"$TMP/$1.v"
	[ -s "$TMP/plain.v" ] || { echo "the plain build's run printed no verdict"; return 1; }
	n=$(wc -l <"$TMP/plain.v")
	[ "$(wc -l <"$TMP/$1.v")" = "$n" ] ||
		{ echo "$(wc -l <"$TMP/$1.v") verdicts, plain $n"; tail -5 "$TMP/$1.tap"; return 1; }
	bad=0
	cp "$TMP/$1.tap" "$TMP/$1.first.tap"
	LC_ALL=C join "$TMP/plain.v" "$TMP/$1.v" | awk '$2 != $3 { print $1, $2, $3 }' >"$TMP/$1.diff"
	while read -r t pv tv; do
		p=$(alone plain "$t")
		a=$(alone "$1" "$t")
		# The plain build's verdict: its runs' majority. The traced build
		# differs for good only if none of its runs gives it.
		want=$(echo "$p" | tr ' ' '\n' | grep . | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
		[ "$(echo "$p" | tr ' ' '\n' | grep -c .)" = "$(echo "$p" | tr ' ' '\n' | grep -cx "$want")" ] ||
			echo "note: $t: plain alone:$p (unstable)"
		if echo "$a" | tr ' ' '\n' | grep -qx "$want"; then
			echo "$t: $tv in the suite (plain $pv); alone: traced$a, plain$p: the difference does not stay"
		else
			echo "$t: $tv in the suite (plain $pv); alone: traced$a, plain$p"
			bad=1
		fi
	done <"$TMP/$1.diff"
	echo "$n tests: $(awk '{ c[$2]++ } END { for (v in c) printf "%s %d  ", v, c[v] }' "$TMP/$1.v")"
	return $bad
}

no_ada_line() { # MODE
	! grep '^ada:' "$TMP/$1.first.tap"
}

traces_check() { # MODE
	t=$TMP/trace-$1
	n=$(find "$t" -name process.meta | wc -l)
	[ "$n" -gt 400 ] || { echo "only $n traced processes (one a test expected)"; return 1; }
	"$BIN/ada-symbolize" -q --all "$t" || return 1
	"$BIN/ada-symbolize" --check --all "$t" || return 1
	# Every manifest's drop counts: all zero, but detail_full (by design:
	# the events are kept) and reentrant (a call in a signal handler that
	# interrupted a hook: docs/internals.md, "Limits and decisions"; the signal tests do that),
	# which are counted in a note.
	find "$t" -name manifest.json | while read -r f; do
		awk '/^  "dropped": \{/ { on = 1 } on { printf "%s", $0 } on && /}/ { exit }' "$f" |
			sed 's/"dropped": {//; s/}//' | tr ',' '\n' | tr -d '" ' |
			awk -F: -v f="$f" '$1 != "" && $2 != 0 { print f, $1, $2 }'
	done >"$TMP/drops"
	awk -v m="$1" '$2 == "detail_full" || $2 == "reentrant" { n[$2] += $3; p[$2]++ }
	     END { for (r in n) printf "note libuv %s: %d events lost as %s in %d processes\n", m, n[r], r, p[r] }' \
		"$TMP/drops" >"$TMP/note"
	awk '$2 != "detail_full" && $2 != "reentrant" { print; bad = 1 } END { exit bad }' \
		"$TMP/drops" | head -5 | grep . && return 1
	echo "$n traced processes"
}

check "build libuv's suite plain (gcc -O2)" build plain gcc ""
for m in $MODES; do
	check "build libuv's suite with adacc --ada-mode=$m -O2" build "$m" "$BIN/adacc" "--ada-mode=$m"
done
[ "$failed" = 0 ] || checks_summary

if [ $LOAD = 1 ]; then
	for i in $(seq "$(nproc)"); do sh -c 'while :; do :; done' & BUSY="$BUSY $!"; done
	echo "     a busy process per CPU ($(nproc)) through every run"
fi
t0=$(date +%s)
run plain
mv "$TMP/plain.tap" "$TMP/plain.first.tap"
echo "     plain: $(($(date +%s) - t0))s"
for m in $MODES; do
	t0=$(date +%s)
	run "$m"
	secs=$(($(date +%s) - t0))
	check "libuv $m: every test's verdict as plain (${secs}s)" same_verdicts "$m"
	check "libuv $m: no ada line in the suite's output" no_ada_line "$m"
	check "libuv $m: every test process's trace symbolizes, checks, drops nothing" traces_check "$m"
	[ ! -s "$TMP/note" ] || cat "$TMP/note"
	rm -f "$TMP/note"
	[ "$KEEP" = 1 ] || rm -rf "$TMP/trace-$m"
done

checks_summary
