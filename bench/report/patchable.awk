# patchable.awk - the report's "Patchable mode" section (see main.awk):
# issue 14's budgets. Tracing off against the plain build (micro per call,
# Lua and SQLite in CPU), a filter choosing one hot function, the start-up
# pass over every site of speedtest1, and the time from a user's enable to
# the first recorded event (enable.tsv); with their commands for commands.awk.

# --- same-round differences against another configuration ------------------------
# Fills v[] with one value per round in which configurations c and b both
# ran: (x of c − x of b) ÷ k, x being "cpu" (total CPU, ns) or "app" (micro's
# loop thread, ns), k "call" (micro's loop calls: its events ÷ 2) or "rec"
# (the events c recorded). Returns the count.
function pdiff(c, b, what, per,    r, n, d, k) {
	n = 0
	for (r = 1; r <= nround; r++) {
		if (!has[c, r] || !has[b, r]) continue
		d = what == "app" ? app[c, r] - app[b, r] : cpu[c, r] - cpu[b, r]
		k = per == "rec" ? rec[c, r] : wev[c, r] / 2
		if (k !~ /^[0-9.]+$/ || k == 0) continue
		v[++n] = d / k
	}
	sortv(n)
	return n
}
function pmed(c, b, what, per,    n) { n = pdiff(c, b, what, per); return n ? median(n) : "" }
# "median [min–max]" of those, two decimals; "—" if none.
function pstat(c, b, what, per) { return vtxt(pdiff(c, b, what, per), 2) }
# The same-round ratio of c's tracer CPU per recorded event over b to
# fentry mode's (ada-fentry over plain, per event it recorded): v[], count.
function pratio(c, b,    r, n, a, f, w, i) {
	n = 0
	for (r = 1; r <= nround; r++) {
		if (!has[c, r] || !has[b, r] || !has["ada-fentry", r] || !has["plain", r]) continue
		if (rec[c, r] !~ /^[0-9]+$/ || rec[c, r] == 0 || rec["ada-fentry", r] !~ /^[0-9]+$/ || rec["ada-fentry", r] == 0) continue
		a = (cpu[c, r] - cpu[b, r]) / rec[c, r]
		f = (cpu["ada-fentry", r] - cpu["plain", r]) / rec["ada-fentry", r]
		if (f > 0) w[++n] = a / f
	}
	for (i = 1; i <= n; i++) v[i] = w[i]
	sortv(n)
	return n
}
function pratio_stat(c, b,    n) { n = pratio(c, b); return n ? "×" vtxt(n, 2) : "—" }
# Events c recorded, round by round ("120000, 120000").
function rec_by_round(c,    r, s) {
	s = ""
	for (r = 1; r <= nround; r++) if (has[c, r]) s = s (s == "" ? "" : ", ") rec[c, r]
	return s
}
# Whether c recorded exactly k events in every round it ran (k: "half" for
# micro's loop events ÷ 2, or a number).
function rec_exact(c, k,    r, any, want) {
	for (r = 1; r <= nround; r++) {
		if (!has[c, r]) continue
		any = 1
		want = k == "half" ? wev[c, r] / 2 : k
		if (rec[c, r] != want) return 0
	}
	return any
}

function patchable_section() {
	print "## Patchable mode (issue 14)"
	print ""
	print "`adacc --ada-mode=patchable` compiles every function with 5 NOP bytes before its entry and"
	print "2 at it (`-fpatchable-function-entry=7,5`). At start-up the runtime writes a call to its"
	print "entry path into the 5 bytes of each chosen function and, while recording is on, a 2-byte"
	print "jump back to it at the entry; while recording is off the entry holds a 2-byte NOP"
	print "(`66 90`), so the function runs as if untraced. Every figure here is a same-round"
	print "difference or ratio (each round's figure against its baseline's of the same round, then"
	print "the median [min–max] over the rounds)."
	print ""
	if (("patchable-off" in seen) || ("lua-patchable-off" in seen) || ("sql-patchable-off" in seen)) off_text()
	if ("patchable-filter" in seen) filter_text()
	if (("sql-patchable" in seen) || ("lua-patchable" in seen) || ("patchable-on" in seen)) startup_text()
	if (nen) enable_text()
}

