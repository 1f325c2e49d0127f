#!/usr/bin/env python3
"""Whole-process search latency: run every query of a gen-corpus queries.txt
through the real binary and print the median and p95 wall time.

Usage: benches/search_latency.py BINARY DB QUERIES [--repeat N] [--best-of N] [-- extra search args]
Each query runs with --no-log and --json (output discarded), so the figure is
what an agent calling the tool pays: process start, open, migrate, search, print.
--best-of N runs each query N times and keeps its fastest run, which takes out
most of the noise of a shared machine (the figure is then one per query).
"""
import os, subprocess, sys, time

from latency import figures


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], args[i + 1:]
    best_of = 1
    if "--best-of" in args:
        i = args.index("--best-of")
        best_of = int(args[i + 1])
        del args[i:i + 2]
    repeat = 1
    if "--repeat" in args:
        i = args.index("--repeat")
        repeat = int(args[i + 1])
        del args[i:i + 2]
    binary, db, queries = args
    qs = [q.strip() for q in open(queries, encoding="utf-8") if q.strip()]
    # ALFRED_MEM_NOW from the environment when set: it must be after the
    # database was indexed, or ages run from a reference before every chunk.
    env = {"ALFRED_MEM_NOW": os.environ.get("ALFRED_MEM_NOW", "2026-12-01T00:00:00Z"),
           "PATH": "/usr/bin:/bin"}
    # Which vector search (auto, exact, index) passes through.
    if "ALFRED_MEM_VECTORS" in os.environ:
        env["ALFRED_MEM_VECTORS"] = os.environ["ALFRED_MEM_VECTORS"]
    # Warm the page cache once so the figures are about the program.
    subprocess.run([binary, "--db", db, "search", "--no-log", "warmup"], env=env, capture_output=True)
    times, hits = [], 0
    for _ in range(repeat):
        for q in qs:
            runs = []
            for _ in range(best_of):
                t0 = time.perf_counter()
                p = subprocess.run([binary, "--db", db, "search", "--no-log", "--json", *extra, "--", *q.split()],
                                   env=env, capture_output=True)
                runs.append((time.perf_counter() - t0) * 1000)
            times.append(min(runs))
            if p.returncode == 2:
                sys.exit(f"query {q!r} failed: {p.stderr.decode()}")
            hits += p.returncode == 0
    print(f"queries {len(times)}  with hits {hits}  {figures(times)}")


if __name__ == "__main__":
    main()
