#!/usr/bin/env python3
"""LoCoMo retrieval evaluation around the real alfred-mem binary.

Converts each LoCoMo sample into our conversation format (one conversation per
session, message id = dia_id), indexes it into its own database, runs every
category 1-4 question as `alfred-mem search --no-log`, with "now" one day after
the sample's last session, and scores turn-level recall with a context budget.
See docs/RETRIEVAL.md for the rules and the figures. Python 3 stdlib only.

    python3 eval/locomo.py --binary target/release/alfred-mem
    python3 eval/locomo.py --model path/to/all-MiniLM-L6-v2   # hybrid recall
    python3 eval/locomo.py --replay oracle   # a reader who opens what answered

By default nothing is logged, so nothing strengthens and the figures stay
comparable. `--replay` asks the questions of each sample in order and, after
each, runs `show` on what a reader would open: `top1` the first hit, `oracle`
every hit in the top 10 that holds an evidence turn. Those genuine recalls
renew and stretch the forgetting curve for the questions that follow.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

DEFAULT_DATA = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "locomo", "locomo10.json"
)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
BUDGETS = (10, 25)
SESSION_K = 5
# Enough hits to fill the larger budget: every hit holds at least one turn.
SEARCH_LIMIT = max(BUDGETS)
SESSION_KEY = re.compile(r"session_(\d+)$")
DIA_ID = re.compile(r"D:?(\d+):(\d+)$")


def norm_dia_id(raw):
    """`D3:7`, `D:11:26`, `D30:05` -> `D3:7`, `D11:26`, `D30:5`; anything else -> None."""
    m = DIA_ID.fullmatch(raw.strip())
    return f"D{int(m[1])}:{int(m[2])}" if m else None


def evidence_ids(evidence):
    """Irregular strings ("D8:6; D9:17", "D9:1 D4:4") are split and normalised."""
    out = set()
    for item in evidence:
        for part in re.split(r"[;,\s]+", str(item)):
            if part and (d := norm_dia_id(part)):
                out.add(d)
    return out


def session_of(dia_id):
    return dia_id.split(":", 1)[0]


def parse_when(text):
    """ "1:56 pm on 8 May, 2023" -> aware datetime (UTC: LoCoMo gives no zone)."""
    dt = datetime.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    return dt.replace(tzinfo=datetime.timezone.utc)


def convert(sample):
    """One conversation record per session; returns (records, now, turn ids)."""
    conv = sample["conversation"]
    records, turn_ids, last = [], set(), None
    sessions = sorted(
        (int(m[1]), key) for key in conv if (m := SESSION_KEY.fullmatch(key)) and isinstance(conv[key], list)
    )
    for n, key in sessions:
        when = parse_when(conv[f"{key}_date_time"])
        last = when if last is None or when > last else last
        messages = []
        for turn in conv[key]:
            text = turn["text"]
            if turn.get("blip_caption"):
                text = f"{text} [image: {turn['blip_caption']}]"
            dia_id = norm_dia_id(turn["dia_id"])
            turn_ids.add(dia_id)
            messages.append({"id": dia_id, "speaker": turn["speaker"], "text": text})
        records.append(
            {"id": f"{sample['sample_id']}/session_{n}", "date": when.isoformat(), "messages": messages}
        )
    now = (last + datetime.timedelta(days=1)).isoformat()
    return records, now, turn_ids


def questions(sample, turn_ids):
    """Category 1-4 questions with their evidence turns (ids the sample really has)."""
    out = []
    for qa in sample["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        ev = evidence_ids(qa.get("evidence", [])) & turn_ids
        if ev:
            out.append((qa["question"], qa["category"], ev))
    return out


def turns_in_budget(hits, budget):
    """Message ids of the hits in rank order, cut at `budget` turns. A turn shown
    twice (overlapping chunks) is paid for twice: it costs context both times."""
    out = []
    for hit in hits:
        for mid in hit.get("message_ids") or []:
            if len(out) == budget:
                return out
            out.append(norm_dia_id(mid) or mid)
    return out


def sessions_in_top(hits, k):
    out = []
    for hit in hits:
        for mid in hit.get("message_ids") or []:
            s = session_of(norm_dia_id(mid) or mid)
            if s not in out:
                out.append(s)
            if len(out) == k:
                return out
    return out


def score(hits, evidence):
    row = {}
    for b in BUDGETS:
        got = set(turns_in_budget(hits, b)) & evidence
        row[f"recall@{b}"] = len(got) / len(evidence)
        row[f"hit@{b}"] = 1.0 if got else 0.0
    ev_sessions = {session_of(e) for e in evidence}
    top = set(sessions_in_top(hits, SESSION_K))
    row[f"session_recall@{SESSION_K}"] = len(top & ev_sessions) / len(ev_sessions)
    return row


def run_sample(sample, args, workdir):
    records, now, turn_ids = convert(sample)
    sid = sample["sample_id"]
    db = os.path.join(workdir, f"{sid}.db")
    conv_path = os.path.join(workdir, f"{sid}.jsonl")
    with open(conv_path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    # LoCoMo times carry no zone; read them, and dates named in questions, as UTC.
    env = dict(os.environ, ALFRED_MEM_NOW=now, TZ="UTC")
    env.pop("ALFRED_MEM_HALF_LIFE", None)
    subprocess.run(
        [args.binary, "--db", db, "index-conversations", conv_path],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    if args.model:
        name = ["--name", args.model_name] if args.model_name else []
        subprocess.run(
            [args.binary, "--db", db, "model", "use", args.model] + name,
            env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        subprocess.run([args.binary, "--db", db, "embed"], env=env, check=True, stdout=subprocess.DEVNULL)
    extra = ["--half-life", str(args.half_life)] if args.half_life is not None else []
    extra += args.search_arg or []
    if args.recall != "auto":
        extra.append(f"--{args.recall}")
    # Every run starts from an unread memory, so a reused --workdir (after a
    # --replay, say) gives the same figures as a fresh one.
    with sqlite3.connect(db) as conn:
        try:
            conn.execute("DELETE FROM memory_recalls")
        except sqlite3.OperationalError:
            pass  # a binary from before living memory has no such table
        try:
            # Links formed by reading (a --replay) go too; thread and
            # semantic links are part of the indexed memory and stay.
            conn.execute(
                "DELETE FROM memory_link_history WHERE link_id IN"
                " (SELECT id FROM memory_links WHERE kind = 'co_recall')"
            )
            conn.execute("DELETE FROM memory_links WHERE kind = 'co_recall'")
        except sqlite3.OperationalError:
            pass  # a binary from before associations
    rows = []
    for question, category, evidence in questions(sample, turn_ids):
        cmd = [args.binary, "--db", db, "search", "--json", "--no-log", "--limit", str(SEARCH_LIMIT)]
        proc = subprocess.run(cmd + extra + ["--", question], env=env, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"{sid}: search failed for {question!r}: {proc.stderr.strip()}")
        hits = json.loads(proc.stdout) if proc.stdout.strip() else []
        row = score(hits, evidence)
        row.update(sample=sid, category=category, question=question, evidence=sorted(evidence))
        row["top_ids"] = turns_in_budget(hits, 10)
        rows.append(row)
        opened = read_by(args.replay, hits, evidence)
        if opened:
            subprocess.run(
                [args.binary, "--db", db, "show", "--json"] + [str(i) for i in opened],
                env=env, check=True, stdout=subprocess.DEVNULL,
            )
    return rows


def read_by(reader, hits, evidence):
    """The chunk ids a reader opens after a search (none without --replay)."""
    if reader == "top1":
        return [hits[0]["id"]] if hits else []
    if reader == "oracle":
        return [
            h["id"] for h in hits[:10]
            if {norm_dia_id(m) or m for m in h.get("message_ids") or []} & evidence
        ]
    return []


METRICS = ["hit@10", "recall@10", "hit@25", "recall@25", f"session_recall@{SESSION_K}"]


def summarise(rows):
    groups = {"overall": rows}
    for c, name in CATEGORIES.items():
        groups[f"{c} {name}"] = [r for r in rows if r["category"] == c]
    return {
        g: dict(n=len(rs), **{m: sum(r[m] for r in rs) / len(rs) for m in METRICS}) for g, rs in groups.items() if rs
    }


def table(summary):
    head = ["", "n"] + METRICS
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g, s in summary.items():
        cells = [g, str(s["n"])] + [f"{s[m]:.3f}" for m in METRICS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--binary", default="target/release/alfred-mem")
    p.add_argument("--data", default=DEFAULT_DATA, help="locomo10.json")
    p.add_argument("--half-life", type=float, help="passed to search (0 = decay off); default: the binary's")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--model", metavar="PATH|URL", help="configure semantic recall (`model use`) and embed before searching")
    p.add_argument("--model-name", metavar="NAME", help="the model name an endpoint URL needs")
    p.add_argument("--recall", choices=["auto", "lexical", "semantic"], default="auto",
                   help="auto: hybrid with --model, lexical without; the others force one side")
    p.add_argument("--workdir", metavar="DIR", help="keep the databases here (a re-run reuses them and their vectors)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of a table")
    p.add_argument("--dump", metavar="FILE", help="write one JSON line per question (for failure analysis)")
    p.add_argument("--search-arg", action="append", metavar="ARG",
                   help="pass ARG to every search (repeat), e.g. --search-arg=--no-expand")
    p.add_argument("--replay", choices=["top1", "oracle"],
                   help="after each question, `show` what this reader opens (genuine recalls)")
    args = p.parse_args()
    with open(args.data, encoding="utf-8") as f:
        samples = json.load(f)
    with tempfile.TemporaryDirectory(prefix="locomo-") as tmp:
        workdir = args.workdir or tmp
        os.makedirs(workdir, exist_ok=True)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.workers) as pool:
            results = list(pool.map(lambda s: run_sample(s, args, workdir), samples))
    rows = [r for rs in results for r in rs]
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    summary = summarise(rows)
    if args.json:
        json.dump(summary, sys.stdout, indent=2)
        print()
    else:
        print(table(summary))


if __name__ == "__main__":
    main()
