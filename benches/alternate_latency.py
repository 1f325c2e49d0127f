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
kernel's accounting of the child), which a loaded machine moves less, and how
many queries each tool answered with at least one hit.

Every tool gets a HOME (an empty temporary folder): notmuch 0.38 without one
opens its database, prints nothing and exits 1, in about 6 ms. Until
2026-12-06 this bench ran it so and took those failures for answers (rc 1 is
alfred-mem's "no match"); a non-zero exit of notmuch now stops the run.
"""
import os, resource, shutil, subprocess, sys, tempfile, time

from latency import figures, option


def summary(times):
    times = sorted(times)
    return f"queries {len(times)}  {figures(times)}"


def main():
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args, extra = argv[:cut], argv[cut + 1:]
    first = option(args, "--first")
    first = int(first) if first else None
    notmuch = option(args, "--notmuch")
    queries, tools = args[0], args[1:]
    qs = [q.strip() for q in open(queries, encoding="utf-8") if q.strip()][:first]
    home = tempfile.mkdtemp(prefix="alternate-latency-home-")
    env = {"ALFRED_MEM_NOW": os.environ.get("ALFRED_MEM_NOW", "2026-12-01T00:00:00Z"),
           "PATH": "/usr/bin:/bin", "HOME": home}
    runs = []
    # Exit codes that mean "answered": alfred-mem exits 1 when nothing matches,
    # notmuch exits 0 then.
    answered = {}
    for tool in tools:
        label, spec = tool.split("=", 1)
        binary, db = spec.split(":", 1)
        runs.append((label, lambda q, b=binary, d=db: [b, "--db", d, "search", "--no-log", "--json", *extra, "--", *q], env))
        answered[label] = (0, 1)
    if notmuch:
        nm_env = dict(env, NOTMUCH_CONFIG=notmuch)
        runs.append(("notmuch", lambda q: ["notmuch", "search", "--limit=10", *q], nm_env))
        answered["notmuch"] = (0,)
    times = {label: [] for label, _, _ in runs}
    cpu = {label: [] for label, _, _ in runs}
    hits = {label: 0 for label, _, _ in runs}
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
            if p.returncode not in answered[label]:
                sys.exit(f"{label}: query {q!r} failed with exit code {p.returncode}: {p.stderr.decode()}")
            # alfred-mem --json prints `[]` for no match; notmuch prints nothing.
            if p.stdout.strip() not in (b"", b"[]"):
                hits[label] += 1
    shutil.rmtree(home, ignore_errors=True)
    for label, _, _ in runs:
        print(f"{label}: wall {summary(times[label])}")
        print(f"{label}: cpu  {summary(cpu[label])}")
        print(f"{label}: answered {hits[label]} of {len(qs)} queries with at least one hit")


if __name__ == "__main__":
    main()
