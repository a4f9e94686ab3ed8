# lanes.awk - bench/lanes.sh's report: what ADA_COUNTERS, ADA_ALLOC and
# ADA_BLOCKING cost (issue 25). Reads results.tsv (condition, round,
# workload, config, CPU ns, wall ns, events kept, events lost); takes nproc,
# iters, lua_size, sql_size and budgets (the verdict lines' file). Uses
# common.awk's cond_collect, cond_txt and cond_med.

{
	k = $3 "/" $4
	cpu[$1, k, $2] = $5 / 1e9; kept[$1, k, $2] = $7 / 1e6; lost[$1, k, $2] = $8
	if ($2 > rounds) rounds = $2
	seen[$3] = 1
}
# The budget's verdict line and the table's cell.
function judge(name, what, val, max, cond) {
	ok = val != "" && val <= max
	printf "bench: %s %-28s %s %.3f (target ≤ %.2f), %s\n", ok ? "PASS" : "MISS", name, what, val, max, cond >budgets
	return "≤ " max " " verdict(ok)
}
END {
	nc = split("plain base counters alloc blocking all", cfg, " ")
	nw = split("micro lua sqlite", wl, " ")
	for (key in cpu) {
		split(key, f, SUBSEP)
		split(f[2], wc, "/")
		b = wc[1] "/base"; p = wc[1] "/plain"
		if (wc[2] != "plain" && wc[2] != "base" && ((f[1], b, f[3]) in cpu) && cpu[f[1], b, f[3]] > 0)
			ratio[f[1], f[2], f[3]] = cpu[key] / cpu[f[1], b, f[3]]
		if (wc[2] != "plain" && wc[2] != "base" && ((f[1], p, f[3]) in cpu) && ((f[1], b, f[3]) in cpu) &&
		    cpu[f[1], b, f[3]] > cpu[f[1], p, f[3]])
			above[f[1], f[2], f[3]] = (cpu[key] - cpu[f[1], p, f[3]]) / (cpu[f[1], b, f[3]] - cpu[f[1], p, f[3]])
	}
	print ""
	print "## Beyond calls: what counters, allocations and blocking cost (issue 25)"
	print ""
	print "bench/lanes.sh. Each workload plain and built with `adacc --ada-mode=fentry -O2`, traced with"
	print "ada's defaults (*base*: detail windows, the dynamic hooks on, so the malloc family's and the"
	print "locks' library calls are recorded as calls in every traced row), then with one lane more:"
	print "*counters* `ADA_COUNTERS=1` (a sample every 1 ms of a thread's CPU), *alloc* `ADA_ALLOC=1`,"
	print "*blocking* `ADA_BLOCKING=1`, *all* the three."
	printf "micro: bench/micro.c, %d iterations; lua: workload.lua %d; sqlite: speedtest1 --size %d --memdb.\n", iters, lua_size, sql_size
	printf "%d rounds run every row in turn, idle, then with %d busy processes (bench/spin.c). *CPU s*:\n", rounds, nproc
	print "the process tree's (the recorder's included); *÷ base*: each round's CPU over base's, then the"
	print "median; *above plain ÷ base's*: the row's CPU above plain over base's above plain (what the lane"
	print "adds to the tracing cost); events (millions) kept and lost, the runtime's ADA_VERBOSE summary."
	print "Budgets (idle): counters ≤ 1.02 × base on each workload; alloc on sqlite ≤ 1.3 × base's CPU"
	print "above plain. With the three off (the default) no hook changes: their cost then is none, and"
	print "the instructions an event of the default are the ada-fentry-window row below (callgrind)."
	print ""
	print "| condition | workload | config | CPU s | ÷ base | above plain ÷ base's | events kept (M) | lost | budget |"
	print "|---|---|---|--:|--:|--:|--:|--:|---|"
	for (ci = 1; ci <= 2; ci++) {
		cond = ci == 1 ? "idle" : "loaded"
		for (wi = 1; wi <= nw; wi++) {
			if (!(wl[wi] in seen)) continue
			for (i = 1; i <= nc; i++) {
				c = wl[wi] "/" cfg[i]
				if (!cond_collect(cond, c, cpu)) continue
				q = cond_collect(cond, c, ratio) ? cond_txt(cond, c, ratio, 3) : "—"
				a = cond_collect(cond, c, above) ? cond_txt(cond, c, above, 2) : "—"
				bud = "—"
				if (cond == "idle" && cfg[i] == "counters")
					bud = judge("lanes-" wl[wi] "-counters", "CPU ÷ base", cond_med(cond, c, ratio), 1.02, cond)
				if (cond == "idle" && cfg[i] == "alloc" && wl[wi] == "sqlite")
					bud = judge("lanes-sqlite-alloc", "CPU above plain ÷ base's", cond_med(cond, c, above), 1.3, cond)
				ev = cfg[i] == "plain" ? "—" : cond_txt(cond, c, kept, 2)
				lo = cfg[i] == "plain" ? "—" : cond_txt(cond, c, lost, 0)
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cond, wl[wi], cfg[i],
					cond_txt(cond, c, cpu, 3), q, a, ev, lo, bud
			}
		}
	}
	print ""
}