# --- tracing off -------------------------------------------------------------------
function off_text(    row, c, ok, i, l, d, p, n) {
	print "### Tracing off"
	print ""
	print "What *off* means for a shipped build is `ADA_TRACE=off` (the rows *-patchable-off): the"
	print "runtime starts, patches every site with its entry a 2-byte NOP, and waits, with its"
	print "recorder, for `ada_enable()`, `ADA_TOGGLE_SIGNAL` or a `trace_on` trigger to turn"
	print "recording on in the running process: the off that can be attached to. The budget is"
	print "judged on it. `ADA_DISABLE=1` (*-patchable-disabled) is shown beside it: the runtime"
	print "does nothing at all, the entries keep gcc's two 1-byte NOPs, and nothing can turn"
	print "tracing on. Both run with `ADA_DYNHOOK=off` but *-off-dynhook, the default's dynamic"
	print "hooks on: every call into a library still goes through ada's hook while recording is"
	print "off, which is not \"all sites NOPs\" (shown, not judged)."
	print ""
	if ("patchable-off" in seen) {
		print "**micro** (bench/micro.c built patchable; a loop call is one of bench_f or bench_g, "
		print "events ÷ 2 calls a run): CPU over the plain build's, ns per call."
		print ""
		header("config|what|app-thread ns/call over plain|total CPU ns/call over plain|budget")
		row = 1
		split("patchable-off patchable-disabled", l, " ")
		for (i = 1; i <= 2; i++) {
			c = l[i]
			if (!(c in seen)) continue
			cell(++row, 1, c); cell(row, 2, c ~ /off$/ ? "ADA_TRACE=off: entries 66 90, runtime waiting" : "ADA_DISABLE=1: runtime idle, gcc's NOPs")
			cell(row, 3, pstat(c, "plain", "app", "call")); cell(row, 4, pstat(c, "plain", "cpu", "call"))
			if (c ~ /off$/) {
				d = pmed(c, "plain", "cpu", "call")
				ok = d != "" && d <= 1
				cell(row, 5, "≤ 1 ns/call " verdict(ok))
				printf "bench: %s %-28s %s ns/call total CPU, %s app-thread, over plain, same round (target ≤ 1 ns)\n", ok ? "PASS" : "MISS", "tracing off (micro)", pstat(c, "plain", "cpu", "call"), pstat(c, "plain", "app", "call") > "budgets.txt"
			} else
				cell(row, 5, "(information)")
		}
		table()
		print "Total CPU holds the runtime's start-up and exit (trace directory, recorder, reading the"
		print "symbol table, patching): paid once a process, over " 2 * meta["iters"] " calls here. The"
		print "app-thread figure is the loop alone; a negative one is the loop running faster than the"
		print "plain build's (code placement: the patchable functions are laid out differently, and one"
		print "2-byte NOP is cheaper than two 1-byte ones)."
		print ""
	}
	n = 0
	for (p = 1; p <= 2; p++) if (((p == 1 ? "lua" : "sql") "-patchable-off") in seen) n++
	if (!n) return
	printf "**Lua and SQLite** (built patchable, workload.lua %s and speedtest1 --size %s: BENCH_LUA_LARGE,\n", meta["lua_large"], meta["sql_large"]
	print "BENCH_SQL_LARGE, larger than the other rows' so that the runtime's start-up, a few ms paid"
	print "once, does not stand for the cost of the NOPs): total CPU against the plain build's of"
	printf "the same size and round (*-plain-large), each row's figure the mean of %s runs a round\n", meta["off_reps"]
	print "(BENCH_OFF_REPS), to smooth this shared machine's swings."
	print ""
	header("config|what|CPU × plain|CPU over plain, ms|budget")
	row = 1
	for (p = 1; p <= 2; p++) {
		split("patchable-off patchable-off-dynhook patchable-disabled", l, " ")
		for (i = 1; i <= 3; i++) {
			c = (p == 1 ? "lua-" : "sql-") l[i]
			if (!(c in seen)) continue
			cell(++row, 1, c); cell(row, 2, desc(l[i]))
			cell(row, 3, "×" rstat(c, base(c), "cpu_ms"))
			cell(row, 4, dstat(c, base(c)))
			if (l[i] == "patchable-off") {
				d = rmed(c, base(c), "cpu_ms")
				ok = d != "" && d <= 1.05
				cell(row, 5, "≤ ×1.05 " verdict(ok))
				printf "bench: %s %-28s CPU ×%s of plain, same round (target ≤ ×1.05)\n", ok ? "PASS" : "MISS", "tracing off (" (p == 1 ? "Lua" : "SQLite") ")", rstat(c, base(c), "cpu_ms") > "budgets.txt"
			} else
				cell(row, 5, "(information)")
		}
	}
	table()
}
# Total CPU of c less b's, same round, ms: "median [min–max]".
function dstat(c, b,    r, n) {
	n = 0
	for (r = 1; r <= nround; r++) if (has[c, r] && has[b, r]) v[++n] = (cpu[c, r] - cpu[b, r]) / 1e6
	sortv(n)
	return vtxt(n, 1)
}

