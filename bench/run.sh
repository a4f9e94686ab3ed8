#!/bin/sh
# run.sh - ada's benchmark (make bench): ada against no tracing and uftrace,
# interleaved runs, medians, budgets. Writes BENCHMARKS.md. Three workloads:
#
#   micro    bench/micro.c: a loop calling a pair of instrumented functions
#   libcall  bench/libcall.c: a loop calling bl_add, a trivial function of an
#            uninstrumented library (benchlib.c): the dynamic hooks' cost per
#            library call
#   startup  bench/startup.c: a program that does almost nothing, linked to a
#            library with BENCH_SLOTS PLT slots (manyslots.awk): the dynamic
#            hooks' start-up pass, lazy binding and -z now
#
#   BENCH_ITERS  loop iterations of micro (4 events each)   default 15000000
#   BENCH_RUNS   rounds; each runs every configuration once default 5
#   BENCH_CONFIGS  which configurations                      default all:
#                micro libcall startup. A workload's name stands for all of
#                its configurations (micro's run in the order given, the
#                others in this order):
#      micro     plain ada ada-fentry ada-fentry-detail uftrace-fentry
#                uftrace-fentry-args uftrace-mcount uftrace-cyg
#      libcall   lib-plain lib-ada lib-ada-detail lib-uftrace-mcount
#                lib-uftrace-cyg
#      startup   start-plain start-ada-nohook start-ada start-now-plain
#                start-now-ada-nohook start-now-ada
#                A workload's baselines always run, first, when any of its
#                configurations does: plain and ada (micro), lib-plain,
#                start-plain and start-now-plain. Just the dynamic hooks'
#                rows, quickly (about 40 s):
#                  BENCH_CONFIGS="libcall startup" BENCH_RUNS=3 make bench
#                A run of fewer than all configurations writes its report to
#                bench/out/report.md only: BENCHMARKS.md is left alone.
#   BENCH_LIB_CALLS   library calls per libcall run (2 events each) default 5000000
#   BENCH_SLOTS       functions libmanyslots.so calls through its PLT  default 5000
#   BENCH_START_REPS  start-up runs per configuration and round (their median
#                     is the round's figure)                         default 10
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
#
# A benchmark, not a test: it exits 0 whatever it measures, and non-zero only
# when something could not be built or run. POSIX sh + awk; needs gcc, du,
# the ada tools (bin/adacc, bin/ada-symbolize) and, for its rows, uftrace.
set -u

BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
OUT=$BENCH/out
ITERS=${BENCH_ITERS:-15000000}
RUNS=${BENCH_RUNS:-5}
LIB_CALLS=${BENCH_LIB_CALLS:-5000000}
SLOTS=${BENCH_SLOTS:-5000}
START_REPS=${BENCH_START_REPS:-10}
CLOCK_READS=100000000
ADA_CONFIG=

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

for v in BENCH_ITERS=$ITERS BENCH_RUNS=$RUNS BENCH_LIB_CALLS=$LIB_CALLS BENCH_SLOTS=$SLOTS BENCH_START_REPS=$START_REPS; do
	case ${v#*=} in '' | *[!0-9]* | 0) die "$v: expected a positive integer" ;; esac
done
[ -x "$ROOT/bin/adacc" ] && [ -x "$ROOT/bin/ada-symbolize" ] || die "bin/adacc or bin/ada-symbolize missing: run make first"
command -v gcc >/dev/null || die "gcc not found"
# The start-up rows compare lazy binding with -z now: the environment must
# not force either.
unset LD_BIND_NOW LD_BIND_NOT

# --- uftrace: install it from Debian if we can, else leave its rows out -------
UFTRACE_NOTE=
if ! command -v uftrace >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		note "installing uftrace from Debian"
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq uftrace; } >/dev/null 2>&1
	fi
fi
HAVE_UFTRACE=0
if command -v uftrace >/dev/null 2>&1; then
	HAVE_UFTRACE=1
