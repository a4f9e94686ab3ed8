#!/bin/sh
# views.sh - issue 12's budgets: the views of ada-symbolize on large traces,
# against uftrace's on the same programs. Run by run.sh (make bench), which
# appends its section to BENCHMARKS.md; runs alone too:
#
#   sh bench/views.sh          (after make; writes bench/out/views/report.md)
#
# Traces, recorded once, before the rounds:
#   micro        bench/micro.c, BENCH_VIEW_ITERS iterations (4 events each):
#                flat, depth 2
#   lua          Lua 5.4 running bench/lua/workload.lua BENCH_VIEW_LUA_SIZE
#                nothrow: a real call tree (the VM, tables, strings, the GC)
#   micro-small  micro with BENCH_VIEW_SMALL_ITERS, ada only and idle only:
#                peak RSS at another trace length (it must not grow)
#   micro-detail micro built with -g, BENCH_VIEW_DETAIL_ITERS iterations
#                recorded with ADA_DETAIL=all (registers and 128 stack
#                bytes with each event the detail ring could keep): the atf
#                view, and replay, which shows the calls' parameters by the
#                DWARF's names and types (issue 24)
# ada's are bin/adacc --ada-mode=fentry builds run with ADA_DETAIL=off
# ADA_DYNHOOK=off, uftrace's gcc -pg -mfentry builds recorded with
# --no-libcall: both record exactly the functions gcc instrumented, with no
# arguments.
#
# Each round measures, on each trace, every view under bench/runstat (wall
# time, CPU, peak RSS), output to /dev/null, each ada view next to its
# uftrace counterpart (ada first on odd rounds, uftrace first on even ones):
#   report    ada-symbolize report          uftrace report
#   flame     ada-symbolize flame           uftrace dump --flame-graph
#   chrome    ada-symbolize chrome          uftrace dump --chrome
#   perfetto  ada-symbolize perfetto
#   replay    ada-symbolize replay
#   diff      ada-symbolize diff TRACE TRACE (the trace against itself: its
#             events read twice; issue 24)
#   atf       ada-symbolize -q -o DIR (the ATF conversion; issue 15's
#             budgets: 25 M events/s on the index-only traces, 10 M events/s
#             with details), next to dd writing as many bytes as the ATF
#             the conversion wrote into the same directory: the floor the
#             disk and the page cache set, whatever the converter does
# first on an idle machine, then loaded: nproc busy processes (bench/spin.c)
# started before each run and killed after it, as run.sh's loaded rows.
# A view this build of ada-symbolize does not have yet (a first run on a
# tiny trace fails) is reported as not built; the others still run.
# Once, before the rounds: ada-symbolize report on the lua trace under
# script(1), a terminal, to see its progress line (total and ETA).
#
#   BENCH_VIEW_ROUNDS      rounds                                   default 3
#   BENCH_VIEW_ITERS       micro's iterations        default 15000000 (60 M events)
#   BENCH_VIEW_SMALL_ITERS micro-small's iterations   default 3750000 (15 M events)
#   BENCH_VIEW_DETAIL_ITERS micro-detail's iterations default 1250000 (5 M events)
#   BENCH_VIEW_LUA_SIZE    workload.lua's size (~35000 events each) default 1500
#   BENCH_VIEWS            which views                default all of the above
#   BENCH_VIEW_LOADED      0: the idle runs only                    default 1
#
# Files in bench/out/views/: views.tsv (one row per run), meta.tsv, logs/,
# report.md and budgets.txt (bench/report/views.awk). A benchmark, not a
# test: exits 0 whatever it measures, non-zero only when something could
# not be built or recorded.
set -u

BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
OUT=$BENCH/out/views
ROUNDS=${BENCH_VIEW_ROUNDS:-3}
ITERS=${BENCH_VIEW_ITERS:-15000000}
SMALL_ITERS=${BENCH_VIEW_SMALL_ITERS:-3750000}
DETAIL_ITERS=${BENCH_VIEW_DETAIL_ITERS:-1250000}
LUA_SIZE=${BENCH_VIEW_LUA_SIZE:-1500}
VIEWS=${BENCH_VIEWS:-report flame chrome perfetto replay diff atf}
LOADED=${BENCH_VIEW_LOADED:-1}
NPROC=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
REALWORLD=$ROOT/tests/realworld/build.sh
SYM=$ROOT/bin/ada-symbolize

die() { echo "views: $*" >&2; exit 1; }
note() { echo "views: $*" >&2; }

# build, rw_build; field; spin_start, spin_stop; apt_install,
# uftrace_events.
. "$BENCH/lib/workloads.sh"
. "$BENCH/lib/measure.sh"
. "$BENCH/lib/loaded.sh"
. "$BENCH/lib/peers.sh"

