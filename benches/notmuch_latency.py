#!/usr/bin/env python3
"""Whole-process `notmuch search --limit=10` latency over a queries file,
the same way benches/search_latency.py measures alfred-mem.
Usage: NOTMUCH_CONFIG=... notmuch_latency.py QUERIES"""
import subprocess, sys, time

from latency import figures

qs = [q.strip() for q in open(sys.argv[1], encoding="utf-8") if q.strip()]
subprocess.run(["notmuch", "search", "--limit=10", "warmup"], capture_output=True)
times = []
for q in qs:
    t0 = time.perf_counter()
    subprocess.run(["notmuch", "search", "--limit=10", *q.split()], capture_output=True)
    times.append((time.perf_counter() - t0) * 1000)
print(f"queries {len(times)}  {figures(times)}")
