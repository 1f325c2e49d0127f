#!/usr/bin/env bash
# What a first import of the generated mbox costs, for two builds side by side
# (docs/PERFORMANCE.md, "Nightly re-runs"): each imports the corpus into a new
# database, alternated, $ROUNDS times; prints wall, user and system seconds and
# peak RSS per run.
#
# Usage: benches/first_import.sh BINARY_A BINARY_B [MESSAGES]    (default 100000)
#        e.g. benches/first_import.sh MAIN_CHECKOUT/target/release/alfred-mem target/release/alfred-mem
set -euo pipefail
cd "$(dirname "$0")/.."
A=$1 B=$2 N=${3:-100000}
BENCH_DIR=${BENCH_DIR:-/tmp/alfred-bench}
GEN=${GEN:-../shared/tools/gen-corpus}
ROUNDS=${ROUNDS:-2}
corpus=$BENCH_DIR/corpus-$N
[ -f "$corpus/manifest.json" ] || "$GEN" "$corpus" --messages "$N" --seed 42 > /dev/null
export ALFRED_MEM_NOW=2026-12-01T00:00:00Z
db=$BENCH_DIR/first-import.db
for _ in $(seq 1 "$ROUNDS"); do
  for bin in "$A" "$B"; do
    rm -f "$db" "$db-wal" "$db-shm"
    /usr/bin/time -f "%e %U %S %M" -o "$BENCH_DIR/first-import.time" \
      "$bin" --db "$db" index-mbox "$corpus/mail.mbox" > /dev/null 2>&1 ||
      [ $? = 3 ] # 3: some messages rejected, the rest indexed
    read -r wall user sys rss < "$BENCH_DIR/first-import.time"
    echo "$bin wall=${wall}s cpu=$(echo "$user + $sys" | bc)s peak_rss=$((rss / 1024))MB load=$(cut -d' ' -f1 /proc/loadavg)"
  done
done
