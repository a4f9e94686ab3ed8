# recovery.awk - the report's "Recovery after SIGKILL" section (see main.awk).

# --- issue 10: recovery after SIGKILL ------------------------------------------------
# Verdict of recovery round i; k_why[i] says what failed.
function kill_ok(i,    np, nt, pc, tc, j, d, bad, idle) {
	k_why[i] = ""; k_diff[i] = ""
	if (k_exit[i] != 137) k_why[i] = k_why[i] "; exit status " k_exit[i] (k_exit[i] == 3 ? " (not killed)" : " (not the SIGKILL)")
	if (k_sym[i] != 0) k_why[i] = k_why[i] "; ada-symbolize exit " k_sym[i]
	if (k_check[i] != 0) k_why[i] = k_why[i] "; --check exit " k_check[i]
	if (k_atf[i] != 0) k_why[i] = k_why[i] "; atfstat exit " k_atf[i] (k_atf[i] == 1 ? " (unbalanced)" : "")
	np = split(k_prog[i], pc, ","); nt = split(k_trace[i], tc, ",")
	k_psum[i] = k_tsum[i] = 0
	bad = idle = 0
	for (j = 1; j <= np; j++) {
		d = tc[j] - pc[j]
		k_psum[i] += pc[j]; k_tsum[i] += tc[j]
		k_diff[i] = k_diff[i] (j > 1 ? "," : "") (d > 0 ? "+" : "") d
		if (pc[j] + 0 == 0) idle++
		else if (d < 0 || d > 1) bad++
	}
	if (np != k_threads[i] || nt != np) k_why[i] = k_why[i] "; counts missing"
	else {
		if (bad) k_why[i] = k_why[i] "; " bad " thread(s) outside 0..+1"
		if (idle) k_why[i] = k_why[i] "; " idle " thread(s) counted no call"
	}
	sub(/^; /, "", k_why[i])
	return k_why[i] == ""
}
function kill_section(    i, j, c, n, ok, npass, nc, all, ign) {
	print "## Recovery after SIGKILL"
	print ""
	printf "bench/killme.c built by adacc (cyg and fentry modes, runtime defaults): %s threads, thread i\n", k_threads[1]
	print "calling its own instrumented function `km_call_<i>` in a loop and storing its count of"
	print "completed calls in a MAP_SHARED file mapping after each call, where a SIGKILL does not"
	print "erase it. run.sh kills it with SIGKILL at a random moment 100–400 ms after starting it,"
	print "then runs `ada-symbolize` on the trace (the recorder outlives the program and drains its"
	print "rings), `ada-symbolize --check`, and tests/realworld/atfstat.c (the tests' own ATF reader)"
	print "for the CALLs of each `km_call_<i>`. The CALL is recorded when the function is entered,"
	print "the count stored after it returned, so the rule per thread is **trace − program ∈ {0, +1}**"
	print "(+1: the kill fell between the two), with a count above 0. A round passes when every"
	print "thread does, the process died of the SIGKILL, and ada-symbolize, --check and atfstat exit 0."
	print "*events lost* is what the manifest's threads[].dropped say the threads lost (`detail_full`"
	print "excepted); *symbolize s* is ada-symbolize's wall time."
	print ""
	header("config|round|killed at ms|program's calls|trace's calls|trace − program, per thread|events lost (manifest)|symbolize s|--check|verdict")
	n = 1
	for (i = 1; i <= nkill; i++) {
		ok = kill_ok(i)
		all++; if (ok) npass++
		nc[k_conf[i]]++; if (ok) nc[k_conf[i], "pass"]++
		if (k_ign[i] != "-") ign = k_ign[i]
		cell(++n, 1, k_conf[i]); cell(n, 2, k_round[i]); cell(n, 3, k_ms[i]); cell(n, 4, k_psum[i]); cell(n, 5, k_tsum[i])
		cell(n, 6, k_diff[i]); cell(n, 7, k_lost[i] (k_lost[i] != "0" && k_why2[i] != "-" && k_why2[i] != "" ? " (" k_why2[i] ")" : ""))
		cell(n, 8, k_symns[i] == "" ? "—" : sprintf("%.2f", k_symns[i] / 1e9))
		cell(n, 9, k_check[i] == 0 ? "OK" : "exit " k_check[i])
		cell(n, 10, ok ? "**PASS**" : "**MISS**: " k_why[i])
	}
	table()
	header("budget|target|measured|verdict")
	n = 1
	for (j = 1; j <= nkconf; j++) {
		c = korder[j]
		ok = nc[c, "pass"] == nc[c]
		cell(++n, 1, "recovery after SIGKILL, " c); cell(n, 2, "every round"); cell(n, 3, (nc[c, "pass"] + 0) " of " nc[c] " rounds")
		cell(n, 4, verdict(ok))
		printf "bench: %s %-28s %d of %d rounds (target every round)\n", ok ? "PASS" : "MISS", "recovery: " c, nc[c, "pass"], nc[c] > "budgets.txt"
	}
	table()
	if (ign != "") print "ada printed `unknown variable` for " ign " in these runs."
	if (npass < all)
		print "A trace with fewer calls than the program counted lost events: either those the manifest counts (a full ring, without backpressure), or those its thread had put in its ring that the recorder, which outlives the program, did not write after the process died."
	print ""
}
