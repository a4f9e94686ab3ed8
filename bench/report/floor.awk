# floor.awk - the floors in the report (see main.awk): the clock floor (one
# read of the tick counter) and the ring floor (a tick read and a 16-byte
# store into a thread-local ring), both from bench/clockfloor.c, with ada's
# app-thread cost against the ring floor, same round, and issue 13's
# ring-mode budget (ada-record-ring <= 1.5x the ring floor).

function floor_section(    i, c, row, a, pl, ok, r, fl) {
	print "## Clock floor and ring floor"
	print ""
	print "ada stamps each event with one read of the tick counter (rdtsc here), so no traced"
	print "thread can pay less per event: the *clock floor*. Ring mode (issue 13: both lanes"
	print "rolling rings in memory, nothing written in steady state) adds one store of the"
	print "event to that: the *ring floor* is a loop doing, per event, one tick read and one"
	print "16-byte store (the ticks and an event word) into a thread-local 16 MiB ring, its"
	print "index masked, and nothing else. bench/clockfloor.c runs each for " meta["floor_events"] " events"
	print "(micro's) once per round, after the configurations, in 10 batches timed in thread"
	print "CPU time like micro's loop; a round's figure is its median batch. *÷ ring floor* is"
	print "the median over rounds of each round's app-thread figure over that round's floor."
	print ""
	if (floor_txt != "")
		printf "- One clock read: **%s ns** (cheapest batch of all rounds: %.2f ns)\n", floor_txt, floor_best
	if (nringf) {
		printf "- Ring floor: **%s ns/event**", stat_rounds(ring_ns)
		printf " (cheapest batch of all rounds: %.2f ns)\n", min_rounds(ring_min)
	}
	if ("ada" in seen) {
		a = med("ada", "app_ev"); pl = med("plain", "app_ev")
		if (a - floor_med >= 0)
			printf "- ada (cyg) app-thread: %.1f ns/event, **%.1f ns above the clock floor**; %.1f ns above the floor plus the plain loop's own %.1f ns/event\n", a, a - floor_med, a - floor_med - pl, pl
		else
			printf "- ada (cyg) app-thread: %.1f ns/event, **at the clock floor**: %.1f ns below its median, within this run's noise\n", a, floor_med - a
	}
	if (floor_med > 10)
		print "- The app-thread budget (10 ns/event) is **below this machine's clock floor**: no hook that reads the clock per event can meet it here."
	print ""
	if (!nringf) return
	header("config|what|app-thread CPU ns/event|÷ ring floor, same round|budget")
	row = 1
	cell(++row, 1, "ring floor"); cell(row, 2, "bench/clockfloor.c: rdtsc + 16-byte thread-local ring store")
	cell(row, 3, stat_rounds(ring_ns)); cell(row, 4, "1"); cell(row, 5, "—")
	split("ada-fentry nested-ada-fentry", fl, " ")
	for (i = 1; i <= 2; i++) {
		c = fl[i]
		if (!(c in seen)) continue
		cell(++row, 1, c)
		cell(row, 2, "stream mode (recorder, files), index lane only" (c ~ /^nested/ ? ", nested shape" : ""))
		cell(row, 3, stat(c, "app_ev", 1)); cell(row, 4, "×" rstat(c, "ring-floor", "app_ev")); cell(row, 5, "(information)")
	}
	# Issue 13's ring mode, in fentry and cyg mode: rows whether or not
	# the runtime has it.
	split("ada-record-ring ada-record-ring-cyg", rl, " ")
	for (i = 1; i <= 2; i++) {
		c = rl[i]
		if (meta["ring_mode"] == "" && !(c in seen)) continue
		cell(++row, 1, c); cell(row, 2, "ring mode (ADA_RECORD=ring), index lane only, " (c ~ /cyg$/ ? "cyg" : "fentry"))
		if (!(c in seen)) {
			cell(row, 3, "not built yet"); cell(row, 4, "—"); cell(row, 5, "≤ ×1.5: not built yet")
			printf "bench: %s %-28s %s\n", "----", "ring mode vs ring floor", "not built yet (the runtime does not accept ADA_RECORD=ring)" > "budgets.txt"
			continue
		}
		r = rmed(c, "ring-floor", "app_ev")
		ok = r != "" && r <= 1.5
		cell(row, 3, stat(c, "app_ev", 1)); cell(row, 4, "×" rstat(c, "ring-floor", "app_ev"))
		cell(row, 5, "≤ ×1.5 " verdict(ok))
		printf "bench: %s %-28s ×%.2f of the ring floor, same round (target ≤ ×1.5)\n", ok ? "PASS" : "MISS", "ring mode (" (c ~ /cyg$/ ? "cyg" : "fentry") ") vs ring floor", r > "budgets.txt"
	}
	table()
	if (meta["ring_mode"] ~ /^not built/) {
		r = meta["ring_mode"]; sub(/^not built yet: */, "", r)
		print "ada-record-ring is issue 13's ring mode, which the runtime does not have yet: a short run with"
		print "ADA_RECORD=ring said `" r "`, so the row was not run. It runs, and"
		print "is judged here, as soon as the runtime accepts the variable."
		print ""
	}
}
# "median [min–max]" over the rounds of a per-round array a (2 decimals).
function stat_rounds(a,    r, n) {
	n = 0
	for (r in a) v[++n] = a[r]
	sortv(n)
	if (n == 1) return sprintf("%.2f", v[1])
	return sprintf("%.2f [%.2f–%.2f]", median(n), v[1], v[n])
}
function min_rounds(a,    r, m) {
	m = ""
	for (r in a) if (m == "" || a[r] + 0 < m) m = a[r] + 0
	return m
}
