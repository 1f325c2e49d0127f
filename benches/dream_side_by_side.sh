#!/usr/bin/env bash
# Two binaries' `dream --dry-run` and `dream`, alternating, each run on a
# fresh copy of one base database, with wall time, CPU (user+sys) and peak
# memory from /usr/bin/time.
#
# Usage: benches/dream_side_by_side.sh OLD_BIN NEW_BIN BASE_DB [RUNS]
#   BASE_DB: e.g. the dream bench's, kept with
#   `DREAM_BENCH_DB=/tmp/dream_base.db cargo bench --bench dream`.
set -euo pipefail
old=$1 new=$2 base=$3 runs=${4:-3}
copy=$(mktemp --suffix=.db)
trap 'rm -f "$copy" "$copy-wal" "$copy-shm"' EXIT
for mode in --dry-run ""; do
  for _ in $(seq "$runs"); do
    for bin in "$old" "$new"; do
      cp "$base" "$copy"
      # shellcheck disable=SC2086 # $mode is one word or none
      /usr/bin/time -f "$(basename "$bin") dream $mode wall %e s cpu %U+%S s maxrss %M KB" \
        env ALFRED_MEM_NOW=2026-05-28T20:26:40Z "$bin" --db "$copy" dream $mode 2>&1 >/dev/null | tail -1
      rm -f "$copy-wal" "$copy-shm"
    done
  done
done
