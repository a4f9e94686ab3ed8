# main.awk - BENCHMARKS.md from what run.sh measured: the input files and the
# document's frame (setup, then each section that ran); the sections are in
# the other files of bench/report/, one job each:
#
#   common.awk    statistics over the rounds, markdown tables, shared phrases
#   micro.awk     micro: results, issue 2's and 3's budgets
#   floor.awk     the clock floor and the ring floor (issue 13's ring mode)
#   nested.awk    micro's nested call shape (issue 13)
#   libcall.awk   library calls (the dynamic hooks' cost per call)
#   startup.awk   the dynamic hooks' start-up pass
#   realprogs.awk Lua and SQLite (issue 5's real programs)
#   peers.awk     issue 5's budgets against uftrace and XRay (every workload)
#   loaded.awk    issue 10: the loaded machine
#   recovery.awk  issue 10: recovery after SIGKILL
#   windows.awk   issue 13: the detail windows' cost and trigger-to-disk latency
#   patchable.awk issue 14: patchable mode (tracing off, filters, start-up
#                 pass, enable latency)
#   commands.awk  the commands that were built and run
#
#   awk -f main.awk -f common.awk -f micro.awk ... (every file, main.awk
#       first) meta.tsv results.tsv clock.tsv uftrace_check.tsv \
#       xray_check.tsv failed.tsv kill.tsv windows.tsv enable.tsv
#
# meta.tsv: key<TAB>value. results.tsv: one row per configuration and round
# (header first). clock.tsv: round<TAB>ns per clock read<TAB>its cheapest
# batch<TAB>ns per event of the ring floor<TAB>its cheapest batch. uftrace_check.tsv:
# config<TAB>events from .dat sizes<TAB>events from uftrace report<TAB>
# workload (round 1). xray_check.tsv: mode<TAB>xraycount's events<TAB>
# llvm-xray convert's. failed.tsv: config<TAB>round<TAB>its last stderr line,
# for the runs of another tracer that failed. kill.tsv: one row per
# recovery round (header first; see measure_kill in bench/lib/loaded.sh).
# windows.tsv: one row per trigger_latency run (header first; see
# measure_window in bench/lib/windows.sh). enable.tsv: one row per
# enable_latency run (header first; see measure_enable in
# bench/lib/patchable.sh).
# Every figure is the median over rounds, with [min–max] after it; a figure
# relative to the untraced run (slowdown, tracer-only CPU) is taken against
# the baseline of its workload (plain, nested-plain, lib-plain, start-plain,
# start-now-plain, lua-plain, sql-plain; *plain-small for xray-basic) in the
# same round first; a ratio between two configurations is the median of
# their same-round ratios. The sections of a workload that did not run
# (micro, nested, libcall, startup, lua, sqlite, loaded, recovery, windows, enable: see run.sh) are
# left out.
BEGIN { FS = "\t" }

