#!/usr/bin/env python3
"""Whole-process `show` latency on random chunk ids, binaries side by side.

Usage: benches/show_latency.py [--count N] [--seed S] BIN DB [BIN DB ...] [-- extra show args]

Picks N (default 200) chunk ids at random (seed S, default 1) among the
current chunks of the first DB, then runs `BIN --db DB show ID --json` for
each id, alternating the BIN/DB pairs id by id so a busy machine hurts them
alike, and prints per pair the median / p95 / max wall time.

`show` records a genuine recall unless --no-log, so it writes: give each
binary its own COPY of a database, never a shared one. Pass `-- --no-log` to
time the read alone.
"""
import random, sqlite3, subprocess, sys, time

from latency import figures


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], args[i + 1:]
    count, seed = 200, 1
    for flag in ("--count", "--seed"):
        if flag in args:
            i = args.index(flag)
            value = int(args[i + 1])
            del args[i:i + 2]
            if flag == "--count":
                count = value
            else:
                seed = value
    if not args or len(args) % 2:
        sys.exit(__doc__)
    pairs = list(zip(args[0::2], args[1::2]))
    con = sqlite3.connect(f"file:{pairs[0][1]}?mode=ro", uri=True)
    ids = [r[0] for r in con.execute(
        "SELECT id FROM memory_chunks WHERE superseded_at IS NULL ORDER BY id")]
    con.close()
    rng = random.Random(seed)
    picks = [rng.choice(ids) for _ in range(count)]
    env = {"ALFRED_MEM_NOW": "2026-12-01T00:00:00Z", "PATH": "/usr/bin:/bin"}
    for binary, db in pairs:  # warm the page cache: the figures are about the program
        subprocess.run([binary, "--db", db, "show", "--no-log", str(picks[0])], env=env,
                       capture_output=True)
    times = {pair: [] for pair in pairs}
    for chunk in picks:
        for binary, db in pairs:
            t0 = time.perf_counter()
            p = subprocess.run([binary, "--db", db, "show", "--json", *extra, str(chunk)],
                               env=env, capture_output=True)
            times[(binary, db)].append((time.perf_counter() - t0) * 1000)
            if p.returncode != 0:
                sys.exit(f"show {chunk} failed with {binary} on {db}: {p.stderr.decode()}")
    for (binary, db), t in times.items():
        print(f"{binary} {db}: ids {len(t)}  {figures(t)}")


if __name__ == "__main__":
    main()