for v in BENCH_VIEW_ROUNDS=$ROUNDS BENCH_VIEW_ITERS=$ITERS BENCH_VIEW_SMALL_ITERS=$SMALL_ITERS \
	BENCH_VIEW_DETAIL_ITERS=$DETAIL_ITERS BENCH_VIEW_LUA_SIZE=$LUA_SIZE; do
	case ${v#*=} in '' | *[!0-9]* | 0) die "$v: expected a positive integer" ;; esac
done
for v in $VIEWS; do
	case $v in report | flame | chrome | perfetto | replay | diff | atf) ;;
	*) die "BENCH_VIEWS: unknown view $v (report flame chrome perfetto replay diff atf)" ;;
	esac
done
case $LOADED in 0 | 1) ;; *) die "BENCH_VIEW_LOADED=$LOADED: expected 0 or 1" ;; esac
[ -x "$ROOT/bin/adacc" ] && [ -x "$SYM" ] || die "bin/adacc or bin/ada-symbolize missing: run make first"

SPIN_PIDS=
trap 'spin_stop' EXIT
trap 'spin_stop; exit 130' INT
trap 'spin_stop; exit 143' TERM

command -v uftrace >/dev/null 2>&1 || apt_install uftrace
HAVE_UFTRACE=0
command -v uftrace >/dev/null 2>&1 && HAVE_UFTRACE=1

# --- build ----------------------------------------------------------------------
rm -rf "$OUT"
mkdir -p "$OUT/logs" "$OUT/trace" || die "cannot create $OUT"
cd "$OUT" || die "cannot enter $OUT"
TB=$(date +%s)
build gcc -O2 -Wall -o runstat "$BENCH/runstat.c"
build gcc -O2 -Wall -o spin "$BENCH/spin.c"
build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -I"$ROOT/runtime" -o micro_ada_fentry "$BENCH/micro.c"
build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -g -I"$ROOT/runtime" -o micro_ada_fentry_g "$BENCH/micro.c"
[ "$HAVE_UFTRACE" = 1 ] && build gcc -O2 -pg -mfentry -I"$ROOT/runtime" -o micro_fentry "$BENCH/micro.c"
[ -x "$REALWORLD" ] || die "tests/realworld/build.sh missing (the lua trace)"
note "building lua: ada-fentry$([ "$HAVE_UFTRACE" = 1 ] && echo ", fentry")"
# Both at once, once the sources are fetched (the first time only).
"$ROOT/tests/realworld/fetch.sh" lua5.4 >logs/fetch.log 2>&1 || { cat logs/fetch.log >&2; die "fetching lua's sources failed"; }
pf=
[ "$HAVE_UFTRACE" = 1 ] && { rw_build lua fentry & pf=$!; }
rw_build lua ada-fentry || { cat logs/build-lua-ada-fentry.log >&2; die "building lua (ada-fentry) failed"; }
[ -z "$pf" ] || wait "$pf" || { cat logs/build-lua-fentry.log >&2; die "building lua (fentry) failed"; }

