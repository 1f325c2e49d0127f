#!/usr/bin/env python3
"""CJK recall on real mail: is a word from the middle of a Chinese, Japanese
or Korean subject found?

Usage: benches/cjk_recall.py BINARY DB MBOX...
DB must hold the MBOX files (indexed by BINARY). For every message whose
decoded subject has a CJK run of 4 characters or more, the query is 2, 3
and 4 characters taken from inside the run (not at its start, so a whole
run indexed as one token cannot match by prefix); a query counts as found
when a hit of `search --json -n 10` has the message's subject. Prints the
number of queries and the share found. Python 3 stdlib only.
"""
import email.header
import json
import mailbox
import re
import subprocess
import sys

CJK = re.compile(r"[\u1100-\u11ff\u3041-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{4,}")


def subjects(paths):
    for path in paths:
        box = mailbox.mbox(path)
        for key in box.keys():
            try:
                # Python's mailbox fails on some envelope lines: skip those.
                raw = box[key].get("Subject", "")
                yield str(email.header.make_header(email.header.decode_header(raw))).strip()
            except Exception:
                continue


def main():
    binary, db, *paths = sys.argv[1:]
    queries = {}
    for subject in subjects(paths):
        for run in CJK.findall(subject):
            for n in (2, 3, 4):
                if len(run) > n:
                    queries.setdefault(run[1:1 + n], subject)
    found = 0
    for q, subject in sorted(queries.items()):
        out = subprocess.run(
            [binary, "--db", db, "search", "--no-log", "--json", "-n", "10", q],
            capture_output=True, env={"ALFRED_MEM_NOW": "2026-12-01T00:00:00Z"},
        )
        hits = json.loads(out.stdout or b"[]")
        found += any(q in (h.get("subject") or "") for h in hits)
    print(f"{len(queries)} queries, {found} found ({found / max(1, len(queries)):.2f})")


if __name__ == "__main__":
    main()
