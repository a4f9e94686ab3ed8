# loaded.sh - issue 10's configurations, sourced by run.sh: the busy processes
# of the loaded rows and the recovery rows' measurement (measure_kill).

# The loaded rows' busy processes (bench/spin.c): started before a measured
# run, killed after it, and by run.sh's traps whatever ends the script.
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

# The recovery check, one round of kill-cyg or kill-fentry: killme under
# ada, SIGKILL after a random 100-400 ms, ada-symbolize (timed),
# ada-symbolize --check, atfstat; a line of kill.tsv.
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
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$r" "$ms" "$kst" "$sst" "$cst" "$ast" \
		"$(field "$log.sym.stat" wall_ns)" "$KILL_THREADS" "${prog:--}" "${trace:--}" "${ign:--}" "${7:--}" "${5:--}" >>kill.tsv
	rm -rf "$dir"
	sync
	printf ' %s %sms' "$c" "$ms" >&2
}
