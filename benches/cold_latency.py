#!/usr/bin/env python3
"""Search latency from a cold page cache: the cache is dropped before every
run, so each query is what a user gets after the file has left memory (on
this project's VM, a minute idle). Needs root (it writes
/proc/sys/vm/drop_caches).

Usage: benches/cold_latency.py QUERIES DB N LABEL=BINARY [LABEL=BINARY ...]
Runs the first N queries, builds alternated query by query, each as
`search --no-log --json -- WORDS` with ALFRED_MEM_NOW from the environment
(2026-12-01T00:00:00Z when unset). Prints each build's wall median, p95 and
max, the median of what it read from the device (`/usr/bin/time -f %I`),
and on how many queries the first two builds printed the same output.
"""
import os, statistics, subprocess, sys, time

from latency import figures


def drop_caches():
    subprocess.run("sync", check=True)
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    except OSError as e:
        sys.exit(f"cold_latency.py: cannot drop the page cache ({e}); run as root")


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    queries, db, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tools = [a.split("=", 1) for a in sys.argv[4:]]
    qs = [q.strip() for q in open(queries, encoding="utf-8") if q.strip()][:n]
    env = dict(os.environ, ALFRED_MEM_NOW=os.environ.get("ALFRED_MEM_NOW", "2026-12-01T00:00:00Z"))
    times = {label: [] for label, _ in tools}
    read_mb = {label: [] for label, _ in tools}
    outputs = {label: [] for label, _ in tools}
    for q in qs:
        for label, binary in tools:
            drop_caches()
            t0 = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-f", "%I", binary, "--db", db, "search",
                                "--no-log", "--json", "--", *q.split()], env=env, capture_output=True)
            times[label].append((time.perf_counter() - t0) * 1000)
            if p.returncode not in (0, 1):
                sys.exit(f"{label}: query {q!r} failed with exit code {p.returncode}: {p.stderr.decode()}")
            read_mb[label].append(int(p.stderr.split()[-1]) * 512 / 1e6)
            outputs[label].append(p.stdout)
    for label, _ in tools:
        print(f"{label}: wall queries {len(qs)}  {figures(times[label])}  "
              f"read median {statistics.median(read_mb[label]):.1f} MB")
    if len(tools) > 1:
        a, b = tools[0][0], tools[1][0]
        same = sum(x == y for x, y in zip(outputs[a], outputs[b]))
        print(f"same output {same} of {len(qs)}")


if __name__ == "__main__":
    main()
