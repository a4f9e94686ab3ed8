# report.awk - BENCHMARKS.md from what run.sh measured.
#
#   awk -f report.awk meta.tsv results.tsv clock.tsv uftrace_check.tsv
#
# meta.tsv: key<TAB>value. results.tsv: one row per configuration and round
# (header first). clock.tsv: round<TAB>ns per clock read. uftrace_check.tsv:
# config<TAB>events from .dat sizes<TAB>events from uftrace report (round 1).
# Every figure is the median over rounds, with [min–max] after it; a figure
# relative to the untraced run (slowdown, tracer-only CPU) is taken against
# the baseline of its workload (plain, lib-plain, start-plain or
# start-now-plain) in the same round first. The sections of a workload that
# did not run (micro, libcall, startup: see run.sh) are left out.
BEGIN { FS = "\t" }

FILENAME == ARGV[1] { meta[$1] = $2; next }
FILENAME == ARGV[2] && FNR == 1 { next }
FILENAME == ARGV[2] {
	c = $1; r = $2
	if (!(c in seen)) {
		seen[c] = 1
		if (c ~ /^lib-/) lorder[++nlib] = c
		else if (c ~ /^start-/) sorder[++nstart] = c
		else order[++nconf] = c
	}
	if (r > nround) nround = r
	has[c, r] = 1
	wall[c, r] = $3; cpu[c, r] = $4; app[c, r] = $5; wev[c, r] = $6
	rec[c, r] = $7; bytes[c, r] = $8; drop[c, r] = $9; p50[c, r] = $10; p99[c, r] = $11; sym[c, r] = $12; why[c, r] = $13
	# The dynamic hooks (manifest dynamic_hooks; "-" or absent if none).
	dslots[c, r] = $14; dfuncs[c, r] = $15; dstart[c, r] = $16; dtotal[c, r] = $17; dpass[c, r] = $18; dsrc[c, r] = $19
	next
}
FILENAME == ARGV[3] { clock[++nclock] = $2; clock_min[nclock] = $3; next }
FILENAME == ARGV[4] { ucheck_dat[$1] = $2; ucheck_rep[$1] = $3; next }

