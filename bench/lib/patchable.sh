# patchable.sh - issue 14's configurations (patchable mode), sourced by
# run.sh: the programs built with adacc --ada-mode=patchable for micro and
# the enable-latency rows, and those rows' measurement (measure_enable).
# The micro, lua and sqlite rows are measure.sh's; the report is
# bench/report/patchable.awk.

# micro built patchable (the micro patchable-* rows), and the enable rows'
# loop (patchable) and driver (with the tests' ATF reader).
build_patchable() {
	if wants 'patchable-*'; then
		build "$ROOT/bin/adacc" --ada-mode=patchable -O2 -I"$ROOT/runtime" -o micro_patchable "$BENCH/micro.c"
	fi
	if [ -n "$ENABLE" ]; then
		build "$ROOT/bin/adacc" --ada-mode=patchable -O2 -o enable_loop "$BENCH/enable_loop.c"
		build gcc -std=gnu11 -O2 -Wall -D_GNU_SOURCE -I"$ROOT/tests" -o enable_latency "$BENCH/enable_latency.c" \
			"$ROOT/tests/lib/atf_read.c" "$ROOT/tests/lib/proc.c"
	fi
}

# enable_row CONFIG: how an enable row turns recording on and off in the
# running process: ROW_ENV (a setting of the process, or nothing), ROW_ON
# and ROW_OFF (commands, "%p" for its pid). One line a mechanism; its rows
# are named in configs.sh (ENABLE_ALL), -loaded the same under load.
enable_row() {
	case ${1%-loaded} in
	enable-signal) ROW_ENV=ADA_TOGGLE_SIGNAL=SIGUSR1 ROW_ON="kill -USR1 %p" ROW_OFF="kill -USR1 %p" ;;
	enable-ctl) ROW_ENV='' ROW_ON="$ROOT/bin/ada-ctl %p enable" ROW_OFF="$ROOT/bin/ada-ctl %p disable" ;;
	*) die "enable_row: no commands for $1" ;;
	esac
}

# enable_init: enable.tsv with its header line.
enable_init() {
	printf 'config\trun\tenables\tseen\tp50_ns\tp99_ns\tmax_ns\tcalls\tdisable_max_ns\tenable_command\tdisable_command\tsetting\n' >enable.tsv
}

# measure_enable CONFIG ROUND: bench/enable_latency.c switching
# enable_loop's recording on and off ENABLE_CYCLES times (ADA_TRACE=off at
# start, ADA_DETAIL=off, ADA_DYNHOOK=off: the loop's clock reads are library
# calls), with the loaded rows' busy processes for -loaded; a line of
# enable.tsv.
measure_enable() { # config run
	c=$1 r=$2 dir=$OUT/trace/$1 log=$OUT/logs/$1.$2
	rm -rf "$dir"
	enable_row "$c"
	st=0
	case $c in *-loaded) spin_start ;; esac
	./enable_latency "$ENABLE_CYCLES" "$ENABLE_ON_MS" "$ENABLE_OFF_MS" "$ROOT/bin/ada-symbolize" "$dir" "$ROW_ON" "$ROW_OFF" \
		env ADA_OUTPUT="$dir" ADA_TRACE=off ADA_DETAIL=off ADA_DYNHOOK=off ${ROW_ENV:+"$ROW_ENV"} ./enable_loop \
		>"$log.out" 2>"$log.err" || st=$?
	spin_stop
	[ "$st" = 0 ] || { cat "$log.err" >&2; die "$c (run $r) failed"; }
	set -- $(awk '$1 == "enable_latency" { print $3, $5, $7, $9, $11, $13, $15 }' "$log.err") # split on purpose
	[ $# = 7 ] || die "$c (run $r): no enable_latency line on stderr (see $log.err)"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$r" "$@" "${ROW_ON#"$ROOT/"}" \
		"${ROW_OFF#"$ROOT/"}" "${ROW_ENV:--}" >>enable.tsv
	rm -rf "$dir"
	sync
	printf ' %s p50 %sms' "$c" "$(awk -v n="$3" 'BEGIN { if (n ~ /^[0-9]+$/) printf "%.1f", n / 1e6; else print n }')" >&2
}
