#!/bin/sh
# run.sh - ada's benchmark (make bench): ada against no tracing and uftrace on
# bench/micro.c, interleaved runs, medians, budgets. Writes BENCHMARKS.md.
#
#   BENCH_ITERS  loop iterations of micro (4 events each)   default 15000000
#   BENCH_RUNS   rounds; each runs every configuration once default 5
#   BENCH_CONFIGS  which configurations, in this order       default all:
#                plain ada ada-fentry ada-fentry-detail uftrace-fentry
#                uftrace-fentry-args uftrace-mcount uftrace-cyg (plain and ada
#                always run, first). uftrace-fentry-args records the six
#                argument registers and the return value of every function
#                (-A/-R), the counterpart of ada-fentry-detail.
#   ada is --ada-mode=cyg (issue 2's pipeline); ada-fentry is --ada-mode=fentry with
#   ADA_DETAIL=off (index lane only); ada-fentry-detail keeps every detail
#   record (registers + the default 128-byte stack window).
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
CLOCK_READS=100000000
ADA_CONFIG=

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

case $ITERS in '' | *[!0-9]* | 0) die "BENCH_ITERS=$ITERS: expected a positive integer" ;; esac
case $RUNS in '' | *[!0-9]* | 0) die "BENCH_RUNS=$RUNS: expected a positive integer" ;; esac
[ -x "$ROOT/bin/adacc" ] && [ -x "$ROOT/bin/ada-symbolize" ] || die "bin/adacc or bin/ada-symbolize missing: run make first"
command -v gcc >/dev/null || die "gcc not found"

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
CONFIGS="plain ada" UFTRACE_CONFIGS=
for c in ${BENCH_CONFIGS:-ada-fentry ada-fentry-detail uftrace-fentry uftrace-fentry-args uftrace-mcount uftrace-cyg}; do
	case $c in
	plain | ada) ;;
	ada-fentry | ada-fentry-detail) CONFIGS="$CONFIGS $c" ;;
	uftrace-fentry | uftrace-fentry-args | uftrace-mcount | uftrace-cyg)
		[ "$HAVE_UFTRACE" = 1 ] && UFTRACE_CONFIGS="$UFTRACE_CONFIGS $c" ;;
	*) die "BENCH_CONFIGS: unknown configuration $c (plain ada ada-fentry ada-fentry-detail uftrace-fentry uftrace-fentry-args uftrace-mcount uftrace-cyg)" ;;
	esac
done
CONFIGS="$CONFIGS$UFTRACE_CONFIGS"

# --- build --------------------------------------------------------------------
rm -rf "$OUT"
mkdir -p "$OUT/logs" "$OUT/trace" || die "cannot create $OUT"
cd "$OUT" || die "cannot enter $OUT"
build() { "$@" >>"$OUT/logs/build.log" 2>&1 || { cat "$OUT/logs/build.log" >&2; die "build failed: $*"; }; }
build gcc -O2 -Wall -o runstat "$BENCH/runstat.c"
build gcc -O2 -Wall -o clockfloor "$BENCH/clockfloor.c"
build gcc -O2 -o micro_plain "$BENCH/micro.c"
build "$ROOT/bin/adacc" --ada-mode=cyg -O2 -o micro_ada "$BENCH/micro.c"
build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -o micro_ada_fentry "$BENCH/micro.c"
if [ "$HAVE_UFTRACE" = 1 ]; then
	build gcc -O2 -pg -mfentry -o micro_fentry "$BENCH/micro.c"
	build gcc -O2 -pg -o micro_pg "$BENCH/micro.c"
	build gcc -O2 -finstrument-functions -o micro_cyg "$BENCH/micro.c"
fi

# --- one measurement ------------------------------------------------------------
# field FILE NAME: the word after NAME on the first line of FILE holding it.
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' "$1"; }

# Sums over every manifest.json under $1 (one per traced process).
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
		END { printf "%.0f %s %s %s %s %s\n", ev, seen ? sprintf("%.0f", dr) : "-", p50 == "" ? "-" : p50,
			p99 == "" ? "-" : p99, why == "" ? "-" : why, conf == "" ? "-" : conf }'
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

