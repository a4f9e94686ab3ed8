#!/bin/sh
# aarch64.sh - the end-to-end tests that take --target=aarch64, run with it:
# their programs cross-built for aarch64 in cyg and mcount modes against
# lib/aarch64/, run under qemu-aarch64, and their traces read by the host's
# ada-symbolize (tests/lib/target.h; issue 26). tests/run.sh runs each of
# its arguments with no arguments of its own, hence this file.
#
# make check-aarch64 runs it with A64_REQUIRED=1: a missing cross tool
# fails. make check runs it without: where the tools could not be installed
# (mk/aarch64.mk says why) it says so in one line and passes.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TESTS="test_examples test_signals test_hijack test_unwind test_vfork"

for need in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
	command -v "$need" >/dev/null 2>&1 && continue
	echo "aarch64: skipped, no $need (make check-aarch64 installs it as root)"
	[ -z "${A64_REQUIRED:-}" ]; exit
done
if [ ! -f "$ROOT/lib/aarch64/libada.so" ]; then
	echo "aarch64: skipped, no $ROOT/lib/aarch64/libada.so (make aarch64 builds it)"
	[ -z "${A64_REQUIRED:-}" ]; exit
fi
status=0
for t in $TESTS; do
	"$ROOT/build/tests/e2e/$t" --target=aarch64 || status=1
done
exit $status
