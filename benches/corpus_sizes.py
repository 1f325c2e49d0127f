#!/usr/bin/env python3
"""What real mailboxes cost on disk: every mbox of the shared corpora indexed
alone into a new database by each build, side by side.

Usage: benches/corpus_sizes.py [--data DIR] LABEL=BINARY [LABEL=BINARY ...]
DIR is the shared data folder (../shared/data next to the repository when
unset); its `email` and `email-spamassassin` folders are read, never copied.
Each import runs as `index-mbox FILE` with ALFRED_MEM_NOW from the environment
(2026-12-05T00:00:00Z when unset). Prints, per file and build: the mbox's and
the database's bytes and their ratio, the wall time, the chunks stored, their
characters, and how many of those are box drawing (U+2500-U+257F, what
html2text draws table rules with) and the exit code, then the totals of each
build.
"""
import os, sqlite3, subprocess, sys, tempfile, time

from latency import option

FOLDERS = ("email", "email-spamassassin")
DEFAULT_NOW = "2026-12-05T00:00:00Z"


def stored(db):
    """(chunks, characters, box-drawing characters) of a database's chunks."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    chunks, chars, boxes = 0, 0, 0
    for (text,) in conn.execute("SELECT text FROM memory_chunks"):
        chunks += 1
        chars += len(text)
        boxes += sum(1 for c in text if "\u2500" <= c <= "\u257f")
    conn.close()
    return chunks, chars, boxes


def main():
    args = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    data = option(args, "--data") or os.path.join(here, "..", "..", "shared", "data")
    builds = [a.split("=", 1) for a in args]
    if not builds:
        sys.exit(__doc__)
    files = sorted(
        os.path.join(data, folder, name)
        for folder in FOLDERS
        for name in os.listdir(os.path.join(data, folder))
        if name.endswith(".mbox")
    )
    env = dict(os.environ, ALFRED_MEM_NOW=os.environ.get("ALFRED_MEM_NOW", DEFAULT_NOW))
    totals = {label: [0, 0, 0, 0, 0, 0.0] for label, _ in builds}
    with tempfile.TemporaryDirectory(prefix="corpus-sizes-") as work:
        for path in files:
            mbox = os.path.getsize(path)
            for label, binary in builds:
                db = os.path.join(work, f"{label}.db")
                for side in ("", "-wal", "-shm"):
                    if os.path.exists(db + side):
                        os.remove(db + side)
                started = time.perf_counter()
                run = subprocess.run([binary, "--db", db, "index-mbox", path], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
                wall = time.perf_counter() - started
                # A file with nothing importable exits non-zero (mailparser_maildir.mbox
                # is not an mbox); its empty database is still measured. A crash stops
                # the run.
                if run.returncode < 0 or not os.path.exists(db):
                    sys.exit(f"{label}: index-mbox {path} exited {run.returncode}: "
                             f"{run.stderr}")
                figures = (mbox, os.path.getsize(db), *stored(db), wall)
                for i, v in enumerate(figures):
                    totals[label][i] += v
                print(row(os.path.basename(path), label, *figures) + f"  rc {run.returncode}")
    for label, figures in totals.items():
        print(row("all files", label, *figures))


def row(name, label, mbox, size, chunks, chars, boxes, wall):
    """One line of the table: a file (or all files) as one build stored it."""
    return (f"{name:28} {label:8} mbox {mbox:>10} db {size:>10} {size / mbox:6.2f}x  "
            f"{wall:6.2f} s  chunks {chunks:>6}  chars {chars:>9}  box {boxes:>9}")

if __name__ == "__main__":
    main()
