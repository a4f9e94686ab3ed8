# micro.awk - micro's sections of the report (see main.awk): results, output,
# the floors (floor.awk) and issue 2's and 3's budgets.

# --- micro (issues 2 and 3) ---------------------------------------------------------
function micro_sections() {
	print "## Results"
	print ""
	print "Cost. *app-thread* is the CPU time of micro's loop thread, around the loop only"
	print "(micro prints it). *total CPU* is user+sys of the whole process tree — every thread"
	print "and process, ada's recorder and lz4 compression, uftrace's recorder — taken"
	print "with getrusage(RUSAGE_CHILDREN) (bench/runstat.c), start-up and exit included;"
	print "*raw* divides it by the events, *tracer-only* first subtracts the plain run of the"
	print "same round; *of it sys* is the kernel's part of the raw figure (system time: page"
	print "faults, writes to the trace files, the page cache). Per-event figures divide by the"
	print "workload's " events " events."
	print ""
	cell(1, 1, "config"); cell(1, 2, "wall s"); cell(1, 3, "slowdown wall"); cell(1, 4, "slowdown CPU")
	cell(1, 5, "app-thread CPU ns/event"); cell(1, 6, "total CPU ns/event (raw)"); cell(1, 7, "of it sys ns/event")
	cell(1, 8, "tracer-only CPU ns/event")
	for (i = 1; i <= nconf; i++) {
		c = order[i]
		cell(i + 1, 1, c); cell(i + 1, 2, stat(c, "wall", 3))
		cell(i + 1, 3, c ~ /plain/ ? "1" : "×" stat(c, "wall_x", 1))
		cell(i + 1, 4, c ~ /plain/ ? "1" : "×" stat(c, "cpu_x", 1))
		cell(i + 1, 5, stat(c, "app_ev", 1)); cell(i + 1, 6, stat(c, "cpu_ev", 1)); cell(i + 1, 7, stat(c, "sys_ev", 1))
		cell(i + 1, 8, c ~ /plain/ ? "0" : stat(c, "over_ev", 1))
	}
	table()
	writeback_text(order, nconf, 0)

	print "Output. *on disk* is `du -sb` of the trace directory right after the run: ada's raw"
	print "directory before ada-symbolize, uftrace's whole data directory. *latency* is ada's"
	print "recorded-to-written-to-disk delay (manifest `latency_to_disk`, bucket upper edges, so"
	print "at most 12.5 % high). *symbolize* is `ada-symbolize -q` on the raw trace: recorded"
	print "events ÷ its wall time."
	print ""
	cell(1, 1, "config"); cell(1, 2, "bytes/event on disk"); cell(1, 3, "MB on disk"); cell(1, 4, "events recorded")
	cell(1, 5, "dropped"); cell(1, 6, "latency p50 ms"); cell(1, 7, "latency p99 ms"); cell(1, 8, "symbolize M events/s")
	cell(1, 9, "symbolize s per M events")
	for (i = 1; i <= nconf; i++) {
		c = order[i]
		cell(i + 1, 1, c); cell(i + 1, 2, stat(c, "bytes_ev", 2)); cell(i + 1, 3, stat(c, "mb", 1))
		cell(i + 1, 4, stat(c, "rec", 0)); cell(i + 1, 5, c ~ /^xray/ ? "n/a" : stat(c, "drop", 0))
		cell(i + 1, 6, stat(c, "p50", 1)); cell(i + 1, 7, stat(c, "p99", 1)); cell(i + 1, 8, stat(c, "sym", 1))
		cell(i + 1, 9, stat(c, "sym_spm", 3))
	}
	table()
	print "Events recorded: ada's are the sum of `threads[].events` over the manifests"
	print "ada-symbolize writes (" events " from the loop, plus main, micro's two"
	print "timing calls and the few library calls — clock_gettime, fprintf... — that the"
	print "dynamic hooks record: ADA_DYNHOOK=on, the default); uftrace's are the size of its"
	print "`<tid>.dat` files ÷ 16 (one 16-byte record per entry or exit when no arguments are"
	print "recorded)."
	for (i = 1; i <= nconf; i++) {
		c = order[i]
		if (!(c in ucheck_dat)) continue
		printf "Checked on round 1 against `uftrace report` (calls × 2): %s %s from the files, %s from the report%s.\n", c, ucheck_dat[c], ucheck_rep[c], ucheck_dat[c] == ucheck_rep[c] ? " (equal)" : " (DIFFERENT)"
	}
	print "ada's dropped is the manifests' top-level `dropped`, summed over the reasons that lose"
	print "events; `detail_full` (a detail record not kept, its event kept) is not counted there."
	print "uftrace's dropped is the records its `LOST n records` warnings name (none printed: 0);"
	print "XRay counts no losses of its own (n/a)."
	if ("xray-basic" in seen)
		print "xray-basic runs micro with " meta["xb_iters"] " iterations (BENCH_XRAY_BASIC_ITERS), plain-small is the untraced run of that size, its slowdown's baseline: XRay's basic mode makes two system calls (getpid, gettid) per event."
	xray_check_text()
	print ""

	floor_section()

	print "## Budgets (issue #2)"
	print ""
	print "Verdicts use ada's medians (drops: every round). *uftrace ÷ ada* divides each uftrace"
	print "configuration's median by ada's (for CPU: raw per-event figures)."
	print ""
	ulist = ""
	for (i = 1; i <= nconf; i++) if (order[i] ~ /^uftrace/) ulist = ulist " " order[i]
	nu = split(ulist, us, " ")
	cell(1, 1, "budget"); cell(1, 2, "target"); cell(1, 3, "ada measured"); cell(1, 4, "verdict"); cell(1, 5, "uftrace ÷ ada")
	row = 1
	budget_row(++row, "app-thread CPU", "≤ 10 ns/event", "app_ev", 1, " ns/event", med("ada", "app_ev") <= 10, 1)
	budget_row(++row, "total CPU, all threads (raw)", "≤ 20 ns/event", "cpu_ev", 1, " ns/event", med("ada", "cpu_ev") <= 20, 1)
	cell(row, 3, T[row, 3] sprintf(" (tracer-only %.1f)", med("ada", "over_ev")))
	budget_row(++row, "bytes on disk", "≤ 4 bytes/event", "bytes_ev", 2, " bytes/event", med("ada", "bytes_ev") <= 4, 1)
	budget_row(++row, "events dropped", "0", "drop", 0, "", vmax("ada", "drop") == 0, 0)
	cell(row, 3, drops_by_round())
	budget_row(++row, "ada-symbolize", "≥ 10 M events/s", "sym", 1, " M events/s", med("ada", "sym") >= 10, 0)
	budget_row(++row, "latency to disk, median", "≤ 25 ms", "p50", 1, " ms", med("ada", "p50") <= 25, 0)
	budget_row(++row, "latency to disk, p99", "≤ 250 ms", "p99", 1, " ms", med("ada", "p99") <= 250, 0)
	# Issue 3: the fentry mode, index lane only and with every detail record.
	if ("ada-fentry" in seen)
		mode_row(++row, "fentry app-thread CPU, ADA_DETAIL=off", "≤ 12 ns/event", "ada-fentry", 12, "uftrace-fentry")
	if ("ada-fentry-detail" in seen)
		mode_row(++row, "fentry app-thread CPU, ADA_DETAIL=all", "≤ 40 ns/event", "ada-fentry-detail", 40, "uftrace-fentry-args")
	table()
	budget5("", "micro")
}

