# zstd.awk - bench/zstd.sh's report: stream mode's wall against ring mode's
# on zstd -T2 (issue 23). Reads results.tsv (condition, round, config, wall
# ms, events kept, events lost); takes mb, nproc and budgets (the verdict
# lines' file). Uses common.awk's cond_collect, cond_txt and cond_med.

{
	wall[$1, $3, $2] = $4 / 1000; kept[$1, $3, $2] = $5 / 1e6; lost[$1, $3, $2] = $6
	if ($2 > rounds) rounds = $2
}
END {
	for (k in wall) {
		split(k, f, SUBSEP)
		if (f[2] == "stream" && ((f[1], "ring", f[3]) in wall) &&
		    wall[f[1], "ring", f[3]] > 0)
			ratio[f[1], f[2], f[3]] = wall[k] / wall[f[1], "ring", f[3]]
	}
	print ""
	print "## The drain on a busy program: zstd -T2 (issue 23)"
	print ""
	printf "zstd 1.5 (Debian's source) compresses %d MiB of its own synthetic data (datagen, seed 1) at level 3\n", mb
	print "with two worker threads, plain and built with adacc in cyg mode (every call recorded, inlined"
	print "functions too). *stream*: the default, every event to disk through a recorder process, threads"
	print "waiting for it rather than losing one; *ring*: ADA_RECORD=ring, events kept in the rings,"
	print "nothing written."
	printf "%d rounds run the three in turn, idle, then with %d busy processes (bench/spin.c). Wall s,\n", rounds, nproc
	print "events (millions, the runtime's ADA_VERBOSE summary) and *÷ ring* (each round's ratio to ring,"
	print "then the median) as median [min–max]. Budget: stream ≤ 1.3 × ring, 0 events lost, idle and loaded."
	print ""
	print "| condition | config | wall s | events kept (M) | events lost | ÷ ring | budget |"
	print "|---|---|--:|--:|--:|--:|---|"
	for (ci = 1; ci <= 2; ci++) {
		cond = ci == 1 ? "idle" : "loaded"
		for (i = 1; i <= 3; i++) {
			c = i == 1 ? "plain" : i == 2 ? "stream" : "ring"
			if (!cond_collect(cond, c, wall)) continue
			q = "—"; b = "—"
			if (c == "stream") {
				rm = cond_med(cond, c, ratio); lm = cond_collect(cond, c, lost) ? v[cond_collect(cond, c, lost)] : 0
				ok = (rm <= 1.3 && lm == 0) ? "PASS" : "MISS"
				q = cond_txt(cond, c, ratio, 2)
				b = "≤ 1.3, 0 lost: " verdict(ok == "PASS")
				line = sprintf("bench: %s %-28s %s ÷ ring %.2f, %d events lost at most, %s (target ≤ 1.3, 0)", ok, "zstd-T2-" c "-" cond, c, rm, lm, cond)
				print line >budgets
			}
			ev = c == "plain" ? "—" : cond_txt(cond, c, kept, 1)
			lo = c == "plain" ? "—" : cond_txt(cond, c, lost, 0)
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", cond, c, cond_txt(cond, c, wall, 2), ev, lo, q, b
		}
	}
	print ""
}
