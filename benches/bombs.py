#!/usr/bin/env python3
"""Resource bombs (issue 7): feed each hostile message to `index-mbox -` through
a pipe (nothing is written to disk, so the 1 GB bomb needs no 1 GB file) and
print wall time, peak RSS and what alfred-mem said about it.

    cargo build --release && python3 benches/bombs.py [target/release/alfred-mem]

The same bombs, smaller where the size itself is the point, run in CI as
tests/cli/bombs.rs.
"""
import os, resource, subprocess, sys, tempfile, time

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/alfred-mem"
MiB = 1 << 20

HEAD = (b"From bomb@example.com Thu Jan 15 10:00:00 2026\n"
        b"From: bomb@example.com\nTo: you@example.com\n"
        b"Date: Thu, 15 Jan 2026 10:00:00 +0000\n")


def single_line(n):
    yield HEAD + b"Message-ID: <line@bomb>\nSubject: one long line\n\n"
    chunk = b"lorem ipsum dolor sit amet " * (MiB // 27)
    sent = 0
    while sent < n:
        yield chunk
        sent += len(chunk)
    yield b"\n"


def many_parts(n):
    yield (HEAD + b"Message-ID: <parts@bomb>\nSubject: many parts\nMIME-Version: 1.0\n"
           b"Content-Type: multipart/mixed; boundary=\"b\"\n\n")
    for i in range(n):
        yield b"--b\nContent-Type: text/plain\n\npart %d says hello\n" % i
    yield b"--b--\n"


def deep_nesting(depth):
    yield (HEAD + b"Message-ID: <deep@bomb>\nSubject: deep nesting\nMIME-Version: 1.0\n"
           b"Content-Type: multipart/mixed; boundary=\"b0\"\n\n")
    for i in range(1, depth):
        yield b"--b%d\nContent-Type: multipart/mixed; boundary=\"b%d\"\n\n" % (i - 1, i)
    yield b"--b%d\nContent-Type: text/plain\n\nthe innermost part of a deep nest\n" % (depth - 1)
    for i in reversed(range(depth)):
        yield b"--b%d--\n" % i


def nested_html(depth):
    yield (HEAD + b"Message-ID: <html@bomb>\nSubject: nested html\nMIME-Version: 1.0\n"
           b"Content-Type: text/html; charset=utf-8\n\n")
    yield b"<div>" * depth + b"the innermost words of nested html\n"


def wide_table(words, rows):
    """A cell of `words` words above `rows` short rows. html2text laid a table
    out as a grid and padded every row to the wide column, rows x width of text
    (docs/PERFORMANCE.md, "2026-12-07, fourth session"); tables are now
    flattened to rows of text before rendering (html_tables.rs)."""
    yield (HEAD + b"Message-ID: <table@bomb>\nSubject: wide table\nMIME-Version: 1.0\n"
           b"Content-Type: text/html; charset=utf-8\n\n")
    yield b"<html><body><table><tr><td>" + b"word " * words + b"</td><td>x</td></tr>"
    yield b"<tr><td>a</td><td>b</td></tr>" * rows + b"</table></body></html>\n"


def paragraphs(n):
    """`n` tiny paragraphs: html2text takes 1.5-3 KB for each element it lays
    out, so 2 MB of them took 560 MB before elements were counted."""
    yield (HEAD + b"Message-ID: <paras@bomb>\nSubject: paragraphs\nMIME-Version: 1.0\n"
           b"Content-Type: text/html; charset=utf-8\n\n")
    yield b"<p>a</p>" * n + b"\n"


def formatting_in_cells(rows):
    """A `<b>` left open in each of `rows` cells. A cell's end clears the
    parser's list of formatting elements to re-open; when cells became
    `<span>`s, every cell re-opened all the earlier `<b>`s (4 GB at 2,000)."""
    yield (HEAD + b"Message-ID: <bold@bomb>\nSubject: bold cells\nMIME-Version: 1.0\n"
           b"Content-Type: text/html; charset=utf-8\n\n")
    yield b"<table>" + b"".join(b"<tr><td><b id=%d>x%d</td></tr>" % (k, k) for k in range(rows))
    yield b"</table>\n"


def comment_opens(n):
    """`<!--` written `n` times: the depth estimate measured a tag name from each
    `<` before checking it starts with a letter, so it ran to the end every time
    (320 KB took 12 s; 2 MB did not end in 120 s)."""
    yield (HEAD + b"Message-ID: <opens@bomb>\nSubject: comment opens\nMIME-Version: 1.0\n"
           b"Content-Type: text/html; charset=utf-8\n\n")
    yield b"<p>x</p>" + b"<!--" * n + b"\n"


def comments_after_table(n):
    """A table, then `n` empty comments: the rewrite's comment scan once looked
    for each ending in turn, to the end for the absent one (290,000: 290 s)."""
    yield (HEAD + b"Message-ID: <comments@bomb>\nSubject: comments\nMIME-Version: 1.0\n"
           b"Content-Type: text/html; charset=utf-8\n\n")
    yield b"<table><tr><td>x</td></tr></table>" + b"<!---->" * n + b"\n"


def base64_part(decoded):
    yield (HEAD + b"Message-ID: <b64@bomb>\nSubject: huge attachment\nMIME-Version: 1.0\n"
           b"Content-Type: multipart/mixed; boundary=\"b\"\n\n"
           b"--b\nContent-Type: text/plain\n\nsee the attachment\n"
           b"--b\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n")
    line = b"QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\n"  # 51 bytes of 'A'
    block = line * 16384
    per_block = 51 * 16384
    sent = 0
    while sent < decoded:
        yield block
        sent += per_block
    yield b"--b--\n"


BOMBS = [
    ("100 MB single-line message", lambda: single_line(100 * MiB)),
    ("100,000 MIME parts", lambda: many_parts(100_000)),
    ("multipart nesting 1,000 deep", lambda: deep_nesting(1000)),
    ("HTML nested 20,000 deep", lambda: nested_html(20_000)),
    ("HTML table: a 100 KB cell above 5,000 rows", lambda: wide_table(20_000, 5_000)),
    ("HTML table: a 1 MB cell above 30,000 rows", lambda: wide_table(200_000, 30_000)),
    ("HTML: 250,000 paragraphs (2 MB)", lambda: paragraphs(250_000)),
    ("HTML table: an unclosed <b> in each of 2,000 cells", lambda: formatting_in_cells(2_000)),
    ("HTML: <!-- written 500,000 times (2 MB)", lambda: comment_opens(500_000)),
    ("HTML table, then 290,000 comments (2 MB)", lambda: comments_after_table(290_000)),
    ("base64 part decoding to 1 GB", lambda: base64_part(1024 * MiB)),
]


def run(name, gen):
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, ALFRED_MEM_DB=os.path.join(d, "m.db"),
                   ALFRED_MEM_NOW="2026-12-02T12:00:00Z")
        start = time.monotonic()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", BIN, "index-mbox", "-", "--json"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
        fed = 0
        try:
            for part in gen():
                p.stdin.write(part)
                fed += len(part)
        except BrokenPipeError:
            pass
        try:
            p.stdin.close()
        except BrokenPipeError:
            pass
        err = p.stderr.read()
        p.stdout.read()
        p.wait()
        secs = time.monotonic() - start
        lines = err.decode(errors="replace").strip().splitlines()
        rss_mb = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")
        said = " | ".join(l for l in lines[:-1] if not l.startswith("Command exited"))[:160]
        print(f"| {name} | {fed / MiB:,.0f} MiB | {secs:.1f} s | {rss_mb:.0f} MB | exit {p.returncode} | {said} |")


print("| bomb | fed | wall | peak RSS | result | stderr |")
print("|---|---|---|---|---|---|")
for name, gen in BOMBS:
    if len(sys.argv) > 2 and sys.argv[2] not in name:
        continue
    run(name, gen)
