#!/usr/bin/env bash
# Nightly re-runs of index-mbox, side by side in one run (docs/PERFORMANCE.md,
# "Nightly re-runs"): the first import of a generated mbox, then re-runs over
# it unchanged, after 100 messages were appended, and (for reference) a full
# re-read of the same bytes under a new name, which is what every re-run cost
# before issue 18. Then the same for the corpus as a Maildir.
#
# Usage: benches/incremental.sh [MESSAGES]          (default 100000)
#        BENCH_DIR=/tmp/alfred-bench MAILDIR=0 benches/incremental.sh 100000
# Figures are wall seconds and CPU (user + system) seconds, medians of
# $ROUNDS runs where a step is repeated; ratios are of the first import's.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
BENCH_DIR=${BENCH_DIR:-/tmp/alfred-bench}
GEN=${GEN:-../shared/tools/gen-corpus}
ROUNDS=${ROUNDS:-5}
mkdir -p "$BENCH_DIR"
cargo build --release --quiet
BIN=$PWD/target/release/alfred-mem
export ALFRED_MEM_NOW=2026-12-01T00:00:00Z

corpus=$BENCH_DIR/corpus-$N
[ -f "$corpus/manifest.json" ] || "$GEN" "$corpus" --messages "$N" --seed 42 > /dev/null
for s in $(seq 1 "$ROUNDS"); do # 100 new messages per round, other seeds: other ids
  [ -f "$BENCH_DIR/append-$s/mail.mbox" ] ||
    "$GEN" "$BENCH_DIR/append-$s" --messages 100 --seed $((1000 + s)) > /dev/null
done
work=$BENCH_DIR/incremental-$N
rm -rf "$work" && mkdir -p "$work"

# run LABEL ARGS... : one index-mbox, prints "LABEL wall cpu read indexed"
run() {
  local label=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$BIN" --db "$work/db" index-mbox --json "$@" > "$work/out.json"
  read -r wall user sys < "$work/time"
  python3 - "$label" "$wall" "$user" "$sys" "$work/out.json" <<'PY'
import json, sys
label, wall, user, sys_, out = sys.argv[1:]
v = json.load(open(out))
print(f"{label} {float(wall):.3f} {float(user) + float(sys_):.3f} read={v['read']} indexed={v['indexed']} unchanged_files={v['unchanged_files']} resumed_files={v['resumed_files']}")
PY
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

report() { # report KIND: the first import, then the medians of the re-runs
  local kind=$1 first_wall first_cpu
  read -r _ first_wall first_cpu _ < <(grep "^first " "$work/$kind.log")
  echo "== $kind, $N messages: first import ${first_wall} s wall, ${first_cpu} s CPU"
  for step in unchanged appended reread; do
    grep -q "^$step " "$work/$kind.log" || continue
    local w c
    w=$(grep "^$step " "$work/$kind.log" | awk '{print $2}' | median)
    c=$(grep "^$step " "$work/$kind.log" | awk '{print $3}' | median)
    awk -v s="$step" -v w="$w" -v c="$c" -v fw="$first_wall" -v fc="$first_cpu" 'BEGIN {
      printf "%-10s median %.3f s wall (%.2f%% of the first), %.3f s CPU (%.2f%%)\n", s, w, 100*w/fw, c, 100*c/fc }'
  done
}

echo "machine: $(nproc) cores, $(uname -r); load $(cut -d' ' -f1-3 /proc/loadavg); alfred-mem $(git rev-parse --short HEAD)"
mbox=$work/mail.mbox
cp "$corpus/mail.mbox" "$mbox"
{
  run first "$mbox"
  for s in $(seq 1 "$ROUNDS"); do run unchanged "$mbox"; done
  for s in $(seq 1 "$ROUNDS"); do
    cat "$BENCH_DIR/append-$s/mail.mbox" >> "$mbox"
    run appended "$mbox"
  done
  for s in $(seq 1 "$ROUNDS"); do
    cp --reflink=auto "$mbox" "$work/copy-$s.mbox"
    run reread "$work/copy-$s.mbox"
    rm "$work/copy-$s.mbox"
  done
} | tee "$work/mbox.log"
report mbox

if [ "${MAILDIR:-1}" = 1 ]; then
  md=$BENCH_DIR/maildir-$N
  [ -d "$md/cur" ] || python3 benches/mbox_to_maildir.py "$corpus/mail.mbox" "$md"
  rm -rf "$work/db" "$work/db-wal" "$work/db-shm" "$work/Maildir"
  cp -r "$md" "$work/Maildir"
  # Delivered an hour ago: a folder changed in the last two seconds is listed
  # again on the next run (see src/ingest/mailbox/maildir.rs).
  touch -d '1 hour ago' "$work/Maildir/cur" "$work/Maildir/new"
  {
    run first "$work/Maildir"
    for s in $(seq 1 "$ROUNDS"); do run unchanged "$work/Maildir"; done
    for s in $(seq 1 "$ROUNDS"); do
      python3 benches/mbox_to_maildir.py "$BENCH_DIR/append-$s/mail.mbox" "$work/Maildir"
      touch -d '1 hour ago' "$work/Maildir/cur" "$work/Maildir/new"
      run appended "$work/Maildir"
    done
  } | tee "$work/maildir.log"
  report maildir
fi
