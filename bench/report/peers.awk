# peers.awk - issue 5's budgets against uftrace and XRay, per workload (micro,
# Lua, SQLite), in the report (see main.awk).

# Issue 5's budgets on workload pre ("" is micro): ada fentry index-only
# against uftrace fentry (the same functions) and XRay FDR, per recorded
# event, in CPU (tracer-only, whole process tree) and bytes on disk. The CPU
# verdicts use the same-round ratio (rmed), the medians shown beside it.
function budget5(pre, title,    a, u, ac, uc, ab, ub, xc, ok, xr, row, miss, why_cpu, why_bytes, why_drop, why_x, fl, rr, rr_u) {
	a = pre "ada-fentry"; u = pre "uftrace-fentry"; xr = pre "xray-fdr"
	if (!(a in seen)) return
	print "### Budgets against uftrace and XRay (issue #5): " title
	print ""
	print "Per recorded event, tracer-only CPU of the whole process tree and bytes on disk; ada"
	print "is `" a "` (fentry, ADA_DETAIL=off" (pre == "" ? "" : ", ADA_DYNHOOK=off") "), uftrace `" u "` (the same functions), XRay `" xr "`."
	print "A CPU verdict is on the *same-round* ratio: each round's ada figure over the peer's of"
	print "the same round, their median over the rounds, [min–max] after it."
	print ""
	ac = med(a, "over_rec"); ab = med(a, "bytes_rec")
	uc = (u in seen) ? med(u, "over_rec") : ""; ub = (u in seen) ? med(u, "bytes_rec") : ""
	xc = (xr in seen) ? med(xr, "over_rec") : ""
	cell(1, 1, "budget"); cell(1, 2, "target"); cell(1, 3, "measured"); cell(1, 4, "verdict")
	row = 1
	cell(++row, 1, "CPU per event vs uftrace"); cell(row, 2, "ada ≤ 1/5 of uftrace")
	if (uc == "" || ac == "") { cell(row, 3, "uftrace " ((u in nfailed) ? failed_txt(u) : "not run")); cell(row, 4, "—") }
	else {
		rr = rr_u = rmed(a, u, "over_rec")
		ok = rr != "" && rr <= 0.2
		cell(row, 3, sprintf("ada %s ns, uftrace %s ns; same round ada ÷ uftrace %s", stat(a, "over_rec", 1), stat(u, "over_rec", 1), rstat(a, u, "over_rec")))
		cell(row, 4, verdict(ok)); if (!ok) why_cpu = 1
		printf "bench: %s %-28s ada %.1f ns/event, uftrace %.1f: same round ×%.2f (target ≤ ×0.20)\n", ok ? "PASS" : "MISS", title ": CPU vs uftrace", ac, uc, rr > "budgets.txt"
	}
	cell(++row, 1, "bytes per event vs uftrace"); cell(row, 2, "ada ≤ 1/4 of uftrace")
	if (ub == "" || ab == "") { cell(row, 3, "—"); cell(row, 4, "—") }
	else {
		ok = ab * 4 <= ub
		cell(row, 3, sprintf("ada %s, uftrace %s bytes: 1/%.1f", stat(a, "bytes_rec", 2), stat(u, "bytes_rec", 2), ub / ab))
		cell(row, 4, verdict(ok)); if (!ok) why_bytes = 1
		printf "bench: %s %-28s ada %.2f bytes/event, uftrace %.2f: 1/%.1f (target 1/4)\n", ok ? "PASS" : "MISS", title ": bytes vs uftrace", ab, ub, ub / ab > "budgets.txt"
	}
	ok = vmax(a, "drop") == 0
	cell(++row, 1, "events dropped"); cell(row, 2, "0"); cell(row, 3, drops_by_round(a)); cell(row, 4, verdict(ok))
	if (!ok) why_drop = 1
	printf "bench: %s %-28s %s (target 0)\n", ok ? "PASS" : "MISS", title ": dropped", drops_by_round(a) > "budgets.txt"
	cell(++row, 1, "CPU per event vs XRay FDR"); cell(row, 2, "ada ≤ XRay FDR")
	if (xc == "" || ac == "") { cell(row, 3, "XRay " ((xr in nfailed) ? failed_txt(xr) : "not run")); cell(row, 4, "—") }
	else {
		rr = rmed(a, xr, "over_rec")
		ok = rr != "" && rr <= 1
		cell(row, 3, sprintf("ada %s ns, XRay FDR %s ns; same round ada ÷ XRay %s", stat(a, "over_rec", 1), stat(xr, "over_rec", 1), rstat(a, xr, "over_rec")))
		cell(row, 4, verdict(ok)); if (!ok) why_x = 1
		printf "bench: %s %-28s ada %.1f ns/event, XRay FDR %.1f (target ≤)\n", ok ? "PASS" : "MISS", title ": CPU vs XRay FDR", ac, xc > "budgets.txt"
	}
	# The other pairs, for information.
	pair_row(++row, pre "ada-fentry-libcall", pre "uftrace-fentry-libcall", "with library calls (information)")
	pair_row(++row, pre "ada-fentry-detail", pre "uftrace-fentry-args", "registers/arguments (information)")
	pair_row(++row, pre "ada", pre "uftrace-cyg", "cyg, -finstrument-functions (information)")
	table()
	fl = nclock ? floor_med : ""
	if (why_cpu) {
		printf "**Why the CPU budget is missed here.** ada fentry costs %.1f ns of CPU per event over the untraced run, uftrace fentry %.1f ns (medians; same round, ada's is ×%.2f of uftrace's, not ≤ ×0.20). ", ac, uc, rr_u
		if (fl != "") printf "One read of the tick counter (rdtsc, taken once per event) costs %.1f ns on this machine (clock floor above), so %.0f %% of ada's figure is the clock read alone; ", fl, 100 * fl / ac
		print "ada's figure also holds its recorder's encoding and lz4 compression, and in fentry mode each call's return is hijacked (a mispredicted return per call, docs/internals.md \"Limits and decisions\")."
		if (why[u, 1] ~ /depth/) print "uftrace did not record calls deeper than 1024 frames here (it never saw the frames longjmp abandoned, as it hooks no longjmp with --no-libcall), so it recorded fewer events than ada while its hook still ran on every call: its per-event figure is inflated by that, which flatters the ratio rather than explaining a miss."
		print ""
	}
	if (why_bytes) {
		printf "**Why the bytes budget is missed here.** ada wrote %.2f bytes per event, uftrace %.2f.\n\n", ab, ub
	}
	if (why_drop) {
		print "**Why events were dropped.** " drops_by_round(a) ". `ring_full` means the recorder did not drain the 16 MiB ring before the traced thread filled it: on this 2-CPU machine, shared with other jobs (load average " meta["load"] "), the recorder is not always scheduled within the ~0.2 s the ring holds at this program's call rate. The trace stays balanced and the manifest counts every lost event."
		print ""
	}
	if (why_x) {
		printf "**Why ada is not faster than XRay FDR here.** ada %.1f ns/event, XRay FDR %.1f ns/event (each over its own recorded events; clang's build inlines differently from gcc's).\n\n", ac, xc
	}
	if (xc != "" && meta["xray_clock"] == "clock_gettime")
		print "XRay's figures on this machine include clock_gettime(CLOCK_REALTIME) per event (no `rdtscp` here: XRay then does not read the TSC); on a CPU with rdtscp its per-event cost would be lower."
	print ""
}
# A row comparing ada configuration a with uftrace configuration u per event.
function pair_row(r, a, u, name,    ac, uc) {
	cell(r, 1, name); cell(r, 2, "—"); cell(r, 4, "—")
	if (!((a in seen) && (u in seen))) { cell(r, 3, "not run"); return }
	ac = med(a, "over_rec"); uc = med(u, "over_rec")
	if (ac == "" || uc == "") { cell(r, 3, a ": " stat(a, "over_rec", 1) " ns, " u ": " ((u in nfailed) ? failed_txt(u) : "—")); return }
	cell(r, 3, sprintf("%s %s ns, %s %s ns: 1/%.1f", a, stat(a, "over_rec", 1), u, stat(u, "over_rec", 1), uc / ac))
}
