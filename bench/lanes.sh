#!/bin/sh
# lanes.sh - make bench's rows of issue 25: what the lanes beyond calls
# cost, ADA_COUNTERS, ADA_ALLOC and ADA_BLOCKING, each against the same
# traced build and mode without it.
#
#   sh bench/lanes.sh               (run.sh runs it after the rounds)
#
# Three workloads, each plain and built with adacc --ada-mode=fentry -O2,
# traced in ada's default settings (detail windows, the dynamic hooks on:
# the malloc family's and the locks' library calls are recorded as calls
# either way):
#   micro    bench/micro.c, BENCH_LANES_ITERS iterations (4 events each)
#   lua      Lua 5.4 running bench/lua/workload.lua BENCH_LUA_SIZE
#   sqlite   SQLite's speedtest1 --size BENCH_SQL_SIZE --memdb
# Lua and SQLite are tests/realworld/build.sh's builds in bench/out/rw/
# (made by run.sh's rounds; built here when missing). Configurations, in
# turn each round: plain; base (the default); counters (ADA_COUNTERS=1, a
# sample every 1 ms of a thread's CPU); alloc (ADA_ALLOC=1); blocking
# (ADA_BLOCKING=1); all three. BENCH_LANES_RUNS rounds (default 7) idle,
# then as many with nproc busy processes (bench/spin.c). Each run's CPU is
# the whole process tree's, recorder included (bench/runstat); events kept
# and lost are the runtime's ADA_VERBOSE summary.
# Budgets (issue 25, idle, same-round ratios, medians):
#   counters: CPU ≤ 1.02 × base on every workload;
#   alloc on SQLite: ada's CPU above plain ≤ 1.3 × base's (the dynamic
#   hooks record the same calls; alloc adds each block's record);
#   everything off costs nothing: base is the default, no hook changes with
#   these off (bench/instructions.sh's rows count its instructions).
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$ROOT/bench
OUT=$BENCH/out/lanes
RW=$BENCH/out/rw
RUNS=${BENCH_LANES_RUNS:-7}
ITERS=${BENCH_LANES_ITERS:-5000000}
LUA_SIZE=${BENCH_LUA_SIZE:-400}
SQL_SIZE=${BENCH_SQL_SIZE:-4}
NPROC=$(nproc)
WORKLOADS=${BENCH_LANES_WORKLOADS:-micro lua sqlite}
CONFIGS="plain base counters alloc blocking all"

die() { echo "lanes.sh: $*" >&2; exit 1; }

for v in BENCH_LANES_RUNS=$RUNS BENCH_LANES_ITERS=$ITERS BENCH_LUA_SIZE=$LUA_SIZE BENCH_SQL_SIZE=$SQL_SIZE; do
	case ${v#*=} in '' | *[!0-9]* | 0) die "$v: expected a positive integer" ;; esac
done
for w in $WORKLOADS; do
	case $w in micro | lua | sqlite) ;; *) die "BENCH_LANES_WORKLOADS: unknown workload $w (micro lua sqlite)" ;; esac
done
[ -x "$ROOT/bin/adacc" ] || die "bin/adacc missing: run make first"
rm -rf "$OUT"
mkdir -p "$OUT" || die "cannot create $OUT"
cd "$OUT" || die "cannot enter $OUT"
gcc -O2 -Wall -o spin "$BENCH/spin.c" || die "building spin failed"
gcc -O2 -Wall -o runstat "$BENCH/runstat.c" || die "building runstat failed"
gcc -O2 -I"$ROOT/runtime" -o micro_plain "$BENCH/micro.c" || die "building micro failed"
"$ROOT/bin/adacc" --ada-mode=fentry -O2 -I"$ROOT/runtime" -o micro_ada "$BENCH/micro.c" ||
	die "building micro with adacc failed"
