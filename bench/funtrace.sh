#!/bin/sh
# funtrace.sh - make bench's rows against funtrace and the ring floor (issue
# 22): the price of an event, ada's modes beside the cheapest compile-time
# tracer, in the same rounds.
#
#   FUNTRACE_SRC=<funtrace's source tree> sh bench/funtrace.sh
#                                        (run.sh runs it after the rounds)
#
# funtrace (github.com/yosefk/funtrace) is not packaged: it is built from
# the source FUNTRACE_SRC names, as its g++ wrapper does (-pg -mfentry
# -minstrument-return=call, funtrace.cpp and funtrace_pg.S linked in), and
# runs with a 16 MiB ring a thread (FUNTRACE_LOG_BUF_SIZE=24: ada's ring
# and the ring floor's size; its default, 1 MiB, stays in the caches).
# Without FUNTRACE_SRC the funtrace row is left out, the rest runs.
#
# BENCH_FT_RUNS rounds (default 5), each running in turn: plain micro, the
# ring floor (bench/clockfloor.c), funtrace, the hook floor (bench/hookfloor.S:
# the cheapest guarded cyg hooks, no shadow stack), and ada in cyg and fentry mode,
# ring mode (ADA_RECORD=ring, index lane only; fentry also with its returns
# hijacked, --ada-returns=hijack, against gcc's default __return__ calls)
# and stream (index only, and the default: detail windows), micro
# BENCH_ITERS iterations (4 events each). Per event, medians [min–max] over the rounds:
#   app-thread  micro's loop thread CPU (micro prints it)
#   total       CPU of the whole process tree (bench/runstat.c: writer
#               threads included) less plain micro's of the same round
#   ÷ floor     total over the same round's ring floor, then the median
#   ÷ funtrace  total over the same round's funtrace total, then the median
# Every row records every call and return of micro (60 M events by
# default): funtrace and ring mode into a ring, the stream rows to disk.
# Budgets (issue 22): total ÷ ring floor <= 1.5 fentry default, <= 1.2
# fentry index-only and cyg, <= 1.0 ring modes.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$ROOT/bench
OUT=$BENCH/out/funtrace
ITERS=${BENCH_ITERS:-15000000}
RUNS=${BENCH_FT_RUNS:-5}
EVENTS=$((4 * ITERS))

