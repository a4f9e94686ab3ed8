#!/bin/sh
# run.sh - ada's benchmark (make bench): ada against no tracing, uftrace and
# LLVM XRay, interleaved runs, medians, budgets. Writes BENCHMARKS.md. Six
# workloads:
#
#   micro    bench/micro.c: a loop calling a pair of instrumented functions
#   nested   bench/micro.c's nested shape: a loop calling a function that
#            calls the same pair (a caller with two leaf callees), as many
#            events a run as micro
#   libcall  bench/libcall.c: a loop calling bl_add, a trivial function of an
#            uninstrumented library (benchlib.c): the dynamic hooks' cost per
#            library call
#   startup  bench/startup.c: a program that does almost nothing, linked to a
#            library with BENCH_SLOTS PLT slots (manyslots.awk): the dynamic
#            hooks' start-up pass, lazy binding and -z now; and, after the
#            rounds, bench/startexit.sh (issue 23): what a traced process
#            adds before main and after it returns, idle and loaded
#   lua      the Lua 5.4 interpreter running bench/lua/workload.lua
#   sqlite   SQLite's speedtest1 (--memdb)
#            Both built from Debian's sources by tests/realworld/build.sh, once
#            per instrumentation (the sources are fetched on first use).
#
# and, with micro, issue 22's: bench/funtrace.sh (ada's modes against
# funtrace, built from FUNTRACE_SRC when it is set, and the ring floor, in
# rounds of their own) and bench/instructions.sh (instructions an event,
# counted by callgrind, in the traced thread and the writer), and
# bench/views.sh (issue 12: ada-symbolize's views against uftrace's on
# large traces; its own settings, BENCH_VIEW_*, are in its header), after
# the rounds, and two checks of issue 10 (a lossless index lane):
#
#   loaded   micro, lua and sqlite traced by ada while nproc busy processes
#            (bench/spin.c, started just before the measured run and killed
#            just after it) occupy every CPU: events lost (0 is the budget,
#            with ADA_ON_FULL=wait, the default) and time spent waiting for
#            the writer; each row has a -drop twin run with ADA_ON_FULL=drop,
#            whose losses are reported, not judged
#   recovery bench/killme.c (threads counting their calls of instrumented
#            functions in a MAP_SHARED file) killed with SIGKILL at a random
#            moment, then ada-symbolize, ada-symbolize --check, and each
#            thread's CALLs in the trace (tests/realworld/atfstat.c) against
#            the program's own count
#
# and one of issue 23 (the writer is never the ceiling), after the rounds:
#
#   drain    bench/zstd.sh: zstd -T2 built in cyg mode (about 220 M events),
#            stream mode's wall against ring mode's, idle and loaded
#
# and one of issue 25 (the lanes beyond calls), after the rounds:
#
#   lanes    bench/lanes.sh: micro, Lua and SQLite traced with ada's defaults
#            and with ADA_COUNTERS, ADA_ALLOC, ADA_BLOCKING, each and all:
#            the CPU each adds, idle and loaded
#
# and one of issue 13 (the flight recorder's detail windows):
#
#   windows  bench/trigger_latency.c: a loop calling a small function that
#            calls ada_mark every BENCH_WIN_INTERVAL_MS and times each
#            window's WINDOW record into its own process.meta (ADA_DETAIL=
#            window, ADA_PRE/ADA_POST at their defaults), flat out, paced
#            and under load: p50, p99 and max against the budget (25 ms,
#            250 ms). The window mode's cost is micro's ada-fentry-window rows
#
# and issue 14's (patchable mode: adacc --ada-mode=patchable; report section
# "Patchable mode", bench/report/patchable.awk):
#
#   micro, lua, sqlite  tracing off (ADA_TRACE=off: every site patched, its
#            entry a 2-byte NOP; ADA_DISABLE=1: the runtime does nothing)
#            against the plain build, every site on, and (micro) ADA_FILTER
#            choosing one of the loop's two functions or neither; the
#            start-up pass's time (manifest patchable.startup_ms)
#   enable   bench/enable_latency.c: bench/enable_loop.c (patchable, started
#            with ADA_TRACE=off) calling a function every microsecond, its
#            recording switched on and off BENCH_ENABLE_CYCLES times by a
#            command (kill -USR1 PID with ADA_TOGGLE_SIGNAL=SIGUSR1, or
#            bin/ada-ctl PID enable|disable): the time from the command to
#            the function's first recorded event (budget: 100 ms), idle and
#            under load
#
#   BENCH_ITERS  loop iterations of micro (4 events each)   default 15000000
#   BENCH_RUNS   rounds; each runs every configuration once default 5
#   BENCH_CONFIGS  which configurations                      default all:
#                micro nested libcall startup lua sqlite loaded lua-loaded
#                sql-loaded recovery windows patchable views drain lanes. A workload's name
#                stands for all of its configurations; "patchable" for issue
#                14's of micro, lua and sqlite and the enable rows, "enable"
#                for the enable rows; "xray" for the XRay ones of micro,
#                nested, lua and sqlite; "loaded" for micro's loaded rows,
#                "lua-loaded" and "sql-loaded" for the real programs'. micro's
#                run in the order given, the others in this order:
#      micro     plain ada ada-fentry ada-fentry-detail ada-fentry-window
#                ada-fentry-window-mark ada-record-ring ada-record-ring-cyg
#                patchable-off patchable-disabled patchable-on
#                patchable-filter patchable-filter-cold uftrace-fentry
#                uftrace-fentry-args uftrace-mcount uftrace-cyg xray-fdr
#                xray-basic plain-small
#                (ada-fentry-window is issue 13's default mode, ADA_DETAIL=
#                window with no trigger: judged against ada-fentry, which
#                runs with it; -mark adds an ada_mark every BENCH_MARK_EVERY
#                events, each opening a window)
#                (ada-record-ring is issue 13's ring mode, ADA_RECORD=ring,
#                index lane only, fentry; -cyg the same in cyg mode, which
#                hijacks no return)
#                (patchable-*: micro built with --ada-mode=patchable; -off
#                ADA_TRACE=off, -disabled ADA_DISABLE=1, -on every site
#                patched, -filter ADA_FILTER=bench_f, -filter-cold
#                ADA_FILTER=main (neither loop function patched, recording
#                on); all but -disabled with ADA_DYNHOOK=off, -on and the
#                filters ADA_DETAIL=off, as ada-fentry, their comparison)
#      nested    nested-plain nested-ada-fentry nested-ada-fentry-window
#                nested-uftrace-fentry nested-xray-fdr: micro's nested shape,
#                run as ada-fentry, ada-fentry-window, uftrace-fentry and
#                xray-fdr are
#      libcall   lib-plain lib-ada lib-ada-detail lib-uftrace-mcount
#                lib-uftrace-cyg
#      startup   start-plain start-ada-nohook start-ada start-now-plain
#                start-now-ada-nohook start-now-ada
#      lua       lua-plain lua-ada lua-ada-fentry lua-ada-fentry-libcall
#                lua-ada-fentry-detail lua-uftrace-fentry
#                lua-uftrace-fentry-libcall lua-uftrace-fentry-args
#                lua-uftrace-mcount lua-uftrace-cyg lua-xray-fdr
#                lua-xray-basic lua-plain-small lua-patchable lua-plain-large
#                lua-patchable-off lua-patchable-off-dynhook
#                lua-patchable-disabled
#                (lua-patchable: every site on, ADA_DETAIL=off; -off
#                ADA_TRACE=off, -off-dynhook the same with the dynamic hooks
#                on (the default), -disabled ADA_DISABLE=1: these three at
#                BENCH_LUA_LARGE, against lua-plain-large, the same size)
#      sqlite    the same with the prefix sql- (sql-plain, sql-ada...)
#      loaded    ada-loaded ada-loaded-drop ada-fentry-loaded
#                ada-fentry-loaded-drop ada-fentry-detail-loaded
#                ada-fentry-detail-loaded-drop ada-fentry-window-loaded
#                ada-fentry-window-loaded-drop: micro's ada, ada-fentry,
#                ada-fentry-detail and ada-fentry-window under load,
#                ADA_ON_FULL left at its default (wait), and with
#                ADA_ON_FULL=drop (-drop)
#      lua-loaded, sql-loaded  lua-ada-loaded lua-ada-fentry-loaded
#                lua-ada-fentry-loaded-drop lua-ada-fentry-detail-loaded (sql-
#                the same), run as lua-ada, lua-ada-fentry and
#                lua-ada-fentry-detail are; only index-only fentry has a -drop
#                twin here, to keep the run short
#      recovery  kill-cyg kill-fentry: killme built by adacc in either mode,
#                runtime defaults
#      windows   window-latency window-latency-paced window-latency-loaded:
#                trigger_latency flat out, paced (a sleep of
#                BENCH_WIN_PAUSE_US every 512 events) and flat out with the
#                loaded rows' busy processes
#      enable    enable-signal enable-signal-loaded enable-ctl
#                enable-ctl-loaded: enable_latency with ADA_TOGGLE_SIGNAL=
#                SIGUSR1 and kill -USR1 as the enable and disable commands,
#                or bin/ada-ctl PID enable and disable (left out, with a
#                note, while bin/ada-ctl is not built), idle and with the
#                loaded rows' busy processes (bench/lib/patchable.sh's
#                enable_row: one line a mechanism)
#                A workload's baselines always run, first, when any of its
#                configurations does: plain and ada (micro), nested-plain, lib-plain,
#                start-plain and start-now-plain, lua-plain and
#                lua-ada-fentry (sql-plain, sql-ada-fentry); the *-small
#                baseline with xray-basic, the *-large one with the
#                patchable-off and -disabled rows of lua and sqlite; plain,
#                ada, ada-fentry and patchable-off with micro's patchable-*
#                (the loaded, recovery, windows and enable rows have none).
#                Examples:
#                  BENCH_CONFIGS="libcall startup" BENCH_RUNS=3 make bench
#                  BENCH_CONFIGS="lua" BENCH_RUNS=2 BENCH_LUA_SIZE=100 sh bench/run.sh
#                  BENCH_CONFIGS="xray" BENCH_RUNS=2 BENCH_ITERS=2000000 sh bench/run.sh
#                  BENCH_CONFIGS="loaded recovery" BENCH_RUNS=2 BENCH_ITERS=2000000 \
#                      BENCH_LOADED_ITERS=1000000 sh bench/run.sh
#                  BENCH_CONFIGS=patchable BENCH_RUNS=2 make bench
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
#   BENCH_MARK_EVERY  ada-fentry-window-mark's events between marks default 100000
#   BENCH_WIN_MARKS, BENCH_WIN_INTERVAL_MS, BENCH_WIN_PAUSE_US  trigger_latency's
#                     marks per run, the time between them and the paced
#                     row's sleep every 512 events        default 100, 20, 50
#   BENCH_LUA_LARGE, BENCH_SQL_LARGE  the size of the tracing-off rows of lua
#                     and sqlite and of their baseline (*plain-large): runs
#                     long enough that the runtime's start-up (a few ms, paid
#                     once) does not hide the per-call cost   default 4000, 20
#   BENCH_OFF_REPS    runs of each of those a round (runstat -n: its CPU
#                     figure is their mean, which a busy machine moves less
#                     than one run's)                                 default 3
#   BENCH_ENABLE_CYCLES, BENCH_ENABLE_ON_MS, BENCH_ENABLE_OFF_MS  the enable
#                     rows' enables a run, how long each stays on, and off
#                     before it (plus 0-9 ms)          default 20, 200, 100
#   The loaded rows of lua and sqlite run BENCH_LUA_SIZE and BENCH_SQL_SIZE.
#
#   nested runs micro with 2 * BENCH_ITERS / 3 iterations of 6 events, so
#   that its runs hold micro's event count (exactly when BENCH_ITERS is a
#   multiple of 3, as the default is).
#   The floors, once per round after the configurations: bench/clockfloor.c
#   with micro's event count, the clock floor (one tick read an event) and
#   the ring floor (one tick read and one 16-byte store into a thread-local
#   ring an event: issue 13's ring mode is judged against it, <= 1.5x, same
#   round).
#
#   ada is --ada-mode=cyg (issue 2's pipeline); ada-fentry is --ada-mode=fentry with
#   ADA_DETAIL=off (index lane only); ada-fentry-detail keeps every detail
#   record (registers + the default 128-byte stack window); ada-fentry-window
#   is the default (ADA_DETAIL=window: records captured, written only around
#   triggers, none here), on micro and on lua and sqlite. uftrace-fentry-args
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
#   Recovery rows: killme runs under ada (ADA_OUTPUT a fresh directory) with
#   BENCH_KILL_THREADS threads; SIGKILL after a random 100-400 ms (from
#   /dev/urandom); then ada-symbolize, ada-symbolize --check, atfstat. The
#   rule, per thread i: the trace's CALLs of km_call_<i> minus the count
#   killme stored for it is 0 or 1 (1: the kill fell between the CALL's
#   record and the store, see killme.c); and the count is above 0. A round
#   passes when every thread does, the process died of the SIGKILL, and both
#   ada-symbolize runs and atfstat exited 0.
#
# A benchmark, not a test: it exits 0 whatever it measures, and non-zero only
# when something could not be built or run. POSIX sh + awk; needs gcc, du,
# the ada tools (bin/adacc, bin/ada-symbolize) and, for their rows, uftrace,
# clang-14 (XRay) and tests/realworld/build.sh's sources (lua, sqlite); the
# recovery rows od, a sleep that takes fractions of a second (GNU, busybox)
# and tests/realworld/atfstat.c with tests/lib.
#
# Files: run.sh is the entry point and the outline (settings, rounds,
# report); it sources the functions of bench/lib/:
#   peers.sh      uftrace and XRay: installed or left out, XRay's build and
#                 check, uftrace's event counts
#   configs.sh    BENCH_CONFIGS: which configurations run, in which order;
#                 whether the runtime has ring mode yet
#   workloads.sh  building micro, libcall, startup, killme, lua, speedtest1
#   measure.sh    one measurement: a line of results.tsv
#   loaded.sh     issue 10: busy processes, the recovery rows (measure_kill)
#   windows.sh    issue 13: the detail windows' trigger-to-disk latency
#                 (measure_window)
#   patchable.sh  issue 14: patchable mode's programs, the enable latency
#                 (measure_enable)
# and writes the report with bench/report/*.awk (main.awk lists them).
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
MARK_EVERY=${BENCH_MARK_EVERY:-100000}
WIN_MARKS=${BENCH_WIN_MARKS:-100}
WIN_INTERVAL_MS=${BENCH_WIN_INTERVAL_MS:-20}
WIN_PAUSE_US=${BENCH_WIN_PAUSE_US:-50}
KILL_THREADS=${BENCH_KILL_THREADS:-4}
LUA_LARGE=${BENCH_LUA_LARGE:-4000}
SQL_LARGE=${BENCH_SQL_LARGE:-20}
OFF_REPS=${BENCH_OFF_REPS:-3}
ENABLE_CYCLES=${BENCH_ENABLE_CYCLES:-20}
ENABLE_ON_MS=${BENCH_ENABLE_ON_MS:-200}
ENABLE_OFF_MS=${BENCH_ENABLE_OFF_MS:-100}
NPROC=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
# Issue 10's waits in manifest.json, per thread (threads[].<key>): the only
# place that names them.
WAITS_COUNT_KEY=waits.count
WAITS_NS_KEY=waits.ns
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

