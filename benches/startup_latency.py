#!/usr/bin/env python3
"""Whole-process latency of two or more builds, alternated run by run.

Usage: python3 benches/startup_latency.py BIN_A,BIN_B [ARGS...]

Runs each binary 400 times with ARGS (the order flipped every round, output
discarded) and prints the median, p10 and p90 wall time of each.
"""
import statistics
import subprocess
import sys
import time

ROUNDS = 400


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: startup_latency.py BIN_A,BIN_B [ARGS...]")
    bins = sys.argv[1].split(",")
    args = sys.argv[2:]
    times = {b: [] for b in bins}
    for r in range(ROUNDS):
        for b in bins if r % 2 == 0 else bins[::-1]:
            start = time.perf_counter()
            subprocess.run([b] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[b].append(time.perf_counter() - start)
    for b in bins:
        ms = sorted(1e3 * t for t in times[b])
        p10, p90 = ms[len(ms) // 10], ms[9 * len(ms) // 10]
        print(f"{b} median {statistics.median(ms):.3f} ms  p10 {p10:.3f}  p90 {p90:.3f}")


if __name__ == "__main__":
    main()
