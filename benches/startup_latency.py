#!/usr/bin/env python3
"""Whole-process latency of two or more builds, alternated run by run.

Usage: python3 benches/startup_latency.py BIN_A,BIN_B [ARGS...]
Runs each binary 400 times with ARGS (order flipped every round, output
discarded) and prints the median, p10 and p90 wall time of each.
"""
import subprocess,time,sys,statistics
if len(sys.argv) < 2:
    sys.exit('usage: startup_latency.py BIN_A,BIN_B [ARGS...]')
bins=sys.argv[1].split(','); args=sys.argv[2:]
t={b:[] for b in bins}
for r in range(400):
    for b in (bins if r%2==0 else bins[::-1]):
        s=time.perf_counter(); subprocess.run([b]+args,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); t[b].append(time.perf_counter()-s)
for b in bins:
    x=sorted(t[b]); print(b, "median %.3f ms  p10 %.3f  p90 %.3f"%(1e3*statistics.median(x),1e3*x[len(x)//10],1e3*x[9*len(x)//10]))
