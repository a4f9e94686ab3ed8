#!/bin/sh
# smoke.sh - the part of run.sh that make check runs (tests/run.sh runs each
# of its arguments as a program, with no arguments of its own).
exec "$(dirname "$0")/run.sh" --smoke
