#!/usr/bin/env bash
# The cost of the query syntax and of CJK tokens (issue 19, items 2-3), side by
# side with an older build: index time and size, and search latency with plain
# and with syntax queries, on a gen-corpus corpus and on the shared real mail;
# then CJK recall on the real mail (benches/cjk_recall.py).
#
# Usage: benches/syntax_cjk.sh OLD_BINARY NEW_BINARY CORPUS_DIR [SHARED_DATA]
#   CORPUS_DIR from ../shared/tools/gen-corpus DIR --messages 100000 --seed 42
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$1 NEW=$2 CORPUS=$3 SHARED=${4:-../shared/data}
WORK=${BENCH_DIR:-/tmp/alfred-syntax-bench}
mkdir -p "$WORK"
export ALFRED_MEM_NOW=2026-12-01T00:00:00Z

# Each query of queries.txt in four syntax forms (two-word queries only).
awk 'NF == 2 { printf "\"%s %s\"\n%s -%s\n%s AND %s\nsubject:%s %s*\n", $1, $2, $1, $2, $1, $2, $1, substr($2, 1, 3) }' \
  "$CORPUS/queries.txt" > "$WORK/syntax-queries.txt"

size() { echo $(( $(stat -c %s "$1") + $(stat -c %s "$1-wal" 2>/dev/null || echo 0) )); }

for side in old new; do
  bin=$OLD; [ "$side" = new ] && bin=$NEW
  db=$WORK/$side.db
  rm -f "$db" "$db-wal" "$db-shm"
  /usr/bin/time -f "%e" -o "$WORK/t" "$bin" --db "$db" index-mbox "$CORPUS/mail.mbox" > /dev/null 2>&1
  "$bin" --db "$db" index-receipts "$CORPUS/receipts.jsonl" > /dev/null
  "$bin" --db "$db" index-conversations "$CORPUS/conversations.jsonl" > /dev/null
  "$bin" --db "$db" search --no-log warmup > /dev/null || true
  echo "$side generated: index-mbox $(tail -1 "$WORK/t") s, db $(size "$db") bytes"
  echo -n "$side generated search, plain queries: "
  python3 benches/search_latency.py "$bin" "$db" "$CORPUS/queries.txt" --best-of 3
  echo -n "$side generated search, syntax queries: "
  python3 benches/search_latency.py "$bin" "$db" "$WORK/syntax-queries.txt" --best-of 3

  real=$WORK/$side-real.db
  rm -f "$real" "$real-wal" "$real-shm"
  mboxes=("$SHARED"/email/*.mbox "$SHARED"/email-spamassassin/*.mbox)
  # Exit 3: some messages of the fixture corpora are rejected by design.
  /usr/bin/time -f "%e" -o "$WORK/t" "$bin" --db "$real" index-mbox "${mboxes[@]}" > /dev/null 2>&1 || true
  echo "$side real mail: index-mbox $(tail -1 "$WORK/t") s, db $(size "$real") bytes"
  echo -n "$side real mail CJK recall: "
  python3 benches/cjk_recall.py "$bin" "$real" "${mboxes[@]}"
done