# --- a filter ------------------------------------------------------------------------
function filter_text(    row, ok, d, exact, cold) {
	print "### A filter selecting one hot function"
	print ""
	print "micro with `ADA_FILTER=bench_f` (*patchable-filter*): bench_f is patched and recorded,"
	print "bench_g, called as often, keeps its NOPs. *patchable-filter-cold* sets `ADA_FILTER=main`:"
	print "recording on, neither loop function patched, so its loop calls cost what the filter leaves"
	print "unpatched. *patchable-on* patches every site (no filter). All with `ADA_DETAIL=off`, as"
	print "ada-fentry, the fentry mode they are compared with; ns per recorded event over tracing off"
	print "(patchable-off) for the patchable rows, over plain for ada-fentry, same round."
	print ""
	header("config|events recorded, per round|ns/event recorded, total CPU|app-thread|÷ fentry mode's, same round|ns/call over off (total CPU)")
	row = 1
	if ("patchable-on" in seen) {
		cell(++row, 1, "patchable-on"); cell(row, 2, rec_by_round("patchable-on"))
		cell(row, 3, pstat("patchable-on", "patchable-off", "cpu", "rec")); cell(row, 4, pstat("patchable-on", "patchable-off", "app", "rec"))
		cell(row, 5, pratio_stat("patchable-on", "patchable-off")); cell(row, 6, "—")
	}
	cell(++row, 1, "patchable-filter"); cell(row, 2, rec_by_round("patchable-filter"))
	cell(row, 3, pstat("patchable-filter", "patchable-off", "cpu", "rec")); cell(row, 4, pstat("patchable-filter", "patchable-off", "app", "rec"))
	cell(row, 5, pratio_stat("patchable-filter", "patchable-off")); cell(row, 6, "—")
	if ("patchable-filter-cold" in seen) {
		cell(++row, 1, "patchable-filter-cold"); cell(row, 2, rec_by_round("patchable-filter-cold"))
		cell(row, 3, "—"); cell(row, 4, "—"); cell(row, 5, "—")
		cell(row, 6, pstat("patchable-filter-cold", "patchable-off", "cpu", "call") " (app-thread " pstat("patchable-filter-cold", "patchable-off", "app", "call") ")")
	}
	if ("ada-fentry" in seen) {
		cell(++row, 1, "ada-fentry"); cell(row, 2, rec_by_round("ada-fentry"))
		cell(row, 3, pstat("ada-fentry", "plain", "cpu", "rec")); cell(row, 4, pstat("ada-fentry", "plain", "app", "rec"))
		cell(row, 5, "1"); cell(row, 6, "—")
	}
	table()
	exact = rec_exact("patchable-filter", "half")
	d = pmed("patchable-filter-cold", "patchable-off", "cpu", "call")
	cold = d != "" && d <= 1
	ok = exact && cold
	header("budget|target|measured|verdict")
	cell(2, 1, "A filter selecting one hot function: only its events cost; the rest within noise of off")
	cell(2, 2, "bench_f's events only; unfiltered calls ≤ 1 ns over off")
	cell(2, 3, sprintf("recorded %s bench_f's calls and returns (%s); unfiltered calls %s ns/call over off; bench_f's events %s ns each, %s of fentry mode's", exact ? "exactly" : "NOT only",
		rec_by_round("patchable-filter"), pstat("patchable-filter-cold", "patchable-off", "cpu", "call"), pstat("patchable-filter", "patchable-off", "cpu", "rec"), pratio_stat("patchable-filter", "patchable-off")))
	cell(2, 4, verdict(ok))
	table()
	print "*Within noise* is taken as the off budget's own bound, 1 ns per call: this machine accounts CPU"
	print "time in 4 ms ticks (0.13 ns per call over " 2 * meta["iters"] " calls) and the plain loop moves by"
	print "about a third of a nanosecond per call between rounds."
	print ""
	printf "bench: %s %-28s %s; unfiltered %s ns/call over off (target ≤ 1); bench_f %s ns/event, %s of fentry\n", ok ? "PASS" : "MISS", "filter: one hot function", exact ? "only bench_f's events" : "other events recorded",
		pstat("patchable-filter-cold", "patchable-off", "cpu", "call"), pstat("patchable-filter", "patchable-off", "cpu", "rec"), pratio_stat("patchable-filter", "patchable-off") > "budgets.txt"
}