# --- the traces -------------------------------------------------------------------
# record TRACE TOOL COMMAND...: the trace in trace/TOOL-TRACE, then its events
# (ada: the summary of one ATF conversion, "pid N: 1 thread, E events, ..."
# a process; uftrace: its .dat files) in meta.tsv as events.TOOL.TRACE, and
# as record.TOOL.TRACE the recording's wall time (ns, runstat) and the
# trace's size (bytes, du -sb); for ada also atf.TRACE: the bytes of that
# ATF and its detail records (what dd writes beside each conversion).
: >meta.tsv
record() {
	_d=$OUT/trace/$2-$1
	_t=$1 _w=$2
	shift 2
	case $_w:$_t in
	ada:*-detail) set -- env ADA_OUTPUT="$_d" ADA_DETAIL=all ADA_DETAIL_KB=1048576 ADA_DYNHOOK=off "$@" ;;
	ada:*) set -- env ADA_OUTPUT="$_d" ADA_DETAIL=off ADA_DYNHOOK=off "$@" ;;
	uftrace:*) set -- uftrace record -d "$_d" --no-libcall "$@" ;;
	esac
	./runstat "logs/record-$_w-$_t.stat" "$@" >"logs/record-$_w-$_t.out" 2>&1 ||
		{ cat "logs/record-$_w-$_t.out" >&2; die "recording $_t with $_w failed"; }
	printf 'record.%s.%s\t%s %s\n' "$_w" "$_t" "$(field "logs/record-$_w-$_t.stat" wall_ns)" "$(du -sb "$_d" | cut -f 1)" >>meta.tsv
	case $_w in
	ada)
		"$SYM" -o "$OUT/atf" "$_d" >"logs/count-$_t.out" 2>&1 || { cat "logs/count-$_t.out" >&2; die "ada-symbolize failed on $_d"; }
		_n=$(sed -n 's/^pid [0-9]*: .*, \([0-9]*\) events,.*/\1/p' "logs/count-$_t.out" | awk '{ n += $1 } END { printf "%.0f\n", n }')
		_nd=$(find "$OUT/atf" -name detail.atf -exec od -An -tu8 -j28 -N8 {} \; | awk '{ n += $1 } END { printf "%.0f\n", n }')
		printf 'atf.%s\t%s %s\n' "$_t" "$(du -sb "$OUT/atf" | cut -f 1)" "$_nd" >>meta.tsv
		rm -rf "$OUT/atf" ;;
	uftrace) _n=$(uftrace_events "$_d") ;;
	esac
	# A recording with no events would make every view of it a failure.
	case $_n in '' | 0) die "recording $_t with $_w gave no events (logs/record-$_w-$_t.out)" ;; esac
	printf 'events.%s.%s\t%s\n' "$_w" "$_t" "$_n" >>meta.tsv
	note "$_t: $_w recorded $_n events"
}
lua_bin() { echo "$OUT/rw/$1/lua"; }
record probe ada ./micro_ada_fentry 10
record micro ada ./micro_ada_fentry "$ITERS"
record micro-small ada ./micro_ada_fentry "$SMALL_ITERS"
case " $VIEWS " in *" atf "* | *" replay "*) record micro-detail ada ./micro_ada_fentry_g "$DETAIL_ITERS" ;; esac
record lua ada "$(lua_bin ada-fentry)" "$BENCH/lua/workload.lua" "$LUA_SIZE" nothrow
if [ "$HAVE_UFTRACE" = 1 ]; then
	record micro uftrace ./micro_fentry "$ITERS"
	record lua uftrace "$(lua_bin fentry)" "$BENCH/lua/workload.lua" "$LUA_SIZE" nothrow
fi
BUILD_S=$(($(date +%s) - TB))

# --- which views this ada-symbolize has -------------------------------------------
# view_cmd TOOL VIEW TRACE_DIR: the command of one run in "$@" (false if
# TOOL has no such view).
view_cmd() {
	case $1 in
	ada)
		case $2 in
		atf) set -- "$SYM" -q -o "$OUT/atf" "$3" ;;
		diff) set -- "$SYM" diff -o /dev/null "$3" "$3" ;;
		# With its args, as uftrace's; whatever the viewers load.
		chrome) set -- "$SYM" chrome --args --large -o /dev/null "$3" ;;
		*) set -- "$SYM" "$2" -o /dev/null "$3" ;;
		esac ;;
	uftrace)
		case $2 in
		report) set -- uftrace report --no-pager -d "$3" ;;
		flame) set -- uftrace dump --flame-graph --no-pager -d "$3" ;;
		chrome) set -- uftrace dump --chrome --no-pager -d "$3" ;;
		*) return 1 ;;
		esac ;;
	dd)
		# The floor of the atf view: the same bytes, written as fast as
		# the kernel takes them (bs = the converter's 256 KiB buffers).
		[ "$2" = atf ] || return 1
		_b=$(awk -F '\t' -v k="atf.${3##*/ada-}" '$1 == k { split($2, f, " "); print f[1] }' meta.tsv)
		set -- dd if=/dev/zero of="$OUT/atf-floor" bs=262144 count=$(((_b + 262143) / 262144)) status=none ;;
	esac
	CMD="$*"
}
BUILT=
for v in $VIEWS; do
	view_cmd ada "$v" "$OUT/trace/ada-probe"
	# shellcheck disable=SC2086 # CMD's words: paths without spaces
	if $CMD >"logs/probe-$v.out" 2>&1; then
		BUILT="$BUILT $v"
	else
		printf 'not_built.%s\t%s\n' "$v" "$(grep -v '^ *$' "logs/probe-$v.out" | tail -n 1)" >>meta.tsv
		note "$v: not built ($(tail -n 1 "logs/probe-$v.out"))"
	fi
	rm -rf "$OUT/atf"
done

# --- progress on a terminal ---------------------------------------------------------
# script(1) gives the view a terminal; its progress line is rewritten with
# carriage returns: the last one it drew.
if case " $BUILT " in *" report "*) true ;; *) false ;; esac && command -v script >/dev/null 2>&1; then
	./runstat logs/progress.stat script -qec "$SYM report -o /dev/null $OUT/trace/ada-lua" /dev/null >logs/progress.out 2>&1
	_p=$(tr '\r' '\n' <logs/progress.out | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | grep -v '^ *$' | tail -n 1)
	printf 'progress\t%s\n' "${_p:--}" >>meta.tsv
	printf 'progress_ns\t%s\n' "$(field logs/progress.stat wall_ns)" >>meta.tsv
