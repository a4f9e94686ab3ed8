# configs.sh - which configurations run, sourced by run.sh: every
# configuration's name, BENCH_CONFIGS read into them, and the lists the rest
# of the benchmark works from (see select_configs).

# add LIST CONFIG: LIST's words with CONFIG appended unless already there.
add() { case " $1 " in *" $2 "*) echo "$1" ;; *) echo "${1:+$1 }$2" ;; esac; }
# keep LIST ORDER: the words of ORDER that LIST holds, in ORDER's order.
keep() { for c in $2; do case " $1 " in *" $c "*) printf '%s ' "$c" ;; esac; done; }
# Whether any configuration of CONFIGS matches the shell pattern $1.
wants() { for c in $CONFIGS; do case $c in $1) return 0 ;; esac; done; return 1; }

# select_configs: the configurations BENCH_CONFIGS asks for, less those of a
# missing tool (HAVE_UFTRACE, HAVE_XRAY, REALWORLD; NOTES says so), with
# their baselines. Sets CONFIGS (in the order they run), FULL (1: every
# configuration was asked for, and the views and the drain), WORKLOADS,
# VIEWS_RUN (1: run bench/views.sh), DRAIN_RUN (1: run bench/zstd.sh),
# LANES_RUN (1: run bench/lanes.sh) and
# each workload's list: MICRO UFTRACE_CONFIGS XRAY_CONFIGS NESTED LIB
# LIB_UFTRACE START LUA SQL LOADED KILL WIN ENABLE.
select_configs() {
	# ada-record-ring(-cyg): ring mode (ADA_RECORD=ring) in fentry and
	# cyg mode, left out by probe_ring_mode if the runtime refuses it.
	# ada-fentry-window: issue 13's default mode (ADA_DETAIL=window), no
	# trigger; -mark: an ada_mark every MARK_EVERY events.
	# patchable-*: issue 14's patchable mode (bench/lib/patchable.sh).
	PATCHABLE_MICRO="patchable-off patchable-disabled patchable-on patchable-filter patchable-filter-cold"
	MICRO_ALL="plain ada ada-fentry ada-fentry-detail ada-fentry-window ada-fentry-window-mark ada-record-ring ada-record-ring-cyg $PATCHABLE_MICRO uftrace-fentry uftrace-fentry-args uftrace-mcount uftrace-cyg xray-fdr xray-basic plain-small"
	# Issue 13: micro's nested call shape (micro ITERATIONS nested).
	NESTED_ALL="nested-plain nested-ada-fentry nested-ada-fentry-window nested-uftrace-fentry nested-xray-fdr"
	LIB_ALL="lib-plain lib-ada lib-ada-detail lib-uftrace-mcount lib-uftrace-cyg"
	START_ALL="start-plain start-ada-nohook start-ada start-now-plain start-now-ada-nohook start-now-ada"
	# The real programs' configurations, without their lua- or sql- prefix;
	# issue 14's (patchable mode) last, the tracing-off rows with their own
	# larger baseline, plain-large.
	PATCHABLE_RW="patchable plain-large patchable-off patchable-off-dynhook patchable-disabled"
	RW_ALL="plain ada ada-fentry ada-fentry-libcall ada-fentry-detail ada-fentry-window uftrace-fentry uftrace-fentry-libcall uftrace-fentry-args uftrace-mcount uftrace-cyg xray-fdr plain-small xray-basic $PATCHABLE_RW"
	LUA_ALL=$(for c in $RW_ALL; do printf 'lua-%s ' $c; done)
	SQL_ALL=$(for c in $RW_ALL; do printf 'sql-%s ' $c; done)
	# Issue 10: each ada mode under load, with ADA_ON_FULL left at its default
	# (wait) and =drop; the SIGKILL recovery check.
	LOADED_MICRO="ada-loaded ada-loaded-drop ada-fentry-loaded ada-fentry-loaded-drop ada-fentry-detail-loaded ada-fentry-detail-loaded-drop ada-fentry-window-loaded ada-fentry-window-loaded-drop"
	# The real programs: the -drop twin of ada-fentry (index only) only, for time.
	LOADED_RW="ada-loaded ada-fentry-loaded ada-fentry-loaded-drop ada-fentry-detail-loaded"
	LOADED_LUA=$(for c in $LOADED_RW; do printf 'lua-%s ' $c; done)
	LOADED_SQL=$(for c in $LOADED_RW; do printf 'sql-%s ' $c; done)
	KILL_ALL="kill-cyg kill-fentry"
	# Issue 13: a detail window's trigger-to-disk latency (lib/windows.sh's
	# trigger_latency): flat out, paced, and flat out among the busy
	# processes of the loaded rows.
	WIN_ALL="window-latency window-latency-paced window-latency-loaded"
	# Issue 14: switching tracing on in a running process (lib/patchable.sh's
	# enable_row says how each row does it), idle and among the loaded rows'
	# busy processes; the ada-ctl rows left out while bin/ada-ctl is not built.
	ENABLE_ALL="enable-signal enable-signal-loaded enable-ctl enable-ctl-loaded"
	ALL="$MICRO_ALL $NESTED_ALL $LIB_ALL $START_ALL $LUA_ALL $SQL_ALL $LOADED_MICRO $LOADED_LUA $LOADED_SQL $KILL_ALL $WIN_ALL $ENABLE_ALL"
	WANT=
	VIEWS_RUN=0
	DRAIN_RUN=0
	LANES_RUN=0
	for w in ${BENCH_CONFIGS:-micro nested libcall startup lua sqlite loaded lua-loaded sql-loaded recovery windows patchable views drain lanes}; do
		case $w in
		views) VIEWS_RUN=1 ;; # bench/views.sh, after the rounds
		drain) DRAIN_RUN=1 ;; # bench/zstd.sh, after the rounds
		lanes) LANES_RUN=1 ;; # bench/lanes.sh, after the rounds
		micro) WANT="$WANT $MICRO_ALL" ;;
		nested) WANT="$WANT $NESTED_ALL" ;;
		libcall) WANT="$WANT $LIB_ALL" ;;
		startup) WANT="$WANT $START_ALL" ;;
		lua) WANT="$WANT $LUA_ALL" ;;
		sqlite) WANT="$WANT $SQL_ALL" ;;
		xray) WANT="$WANT xray-fdr xray-basic nested-xray-fdr lua-xray-fdr lua-xray-basic sql-xray-fdr sql-xray-basic" ;;
		loaded) WANT="$WANT $LOADED_MICRO" ;;
		lua-loaded) WANT="$WANT $LOADED_LUA" ;;
		sql-loaded) WANT="$WANT $LOADED_SQL" ;;
		recovery) WANT="$WANT $KILL_ALL" ;;
		windows) WANT="$WANT $WIN_ALL" ;;
		enable) WANT="$WANT $ENABLE_ALL" ;;
		patchable) WANT="$WANT $PATCHABLE_MICRO $(for c in $PATCHABLE_RW; do printf 'lua-%s sql-%s ' $c $c; done) $ENABLE_ALL" ;;
		*) case " $ALL " in
			*" $w "*) WANT="$WANT $w" ;;
			*) die "BENCH_CONFIGS: unknown configuration $w (micro nested libcall startup lua sqlite xray loaded lua-loaded sql-loaded recovery windows enable patchable views drain lanes, or one of: $ALL)" ;;
			esac ;;
		esac
	done
	# Every configuration asked for (those of a missing tool too): the report
	# then replaces BENCHMARKS.md.
	NWANT=0
	for c in $ALL; do case " $WANT " in *" $c "*) NWANT=$((NWANT + 1)) ;; esac; done
	FULL=0
	[ "$NWANT" = "$(echo $ALL | wc -w)" ] && [ "$VIEWS_RUN" = 1 ] && [ "$DRAIN_RUN" = 1 ] && [ "$LANES_RUN" = 1 ] && FULL=1
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
	if [ ! -x "$ROOT/bin/ada-ctl" ]; then
		case "$WANT" in *enable-ctl*)
			NOTES="${NOTES}bin/ada-ctl is not built yet: the enable-ctl rows are left out. "
			note "bin/ada-ctl missing: enable-ctl rows left out" ;;
		esac
		WANT=$(for c in $WANT; do case $c in enable-ctl*) ;; *) printf '%s ' $c ;; esac; done)
	fi
	MICRO= NESTED= LIB= START= LUA= SQL= UFTRACE_CONFIGS= XRAY_CONFIGS= LIB_UFTRACE= LOADED= KILL= WIN= ENABLE=
	for c in $WANT; do
		case $c in
		window-*) WIN=$(add "$WIN" $c) ;;
		enable-*) ENABLE=$(add "$ENABLE" $c) ;;
		# Window mode is judged against index-only fentry, same round.
		nested-ada-fentry-window) NESTED=$(add "$(add "$(add "$NESTED" nested-plain)" nested-ada-fentry)" $c) ;;
		nested-*) NESTED=$(add "$(add "$NESTED" nested-plain)" $c) ;;
		*-loaded | *-loaded-drop) LOADED=$(add "$LOADED" $c) ;;
		kill-*) KILL=$(add "$KILL" $c) ;;
		plain | ada) MICRO=$(add "$MICRO" plain); MICRO=$(add "$MICRO" ada) ;;
		ada-fentry | ada-fentry-detail | ada-record-ring*) MICRO=$(add "$(add "$(add "$MICRO" plain)" ada)" $c) ;;
		ada-fentry-window*) MICRO=$(add "$(add "$(add "$(add "$MICRO" plain)" ada)" ada-fentry)" $c) ;;
		# Judged against plain, tracing off and fentry mode, same round.
		patchable-*) MICRO=$(add "$(add "$(add "$(add "$(add "$MICRO" plain)" ada)" ada-fentry)" patchable-off)" $c) ;;
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
			case $c in $p-patchable-off* | $p-patchable-disabled) l=$(add "$l" $p-plain-large) ;; esac
			eval "$(echo $p | tr a-z A-Z)=\$l" ;;
		esac
	done
	# libcall, startup, lua and sqlite run in a fixed order: the baseline first,
	# ada, uftrace, XRay; micro's XRay rows after its uftrace rows, the small
	# baseline just before xray-basic.
	LIB=$(keep "$LIB" "$LIB_ALL") LIB_UFTRACE=$(keep "$LIB_UFTRACE" "$LIB_ALL") START=$(keep "$START" "$START_ALL")
	XRAY_CONFIGS=$(keep "$XRAY_CONFIGS" "xray-fdr plain-small xray-basic")
	LUA=$(keep "$LUA" "$LUA_ALL") SQL=$(keep "$SQL" "$SQL_ALL") NESTED=$(keep "$NESTED" "$NESTED_ALL")
	LOADED=$(keep "$LOADED" "$LOADED_MICRO $LOADED_LUA $LOADED_SQL") KILL=$(keep "$KILL" "$KILL_ALL")
	WIN=$(keep "$WIN" "$WIN_ALL") ENABLE=$(keep "$ENABLE" "$ENABLE_ALL")
	CONFIGS=$(echo $MICRO $UFTRACE_CONFIGS $XRAY_CONFIGS $NESTED $LIB $LIB_UFTRACE $START $LUA $SQL $LOADED $KILL $WIN $ENABLE)
	# Workloads run, for the report.
	WORKLOADS=
	[ -n "$MICRO" ] && WORKLOADS="micro"
	[ -n "$NESTED" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }nested"
	[ -n "$LIB" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }libcall"
	[ -n "$START" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }startup"
	[ -n "$LUA" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }lua"
	[ -n "$SQL" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }sqlite"
	[ -n "$LOADED" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }loaded"
	[ -n "$KILL" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }recovery"
	[ -n "$WIN" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }windows"
	[ -n "$ENABLE" ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }enable"
	[ "$VIEWS_RUN" = 1 ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }views"
	[ "$DRAIN_RUN" = 1 ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }drain"
	[ "$LANES_RUN" = 1 ] && WORKLOADS="${WORKLOADS:+$WORKLOADS }lanes"
}

