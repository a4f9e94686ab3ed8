# peers.sh - the other tracers, uftrace and LLVM XRay (clang-14), sourced by
# run.sh: installing them (from Debian, as root: valgrind too, for
# bench/instructions.sh) or leaving their rows out,
# building and checking micro's XRay program, and counting uftrace's events.

# apt_install PACKAGE...: as root with apt-get, quietly; the caller checks.
apt_install() {
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 0
	note "installing $* from Debian"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >/dev/null 2>&1
}

# find_peers: HAVE_UFTRACE and HAVE_XRAY (1: installed, or installed now),
# and a sentence in NOTES for each that is not.
find_peers() {
	command -v uftrace >/dev/null 2>&1 || apt_install uftrace
	HAVE_UFTRACE=0
	if command -v uftrace >/dev/null 2>&1; then
		HAVE_UFTRACE=1
	else
		NOTES="${NOTES}uftrace is not installed and could not be (needs root and apt-get): its rows are left out. "
		note "uftrace not installed: its rows are left out"
	fi
	# callgrind, for bench/instructions.sh (which says so when it is missing)
	command -v valgrind >/dev/null 2>&1 || apt_install valgrind
	command -v clang-14 >/dev/null 2>&1 && command -v llvm-xray-14 >/dev/null 2>&1 || apt_install clang-14 llvm-14
	HAVE_XRAY=0
	if command -v clang-14 >/dev/null 2>&1 && command -v llvm-xray-14 >/dev/null 2>&1; then
		HAVE_XRAY=1
	else
		NOTES="${NOTES}clang-14 and llvm-xray-14 are not installed and could not be (needs root and apt-get): the XRay rows are left out. "
		note "clang-14 not installed: the XRay rows are left out"
	fi
}

# XRay: xrayfdr.o goes into every XRay program (see xrayfdr.c); xraycc.sh is
# the compiler command that adds it when it links. The counter is checked
# against llvm-xray's own reading of both log formats, on a short run.
# Run when any configuration is an XRay one; sets XRAY_CLOCK.
xray_build() {
	build gcc -O2 -Wall -o xraycount "$BENCH/xraycount.c"
	build clang-14 -O2 -c -o xrayfdr.o "$BENCH/xrayfdr.c"
	XRAYCC="clang-14 -O2 -fxray-instrument -fxray-instruction-threshold=1"
	build $XRAYCC -I"$ROOT/runtime" -o micro_xray "$BENCH/micro.c" xrayfdr.o
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
