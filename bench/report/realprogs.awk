# realprogs.awk - the real programs' sections of the report (see main.awk):
# Lua and SQLite (issue 5).

# --- issue 5: the real programs ------------------------------------------------
# What configuration v (without its workload prefix) runs.
function desc(v) {
	if (v == "plain") return "gcc -O2, untraced"
	if (v == "plain-small") return "untraced, xray-basic's size"
	if (v == "ada") return "ada cyg, ADA_DYNHOOK=off"
	if (v == "ada-fentry") return "ada fentry, index only, ADA_DYNHOOK=off"
	if (v == "ada-fentry-libcall") return "ada fentry, index only, + library calls (ADA_DYNHOOK=on)"
	if (v == "ada-fentry-detail") return "ada fentry, ADA_DETAIL=all, ADA_DYNHOOK=off"
	if (v == "ada-fentry-window") return "ada fentry, the default: detail windows (no trigger), ADA_DYNHOOK=off"
	if (v == "uftrace-fentry") return "uftrace, -pg -mfentry, --no-libcall"
	if (v == "uftrace-fentry-libcall") return "uftrace, -pg -mfentry, + PLT calls (default)"
	if (v == "uftrace-fentry-args") return "uftrace, -pg -mfentry, --no-libcall, -A arg1..6 -R retval"
	if (v == "uftrace-mcount") return "uftrace, -pg, --no-libcall"
	if (v == "uftrace-cyg") return "uftrace, -finstrument-functions, --no-libcall"
	if (v == "xray-fdr") return "XRay FDR mode (clang-14)"
	if (v == "xray-basic") return "XRay basic mode (clang-14), smaller run"
	if (v == "patchable") return "ada patchable, every site on, index only, ADA_DYNHOOK=off"
	if (v == "plain-large") return "untraced, the tracing-off rows' size"
	if (v == "patchable-off") return "ada patchable, ADA_TRACE=off, ADA_DYNHOOK=off, larger run"
	if (v == "patchable-off-dynhook") return "ada patchable, ADA_TRACE=off, dynamic hooks on, larger run"
	if (v == "patchable-disabled") return "ada patchable, ADA_DISABLE=1, larger run"
	return v
}