fi

# --- the rounds -----------------------------------------------------------------------
# measure_view COND TRACE TOOL VIEW ROUND: a line of views.tsv.
measure_view() {
	_log=$OUT/logs/$1.$2.$3.$4.$5
	# dd writes what ada's conversion of the same trace wrote.
	_tw=$3
	[ "$3" = dd ] && _tw=ada
	view_cmd "$3" "$4" "$OUT/trace/$_tw-$2" || return 0
	_st=0
	[ "$1" = loaded ] && spin_start
	# shellcheck disable=SC2086
	./runstat "$_log.stat" $CMD >/dev/null 2>"$_log.err" || _st=$?
	spin_stop
	rm -rf "$OUT/atf" "$OUT/atf-floor"
	_ev=$(awk -F '\t' -v k="events.$_tw.$2" '$1 == k { print $2 }' meta.tsv)
	[ "$4" = diff ] && _ev=$((2 * _ev)) # both sides read
	_msg=-
	[ "$_st" = 0 ] || _msg=$(grep -v '^ *$' "$_log.err" | tail -n 1 | tr '\t' ' ')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$_ev" \
		"$(field "$_log.stat" wall_ns)" "$(($(field "$_log.stat" user_us) + $(field "$_log.stat" sys_us)))" \
		"$(field "$_log.stat" maxrss_kb)" "$_st" "${_msg:--}" >>views.tsv
	printf ' %s/%s/%s %.1fs' "$2" "$3" "$4" "$(awk -v w="$(field "$_log.stat" wall_ns)" 'BEGIN { print w / 1e9 }')" >&2
}
printf 'cond\ttrace\ttool\tview\tround\tevents\twall_ns\tcpu_us\tmaxrss_kb\tstatus\terror\n' >views.tsv
CONDS=idle
[ "$LOADED" = 1 ] && CONDS="idle loaded"
TOOLS=ada
[ "$HAVE_UFTRACE" = 1 ] && TOOLS="ada uftrace"
loadavg() { cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown; }
LOAD0=$(loadavg)
T0=$(date +%s)
note "$ROUNDS rounds; views built:${BUILT:- none}; $CONDS"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	order=$TOOLS
	[ $((r % 2)) = 0 ] && [ "$HAVE_UFTRACE" = 1 ] && order="uftrace ada"
	for cond in $CONDS; do
		printf 'views: round %s/%s, %s:' "$r" "$ROUNDS" "$cond" >&2
		for t in micro lua micro-small micro-detail; do
			[ "$t" = micro-small ] && [ "$cond" = loaded ] && continue
			for v in $BUILT; do
				[ "$t" = micro-detail ] && [ "$v" != atf ] && [ "$v" != replay ] && continue
				for w in $order dd; do
					[ "$t" = micro-small ] && [ "$w" = uftrace ] && continue
					measure_view "$cond" "$t" "$w" "$v" "$r"
				done
			done
		done
		printf '\n' >&2
	done
	r=$((r + 1))
done
{
	printf 'rounds\t%s\n' "$ROUNDS"
	printf 'iters\t%s\n' "$ITERS"
	printf 'small_iters\t%s\n' "$SMALL_ITERS"
	printf 'detail_iters\t%s\n' "$DETAIL_ITERS"
	printf 'lua_size\t%s\n' "$LUA_SIZE"
	printf 'views\t%s\n' "$VIEWS"
	printf 'built\t%s\n' "$BUILT"
	printf 'conds\t%s\n' "$CONDS"
	printf 'spinners\t%s\n' "$NPROC"
	printf 'uftrace\t%s\n' "$(if [ "$HAVE_UFTRACE" = 1 ]; then uftrace --version | head -n 1; else echo 'not installed'; fi)"
	printf 'ada\t%s\n' "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	printf 'elapsed\t%s\n' "$(($(date +%s) - T0))"
	printf 'load\t%s at the start, %s at the end\n' "$LOAD0" "$(loadavg)"
	printf 'build_s\t%s\n' "$BUILD_S"
} >>meta.tsv
: >budgets.txt
LC_ALL=C awk -f "$BENCH/report/common.awk" -f "$BENCH/report/views.awk" meta.tsv views.tsv >report.md || die "report failed"
rm -rf "$OUT/trace"
note "raw figures: bench/out/views/views.tsv; report: bench/out/views/report.md; budgets: bench/out/views/budgets.txt"