FILENAME == ARGV[1] { meta[$1] = $2; next }
FILENAME == ARGV[2] && FNR == 1 { next }
FILENAME == ARGV[2] {
	c = $1; r = $2
	if (!(c in seen)) {
		seen[c] = 1
		note_order(c)
	}
	if (r > nround) nround = r
	has[c, r] = 1
	wall[c, r] = $3; cpu[c, r] = $4; app[c, r] = $5; wev[c, r] = $6
	rec[c, r] = $7; bytes[c, r] = $8; drop[c, r] = $9; p50[c, r] = $10; p99[c, r] = $11; sym[c, r] = $12; why[c, r] = $13
	# The dynamic hooks (manifest dynamic_hooks; "-" or absent if none).
	dslots[c, r] = $14; dfuncs[c, r] = $15; dstart[c, r] = $16; dtotal[c, r] = $17; dpass[c, r] = $18; dsrc[c, r] = $19
	# Issue 10: events the threads lost, their waits and the time waited
	# ("-": no such keys in the manifests), the ADA_* variables ada said it
	# ignored.
	tlost[c, r] = $23 == "" ? "-" : $23; waits[c, r] = $24 == "" ? "-" : $24; wns[c, r] = $25 == "" ? "-" : $25
	ignored[c, r] = $26 == "" ? "-" : $26
	# The system part of cpu (the kernel's work for the process tree).
	sys[c, r] = $27 == "" ? "-" : $27
	# Issue 14: patchable mode's sites, patched, refused, start-up pass ms.
	psites[c, r] = $28; ppatched[c, r] = $29; prefused[c, r] = $30; pstart[c, r] = $31
	next
}
FILENAME == ARGV[3] {
	clock[++nclock] = $2; clock_min[nclock] = $3
	if ($4 != "") { ring_ns[$1] = $4; ring_min[$1] = $5; nringf++ }
	next
}
FILENAME == ARGV[4] { ucheck_dat[$1] = $2; ucheck_rep[$1] = $3; next }
FILENAME == ARGV[5] { xcheck_ours[$1] = $2; xcheck_theirs[$1] = $3; next }
FILENAME == ARGV[6] {
	if (!(($1) in seen)) { seen[$1] = 1; note_order($1) }
	nfailed[$1]++; failmsg[$1] = $3
	if ($2 > nround) nround = $2
	next
}
FILENAME == ARGV[7] && FNR == 1 { next }
FILENAME == ARGV[7] {
	nkill++
	k_conf[nkill] = $1; k_round[nkill] = $2; k_ms[nkill] = $3; k_exit[nkill] = $4; k_sym[nkill] = $5
	k_check[nkill] = $6; k_atf[nkill] = $7; k_symns[nkill] = $8; k_threads[nkill] = $9
	k_prog[nkill] = $10; k_trace[nkill] = $11; k_ign[nkill] = $12; k_lost[nkill] = $13; k_why2[nkill] = $14
	if (!($1 in seen)) { seen[$1] = 1; korder[++nkconf] = $1 }
	next
}
FILENAME == ARGV[8] && FNR == 1 { next }
FILENAME == ARGV[8] {
	nwin++
	w_conf[nwin] = $1; w_round[nwin] = $2; w_marks[nwin] = $3; w_seen[nwin] = $4
	w_p50[nwin] = $5; w_p99[nwin] = $6; w_max[nwin] = $7; w_kept[nwin] = $8; w_lost[nwin] = $9
	w_rate[nwin] = $10; w_full[nwin] = $12
	win_seen_conf[$1] = 1
	next
}
FILENAME == ARGV[9] && FNR == 1 { next }
FILENAME == ARGV[9] {
	nen++
	e_conf[nen] = $1; e_round[nen] = $2; e_enables[nen] = $3; e_seen[nen] = $4
	e_p50[nen] = $5; e_p99[nen] = $6; e_max[nen] = $7; e_calls[nen] = $8; e_dis[nen] = $9; e_cmd[nen] = $10
	e_disable[nen] = $11; e_setting[nen] = $12
	if (!($1 in en_seen_conf)) { en_seen_conf[$1] = 1; enorder[++nenconf] = $1 }
	next
}
# The order of each workload's configurations, as first seen.
function note_order(c,    p) {
	if (c ~ /-loaded(-drop)?$/) ldorder[++nloaded] = c
	else if (c ~ /^nested-/) norder[++nnested] = c
	else if (c ~ /^lib-/) lorder[++nlib] = c
	else if (c ~ /^start-/) sorder[++nstart] = c
	else if (c ~ /^(lua|sql)-/) { p = substr(c, 1, 3); rworder[p, ++nrw[p]] = c }
	else order[++nconf] = c
}

