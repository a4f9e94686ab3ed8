# workloads.sh - building the programs the configurations run, sourced by
# run.sh (which calls each function when a configuration needs it, in
# bench/out/): micro, libcall, startup, killme, and lua and speedtest1 from
# Debian's sources (tests/realworld/build.sh). XRay's are in peers.sh.

# build COMMAND...: runs it, its output appended to logs/build.log; dies,
# showing the log, if it fails.
build() { "$@" >>"$OUT/logs/build.log" 2>&1 || { cat "$OUT/logs/build.log" >&2; die "build failed: $*"; }; }

# killme in either ada mode, and the tests' ATF reader (the recovery rows).
build_killme() {
	build "$ROOT/bin/adacc" --ada-mode=cyg -O2 -pthread -o killme_cyg "$BENCH/killme.c"
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -pthread -o killme_fentry "$BENCH/killme.c"
	build gcc -std=gnu11 -O2 -Wall -D_GNU_SOURCE -I"$ROOT/tests" -o atfstat \
		"$ROOT/tests/realworld/atfstat.c" "$ROOT/tests/lib/atf_read.c" "$ROOT/tests/lib/proc.c"
}

# micro untraced, by adacc in either mode, and for uftrace when it runs (the
# nested rows run the same programs). -I runtime: micro includes ada.h (its
# ada_mark is a weak reference, called only when libada is linked in).
build_micro() {
	build gcc -O2 -I"$ROOT/runtime" -o micro_plain "$BENCH/micro.c"
	build "$ROOT/bin/adacc" --ada-mode=cyg -O2 -I"$ROOT/runtime" -o micro_ada "$BENCH/micro.c"
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -I"$ROOT/runtime" -o micro_ada_fentry "$BENCH/micro.c"
	if [ -n "$UFTRACE_CONFIGS" ] || wants 'nested-uftrace-*'; then
		build gcc -O2 -pg -mfentry -I"$ROOT/runtime" -o micro_fentry "$BENCH/micro.c"
		build gcc -O2 -pg -I"$ROOT/runtime" -o micro_pg "$BENCH/micro.c"
		build gcc -O2 -finstrument-functions -I"$ROOT/runtime" -o micro_cyg "$BENCH/micro.c"
	fi
}

# The programs find their libraries next to them ($ORIGIN), wherever out/ is.
build_libcall() {
	build gcc -O2 -fPIC -shared -o libbenchlib.so "$BENCH/benchlib.c"
	build gcc -O2 -o libcall_plain "$BENCH/libcall.c" -L. -lbenchlib '-Wl,-rpath,$ORIGIN'
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -o libcall_ada "$BENCH/libcall.c" -L. -lbenchlib '-Wl,-rpath,$ORIGIN'
	if [ -n "$LIB_UFTRACE" ]; then
		build gcc -O2 -pg -o libcall_pg "$BENCH/libcall.c" -L. -lbenchlib '-Wl,-rpath,$ORIGIN'
		build gcc -O2 -finstrument-functions -o libcall_cyg "$BENCH/libcall.c" -L. -lbenchlib '-Wl,-rpath,$ORIGIN'
	fi
}