# --- the start-up pass -------------------------------------------------------------
# The start-up pass ms of c, round by round, in v[]; the count.
function pcollect(c,    r, n) {
	n = 0
	for (r = 1; r <= nround; r++) if (has[c, r] && pstart[c, r] ~ /^[0-9.]+$/) v[++n] = pstart[c, r]
	sortv(n)
	return n
}
function startup_text(    row, c, i, l, n, ok, mx) {
	print "### Patching every site at start-up"
	print ""
	print "The manifest's `patchable.startup_ms`: the runtime's start-up pass, reading each module's"
	print "site table from its file (and its symbol table, when a filter is set) and patching every"
	print "chosen site (all of them here: no filter), from the rows that record (ADA_DETAIL=off,"
	print "ADA_DYNHOOK=off)."
	print ""
	header("config|sites|patched|refused|start-up pass ms|max ms|budget")
	row = 1
	split("sql-patchable lua-patchable patchable-on", l, " ")
	for (i = 1; i <= 3; i++) {
		c = l[i]
		if (!(c in seen)) continue
		n = pcollect(c)
		cell(++row, 1, c); cell(row, 2, psites[c, 1]); cell(row, 3, ppatched[c, 1]); cell(row, 4, prefused[c, 1])
		if (!n) { cell(row, 5, "—"); cell(row, 6, "—"); cell(row, 7, "—"); continue }
		mx = v[n]
		cell(row, 5, vtxt(n, 2)); cell(row, 6, sprintf("%.2f", mx))
		if (c == "sql-patchable") {
			ok = mx <= 50 && psites[c, 1] > 0 && psites[c, 1] == ppatched[c, 1]
			cell(row, 7, "≤ 50 ms, every round " verdict(ok))
			printf "bench: %s %-28s median %.2f ms, max %.2f ms, %s of %s sites patched (target ≤ 50 ms)\n", ok ? "PASS" : "MISS", "patching speedtest1 at start", median(n), mx, ppatched[c, 1], psites[c, 1] > "budgets.txt"
		} else
			cell(row, 7, "(information)")
	}
	table()
	print "Judged on the slowest round: every start-up must be within the budget."
	print ""
}

# --- enabling in a running process -------------------------------------------------
# Latency m (p50, p99 or max, ms) of enable row c, one value per round, in v[].
function ecollect(c, m,    i, n, f) {
	n = 0
	for (i = 1; i <= nen; i++) {
		if (e_conf[i] != c) continue
		f = m == "p50" ? e_p50[i] : m == "p99" ? e_p99[i] : e_max[i]
		if (f !~ /^[0-9]+$/) continue
		v[++n] = f / 1e6
	}
	sortv(n)
	return n
}
function estat(c, m) { return vtxt(ecollect(c, m), 1) }
# Enables seen of those made, round by round ("20/20, 20/20"); every one seen?
function eseen(c,    i, s) {
	s = ""
	for (i = 1; i <= nen; i++) if (e_conf[i] == c) s = s (s == "" ? "" : ", ") e_seen[i] "/" e_enables[i]
	return s
}
function eall(c,    i, any) {
	for (i = 1; i <= nen; i++) if (e_conf[i] == c) { any = 1; if (e_seen[i] != e_enables[i]) return 0 }
	return any
}
function enable_text(    i, j, c, row, ok, mx, dmax, cmd, set) {
	print "### Enabling tracing in a running process"
	print ""
	print "bench/enable_latency.c starts bench/enable_loop.c (patchable, `ADA_TRACE=off`,"
	print "`ADA_DETAIL=off`, `ADA_DYNHOOK=off`), which calls el_hot() once a microsecond, its only"
	printf "instrumented function. %s times a run it waits %s–%s ms, reads CLOCK_BOOTTIME (T0) and runs\n", meta["enable_cycles"], meta["enable_off_ms"], meta["enable_off_ms"] + 9
	printf "the row's enable command, then %s ms later its disable command. After the run it reads\n", meta["enable_on_ms"]
	print "the trace (index.atf, whose timestamps are CLOCK_BOOTTIME nanoseconds: RAW_FORMAT.md §4):"
	print "an enable's latency is its first el_hot CALL at or after T0, less T0 (the command's own"
	print "start included, as for a user); one with no CALL before its disable was not seen. The"
	print "switch goes through the recorder (it rewrites the entries), so the -loaded row runs"
	printf "among the loaded rows' busy processes (%s, one per CPU). A round's p50 and p99 are over\n", meta["spinners"]
	print "its enables (nearest rank); the table gives their median [min–max] over the rounds, and"
	print "the largest of all. *disable, max ms*: the longest a disable took, from its command to"
	print "the last CALL recorded before the next enable (a disable not taken shows as the whole"
	print "off span)."
	print ""
	header("config|enable command|enables seen, per round|p50 ms|p99 ms|max ms|disable, max ms|verdict")
	row = 1
	for (j = 1; j <= nenconf; j++) {
		c = enorder[j]
		mx = ""; dmax = 0; cmd = ""
		for (i = 1; i <= nen; i++) {
			if (e_conf[i] != c) continue
			cmd = e_cmd[i]; set = e_setting[i]
			if (e_dis[i] / 1e6 > dmax) dmax = e_dis[i] / 1e6
			if (e_max[i] ~ /^[0-9]+$/ && (mx == "" || e_max[i] / 1e6 > mx)) mx = e_max[i] / 1e6
		}
		ok = eall(c) && mx != "" && mx <= 100
		cell(++row, 1, c); cell(row, 2, "`" cmd "`" (set == "-" ? "" : " (" set ")") (c ~ /-loaded$/ ? ", busy processes" : ""))
		cell(row, 3, eseen(c)); cell(row, 4, estat(c, "p50")); cell(row, 5, estat(c, "p99"))
		cell(row, 6, mx == "" ? "—" : sprintf("%.1f", mx)); cell(row, 7, sprintf("%.1f", dmax)); cell(row, 8, verdict(ok))
		printf "bench: %s %-28s p50 %s ms, p99 %s ms, max %s ms, seen %s (target every enable ≤ 100 ms)\n", ok ? "PASS" : "MISS", "enable: " c,
			estat(c, "p50"), estat(c, "p99"), mx == "" ? "—" : sprintf("%.1f", mx), eseen(c) > "budgets.txt"
	}
	table()
	print "Budget: every enable takes effect **within 100 ms** (the largest latency of all rounds),"
	print "every enable seen."
	print ""
}

