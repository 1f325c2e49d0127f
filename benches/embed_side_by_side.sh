#!/bin/sh
# Embedding throughput of two alfred-mem binaries on the same corpus, side by
# side in one run: each round copies the same indexed database, gives it the
# model, and lets each binary `embed` for SECONDS before `timeout -s KILL`
# (embed commits every batch of 32, so the vectors stored at the kill are
# what it did). Rounds alternate the order of the binaries.
#
# Usage: benches/embed_side_by_side.sh DB MODEL SECONDS ROUNDS NAME=BINARY...
#   DB     a database indexed by any build (copied, never written)
#   env    EMBED_THREADS is passed through (ALFRED_MEM_EMBED_THREADS)
set -eu
db=$1 model=$2 secs=$3 rounds=$4
shift 4
work=$(mktemp -d /tmp/embed-sbs.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf 'round  binary            chunks  seconds  chunks/s\n'
r=1
while [ "$r" -le "$rounds" ]; do
    if [ $((r % 2)) -eq 1 ]; then set -- "$@"; else
        # reverse the order on even rounds
        rev=""; for a in "$@"; do rev="$a $rev"; done; set -- $rev
    fi
    for pair in "$@"; do
        name=${pair%%=*} bin=${pair#*=}
        cp "$db" "$work/db"
        "$bin" --db "$work/db" model use "$model" >/dev/null 2>&1
        timeout -s KILL "$secs" "$bin" --db "$work/db" embed >/dev/null 2>&1 || true
        done=$("$bin" --db "$work/db" model status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["embedded"])')
        printf '%5d  %-16s %7d  %7d  %8.1f\n' "$r" "$name" "$done" "$secs" "$(echo "$done / $secs" | bc -l)"
        rm -f "$work/db" "$work/db-wal" "$work/db-shm"
    done
    r=$((r + 1))
done
