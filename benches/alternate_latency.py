#!/usr/bin/env python3
"""Whole-process search latency of several alfred-mem builds (and notmuch),
alternated query by query in one run, so that a shared machine's load falls
on all of them alike.

Usage: benches/alternate_latency.py QUERIES [--first N] [--notmuch CONFIG]
           LABEL=BINARY:DB [LABEL=BINARY:DB ...] [-- extra search args]
Each alfred-mem query runs as `search --no-log --json [extra] -- WORDS` with
ALFRED_MEM_NOW from the environment (2026-12-01T00:00:00Z when unset), as
benches/search_latency.py does; notmuch as `notmuch search --limit=10 WORDS`
(benches/notmuch_latency.py). One run per query and tool; prints the median,
p95 and max of each, in wall time and in CPU time (user + system, from the
kernel's accounting of the child), which a loaded machine moves less.
"""
import os, resource, subprocess, sys, time

from latency import figures


def summary(times):
    times = sorted(times)
    return f"queries {len(times)}  {figures(times)}"


def option(args, flag):
    """Remove `flag VALUE` from args and return VALUE (None when absent)."""
    if flag not in args:
        return None
    i = args.index(flag)
    value = args[i + 1]
    del args[i:i + 2]
    return value


def main():
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args, extra = argv[:cut], argv[cut + 1:]
    first = option(args, "--first")
    first = int(first) if first else None
    notmuch = option(args, "--notmuch")
    queries, tools = args[0], args[1:]
    qs = [q.strip() for q in open(queries, encoding="utf-8") if q.strip()][:first]
    env = {"ALFRED_MEM_NOW": os.environ.get("ALFRED_MEM_NOW", "2026-12-01T00:00:00Z"),
           "PATH": "/usr/bin:/bin"}
    runs = []
    for tool in tools:
        label, spec = tool.split("=", 1)
        binary, db = spec.split(":", 1)
        runs.append((label, lambda q, b=binary, d=db: [b, "--db", d, "search", "--no-log", "--json", *extra, "--", *q], env))
    if notmuch:
        nm_env = dict(env, NOTMUCH_CONFIG=notmuch)
        runs.append(("notmuch", lambda q: ["notmuch", "search", "--limit=10", *q], nm_env))
    times = {label: [] for label, _, _ in runs}
    cpu = {label: [] for label, _, _ in runs}
    for label, cmd, e in runs:  # warm-up
        subprocess.run(cmd(["warmup"]), env=e, capture_output=True)
    for q in qs:
        for label, cmd, e in runs:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            p = subprocess.run(cmd(q.split()), env=e, capture_output=True)
            times[label].append((time.perf_counter() - t0) * 1000)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[label].append((r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1000)
            if p.returncode not in (0, 1):
                sys.exit(f"{label}: query {q!r} failed: {p.stderr.decode()}")
    for label, _, _ in runs:
        print(f"{label}: wall {summary(times[label])}")
        print(f"{label}: cpu  {summary(cpu[label])}")


if __name__ == "__main__":
    main()
