# rings.awk - the report's "Ring files" section (see main.awk).

# --- issue 10: ring files against anonymous rings ----------------------------------
function ring_mode(c) { return c ~ /^ring-fentry-/ ? "fentry, index only" : "cyg" }
function ring_kind(c,    k) { k = c; sub(/^ring-[a-z]+-/, "", k); return k }
function rings_section(    i, c, n, row, ok, t, miss, k, target) {
	print "## Ring files"
	print ""
	printf "bench/micro.c, %s iterations (%s events), with each thread's ring in a file of the trace\n", iters, events
	print "directory (ADA_RINGS=trace, the default), in /dev/shm (shm) or in anonymous memory (anon),"
	print "for ada fentry (index only, ADA_DETAIL=off) and ada cyg. *tracer-only CPU* is user+sys of"
	print "the process tree less the plain run's of the same round, ÷ micro's events; *÷ anon* is"
	print "that figure over the anon row's of the same mode **in the same round**, then the median"
	print "(and range) of those ratios, over the rounds in which neither row dropped events (a run"
	print "that dropped events did less work). *app-thread* is micro's loop thread alone. *files left*:"
	print "ring files found after the clean exit (none should be: the writer deletes them)."
	print "*dropped*: the events ada's report at exit on stderr says were not recorded (these runs"
	print "are not symbolized, to keep the benchmark short). A mode's three rows run one after"
	print "another, in an order rotated by one place each round."
	print ""
	header("config|ada|ADA_RINGS|wall s|app-thread CPU ns/event|tracer-only CPU ns/event|÷ anon, same round|dropped|files left")
	n = 1
	for (i = 1; i <= nring; i++) {
		c = rgorder[i]
		cell(++n, 1, c); cell(n, 2, ring_mode(c)); cell(n, 3, ring_kind(c)); cell(n, 4, stat(c, "wall", 3))
		cell(n, 5, stat(c, "app_ev", 1)); cell(n, 6, stat(c, "over_ev", 1))
		cell(n, 7, ring_kind(c) == "anon" ? "1" : ratio_txt(c))
		cell(n, 8, stat(c, "drop", 0)); cell(n, 9, left_by_round(c))
	}
	table()
	target = "≤ ×1.05"
	header("budget|target|measured (median of same-round ratios)|verdict")
	row = 1
	for (i = 1; i <= nring; i++) {
		c = rgorder[i]
		k = ring_kind(c)
		if (k == "anon" || !(ring_anon(c) in seen)) continue
		t = med(c, "ratio_anon")
		ok = t != "" && t <= 1.05
		cell(++row, 1, "CPU per event, " ring_mode(c) ", " k " ÷ anon"); cell(row, 2, target " (within noise)")
		cell(row, 3, ratio_txt(c)); cell(row, 4, t == "" ? "—" : verdict(ok))
		if (t == "") { printf "bench: n/a  %-28s no round in which neither row dropped events\n", "rings: " c " / anon" > "budgets.txt"; continue }
		printf "bench: %s %-28s ×%s (target %s)\n", ok ? "PASS" : "MISS", "rings: " c " / anon", sprintf("%.3f", t), target > "budgets.txt"
	}
	table_if(row)
	print "\"Within noise\" is read as at most 5 % more CPU per event than anonymous rings, on the"
	print "median of the same-round ratios; the ranges show how far single rounds stray on this"
	print "machine. The kernel's writeback of a file ring's dirty pages runs in kernel threads, not"
	print "in the traced process tree, so it is not in these CPU figures (it would show in wall time"
	print "only by competing for the CPUs)."
	if (ignored_any("^ring-", "ADA_RINGS"))
		print "**This build of ada ignored ADA_RINGS** (it printed `unknown variable ADA_RINGS ignored`): every row here ran with its rings in anonymous memory, so the ratios compare a configuration with itself and show only this machine's noise."
	print ""
}
# The same-round ratios to anon, and how many rounds they cover when rounds
# that dropped events (in either row) were left out.
function ratio_txt(c,    n, r, all) {
	n = collect(c, "ratio_anon")
	all = 0
	for (r = 1; r <= nround; r++) if (has[c, r] && has[ring_anon(c), r]) all++
	if (!n) return "— (no round without dropped events)"
	return "×" stat(c, "ratio_anon", 3) (n < all ? " (" n " of " all " rounds: the others dropped events)" : "")
}
function left_by_round(c,    r, s, any) {
	s = ""
	for (r = 1; r <= nround; r++)
		if (has[c, r]) { s = s (s == "" ? "" : ", ") left[c, r]; if (left[c, r] != "0" && left[c, r] != "-") any = 1 }
	return any ? s : "0"
}
