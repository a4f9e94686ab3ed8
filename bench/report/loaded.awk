# loaded.awk - the report's "Loaded machine" section (see main.awk).

# --- issue 10: the loaded machine -------------------------------------------------
# The workload, the ada mode and ADA_ON_FULL of a loaded row.
function ld_workload(c) { return c ~ /^lua-/ ? "Lua" : c ~ /^sql-/ ? "SQLite" : "micro" }
function ld_mode(c,    v) {
	v = c; sub(/^(lua|sql)-/, "", v); sub(/-loaded(-drop)?$/, "", v)
	if (v == "ada") return "cyg"
	if (v == "ada-fentry") return "fentry, index only"
	if (v == "ada-fentry-detail") return "fentry, ADA_DETAIL=all"
	if (v == "ada-fentry-window") return "fentry, ADA_DETAIL=window"
	return v
}
function ld_onfull(c) { return c ~ /-drop$/ ? "drop" : "wait (default)" }
# Events the threads lost, round by round, with their reasons.
function lost_by_round(c,    r, s) {
	s = ""
	for (r = 1; r <= nround; r++)
		if (has[c, r])
			s = s (s == "" ? "" : ", ") tlost[c, r] (tlost[c, r] != "0" && why[c, r] != "-" && why[c, r] != "" ? " (" why[c, r] ")" : "")
	return s
}
# Whether any round of a row matching pattern p said it ignored variable e.
function ignored_any(p, e,    i, c, r, list, n) {
	for (c in seen) {
		if (c !~ p) continue
		for (r = 1; r <= nround; r++) if (has[c, r] && index("," ignored[c, r] ",", "," e ",")) return 1
	}
	return 0
}

function loaded_section(    i, c, n, row, ok, miss, nowaits, anywaits, dropped_drop) {
	print "## Loaded machine"
	print ""
	printf "ada under load: %s busy processes (bench/spin.c, one per CPU) start just before each of\n", meta["spinners"]
	print "these runs and are killed just after it, so the traced program, its recorder and"
	print "lz4 share the CPUs with them (their own CPU is not the run's). micro runs"
	printf "%s iterations (BENCH_LOADED_ITERS); Lua and SQLite (lua-, sql-) their usual sizes\n", meta["loaded_iters"]
	print "(BENCH_LUA_SIZE, BENCH_SQL_SIZE) with ADA_DYNHOOK=off, as in their own sections."
	print "ADA_ON_FULL is left at its default, wait (a thread whose ring is full waits for the"
	print "writer), in the rows without a suffix, and set to drop in the `-drop` rows, for contrast."
	print "*lost* is the sum over the manifests' `threads[].dropped` reasons, `detail_full` excepted"
	print "(a detail record not kept, its event kept), round by round with the reasons; *waits* and"
	print "*waited* are the manifests' per-thread waits (" meta["waits_keys"] "), summed over"
	print "the threads; *share of wall* is the time waited ÷ the run's wall time."
	print ""
	header("config|workload|ada|ADA_ON_FULL|wall s|events recorded|events lost, per round|waits|waited ms|share of wall %|verdict")
	n = 1
	for (i = 1; i <= nloaded; i++) {
		c = ldorder[i]
		cell(++n, 1, c); cell(n, 2, ld_workload(c)); cell(n, 3, ld_mode(c)); cell(n, 4, ld_onfull(c))
		cell(n, 5, stat(c, "wall", 3)); cell(n, 6, stat(c, "rec", 0)); cell(n, 7, lost_by_round(c))
		if (collect(c, "wait_ms")) {
			anywaits = 1
			cell(n, 8, stat(c, "waits", 0)); cell(n, 9, stat(c, "wait_ms", 1)); cell(n, 10, stat(c, "wait_pct", 1))
		} else {
			nowaits = 1
			cell(n, 8, "—"); cell(n, 9, "—"); cell(n, 10, "—")
		}
		if (c ~ /-drop$/) {
			cell(n, 11, "— (contrast)")
			if (vmax(c, "tlost") > 0) dropped_drop = 1
		} else {
			ok = collect(c, "tlost") > 0 && vmax(c, "tlost") == 0 && vmin(c, "rec") > 0
			cell(n, 11, verdict(ok))
			if (!ok) miss = miss (miss == "" ? "" : ", ") c
			printf "bench: %s %-28s lost per round: %s (target 0)\n", ok ? "PASS" : "MISS", "loaded: " c, lost_by_round(c) > "budgets.txt"
		}
	}
	table()
	print "Budget: **0 events lost in every mode** with ADA_ON_FULL=wait (the default), every round:"
	print (miss == "" ? "**PASS**" : "**MISS** (" miss ")") "."
	if (ignored_any("-loaded(-drop)?$", "ADA_ON_FULL"))
		print "**This build of ada ignored ADA_ON_FULL** (it printed `unknown variable ADA_ON_FULL ignored`): it predates issue 10's backpressure, so the rows without a suffix ran as the `-drop` rows do, dropping what a full ring could not hold."
	if (nowaits && !anywaits)
		print "The manifests hold no per-thread waits (`" meta["waits_keys"] "`): a build before ADA_ON_FULL=wait, or the keys were renamed (run.sh's WAITS_COUNT_KEY and WAITS_NS_KEY name them)."
	else if (nowaits)
		print "Rows with — in *waits* had no waits in their manifests (`" meta["waits_keys"] "`)."
	if (miss != "")
		print "`ring_full` losses mean a thread found its ring full and did not wait for the writer: with backpressure (ADA_ON_FULL=wait) there should be none, whatever the load."
	if (dropped_drop)
		print "The `-drop` rows lose events by design when the writer, sharing the CPUs with the busy processes, does not drain a ring before its thread fills it."
	print ""
}