# probe_ring_mode: whether the runtime accepts ADA_RECORD=ring (issue 13's
# ring mode, being written): a short micro_ada_fentry run with it must exit 0
# and say nothing about ADA_RECORD on stderr (the runtime warns "unknown
# variable ADA_RECORD ignored" until then). Sets RING_MODE to "built" or to
# "not built yet" and what ada said; when not built, ada-record-ring leaves
# CONFIGS and MICRO (its row is reported as not built, with no figure).
probe_ring_mode() {
	case " $CONFIGS " in *" ada-record-ring"*) ;; *) RING_MODE= ; return ;; esac
	_d=$OUT/trace/ring-probe
	rm -rf "$_d"
	if env ADA_OUTPUT="$_d" ADA_RECORD=ring ADA_DETAIL=off ./micro_ada_fentry 1000 >logs/ring-probe.out 2>logs/ring-probe.err &&
		! grep -q ADA_RECORD logs/ring-probe.err; then
		RING_MODE=built
	else
		RING_MODE="not built yet: $(grep -m 1 . logs/ring-probe.err || echo "micro_ada_fentry failed with ADA_RECORD=ring")"
		CONFIGS=$(echo $(for c in $CONFIGS; do case $c in ada-record-ring*) ;; *) echo "$c" ;; esac; done))
		MICRO=$(echo $(for c in $MICRO; do case $c in ada-record-ring*) ;; *) echo "$c" ;; esac; done))
	fi
	rm -rf "$_d"
}