rw() { # program variant: bench/out/rw/<variant>/<program>, built if missing
	[ -x "$RW/$2/$1" ] && return 0
	case $2 in plain) cc=gcc ;; *) cc="$ROOT/bin/adacc --ada-mode=fentry" ;; esac
	CC=$cc CFLAGS=-O2 JOBS=2 "$ROOT/tests/realworld/build.sh" "$1" "$RW/$2" >"build-$1-$2.log" 2>&1 ||
		die "building $1 ($2) failed: see $OUT/build-$1-$2.log"
}
for w in $WORKLOADS; do
	case $w in
	lua) rw lua plain && rw lua ada-fentry ;;
	sqlite) rw speedtest1 plain && rw speedtest1 ada-fentry ;;
	esac
done

SPIN_PIDS=
. "$BENCH/lib/loaded.sh" # spin_start, spin_stop
trap spin_stop EXIT INT TERM

# one WORKLOAD CONFIG: cpu ns, wall ns, events kept, events lost (tab-separated)
one() {
	rm -rf trace
	case $1 in
	micro) prog=./micro_ada; [ "$2" = plain ] && prog=./micro_plain; set -- "$2" "$prog" "$ITERS" ;;
	lua) set -- "$2" "$RW/$([ "$2" = plain ] && echo plain || echo ada-fentry)/lua" "$BENCH/lua/workload.lua" "$LUA_SIZE" ;;
	sqlite) set -- "$2" "$RW/$([ "$2" = plain ] && echo plain || echo ada-fentry)/speedtest1" --size "$SQL_SIZE" --memdb ;;
	esac
	c=$1
	shift
	case $c in
	plain) ;;
	base) set -- env ADA_VERBOSE=1 ADA_OUTPUT="$OUT/trace" "$@" ;;
	counters) set -- env ADA_VERBOSE=1 ADA_OUTPUT="$OUT/trace" ADA_COUNTERS=1 "$@" ;;
	alloc) set -- env ADA_VERBOSE=1 ADA_OUTPUT="$OUT/trace" ADA_ALLOC=1 "$@" ;;
	blocking) set -- env ADA_VERBOSE=1 ADA_OUTPUT="$OUT/trace" ADA_BLOCKING=1 "$@" ;;
	all) set -- env ADA_VERBOSE=1 ADA_OUTPUT="$OUT/trace" ADA_COUNTERS=1 ADA_ALLOC=1 ADA_BLOCKING=1 "$@" ;;
	esac
	./runstat stat "$@" >out 2>err || { tail -n 3 err >&2; return 1; }
	kept=$(sed -n 's/.* \([0-9][0-9]*\) events kept.*/\1/p' err)
	lost=$(sed -n 's/.*events not recorded: \([0-9][0-9]*\).*/\1/p' err)
	awk -v k="${kept:-0}" -v l="${lost:-0}" '{ printf "%d\t%d\t%s\t%s\n", ($4 + $6) * 1000, $2, k, l }' stat
}

: >results.tsv
for cond in idle loaded; do
	r=1
	while [ "$r" -le "$RUNS" ]; do
		for w in $WORKLOADS; do
			for c in $CONFIGS; do
				[ "$cond" = loaded ] && spin_start
				line=$(one "$w" "$c") || { spin_stop; die "$w $c failed (round $r, $cond)"; }
				spin_stop
				printf '%s\t%s\t%s\t%s\t%s\n' "$cond" "$r" "$w" "$c" "$line" >>results.tsv
			done
		done
		printf 'lanes: %s round %s/%s\n' "$cond" "$r" "$RUNS" >&2
		r=$((r + 1))
	done
done
rm -rf trace

LC_ALL=C awk -F '\t' -v nproc="$NPROC" -v iters="$ITERS" -v lua_size="$LUA_SIZE" -v sql_size="$SQL_SIZE" \
	-v budgets="$OUT/budgets.txt" -f "$BENCH/report/common.awk" -f "$BENCH/report/lanes.awk" \
	results.tsv >report.md || die "report failed"
[ -f budgets.txt ] || : >budgets.txt