# One line of the budget table: metric m of ada against its target, and the
# ratio of each uftrace configuration's median to ada's when ratio is set.
function budget_row(r, name, target, m, p, unit, ok, ratio,    j, s, u) {
	cell(r, 1, name); cell(r, 2, target); cell(r, 3, stat("ada", m, p) unit); cell(r, 4, verdict(ok))
	s = ""
	if (ratio)
		for (j = 1; j <= nu; j++) {
			u = us[j]
			s = s (s == "" ? "" : ", ") sub_name(u) " " x(med(u, m), med("ada", m))
		}
	cell(r, 5, s == "" ? "—" : s)
	printf "bench: %s %-28s %s (target %s)\n", ok ? "PASS" : "MISS", name, m == "drop" ? drops_by_round() : stat("ada", m, p) unit, target > "budgets.txt"
}
# A budget on another ada configuration's app-thread CPU; the ratio column
# compares it with the uftrace run that records the same (peer).
function mode_row(r, name, target, cfg, limit, peer,    ok, s) {
	ok = med(cfg, "app_ev") <= limit
	cell(r, 1, name); cell(r, 2, target); cell(r, 3, stat(cfg, "app_ev", 1) " ns/event")
	cell(r, 4, verdict(ok))
	s = (peer in seen) ? sub_name(peer) " " x(med(peer, "app_ev"), med(cfg, "app_ev")) : "—"
	cell(r, 5, s)
	printf "bench: %s %-28s %s ns/event (target %s)\n", ok ? "PASS" : "MISS", name, stat(cfg, "app_ev", 1), target > "budgets.txt"
}
function sub_name(u) { sub(/^uftrace-/, "", u); return u }

function xray_check_text(    m) {
	for (m in xcheck_ours)
		printf "bench/xraycount.c checked against `llvm-xray convert` on a short micro run, %s: %s and %s function records%s.\n", m, xcheck_ours[m], xcheck_theirs[m], xcheck_ours[m] == xcheck_theirs[m] ? " (equal)" : " (DIFFERENT)"
}