. "$BENCH/lib/peers.sh"
. "$BENCH/lib/configs.sh"
. "$BENCH/lib/workloads.sh"
. "$BENCH/lib/measure.sh"
. "$BENCH/lib/loaded.sh"
. "$BENCH/lib/windows.sh"
. "$BENCH/lib/patchable.sh"

for v in BENCH_ITERS=$ITERS BENCH_RUNS=$RUNS BENCH_LIB_CALLS=$LIB_CALLS BENCH_SLOTS=$SLOTS BENCH_START_REPS=$START_REPS \
	BENCH_LUA_SIZE=$LUA_SIZE BENCH_SQL_SIZE=$SQL_SIZE BENCH_XRAY_BASIC_ITERS=$XB_ITERS BENCH_LUA_SMALL=$LUA_SMALL \
	BENCH_SQL_SMALL=$SQL_SMALL BENCH_LOADED_ITERS=$LOADED_ITERS BENCH_KILL_THREADS=$KILL_THREADS \
	BENCH_MARK_EVERY=$MARK_EVERY BENCH_WIN_MARKS=$WIN_MARKS BENCH_WIN_INTERVAL_MS=$WIN_INTERVAL_MS \
	BENCH_WIN_PAUSE_US=$WIN_PAUSE_US BENCH_LUA_LARGE=$LUA_LARGE BENCH_SQL_LARGE=$SQL_LARGE BENCH_OFF_REPS=$OFF_REPS \
	BENCH_ENABLE_CYCLES=$ENABLE_CYCLES BENCH_ENABLE_ON_MS=$ENABLE_ON_MS BENCH_ENABLE_OFF_MS=$ENABLE_OFF_MS; do
	case ${v#*=} in '' | *[!0-9]* | 0) die "$v: expected a positive integer" ;; esac
done
[ -x "$ROOT/bin/adacc" ] && [ -x "$ROOT/bin/ada-symbolize" ] || die "bin/adacc or bin/ada-symbolize missing: run make first"
command -v gcc >/dev/null || die "gcc not found"
[ "$KILL_THREADS" -le 16 ] || die "BENCH_KILL_THREADS=$KILL_THREADS: at most 16"
[ "$MARK_EVERY" -ge 4 ] || die "BENCH_MARK_EVERY=$MARK_EVERY: at least 4 (one iteration of micro)"
[ "$WIN_MARKS" -le 10000 ] || die "BENCH_WIN_MARKS=$WIN_MARKS: at most 10000"
[ "$ENABLE_CYCLES" -le 1000 ] || die "BENCH_ENABLE_CYCLES=$ENABLE_CYCLES: at most 1000"
[ "$ENABLE_ON_MS" -le 10000 ] && [ "$ENABLE_OFF_MS" -le 10000 ] ||
	die "BENCH_ENABLE_ON_MS=$ENABLE_ON_MS, BENCH_ENABLE_OFF_MS=$ENABLE_OFF_MS: at most 10000 each"
# nested's iterations (6 events each): micro's events (4 an iteration); the
# floors run as many events.
NESTED_ITERS=$((2 * ITERS / 3))
[ "$NESTED_ITERS" -gt 0 ] || die "BENCH_ITERS=$ITERS: at least 2 for the nested rows"
FLOOR_EVENTS=$((4 * ITERS))

# The loaded rows' busy processes (spin_start, spin_stop: lib/loaded.sh) are
# killed by these traps whatever ends the script.
SPIN_PIDS=
trap 'spin_stop' EXIT
trap 'spin_stop; exit 130' INT
trap 'spin_stop; exit 143' TERM
# The start-up rows compare lazy binding with -z now: the environment must
# not force either.
unset LD_BIND_NOW LD_BIND_NOT

# --- uftrace and clang-14: install them from Debian if we can, else leave
# their rows out -----------------------------------------------------------------
NOTES=
find_peers

# --- configurations -----------------------------------------------------------
select_configs

# --- build --------------------------------------------------------------------
TB=$(date +%s)
rm -rf "$OUT"
mkdir -p "$OUT/logs" "$OUT/trace" || die "cannot create $OUT"
cd "$OUT" || die "cannot enter $OUT"
build gcc -O2 -Wall -o runstat "$BENCH/runstat.c"
[ -n "$MICRO$NESTED$LUA$SQL" ] && build gcc -O2 -Wall -o clockfloor "$BENCH/clockfloor.c"
{ [ -n "$LOADED" ] || wants '*-loaded'; } && build gcc -O2 -Wall -o spin "$BENCH/spin.c"
[ -n "$WIN" ] && build_trigger_latency
[ -n "$KILL" ] && build_killme
if [ -n "$MICRO$NESTED" ] || wants 'ada-*loaded*'; then build_micro; fi
build_patchable
probe_ring_mode
wants '*xray-*' && xray_build
[ -n "$LIB" ] && build_libcall
[ -n "$START" ] && build_startup
# (the loaded rows' programs are builds of the same variants)
wants 'lua-*' && { note "building lua: $(for c in $CONFIGS; do case $c in lua-*) variant "${c#lua-}" ;; esac; done | sort -u | tr '\n' ' ')"; rw_builds lua lua; }
wants 'sql-*' && { note "building speedtest1: $(for c in $CONFIGS; do case $c in sql-*) variant "${c#sql-}" ;; esac; done | sort -u | tr '\n' ' ')"; rw_builds sql speedtest1; }

# --- the rounds ---------------------------------------------------------------
results_init
windows_init
enable_init
BUILD_S=$(($(date +%s) - TB))
loadavg() { cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown; }
# About where the kernel starts writing dirty pages back in the background,
# in MB: vm.dirty_background_bytes, or vm.dirty_background_ratio percent of
# the memory it counts as dirtyable (free pages and file pages, roughly).
# A run that writes more than that has writeback running during it.
writeback_mb() {
	awk 'FILENAME ~ /bytes$/ { b = $1; next }
		FILENAME ~ /ratio$/ { r = $1; next }
		/^(MemFree|Active\(file\)|Inactive\(file\)):/ { kb += $2 }
		END { if (b > 0) printf "%.0f\n", b / 1e6; else if (r != "" && kb) printf "%.0f\n", kb * 1024 * r / 100 / 1e6; else print "unknown" }' \
		/proc/sys/vm/dirty_background_bytes /proc/sys/vm/dirty_background_ratio /proc/meminfo 2>/dev/null || echo unknown
}
LOAD0=$(loadavg)
WRITEBACK_MB=$(writeback_mb)
T0=$(date +%s)
FLOOR=
[ -n "$MICRO$NESTED$LUA$SQL" ] && FLOOR=1
note "$RUNS rounds of: $CONFIGS${FLOOR:+ clock-floor}"
[ -n "$MICRO" ] && note "micro: $ITERS iterations ($((4 * ITERS)) events) a run"
[ -n "$NESTED" ] && note "nested: $NESTED_ITERS iterations ($((6 * NESTED_ITERS)) events) a run"
[ -n "$RING_MODE" ] && note "ring mode (ada-record-ring): $RING_MODE"
[ -n "$LIB" ] && note "libcall: $LIB_CALLS library calls ($((2 * LIB_CALLS)) events) a run"
[ -n "$START" ] && note "startup: $SLOTS PLT slots, $START_REPS processes a run"
[ -n "$LUA" ] && note "lua: workload.lua $LUA_SIZE a run"
[ -n "$SQL" ] && note "sqlite: speedtest1 --size $SQL_SIZE --memdb a run"
[ -n "$LOADED" ] && note "loaded: $NPROC busy processes around each run; micro $LOADED_ITERS iterations"
[ -n "$KILL" ] && note "recovery: killme with $KILL_THREADS threads, SIGKILL after 100-400 ms"
[ -n "$WIN" ] && note "windows: trigger_latency, $WIN_MARKS marks ${WIN_INTERVAL_MS} ms apart a run"
[ -n "$ENABLE" ] && note "enable: $ENABLE_CYCLES enables a run, ${ENABLE_ON_MS} ms on, ${ENABLE_OFF_MS}-$((ENABLE_OFF_MS + 9)) ms off"
r=1
while [ "$r" -le "$RUNS" ]; do
	printf 'bench: round %s/%s:' "$r" "$RUNS" >&2
	for c in $CONFIGS; do measure "$c" "$r"; done
	if [ -n "$FLOOR" ]; then
		./clockfloor "$FLOOR_EVENTS" >"logs/clock.$r" || die "clockfloor failed"
		printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$(field "logs/clock.$r" clock_read_ns)" "$(field "logs/clock.$r" min_ns)" \
			"$(field "logs/clock.$r" ring_event_ns)" "$(field "logs/clock.$r" ring_min_ns)" >>clock.tsv
		printf ' clock-floor %sns ring-floor %sns' "$(field "logs/clock.$r" clock_read_ns)" "$(field "logs/clock.$r" ring_event_ns)" >&2
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
	printf 'floor_events\t%s\n' "$FLOOR_EVENTS"
	printf 'nested_iters\t%s\n' "$NESTED_ITERS"
	printf 'ring_mode\t%s\n' "$RING_MODE"
	printf 'writeback_mb\t%s\n' "$WRITEBACK_MB"
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
	printf 'mark_every\t%s\n' "$MARK_EVERY"
	printf 'win_marks\t%s\n' "$WIN_MARKS"
	printf 'win_interval_ms\t%s\n' "$WIN_INTERVAL_MS"
	printf 'win_pause_us\t%s\n' "$WIN_PAUSE_US"
	printf 'lua_large\t%s\n' "$LUA_LARGE"
	printf 'sql_large\t%s\n' "$SQL_LARGE"
	printf 'off_reps\t%s\n' "$OFF_REPS"
	printf 'enable_cycles\t%s\n' "$ENABLE_CYCLES"
	printf 'enable_on_ms\t%s\n' "$ENABLE_ON_MS"
	printf 'enable_off_ms\t%s\n' "$ENABLE_OFF_MS"
} >meta.tsv
[ -f xray_check.tsv ] || : >xray_check.tsv
set --
for f in main common micro floor nested libcall startup realprogs peers loaded recovery windows patchable commands; do
	set -- "$@" -f "$BENCH/report/$f.awk"
done
: >budgets.txt
: >report.md
if [ -n "$CONFIGS" ]; then
	LC_ALL=C awk "$@" meta.tsv results.tsv clock.tsv uftrace_check.tsv xray_check.tsv failed.tsv kill.tsv windows.tsv \
		enable.tsv >report.md || die "report failed"
fi
if [ -n "$MICRO" ]; then
	BENCH_ITERS=$ITERS BENCH_FT_RUNS=$RUNS sh "$BENCH/funtrace.sh" || die "bench/funtrace.sh failed"
	cat funtrace/report.md >>report.md
	cat funtrace/budgets.txt >>budgets.txt
	sh "$BENCH/instructions.sh" || die "bench/instructions.sh failed"
	cat instructions/report.md >>report.md
	cat instructions/budgets.txt >>budgets.txt
fi
if [ -n "$START" ]; then
	sh "$BENCH/startexit.sh" || die "bench/startexit.sh failed"
	cat startexit/report.md >>report.md
	cat startexit/budgets.txt >>budgets.txt
fi
if [ "$DRAIN_RUN" = 1 ]; then
	sh "$BENCH/zstd.sh" || die "bench/zstd.sh failed"
	cat zstd/report.md >>report.md
	cat zstd/budgets.txt >>budgets.txt
fi
if [ "$LANES_RUN" = 1 ]; then
	sh "$BENCH/lanes.sh" || die "bench/lanes.sh failed"
	cat lanes/report.md >>report.md
	cat lanes/budgets.txt >>budgets.txt
fi
if [ "$VIEWS_RUN" = 1 ]; then
	sh "$BENCH/views.sh" || die "bench/views.sh failed"
	cat views/report.md >>report.md
	cat views/budgets.txt >>budgets.txt
fi
cat report.md
cat budgets.txt
if [ "$FULL" = 1 ]; then
	cp report.md "$ROOT/BENCHMARKS.md" || die "cannot write BENCHMARKS.md"
	note "raw figures: bench/out/results.tsv; written: BENCHMARKS.md (${BUILD_S}s building, ${ELAPSED}s measuring)"
else
	note "raw figures: bench/out/results.tsv; report: bench/out/report.md (${BUILD_S}s building, ${ELAPSED}s measuring); BENCHMARKS.md left alone: not every configuration ran"
fi
