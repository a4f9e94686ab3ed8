# common.awk - the report's shared helpers (see main.awk): statistics over the
# rounds, markdown tables, verdicts and ratios, drops and failures as text.

# --- statistics over the rounds held in v[1..n] ---------------------------------
function sortv(n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
}
# The untraced run c is measured against, in the same round.
function base(c) {
	if (c ~ /xray-basic$/) return substr(c, 1, length(c) - 10) "plain-small"
	if (c ~ /^(lua|sql)-patchable-(off|disabled)/) return substr(c, 1, 4) "plain-large"
	if (c ~ /^lua-/) return "lua-plain"
	if (c ~ /^sql-/) return "sql-plain"
	if (c ~ /^lib-/) return "lib-plain"
	if (c ~ /^nested-/) return "nested-plain"
	if (c ~ /^start-now-/) return "start-now-plain"
	if (c ~ /^start-/) return "start-plain"
	return "plain"
}
# Fills v[] with metric m of config c, one value per round; returns the count.
function collect(c, m,    r, n, pw, pc, b, calls) {
	n = 0
	b = base(c)
	for (r = 1; r <= nround; r++) {
		if (only_round && r != only_round) continue
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
		# Issue 10: lost by the threads, waits, time waited (ms, % of wall).
		if (m == "tlost") { if (tlost[c, r] == "-") continue; v[++n] = tlost[c, r]; continue }
		if (m ~ /^(waits|wait_ms|wait_pct)$/ && wns[c, r] == "-") continue
		if (m == "waits") { v[++n] = waits[c, r]; continue }
		if (m == "wait_ms") { v[++n] = wns[c, r] / 1e6; continue }
		if (m == "wait_pct") { v[++n] = 100 * wns[c, r] / wall[c, r]; continue }
		# Tracer-only CPU per recorded event (each tracer's own count), bytes
		# per recorded event, ada-symbolize seconds per million events.
		if (m ~ /^(over_rec|bytes_rec|sym_spm)$/ && rec[c, r] !~ /^[0-9]+$/) continue
		if (m ~ /^(over_rec|bytes_rec|sym_spm)$/ && rec[c, r] == 0) continue
		if (m == "over_rec") { if (!has[b, r]) continue; v[++n] = (cpu[c, r] - pc) / rec[c, r]; continue }
		if (m == "bytes_rec") { if (bytes[c, r] == "-") continue; v[++n] = bytes[c, r] / rec[c, r]; continue }
		if (m == "sym_spm") { if (sym[c, r] == "-") continue; v[++n] = sym[c, r] / 1e9 / (rec[c, r] / 1e6); continue }
		if (m ~ /_x$/ && !has[b, r]) continue
		if (m == "wall") v[++n] = wall[c, r] / 1e9
		else if (m == "wall_x") v[++n] = wall[c, r] / pw
		else if (m == "cpu_x") v[++n] = cpu[c, r] / pc
		else if (m == "app_ev") v[++n] = app[c, r] / wev[c, r]
		else if (m == "cpu_ev") v[++n] = cpu[c, r] / wev[c, r]
		else if (m == "sys_ev") { if (sys[c, r] !~ /^[0-9]+$/) continue; v[++n] = sys[c, r] / wev[c, r] }
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
# "median [min–max]" of the n sorted values in v[] with p decimals (the
# median alone when they print the same); "—" if none.
function vtxt(n, p,    f) {
	if (!n) return "—"
	f = "%." p "f"
	if (n == 1 || sprintf(f, v[1]) == sprintf(f, v[n])) return sprintf(f, median(n))
	return sprintf(f " [" f "–" f "]", median(n), v[1], v[n])
}
# Per-round values a[cond, c, r], r = 1..rounds (a condition, idle or loaded,
# and a config: startexit.awk, zstd.awk), into v[], sorted; their count.
function cond_collect(cond, c, a,    r, n) {
	n = 0
	for (r = 1; r <= rounds; r++) if ((cond, c, r) in a) v[++n] = a[cond, c, r]
	sortv(n)
	return n
}
function cond_txt(cond, c, a, p) { return vtxt(cond_collect(cond, c, a), p) }
function cond_med(cond, c, a,    n) { n = cond_collect(cond, c, a); return n ? median(n) : "" }
# "median [min–max]" of metric m of config c with p decimals; "—" if none.
function stat(c, m, p) { return vtxt(collect(c, m), p) }
function med(c, m,    n) { n = collect(c, m); return n ? median(n) : "" }
# Metric m of config c in round r alone, "" if none. The config "ring-floor"
# is bench/clockfloor.c's ring floor, ns per event (clock.tsv), whatever m.
function round_val(c, m, r,    n) {
	if (c == "ring-floor") return (r in ring_ns) ? ring_ns[r] : ""
	only_round = r; n = collect(c, m); only_round = 0
	return n ? v[1] : ""
}
# Fills v[] with the same-round ratios of metric m, config a over config b,
# one per round in which both have it (as a paired timing takes them: a
# drift of the machine's speed over the run moves both); returns the count.
function rcollect(a, b, m,    r, n, va, vb, w, i) {
	n = 0
	for (r = 1; r <= nround; r++) {
		va = round_val(a, m, r); vb = round_val(b, m, r)
		if (va == "" || vb == "" || vb == 0) continue
		w[++n] = va / vb
	}
	for (i = 1; i <= n; i++) v[i] = w[i]
	sortv(n)
	return n
}
function rmed(a, b, m,    n) { n = rcollect(a, b, m); return n ? median(n) : "" }
# "median [min–max]" of those ratios, two decimals; "—" if none.
function rstat(a, b, m) { return vtxt(rcollect(a, b, m), 2) }
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
# The header row of the next table: its cells separated by "|".
function header(list,    h, n, k) { n = split(list, h, "|"); for (k = 1; k <= n; k++) cell(1, k, h[k]) }
# The table, if it has rows below its header (r rows in all); else dropped.
function table_if(r) { if (r > 1) table(); else { split("", T); trows = tcols = 0 } }
function verdict(ok) { return ok ? "**PASS**" : "**MISS**" }
function x(a, b) { return (a == "" || b == "" || b == 0) ? "—" : sprintf("×%.1f", a / b) }
# --- shared phrases -------------------------------------------------------------
# ada's drops round by round, with their reasons when there were any.
function drops_by_round(c,    r, s) {
	if (c == "") c = "ada"
	s = ""
	for (r = 1; r <= nround; r++)
		if (has[c, r])
			s = s (s == "" ? "" : ", ") drop[c, r] (why[c, r] != "-" && why[c, r] != "" ? " (" why[c, r] ")" : "")
	return "per round: " s
}
function failed_txt(c) { return "failed in " nfailed[c] " of " nround " rounds: " failmsg[c] }
# After a cost table: the kernel's background writeback threshold and the
# rows (configs list[1..n]) whose trace, median MB on disk, exceeded it;
# brief: nothing when none did.
function writeback_text(list, n, brief,    i, c, mb, s) {
	if (meta["writeback_mb"] !~ /^[0-9]+$/) return
	s = ""
	for (i = 1; i <= n; i++) {
		c = list[i]
		mb = med(c, "mb")
		if (mb != "" && mb > meta["writeback_mb"] + 0) s = s (s == "" ? "" : ", ") sprintf("%s (%.0f MB)", c, mb)
	}
	if (brief && s == "") return
	printf "Writeback: the kernel starts writing dirty pages back at about %s MB here\n", meta["writeback_mb"]
	print "(vm.dirty_background_*, read before the rounds). Every run starts after `sync`, with"
	print "nothing pending; a run that writes more than that has writeback running during it,"
	print "which puts system time on the process that writes (see \"What moves a tracer's CPU"
	print "figure\" at the end). " (s == "" ? "No run here wrote that much." : "Runs here that wrote more: " s ".")
	print ""
}
