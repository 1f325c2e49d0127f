#!/usr/bin/env bash
# Regenerate every figure in docs/PERFORMANCE.md on this machine, side by side:
# alfred-mem index + search, notmuch (when installed) on the same corpus as a
# maildir, and the raw-FTS5 bulk-insert reference.
#
# Usage: benches/perf.sh [SIZES...]     (default: 10000 100000)
#        BENCH_DIR=/tmp/alfred-bench benches/perf.sh 10000 100000 1000000
#        NOTMUCH=0 benches/perf.sh 1000000   (notmuch takes over an hour at 1M)
# Corpora come from ../shared/tools/gen-corpus with a fixed seed and are kept
# in $BENCH_DIR between runs; databases are rebuilt every run.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/alfred-bench}
GEN=${GEN:-../shared/tools/gen-corpus}
SEED=${SEED:-42}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000)
mkdir -p "$BENCH_DIR"
cargo build --release --quiet
cargo bench --no-run --quiet --bench raw_fts5 2>/dev/null || true
BIN=$PWD/target/release/alfred-mem
export ALFRED_MEM_NOW=2026-12-01T00:00:00Z

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r)"
echo "alfred-mem $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $($BIN --version)"

time_it() { # time_it LABEL CMD... -> prints "LABEL wall_s rss_kb"
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$BENCH_DIR/time.txt" "$@" > "$BENCH_DIR/out.txt" 2> "$BENCH_DIR/err.txt" || {
    echo "$label failed:"; tail -5 "$BENCH_DIR/err.txt"; return 1; }
  read -r wall rss < "$BENCH_DIR/time.txt"
  echo "$label $wall $rss"
}

for n in "${SIZES[@]}"; do
  corpus=$BENCH_DIR/corpus-$n
  if [ ! -f "$corpus/manifest.json" ]; then
    echo "generating $n messages into $corpus"
    "$GEN" "$corpus" --messages "$n" --seed "$SEED" > /dev/null
  fi
  mbox_bytes=$(stat -c %s "$corpus/mail.mbox")
  db=$BENCH_DIR/alfred-$n.db
  rm -f "$db" "$db-wal" "$db-shm"
  echo
  echo "== $n messages, mbox $((mbox_bytes / 1048576)) MiB =="
  read -r _ wall rss < <(time_it index "$BIN" --db "$db" index-mbox "$corpus/mail.mbox")
  db_bytes=$(( $(stat -c %s "$db") + $(stat -c %s "$db-wal" 2>/dev/null || echo 0) ))
  awk -v n="$n" -v w="$wall" -v r="$rss" -v d="$db_bytes" -v m="$mbox_bytes" \
    'BEGIN { printf "alfred-mem index-mbox: %.1f s, %.0f msg/s, peak RSS %.0f MB, db/mbox %.2f\n", w, n/w, r/1024, d/m }'
  "$BIN" --db "$db" index-receipts "$corpus/receipts.jsonl" > /dev/null
  "$BIN" --db "$db" index-conversations "$corpus/conversations.jsonl" > /dev/null
  cargo bench --quiet --bench raw_fts5 -- "$db" 2>/dev/null | sed 's/^/reference /'
  echo -n "alfred-mem search (200 queries, whole process): "
  python3 benches/search_latency.py "$BIN" "$db" "$corpus/queries.txt"
  echo -n "alfred-mem search, 3-month window: "
  python3 benches/search_latency.py "$BIN" "$db" "$corpus/queries.txt" -- --after 2026-06-01 --before 2026-09-01
  /usr/bin/time -f "%e %M" -o "$BENCH_DIR/time.txt" "$BIN" --db "$db" search --no-log provider > /dev/null
  echo "alfred-mem search peak RSS: $(awk '{printf "%.0f MB", $2/1024}' "$BENCH_DIR/time.txt")"

  if command -v notmuch > /dev/null && [ "${NOTMUCH:-1}" = 1 ]; then
    md=$BENCH_DIR/maildir-$n
    if [ ! -d "$md/cur" ]; then
      python3 benches/mbox_to_maildir.py "$corpus/mail.mbox" "$md"
    fi
    rm -rf "$md/.notmuch"
    cfg=$BENCH_DIR/notmuch-$n.config
    printf '[database]\npath=%s\n[new]\ntags=inbox\n[search]\nexclude_tags=\n' "$md" > "$cfg"
    read -r _ wall rss < <(time_it notmuch env NOTMUCH_CONFIG="$cfg" notmuch new --quiet)
    nm_bytes=$(du -sb "$md/.notmuch" | cut -f1)
    awk -v n="$n" -v w="$wall" -v r="$rss" -v d="$nm_bytes" -v m="$mbox_bytes" \
      'BEGIN { printf "notmuch new: %.1f s, %.0f msg/s, peak RSS %.0f MB, db/mbox %.2f\n", w, n/w, r/1024, d/m }'
    echo -n "notmuch search --limit=10 (200 queries, whole process): "
    NOTMUCH_CONFIG="$cfg" python3 benches/notmuch_latency.py "$corpus/queries.txt"
  fi
done
