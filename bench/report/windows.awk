# windows.awk - the report's "Detail windows" section (see main.awk): issue
# 13's budgets on the detail lane's default mode (ADA_DETAIL=window): its
# cost on micro against index-only fentry, same round, and a window's
# trigger-to-disk latency (bench/trigger_latency.c, windows.tsv).

# Latency m (p50, p99 or max, in ms) or the loop's rate (rate, M events/s)
# of config c, one value per round of windows.tsv, in v[]; the count.
function wcollect(c, m,    i, n, f) {
	n = 0
	for (i = 1; i <= nwin; i++) {
		if (w_conf[i] != c) continue
		f = m == "p50" ? w_p50[i] : m == "p99" ? w_p99[i] : m == "max" ? w_max[i] : w_rate[i]
		if (f !~ /^[0-9]+$/) continue
		v[++n] = f / 1e6 # ms, or M events/s
	}
	sortv(n)
	return n
}
function wstat(c, m) { return vtxt(wcollect(c, m), 1) }
function wmed(c, m,    n) { n = wcollect(c, m); return n ? median(n) : "" }
# Windows seen of the marks, round by round ("100/100, 99/100").
function wseen(c,    i, s) {
	s = ""
	for (i = 1; i <= nwin; i++)
		if (w_conf[i] == c) s = s (s == "" ? "" : ", ") w_seen[i] "/" w_marks[i]
	return s
}
function wall_seen(c,    i, any) {
	for (i = 1; i <= nwin; i++)
		if (w_conf[i] == c) { any = 1; if (w_seen[i] != w_marks[i]) return 0 }
	return any
}
# detail_full, round by round: window records the writer did not keep.
function full_by_round(c,    r, s, f) {
	s = ""
	for (r = 1; r <= nround; r++) {
		if (!has[c, r]) continue
		f = 0
		if (match(why[c, r], /detail_full=[0-9]+/)) f = substr(why[c, r], RSTART + 12, RLENGTH - 12)
		s = s (s == "" ? "" : ", ") f
	}
	return s
}

