#!/usr/bin/env python3
"""How much do two builds' top 10 agree? For each query of a gen-corpus
queries.txt, compare the chunk ids `search --json` returns (each build on its
own copy of the same corpus, indexed in the same order, so ids match).

Usage: benches/topk_overlap.py OLD_BINARY NEW_BINARY OLD_DB NEW_DB QUERIES
Prints how many queries return the same list, the same set, and the share of
hits both return. (benches/compare_rankings.py asks for equal scores too.)
"""
import json, os, subprocess, sys


def ids(binary, db, query, env):
    out = subprocess.run([binary, "--db", db, "search", "--no-log", "--json", "--", *query.split()],
                         capture_output=True, env=env).stdout
    return [h["id"] for h in json.loads(out or "[]")]


def main():
    old, new, old_db, new_db, queries = sys.argv[1:6]
    env = dict(os.environ, ALFRED_MEM_NOW="2026-12-01T00:00:00Z")
    qs = [line.strip() for line in open(queries, encoding="utf-8") if line.strip()]
    same_order = same_set = shared = total = 0
    for q in qs:
        a, b = ids(old, old_db, q, env), ids(new, new_db, q, env)
        same_order += a == b
        same_set += set(a) == set(b)
        shared += len(set(a) & set(b))
        total += max(len(a), len(b))
    print(f"queries {len(qs)}: same top 10 in the same order {same_order}, same set {same_set}, "
          f"hits shared {shared}/{total} = {shared / max(total, 1):.3f}")


if __name__ == "__main__":
    main()
