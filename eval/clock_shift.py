#!/usr/bin/env python3
"""Does moving "now" change the ranking? (issue 15, section 5)

Generates an old archive with gen-corpus (mail, receipts and chats of one year
ending 2002-12-31), indexes it with the binary at 2003-01-01, then runs every
query of the corpus twice with `search --no-log --json -n 10`: with "now"
2003-01-01 and 2026-12-01. Nothing in the archive changed its age relative to
anything else, so the top 10 should not move. Prints the share of queries whose
top 10 changed, and the share of printed (human) scores that read 0.000.

    python3 eval/clock_shift.py --binary target/release/alfred-mem \
        --gen-corpus ../shared/tools/gen-corpus [--messages 2000] [--half-life ...]
"""

import argparse
import json
import os
import subprocess
import tempfile

THEN, LATER = "2003-01-01T00:00:00Z", "2026-12-01T00:00:00Z"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--binary", default="target/release/alfred-mem")
    p.add_argument("--gen-corpus", default=os.path.join("..", "shared", "tools", "gen-corpus"))
    p.add_argument("--messages", type=int, default=2000)
    p.add_argument("--seed", type=int, default=15)
    p.add_argument("--half-life", help="passed to search")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="clock-shift-") as tmp:
        corpus = os.path.join(tmp, "corpus")
        subprocess.run(
            [args.gen_corpus, corpus, "--messages", str(args.messages), "--seed", str(args.seed),
             "--years", "1", "--end", "2002-12-31"],
            check=True, stdout=subprocess.DEVNULL,
        )
        db = os.path.join(tmp, "memory.db")
        env = dict(os.environ, ALFRED_MEM_NOW=THEN, TZ="UTC")
        env.pop("ALFRED_MEM_HALF_LIFE", None)
        for cmd, name in [("index-mbox", "mail.mbox"), ("index-receipts", "receipts.jsonl"),
                          ("index-conversations", "conversations.jsonl")]:
            subprocess.run([args.binary, "--db", db, cmd, os.path.join(corpus, name)],
                           env=env, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(corpus, "queries.txt"), encoding="utf-8") as f:
            queries = [q.strip() for q in f if q.strip()]
        extra = ["--half-life", args.half_life] if args.half_life else []

        def run(now, q, json_out):
            cmd = [args.binary, "--db", db, "search", "--no-log", "-n", "10"] + extra
            cmd += ["--json"] if json_out else []
            out = subprocess.run(cmd + ["--", q], env=dict(env, ALFRED_MEM_NOW=now),
                                 capture_output=True, text=True)
            return out.stdout

        changed = zeros = printed = 0
        for q in queries:
            a = [h["id"] for h in json.loads(run(THEN, q, True) or "[]")]
            b = [h["id"] for h in json.loads(run(LATER, q, True) or "[]")]
            changed += a != b
            for line in run(LATER, q, False).splitlines():
                printed += 1
                zeros += line.split("\t")[1] == "0.000"
        print(json.dumps({
            "queries": len(queries),
            "top10_changed": round(changed / len(queries), 3),
            "printed_scores_0.000": round(zeros / max(printed, 1), 3),
        }))


if __name__ == "__main__":
    main()
