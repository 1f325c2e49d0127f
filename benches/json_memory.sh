#!/usr/bin/env bash
# Peak memory and time of index-conversations on one generated corpus, in every
# shape a chat archive comes in: JSON Lines (gen-corpus's conversations.jsonl),
# one JSON array, and the ChatGPT and Claude.ai exports as downloaded (.zip).
# Each run starts from an empty database. Memory must not grow with the input:
# the target is a peak RSS under 200 MB whatever its size.
#
# Usage: benches/json_memory.sh CORPUS_DIR [OTHER_BINARY]
#   CORPUS_DIR   made by ../shared/tools/gen-corpus DIR --messages N --seed S
#   OTHER_BINARY another alfred-mem (say, a build of main) to measure alongside
#   BIN=path     measure that binary instead of building target/release
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=$(realpath "$1")
other=${2:-}
work=${BENCH_DIR:-/tmp/alfred-json-bench}
mkdir -p "$work"
bin=${BIN:-}
if [ -z "$bin" ]; then cargo build --release --quiet; bin=target/release/alfred-mem; fi
export ALFRED_MEM_NOW=2026-12-01T00:00:00Z

if [ ! -f "$work/claude-export.zip" ] || [ "$corpus/conversations.jsonl" -nt "$work/claude-export.zip" ]; then
  python3 benches/chat_exports.py "$corpus/conversations.jsonl" "$work" > /dev/null
fi

run() { # run LABEL BINARY INPUT -> "LABEL: N conversations, S s, peak RSS M MB"
  local label=$1 bin=$2 input=$3 db=$work/bench.db
  rm -f "$db" "$db-wal" "$db-shm"
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$bin" --db "$db" index-conversations --json "$input" \
    > "$work/out.json" 2> "$work/err.txt" || { echo "$label: failed"; tail -3 "$work/err.txt"; return; }
  read -r wall rss < "$work/time.txt"
  local n; n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["indexed"])' "$work/out.json")
  awk -v l="$label" -v n="$n" -v w="$wall" -v r="$rss" 'BEGIN { printf "%s: %d conversations, %.1f s, peak RSS %.0f MB\n", l, n, w, r/1024 }'
}

mib() { echo "$(( $(stat -c %s "$1") / 1048576 )) MiB"; }
echo "machine: $(nproc) cores; alfred-mem $(git rev-parse --short HEAD)"
for shape in "jsonl:$corpus/conversations.jsonl" "array:$work/conversations.json" \
             "chatgpt-zip:$work/chatgpt-export.zip" "claude-zip:$work/claude-export.zip"; do
  label=${shape%%:*} input=${shape#*:}
  run "$label ($(mib "$input"))" "$bin" "$input"
  [ -z "$other" ] || run "  other binary, $label" "$other" "$input"
done