# --- commands (commands.awk) ----------------------------------------------------------
function patchable_builds() {
	if (("patchable-off" in seen) || ("patchable-on" in seen))
		print "bin/adacc --ada-mode=patchable -O2 -Iruntime -o micro_patchable bench/micro.c"
	if (nen) {
		print "bin/adacc --ada-mode=patchable -O2 -o enable_loop bench/enable_loop.c"
		print "gcc -std=gnu11 -O2 -Wall -D_GNU_SOURCE -Itests -o enable_latency bench/enable_latency.c tests/lib/atf_read.c tests/lib/proc.c"
	}
}
function patchable_runs(    iters, j, c, i) {
	iters = meta["iters"]
	if ("patchable-off" in seen) {
		print "patchable-off          ADA_OUTPUT=<fresh dir> ADA_TRACE=off ADA_DYNHOOK=off ./micro_patchable " iters
		print "patchable-disabled     ADA_OUTPUT=<fresh dir> ADA_DISABLE=1 ./micro_patchable " iters
		print "patchable-on           ADA_OUTPUT=<fresh dir> ADA_DETAIL=off ADA_DYNHOOK=off ./micro_patchable " iters
		print "patchable-filter       the same with ADA_FILTER=bench_f"
		print "patchable-filter-cold  the same with ADA_FILTER=main"
	}
	if (("lua-patchable-off" in seen) || ("sql-patchable-off" in seen)) {
		print "*-patchable            rw/ada-patchable/<program>, ADA_DETAIL=off ADA_DYNHOOK=off (the sizes above)"
		print "*-patchable-off        rw/ada-patchable/<program> with ADA_TRACE=off ADA_DYNHOOK=off, -off-dynhook ADA_TRACE=off,"
		print "                       -disabled ADA_DISABLE=1; *-plain-large rw/plain/<program>: workload.lua " meta["lua_large"] ", speedtest1 --size " meta["sql_large"] " --memdb,"
		print "                       these four under runstat -n " meta["off_reps"]
	}
	for (j = 1; j <= nenconf; j++) {
		c = enorder[j]
		for (i = 1; i <= nen; i++) if (e_conf[i] == c) break
		printf "%-22s enable_latency %s %s %s bin/ada-symbolize <fresh dir> '%s' '%s' \\\n", c, meta["enable_cycles"], meta["enable_on_ms"], meta["enable_off_ms"], e_cmd[i], e_disable[i]
		print "                           env ADA_OUTPUT=<dir> ADA_TRACE=off ADA_DETAIL=off ADA_DYNHOOK=off " (e_setting[i] == "-" ? "" : e_setting[i] " ") "./enable_loop" (c ~ /-loaded$/ ? "   (busy processes around it)" : "")
	}
}