else
	UFTRACE_NOTE="uftrace is not installed and could not be (needs root and apt-get): its rows are left out."
	note "$UFTRACE_NOTE"
fi

# --- configurations -----------------------------------------------------------
MICRO_ALL="plain ada ada-fentry ada-fentry-detail uftrace-fentry uftrace-fentry-args uftrace-mcount uftrace-cyg"
LIB_ALL="lib-plain lib-ada lib-ada-detail lib-uftrace-mcount lib-uftrace-cyg"
START_ALL="start-plain start-ada-nohook start-ada start-now-plain start-now-ada-nohook start-now-ada"
WANT=
for w in ${BENCH_CONFIGS:-micro libcall startup}; do
	case $w in
	micro) WANT="$WANT $MICRO_ALL" ;;
	libcall) WANT="$WANT $LIB_ALL" ;;
	startup) WANT="$WANT $START_ALL" ;;
	*) case " $MICRO_ALL $LIB_ALL $START_ALL " in
		*" $w "*) WANT="$WANT $w" ;;
		*) die "BENCH_CONFIGS: unknown configuration $w (micro libcall startup, or one of: $MICRO_ALL $LIB_ALL $START_ALL)" ;;
		esac ;;
	esac
done
# add LIST CONFIG: LIST's words with CONFIG appended unless already there.
add() { case " $1 " in *" $2 "*) echo "$1" ;; *) echo "${1:+$1 }$2" ;; esac; }
MICRO= LIB= START= UFTRACE_CONFIGS= LIB_UFTRACE= NWANT=0
for c in $WANT; do
	case $c in
	plain | ada) MICRO=$(add "$MICRO" plain); MICRO=$(add "$MICRO" ada) ;;
	ada-fentry | ada-fentry-detail) MICRO=$(add "$(add "$(add "$MICRO" plain)" ada)" $c) ;;
	uftrace-*)
		MICRO=$(add "$(add "$MICRO" plain)" ada)
		[ "$HAVE_UFTRACE" = 1 ] && UFTRACE_CONFIGS=$(add "$UFTRACE_CONFIGS" $c) ;;
	lib-uftrace-*)
		LIB=$(add "$LIB" lib-plain)
		[ "$HAVE_UFTRACE" = 1 ] && LIB_UFTRACE=$(add "$LIB_UFTRACE" $c) ;;
	lib-*) LIB=$(add "$(add "$LIB" lib-plain)" $c) ;;
	start-now-*) START=$(add "$(add "$START" start-now-plain)" $c) ;;
	start-*) START=$(add "$(add "$START" start-plain)" $c) ;;
	esac
done
# libcall and startup run in a fixed order: the baseline first, ada, uftrace.
keep() { for c in $2; do case " $1 " in *" $c "*) printf '%s ' "$c" ;; esac; done; }
LIB=$(keep "$LIB" "$LIB_ALL") LIB_UFTRACE=$(keep "$LIB_UFTRACE" "$LIB_ALL") START=$(keep "$START" "$START_ALL")
CONFIGS=$(echo $MICRO $UFTRACE_CONFIGS $LIB $LIB_UFTRACE $START)
for c in $MICRO_ALL $LIB_ALL $START_ALL; do case " $WANT " in *" $c "*) NWANT=$((NWANT + 1)) ;; esac; done
FULL=0
[ "$NWANT" = "$(echo $MICRO_ALL $LIB_ALL $START_ALL | wc -w)" ] && FULL=1
# Workloads run, for the report.
WORKLOADS=
[ -n "$MICRO" ] && WORKLOADS="micro"
[ -n "$LIB" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }libcall"
[ -n "$START" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }startup"

