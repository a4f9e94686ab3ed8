#!/bin/sh
# run.sh - ada's benchmark (make bench): ada against no tracing, uftrace and
# LLVM XRay, interleaved runs, medians, budgets. Writes BENCHMARKS.md. Five
# workloads:
#
#   micro    bench/micro.c: a loop calling a pair of instrumented functions
#   libcall  bench/libcall.c: a loop calling bl_add, a trivial function of an
#            uninstrumented library (benchlib.c): the dynamic hooks' cost per
#            library call
#   startup  bench/startup.c: a program that does almost nothing, linked to a
#            library with BENCH_SLOTS PLT slots (manyslots.awk): the dynamic
#            hooks' start-up pass, lazy binding and -z now
#   lua      the Lua 5.4 interpreter running bench/lua/workload.lua
#   sqlite   SQLite's speedtest1 (--memdb)
#            Both built from Debian's sources by tests/realworld/build.sh, once
#            per instrumentation (the sources are fetched on first use).
#
# and three checks of issue 10 (a lossless index lane):
#
#   loaded   micro, lua and sqlite traced by ada while nproc busy processes
#            (bench/spin.c, started just before the measured run and killed
#            just after it) occupy every CPU: events lost (0 is the budget,
#            with ADA_ON_FULL=wait, the default) and time spent waiting for
#            the writer; each row has a -drop twin run with ADA_ON_FULL=drop,
#            whose losses are reported, not judged
#   rings    micro with ada's rings in a file of the trace directory
#            (ADA_RINGS=trace, the default), in /dev/shm (shm) or in
#            anonymous memory (anon): CPU per event, same-round ratios to anon
#   recovery bench/killme.c (threads counting their calls of instrumented
#            functions in a MAP_SHARED file) killed with SIGKILL at a random
#            moment, then ada-symbolize (which recovers the ring files),
#            ada-symbolize --check, and each thread's CALLs in the trace
#            (tests/realworld/atfstat.c) against the program's own count
#
#   BENCH_ITERS  loop iterations of micro (4 events each)   default 15000000
#   BENCH_RUNS   rounds; each runs every configuration once default 5
#   BENCH_CONFIGS  which configurations                      default all:
#                micro libcall startup lua sqlite loaded lua-loaded
#                sql-loaded rings recovery. A workload's name stands for all
#                of its configurations; "xray" for the XRay ones of micro, lua
#                and sqlite; "loaded" for micro's loaded rows, "lua-loaded"
#                and "sql-loaded" for the real programs'. micro's run in the
#                order given, the others in this order:
#      micro     plain ada ada-fentry ada-fentry-detail uftrace-fentry
#                uftrace-fentry-args uftrace-mcount uftrace-cyg xray-fdr
#                xray-basic plain-small
#      libcall   lib-plain lib-ada lib-ada-detail lib-uftrace-mcount
#                lib-uftrace-cyg
#      startup   start-plain start-ada-nohook start-ada start-now-plain
#                start-now-ada-nohook start-now-ada
#      lua       lua-plain lua-ada lua-ada-fentry lua-ada-fentry-libcall
#                lua-ada-fentry-detail lua-uftrace-fentry
#                lua-uftrace-fentry-libcall lua-uftrace-fentry-args
#                lua-uftrace-mcount lua-uftrace-cyg lua-xray-fdr
#                lua-xray-basic lua-plain-small
#      sqlite    the same with the prefix sql- (sql-plain, sql-ada...)
#      loaded    ada-loaded ada-loaded-drop ada-fentry-loaded
#                ada-fentry-loaded-drop ada-fentry-detail-loaded
#                ada-fentry-detail-loaded-drop: micro's ada, ada-fentry and
#                ada-fentry-detail under load, ADA_ON_FULL left at its
#                default (wait), and with ADA_ON_FULL=drop (-drop)
#      lua-loaded, sql-loaded  lua-ada-loaded lua-ada-fentry-loaded
#                lua-ada-fentry-loaded-drop lua-ada-fentry-detail-loaded (sql-
#                the same), run as lua-ada, lua-ada-fentry and
#                lua-ada-fentry-detail are; only index-only fentry has a -drop
#                twin here, to keep the run short
#      rings     ring-fentry-anon ring-fentry-trace ring-fentry-shm
#                ring-cyg-anon ring-cyg-trace ring-cyg-shm: micro's
#                ada-fentry (ADA_DETAIL=off) and ada (cyg) with ADA_RINGS set
#      recovery  kill-cyg kill-fentry: killme built by adacc in either mode,
#                runtime defaults
#                A workload's baselines always run, first, when any of its
#                configurations does: plain and ada (micro), lib-plain,
#                start-plain and start-now-plain, lua-plain and
#                lua-ada-fentry (sql-plain, sql-ada-fentry); the *-small
#                baseline with xray-basic; plain with the rings rows (the
#                loaded and recovery rows have none). Examples:
#                  BENCH_CONFIGS="libcall startup" BENCH_RUNS=3 make bench
#                  BENCH_CONFIGS="lua" BENCH_RUNS=2 BENCH_LUA_SIZE=100 sh bench/run.sh
#                  BENCH_CONFIGS="xray" BENCH_RUNS=2 BENCH_ITERS=2000000 sh bench/run.sh
#                  BENCH_CONFIGS="loaded rings recovery" BENCH_RUNS=2 BENCH_ITERS=2000000 \
#                      BENCH_LOADED_ITERS=1000000 sh bench/run.sh
#                A run of fewer than all configurations writes its report to
#                bench/out/report.md only: BENCHMARKS.md is left alone.
#   BENCH_LIB_CALLS   library calls per libcall run (2 events each) default 5000000
#   BENCH_SLOTS       functions libmanyslots.so calls through its PLT  default 5000
#   BENCH_START_REPS  start-up runs per configuration and round (their median
#                     is the round's figure)                         default 10
#   BENCH_LUA_SIZE    workload.lua's size (~36000 ada-fentry events each) default 400
#   BENCH_SQL_SIZE    speedtest1 --size (~3.6 M ada-fentry events each)   default 4
#   BENCH_XRAY_BASIC_ITERS, BENCH_LUA_SMALL, BENCH_SQL_SMALL
#                     the smaller runs of the xray-basic rows, and of their own
#                     untraced baseline (*plain-small): XRay's basic mode makes
#                     two system calls per event (~2 us each here), so it runs
#                     a tenth of the work or less      default 1000000, 40, 1
#   BENCH_LOADED_ITERS  micro's iterations in the loaded rows (they measure
#                     losses and waits, not cost per event) default 5000000
#   BENCH_KILL_THREADS  killme's threads                       default 4
#   The loaded rows of lua and sqlite run BENCH_LUA_SIZE and BENCH_SQL_SIZE;
#   the rings rows BENCH_ITERS.
#
#   ada is --ada-mode=cyg (issue 2's pipeline); ada-fentry is --ada-mode=fentry with
#   ADA_DETAIL=off (index lane only); ada-fentry-detail keeps every detail
#   record (registers + the default 128-byte stack window). uftrace-fentry-args
#   records the six argument registers and the return value of every function
#   (-A/-R), the counterpart of ada-fentry-detail. The lib-* and start-* ada
#   programs are --ada-mode=fentry; lib-ada runs with ADA_DETAIL=off,
#   lib-ada-detail with ADA_DETAIL=all; start-*-nohook with ADA_DYNHOOK=off.
#   lib-uftrace-* record libcall built with gcc -pg / -finstrument-functions
#   with uftrace's defaults, which record the program's PLT calls.
#   On lua and sqlite every ada row but *-ada-fentry-libcall runs with
#   ADA_DYNHOOK=off and every uftrace row but *-uftrace-fentry-libcall with
#   --no-libcall: both then record exactly the functions gcc instrumented, the
#   pairs compared. The -libcall rows add library calls: ada's dynamic hooks
#   (every module's PLT/GOT calls) against uftrace's default (the program's
#   PLT calls). xray-* are clang-14 -O2 -fxray-instrument
#   -fxray-instruction-threshold=1 builds (every function), basic and FDR
#   (flight data recorder) modes, each writing its log into the run's
#   directory; xrayfdr.c starts and flushes the FDR mode, xraycount.c counts
#   the events of either log.
#
#   Loaded rows: nproc copies of bench/spin.c (a busy loop) start before
#   runstat and are killed as soon as it returns, so they are not part of the
#   run's CPU; a trap kills them if the script is interrupted or fails, and
#   each dies with the script (PR_SET_PDEATHSIG) or after an hour anyway.
#   Events lost are the sum over the manifest's threads[].dropped reasons,
#   detail_full excepted (it loses a detail record, not its event); the time
#   waited is the sum over threads[] of the manifest's waits (WAITS_COUNT_KEY
#   and WAITS_NS_KEY below: the one place naming them), as a share of the
#   run's wall time. A row that lost nothing in every round meets the budget.
#   rings rows: not symbolized (it would take longer than the runs): their
#   drops are those ada reports on stderr at exit ("events not recorded: N").
#   CPU per event is the tracer-only CPU of the process tree (less
#   plain's of the same round) over micro's own events; the same-round ratio
#   to the anon row of the same mode, per round, then its median (the budget:
#   at most 1.05, "within noise"), over the rounds in which neither row
#   dropped events. A mode's three rows run one after the other, in an order
#   rotated by one place each round. Ring files left after a clean exit (in
#   the trace directory or /dev/shm/ada-<pid>-*.ring) are counted, and
#   removed.
#   Recovery rows: killme runs under ada (ADA_OUTPUT a fresh directory) with
#   BENCH_KILL_THREADS threads; SIGKILL after a random 100-400 ms (from
#   /dev/urandom); then ada-symbolize, ada-symbolize --check, atfstat. The
#   rule, per thread i: the trace's CALLs of km_call_<i> minus the count
#   killme stored for it is 0 or 1 (1: the kill fell between the CALL's
#   record and the store, see killme.c); and the count is above 0. A round
#   passes when every thread does, the process died of the SIGKILL, both
#   ada-symbolize runs and atfstat exited 0 and no ring file is left.
#
# A benchmark, not a test: it exits 0 whatever it measures, and non-zero only
# when something could not be built or run. POSIX sh + awk; needs gcc, du,
# the ada tools (bin/adacc, bin/ada-symbolize) and, for their rows, uftrace,
# clang-14 (XRay) and tests/realworld/build.sh's sources (lua, sqlite); the
# recovery rows od, a sleep that takes fractions of a second (GNU, busybox)
# and tests/realworld/atfstat.c with tests/lib.
set -u

BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
OUT=$BENCH/out
ITERS=${BENCH_ITERS:-15000000}
RUNS=${BENCH_RUNS:-5}
LIB_CALLS=${BENCH_LIB_CALLS:-5000000}
SLOTS=${BENCH_SLOTS:-5000}
START_REPS=${BENCH_START_REPS:-10}
LUA_SIZE=${BENCH_LUA_SIZE:-400}
SQL_SIZE=${BENCH_SQL_SIZE:-4}
XB_ITERS=${BENCH_XRAY_BASIC_ITERS:-1000000}
LUA_SMALL=${BENCH_LUA_SMALL:-40}
SQL_SMALL=${BENCH_SQL_SMALL:-1}
LOADED_ITERS=${BENCH_LOADED_ITERS:-5000000}
KILL_THREADS=${BENCH_KILL_THREADS:-4}
NPROC=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
# Issue 10's waits in manifest.json, per thread (threads[].<key>): the only
# place that names them.
WAITS_COUNT_KEY=waits.count
WAITS_NS_KEY=waits.ns
CLOCK_READS=100000000
ADA_CONFIG=
REALWORLD=$ROOT/tests/realworld/build.sh
# XRay's options. Basic mode: no duration filter (its default drops calls
# shorter than 5 us), a shadow stack as deep as ada's (its default, 64
# frames, drops deeper calls). FDR mode: no duration filter, and 1024
# buffers of 1 MiB (address space; pages are touched as used): a flight
# recorder overwrites its oldest buffer when all are full, and 1 GiB holds
# every event of these runs (8 bytes each).
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 max_stack_depth=65536"
XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=1048576 buffer_max=1024"
export XRAY_BASIC_OPTIONS XRAY_FDR_OPTIONS

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

