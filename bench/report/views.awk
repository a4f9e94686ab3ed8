# views.awk - the Views section of BENCHMARKS.md (issue 12), from what
# bench/views.sh measured; with common.awk's tables and statistics:
#
#   awk -f common.awk -f views.awk meta.tsv views.tsv
#
# meta.tsv: key<TAB>value (events.TOOL.TRACE: the events of each trace;
# not_built.VIEW: why a view did not run; progress: the last progress line
# ada-symbolize report drew on a terminal). views.tsv: one row per run
# (header first): cond trace tool view round events wall_ns cpu_us
# maxrss_kb status error.
#
# A run's speed is the trace's events (each tool's own count) over its wall
# time; its peak RSS is runstat's maxrss_kb in MB (10^6 bytes). Speeds are
# medians over the rounds with [min–max]; peak RSS the highest of any round;
# ada ÷ uftrace the median of the same-round ratios of the speeds. The
# verdicts go to budgets.txt too (run.sh prints them after the report).
BEGIN {
	FS = "\t"
	# The budgets of issue 24, which raised issue 12's (M events/s on a
	# trace of at least BUDGET_EVENTS events, idle machine; peak RSS for
	# every view run): every view 20, diff and the typed replay
	# (micro-detail, judged from DETAIL_EVENTS events) 10; and issue 15's
	# of the ATF conversion: index only, and of a trace with details.
	budget["report"] = 20; budget["flame"] = 20; budget["chrome"] = 20; budget["atf"] = 25
	budget["perfetto"] = 20; budget["replay"] = 20
	budget["diff"] = 10
	BUDGET_EVENTS = 50000000
	DETAIL_BUDGET = 10; DETAIL_EVENTS = 4000000
	RSS_MB = 200
	nview = split("report flame chrome perfetto replay diff atf", view_order, " ")
	what["report"] = "`ada-symbolize report` | `uftrace report`"
	what["flame"] = "`ada-symbolize flame` (folded stacks) | `uftrace dump --flame-graph`"
	what["chrome"] = "`ada-symbolize chrome` (Trace Event JSON) | `uftrace dump --chrome`"
	what["perfetto"] = "`ada-symbolize perfetto` (protobuf) | —"
	what["replay"] = "`ada-symbolize replay` (micro-detail: every call's parameters by the DWARF's names and types) | —"
	what["diff"] = "`ada-symbolize diff T T` (the trace against itself: its events twice) | —"
	what["atf"] = "`ada-symbolize -q -o DIR` (the ATF v2 conversion) | `dd bs=256K` writing as many bytes to the same directory: the floor the disk and page cache set"
}
FILENAME == ARGV[1] { vmeta[$1] = $2; next }
FNR == 1 { next }
{
	k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
	if ($5 > vround) vround = $5
	ran[k] = 1
	if ($10 != 0) { vfail[k]++; vfailmsg[k] = $11; next }
	vok[k, $5] = 1
	vevs[k, $5] = $6 / ($7 / 1e9) / 1e6
	vcpu[k, $5] = $8 > 0 ? $6 / ($8 / 1e6) / 1e6 : 0
	vrss[k, $5] = $9 * 1024 / 1e6
	if ($9 * 1024 / 1e6 > vrss_max[k]) vrss_max[k] = $9 * 1024 / 1e6
}

# v[1..n]: the speeds of runs k (per CPU second with cpu set), or the
# same-round ratios ada ÷ uftrace (k ada's, u uftrace's); sorted.
function vspeeds(k, cpu,    r, n) {
	n = 0
	for (r = 1; r <= vround; r++) if (vok[k, r]) v[++n] = cpu ? vcpu[k, r] : vevs[k, r]
	sortv(n)
	return n
}
function vratios(k, u,    r, n) {
	n = 0
	for (r = 1; r <= vround; r++) if (vok[k, r] && vok[u, r]) v[++n] = vevs[k, r] / vevs[u, r]
	sortv(n)
	return n
}
# "median [min–max]" of v[1..n] with p decimals, then pre before each.
function vstat(n, p, pre,    f) {
	f = pre "%." p "f"
	if (n == 1 || sprintf(f, v[1]) == sprintf(f, v[n])) return sprintf(f, median(n))
	return sprintf(f " [" f "–" f "]", median(n), v[1], v[n])
}
# The speed of runs k (per CPU second with cpu set), or why there is none.
function speed(k, cpu,    n) {
	if (!(k in ran)) return "—"
	n = vspeeds(k, cpu)
	if (!n) return "failed: " vfailmsg[k]
	return vstat(n, 1, "") (vfail[k] ? sprintf(" (failed %d of %d: %s)", vfail[k], vround, vfailmsg[k]) : "")
}
function rss(k) { return (k in vrss_max) ? sprintf("%.0f", vrss_max[k]) : "—" }
function mev(n) { return sprintf("%.1f M", n / 1e6) }
# The budget verdicts of ada's runs k: speed (idle, a large enough trace, a
# view with a budget), peak RSS (every view); each also a line of
# budgets.txt, as run.sh's other budgets.
function verdicts(k, view, cond, trace,    n, s, ok, name, b, least) {
	if (view != "atf" && !(k in vrss_max)) return "—"
	s = ""
	name = "views: " view " " trace " " cond
	n = vspeeds(k)
	# (b = budget[view] would add view to budget: "in" first.)
	b = (view in budget) ? budget[view] : ""; least = BUDGET_EVENTS
	if ((view == "atf" || view == "replay") && trace == "micro-detail") { b = DETAIL_BUDGET; least = DETAIL_EVENTS }
	if (b != "" && cond == "idle" && vmeta["events.ada." trace] >= least && n) {
		ok = median(n) >= b
		s = "≥ " b " M/s " verdict(ok) ", "
		printf "bench: %s %-28s %s M events/s (target ≥ %s)\n", ok ? "PASS" : "MISS", name, vstat(n, 1, ""), b > "budgets.txt"
	}
	# The conversion writes files rather than streams a view: no RSS budget.
	if (view == "atf")
		return s == "" ? "—" : substr(s, 1, length(s) - 2)
	ok = vrss_max[k] < RSS_MB
	printf "bench: %s %-28s peak RSS %.0f MB (target < %s)\n", ok ? "PASS" : "MISS", name, vrss_max[k], RSS_MB > "budgets.txt"
	return s "RSS " verdict(ok)
}