# --- build --------------------------------------------------------------------
rm -rf "$OUT"
mkdir -p "$OUT/logs" "$OUT/trace" || die "cannot create $OUT"
cd "$OUT" || die "cannot enter $OUT"
build() { "$@" >>"$OUT/logs/build.log" 2>&1 || { cat "$OUT/logs/build.log" >&2; die "build failed: $*"; }; }
build gcc -O2 -Wall -o runstat "$BENCH/runstat.c"
if [ -n "$MICRO" ]; then
	build gcc -O2 -Wall -o clockfloor "$BENCH/clockfloor.c"
	build gcc -O2 -o micro_plain "$BENCH/micro.c"
	build "$ROOT/bin/adacc" --ada-mode=cyg -O2 -o micro_ada "$BENCH/micro.c"
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -o micro_ada_fentry "$BENCH/micro.c"
	if [ -n "$UFTRACE_CONFIGS" ]; then
		build gcc -O2 -pg -mfentry -o micro_fentry "$BENCH/micro.c"
		build gcc -O2 -pg -o micro_pg "$BENCH/micro.c"
		build gcc -O2 -finstrument-functions -o micro_cyg "$BENCH/micro.c"
	fi
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

# --- one measurement ------------------------------------------------------------
# field FILE NAME: the word after NAME on the first line of FILE holding it.
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' "$1"; }

# Sums over every manifest.json under $1 (one per traced process): events,
# drops (reasons that lose events), latency p50 and p99, drop reasons,
# runtime config; then the dynamic hooks' figures (manifest dynamic_hooks,
# "-" where absent): slots and functions (fewest of any process), start-up
# pass ms and total ms (median over the processes), passes (most), and
# where the start-up figure came from (see below).
ada_manifest() {
	find "$1" -name manifest.json | while read -r m; do awk -f "$BENCH/jsonflat.awk" "$m"; done |
		awk -F '\t' '
		$1 ~ /^threads\.[0-9]+\.events$/ { ev += $2 }
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

printf 'config\trun\twall_ns\tcpu_ns\tapp_ns\tevents_workload\tevents_recorded\tbytes\tdropped\tp50_ns\tp99_ns\tsym_wall_ns\tdrop_reasons\tdyn_slots\tdyn_functions\tdyn_startup_ms\tdyn_total_ms\tdyn_passes\tdyn_startup_src\treps\twall_min_ns\twall_max_ns\n' >results.tsv
: >clock.tsv
: >uftrace_check.tsv

measure() { # config run
	c=$1 r=$2 dir=$OUT/trace/$1 log=$OUT/logs/$1.$2 reps=1
	rm -rf "$dir"
	case $c in
	plain) set -- ./micro_plain "$ITERS" ;;
	ada) set -- env ADA_OUTPUT="$dir" ./micro_ada "$ITERS" ;;
	ada-fentry) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ./micro_ada_fentry "$ITERS" ;;
	ada-fentry-detail) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=all ./micro_ada_fentry "$ITERS" ;;
	uftrace-fentry) set -- uftrace record -d "$dir" --no-libcall ./micro_fentry "$ITERS" ;;
	uftrace-fentry-args) set -- uftrace record -d "$dir" --no-libcall \
		-A '.@arg1,arg2,arg3,arg4,arg5,arg6' -R '.@retval' ./micro_fentry "$ITERS" ;;
	uftrace-mcount) set -- uftrace record -d "$dir" --no-libcall ./micro_pg "$ITERS" ;;
	uftrace-cyg) set -- uftrace record -d "$dir" --no-libcall ./micro_cyg "$ITERS" ;;
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
	esac
	# A start-up run is too short to time alone: runstat -n runs it reps times
	# and gives the median run.
	./runstat -n "$reps" "$log.stat" "$@" >"$log.out" 2>"$log.err" || { cat "$log.err" >&2; die "$c (run $r) failed: $*"; }
	wall=$(field "$log.stat" wall_ns)
	cpu=$(($(field "$log.stat" user_us) + $(field "$log.stat" sys_us)))000
	wmin=$(field "$log.stat" wall_min_ns) wmax=$(field "$log.stat" wall_max_ns)
	app=- wev=-
	case $c in
	start-*) ;;
	*)
		app=$(field "$log.err" app_thread_ns)
		wev=$(field "$log.err" events)
		[ -n "$app" ] && [ -n "$wev" ] || die "$c (run $r): no app_thread_ns line on stderr (see $log.err)"
		;;
	esac
	bytes=- rec=- drop=- p50=- p99=- sym=- why=- dyn="- - - - - -"
	case $c in
	ada* | lib-ada* | start-ada | start-now-ada)
		bytes=$(du -sb "$dir" | cut -f1) # raw only: measured before symbolizing
		./runstat "$log.sym.stat" "$ROOT/bin/ada-symbolize" -q "$dir" >"$log.sym.out" 2>&1 ||
			{ cat "$log.sym.out" >&2; die "ada-symbolize failed on $c, run $r"; }
		sym=$(field "$log.sym.stat" wall_ns)
		set -- $(ada_manifest "$dir") # twelve words, split on purpose
		rec=$1 drop=$2 p50=$3 p99=$4 why=$5
		[ "$r" = 1 ] && [ -z "$ADA_CONFIG" ] && case $c in ada | lib-ada) ADA_CONFIG="$6 (of $c)" ;; esac
		shift 6
		dyn="$*"
		case $c in start-*) bytes=- sym=- ;; esac # $reps processes: not comparable
		;;
	uftrace-* | lib-uftrace-*)
		bytes=$(du -sb "$dir" | cut -f1)
		rec=$(uftrace_events "$dir")
		# With arguments a record is longer than 16 bytes: count the
		# workload's events instead (the loop's, as micro reports them).
		[ "$c" = uftrace-fentry-args ] && rec=$wev
		[ "$r" = 1 ] && [ ! -s uftrace_check.tsv ] &&
			printf '%s\t%s\t%s\n' "$c" "$rec" "$(uftrace_report_events "$dir")" >>uftrace_check.tsv
		;;
	esac
	rm -rf "$dir"
	sync
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$c" "$r" "$wall" "$cpu" "$app" "$wev" \
		"$rec" "$bytes" "$drop" "$p50" "$p99" "$sym" "$why" >>results.tsv
	printf '\t%s' $dyn "$reps" "${wmin:--}" "${wmax:--}" >>results.tsv
	printf '\n' >>results.tsv
	case $c in
	start-*) printf ' %s %.1fms' "$c" "$(awk -v w="$wall" 'BEGIN { print w / 1e6 }')" >&2 ;;
	*) printf ' %s %.2fs' "$c" "$(awk -v w="$wall" 'BEGIN { print w / 1e9 }')" >&2 ;;
	esac
}