die() { echo "funtrace.sh: $*" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT/logs" "$OUT/trace" || die "cannot create $OUT"
cd "$OUT" || die "cannot enter $OUT"
gcc -O2 -Wall -o runstat "$BENCH/runstat.c" || die "building runstat failed"
gcc -O2 -Wall -o clockfloor "$BENCH/clockfloor.c" || die "building clockfloor failed"
gcc -O2 -I"$ROOT/runtime" -o micro_plain "$BENCH/micro.c" || die "building micro_plain failed"
"$ROOT/bin/adacc" --ada-mode=cyg -O2 -I"$ROOT/runtime" -o micro_cyg "$BENCH/micro.c" ||
	die "building micro_cyg failed"
"$ROOT/bin/adacc" --ada-mode=fentry -O2 -I"$ROOT/runtime" -o micro_fentry "$BENCH/micro.c" ||
	die "building micro_fentry failed"
"$ROOT/bin/adacc" --ada-mode=fentry --ada-returns=hijack -O2 -I"$ROOT/runtime" -o micro_hijack \
	"$BENCH/micro.c" || die "building micro_hijack failed"
gcc -O2 -finstrument-functions -I"$ROOT/runtime" -c -o micro_hf.o "$BENCH/micro.c" &&
	gcc -O2 -o micro_hookfloor micro_hf.o "$BENCH/hookfloor.c" "$BENCH/hookfloor.S" ||
	die "building the hook floor failed"
FT=
if [ -n "${FUNTRACE_SRC:-}" ]; then
	[ -f "$FUNTRACE_SRC/funtrace.cpp" ] && [ -f "$FUNTRACE_SRC/funtrace_pg.S" ] ||
		die "FUNTRACE_SRC=$FUNTRACE_SRC: expected funtrace's source tree (funtrace.cpp, funtrace_pg.S)"
	gcc -O2 -pg -mfentry -minstrument-return=call -I"$ROOT/runtime" -c -o micro_ft.o "$BENCH/micro.c" &&
		g++ -O2 -pthread -w -o micro_funtrace micro_ft.o "$FUNTRACE_SRC/funtrace.cpp" \
			"$FUNTRACE_SRC/funtrace_pg.S" -Wl,--dynamic-list="$FUNTRACE_SRC/funtrace.dyn" -ldl ||
		die "building funtrace from $FUNTRACE_SRC failed"
	FT=funtrace
fi
CONFIGS="plain $FT hook-floor ada-record-ring-cyg ada-record-ring ada-record-ring-hijack ada ada-fentry ada-fentry-window"

# run CONFIG ROUND: one run; appends "config round app_ns total_us" to
# results.tsv (app_ns: micro's loop thread, total_us: user + sys).
run() {
	c=$1 r=$2 dir=$OUT/trace/$1.$2 log=logs/$1.$2
	mkdir -p "$dir"
	case $c in
	plain) set -- ./micro_plain "$ITERS" ;;
	funtrace) set -- env -C "$dir" FUNTRACE_LOG_BUF_SIZE=24 FUNTRACE_FTRACE_EVENTS_IN_BUF=0 \
		"$OUT/micro_funtrace" "$ITERS" ;;
	hook-floor) set -- ./micro_hookfloor "$ITERS" ;;
	ada-record-ring-cyg) set -- env ADA_OUTPUT="$dir" ADA_RECORD=ring ADA_DETAIL=off ./micro_cyg "$ITERS" ;;
	ada-record-ring) set -- env ADA_OUTPUT="$dir" ADA_RECORD=ring ADA_DETAIL=off ./micro_fentry "$ITERS" ;;
	ada-record-ring-hijack) set -- env ADA_OUTPUT="$dir" ADA_RECORD=ring ADA_DETAIL=off ./micro_hijack "$ITERS" ;;
	ada) set -- env ADA_OUTPUT="$dir" ./micro_cyg "$ITERS" ;;
	ada-fentry) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ./micro_fentry "$ITERS" ;;
	ada-fentry-window) set -- env ADA_OUTPUT="$dir" ./micro_fentry "$ITERS" ;;
	esac
	sync
	./runstat "$log.stat" "$@" >"$log.out" 2>"$log.err" || die "$c (round $r) failed: $log.err"
	app=$(awk '/^app_thread_ns/ { print $2 }' "$log.err")
	[ -n "$app" ] || die "$c (round $r): micro printed no app_thread_ns ($log.err)"
	printf '%s\t%s\t%s\t%s\n' "$c" "$r" "$app" \
		"$(awk '{ for (i = 1; i < NF; i++) if ($i == "user_us" || $i == "sys_us") s += $(i + 1) } END { print s }' "$log.stat")" \
		>>results.tsv
	rm -rf "$dir"
}

: >results.tsv
: >floor.tsv
r=1
while [ "$r" -le "$RUNS" ]; do
	printf 'bench: funtrace and the ring floor, round %s/%s:' "$r" "$RUNS" >&2
	for c in $CONFIGS; do
		run "$c" "$r"
		printf ' %s' "$c" >&2
	done
	./clockfloor "$EVENTS" >"logs/floor.$r" || die "clockfloor failed"
	printf '%s\t%s\n' "$r" "$(awk '{ for (i = 1; i < NF; i++) if ($i == "ring_event_ns") print $(i + 1) }' "logs/floor.$r")" >>floor.tsv
	printf ' ring-floor\n' >&2
	r=$((r + 1))
done

LC_ALL=C awk -F '\t' -v events="$EVENTS" -v iters="$ITERS" -v ft="$FT" -v budgets="$OUT/budgets.txt" \
	-f "$BENCH/report/common.awk" -f "$BENCH/report/funtrace.awk" results.tsv floor.tsv >report.md ||
	die "report failed"
[ -f budgets.txt ] || : >budgets.txt
