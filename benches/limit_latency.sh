#!/usr/bin/env bash
# Search latency by limit (-n 10, 100, 1000), two binaries side by side on the
# same database, alternating per limit so a busy machine hurts both alike.
#
# Usage: benches/limit_latency.sh OLD_BIN OLD_DB NEW_BIN NEW_DB QUERIES [N_QUERIES]
#   Each DB: `gen-corpus DIR --messages 100000 --seed 1` indexed by its own
#   binary with index-mbox, index-receipts and index-conversations (a newer
#   binary migrates a database past what the older one reads).
#   N_QUERIES: the first N lines of QUERIES (default 40; -n 1000 on the old
#   binary takes seconds per query).
# Prints, per limit and binary, median / p95 / max whole-process wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 old_db=$2 new=$3 new_db=$4 queries=$5 count=${6:-40}
subset=$(mktemp)
trap 'rm -f "$subset"' EXIT
head -n "$count" "$queries" > "$subset"
for n in 10 100 1000; do
  for side in "$old $old_db" "$new $new_db"; do
    read -r bin db <<< "$side"
    printf -- '-n %-4s %-24s ' "$n" "$(basename "$bin")"
    python3 benches/search_latency.py "$bin" "$db" "$subset" -- -n "$n"
  done
done