# What the progress check saw: its last line, and whether it has the total
# and an ETA (due from a view that lasts over a second).
function progress(line, s) {
	if (line == "-") return s > 1 ? "**no progress line**" : "no progress line (none is due under a second)"
	return "its last line `" line "`: " (line ~ / of .*ETA/ ? "total and ETA shown" : "**no total and ETA**")
}

# Field i of meta's atf.TRACE (1 bytes, 2 detail records), "—" if none.
function atf_field(trace, i,    f) {
	if (!(("atf." trace) in vmeta)) return "—"
	split(vmeta["atf." trace], f, " ")
	return f[i]
}
# "micro 1.9 GB (32.0 B/event); ..." from meta's atf.TRACE.
function atf_sizes(    s, i, t, n) {
	s = ""
	n = split("micro lua micro-small micro-detail", t, " ")
	for (i = 1; i <= n; i++)
		if (("atf." t[i]) in vmeta && vmeta["events.ada." t[i]] > 0)
			s = s (s == "" ? "" : "; ") sprintf("%s %.2f GB (%.1f B/event)", t[i], \
				atf_field(t[i], 1) / 1e9, atf_field(t[i], 1) / vmeta["events.ada." t[i]])
	return s == "" ? "—" : s
}

# "micro: ada 1.2 s, 35 MB; uftrace ..." from meta's record.TOOL.TRACE
# (wall ns, bytes on disk).
function recordings(    s, i, j, t, w, f, key) {
	s = ""
	split("micro lua micro-small", t, " ")
	split("ada uftrace", w, " ")
	for (i = 1; i <= 3; i++)
		for (j = 1; j <= 2; j++) {
			key = "record." w[j] "." t[i]
			if (!(key in vmeta)) continue
			split(vmeta[key], f, " ")
			s = s (s == "" ? "" : "; ") t[i] " " w[j] sprintf(" %.1f s, %.1f MB on disk", f[1] / 1e9, f[2] / 1e6)
		}
	return s
}