function windows_section(    i, c, row, b, r, t, ok, l) {
	print "## Detail windows (issue 13)"
	print ""
	print "ADA_DETAIL=window is the default: every fentry/mcount event's detail record (registers,"
	print "return address, stack window) is captured into the thread's rolling detail ring, and"
	print "the writer writes records only inside windows around triggers (ADA_TRIGGER, ada_mark,"
	print "a crash), ADA_PRE events before to ADA_POST after (2000 each, the defaults used here)."
	print "With no trigger nothing of the detail lane reaches the disk: the capture is the cost."
	if ("ada-fentry-window" in seen) {
		print ""
		print "**Cost** on micro, in the same rounds as the Results above: *÷ index-only* is each"
		print "round's figure over ada-fentry's (ADA_DETAIL=off) of the same round, then the median"
		print "[min–max] of those ratios; app-thread and total CPU as in the Results."
		if ("ada-fentry-window-mark" in seen)
			printf "ada-fentry-window-mark calls ada_mark every %s events of the loop (BENCH_MARK_EVERY), each opening a window, so %.0f windows a run, about %.0f detail records with the default ADA_PRE and ADA_POST (2000 + 1 + 2000 a window); *not kept* is the manifests' `detail_full` round by round, the windows' records the writer did not write.\n", meta["mark_every"], events / meta["mark_every"], int(events / meta["mark_every"]) * 4001
		print ""
		header("config|detail|app-thread CPU ns/event|total CPU ns/event (raw)|app-thread ÷ index-only|total CPU ÷ index-only|bytes/event on disk|not kept, per round")
		row = 1
		split("ada-fentry ada-fentry-window ada-fentry-window-mark ada-fentry-detail nested-ada-fentry nested-ada-fentry-window", l, " ")
		for (i = 1; i <= 6; i++) {
			c = l[i]
			if (!(c in seen)) continue
			b = c ~ /^nested-/ ? "nested-ada-fentry" : "ada-fentry"
			cell(++row, 1, c); cell(row, 2, win_detail(c))
			cell(row, 3, stat(c, "app_ev", 1)); cell(row, 4, stat(c, "cpu_ev", 1))
			cell(row, 5, c == b ? "1" : "×" rstat(c, b, "app_ev")); cell(row, 6, c == b ? "1" : "×" rstat(c, b, "cpu_ev"))
			cell(row, 7, stat(c, "bytes_ev", 2)); cell(row, 8, c ~ /window/ ? full_by_round(c) : "—")
		}
		table()
		r = rmed("ada-fentry-window", "ada-fentry", "app_ev"); t = rmed("ada-fentry-window", "ada-fentry", "cpu_ev")
		ok = r != "" && r <= 1.5
		header("budget|target|measured (median of same-round ratios)|verdict")
		cell(2, 1, "Default mode (fentry, detail window, no trigger): CPU per event")
		cell(2, 2, "≤ ×1.5 fentry index-only")
		cell(2, 3, sprintf("app-thread ×%s (%.1f against %.1f ns/event); total CPU ×%s", rstat("ada-fentry-window", "ada-fentry", "app_ev"),
			med("ada-fentry-window", "app_ev"), med("ada-fentry", "app_ev"), rstat("ada-fentry-window", "ada-fentry", "cpu_ev")))
		cell(2, 4, verdict(ok))
		table()
		print "Judged on the app thread's CPU per event: the capture runs in the traced thread's"
		print "hooks, and that is where it slows the program; total CPU (the writer and lz4"
		print "included) is shown beside it."
		printf "bench: %s %-28s app-thread ×%.2f, total CPU ×%.2f of index-only, same round (target ≤ ×1.5)\n", ok ? "PASS" : "MISS", "default mode (window) cost", r, t > "budgets.txt"
	}
	if (nwin) {
		print ""
		printf "**Trigger to disk**: bench/trigger_latency.c (fentry, -O2) loops calling a small function and\n"
		printf "calls ada_mark(\"m<k>\") every %s ms, %s marks a run (BENCH_WIN_MARKS,\n", meta["win_interval_ms"], meta["win_marks"]
		print "BENCH_WIN_INTERVAL_MS), noting the CLOCK_MONOTONIC time before each; meanwhile it reads its"
		print "own process.meta as it grows (at most every 100 µs) and notes when each mark's WINDOW"
		print "record appears (written when the window closes, ADA_POST events after the mark). A"
		print "round's p50, p99 and max are over its marks (nearest rank); the table gives their"
		print "median [min–max] over the rounds. The loop makes events as fast as it can (flat out:"
		print "the writer's pace, its thread waiting for the writer when its ring is full), or sleeps"
		printf "%s µs every 512 events (paced, BENCH_WIN_PAUSE_US: below the writer's pace);\n", meta["win_pause_us"]
		printf "window-latency-loaded runs flat out with the loaded rows' busy processes (%s, one per CPU)\n", meta["spinners"]
		print "around it. *kept* is the detail records the windows' WINDOW records say were written,"
		print "% of their events, round by round (the rest were lost: overwritten in the ring before"
		print "the writer came to them)."
		print ""
		header("config|loop|M events/s|windows seen, per round|p50 ms|p99 ms|max ms|kept %, per round|verdict")
		row = 1
		split("window-latency window-latency-paced window-latency-loaded", l, " ")
		for (i = 1; i <= 3; i++) {
			c = l[i]
			if (!(c in win_seen_conf)) continue
			ok = wall_seen(c) && wmed(c, "p50") <= 25 && wmed(c, "p99") <= 250
			cell(++row, 1, c); cell(row, 2, win_loop(c)); cell(row, 3, wstat(c, "rate"))
			cell(row, 4, wseen(c)); cell(row, 5, wstat(c, "p50")); cell(row, 6, wstat(c, "p99")); cell(row, 7, wstat(c, "max"))
			cell(row, 8, wkept(c)); cell(row, 9, verdict(ok))
			printf "bench: %s %-28s p50 %s ms, p99 %s ms, max %s ms, seen %s (target p50 ≤ 25 ms, p99 ≤ 250 ms)\n", ok ? "PASS" : "MISS", "trigger to disk: " c,
				wstat(c, "p50"), wstat(c, "p99"), wstat(c, "max"), wseen(c) > "budgets.txt"
		}
		table()
		print "Budget: a window on disk **p50 ≤ 25 ms, p99 ≤ 250 ms** after its trigger (medians over the"
		print "rounds), with every mark's window seen."
	}
	print ""
}
function win_detail(c) {
	if (c ~ /-mark$/) return "window, ada_mark every " meta["mark_every"] " events"
	if (c ~ /window/) return "window (the default), no trigger"
	if (c ~ /detail$/) return "all"
	return "off (index only)"
}
# The windows' records kept, % of their events, round by round.
function wkept(c,    i, s) {
	s = ""
	for (i = 1; i <= nwin; i++)
		if (w_conf[i] == c)
			s = s (s == "" ? "" : ", ") (w_kept[i] + w_lost[i] ? sprintf("%.0f", 100 * w_kept[i] / (w_kept[i] + w_lost[i])) : "—")
	return s
}
function win_loop(c) {
	if (c ~ /-paced$/) return "paced: " meta["win_pause_us"] " µs sleep / 512 events"
	if (c ~ /-loaded$/) return "flat out, " meta["spinners"] " busy processes"
	return "flat out"
}
