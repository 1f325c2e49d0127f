#!/usr/bin/env python3
"""Do two builds rank alike? Run every query of a gen-corpus queries.txt
through both binaries (each on its own copy of the same corpus; an older build
cannot open a newer schema) and compare the returned ids and scores (to 1e-9).

Usage: benches/compare_rankings.py [--exact] OLD_BINARY NEW_BINARY OLD_DB NEW_DB QUERIES [extra search args]
Prints one line per query that differs, then the counts. With --exact, the
whole JSON output must be byte for byte the same (every field and every
digit); OLD_DB and NEW_DB may then be the same file (searches run --no-log).
"""
import json, os, subprocess, sys


def output(binary, db, query, extra, env):
    return subprocess.run([binary, "--db", db, "search", "--no-log", "--json", *extra, "--", *query.split()],
                          capture_output=True, env=env).stdout


def hits(binary, db, query, extra, env):
    return json.loads(output(binary, db, query, extra, env) or "[]")


def main():
    args = sys.argv[1:]
    exact = args[:1] == ["--exact"]
    if exact:
        args = args[1:]
    old, new, old_db, new_db, queries = args[:5]
    extra = args[5:]
    env = dict(os.environ, ALFRED_MEM_NOW="2026-12-01T00:00:00Z")
    same = differ = 0
    for q in (line.strip() for line in open(queries, encoding="utf-8")):
        if not q:
            continue
        if exact:
            if output(old, old_db, q, extra, env) == output(new, new_db, q, extra, env):
                same += 1
            else:
                differ += 1
                print(f"differs: {q!r}")
            continue
        a = hits(old, old_db, q, extra, env)
        b = hits(new, new_db, q, extra, env)
        if [(h["id"], round(h["score"], 9)) for h in a] == [(h["id"], round(h["score"], 9)) for h in b]:
            same += 1
            continue
        differ += 1
        ids_a, ids_b = [h["id"] for h in a], [h["id"] for h in b]
        print(f"differs: {q!r}: " + ("same ids in the same order, scores differ" if ids_a == ids_b else "ids differ"))
    print(f"same {same}  differ {differ}")


if __name__ == "__main__":
    main()