function views_section(    i, j, c, t, view, cond, trace, k, u, n, row, nc, conds, traces, nt) {
	print "## Views (issue 12)"
	print ""
	print "Generated by bench/views.sh (run by `make bench`; `sh bench/views.sh` runs it alone)."
	print "Each view reads a trace recorded once before the rounds and writes to /dev/null,"
	print "under bench/runstat. *M events/s* is the trace's events (each tool's own count)"
	print "over the run's wall time, median over " vround " rounds (BENCH_VIEW_ROUNDS) with [min–max];"
	print "*per CPU-s* divides by the run's user+sys time instead (ada's views decode on a"
	print "second thread: the wall figure is the higher one when a core is free, the CPU one"
	print "the steadier on a busy machine); *peak RSS* is the largest maxrss of any round"
	print "(getrusage, MB of 10^6 bytes); *ada ÷ peer* is the median of the same-round"
	print "ratios of the wall speeds against the peer's run next to it (uftrace's view; for"
	print "the atf conversion, dd writing its bytes: 100 % is the disk's floor). Each ada"
	print "run is next to its uftrace counterpart (ada first on odd rounds). *loaded*: " vmeta["spinners"] " busy processes (bench/spin.c, one per CPU)"
	print "started before each run and killed after it: the view shares the CPUs with them,"
	print "so its speed there is information; its peak RSS is judged in both conditions."
	print ""
	print "- ada: " vmeta["ada"] "; uftrace: " vmeta["uftrace"]
	print "- Load average (1, 5, 15 min): " vmeta["load"]
	printf "- micro: bench/micro.c, %s iterations (BENCH_VIEW_ITERS): ada %s events, uftrace %s; flat, depth 2\n", \
		vmeta["iters"], vmeta["events.ada.micro"], vmeta["events.uftrace.micro"] == "" ? "—" : vmeta["events.uftrace.micro"]
	printf "- lua: Lua 5.4 running bench/lua/workload.lua %s nothrow (BENCH_VIEW_LUA_SIZE): ada %s events, uftrace %s\n", \
		vmeta["lua_size"], vmeta["events.ada.lua"], vmeta["events.uftrace.lua"] == "" ? "—" : vmeta["events.uftrace.lua"]
	printf "- micro-small: micro with %s iterations (BENCH_VIEW_SMALL_ITERS): ada %s events, idle only\n", \
		vmeta["small_iters"], vmeta["events.ada.micro-small"]
	if ("events.ada.micro-detail" in vmeta)
		printf "- micro-detail: micro built with -g, %s iterations (BENCH_VIEW_DETAIL_ITERS) recorded with ADA_DETAIL=all ADA_DETAIL_KB=1048576: %s events, %s with a detail record (registers, 128 stack bytes); the atf and replay views only\n", \
			vmeta["detail_iters"], vmeta["events.ada.micro-detail"], atf_field("micro-detail", 2)
	printf "- ATF written: %s\n", atf_sizes()
	print "- Traces: ada's from `bin/adacc --ada-mode=fentry -O2` builds run with ADA_DETAIL=off"
	print "  ADA_DYNHOOK=off, uftrace's from `gcc -O2 -pg -mfentry` builds recorded with"
	print "  `uftrace record --no-libcall`: both hold exactly the functions gcc instrumented, no"
	print "  arguments. nothrow leaves workload.lua's pcall/error out: uftrace --no-libcall does"
	print "  not see error()'s longjmp and stops recording at depth 1024 (~740000 events)."
	printf "- Recording, once: %s\n", recordings()
	printf "- %s s of measuring after %s s of building and recording\n", vmeta["elapsed"], vmeta["build_s"]
	for (i = 1; i <= nview; i++)
		if (("not_built." view_order[i]) in vmeta)
			printf "- `%s`: not built (its first run, on a %s-event trace, said `%s`)\n", view_order[i], \
				vmeta["events.ada.probe"], vmeta["not_built." view_order[i]]
	if ("progress" in vmeta)
		printf "- Progress on a terminal (`script -qec \"ada-symbolize report -o /dev/null <lua trace>\"`, %.1f s): %s\n", \
			vmeta["progress_ns"] / 1e9, progress(vmeta["progress"], vmeta["progress_ns"] / 1e9)
	else
		print "- Progress on a terminal: not checked (no report view, or no script(1))"
	print ""

	nc = split(vmeta["conds"], conds, " ")
	nt = split("micro lua micro-detail", traces, " ")
	header("view|trace|condition|ada M events/s|ada M events/CPU-s|ada peak RSS MB|budget|peer M events/s|peer peak RSS MB|ada ÷ peer")
	row = 1
	for (i = 1; i <= nview; i++) {
		view = view_order[i]
		for (j = 1; j <= nt; j++)
			for (c = 1; c <= nc; c++) {
				trace = traces[j]; cond = conds[c]
				k = cond SUBSEP trace SUBSEP "ada" SUBSEP view
				u = cond SUBSEP trace SUBSEP (view == "atf" ? "dd" : "uftrace") SUBSEP view
				if (!(k in ran)) continue
				row++
				cell(row, 1, view); cell(row, 2, trace); cell(row, 3, cond)
				cell(row, 4, speed(k)); cell(row, 5, speed(k, 1)); cell(row, 6, rss(k))
				cell(row, 7, verdicts(k, view, cond, trace))
				cell(row, 8, speed(u)); cell(row, 9, rss(u))
				n = vratios(k, u)
				cell(row, 10, n ? vstat(n, 2, "×") : "—")
			}
	}
	table_if(row)
	print "ada's command and the peer's, per view:"
	print ""
	for (i = 1; i <= nview; i++)
		if ((" " vmeta["views"] " ") ~ (" " view_order[i] " ")) print "- " view_order[i] ": " what[view_order[i]]
	print ""

	print "Peak RSS against the trace's length (MB, idle, the highest of any round):"
	print ""
	header("view|micro-small (" mev(vmeta["events.ada.micro-small"]) " events)|micro (" mev(vmeta["events.ada.micro"]) " events)|lua (" mev(vmeta["events.ada.lua"]) " events)")
	row = 1
	for (i = 1; i <= nview; i++) {
		view = view_order[i]
		k = "idle" SUBSEP "micro-small" SUBSEP "ada" SUBSEP view
		if (!(k in ran)) continue
		row++
		cell(row, 1, view)
		cell(row, 2, rss(k))
		cell(row, 3, rss("idle" SUBSEP "micro" SUBSEP "ada" SUBSEP view))
		cell(row, 4, rss("idle" SUBSEP "lua" SUBSEP "ada" SUBSEP view))
	}
	table_if(row)
}

END {
	if (!vround) { print "views.awk: no runs in views.tsv" > "/dev/stderr"; exit 1 }
	views_section()
}
