# startexit.awk - bench/startexit.sh's report: what a traced process adds
# before main and after it, idle and loaded (issue 23). Reads results.tsv
# (condition, round, program, start ns, exit ns, whole ns, recorder's tail
# ns: each the median of the round's processes); takes reps, nproc and
# budgets (the verdict lines' file). Uses common.awk's cond_txt and
# cond_med. Figures in ms.

{
	s[$1, $3, $2] = $4 / 1e6; e[$1, $3, $2] = $5 / 1e6; w[$1, $3, $2] = $6 / 1e6
	t[$1, $3, $2] = $7 / 1e6
	if ($2 > rounds) rounds = $2
	seen[$3] = 1
}
END {
	for (k in s) {
		split(k, f, SUBSEP)
		if (f[2] == "plain" || !((f[1], "plain", f[3]) in s)) continue
		ds[k] = s[k] - s[f[1], "plain", f[3]]
		de[k] = e[k] - e[f[1], "plain", f[3]]
		dw[k] = w[k] - w[f[1], "plain", f[3]]
	}
	np = 0
	if ("plain" in seen) order[++np] = "plain"
	if ("ada-fentry" in seen) order[++np] = "ada-fentry"
	if ("ada-cyg" in seen) order[++np] = "ada-cyg"
	if ("ada-record" in seen) order[++np] = "ada-record"
	what["ada-fentry"] = "fentry, the default (detail windows, dynamic hooks, a recorder process)"
	what["ada-cyg"] = "cyg"
	what["ada-record"] = "fentry under ada record (its start, its recorder, its wait for the trace)"
	print ""
	print "## Start-up and exit (issue 23)"
	print ""
	printf "bench/stamps.c stamps the clock on main's first line and just before main returns; bench/startexit.c\n"
	printf "starts it %d times a program, one process after another, plain and traced, in each of %d rounds, and\n", reps, rounds
	print "takes the median process: *start-up* from fork to main's first stamp (the runtime's start, the"
	print "dynamic hooks' pass, the thread's set-up at main's entry), *exit* from main's last stamp to"
	print "waitpid's return (the return hook, the request for the final flush: the recorder finishes the trace"
	print "after the program). *trace done*: from waitpid's return to the"
	print "recorder's end (the runner is its subreaper and waits for it, so that no process starts beside"
	print "an earlier one's recorder). *added*: a round's traced"
	print "median less the same round's plain one; median [min–max] over the rounds, in ms. *loaded*: the"
	printf "same with %d busy processes (bench/spin.c), one per CPU. Budgets: start-up added ≤ 2 ms and exit\n", nproc
	print "added ≤ 1 ms, idle."
	print ""
	print "| condition | build | start-up ms | exit ms | start-up added | exit added | whole added | trace done ms | budget |"
	print "|---|---|--:|--:|--:|--:|--:|--:|---|"
	for (ci = 1; ci <= 2; ci++) {
		cond = ci == 1 ? "idle" : "loaded"
		for (i = 1; i <= np; i++) {
			p = order[i]
			st = cond_txt(cond, p, s, 2); et = cond_txt(cond, p, e, 2)
			if (p == "plain") {
				printf "| %s | plain | %s | %s | — | — | — | — | — |\n", cond, st, et
				continue
			}
			budget = "—"
			if (cond == "idle") {
				ms = cond_med(cond, p, ds); me = cond_med(cond, p, de)
				budget = "start-up ≤ 2 " verdict(ms <= 2) ", exit ≤ 1 " verdict(me <= 1)
				line = sprintf("bench: %s %-28s start-up +%.2f ms, idle (target ≤ 2 ms)", ms <= 2 ? "PASS" : "MISS", p, ms)
				print line >budgets
				line = sprintf("bench: %s %-28s exit +%.2f ms, idle (target ≤ 1 ms)", me <= 1 ? "PASS" : "MISS", p, me)
				print line >budgets
			}
			row = sprintf("| %s | %s | %s | %s | %s | %s", cond, what[p], st, et, cond_txt(cond, p, ds, 2), cond_txt(cond, p, de, 2))
			printf "%s | %s | %s | %s |\n", row, cond_txt(cond, p, dw, 2), cond_txt(cond, p, t, 2), budget
		}
	}
	print ""
}
