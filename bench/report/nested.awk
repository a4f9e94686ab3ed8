# nested.awk - micro's nested call shape in the report (see main.awk): each
# iteration calls bench_pair, which calls bench_f and bench_g (a caller with
# two leaf callees), run for ada (fentry, index only), uftrace and XRay FDR
# as micro's flat loop is; its costs, and same-round ratios to its peers and
# to the flat loop.

function nested_section(    i, c, row, flat) {
	print "## Nested calls (issue 13)"
	print ""
	printf "bench/micro.c run as `micro %s nested`: each iteration calls bench_pair, which\n", meta["nested_iters"]
	print "calls bench_f and bench_g, so three calls and three returns (6 events), and two of"
	print "the returns go back to a frame still open below the loop, as in most real call"
	print "trees; micro's flat loop calls both leaves from the loop itself. The iterations make"
	print "the flat loop's event count. Each configuration runs the same program as its flat"
	print "counterpart (ada fentry with ADA_DETAIL=off, uftrace record --no-libcall on the -pg"
	print "-mfentry build, XRay FDR), in the same rounds; figures as in the Results above."
	print ""
	header("config|wall s|app-thread CPU ns/event|total CPU ns/event (raw)|of it sys ns/event|tracer-only CPU ns/recorded event|bytes/event on disk|events recorded|dropped")
	for (i = 1; i <= nnested; i++) {
		c = norder[i]
		cell(i + 1, 1, c); cell(i + 1, 2, stat(c, "wall", 3)); cell(i + 1, 3, stat(c, "app_ev", 1))
		cell(i + 1, 4, stat(c, "cpu_ev", 1)); cell(i + 1, 5, stat(c, "sys_ev", 1))
		cell(i + 1, 6, c ~ /plain/ ? "0" : stat(c, "over_rec", 1)); cell(i + 1, 7, stat(c, "bytes_rec", 2))
		cell(i + 1, 8, stat(c, "rec", 0)); cell(i + 1, 9, c ~ /xray/ ? "n/a" : stat(c, "drop", 0))
	}
	table()
	writeback_text(norder, nnested, 1)
	for (c in ucheck_dat)
		if (c ~ /^nested-/)
			printf "Checked on round 1 against `uftrace report` (calls × 2): %s %s from the files, %s from the report%s.\n\n", c, ucheck_dat[c], ucheck_rep[c], ucheck_dat[c] == ucheck_rep[c] ? " (equal)" : " (DIFFERENT)"

	print "Same-round ratios (the median over rounds of each round's ratio, [min–max]): tracer-only"
	print "CPU per recorded event between tracers, app-thread CPU per event between the shapes."
	print ""
	header("ratio|measured (medians)|same-round ratio")
	row = 1
	row = nested_pair(row, "ada ÷ uftrace, nested", "nested-ada-fentry", "nested-uftrace-fentry", "over_rec")
	row = nested_pair(row, "ada ÷ XRay FDR, nested", "nested-ada-fentry", "nested-xray-fdr", "over_rec")
	row = nested_pair(row, "ada ÷ uftrace, flat (for comparison)", "ada-fentry", "uftrace-fentry", "over_rec")
	row = nested_pair(row, "ada window ÷ index-only, nested, app-thread", "nested-ada-fentry-window", "nested-ada-fentry", "app_ev")
	split("ada-fentry uftrace-fentry xray-fdr", flat, " ")
	for (i = 1; i <= 3; i++)
		row = nested_pair(row, flat[i] ": nested ÷ flat, app-thread", "nested-" flat[i], flat[i], "app_ev")
	table_if(row)
}
# A row of the ratio table when both configurations ran; the next row number.
function nested_pair(row, name, a, b, m) {
	if (!((a in seen) && (b in seen))) return row
	cell(++row, 1, name)
	cell(row, 2, sprintf("%s %.1f ns, %s %.1f ns", a, med(a, m), b, med(b, m)))
	cell(row, 3, rstat(a, b, m))
	return row
}
