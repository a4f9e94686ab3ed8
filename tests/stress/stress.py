#!/usr/bin/env python3
"""stress.py - make stress: ada under the conditions most likely to break it.

Each part runs one program of tests/stress/progs/ built with gcc (plain) and
with bin/adacc in fentry, cyg and patchable mode (its entries patched by the
program at start-up and at each dlopen, taken over by the recorder), and
checks, for each mode:
  - the traced run prints what the plain run prints, and exits alike;
  - ada-symbolize converts the trace and --check accepts it;
  - every thread's frames nest (tests/realworld/atfstat.c, the tests' own
    ATF reader);
  - events written + lost = calls: the program counts its own calls per
    function ("calls <name> <n>" on stderr); the trace's CALLs of each
    function, over every process, must equal its count, or, where the
    manifests report events not recorded, written calls + lost events / 2
    (a call lost is its CALL and its RETURN) must equal the calls made.

Parts (each bounded: a run that takes longer than its limit fails):
  threads64  64 threads calling at full speed on 64 KiB rings (ADA_RING_KB)
  churn      1000 short threads, 16 alive at a time
  sigstorm   a timer signal every 10 us whose handler calls traced functions,
             while the program calls, until 20000 signals were handled
  forkstorm  100 children calling traced functions, ending by _exit or exit
  dlopen1    one thread loading two libraries in turn at one address
  dlopen2    two threads, each with its own pair of libraries

  tests/stress/stress.py [--load] [--keep] [PART...]

--load runs a busy process per CPU meanwhile; --keep keeps the scratch
directory. Exit status 0 when every check passed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROGS = os.path.join(ROOT, "tests", "stress", "progs")
SWAP_LIB = os.path.join(ROOT, "tests", "e2e", "progs", "swap", "swap_lib.c")
ADACC = os.path.join(ROOT, "bin", "adacc")
SYMBOLIZE = os.path.join(ROOT, "bin", "ada-symbolize")
MODES = ("fentry", "cyg", "patchable")
RUN_LIMIT_S = 60

# name: (program, arguments, extra environment); "{dir}" is the libraries'
PARTS = {
    "threads64": ("threads64", ["3000"], {"ADA_RING_KB": "64"}),
    "churn": ("churn", ["1000"], {}),
    "sigstorm": ("sigstorm", ["20000"], {}),
    "forkstorm": ("forkstorm", ["100"], {}),
    "dlopen1": ("dlloop", ["{dir}", "300", "1"], {"ADA_DYNHOOK": "on"}),
    "dlopen2": ("dlloop", ["{dir}", "150", "2"], {"ADA_DYNHOOK": "on"}),
}
LIBS = "abcd"


class Failure(Exception):
    pass


def run(argv, env=None, limit=RUN_LIMIT_S, cwd=None):
    try:
        return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        raise Failure("%s: still running after %d s" % (" ".join(argv), limit))


def must(argv, what, **kw):
    r = run(argv, **kw)
    if r.returncode != 0:
        raise Failure("%s failed (%d):\n%s%s" % (what, r.returncode, r.stdout[-2000:],
                                                 r.stderr[-2000:]))
    return r


def build(work):
    """Plain and traced builds of every program, the libraries, atfstat."""
    for prog in sorted({p for p, _, _ in PARTS.values()}):
        src = os.path.join(PROGS, prog + ".c")
        must(["gcc", "-O2", "-pthread", "-o", os.path.join(work, "plain", prog), src, "-ldl"],
             "gcc " + prog)
        for mode in MODES:
            must([ADACC, "--ada-mode=" + mode, "-O2", "-pthread", "-o",
                  os.path.join(work, mode, prog), src, "-ldl"], "adacc %s %s" % (mode, prog))
    for who in LIBS:
        name = "lib%s.so" % who
        flags = ["-O2", "-shared", "-fPIC", "-DWHO=" + who, SWAP_LIB]
        must(["gcc", "-o", os.path.join(work, "plain", name)] + flags, "gcc " + name)
        for mode in MODES:
            must([ADACC, "--ada-mode=" + mode, "-o", os.path.join(work, mode, name)] + flags,
                 "adacc %s %s" % (mode, name))
    must(["gcc", "-std=gnu11", "-O2", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "tests"),
          "-o", os.path.join(work, "atfstat"), os.path.join(ROOT, "tests/realworld/atfstat.c"),
          os.path.join(ROOT, "tests/lib/atf_read.c"), os.path.join(ROOT, "tests/lib/proc.c")],
         "atfstat")


def environment(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADA_")}
    env["ADA_DYNHOOK"] = "off"
    env.update(extra)
    return env


def counted(stderr):
    """The program's own counts: {function: calls}."""
    calls = {}
    for line in stderr.splitlines():
        w = line.split()
        if len(w) == 3 and w[0] == "calls":
            calls[w[1]] = int(w[2])
    return calls