for v in BENCH_ITERS=$ITERS BENCH_RUNS=$RUNS BENCH_LIB_CALLS=$LIB_CALLS BENCH_SLOTS=$SLOTS BENCH_START_REPS=$START_REPS \
	BENCH_LUA_SIZE=$LUA_SIZE BENCH_SQL_SIZE=$SQL_SIZE BENCH_XRAY_BASIC_ITERS=$XB_ITERS BENCH_LUA_SMALL=$LUA_SMALL \
	BENCH_SQL_SMALL=$SQL_SMALL BENCH_LOADED_ITERS=$LOADED_ITERS BENCH_KILL_THREADS=$KILL_THREADS; do
	case ${v#*=} in '' | *[!0-9]* | 0) die "$v: expected a positive integer" ;; esac
done
[ -x "$ROOT/bin/adacc" ] && [ -x "$ROOT/bin/ada-symbolize" ] || die "bin/adacc or bin/ada-symbolize missing: run make first"
command -v gcc >/dev/null || die "gcc not found"
[ "$KILL_THREADS" -le 16 ] || die "BENCH_KILL_THREADS=$KILL_THREADS: at most 16"

# The loaded rows' busy processes (bench/spin.c): started before a measured
# run, killed after it, and by these traps whatever ends the script.
SPIN_PIDS=
spin_start() {
	_n=0
	while [ "$_n" -lt "$NPROC" ]; do
		./spin 3600 &
		SPIN_PIDS="$SPIN_PIDS $!"
		_n=$((_n + 1))
	done
}
spin_stop() {
	[ -n "$SPIN_PIDS" ] || return 0
	kill $SPIN_PIDS 2>/dev/null
	wait $SPIN_PIDS 2>/dev/null
	SPIN_PIDS=
}
trap 'spin_stop' EXIT
trap 'spin_stop; exit 130' INT
trap 'spin_stop; exit 143' TERM
# The start-up rows compare lazy binding with -z now: the environment must
# not force either.
unset LD_BIND_NOW LD_BIND_NOT

# --- uftrace and clang-14: install them from Debian if we can, else leave
# their rows out -----------------------------------------------------------------
NOTES=
apt_install() { # PACKAGE...: as root with apt-get, quietly; the caller checks
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 0
	note "installing $* from Debian"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >/dev/null 2>&1
}
command -v uftrace >/dev/null 2>&1 || apt_install uftrace
HAVE_UFTRACE=0
if command -v uftrace >/dev/null 2>&1; then
	HAVE_UFTRACE=1
else
	NOTES="${NOTES}uftrace is not installed and could not be (needs root and apt-get): its rows are left out. "
	note "uftrace not installed: its rows are left out"
fi
command -v clang-14 >/dev/null 2>&1 && command -v llvm-xray-14 >/dev/null 2>&1 || apt_install clang-14 llvm-14
HAVE_XRAY=0
if command -v clang-14 >/dev/null 2>&1 && command -v llvm-xray-14 >/dev/null 2>&1; then
	HAVE_XRAY=1
else
	NOTES="${NOTES}clang-14 and llvm-xray-14 are not installed and could not be (needs root and apt-get): the XRay rows are left out. "
	note "clang-14 not installed: the XRay rows are left out"
fi

# --- configurations -----------------------------------------------------------
MICRO_ALL="plain ada ada-fentry ada-fentry-detail uftrace-fentry uftrace-fentry-args uftrace-mcount uftrace-cyg xray-fdr xray-basic plain-small"
LIB_ALL="lib-plain lib-ada lib-ada-detail lib-uftrace-mcount lib-uftrace-cyg"
START_ALL="start-plain start-ada-nohook start-ada start-now-plain start-now-ada-nohook start-now-ada"
# The real programs' configurations, without their lua- or sql- prefix.
RW_ALL="plain ada ada-fentry ada-fentry-libcall ada-fentry-detail uftrace-fentry uftrace-fentry-libcall uftrace-fentry-args uftrace-mcount uftrace-cyg xray-fdr plain-small xray-basic"
LUA_ALL=$(for c in $RW_ALL; do printf 'lua-%s ' $c; done)
SQL_ALL=$(for c in $RW_ALL; do printf 'sql-%s ' $c; done)
# Issue 10: each ada mode under load, with ADA_ON_FULL left at its default
# (wait) and =drop; the rings; the SIGKILL recovery check.
LOADED_MICRO="ada-loaded ada-loaded-drop ada-fentry-loaded ada-fentry-loaded-drop ada-fentry-detail-loaded ada-fentry-detail-loaded-drop"
# The real programs: the -drop twin of ada-fentry (index only) only, for time.
LOADED_RW="ada-loaded ada-fentry-loaded ada-fentry-loaded-drop ada-fentry-detail-loaded"
LOADED_LUA=$(for c in $LOADED_RW; do printf 'lua-%s ' $c; done)
LOADED_SQL=$(for c in $LOADED_RW; do printf 'sql-%s ' $c; done)
RING_ALL="ring-fentry-anon ring-fentry-trace ring-fentry-shm ring-cyg-anon ring-cyg-trace ring-cyg-shm"
KILL_ALL="kill-cyg kill-fentry"
ALL="$MICRO_ALL $LIB_ALL $START_ALL $LUA_ALL $SQL_ALL $LOADED_MICRO $LOADED_LUA $LOADED_SQL $RING_ALL $KILL_ALL"
WANT=
for w in ${BENCH_CONFIGS:-micro libcall startup lua sqlite loaded lua-loaded sql-loaded rings recovery}; do
	case $w in
	micro) WANT="$WANT $MICRO_ALL" ;;
	libcall) WANT="$WANT $LIB_ALL" ;;
	startup) WANT="$WANT $START_ALL" ;;
	lua) WANT="$WANT $LUA_ALL" ;;
	sqlite) WANT="$WANT $SQL_ALL" ;;
	xray) WANT="$WANT xray-fdr xray-basic lua-xray-fdr lua-xray-basic sql-xray-fdr sql-xray-basic" ;;
	loaded) WANT="$WANT $LOADED_MICRO" ;;
	lua-loaded) WANT="$WANT $LOADED_LUA" ;;
	sql-loaded) WANT="$WANT $LOADED_SQL" ;;
	rings) WANT="$WANT $RING_ALL" ;;
	recovery) WANT="$WANT $KILL_ALL" ;;
	*) case " $ALL " in
		*" $w "*) WANT="$WANT $w" ;;
		*) die "BENCH_CONFIGS: unknown configuration $w (micro libcall startup lua sqlite xray loaded lua-loaded sql-loaded rings recovery, or one of: $ALL)" ;;
		esac ;;
	esac
done
# Every configuration asked for (those of a missing tool too): the report
# then replaces BENCHMARKS.md.
NWANT=0
for c in $ALL; do case " $WANT " in *" $c "*) NWANT=$((NWANT + 1)) ;; esac; done
FULL=0
[ "$NWANT" = "$(echo $ALL | wc -w)" ] && FULL=1
# Rows whose tool is missing are left out.
[ "$HAVE_UFTRACE" = 1 ] || WANT=$(for c in $WANT; do case $c in *uftrace-*) ;; *) printf '%s ' $c ;; esac; done)
[ "$HAVE_XRAY" = 1 ] || WANT=$(for c in $WANT; do case $c in *xray-* | *plain-small) ;; *) printf '%s ' $c ;; esac; done)
# The real programs need tests/realworld/build.sh (and its sources).
if [ ! -x "$REALWORLD" ]; then
	case "$WANT" in *lua-* | *sql-*)
		NOTES="${NOTES}tests/realworld/build.sh is missing: the lua and sqlite rows are left out. "
		note "tests/realworld/build.sh missing: lua and sqlite left out" ;;
	esac
	WANT=$(for c in $WANT; do case $c in lua-* | sql-*) ;; *) printf '%s ' $c ;; esac; done)
fi
# add LIST CONFIG: LIST's words with CONFIG appended unless already there.
add() { case " $1 " in *" $2 "*) echo "$1" ;; *) echo "${1:+$1 }$2" ;; esac; }
MICRO= LIB= START= LUA= SQL= UFTRACE_CONFIGS= XRAY_CONFIGS= LIB_UFTRACE= LOADED= RINGS= KILL=
for c in $WANT; do
	case $c in
	*-loaded | *-loaded-drop) LOADED=$(add "$LOADED" $c) ;;
	ring-*) MICRO=$(add "$MICRO" plain); RINGS=$(add "$RINGS" $c) ;;
	kill-*) KILL=$(add "$KILL" $c) ;;
	plain | ada) MICRO=$(add "$MICRO" plain); MICRO=$(add "$MICRO" ada) ;;
	ada-fentry | ada-fentry-detail) MICRO=$(add "$(add "$(add "$MICRO" plain)" ada)" $c) ;;
	uftrace-*)
		MICRO=$(add "$(add "$MICRO" plain)" ada)
		UFTRACE_CONFIGS=$(add "$UFTRACE_CONFIGS" $c) ;;
	xray-* | plain-small)
		MICRO=$(add "$(add "$MICRO" plain)" ada)
		XRAY_CONFIGS=$(add "$XRAY_CONFIGS" $c)
		[ $c = xray-basic ] && XRAY_CONFIGS=$(add "$XRAY_CONFIGS" plain-small) ;;
	lib-uftrace-*)
		LIB=$(add "$LIB" lib-plain)
		LIB_UFTRACE=$(add "$LIB_UFTRACE" $c) ;;
	lib-*) LIB=$(add "$(add "$LIB" lib-plain)" $c) ;;
	start-now-*) START=$(add "$(add "$START" start-now-plain)" $c) ;;
	start-*) START=$(add "$(add "$START" start-plain)" $c) ;;
	lua-* | sql-*)
		p=${c%%-*}
		eval "l=\$$(echo $p | tr a-z A-Z)"
		l=$(add "$(add "$(add "$l" $p-plain)" $p-ada-fentry)" $c)
		[ $c = $p-xray-basic ] && l=$(add "$l" $p-plain-small)
		eval "$(echo $p | tr a-z A-Z)=\$l" ;;
	esac