function rw_section(p, title,    i, c, v, n, pre) {
	pre = p "-"
	print "## " title
	print ""
	if (p == "lua")
		printf "The Lua 5.4 interpreter (Debian's source, tests/realworld/build.sh) running bench/lua/workload.lua %s:\n", meta["lua_size"]
	else
		printf "SQLite's speedtest1 (Debian's source, sqlite3.c amalgamation, tests/realworld/build.sh), `--size %s --memdb`:\n", meta["sql_size"]
	print "every build of the same sources with -O2, only the instrumentation differs. A real program"
	print "prints no CPU time of its own: *CPU* is user+sys of the whole process tree (runstat),"
	print "ada's and uftrace's recorders included; *tracer CPU ns/event* is that less the"
	print "untraced run's of the same round, divided by the events **this tracer recorded**"
	print "(each tracer's own count: ada's manifests, uftrace's `.dat` size ÷ 16, XRay's log"
	print "records counted by bench/xraycount.c). XRay's program is compiled by clang, which"
	print "inlines differently from gcc, so it has its own event count; the per-event figures make"
	print "the rows comparable. *bytes/event* is `du -sb` of the trace directory (ada: the raw"
	print "trace, before ada-symbolize) ÷ the same events. *symbolize* is ada-symbolize's wall"
	print "time per million events."
	print ""
	cell(1, 1, "config"); cell(1, 2, "traces"); cell(1, 3, "wall s"); cell(1, 4, "slowdown wall"); cell(1, 5, "slowdown CPU")
	cell(1, 6, "tracer CPU ns/event"); cell(1, 7, "bytes/event on disk"); cell(1, 8, "events recorded")
	cell(1, 9, "dropped"); cell(1, 10, "symbolize s per M events")
	n = 1
	for (i = 1; i <= nrw[p]; i++) {
		c = rworder[p, i]; v = substr(c, 5)
		cell(++n, 1, c); cell(n, 2, desc(v))
		if (!collect(c, "wall")) {
			cell(n, 3, failed_txt(c))
			for (k = 4; k <= 10; k++) cell(n, k, "—")
			continue
		}
		cell(n, 3, stat(c, "wall", 3))
		cell(n, 4, v ~ /plain/ ? "1" : "×" stat(c, "wall_x", 1))
		cell(n, 5, v ~ /plain/ ? "1" : "×" stat(c, "cpu_x", 1))
		cell(n, 6, v ~ /plain/ ? "—" : stat(c, "over_rec", 1))
		cell(n, 7, stat(c, "bytes_rec", 2)); cell(n, 8, stat(c, "rec", 0))
		cell(n, 9, v ~ /xray/ ? "n/a" : stat(c, "drop", 0))
		if (c in nfailed) cell(n, 9, T[n, 9] "; " failed_txt(c))
		for (r = 1; r <= nround; r++) if (why[c, r] != "" && why[c, r] != "-") { cell(n, 9, T[n, 9] " (" why[c, r] ")"); break }
		cell(n, 10, stat(c, "sym_spm", 3))
	}
	table()
	print "*dropped*: ada's manifests (events lost, by reason in brackets; `detail_full` loses a"
	print "detail record, not its event); uftrace's `LOST n records` warnings (0: none), with"
	print "`depth>1024` when it warned that calls deeper than its shadow stack were not recorded"
	print "(neither counted); XRay counts nothing it loses (n/a; its FDR buffers are sized to keep"
	print "every event: " meta["xray_fdr_options"] ")."
	print "Pairing: on " title " every ada row except `" pre "ada-fentry-libcall` runs with"
	print "ADA_DYNHOOK=off and every uftrace row except `" pre "uftrace-fentry-libcall` with `--no-libcall`:"
	print "ada fentry and uftrace fentry then trace exactly the functions gcc gave a `call"
	print "__fentry__` in the same compile, which is the budget's pair. The -libcall rows add"
	print "library calls: ada's dynamic hooks cover every module's PLT/GOT calls (libc calling"
	print "libc's exported functions too), uftrace's default only the program's own PLT calls,"
	print "so they record different sets and are compared per event only."
	print ""
	count_check(pre "ada-fentry", pre "uftrace-fentry")
	count_check(pre "ada", pre "uftrace-cyg")
	for (c in ucheck_dat) if (substr(c, 1, 4) == pre)
		printf "uftrace's count checked on round 1 against `uftrace report` (calls × 2): %s %s from the files, %s from the report%s.\n", c, ucheck_dat[c], ucheck_rep[c], ucheck_dat[c] == ucheck_rep[c] ? " (equal)" : " (different: the report's call counts miss calls still open at exit and count some twice)"
	if ((pre "xray-basic") in seen)
		printf "xray-basic runs the smaller size above with its own untraced baseline (%splain-small) every round: XRay's basic mode makes two system calls per event.\n", pre
	if ((pre "plain-large") in seen)
		printf "The tracing-off rows (%spatchable-off, -off-dynhook, -disabled) run %s (BENCH_%s_LARGE) with their own untraced baseline of that size, %splain-large, every round: see \"Patchable mode\" below.\n", pre, p == "lua" ? "workload.lua " meta["lua_large"] : "speedtest1 --size " meta["sql_large"], toupper(p), pre
	print ""
	budget5(pre, title)
}

# Round 1's recorded events of ada config a and uftrace config u, which trace
# the same functions of the same compile.
function count_check(a, u,    ea, eu) {
	if (!((a in seen) && (u in seen))) return
	ea = rec[a, 1]; eu = rec[u, 1]
	if (ea !~ /^[0-9]+$/ || eu !~ /^[0-9]+$/) return
	if (ea == eu) printf "Events cross-checked (round 1): %s and %s both recorded %s.\n", a, u, ea
	else printf "Events cross-checked (round 1): %s recorded %s, %s %s: %+.0f (%+.1f %%) for uftrace.\n", a, ea, u, eu, eu - ea, 100 * (eu - ea) / ea
}
