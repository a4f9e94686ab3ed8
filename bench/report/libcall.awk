# libcall.awk - the library-call section of the report (see main.awk).

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
	table_if(row)
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