done
# libcall, startup, lua and sqlite run in a fixed order: the baseline first,
# ada, uftrace, XRay; micro's XRay rows after its uftrace rows, the small
# baseline just before xray-basic.
keep() { for c in $2; do case " $1 " in *" $c "*) printf '%s ' "$c" ;; esac; done; }
LIB=$(keep "$LIB" "$LIB_ALL") LIB_UFTRACE=$(keep "$LIB_UFTRACE" "$LIB_ALL") START=$(keep "$START" "$START_ALL")
XRAY_CONFIGS=$(keep "$XRAY_CONFIGS" "xray-fdr plain-small xray-basic")
LUA=$(keep "$LUA" "$LUA_ALL") SQL=$(keep "$SQL" "$SQL_ALL")
LOADED=$(keep "$LOADED" "$LOADED_MICRO $LOADED_LUA $LOADED_SQL") RINGS=$(keep "$RINGS" "$RING_ALL") KILL=$(keep "$KILL" "$KILL_ALL")
CONFIGS=$(echo $MICRO $UFTRACE_CONFIGS $XRAY_CONFIGS $RINGS $LIB $LIB_UFTRACE $START $LUA $SQL $LOADED $KILL)
# Workloads run, for the report.
WORKLOADS=
case " $MICRO " in *" ada "*) WORKLOADS="micro" ;; esac # not for plain alone (rings' baseline)
[ -n "$LIB" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }libcall"
[ -n "$START" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }startup"
[ -n "$LUA" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }lua"
[ -n "$SQL" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }sqlite"
[ -n "$LOADED" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }loaded"
[ -n "$RINGS" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }rings"
[ -n "$KILL" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }recovery"
# Whether any configuration of CONFIGS matches the shell pattern $1.
wants() { for c in $CONFIGS; do case $c in $1) return 0 ;; esac; done; return 1; }

# --- build --------------------------------------------------------------------
TB=$(date +%s)
rm -rf "$OUT"
mkdir -p "$OUT/logs" "$OUT/trace" || die "cannot create $OUT"
cd "$OUT" || die "cannot enter $OUT"
build() { "$@" >>"$OUT/logs/build.log" 2>&1 || { cat "$OUT/logs/build.log" >&2; die "build failed: $*"; }; }
build gcc -O2 -Wall -o runstat "$BENCH/runstat.c"
[ -n "$MICRO$LUA$SQL" ] && build gcc -O2 -Wall -o clockfloor "$BENCH/clockfloor.c"
[ -n "$LOADED" ] && build gcc -O2 -Wall -o spin "$BENCH/spin.c"
if [ -n "$KILL" ]; then
	build "$ROOT/bin/adacc" --ada-mode=cyg -O2 -pthread -o killme_cyg "$BENCH/killme.c"
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -pthread -o killme_fentry "$BENCH/killme.c"
	build gcc -std=gnu11 -O2 -Wall -D_GNU_SOURCE -I"$ROOT/tests" -o atfstat \
		"$ROOT/tests/realworld/atfstat.c" "$ROOT/tests/lib/atf_read.c" "$ROOT/tests/lib/proc.c"
fi
if [ -n "$MICRO" ] || wants 'ada-*loaded*'; then
	build gcc -O2 -o micro_plain "$BENCH/micro.c"
	build "$ROOT/bin/adacc" --ada-mode=cyg -O2 -o micro_ada "$BENCH/micro.c"
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -o micro_ada_fentry "$BENCH/micro.c"
	if [ -n "$UFTRACE_CONFIGS" ]; then
		build gcc -O2 -pg -mfentry -o micro_fentry "$BENCH/micro.c"
		build gcc -O2 -pg -o micro_pg "$BENCH/micro.c"
		build gcc -O2 -finstrument-functions -o micro_cyg "$BENCH/micro.c"
	fi
fi
# XRay: xrayfdr.o goes into every XRay program (see xrayfdr.c); xraycc.sh is
# the compiler command that adds it when it links. The counter is checked
# against llvm-xray's own reading of both log formats, on a short run.
if wants '*xray-*'; then
	build gcc -O2 -Wall -o xraycount "$BENCH/xraycount.c"
	build clang-14 -O2 -c -o xrayfdr.o "$BENCH/xrayfdr.c"
	XRAYCC="clang-14 -O2 -fxray-instrument -fxray-instruction-threshold=1"
	build $XRAYCC -o micro_xray "$BENCH/micro.c" xrayfdr.o
	: >xray_check.tsv
	for m in fdr basic; do
		d=$OUT/trace/xray-check-$m
		mkdir -p "$d"
		XRAY_OPTIONS="patch_premain=true xray_mode=xray-$m xray_logfile_base=$d/xray-log. verbosity=0" \
			./micro_xray 10000 >"logs/xray-check-$m.out" 2>"logs/xray-check-$m.err" || die "micro_xray (xray-$m) failed"
		ours=$(./xraycount "$d"/xray-log.* | awk '{ print $2 }')
		theirs=$(llvm-xray-14 convert -instr_map=./micro_xray -output-format=yaml "$d"/xray-log.* 2>>"logs/xray-check-$m.err" | grep -c 'kind: *function-')
		printf 'xray-%s\t%s\t%s\n' "$m" "$ours" "$theirs" >>xray_check.tsv
		rm -rf "$d"
	done
	# Whether XRay reads the TSC or falls back to clock_gettime (it needs
	# rdtscp; a virtual machine may not offer it).
	XRAY_CLOCK=tsc
	grep -q 'Missing rdtscp' logs/xray-check-basic.err && XRAY_CLOCK=clock_gettime
fi
# The programs find their libraries next to them ($ORIGIN), wherever out/ is.
if [ -n "$LIB" ]; then
	build gcc -O2 -fPIC -shared -o libbenchlib.so "$BENCH/benchlib.c"
	build gcc -O2 -o libcall_plain "$BENCH/libcall.c" -L. -lbenchlib '-Wl,-rpath,$ORIGIN'
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -o libcall_ada "$BENCH/libcall.c" -L. -lbenchlib '-Wl,-rpath,$ORIGIN'
	if [ -n "$LIB_UFTRACE" ]; then
		build gcc -O2 -pg -o libcall_pg "$BENCH/libcall.c" -L. -lbenchlib '-Wl,-rpath,$ORIGIN'
		build gcc -O2 -finstrument-functions -o libcall_cyg "$BENCH/libcall.c" -L. -lbenchlib '-Wl,-rpath,$ORIGIN'
	fi
fi
# libmanydefs.so defines BENCH_SLOTS functions, libmanyslots.so calls each
# through its PLT (generated sources, in out/ only). -O0 for the definitions
# only shortens the build: their code is never run. One object, linked twice:
# lazy binding and -z now (the dynamic linker binds every slot before main).
if [ -n "$START" ]; then
	awk -v n="$SLOTS" -v what=defs -f "$BENCH/manyslots.awk" >manydefs.c || die "manyslots.awk failed"
	awk -v n="$SLOTS" -v what=slots -f "$BENCH/manyslots.awk" >manyslots.c || die "manyslots.awk failed"
	build gcc -O0 -fPIC -shared -o libmanydefs.so manydefs.c
	build gcc -O2 -fPIC -c -o manyslots.o manyslots.c
	build gcc -shared -o libmanyslots.so manyslots.o -L. -lmanydefs '-Wl,-rpath,$ORIGIN' -Wl,-z,lazy
	build gcc -shared -o libmanyslots_now.so manyslots.o -L. -lmanydefs '-Wl,-rpath,$ORIGIN' -Wl,-z,now
	build gcc -O2 -o start_plain "$BENCH/startup.c" -L. -lmanyslots '-Wl,-rpath,$ORIGIN' -Wl,-z,lazy
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -o start_ada "$BENCH/startup.c" -L. -lmanyslots '-Wl,-rpath,$ORIGIN' -Wl,-z,lazy
	build gcc -O2 -o start_now_plain "$BENCH/startup.c" -L. -lmanyslots_now '-Wl,-rpath,$ORIGIN' -Wl,-z,now
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -o start_now_ada "$BENCH/startup.c" -L. -lmanyslots_now '-Wl,-rpath,$ORIGIN' -Wl,-z,now
	# What the libraries hold, as readelf sees it (checked, and in the report).
	JUMP_SLOTS=unknown BIND_NOW=unknown
	if command -v readelf >/dev/null 2>&1; then
		JUMP_SLOTS=$(readelf -rW libmanyslots.so | grep -c 'JUMP_SLOT')
		[ "$JUMP_SLOTS" -ge "$SLOTS" ] || die "libmanyslots.so has $JUMP_SLOTS JUMP_SLOT relocations, expected $SLOTS"
		bn() { if readelf -dW "$1" | grep -qE 'BIND_NOW|Flags:.* NOW'; then echo "$1 binds now"; else echo "$1 binds lazily"; fi; }
		BIND_NOW="readelf -d: $(bn libmanyslots.so), $(bn libmanyslots_now.so)"
	fi
