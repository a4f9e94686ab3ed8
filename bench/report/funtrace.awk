# funtrace.awk - bench/funtrace.sh's report: ada's modes against funtrace and
# the ring floor, same rounds (issue 22). Reads results.tsv (config, round,
# app-thread ns, user+sys us) and floor.tsv (round, ring floor ns/event);
# takes events, iters, ft (the funtrace row's name, or empty) and budgets
# (the verdict lines' file). Uses common.awk's sortv, median and vtxt.

# Per-round values a[c, r] of config c into v[], sorted; their count.
function rounds_collect(c, a,    r, n) {
	n = 0
	for (r = 1; r <= rounds; r++) if ((c, r) in a) v[++n] = a[c, r]
	sortv(n)
	return n
}
# "median [min–max]" of a[c, ·] with p decimals; "—" if none.
function rounds_stat(c, a, p) { return vtxt(rounds_collect(c, a), p) }
function rounds_med(c, a,    n) { n = rounds_collect(c, a); return n ? median(n) : "" }

FILENAME ~ /floor/ { floor[$1] = $2; next }
{ app[$1, $2] = $3 / events; cpu[$1, $2] = $4 * 1000 / events; if ($2 > rounds) rounds = $2; seen[$1] = 1; order[++no] = $1 }
END {
	for (r = 1; r <= rounds; r++) {
		for (c in seen)
			if (c != "plain")
				tot[c, r] = cpu[c, r] - cpu["plain", r]
		for (c in seen) {
			if (c == "plain") continue
			if (floor[r] > 0) rf[c, r] = tot[c, r] / floor[r]
			if (ft != "" && tot[ft, r] > 0) rft[c, r] = tot[c, r] / tot[ft, r]
		}
		fl["floor", r] = floor[r]
	}
	print ""
	print "## Against funtrace and the ring floor (issue 22)"
	print ""
	printf "bench/micro.c, %d iterations (%d events) a run, %d rounds; each round runs every row\n", iters, events, rounds
	print "in turn, then the ring floor (bench/clockfloor.c: an rdtsc and a 16-byte store into a"
	print "16 MiB thread-local ring an event). *app-thread*: micro's loop thread CPU per event;"
	print "*total*: CPU of the whole process tree (ada's recorder included) less plain micro's"
	print "of the same round, per event; *÷ floor* and *÷ funtrace*: each round's total over"
	print "that round's ring floor or funtrace total, then the median. Every row records every"
	print "call and return: funtrace and ada's ring mode into a ring in memory (16 MiB a"
	print "thread, FUNTRACE_LOG_BUF_SIZE=24 for funtrace), the stream rows to disk."
	if (ft == "")
		print "funtrace: left out (FUNTRACE_SRC not set: it is built from its source tree)."
	print ""
	print "| config | records | app-thread ns/event | total ns/event | ÷ ring floor | ÷ funtrace | budget (÷ floor) |"
	print "|---|---|--:|--:|--:|--:|--:|"
	printf "| ring floor | rdtsc + 16-byte store | %s | %s | 1 | — | — |\n", rounds_stat("floor", fl, 1), rounds_stat("floor", fl, 1)
	what["funtrace"] = "index, ring (funtrace, -pg -mfentry -minstrument-return=call)"
	what["hook-floor"] = "index, ring (cyg hooks with a guard, the stack check, the switches and the room check; no shadow stack: bench/hookfloor.S)"
	what["ada-record-ring-cyg"] = "index, ring (cyg)"; lim["ada-record-ring-cyg"] = 1.0
	what["ada-record-ring"] = "index, ring (fentry: returns seen by __return__)"; lim["ada-record-ring"] = 1.0
	what["ada-record-ring-hijack"] = "index, ring (fentry, --ada-returns=hijack)"
	what["ada"] = "index, stream (cyg)"; lim["ada"] = 1.2
	what["ada-fentry"] = "index, stream (fentry)"; lim["ada-fentry"] = 1.2
	what["ada-fentry-window"] = "index + detail windows, stream (fentry, the default)"; lim["ada-fentry-window"] = 1.5
	for (i = 1; i <= no; i++) {
		c = order[i]
		if (c == "plain" || done[c]++) continue
		b = (c in lim) ? sprintf("≤ %.1f %s", lim[c], rounds_med(c, rf) <= lim[c] ? "PASS" : "MISS") : "—"
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", c, what[c], rounds_stat(c, app, 1), rounds_stat(c, tot, 1),
			rounds_stat(c, rf, 2), (ft == "" ? "—" : rounds_stat(c, rft, 2)), b
		if (c in lim)
			printf "bench: %s %-28s ×%.2f of the ring floor, total CPU, same round (target ≤ ×%.1f)\n", rounds_med(c, rf) <= lim[c] ? "PASS" : "MISS", c, rounds_med(c, rf), lim[c] >budgets
	}
}
