#!/usr/bin/env python3
"""seeds.py - seed corpora for the fuzz targets, from real traces.

Usage: seeds.py ROOT OUT_DIR

Builds a few examples with bin/adacc in the cyg and fentry modes (fentry
records the detail lane: DETAIL records, detail.atf), runs them with their
trace in a scratch directory, converts it with bin/ada-symbolize and packs
the files of every process the way the harnesses read them (fuzz_input.h):
  OUT_DIR/raw/   flag, process.meta, thread_<N>.lz4 as is (flag 0) or
                 decompressed with `lz4 -dc` (flag 1, the harness re-frames it)
  OUT_DIR/atf/   flag 3 (write both CRCs), manifest.json, index.atf, detail.atf
  OUT_DIR/json/  manifest.json
Nothing here is committed: the seeds come from the tree being fuzzed.
"""
import glob
import os
import struct
import subprocess
import sys
import tempfile

EXAMPLES = ["recursion.c", "threads.c", "fork.c", "exit_nested.c"]
MODES = ["cyg", "fentry"]


def part(data):
    return struct.pack("<I", len(data)) + data


def read(path):
    with open(path, "rb") as f:
        return f.read()


def put(out, kind, name, data):
    os.makedirs(os.path.join(out, kind), exist_ok=True)
    with open(os.path.join(out, kind, name), "wb") as f:
        f.write(data)


def pack_process(pid_dir, tag, out):
    meta = read(os.path.join(pid_dir, "raw", "process.meta"))
    manifest = os.path.join(pid_dir, "manifest.json")
    for lz4 in sorted(glob.glob(os.path.join(pid_dir, "raw", "thread_*.lz4"))):
        n = os.path.basename(lz4)[len("thread_"):-len(".lz4")]
        plain = subprocess.run(["lz4", "-dc", lz4], check=True, capture_output=True).stdout
        put(out, "raw", f"{tag}_t{n}", b"\0" + part(meta) + read(lz4))
        put(out, "raw", f"{tag}_t{n}_plain", b"\1" + part(meta) + plain)
        tdir = os.path.join(pid_dir, f"thread_{n}")
        detail = os.path.join(tdir, "detail.atf")
        put(out, "atf", f"{tag}_t{n}", b"\3" + part(read(manifest)) +
            part(read(os.path.join(tdir, "index.atf"))) +
            (read(detail) if os.path.exists(detail) else b""))
    put(out, "json", tag, read(manifest))


def main():
    root, out = sys.argv[1], os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="ada-seeds.") as tmp:
        for example in EXAMPLES:
            for mode in MODES:
                name = f"{example[:-2]}_{mode}"
                exe = os.path.join(tmp, name)
                trace = os.path.join(tmp, name + ".trace")
                subprocess.run([os.path.join(root, "bin/adacc"), f"--ada-mode={mode}", "-O0",
                                "-pthread", "-o", exe, os.path.join(root, "examples", example)],
                               check=True)
                subprocess.run([exe], env=dict(os.environ, ADA_OUTPUT=trace),
                               stdout=subprocess.DEVNULL)
                subprocess.run([os.path.join(root, "bin/ada-symbolize"), "-q", trace], check=True)
                for i, pid_dir in enumerate(sorted(glob.glob(trace + "/session_*/pid_*"))):
                    pack_process(pid_dir, f"{name}_{i}", out)
    print(f"seeds: {sum(len(f) for _, _, f in os.walk(out))} files in {out}")


if __name__ == "__main__":
    main()