loadavg() { cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown; }
LOAD0=$(loadavg)
T0=$(date +%s)
note "$RUNS rounds of: $CONFIGS${MICRO:+ clock-floor}"
[ -n "$MICRO" ] && note "micro: $ITERS iterations ($((4 * ITERS)) events) a run"
[ -n "$LIB" ] && note "libcall: $LIB_CALLS library calls ($((2 * LIB_CALLS)) events) a run"
[ -n "$START" ] && note "startup: $SLOTS PLT slots, $START_REPS processes a run"
r=1
while [ "$r" -le "$RUNS" ]; do
	printf 'bench: round %s/%s:' "$r" "$RUNS" >&2
	for c in $CONFIGS; do measure "$c" "$r"; done
	if [ -n "$MICRO" ]; then
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
	printf 'uftrace_note\t%s\n' "$UFTRACE_NOTE"
	printf 'ada_config\t%s\n' "$ADA_CONFIG"
} >meta.tsv
LC_ALL=C awk -f "$BENCH/report.awk" meta.tsv results.tsv clock.tsv uftrace_check.tsv >report.md || die "report failed"
cat report.md
cat budgets.txt
if [ "$FULL" = 1 ]; then
	cp report.md "$ROOT/BENCHMARKS.md" || die "cannot write BENCHMARKS.md"
	note "raw figures: bench/out/results.tsv; written: BENCHMARKS.md (${ELAPSED}s)"
else
	note "raw figures: bench/out/results.tsv; report: bench/out/report.md (${ELAPSED}s); BENCHMARKS.md left alone: not every configuration ran"
fi