fi

# lua and sqlite: one build per instrumentation, by tests/realworld/build.sh,
# into rw/<variant>/, two builds at a time. The variants the configurations
# need: plain (gcc -O2), ada-cyg, ada-fentry (adacc), fentry, pg, cyg (gcc
# with -pg -mfentry, -pg, -finstrument-functions, for uftrace) and xray.
variant() { # configuration without its prefix -> variant
	case $1 in
	plain | plain-small) echo plain ;;
	ada | ada-loaded*) echo ada-cyg ;;
	ada-fentry*) echo ada-fentry ;;
	uftrace-fentry*) echo fentry ;;
	uftrace-mcount) echo pg ;;
	uftrace-cyg) echo cyg ;;
	xray-*) echo xray ;;
	esac
}
rw_cc() { # variant -> the compiler command
	case $1 in
	plain) echo gcc ;;
	ada-cyg) echo "$ROOT/bin/adacc --ada-mode=cyg" ;;
	ada-fentry) echo "$ROOT/bin/adacc --ada-mode=fentry" ;;
	fentry) echo "gcc -pg -mfentry" ;;
	pg) echo "gcc -pg" ;;
	cyg) echo "gcc -finstrument-functions" ;;
	xray) echo "clang-14 -fxray-instrument -fxray-instruction-threshold=1" ;;
	esac
}
rw_build() { # program variant: builds rw/<variant>/<program>, log in logs/
	l=$OUT/logs/build-$1-$2.log
	ld=
	[ "$2" = xray ] && ld=$OUT/xrayfdr.o
	CC=$(rw_cc "$2") CFLAGS=-O2 LDFLAGS=$ld JOBS=1 "$REALWORLD" "$1" "$OUT/rw/$2" >"$l" 2>&1
}
rw_builds() { # prefix program
	# plain always, even when only loaded rows run: SQLite's amalgamation is
	# generated by the first build, and its generators must not be traced.
	vs=plain
	for c in $CONFIGS; do
		case $c in "$1"-*) vs=$(add "$vs" "$(variant "${c#"$1"-}")") ;; esac
	done
	set -- "$2" $vs
	prog=$1
	shift
	# The plain build first: it fetches the sources the first time.
	rw_build "$prog" "$1" || { cat "$OUT/logs/build-$prog-$1.log" >&2; die "building $prog ($1) failed"; }
	shift
	while [ $# -gt 0 ]; do
		rw_build "$prog" "$1" &
		p1=$!
		p2=
		if [ $# -gt 1 ]; then
			rw_build "$prog" "$2" &
			p2=$!
		fi
		wait $p1 || { cat "$OUT/logs/build-$prog-$1.log" >&2; die "building $prog ($1) failed"; }
		[ -z "$p2" ] || wait $p2 || { cat "$OUT/logs/build-$prog-$2.log" >&2; die "building $prog ($2) failed"; }
		shift
		[ $# -gt 0 ] && shift
	done
}
# (the loaded rows' programs are builds of the same variants)
wants 'lua-*' && { note "building lua: $(for c in $CONFIGS; do case $c in lua-*) variant "${c#lua-}" ;; esac; done | sort -u | tr '\n' ' ')"; rw_builds lua lua; }
wants 'sql-*' && { note "building speedtest1: $(for c in $CONFIGS; do case $c in sql-*) variant "${c#sql-}" ;; esac; done | sort -u | tr '\n' ' ')"; rw_builds sql speedtest1; }

# --- one measurement ------------------------------------------------------------
# field FILE NAME: the word after NAME on the first line of FILE holding it.
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' "$1"; }

# Sums over every manifest.json under $1 (one per traced process): events,
# drops (reasons that lose events), latency p50 and p99, drop reasons,
# runtime config; events lost by the threads (threads[].dropped, reasons that
# lose events), their waits and the time they waited (threads[] keys
# WAITS_COUNT_KEY and WAITS_NS_KEY; "-" where no thread has them); then the
# dynamic hooks' figures (manifest dynamic_hooks,
# "-" where absent): slots and functions (fewest of any process), start-up
# pass ms and total ms (median over the processes), passes (most), and
# where the start-up figure came from (see below).
ada_manifest() {
	find "$1" -name manifest.json | while read -r m; do awk -f "$BENCH/jsonflat.awk" "$m"; done |
		awk -F '\t' -v wck="$WAITS_COUNT_KEY" -v wnk="$WAITS_NS_KEY" '
		$1 ~ /^threads\.[0-9]+\.events$/ { ev += $2 }
		# The keys of each thread, without "threads.<i>.".
		$1 ~ /^threads\.[0-9]+\./ {
			k = $1
			sub(/^threads\.[0-9]+\./, "", k)
			if (k ~ /^dropped\./ && k != "dropped.detail_full") tlost += $2
			if (k == wck) { wc += $2; wseen = 1 }
			if (k == wnk) { wns += $2; wseen = 1 }
		}
		$1 ~ /^dropped\./                  { seen = 1 }
		# detail_full loses registers, not events: a reason, not a drop.
		$1 ~ /^dropped\./ && $1 != "dropped.detail_full" { dr += $2 }
		$1 == "latency_to_disk.p50_ns"     { p50 = $2 }
		$1 == "latency_to_disk.p99_ns"     { p99 = $2 }
		$1 ~ /^dropped\./ && $2 > 0       { sub(/^dropped\./, "", $1); why = why (why == "" ? "" : ",") $1 "=" $2 }
		$1 == "config"                     { gsub(/ /, ",", $2); conf = $2 }
		$1 == "dynamic_hooks.slots"        { sl[++n] = $2 }
		$1 == "dynamic_hooks.functions"    { fn[n] = $2 }
		$1 == "dynamic_hooks.passes"       { pa[n] = $2 }
		$1 == "dynamic_hooks.startup_ms"   { st[n] = $2 }
		$1 == "dynamic_hooks.total_ms"     { to[n] = $2 }
		function med(a, k,    i, j, t) {
			for (i = 2; i <= k; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
		END {
			printf "%.0f %s %s %s %s %s", ev, seen ? sprintf("%.0f", dr) : "-", p50 == "" ? "-" : p50,
				p99 == "" ? "-" : p99, why == "" ? "-" : why, conf == "" ? "-" : conf
			printf " %.0f %s %s", tlost, wseen ? sprintf("%.0f", wc) : "-", wseen ? sprintf("%.0f", wns) : "-"
			if (!n) { print " - - - - - -"; exit }
			# A start-up figure of 0 with a single pass is taken from
			# total_ms (the same pass): "total_ms" says it was.
			src = "startup_ms"
			for (i = 1; i <= n; i++) {
				if (i == 1 || sl[i] + 0 < smin) smin = sl[i] + 0
				if (i == 1 || fn[i] + 0 < fmin) fmin = fn[i] + 0
				if (pa[i] + 0 > pmax) pmax = pa[i] + 0
				e[i] = st[i] + 0
				if (e[i] == 0 && pa[i] == 1 && to[i] + 0 > 0) { e[i] = to[i] + 0; src = "total_ms" }
				t[i] = to[i] + 0
			}
			printf " %d %d %.3f %.3f %d %s\n", smin, fmin, med(e, n), med(t, n), pmax, src
		}'
}

# uftrace writes one 16-byte record per entry or exit (no arguments or return
# values are recorded here) into <tid>.dat: events = their size / 16.
uftrace_events() {
	for f in "$1"/[0-9]*.dat; do [ -f "$f" ] && wc -c <"$f"; done | awk '{ s += $1 } END { printf "%.0f\n", s / 16 }'
}

# The same from uftrace report's call counts, 2 events per call (one row per
# function; linux:* rows are scheduler events, not calls). Run once, on the
# first uftrace configuration of round 1, to check the above: all three write
# the same record format.
uftrace_report_events() {
	uftrace report -d "$1" --no-pager 2>/dev/null |
		awk '$NF !~ /^linux:/ && $(NF - 1) ~ /^[0-9]+$/ && $0 !~ /schedule/ { c += $(NF - 1) } END { printf "%.0f\n", 2 * c }'
}

printf 'config\trun\twall_ns\tcpu_ns\tapp_ns\tevents_workload\tevents_recorded\tbytes\tdropped\tp50_ns\tp99_ns\tsym_wall_ns\tdrop_reasons\tdyn_slots\tdyn_functions\tdyn_startup_ms\tdyn_total_ms\tdyn_passes\tdyn_startup_src\treps\twall_min_ns\twall_max_ns\tlost_threads\twaits\twait_ns\tignored_env\trings_left\n' >results.tsv
: >clock.tsv
: >uftrace_check.tsv
: >failed.tsv
printf 'config\trun\tkill_ms\texit_status\tsymbolize_status\tcheck_status\tatfstat_status\trings_left\tsym_wall_ns\tthreads\tprogram_calls\ttrace_calls\tignored_env\tlost_threads\tdrop_reasons\n' >kill.tsv

# The ADA_* variables that ada said, in stderr file $1, it ignored (issue
# 10's, until they are implemented): comma-separated, "-" if none.
ignored_vars() {
	_v=$(grep -o 'unknown variable ADA_[A-Z_]*' "$1" | awk '{ print $3 }' | sort -u | tr '\n' ',' | sed 's/,$//')
	echo "${_v:--}"
}

# The recovery check, one round of kill-cyg or kill-fentry: killme under
# ada, SIGKILL after a random 100-400 ms, ada-symbolize (timed: it recovers
# the ring files), ada-symbolize --check, atfstat; a line of kill.tsv.
measure_kill() { # config run
	c=$1 r=$2 dir=$OUT/trace/$1 log=$OUT/logs/$1.$2
	rm -rf "$dir"
	mkdir -p "$dir"
	ms=$((100 + $(od -An -N2 -tu2 /dev/urandom | tr -dc 0-9) % 301))
	ADA_OUTPUT="$dir/trace" "./killme_${c#kill-}" "$dir/counts" "$KILL_THREADS" 30 >"$log.out" 2>"$log.err" &
	kpid=$!
	sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
	kill -KILL "$kpid" 2>/dev/null
	wait "$kpid" 2>/dev/null
	kst=$?
	# killme's counts: the first u64 of each 64-byte line.
	prog=$(od -An -tu8 -v "$dir/counts" | tr -s ' \n' '\n\n' | awk 'NF { if (n++ % 8 == 0) printf "%s%s", (n > 1 ? "," : ""), $1 }')
	./runstat "$log.sym.stat" "$ROOT/bin/ada-symbolize" "$dir/trace" >"$log.sym.out" 2>&1
	sst=$?
	"$ROOT/bin/ada-symbolize" --check "$dir/trace" >"$log.check.out" 2>&1
	cst=$?
	left=$(find "$dir/trace" -name '*.ring' | wc -l)
	ast=2
	: >"$log.atf"
	for p in "$dir"/trace/session_*/pid_*; do
		[ -d "$p" ] || continue
		./atfstat "$p" >"$log.atf" 2>&1
		ast=$?
	done
	# The trace's CALLs of km_call_<i>, thread i's function.
	trace=$(awk -v n="$KILL_THREADS" '$1 == "function" && $4 ~ /^km_call_[0-9]+$/ { c[substr($4, 9)] = $2 }
		END { for (i = 0; i < n; i++) printf "%s%s", i ? "," : "", (i in c) ? c[i] : 0 }' "$log.atf")
	ign=$(ignored_vars "$log.err")
	# The events the manifest says the threads lost (reasons that lose
	# events), with the reasons.
	set -- $(ada_manifest "$dir/trace")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$r" "$ms" "$kst" "$sst" "$cst" "$ast" \
		"$left" "$(field "$log.sym.stat" wall_ns)" "$KILL_THREADS" "${prog:--}" "${trace:--}" "${ign:--}" "${7:--}" "${5:--}" >>kill.tsv
	rm -rf "$dir"
	sync
	printf ' %s %sms' "$c" "$ms" >&2
}

# Ring files a clean exit left under trace directory $1 or in /dev/shm for
# its processes (there should be none); the /dev/shm ones are removed, not
# left to use memory.
rings_left() {
	_l=$(find "$1" -name '*.ring' | wc -l)
	for _p in "$1"/session_*/pid_*; do
		[ -d "$_p" ] || continue
		for _f in /dev/shm/ada-"${_p##*/pid_}"-*.ring; do
			[ -e "$_f" ] && { _l=$((_l + 1)); rm -f "$_f"; }
		done
	done
	echo $((_l))
}

measure() { # config run
	c=$1 r=$2 dir=$OUT/trace/$1 log=$OUT/logs/$1.$2 reps=1
	rm -rf "$dir"
	xray="patch_premain=true xray_logfile_base=$dir/xray-log. verbosity=0"
	# The loaded and rings rows run another row's command (cc), with one
	# more setting (extra) and, loaded, the busy processes around it.
	cc=$c extra= load=0 iters=$ITERS
	case $c in
	*-loaded) cc=${c%-loaded} load=1 ;;
	*-loaded-drop) cc=${c%-loaded-drop} load=1 extra=ADA_ON_FULL=drop ;;
	ring-fentry-*) cc=ada-fentry extra=ADA_RINGS=${c#ring-fentry-} ;;
	ring-cyg-*) cc=ada extra=ADA_RINGS=${c#ring-cyg-} ;;
	kill-*) measure_kill "$c" "$r"; return ;;
	esac
	[ "$load" = 1 ] && iters=$LOADED_ITERS
	case $cc in
	plain) set -- ./micro_plain "$ITERS" ;;
	plain-small) set -- ./micro_plain "$XB_ITERS" ;;
	ada) set -- env ADA_OUTPUT="$dir" ./micro_ada "$iters" ;;
	ada-fentry) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ./micro_ada_fentry "$iters" ;;
	ada-fentry-detail) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=all ./micro_ada_fentry "$iters" ;;
	uftrace-fentry) set -- uftrace record -d "$dir" --no-libcall ./micro_fentry "$ITERS" ;;
	uftrace-fentry-args) set -- uftrace record -d "$dir" --no-libcall \
		-A '.@arg1,arg2,arg3,arg4,arg5,arg6' -R '.@retval' ./micro_fentry "$ITERS" ;;
	uftrace-mcount) set -- uftrace record -d "$dir" --no-libcall ./micro_pg "$ITERS" ;;
	uftrace-cyg) set -- uftrace record -d "$dir" --no-libcall ./micro_cyg "$ITERS" ;;
	xray-fdr) set -- env XRAY_OPTIONS="xray_mode=xray-fdr $xray" ./micro_xray "$ITERS" ;;
	xray-basic) set -- env XRAY_OPTIONS="xray_mode=xray-basic $xray" ./micro_xray "$XB_ITERS" ;;
	lib-plain) set -- ./libcall_plain "$LIB_CALLS" ;;
	lib-ada) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ./libcall_ada "$LIB_CALLS" ;;
	lib-ada-detail) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=all ./libcall_ada "$LIB_CALLS" ;;
	lib-uftrace-mcount) set -- uftrace record -d "$dir" ./libcall_pg "$LIB_CALLS" ;;
	lib-uftrace-cyg) set -- uftrace record -d "$dir" ./libcall_cyg "$LIB_CALLS" ;;
	start-plain) reps=$START_REPS; set -- ./start_plain ;;
	start-ada-nohook) reps=$START_REPS; set -- env ADA_OUTPUT="$dir" ADA_DYNHOOK=off ./start_ada ;;
	start-ada) reps=$START_REPS; set -- env ADA_OUTPUT="$dir" ./start_ada ;;
	start-now-plain) reps=$START_REPS; set -- ./start_now_plain ;;
	start-now-ada-nohook) reps=$START_REPS; set -- env ADA_OUTPUT="$dir" ADA_DYNHOOK=off ./start_now_ada ;;
	start-now-ada) reps=$START_REPS; set -- env ADA_OUTPUT="$dir" ./start_now_ada ;;
	lua-* | sql-*)
		v=${cc#*-}
		bin=$OUT/rw/$(variant "$v")/lua
		size=$LUA_SIZE
		[ "$v" = plain-small ] || [ "$v" = xray-basic ] && size=$LUA_SMALL
		set -- "$bin" "$BENCH/lua/workload.lua" "$size"
		case $cc in sql-*)
			size=$SQL_SIZE
			[ "$v" = plain-small ] || [ "$v" = xray-basic ] && size=$SQL_SMALL
			set -- "$OUT/rw/$(variant "$v")/speedtest1" --size "$size" --memdb ;;
		esac
		case $v in
		ada) set -- env ADA_OUTPUT="$dir" ADA_DYNHOOK=off "$@" ;;
		ada-fentry) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ADA_DYNHOOK=off "$@" ;;
		ada-fentry-libcall) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ADA_DYNHOOK=on "$@" ;;
		ada-fentry-detail) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=all ADA_DYNHOOK=off "$@" ;;
		uftrace-fentry-libcall) set -- uftrace record -d "$dir" "$@" ;;
		uftrace-fentry-args) set -- uftrace record -d "$dir" --no-libcall \
			-A '.@arg1,arg2,arg3,arg4,arg5,arg6' -R '.@retval' "$@" ;;
		uftrace-*) set -- uftrace record -d "$dir" --no-libcall "$@" ;;
		xray-*) set -- env XRAY_OPTIONS="xray_mode=$v $xray" "$@" ;;
		esac ;;
	esac
	[ -n "$extra" ] && set -- env "$extra" "$@"
	case $c in *xray-*) mkdir -p "$dir" ;; esac
	# A start-up run is too short to time alone: runstat -n runs it reps times
	# and gives the median run.
	# Another tracer failing on a real program is a result (failed.tsv,
	# reported), not the end of the benchmark.
	st=0
	[ "$load" = 1 ] && spin_start
	./runstat -n "$reps" "$log.stat" "$@" >"$log.out" 2>"$log.err" || st=$?
	spin_stop
	if [ "$st" != 0 ]; then
		case $c in
		lua-uftrace-* | lua-xray-* | sql-uftrace-* | sql-xray-*)
			printf '%s\t%s\t%s\n' "$c" "$r" "$(grep -v '^ *$' "$log.err" | tail -n 1)" >>failed.tsv
			rm -rf "$dir"
			printf ' %s FAILED' "$c" >&2
			return ;;
		esac
		cat "$log.err" >&2
		die "$c (run $r) failed: $*"
	fi
	wall=$(field "$log.stat" wall_ns)
	cpu=$(($(field "$log.stat" user_us) + $(field "$log.stat" sys_us)))000
	wmin=$(field "$log.stat" wall_min_ns) wmax=$(field "$log.stat" wall_max_ns)
	app=- wev=-
	case $c in
	start-* | lua-* | sql-*) ;; # the real programs report nothing of their own
	*)
		app=$(field "$log.err" app_thread_ns)
		wev=$(field "$log.err" events)
		[ -n "$app" ] && [ -n "$wev" ] || die "$c (run $r): no app_thread_ns line on stderr (see $log.err)"
		;;
	esac
	bytes=- rec=- drop=- p50=- p99=- sym=- why=- dyn="- - - - - -" tlost=- wc=- wns=- left=-
	ign=$(ignored_vars "$log.err")
	case $c in
	*xray-*)
		bytes=$(du -sb "$dir" | cut -f1)
		rec=$(./xraycount "$dir"/xray-log.* | awk '{ print $2 }')
		[ -n "$rec" ] || die "$c (run $r): no XRay log in $dir (see $log.err)"
		;;
	*plain*) ;;
	ring-*)
		# Not symbolized (time): the drops are those of ada's report at
		# exit on stderr, "ada: events not recorded: N (...)", none if absent.
		drop=$(sed -n 's/.*events not recorded: \([0-9][0-9]*\).*/\1/p' "$log.err" | head -n 1)
		if [ -z "$drop" ]; then
			drop=0
			grep -q 'events not recorded' "$log.err" && drop=-
		fi
		left=$(rings_left "$dir")
		bytes=$(du -sb "$dir" | cut -f1)
		;;
	ada* | lib-ada* | start-ada | start-now-ada | lua-ada* | sql-ada*)
		left=$(rings_left "$dir")
		bytes=$(du -sb "$dir" | cut -f1) # raw only: measured before symbolizing
		./runstat "$log.sym.stat" "$ROOT/bin/ada-symbolize" -q "$dir" >"$log.sym.out" 2>&1 ||
			{ cat "$log.sym.out" >&2; die "ada-symbolize failed on $c, run $r"; }
		sym=$(field "$log.sym.stat" wall_ns)
		set -- $(ada_manifest "$dir") # fifteen words, split on purpose
		rec=$1 drop=$2 p50=$3 p99=$4 why=$5 tlost=$7 wc=$8 wns=$9
		[ "$r" = 1 ] && [ -z "$ADA_CONFIG" ] && case $c in
			ada | lib-ada | *-ada-fentry | ada-fentry-loaded | *-ada-fentry-loaded) ADA_CONFIG="$6 (of $c)" ;;
		esac
		shift 9
		dyn="$*"
		case $c in start-*) bytes=- sym=- ;; esac # $reps processes: not comparable
		;;
	*uftrace-*)
		bytes=$(du -sb "$dir" | cut -f1)
		rec=$(uftrace_events "$dir")
		# uftrace's own count of what it lost: its "LOST n records" warnings.
		drop=$(grep -o 'LOST [0-9]* records' "$log.err" | awk '{ n += $2 } END { printf "%.0f\n", n }')
		# Calls deeper than its shadow stack (--max-stack, 1024 by default)
		# are not recorded, and not counted.
		grep -q 'call depth beyond' "$log.err" && why="depth>$(grep -o 'beyond [0-9]*' "$log.err" | head -n 1 | cut -d ' ' -f 2)"
		# With arguments a record is longer than 16 bytes: count the
		# workload's events instead (micro's loop, as micro reports them;
		# a real program's, as uftrace-fentry recorded them in this round:
		# the same functions of the same binary, run the same way).
		case $c in
		uftrace-fentry-args) rec=$wev ;;
		*-uftrace-fentry-args) rec=$(awk -F '\t' -v c="${c%-args}" -v r="$r" '$1 == c && $2 == r { print $7 }' results.tsv)
			[ -n "$rec" ] || rec=- ;;
		esac
		# Once per workload, on round 1: the file sizes against uftrace
		# report's call counts.
		case $c in lib-*) w=lib ;; lua-*) w=lua ;; sql-*) w=sql ;; *) w=micro ;; esac
		if [ "$r" = 1 ] && case $c in *-args) false ;; *) true ;; esac &&
			! awk -F '\t' -v w="$w" '$4 == w { f = 1 } END { exit !f }' uftrace_check.tsv; then
			printf '%s\t%s\t%s\t%s\n' "$c" "$rec" "$(uftrace_report_events "$dir")" "$w" >>uftrace_check.tsv
		fi
		;;
	esac
	rm -rf "$dir"
	sync
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$c" "$r" "$wall" "$cpu" "$app" "$wev" \
		"$rec" "$bytes" "$drop" "$p50" "$p99" "$sym" "$why" >>results.tsv
	printf '\t%s' $dyn "$reps" "${wmin:--}" "${wmax:--}" "$tlost" "$wc" "$wns" "$ign" "$left" >>results.tsv
	printf '\n' >>results.tsv
	case $c in
	start-*) printf ' %s %.1fms' "$c" "$(awk -v w="$wall" 'BEGIN { print w / 1e6 }')" >&2 ;;
	*) printf ' %s %.2fs' "$c" "$(awk -v w="$wall" 'BEGIN { print w / 1e9 }')" >&2 ;;
	esac
}

