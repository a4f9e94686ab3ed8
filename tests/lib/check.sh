# check.sh - named checks for the shell tests (sourced: . tests/lib/check.sh).
#
#   check NAME CMD [ARG...]   runs CMD; prints "ok   NAME", or "FAIL NAME" and
#                             CMD's output (at most CHECK_LOG_LINES lines,
#                             default all), indented
#   checks_summary            prints "N passed, N failed" and exits 1 if any
#                             check failed, 0 otherwise
#
# CMD's output goes to "$TMP/log": the sourcing script makes TMP.
passed=0
failed=0

check() {
	name=$1
	shift
	if "$@" >"$TMP/log" 2>&1; then
		passed=$((passed + 1))
		echo "ok   $name"
	else
		failed=$((failed + 1))
		echo "FAIL $name"
		sed 's/^/     /' "$TMP/log" | head -n "${CHECK_LOG_LINES:-1000000}"
	fi
}

checks_summary() {
	printf '%d passed, %d failed\n' "$passed" "$failed"
	[ "$failed" -eq 0 ]
	exit
}
