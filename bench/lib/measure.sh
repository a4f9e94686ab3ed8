# measure.sh - one measurement, sourced by run.sh: measure runs one
# configuration once under runstat, reads what it recorded (ada's manifests,
# uftrace's and XRay's files) and appends a line to results.tsv; with the
# helpers that read those files.

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
# where the start-up figure came from (see below); then patchable mode's
# (manifest patchable, "-" where absent): sites, patched and refused (those
# of the process with the most sites) and its start-up pass ms (the
# slowest process's).
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
		$1 == "patchable.sites" && $2 + 0 >= psites { psites = $2 + 0; pnew = 1 }
		pnew && $1 == "patchable.patched"  { ppatched = $2 }
		pnew && $1 == "patchable.refused"  { prefused = $2; pnew = 0 }
		$1 == "patchable.startup_ms" && (pstart == "" || $2 + 0 > pstart) { pstart = $2 + 0 }
		function med(a, k,    i, j, t) {
			for (i = 2; i <= k; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
		END {
			printf "%.0f %s %s %s %s %s", ev, seen ? sprintf("%.0f", dr) : "-", p50 == "" ? "-" : p50,
				p99 == "" ? "-" : p99, why == "" ? "-" : why, conf == "" ? "-" : conf
			printf " %.0f %s %s", tlost, wseen ? sprintf("%.0f", wc) : "-", wseen ? sprintf("%.0f", wns) : "-"
			pat = pstart == "" ? " - - - -" : sprintf(" %d %d %d %.3f", psites, ppatched, prefused, pstart)
			if (!n) { print " - - - - - -" pat; exit }
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
			printf " %d %d %.3f %.3f %d %s%s\n", smin, fmin, med(e, n), med(t, n), pmax, src, pat
		}'
}

# results_init: the files measure and measure_kill append to (in bench/out/),
# results.tsv's and kill.tsv's with their header line.
results_init() {
	printf 'config\trun\twall_ns\tcpu_ns\tapp_ns\tevents_workload\tevents_recorded\tbytes\tdropped\tp50_ns\tp99_ns\tsym_wall_ns\tdrop_reasons\tdyn_slots\tdyn_functions\tdyn_startup_ms\tdyn_total_ms\tdyn_passes\tdyn_startup_src\treps\twall_min_ns\twall_max_ns\tlost_threads\twaits\twait_ns\tignored_env\tsys_ns\tpatch_sites\tpatch_patched\tpatch_refused\tpatch_startup_ms\n' >results.tsv
	: >clock.tsv
	: >uftrace_check.tsv
	: >failed.tsv
	printf 'config\trun\tkill_ms\texit_status\tsymbolize_status\tcheck_status\tatfstat_status\tsym_wall_ns\tthreads\tprogram_calls\ttrace_calls\tignored_env\tlost_threads\tdrop_reasons\n' >kill.tsv
}

# The ADA_* variables that ada said, in stderr file $1, it ignored (issue
# 10's, until they are implemented): comma-separated, "-" if none.
ignored_vars() {
	_v=$(grep -o 'unknown variable ADA_[A-Z_]*' "$1" | awk '{ print $3 }' | sort -u | tr '\n' ',' | sed 's/,$//')
	echo "${_v:--}"
}

# measure CONFIG ROUND: runs configuration CONFIG once (round ROUND); a line
# of results.tsv, or of kill.tsv (measure_kill, loaded.sh), or of failed.tsv
# when another tracer failed on a real program.
measure() { # config run
	c=$1 r=$2 dir=$OUT/trace/$1 log=$OUT/logs/$1.$2 reps=1
	rm -rf "$dir"
	xray="patch_premain=true xray_logfile_base=$dir/xray-log. verbosity=0"
	# The loaded rows run another row's command (cc), with the busy
	# processes around it and, -drop, one more setting (extra).
	cc=$c extra= load=0 iters=$ITERS
	case $c in
	window-*) measure_window "$c" "$r"; return ;;
	enable-*) measure_enable "$c" "$r"; return ;;
	*-loaded) cc=${c%-loaded} load=1 ;;
	*-loaded-drop) cc=${c%-loaded-drop} load=1 extra=ADA_ON_FULL=drop ;;
	nested-*) iters=$NESTED_ITERS ;;
	kill-*) measure_kill "$c" "$r"; return ;;
	esac
	[ "$load" = 1 ] && iters=$LOADED_ITERS
	case $cc in
	plain) set -- ./micro_plain "$ITERS" ;;
	plain-small) set -- ./micro_plain "$XB_ITERS" ;;
	ada) set -- env ADA_OUTPUT="$dir" ./micro_ada "$iters" ;;
	ada-fentry) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ./micro_ada_fentry "$iters" ;;
	ada-fentry-detail) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=all ./micro_ada_fentry "$iters" ;;
	ada-fentry-window) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=window ./micro_ada_fentry "$iters" ;;
	ada-fentry-window-mark) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=window ./micro_ada_fentry "$iters" flat "$MARK_EVERY" ;;
	ada-record-ring) set -- env ADA_OUTPUT="$dir" ADA_RECORD=ring ADA_DETAIL=off ./micro_ada_fentry "$iters" ;;
	ada-record-ring-cyg) set -- env ADA_OUTPUT="$dir" ADA_RECORD=ring ADA_DETAIL=off ./micro_ada "$iters" ;;
	# Issue 14: tracing off (sites patched, entries 2-byte NOPs), the
	# runtime doing nothing (entries as gcc left them), every site on,
	# ADA_FILTER choosing one of the loop's two functions, or none of them.
	patchable-off) set -- env ADA_OUTPUT="$dir" ADA_TRACE=off ADA_DYNHOOK=off ./micro_patchable "$iters" ;;
	patchable-disabled) set -- env ADA_OUTPUT="$dir" ADA_DISABLE=1 ./micro_patchable "$iters" ;;
	patchable-on) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ADA_DYNHOOK=off ./micro_patchable "$iters" ;;
	patchable-filter) set -- env ADA_OUTPUT="$dir" ADA_FILTER=bench_f ADA_DETAIL=off ADA_DYNHOOK=off ./micro_patchable "$iters" ;;
	patchable-filter-cold) set -- env ADA_OUTPUT="$dir" ADA_FILTER=main ADA_DETAIL=off ADA_DYNHOOK=off ./micro_patchable "$iters" ;;
	nested-plain) set -- ./micro_plain "$iters" nested ;;
	nested-ada-fentry) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ./micro_ada_fentry "$iters" nested ;;
	nested-ada-fentry-window) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=window ./micro_ada_fentry "$iters" nested ;;
	nested-uftrace-fentry) set -- uftrace record -d "$dir" --no-libcall ./micro_fentry "$iters" nested ;;
	nested-xray-fdr) set -- env XRAY_OPTIONS="xray_mode=xray-fdr $xray" ./micro_xray "$iters" nested ;;
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
		# The tracing-off comparison: larger runs, OFF_REPS of them a round.
		case $v in plain-large | patchable-off* | patchable-disabled) size=$LUA_LARGE reps=$OFF_REPS ;; esac
		set -- "$bin" "$BENCH/lua/workload.lua" "$size"
		case $cc in sql-*)
			size=$SQL_SIZE
			[ "$v" = plain-small ] || [ "$v" = xray-basic ] && size=$SQL_SMALL
			case $v in plain-large | patchable-off* | patchable-disabled) size=$SQL_LARGE ;; esac
			set -- "$OUT/rw/$(variant "$v")/speedtest1" --size "$size" --memdb ;;
		esac
		case $v in
		ada) set -- env ADA_OUTPUT="$dir" ADA_DYNHOOK=off "$@" ;;
		ada-fentry) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ADA_DYNHOOK=off "$@" ;;
		ada-fentry-libcall) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ADA_DYNHOOK=on "$@" ;;
		ada-fentry-detail) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=all ADA_DYNHOOK=off "$@" ;;
		ada-fentry-window) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=window ADA_DYNHOOK=off "$@" ;;
		patchable) set -- env ADA_OUTPUT="$dir" ADA_DETAIL=off ADA_DYNHOOK=off "$@" ;;
		patchable-off) set -- env ADA_OUTPUT="$dir" ADA_TRACE=off ADA_DYNHOOK=off "$@" ;;
		patchable-off-dynhook) set -- env ADA_OUTPUT="$dir" ADA_TRACE=off "$@" ;;
		patchable-disabled) set -- env ADA_OUTPUT="$dir" ADA_DISABLE=1 "$@" ;;
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
	sys=$(field "$log.stat" sys_us)000
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
	bytes=- rec=- drop=- p50=- p99=- sym=- why=- dyn="- - - - - -" pat="- - - -" tlost=- wc=- wns=-
	ign=$(ignored_vars "$log.err")
	case $c in
	*xray-*)
		bytes=$(du -sb "$dir" | cut -f1)
		rec=$(./xraycount "$dir"/xray-log.* | awk '{ print $2 }')
		[ -n "$rec" ] || die "$c (run $r): no XRay log in $dir (see $log.err)"
		;;
	*plain*) ;;
	# Tracing off: nothing recorded, so no trace to symbolize (the runtime
	# makes none), and nothing on disk if it kept to that.
	*patchable-off* | *patchable-disabled)
		bytes=0
		[ -d "$dir" ] && bytes=$(du -sb "$dir" | cut -f1)
		;;
	ada* | nested-ada* | lib-ada* | start-ada | start-now-ada | lua-ada* | sql-ada* | *patchable*)
		bytes=$(du -sb "$dir" | cut -f1) # raw only: measured before symbolizing
		./runstat "$log.sym.stat" "$ROOT/bin/ada-symbolize" -q "$dir" >"$log.sym.out" 2>&1 ||
			{ cat "$log.sym.out" >&2; die "ada-symbolize failed on $c, run $r"; }
		sym=$(field "$log.sym.stat" wall_ns)
		set -- $(ada_manifest "$dir") # nineteen words, split on purpose
		rec=$1 drop=$2 p50=$3 p99=$4 why=$5 tlost=$7 wc=$8 wns=$9
		[ "$r" = 1 ] && [ -z "$ADA_CONFIG" ] && case $c in
			ada | lib-ada | *-ada-fentry | ada-fentry-loaded | *-ada-fentry-loaded) ADA_CONFIG="$6 (of $c)" ;;
		esac
		shift 9
		dyn="$1 $2 $3 $4 $5 $6"
		shift 6
		pat="$*"
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
		case $c in lib-*) w=lib ;; lua-*) w=lua ;; sql-*) w=sql ;; nested-*) w=nested ;; *) w=micro ;; esac
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
	printf '\t%s' $dyn "$reps" "${wmin:--}" "${wmax:--}" "$tlost" "$wc" "$wns" "$ign" "$sys" $pat >>results.tsv
	printf '\n' >>results.tsv
	case $c in
	start-*) printf ' %s %.1fms' "$c" "$(awk -v w="$wall" 'BEGIN { print w / 1e6 }')" >&2 ;;
	*) printf ' %s %.2fs' "$c" "$(awk -v w="$wall" 'BEGIN { print w / 1e9 }')" >&2 ;;
	esac
}