BUILD_S=$(($(date +%s) - TB))
loadavg() { cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown; }
LOAD0=$(loadavg)
T0=$(date +%s)
FLOOR=
[ -n "$MICRO$LUA$SQL" ] && FLOOR=1
note "$RUNS rounds of: $CONFIGS${FLOOR:+ clock-floor}"
[ -n "$MICRO" ] && note "micro: $ITERS iterations ($((4 * ITERS)) events) a run"
[ -n "$LIB" ] && note "libcall: $LIB_CALLS library calls ($((2 * LIB_CALLS)) events) a run"
[ -n "$START" ] && note "startup: $SLOTS PLT slots, $START_REPS processes a run"
[ -n "$LUA" ] && note "lua: workload.lua $LUA_SIZE a run"
[ -n "$SQL" ] && note "sqlite: speedtest1 --size $SQL_SIZE --memdb a run"
[ -n "$LOADED" ] && note "loaded: $NPROC busy processes around each run; micro $LOADED_ITERS iterations"
[ -n "$KILL" ] && note "recovery: killme with $KILL_THREADS threads, SIGKILL after 100-400 ms"
# rotate N WORD...: the words, rotated left N times.
rotate() {
	[ $# -gt 1 ] || return 0
	_k=$(($1 % ($# - 1)))
	shift
	while [ "$_k" -gt 0 ]; do
		_w=$1
		shift
		set -- "$@" "$_w"
		_k=$((_k - 1))
	done
	echo "$@"
}
# The configurations of round $1: CONFIGS, but each mode's rings rows (anon,
# trace, shm) rotated by one more place each round, so that none always runs
# right after the same row.
round_configs() {
	_f=$(rotate $(($1 - 1)) $(for c in $CONFIGS; do case $c in ring-fentry-*) echo "$c" ;; esac; done))
	_g=$(rotate $(($1 - 1)) $(for c in $CONFIGS; do case $c in ring-cyg-*) echo "$c" ;; esac; done))
	_df= _dg=
	for c in $CONFIGS; do
		case $c in
		ring-fentry-*) [ -n "$_df" ] || { printf '%s ' $_f; _df=1; } ;;
		ring-cyg-*) [ -n "$_dg" ] || { printf '%s ' $_g; _dg=1; } ;;
		*) printf '%s ' "$c" ;;
		esac
	done
}
r=1
while [ "$r" -le "$RUNS" ]; do
	printf 'bench: round %s/%s:' "$r" "$RUNS" >&2
	for c in $(round_configs "$r"); do measure "$c" "$r"; done
	if [ -n "$FLOOR" ]; then
		./clockfloor "$CLOCK_READS" >"logs/clock.$r" || die "clockfloor failed"
		printf '%s\t%s\t%s\n' "$r" "$(field "logs/clock.$r" clock_read_ns)" "$(field "logs/clock.$r" min_ns)" >>clock.tsv
		printf ' clock-floor %sns' "$(field "logs/clock.$r" clock_read_ns)" >&2
	fi
	printf '\n' >&2
	r=$((r + 1))