def pid_dirs(trace):
    out = []
    for session in sorted(os.listdir(trace)):
        sdir = os.path.join(trace, session)
        out += [os.path.join(sdir, p) for p in sorted(os.listdir(sdir)) if p.startswith("pid_")]
    return out


def trace_calls(work, pids):
    """CALLs per function name over every process, and lost events."""
    written, lost, events = {}, 0, 0
    for pid in pids:
        r = must([os.path.join(work, "atfstat"), pid], "atfstat " + pid)
        for line in r.stdout.splitlines():
            w = line.split(None, 3)
            if w[0] == "function":
                written[w[3]] = written.get(w[3], 0) + int(w[1])
        with open(os.path.join(pid, "manifest.json")) as f:
            m = json.load(f)
        lost += sum(n for reason, n in m["dropped"].items() if reason != "detail_full")
        events += sum(t["events"] for t in m["threads"])
    return written, lost, events


def check_part(work, part, mode):
    prog, args, extra = PARTS[part]
    args = [a.replace("{dir}", os.path.join(work, mode)) for a in args]
    plain_args = [a.replace("{dir}", os.path.join(work, "plain")) for a in args]
    trace = os.path.join(work, "trace-%s-%s" % (part, mode))
    plain = run([os.path.join(work, "plain", prog)] + plain_args, env=environment({}))
    env = environment(extra)
    env["ADA_OUTPUT"] = trace
    start = time.monotonic()
    traced = run([os.path.join(work, mode, prog)] + args, env=env)
    took = time.monotonic() - start
    if (traced.stdout, traced.returncode) != (plain.stdout, plain.returncode):
        raise Failure("output changed: plain %d %r, traced %d %r\n%s" % (
            plain.returncode, plain.stdout, traced.returncode, traced.stdout,
            traced.stderr[-2000:]))
    ada_lines = [l for l in traced.stderr.splitlines() if l.startswith("ada:")]
    must([SYMBOLIZE, "-q", trace], "ada-symbolize")
    must([SYMBOLIZE, "--check", trace], "ada-symbolize --check")
    calls = counted(traced.stderr)
    pids = pid_dirs(trace)
    written, lost, events = trace_calls(work, pids)
    made, kept = sum(calls.values()), sum(written.get(f, 0) for f in calls)
    wrong = {f: (n, written.get(f, 0)) for f, n in calls.items() if written.get(f, 0) != n}
    if (lost == 0 and wrong) or kept + lost // 2 != made or lost % 2:
        raise Failure("calls made %d, written %d, lost events %d; per function (made, "
                      "written): %s" % (made, kept, lost, wrong))
    shutil.rmtree(trace)
    return "%d calls, %d events written, %d lost, %d processes, %.1f s%s" % (
        made, events, lost, len(pids), took,
        "; " + " | ".join(ada_lines) if ada_lines else "")


class Load:
    """A busy process per CPU, as a build would load the machine."""

    def __init__(self, on):
        self.procs = []
        if on:
            for _ in range(os.cpu_count() or 2):
                self.procs.append(subprocess.Popen(["sh", "-c", "while :; do :; done"]))

    def stop(self):
        for p in self.procs:
            p.kill()
            p.wait()


def main(argv):
    load = "--load" in argv
    keep = "--keep" in argv
    parts = [a for a in argv if not a.startswith("--")] or list(PARTS)
    for p in parts:
        if p not in PARTS:
            print("stress.py: unknown part %r (parts: %s)" % (p, ", ".join(PARTS)))
            return 2
    work = tempfile.mkdtemp(prefix="ada-stress-")
    for d in ("plain",) + MODES:
        os.mkdir(os.path.join(work, d))
    failed = 0
    started = time.monotonic()
    try:
        build(work)
    except Failure as e:
        print("stress: build failed: %s" % e)
        return 1
    busy = Load(load)
    try:
        for part in parts:
            for mode in MODES:
                try:
                    print("PASS %-9s %-6s %s" % (part, mode, check_part(work, part, mode)),
                          flush=True)
                except Failure as e:
                    failed += 1
                    print("FAIL %-9s %-6s %s" % (part, mode, e), flush=True)
    finally:
        busy.stop()
    print("stress: %d of %d checks failed, %.0f s%s" % (
        failed, len(parts) * len(MODES), time.monotonic() - started,
        " (a busy process per CPU)" if load else ""))
    if keep or failed:
        print("stress: scratch directory kept: %s" % work)
    else:
        shutil.rmtree(work)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