# libmanydefs.so defines BENCH_SLOTS functions, libmanyslots.so calls each
# through its PLT (generated sources, in out/ only). -O0 for the definitions
# only shortens the build: their code is never run. One object, linked twice:
# lazy binding and -z now (the dynamic linker binds every slot before main).
# Sets JUMP_SLOTS and BIND_NOW.
build_startup() {
	awk -v n="$SLOTS" -v what=defs -f "$BENCH/manyslots.awk" >manydefs.c || die "manyslots.awk failed"
	awk -v n="$SLOTS" -v what=slots -f "$BENCH/manyslots.awk" >manyslots.c || die "manyslots.awk failed"
	build gcc -O0 -fPIC -shared -o libmanydefs.so manydefs.c
	build gcc -O2 -fPIC -c -o manyslots.o manyslots.c
	build gcc -shared -o libmanyslots.so manyslots.o -L. -lmanydefs '-Wl,-rpath,$ORIGIN' -Wl,-z,lazy
	build gcc -shared -o libmanyslots_now.so manyslots.o -L. -lmanydefs '-Wl,-rpath,$ORIGIN' -Wl,-z,now
	build gcc -O2 -o start_plain "$BENCH/startup.c" -L. -lmanyslots '-Wl,-rpath,$ORIGIN' -Wl,-z,lazy
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -o start_ada "$BENCH/startup.c" -L. -lmanyslots '-Wl,-rpath,$ORIGIN' -Wl,-z,lazy
	build gcc -O2 -o start_now_plain "$BENCH/startup.c" -L. -lmanyslots_now '-Wl,-rpath,$ORIGIN' -Wl,-z,now
	build "$ROOT/bin/adacc" --ada-mode=fentry -O2 -o start_now_ada "$BENCH/startup.c" -L. -lmanyslots_now '-Wl,-rpath,$ORIGIN' -Wl,-z,now
	# What the libraries hold, as readelf sees it (checked, and in the report).
	JUMP_SLOTS=unknown BIND_NOW=unknown
	if command -v readelf >/dev/null 2>&1; then
		JUMP_SLOTS=$(readelf -rW libmanyslots.so | grep -c 'JUMP_SLOT')
		[ "$JUMP_SLOTS" -ge "$SLOTS" ] || die "libmanyslots.so has $JUMP_SLOTS JUMP_SLOT relocations, expected $SLOTS"
		bn() { if readelf -dW "$1" | grep -qE 'BIND_NOW|Flags:.* NOW'; then echo "$1 binds now"; else echo "$1 binds lazily"; fi; }
		BIND_NOW="readelf -d: $(bn libmanyslots.so), $(bn libmanyslots_now.so)"
	fi
}

# lua and sqlite: one build per instrumentation, by tests/realworld/build.sh,
# into rw/<variant>/, two builds at a time. The variants the configurations
# need: plain (gcc -O2), ada-cyg, ada-fentry, ada-patchable (adacc), fentry,
# pg, cyg (gcc with -pg -mfentry, -pg, -finstrument-functions, for uftrace)
# and xray.
variant() { # configuration without its prefix -> variant
	case $1 in
	plain | plain-small | plain-large) echo plain ;;
	ada | ada-loaded*) echo ada-cyg ;;
	ada-fentry*) echo ada-fentry ;;
	patchable*) echo ada-patchable ;;
	uftrace-fentry*) echo fentry ;;
	uftrace-mcount) echo pg ;;
	uftrace-cyg) echo cyg ;;
	xray-*) echo xray ;;
	esac
}
rw_cc() { # variant -> the compiler command
	case $1 in
	plain) echo gcc ;;
	ada-cyg) echo "$ROOT/bin/adacc --ada-mode=cyg" ;;
	ada-fentry) echo "$ROOT/bin/adacc --ada-mode=fentry" ;;
	ada-patchable) echo "$ROOT/bin/adacc --ada-mode=patchable" ;;
	fentry) echo "gcc -pg -mfentry" ;;
	pg) echo "gcc -pg" ;;
	cyg) echo "gcc -finstrument-functions" ;;
	xray) echo "clang-14 -fxray-instrument -fxray-instruction-threshold=1" ;;
	esac
}
rw_build() { # program variant: builds rw/<variant>/<program>, log in logs/
	l=$OUT/logs/build-$1-$2.log
	ld=
	[ "$2" = xray ] && ld=$OUT/xrayfdr.o
	CC=$(rw_cc "$2") CFLAGS=-O2 LDFLAGS=$ld JOBS=1 "$REALWORLD" "$1" "$OUT/rw/$2" >"$l" 2>&1
}
rw_builds() { # prefix program
	# plain always, even when only loaded rows run: SQLite's amalgamation is
	# generated by the first build, and its generators must not be traced.
	vs=plain
	for c in $CONFIGS; do
		case $c in "$1"-*) vs=$(add "$vs" "$(variant "${c#"$1"-}")") ;; esac
	done
	set -- "$2" $vs
	prog=$1
	shift
	# The plain build first: it fetches the sources the first time.
	rw_build "$prog" "$1" || { cat "$OUT/logs/build-$prog-$1.log" >&2; die "building $prog ($1) failed"; }
	shift
	while [ $# -gt 0 ]; do
		rw_build "$prog" "$1" &
		p1=$!
		p2=
		if [ $# -gt 1 ]; then
			rw_build "$prog" "$2" &
			p2=$!
		fi
		wait $p1 || { cat "$OUT/logs/build-$prog-$1.log" >&2; die "building $prog ($1) failed"; }
		[ -z "$p2" ] || wait $p2 || { cat "$OUT/logs/build-$prog-$2.log" >&2; die "building $prog ($2) failed"; }
		shift
		[ $# -gt 0 ] && shift
	done
}