done
ELAPSED=$(($(date +%s) - T0))
LOAD1=$(loadavg)

# --- report -------------------------------------------------------------------
cpu_model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
[ -n "$cpu_model" ] || cpu_model=$(uname -m)
grep -qw hypervisor /proc/cpuinfo 2>/dev/null && cpu_model="$cpu_model (virtual machine)"
rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ] && rev="$rev + uncommitted changes"
{
	printf 'date\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf 'nproc\t%s\n' "$(nproc)"
	printf 'cpu\t%s\n' "$cpu_model"
	printf 'kernel\t%s\n' "$(uname -sr)"
	printf 'gcc\t%s\n' "$(gcc --version | head -n 1)"
	printf 'uftrace\t%s\n' "$(if [ "$HAVE_UFTRACE" = 1 ]; then uftrace --version | head -n 1; else echo 'not installed'; fi)"
	printf 'ada\t%s\n' "$rev"
	printf 'iters\t%s\n' "$ITERS"
	printf 'lib_calls\t%s\n' "$LIB_CALLS"
	printf 'slots\t%s\n' "$SLOTS"
	printf 'start_reps\t%s\n' "$START_REPS"
	printf 'jump_slots\t%s\n' "${JUMP_SLOTS:-}"
	printf 'bind_now\t%s\n' "${BIND_NOW:-}"
	printf 'runs\t%s\n' "$RUNS"
	printf 'clock_reads\t%s\n' "$CLOCK_READS"
	printf 'elapsed\t%s\n' "$ELAPSED"
	printf 'load\t%s at the start, %s at the end\n' "$LOAD0" "$LOAD1"
	printf 'configs\t%s\n' "$CONFIGS"
	printf 'workloads\t%s\n' "$WORKLOADS"
	printf 'full\t%s\n' "$FULL"
	printf 'notes\t%s\n' "$NOTES"
	printf 'clang\t%s\n' "$(if [ "$HAVE_XRAY" = 1 ]; then clang-14 --version | head -n 1; else echo 'not installed'; fi)"
	printf 'xray_clock\t%s\n' "${XRAY_CLOCK:-}"
	printf 'xray_basic_options\t%s\n' "$XRAY_BASIC_OPTIONS"
	printf 'xray_fdr_options\t%s\n' "$XRAY_FDR_OPTIONS"
	printf 'lua_size\t%s\n' "$LUA_SIZE"
	printf 'sql_size\t%s\n' "$SQL_SIZE"
	printf 'xb_iters\t%s\n' "$XB_ITERS"
	printf 'lua_small\t%s\n' "$LUA_SMALL"
	printf 'sql_small\t%s\n' "$SQL_SMALL"
	printf 'build_s\t%s\n' "$BUILD_S"
	printf 'ada_config\t%s\n' "$ADA_CONFIG"
	printf 'loaded_iters\t%s\n' "$LOADED_ITERS"
	printf 'spinners\t%s\n' "$NPROC"
	printf 'waits_keys\t%s\n' "threads[].$WAITS_COUNT_KEY, threads[].$WAITS_NS_KEY"
} >meta.tsv
[ -f xray_check.tsv ] || : >xray_check.tsv
LC_ALL=C awk -f "$BENCH/report.awk" meta.tsv results.tsv clock.tsv uftrace_check.tsv xray_check.tsv failed.tsv kill.tsv >report.md || die "report failed"
cat report.md
cat budgets.txt
if [ "$FULL" = 1 ]; then
	cp report.md "$ROOT/BENCHMARKS.md" || die "cannot write BENCHMARKS.md"
	note "raw figures: bench/out/results.tsv; written: BENCHMARKS.md (${BUILD_S}s building, ${ELAPSED}s measuring)"
else
	note "raw figures: bench/out/results.tsv; report: bench/out/report.md (${BUILD_S}s building, ${ELAPSED}s measuring); BENCHMARKS.md left alone: not every configuration ran"
fi
