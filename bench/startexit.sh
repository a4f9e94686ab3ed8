#!/bin/sh
# startexit.sh - make bench's start-up and exit rows (issue 23): what a
# traced process costs before main's first line and after main returns,
# against the same program built plain, idle and with a busy process on
# every CPU.
#
#   sh bench/startexit.sh          (run.sh runs it after the rounds)
#
# bench/stamps.c (main stamps CLOCK_MONOTONIC on entry and before it
# returns) is built plain, with adacc in fentry mode (the default: detail
# windows, dynamic hooks on, a recorder process) and in cyg mode. Each of
# BENCH_SE_RUNS rounds (default 5) runs bench/startexit.c over the three in
# turn (an order rotated each round; each into an empty output directory),
# BENCH_SE_REPS processes each (default 40), one after another: per program
# the median start-up (fork to main's first stamp), exit (main's last stamp
# to waitpid's return) and whole process. A round's traced figure less the
# same round's plain one is what tracing added (ada-record: the fentry
# build run by `ada record`, the launcher's start and its wait for the
# complete trace included); the report gives the median [min–max] of that
# over the rounds. The loaded rounds run the same
# with nproc bench/spin.c processes busy meanwhile.
# Budgets (issue 23): start-up added <= 2 ms, exit added <= 1 ms, idle, for
# every traced row.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$ROOT/bench
OUT=$BENCH/out/startexit
RUNS=${BENCH_SE_RUNS:-5}
REPS=${BENCH_SE_REPS:-40}
NPROC=$(nproc)

die() { echo "startexit.sh: $*" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT" || die "cannot create $OUT"
cd "$OUT" || die "cannot enter $OUT"
gcc -O2 -Wall -o startexit "$BENCH/startexit.c" || die "building startexit failed"
gcc -O2 -Wall -o spin "$BENCH/spin.c" || die "building spin failed"
gcc -O2 -o plain "$BENCH/stamps.c" || die "building stamps failed"
"$ROOT/bin/adacc" --ada-mode=fentry -O2 -o ada-fentry "$BENCH/stamps.c" || die "building stamps (fentry) failed"
"$ROOT/bin/adacc" --ada-mode=cyg -O2 -o ada-cyg "$BENCH/stamps.c" || die "building stamps (cyg) failed"

SPIN_PIDS=
. "$BENCH/lib/loaded.sh" # spin_start, spin_stop
trap spin_stop EXIT INT TERM

: >results.tsv
for cond in idle loaded; do
	r=1
	while [ "$r" -le "$RUNS" ]; do
		[ "$cond" = loaded ] && spin_start
		# Each program into an empty output directory, in an order
		# rotated each round: the processes of one job share a session
		# directory, and a directory that grows costs each later one more.
		case $((r % 4)) in
		0) order="plain ada-fentry ada-cyg ada-record" ;;
		1) order="ada-fentry ada-cyg ada-record plain" ;;
		2) order="ada-cyg ada-record plain ada-fentry" ;;
		*) order="ada-record plain ada-fentry ada-cyg" ;;
		esac
		: >round.txt
		for p in $order; do
			rm -rf trace
			cmd=./$p
			[ "$p" = ada-record ] && cmd="ada-record:$ROOT/bin/ada,record,./ada-fentry"
			ADA_OUTPUT=$OUT/trace ./startexit "$REPS" "$cmd" >>round.txt ||
				{ spin_stop; die "startexit failed (round $r, $cond, $p)"; }
		done
		spin_stop
		awk -v cond="$cond" -v r="$r" '{ sub(/^\.\//, "", $1); print cond "\t" r "\t" $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 }' \
			round.txt >>results.tsv
		printf 'startexit: %s round %s/%s\n' "$cond" "$r" "$RUNS" >&2
		r=$((r + 1))
	done
done
rm -rf trace

LC_ALL=C awk -F '\t' -v reps="$REPS" -v nproc="$NPROC" -v budgets="$OUT/budgets.txt" \
	-f "$BENCH/report/common.awk" -f "$BENCH/report/startexit.awk" results.tsv >report.md ||
	die "report failed"
[ -f budgets.txt ] || : >budgets.txt
