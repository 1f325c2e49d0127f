#!/usr/bin/env python3
"""Which words of each message two databases store: a check that a change to
how mail is read loses nothing a search could find.

    python3 benches/stored_words.py OLD.db NEW.db [--show N]

Each database is one build's import of the same mailbox. For every source,
the set of lowercased words (`\\w+`) of its current chunks is compared; the
totals of (source, word) pairs lost and gained are printed, then the N
sources that lost the most, with the words they lost.
"""
import argparse
import re
import sqlite3

WORD = re.compile(r"\w+")


def words(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {}
    for source, text in db.execute(
            "SELECT source_id, text FROM memory_chunks WHERE superseded_at IS NULL"):
        out.setdefault(source, set()).update(w.lower() for w in WORD.findall(text))
    return out


def printable(s):
    """Message-IDs and words come from mail: no control characters reach the terminal."""
    return "".join(c if c.isprintable() else "?" for c in s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--show", type=int, default=5)
    args = ap.parse_args()
    old, new = words(args.old), words(args.new)
    lost = {s: ws - new.get(s, set()) for s, ws in old.items()}
    gained = sum(len(ws - old.get(s, set())) for s, ws in new.items())
    losing = sorted(((len(l), s) for s, l in lost.items() if l), reverse=True)
    print(f"sources {len(old)} -> {len(new)}; (source, word) pairs {sum(map(len, old.values()))}: "
          f"lost {sum(map(len, lost.values()))}, gained {gained}; sources losing words {len(losing)}")
    for n, source in losing[:args.show]:
        print(f"  {n:4}  {printable(source)}: {printable(' '.join(sorted(lost[source])[:12]))}")


main()