END {
	micro = ("plain" in seen) && ("ada" in seen)
	if (!micro && !nnested && !nlib && !nstart && !nrw["lua"] && !nrw["sql"] && !nloaded && !nkill && !nwin && !nen) { print "report.awk: no rows of any workload" > "/dev/stderr"; exit 1 }
	if (nclock) {
		for (i = 1; i <= nclock; i++) v[i] = clock[i]
		sortv(nclock)
		floor_med = median(nclock)
		floor_txt = nclock > 1 ? sprintf("%.2f [%.2f–%.2f]", floor_med, v[1], v[nclock]) : sprintf("%.2f", floor_med)
		floor_best = ""
		for (i = 1; i <= nclock; i++) if (floor_best == "" || clock_min[i] < floor_best) floor_best = clock_min[i]
	}
	iters = meta["iters"]; events = 4 * iters

	print "# Benchmarks"
	print ""
	print "Generated by `make bench` (bench/run.sh) — do not edit by hand; run it again."
	print "A benchmark, not a test: the machine is shared and noisy, so every figure is the"
	print "**median** over rounds with **[min–max]** after it."
	print ""
	print "## Machine and setup"
	print ""
	print "- Date: " meta["date"]
	print "- Machine: " meta["nproc"] " CPUs (nproc), " meta["cpu"] ", " meta["kernel"]
	print "- Load average (1, 5, 15 min): " meta["load"]
	print "- Compiler: " meta["gcc"]
	print "- uftrace: " meta["uftrace"]
	print "- XRay: " meta["clang"] (meta["xray_clock"] == "clock_gettime" ? "; this CPU offers no `rdtscp`, so XRay's runtime reads the time with clock_gettime(CLOCK_REALTIME) instead of the TSC (its \"Missing rdtscp support\" warning)" : "")
	print "- ada: " meta["ada"] "; runtime settings (manifest `config`): " meta["ada_config"]
	if (micro)
		printf "- Workload: bench/micro.c, %s iterations × 4 events = %s events per run (BENCH_ITERS)\n", iters, events
	if (nnested)
		printf "- Workload: bench/micro.c nested (a caller with two leaf callees), %s iterations × 6 events = %s events per run (2 × BENCH_ITERS / 3)\n", meta["nested_iters"], 6 * meta["nested_iters"]
	if (nlib)
		printf "- Workload: bench/libcall.c, %s calls of a library function × 2 events = %s events per run (BENCH_LIB_CALLS)\n", meta["lib_calls"], 2 * meta["lib_calls"]
	if (nrw["lua"])
		printf "- Workload: Lua 5.4 running bench/lua/workload.lua %s (BENCH_LUA_SIZE); xray-basic runs size %s (BENCH_LUA_SMALL)\n", meta["lua_size"], meta["lua_small"]
	if (nrw["sql"])
		printf "- Workload: SQLite 3 speedtest1 --size %s --memdb (BENCH_SQL_SIZE); xray-basic runs --size %s (BENCH_SQL_SMALL)\n", meta["sql_size"], meta["sql_small"]
	if (nstart)
		printf "- Workload: bench/startup.c linked to a library with %s PLT slots (BENCH_SLOTS), %s processes per run (BENCH_START_REPS)\n", meta["slots"], meta["start_reps"]
	if (nloaded)
		printf "- Loaded machine: %s busy processes (bench/spin.c, nproc) around each loaded run; micro %s iterations (BENCH_LOADED_ITERS)\n", meta["spinners"], meta["loaded_iters"]
	if (nwin)
		printf "- Detail windows: bench/trigger_latency.c, %s marks %s ms apart a run (BENCH_WIN_MARKS, BENCH_WIN_INTERVAL_MS), paced %s µs every 512 events (BENCH_WIN_PAUSE_US), ADA_PRE and ADA_POST at their defaults\n", meta["win_marks"], meta["win_interval_ms"], meta["win_pause_us"]
	if (nen)
		printf "- Enable latency: bench/enable_loop.c (patchable), %s enables a run, each %s ms on after %s–%s ms off (BENCH_ENABLE_CYCLES, BENCH_ENABLE_ON_MS, BENCH_ENABLE_OFF_MS)\n", meta["enable_cycles"], meta["enable_on_ms"], meta["enable_off_ms"], meta["enable_off_ms"] + 9
	if (nkill)
		printf "- Recovery: bench/killme.c, %s threads (BENCH_KILL_THREADS), SIGKILL after a random 100–400 ms\n", k_threads[1]
	printf "- Rounds: %s (BENCH_RUNS); each round runs every configuration once, in the order %s%s; %s s of measuring after %s s of building\n", meta["runs"], meta["configs"], nclock ? ", then the clock and ring floors" : "", meta["elapsed"], meta["build_s"]
	if (meta["full"] == "0")
		print "- A partial run (BENCH_CONFIGS): workloads " meta["workloads"]
	if (meta["notes"] != "") print "- Note: " meta["notes"]
	print ""

	if (micro) micro_sections()
	if (nnested) nested_section()
	if (nclock && nnested && !micro) floor_section()
	if (nlib) lib_section()
	if (nstart) start_section()
	if (nrw["lua"]) rw_section("lua", "Lua")
	if (nrw["sql"]) rw_section("sql", "SQLite speedtest1")
	if (nloaded) loaded_section()
	if (nkill) kill_section()
	if (nwin || ("ada-fentry-window" in seen)) windows_section()
	if (nen || ("patchable-off" in seen) || ("lua-patchable-off" in seen) || ("sql-patchable" in seen)) patchable_section()
	commands()
}
