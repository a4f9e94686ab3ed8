#!/bin/sh
# Runs each test binary given, prints its output, and closes with one line
# "N passed, N failed" counting test binaries. Exit status 1 if any failed.
passed=0; failed=0; names=
for t in "$@"; do
	printf '=== %s\n' "$t"
	if "$t"; then passed=$((passed + 1)); else failed=$((failed + 1)); names="$names $t"; fi
done
[ -n "$names" ] && printf 'FAILED:%s\n' "$names"
printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