printf 'config\trun\twall_ns\tcpu_ns\tapp_ns\tevents_workload\tevents_recorded\tbytes\tdropped\tp50_ns\tp99_ns\tsym_wall_ns\tdrop_reasons\n' >results.tsv
: >clock.tsv
: >uftrace_check.tsv

measure() { # config run
	c=$1 r=$2 dir=$OUT/trace/$1 log=$OUT/logs/$1.$2
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
	esac
	./runstat "$log.stat" "$@" >"$log.out" 2>"$log.err" || { cat "$log.err" >&2; die "$c (run $r) failed: $*"; }
	wall=$(field "$log.stat" wall_ns)
	cpu=$(($(field "$log.stat" user_us) + $(field "$log.stat" sys_us)))000
	app=$(field "$log.err" app_thread_ns)
	wev=$(field "$log.err" events)
	[ -n "$app" ] && [ -n "$wev" ] || die "$c (run $r): no app_thread_ns line on stderr (see $log.err)"
	bytes=- rec=- drop=- p50=- p99=- sym=- why=-
	case $c in
	ada*)
		bytes=$(du -sb "$dir" | cut -f1) # raw only: measured before symbolizing
		./runstat "$log.sym.stat" "$ROOT/bin/ada-symbolize" -q "$dir" >"$log.sym.out" 2>&1 ||
			{ cat "$log.sym.out" >&2; die "ada-symbolize failed on run $r"; }
		sym=$(field "$log.sym.stat" wall_ns)
		set -- $(ada_manifest "$dir") # six words, split on purpose
		rec=$1 drop=$2 p50=$3 p99=$4 why=$5
		[ "$r" = 1 ] && [ "$c" = ada ] && ADA_CONFIG=$6
		;;
	uftrace-*)
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
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$r" "$wall" "$cpu" "$app" "$wev" \
		"$rec" "$bytes" "$drop" "$p50" "$p99" "$sym" "$why" >>results.tsv
	printf ' %s %.2fs' "$c" "$(awk -v w="$wall" 'BEGIN { print w / 1e9 }')" >&2
}

loadavg() { cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown; }
LOAD0=$(loadavg)
T0=$(date +%s)
note "$RUNS rounds of: $CONFIGS clock-floor; $ITERS iterations ($((4 * ITERS)) events) each"
r=1
while [ "$r" -le "$RUNS" ]; do
	printf 'bench: round %s/%s:' "$r" "$RUNS" >&2
	for c in $CONFIGS; do measure "$c" "$r"; done
	./clockfloor "$CLOCK_READS" >"logs/clock.$r" || die "clockfloor failed"
	printf '%s\t%s\t%s\n' "$r" "$(field "logs/clock.$r" clock_read_ns)" "$(field "logs/clock.$r" min_ns)" >>clock.tsv
	printf ' clock-floor %sns\n' "$(field "logs/clock.$r" clock_read_ns)" >&2
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
	printf 'runs\t%s\n' "$RUNS"
	printf 'clock_reads\t%s\n' "$CLOCK_READS"
	printf 'elapsed\t%s\n' "$ELAPSED"
	printf 'load\t%s at the start, %s at the end\n' "$LOAD0" "$LOAD1"
	printf 'configs\t%s\n' "$CONFIGS"
	printf 'uftrace_note\t%s\n' "$UFTRACE_NOTE"
	printf 'ada_config\t%s\n' "$ADA_CONFIG"
} >meta.tsv
LC_ALL=C awk -f "$BENCH/report.awk" meta.tsv results.tsv clock.tsv uftrace_check.tsv >report.md || die "report failed"
cp report.md "$ROOT/BENCHMARKS.md" || die "cannot write BENCHMARKS.md"
cat report.md
cat budgets.txt
note "raw figures: bench/out/results.tsv; written: BENCHMARKS.md (${ELAPSED}s)"
