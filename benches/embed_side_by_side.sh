#!/bin/sh
# Embedding throughput of two alfred-mem binaries on the same corpus, side by
# side in one run: each round copies the same indexed database, gives it the
# model, and lets each binary `embed` for SECONDS before `timeout -s KILL`
# (embed commits every batch of 32, so the vectors stored at the kill are
# what it did). Rounds alternate the order of the binaries.
#
# With SECONDS `all`, each binary embeds the whole database instead and the
# time is measured: the same chunks for every binary, whatever order each
# embeds them in (use a small database). Its CPU time is measured too:
# chunks per CPU-second hardly moves with other work on the machine, while
# chunks per second of wall time does.
#
# Usage: benches/embed_side_by_side.sh DB MODEL SECONDS|all ROUNDS NAME=BINARY...
#   DB      a database indexed by any build (copied, never written)
#   BINARY  an alfred-mem, or a script that execs one with its environment
#           (ALFRED_MEM_EMBED_KERNEL=f32 ...)
set -eu
db=$1 model=$2 secs=$3 rounds=$4
shift 4
work=$(mktemp -d /tmp/embed-sbs.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf 'round  binary            chunks  seconds  chunks/s  cpu s  chunks/cpu-s\n'
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
        if [ "$secs" = all ]; then
            /usr/bin/time -f '%e %U %S' -o "$work/time" "$bin" --db "$work/db" embed >/dev/null 2>&1
            read -r took user sys < "$work/time"
            cpu=$(echo "$user + $sys" | bc -l)
        else
            timeout -s KILL "$secs" "$bin" --db "$work/db" embed >/dev/null 2>&1 || true
            took=$secs cpu=0
        fi
        done=$("$bin" --db "$work/db" model status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["embedded"])')
        per_cpu=$(if [ "$cpu" = 0 ]; then echo 0; else echo "$done / $cpu" | bc -l; fi)
        printf '%5d  %-16s %7d  %7.1f  %8.1f  %7.1f  %10.1f\n' "$r" "$name" "$done" "$took" \
            "$(echo "$done / $took" | bc -l)" "$cpu" "$per_cpu"
        rm -f "$work/db" "$work/db-wal" "$work/db-shm"
    done
    r=$((r + 1))
done
