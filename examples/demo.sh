#!/bin/sh
# demo.sh - `make demo`: build examples/demo.c with adacc, run it traced,
# symbolize the trace, check it and print the call tree of every thread,
# then the views: the per-function report, a thread's timed replay, and the
# files for viewers (an SVG flame graph, Chrome JSON, a Perfetto trace).
#
# The program is built in a temporary directory, removed on exit; the trace
# is kept in ada-trace/demo/ at the top of the tree, replaced by each run
# (`make clean` removes it).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/ada-trace/demo

die() {
	printf 'demo: %s\n' "$*" >&2
	exit 1
}

for tool in bin/adacc bin/ada-symbolize lib/libada.so; do
	[ -e "$root/$tool" ] || die "$tool is missing; run 'make' first"
done

build=$(mktemp -d "${TMPDIR:-/tmp}/ada-demo.XXXXXX")
trap 'rm -rf "$build"' EXIT
trap 'exit 130' INT TERM

step() {
	printf '\n==> %s\n' "$*"
}

step "build: adacc -O2 -g -pthread -o demo examples/demo.c"
"$root/bin/adacc" -O2 -g -pthread -o "$build/demo" "$root/examples/demo.c" ||
	die "adacc failed"

# A fresh directory: ada-symbolize converts, and --replay prints, every
# session below it.
rm -rf "$out"
mkdir -p "$out"

# The detail lane (registers, stack) is written in windows around triggers:
# here each call of evaluate() and the 2000 events either side of it.
step "run: ADA_OUTPUT=$out ADA_TRIGGER=func:evaluate ./demo"
status=0
ADA_OUTPUT=$out ADA_TRIGGER=func:evaluate "$build/demo" || status=$?
[ "$status" -eq 0 ] || die "the traced program exited with status $status"

step "symbolize: ada-symbolize $out"
"$root/bin/ada-symbolize" "$out" || die "ada-symbolize failed"

step "check: ada-symbolize --check $out"
"$root/bin/ada-symbolize" --check "$out" || die "the trace does not pass --check"

step "replay: ada-symbolize --replay $out"
"$root/bin/ada-symbolize" --replay "$out" || die "ada-symbolize --replay failed"

# fentry mode (adacc's default) also recorded arguments and return values
# (in evaluate's windows: the manifest lists them under "windows").
step "dump: ada-symbolize --dump --limit 8 $out"
"$root/bin/ada-symbolize" --dump --limit 8 "$out" || die "ada-symbolize --dump failed"

# The views read the raw trace directly (docs/views.md).
step "report: ada-symbolize report $out"
"$root/bin/ada-symbolize" report "$out" || die "ada-symbolize report failed"

step "replay: ada-symbolize replay --thread 1 $out"
"$root/bin/ada-symbolize" replay --thread 1 "$out" || die "ada-symbolize replay failed"

step "exports: ada-symbolize flame --format svg, chrome, perfetto"
"$root/bin/ada-symbolize" flame --format svg -o "$out/demo.svg" "$out" ||
	die "ada-symbolize flame failed"
"$root/bin/ada-symbolize" chrome -o "$out/demo.json" "$out" || die "ada-symbolize chrome failed"
"$root/bin/ada-symbolize" perfetto -o "$out/demo.pftrace" "$out" ||
	die "ada-symbolize perfetto failed"
printf 'flame graph: %s/demo.svg (a browser opens it)\n' "$out"
printf 'Perfetto UI, chrome://tracing: %s/demo.pftrace, %s/demo.json\n' "$out" "$out"

printf '\nThe trace is in %s\n' "$out"
