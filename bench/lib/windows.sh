# windows.sh - issue 13's detail windows, sourced by run.sh: the trigger-to-
# disk latency rows, bench/trigger_latency.c marking WIN_MARKS moments
# WIN_INTERVAL_MS apart and timing each window's WINDOW record into
# process.meta; a line of windows.tsv per run. window-latency runs its loop
# flat out, window-latency-paced sleeps WIN_PAUSE_US every 512 events (a
# program the writer keeps up with), window-latency-loaded runs flat out
# among the loaded rows' busy processes. (The window mode's cost is micro's
# ada-fentry-window rows, measure.sh.)

build_trigger_latency() {
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -I"$ROOT/runtime" -o trigger_latency "$BENCH/trigger_latency.c"
}

# windows_init: windows.tsv with its header line.
windows_init() {
	printf 'config\trun\tmarks\tseen\tp50_ns\tp99_ns\tmax_ns\tkept\tlost\tevents_per_s\twall_ns\tdetail_full\tignored_env\n' >windows.tsv
}

# measure_window CONFIG ROUND: trigger_latency under ada's defaults
# (ADA_DETAIL=window, ADA_PRE and ADA_POST 2000 events), with the loaded
# rows' busy processes for window-latency-loaded.
measure_window() { # config run
	c=$1 r=$2 dir=$OUT/trace/$1 log=$OUT/logs/$1.$2 pause=0
	rm -rf "$dir"
	st=0
	case $c in *-paced) pause=$WIN_PAUSE_US ;; esac
	case $c in *-loaded) spin_start ;; esac
	./runstat "$log.stat" env ADA_OUTPUT="$dir" ADA_DETAIL=window ./trigger_latency "$WIN_MARKS" "$WIN_INTERVAL_MS" "$pause" \
		>"$log.out" 2>"$log.err" || st=$?
	spin_stop
	[ "$st" = 0 ] || { cat "$log.err" >&2; die "$c (run $r) failed"; }
	set -- $(awk '$1 == "trigger_latency" { print $3, $5, $7, $9, $11, $13, $15, $17 }' "$log.err") # split on purpose
	[ $# = 8 ] || die "$c (run $r): no trigger_latency line on stderr (see $log.err)"
	# Window records the writer could not keep ("detail records not kept:
	# N (detail_full...)" at exit), 0 when ada said nothing.
	full=$(sed -n 's/.*detail records not kept: \([0-9][0-9]*\).*/\1/p' "$log.err" | head -n 1)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$r" "$@" \
		"$(field "$log.stat" wall_ns)" "${full:-0}" "$(ignored_vars "$log.err")" >>windows.tsv
	rm -rf "$dir"
	sync
	printf ' %s p50 %sms' "$c" "$(awk -v n="$3" 'BEGIN { if (n ~ /^[0-9]+$/) printf "%.1f", n / 1e6; else print n }')" >&2
}