# --- statistics over the rounds held in v[1..n] ---------------------------------
function sortv(n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
}
# The untraced run c is measured against, in the same round.
function base(c) {
	if (c ~ /^lib-/) return "lib-plain"
	if (c ~ /^start-now-/) return "start-now-plain"
	if (c ~ /^start-/) return "start-plain"
	return "plain"
}
# Fills v[] with metric m of config c, one value per round; returns the count.
function collect(c, m,    r, n, pw, pc, b, calls) {
	n = 0
	b = base(c)
	for (r = 1; r <= nround; r++) {
		if (!has[c, r]) continue
		# nodrop set: only the rounds in which c lost no event.
		if (nodrop && drop[c, r] != "-" && drop[c, r] > 0) continue
		pw = wall[b, r]; pc = cpu[b, r]
		# The library-call and start-up workloads' own figures.
		if (m ~ /^(over_call|over_call_ev|cpu_over_call|d_base_ms)$/ && !has[b, r]) continue
		if (m == "d_nohook_ms" && !has[c "-nohook", r]) continue
		if (m ~ /^dyn_/ && (dstart[c, r] == "" || dstart[c, r] == "-")) return 0
		calls = wev[c, r] / 2
		if (m == "app_call") { v[++n] = app[c, r] / calls; continue }
		if (m == "over_call") { v[++n] = (app[c, r] - app[b, r]) / calls; continue }
		if (m == "over_call_ev") { v[++n] = (app[c, r] - app[b, r]) / wev[c, r]; continue }
		if (m == "cpu_over_call") { v[++n] = (cpu[c, r] - pc) / calls; continue }
		if (m == "ms") { v[++n] = wall[c, r] / 1e6; continue }
		if (m == "cpu_ms") { v[++n] = cpu[c, r] / 1e6; continue }
		if (m == "d_base_ms") { v[++n] = (wall[c, r] - pw) / 1e6; continue }
		if (m == "d_nohook_ms") { v[++n] = (wall[c, r] - wall[c "-nohook", r]) / 1e6; continue }
		if (m == "dyn_start") { v[++n] = dstart[c, r]; continue }
		if (m == "dyn_slots") { v[++n] = dslots[c, r]; continue }
		if (m == "dyn_funcs") { v[++n] = dfuncs[c, r]; continue }
		if (m == "wall") v[++n] = wall[c, r] / 1e9
		else if (m == "wall_x") v[++n] = wall[c, r] / pw
		else if (m == "cpu_x") v[++n] = cpu[c, r] / pc
		else if (m == "app_ev") v[++n] = app[c, r] / wev[c, r]
		else if (m == "cpu_ev") v[++n] = cpu[c, r] / wev[c, r]
		else if (m == "over_ev") v[++n] = (cpu[c, r] - pc) / wev[c, r]
		else if (bytes[c, r] == "-") return 0
		else if (m == "bytes_ev") v[++n] = bytes[c, r] / wev[c, r]
		else if (m == "mb") v[++n] = bytes[c, r] / 1e6
		else if (m == "rec") v[++n] = rec[c, r]
		else if (drop[c, r] == "-" && m == "drop") return 0
		else if (m == "drop") v[++n] = drop[c, r]
		else if (p50[c, r] == "-") return 0
		else if (m == "p50") v[++n] = p50[c, r] / 1e6
		else if (m == "p99") v[++n] = p99[c, r] / 1e6
		else if (m == "sym") v[++n] = rec[c, r] / (sym[c, r] / 1e9) / 1e6
	}
	sortv(n)
	return n
}
function median(n) { return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
# "median [min–max]" of metric m of config c with p decimals; "—" if none.
function stat(c, m, p,    n, f) {
	n = collect(c, m)
	if (!n) return "—"
	f = "%." p "f"
	if (n == 1 || sprintf(f, v[1]) == sprintf(f, v[n])) return sprintf(f, median(n))
	return sprintf(f " [" f "–" f "]", median(n), v[1], v[n])
}
function med(c, m,    n) { n = collect(c, m); return n ? median(n) : "" }
function vmax(c, m,    n) { n = collect(c, m); return n ? v[n] : "" }
function vmin(c, m,    n) { n = collect(c, m); return n ? v[1] : "" }

# --- markdown tables, padded so they also read as plain text ----------------------
function cell(r, k, s) { T[r, k] = s; if (r > trows) trows = r; if (k > tcols) tcols = k }
function table(    r, k, w, line, sep) {
	for (k = 1; k <= tcols; k++) {
		w[k] = 3
		for (r = 1; r <= trows; r++) if (ulen(T[r, k]) > w[k]) w[k] = ulen(T[r, k])
	}
	for (r = 1; r <= trows; r++) {
		line = "|"
		for (k = 1; k <= tcols; k++) line = line " " pad(T[r, k], w[k], k > 1) " |"
		print line
		if (r == 1) {
			sep = "|"
			for (k = 1; k <= tcols; k++) sep = sep " " dashes(w[k], k > 1) " |"
			print sep
		}
	}
	print ""
	split("", T); trows = tcols = 0
}
# Length in characters, counting a UTF-8 sequence once (awk may count bytes).
function ulen(s,    t) { t = s; gsub(/[\200-\277]/, "", t); return length(t) }
function pad(s, w, right,    f) {
	f = s
	while (ulen(f) < w) f = right ? " " f : f " "
	return f
}
function dashes(w, right,    s) {
	s = ""
	while (length(s) < w - 1) s = s "-"
	return right ? s ":" : s "-"
}
function verdict(ok) { return ok ? "**PASS**" : "**MISS**" }
function x(a, b) { return (a == "" || b == "" || b == 0) ? "—" : sprintf("×%.1f", a / b) }

END {
	micro = ("plain" in seen) && ("ada" in seen)
	if (!micro && !nlib && !nstart) { print "report.awk: no rows of any workload" > "/dev/stderr"; exit 1 }
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
	print "- ada: " meta["ada"] "; runtime settings (manifest `config`): " meta["ada_config"]
	if (micro)
		printf "- Workload: bench/micro.c, %s iterations × 4 events = %s events per run (BENCH_ITERS)\n", iters, events
	if (nlib)
		printf "- Workload: bench/libcall.c, %s calls of a library function × 2 events = %s events per run (BENCH_LIB_CALLS)\n", meta["lib_calls"], 2 * meta["lib_calls"]
	if (nstart)
		printf "- Workload: bench/startup.c linked to a library with %s PLT slots (BENCH_SLOTS), %s processes per run (BENCH_START_REPS)\n", meta["slots"], meta["start_reps"]
	printf "- Rounds: %s (BENCH_RUNS); each round runs every configuration once, in the order %s%s; %s s in all\n", meta["runs"], meta["configs"], micro ? ", then the clock floor" : "", meta["elapsed"]
	if (meta["full"] == "0")
		print "- A partial run (BENCH_CONFIGS): workloads " meta["workloads"]
	if (meta["uftrace_note"] != "") print "- Note: " meta["uftrace_note"]
	print ""

	if (micro) micro_sections()
	if (nlib) lib_section()
	if (nstart) start_section()
	commands()
}

# --- micro (issues 2 and 3) ---------------------------------------------------------
function micro_sections() {
	print "## Results"
	print ""
	print "Cost. *app-thread* is the CPU time of micro's loop thread, around the loop only"
	print "(micro prints it). *total CPU* is user+sys of the whole process tree — every thread"
	print "and process, ada's writer thread and lz4 compression, uftrace's recorder — taken"
	print "with getrusage(RUSAGE_CHILDREN) (bench/runstat.c), start-up and exit included;"
	print "*raw* divides it by the events, *tracer-only* first subtracts the plain run of the"
	print "same round. Per-event figures divide by the workload's " events " events."
	print ""
	cell(1, 1, "config"); cell(1, 2, "wall s"); cell(1, 3, "slowdown wall"); cell(1, 4, "slowdown CPU")
	cell(1, 5, "app-thread CPU ns/event"); cell(1, 6, "total CPU ns/event (raw)"); cell(1, 7, "tracer-only CPU ns/event")
	for (i = 1; i <= nconf; i++) {
		c = order[i]
		cell(i + 1, 1, c); cell(i + 1, 2, stat(c, "wall", 3))
		cell(i + 1, 3, c == "plain" ? "1" : "×" stat(c, "wall_x", 1))
		cell(i + 1, 4, c == "plain" ? "1" : "×" stat(c, "cpu_x", 1))
		cell(i + 1, 5, stat(c, "app_ev", 1)); cell(i + 1, 6, stat(c, "cpu_ev", 1))
		cell(i + 1, 7, c == "plain" ? "0" : stat(c, "over_ev", 1))
	}
	table()

	print "Output. *on disk* is `du -sb` of the trace directory right after the run: ada's raw"
	print "directory before ada-symbolize, uftrace's whole data directory. *latency* is ada's"
	print "recorded-to-written-to-disk delay (manifest `latency_to_disk`, bucket upper edges, so"
	print "at most 12.5 % high). *symbolize* is `ada-symbolize -q` on the raw trace: recorded"
	print "events ÷ its wall time."
	print ""
	cell(1, 1, "config"); cell(1, 2, "bytes/event on disk"); cell(1, 3, "MB on disk"); cell(1, 4, "events recorded")
	cell(1, 5, "dropped"); cell(1, 6, "latency p50 ms"); cell(1, 7, "latency p99 ms"); cell(1, 8, "symbolize M events/s")
	for (i = 1; i <= nconf; i++) {
		c = order[i]
		cell(i + 1, 1, c); cell(i + 1, 2, stat(c, "bytes_ev", 2)); cell(i + 1, 3, stat(c, "mb", 1))
		cell(i + 1, 4, stat(c, "rec", 0)); cell(i + 1, 5, c ~ /^uftrace/ ? "n/a" : stat(c, "drop", 0))
		cell(i + 1, 6, stat(c, "p50", 1)); cell(i + 1, 7, stat(c, "p99", 1)); cell(i + 1, 8, stat(c, "sym", 1))
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
	print "uftrace reports no drop count of its own (n/a)."
	print ""

	print "## Clock floor"
	print ""
	print "ada stamps each event with one read of the tick counter (rdtsc here), so no traced"
	print "thread can pay less per event. bench/clockfloor.c times " meta["clock_reads"] " back-to-back reads"
	print "once per round, in 10 batches, in thread CPU time like micro's loop; a round's"
	print "figure is its median batch."
	print ""
	a = med("ada", "app_ev"); pl = med("plain", "app_ev")
	printf "- One clock read: **%s ns** (cheapest batch of all rounds: %.2f ns)\n", floor_txt, floor_best
	if (a - floor_med >= 0)
		printf "- ada app-thread: %.1f ns/event, **%.1f ns above the clock floor**; %.1f ns above the floor plus the plain loop's own %.1f ns/event\n", a, a - floor_med, a - floor_med - pl, pl
	else
		printf "- ada app-thread: %.1f ns/event, **at the clock floor**: %.1f ns below its median, within this run's noise\n", a, floor_med - a
	if (floor_med > 10)
		print "- The app-thread budget (10 ns/event) is **below this machine's clock floor**: no hook that reads the clock per event can meet it here."
	print ""

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

}

# --- libcall: the dynamic hooks' cost per library call ---------------------------------
function lib_section(    i, c, row, a, ad, u, s, j, ok, nl, ul) {
	print "## Library calls (dynamic hooks)"
	print ""
	print "bench/libcall.c: one instrumented function, `libcall_loop`, calls `bl_add(s, i)` of"
	print "libbenchlib.so (bench/benchlib.c, plain `gcc -O2 -fPIC -shared`: nothing in it is"
	printf "instrumented) %s times a run. Each call goes through the program's PLT and GOT slot,\n", meta["lib_calls"]
	print "which ada's dynamic hooks redirect at start-up (ADA_DYNHOOK=on, the default) and"
	print "uftrace's PLT hooks intercept: a CALL and a RETURN per call. *app-thread* is the CPU"
	print "time of the loop's thread around the loop only (libcall prints it); *tracer-only*"
	print "subtracts lib-plain's (the same loop built with plain gcc, untraced) of the same"
	print "round, then divides by the calls (ns/call) or the events (ns/event, 2 a call). *total"
	print "CPU* is user+sys of the whole process tree, writer and recorder included, start-up"
	print "and exit too, less lib-plain's. ada: `--ada-mode=fentry`; lib-ada records the index"
	print "lane only (ADA_DETAIL=off), lib-ada-detail each call's registers and 128-byte stack"
	print "window too. *slots* is the manifest's `dynamic_hooks.slots` (every module's: the"
	print "program's, libc's...)."
	print ""
	cell(1, 1, "config"); cell(1, 2, "wall s"); cell(1, 3, "app-thread CPU ns/call")
	cell(1, 4, "tracer-only ns/call"); cell(1, 5, "tracer-only ns/event"); cell(1, 6, "total CPU tracer-only ns/call")
	cell(1, 7, "events recorded"); cell(1, 8, "dropped"); cell(1, 9, "slots hooked")
	for (i = 1; i <= nlib; i++) {
		c = lorder[i]
		cell(i + 1, 1, c); cell(i + 1, 2, stat(c, "wall", 3)); cell(i + 1, 3, stat(c, "app_call", 1))
		cell(i + 1, 4, c == "lib-plain" ? "0" : stat(c, "over_call", 1))
		cell(i + 1, 5, c == "lib-plain" ? "0" : stat(c, "over_call_ev", 1))
		cell(i + 1, 6, c == "lib-plain" ? "0" : stat(c, "cpu_over_call", 1))
		cell(i + 1, 7, stat(c, "rec", 0)); cell(i + 1, 8, c ~ /uftrace/ ? "n/a" : stat(c, "drop", 0))
		cell(i + 1, 9, stat(c, "dyn_slots", 0))
	}
	table()
	print "Events recorded: ada's are the manifest's `threads[].events` (2 a call, plus main,"
	print "libcall_loop and the program's other library calls); uftrace's its `<tid>.dat` size"
	print "÷ 16. *uftrace ÷ ada* below divides each uftrace configuration's tracer-only ns/call"
	print "by ada's."
	print ""
	ul = ""
	for (i = 1; i <= nlib; i++) if (lorder[i] ~ /uftrace/) ul = ul " " lorder[i]
	nl = split(ul, lu, " ")
	cell(1, 1, "budget"); cell(1, 2, "target"); cell(1, 3, "ada measured"); cell(1, 4, "verdict"); cell(1, 5, "uftrace ÷ ada")
	row = 1
	if ("lib-ada" in seen) {
		lib_row(++row, "library call, app-thread CPU, ADA_DETAIL=off", "≤ 30 ns/call", "lib-ada", 30, nl)
		ok = vmax("lib-ada", "drop") == 0
		cell(++row, 1, "events dropped, ADA_DETAIL=off"); cell(row, 2, "0"); cell(row, 3, drops_by_round("lib-ada"))
		cell(row, 4, verdict(ok)); cell(row, 5, "—")
		printf "bench: %s %-28s %s (target 0)\n", ok ? "PASS" : "MISS", "library calls, events dropped", drops_by_round("lib-ada") > "budgets.txt"
	}
	if ("lib-ada-detail" in seen) {
		lib_row(++row, "library call, app-thread CPU, ADA_DETAIL=all", "(information)", "lib-ada-detail", "", nl)
		cell(++row, 1, "events dropped, ADA_DETAIL=all"); cell(row, 2, "(information)"); cell(row, 3, drops_by_round("lib-ada-detail"))
		cell(row, 4, "—"); cell(row, 5, "—")
	}
	if (row > 1) table()
	else { split("", T); trows = tcols = 0 }
	print "A round in which events were dropped (`ring_full`: the writer fell behind, the"
	print "call's subtree was skipped) recorded less than every call, so its cost is"
	print "understated: when some rounds dropped events and others did not, the verdict"
	print "uses the median of the rounds without drops (shown after the all-rounds figure)."
	print "`detail_full` counts detail records not kept (their events were)."
	print ""
}
# A row of the library-call budget table: config cfg's tracer-only ns/call
# against limit (none: information only), and each uftrace configuration's
# ratio to it.
function lib_row(r, name, target, cfg, limit, nl,    s, j, ok, a, m, nall, nclean) {
	a = med(cfg, "over_call")
	m = stat(cfg, "over_call", 1) " ns/call (" stat(cfg, "over_call_ev", 1) " ns/event)"
	# Rounds without drops, if some rounds dropped events and some did not.
	nall = collect(cfg, "over_call")
	nodrop = 1
	nclean = collect(cfg, "over_call")
	if (nclean > 0 && nclean < nall) {
		a = med(cfg, "over_call")
		m = m "; rounds without drops (" nclean " of " nall "): " stat(cfg, "over_call", 1) " ns/call"
	}
	nodrop = 0
	cell(r, 1, name); cell(r, 2, target); cell(r, 3, m)
	if (limit == "") cell(r, 4, "—")
	else {
		ok = a != "" && a <= limit
		cell(r, 4, verdict(ok))
		printf "bench: %s %-28s %s (target %s)\n", ok ? "PASS" : "MISS", name, m, target > "budgets.txt"
	}
	s = ""
	for (j = 1; j <= nl; j++)
		s = s (s == "" ? "" : ", ") substr(lu[j], 13) " " x(med(lu[j], "over_call"), a) " (" stat(lu[j], "over_call", 1) " ns/call)"
	cell(r, 5, s == "" ? "—" : s)
}

# --- startup: the dynamic hooks' start-up pass ---------------------------------------
function start_section(    i, c, row, bind, fb, ok, a, sl, lim) {
	print "## Hooking start-up"
	print ""
	printf "bench/startup.c does almost nothing (main calls one function); it is linked to\n"
	printf "libmanyslots.so, which calls each of %s functions of libmanydefs.so through its PLT\n", meta["slots"]
	printf "(generated by bench/manyslots.awk; readelf counts %s JUMP_SLOT relocations).\n", meta["jump_slots"]
	print "The libraries are plain gcc builds; only the program is built with adacc"
	print "(`--ada-mode=fentry`) for the ada rows. *lazy*: linked with `-z lazy`, the slots"
	print "still point into the PLT at start-up and the hooking pass looks each target up"
	print "itself; *now*: linked with `-z now`, the dynamic linker has bound every slot before"
	print "the pass (" meta["bind_now"] ")."
	printf "Each configuration runs %s processes a round, one after another; the round's figure\n", meta["start_reps"]
	print "is the median process (wall) or the mean (CPU, user+sys of the process and its"
	print "writer thread). *untraced* is the plain gcc build; *ADA_DYNHOOK=off* the ada build"
	print "without the hooking pass. *hooking pass* is the runtime's own measure (manifest"
	print "`dynamic_hooks.startup_ms`, median of the round's processes); *slots* the slots it"
	print "redirected in every module (`dynamic_hooks.slots`, the round's fewest)."
	print ""
	cell(1, 1, "binding"); cell(1, 2, "config"); cell(1, 3, "wall ms/process"); cell(1, 4, "CPU ms/process")
	cell(1, 5, "wall − untraced ms"); cell(1, 6, "wall − ADA_DYNHOOK=off ms"); cell(1, 7, "hooking pass ms")
	cell(1, 8, "slots hooked"); cell(1, 9, "functions")
	fb = 0
	for (i = 1; i <= nstart; i++) {
		c = sorder[i]
		bind = c ~ /^start-now-/ ? "now" : "lazy"
		cell(i + 1, 1, bind); cell(i + 1, 2, c); cell(i + 1, 3, stat(c, "ms", 1)); cell(i + 1, 4, stat(c, "cpu_ms", 1))
		cell(i + 1, 5, c ~ /-plain$/ ? "0" : stat(c, "d_base_ms", 1))
		cell(i + 1, 6, c ~ /-ada$/ ? stat(c, "d_nohook_ms", 1) : "—")
		cell(i + 1, 7, stat(c, "dyn_start", 2)); cell(i + 1, 8, stat(c, "dyn_slots", 0)); cell(i + 1, 9, stat(c, "dyn_funcs", 0))
		for (r = 1; r <= nround; r++) if (dsrc[c, r] == "total_ms") fb++
	}
	table()
	if (fb) {
		print "Note: in " fb " round(s) the manifests' `dynamic_hooks.startup_ms` read 0 while only one"
		print "pass ran (`passes` = 1): the runtime wrote its DYNHOOK record before it stored the"
		print "start-up pass's time. The hooking pass column uses that same pass's `total_ms` there."
		print ""
	}
	lim = 50
	cell(1, 1, "budget"); cell(1, 2, "target"); cell(1, 3, "ada measured"); cell(1, 4, "verdict")
	row = 1
	if ("start-ada" in seen) start_row(++row, "hooking start-up, lazy binding", "start-ada", lim)
	if ("start-now-ada" in seen) start_row(++row, "hooking start-up, -z now", "start-now-ada", lim)
	if (row > 1) table()
	else { split("", T); trows = tcols = 0 }
}
function start_row(r, name, cfg, lim,    a, sl, ok, okp, oks, target) {
	a = med(cfg, "dyn_start"); sl = vmin(cfg, "dyn_slots")
	okp = a != "" && a <= lim
	oks = sl != "" && sl >= 5000
	ok = okp && oks
	target = "≤ " lim " ms, ≥ 5000 slots"
	cell(r, 1, name); cell(r, 2, target)
	cell(r, 3, stat(cfg, "dyn_start", 2) " ms for " (sl == "" ? "?" : sl) " slots; process wall +" stat(cfg, "d_nohook_ms", 1) " ms vs ADA_DYNHOOK=off")
	cell(r, 4, verdict(ok))
	printf "bench: %s %-28s %s ms, %s slots (target %s)\n", ok ? "PASS" : "MISS", name, stat(cfg, "dyn_start", 2), sl == "" ? "?" : sl, target > "budgets.txt"
}

# --- commands ---------------------------------------------------------------------
function commands(    i) {
	print "## Commands"
	print ""
	print "Built into bench/out/ (git-ignored):"
	print ""
	print "```"
	if (micro) {
		print "gcc -O2 -o micro_plain bench/micro.c"
		print "bin/adacc --ada-mode=cyg -O2 -o micro_ada bench/micro.c"
		print "bin/adacc --ada-mode=fentry -O2 -o micro_ada_fentry bench/micro.c"
		print "gcc -O2 -pg -mfentry -o micro_fentry bench/micro.c"
		print "gcc -O2 -pg -o micro_pg bench/micro.c"
		print "gcc -O2 -finstrument-functions -o micro_cyg bench/micro.c"
	}
	if (nlib) {
		print "gcc -O2 -fPIC -shared -o libbenchlib.so bench/benchlib.c"
		print "gcc -O2 -o libcall_plain bench/libcall.c -L. -lbenchlib -Wl,-rpath,'$ORIGIN'"
		print "bin/adacc --ada-mode=fentry -O2 -o libcall_ada bench/libcall.c -L. -lbenchlib -Wl,-rpath,'$ORIGIN'"
		print "gcc -O2 -pg -o libcall_pg bench/libcall.c -L. -lbenchlib -Wl,-rpath,'$ORIGIN'"
		print "gcc -O2 -finstrument-functions -o libcall_cyg bench/libcall.c -L. -lbenchlib -Wl,-rpath,'$ORIGIN'"
	}
	if (nstart) {
		printf "awk -v n=%s -v what=defs -f bench/manyslots.awk > manydefs.c     # %s functions\n", meta["slots"], meta["slots"]
		printf "awk -v n=%s -v what=slots -f bench/manyslots.awk > manyslots.c   # a call to each\n", meta["slots"]
		print "gcc -O0 -fPIC -shared -o libmanydefs.so manydefs.c"
		print "gcc -O2 -fPIC -c -o manyslots.o manyslots.c"
		print "gcc -shared -o libmanyslots.so manyslots.o -L. -lmanydefs -Wl,-rpath,'$ORIGIN' -Wl,-z,lazy"
		print "gcc -shared -o libmanyslots_now.so manyslots.o -L. -lmanydefs -Wl,-rpath,'$ORIGIN' -Wl,-z,now"
		print "gcc -O2 -o start_plain bench/startup.c -L. -lmanyslots -Wl,-rpath,'$ORIGIN' -Wl,-z,lazy"
		print "bin/adacc --ada-mode=fentry -O2 -o start_ada bench/startup.c -L. -lmanyslots -Wl,-rpath,'$ORIGIN' -Wl,-z,lazy"
		print "gcc -O2 -o start_now_plain bench/startup.c -L. -lmanyslots_now -Wl,-rpath,'$ORIGIN' -Wl,-z,now"
		print "bin/adacc --ada-mode=fentry -O2 -o start_now_ada bench/startup.c -L. -lmanyslots_now -Wl,-rpath,'$ORIGIN' -Wl,-z,now"
	}
	print "```"
	print ""
	print "Run, each under bench/runstat (wall clock and CPU of the process tree), once per round:"
	print ""
	print "```"
	if (micro) {
		print "plain           ./micro_plain " iters
		print "ada             ADA_OUTPUT=<fresh dir> ./micro_ada " iters
		print "                du -sb <dir>; bin/ada-symbolize -q <dir>   (timed on its own)"
		if ("ada-fentry" in seen) print "ada-fentry      ADA_OUTPUT=<fresh dir> ADA_DETAIL=off ./micro_ada_fentry " iters
		if ("ada-fentry-detail" in seen) print "ada-fentry-detail  ADA_OUTPUT=<fresh dir> ADA_DETAIL=all ./micro_ada_fentry " iters
		bin_of["uftrace-fentry"] = "micro_fentry"; bin_of["uftrace-mcount"] = "micro_pg"; bin_of["uftrace-cyg"] = "micro_cyg"
		for (i = 1; i <= nconf; i++)
			if (order[i] in bin_of)
				printf "%-15s uftrace record -d <fresh dir> --no-libcall ./%s %s\n", order[i], bin_of[order[i]], iters
		if ("uftrace-fentry-args" in seen)
			printf "uftrace-fentry-args  uftrace record -d <fresh dir> --no-libcall -A '.@arg1,arg2,arg3,arg4,arg5,arg6' -R '.@retval' ./micro_fentry %s\n", iters
		print "clock floor     bench/out/clockfloor " meta["clock_reads"]
	}
	if (nlib) {
		n = meta["lib_calls"]
		print "lib-plain           ./libcall_plain " n
		print "lib-ada             ADA_OUTPUT=<fresh dir> ADA_DETAIL=off ./libcall_ada " n
		print "lib-ada-detail      ADA_OUTPUT=<fresh dir> ADA_DETAIL=all ./libcall_ada " n
		print "                    then bin/ada-symbolize -q <dir> (events, drops, dynamic_hooks)"
		if ("lib-uftrace-mcount" in seen) print "lib-uftrace-mcount  uftrace record -d <fresh dir> ./libcall_pg " n
		if ("lib-uftrace-cyg" in seen) print "lib-uftrace-cyg     uftrace record -d <fresh dir> ./libcall_cyg " n
	}
	if (nstart) {
		k = meta["start_reps"]
		print "start-plain           runstat -n " k " ./start_plain"
		print "start-ada-nohook      runstat -n " k " env ADA_OUTPUT=<fresh dir> ADA_DYNHOOK=off ./start_ada"
		print "start-ada             runstat -n " k " env ADA_OUTPUT=<fresh dir> ./start_ada"
		print "                      then bin/ada-symbolize -q <dir> (dynamic_hooks of each process)"
		print "start-now-*           the same with ./start_now_plain, ./start_now_ada"
	}
	print "```"
	print ""
	if (micro) {
		print "On micro uftrace runs with `--no-libcall`, so that it records only the functions"
		print "compiled with instrumentation (main, bench_f, bench_g, and micro's timing helper"
		print "where gcc did not inline it) and no PLT calls; ada records those and, through its"
		print "dynamic hooks, micro's few library calls (a handful of events). uftrace's other"
		print "defaults are kept (128 KiB buffers, scheduler events where perf allows)."
	}
	if (nlib) {
		print "On libcall uftrace keeps its default, which records the program's PLT calls (not"
		print "those made inside libraries: no `--nest-libcall`)."
	}
	print ""
	print "Each trace directory is deleted, and `sync` run, before the next configuration"
	print "starts. ada's per-thread ring is first touched during the run, so its page faults"
	print "count in the app thread's CPU; a short run (small BENCH_ITERS or BENCH_LIB_CALLS)"
	print "shows a higher ada app-thread cost per event for that reason."
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
# ada's drops round by round, with their reasons when there were any.
function drops_by_round(c,    r, s) {
	if (c == "") c = "ada"
	s = ""
	for (r = 1; r <= nround; r++)
		if (has[c, r])
			s = s (s == "" ? "" : ", ") drop[c, r] (why[c, r] != "-" && why[c, r] != "" ? " (" why[c, r] ")" : "")
	return "per round: " s
}
function sub_name(u) { sub(/^uftrace-/, "", u); return u }
