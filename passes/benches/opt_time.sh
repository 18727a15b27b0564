#!/usr/bin/env bash
# `weft opt` (default pipeline) against `clang-19 -O1 -c` on every irregular benchmark
# (issue 6 target: weft opt under 25% of clang's time). Mean CPU time (task-clock) of N runs
# each with `perf stat -r N`; without perf, the best wall time of N runs.
# Usage (repository root, release build): passes/benches/opt_time.sh [weft-binary] [N]
set -euo pipefail
WEFT=${1:-target/release/weft}
N=${2:-10}
B=testsuite/benchmarks
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/ch4_common.sh"
ms() { # milliseconds of "$@"
  if command -v perf >/dev/null 2>&1; then
    perf stat -r "$N" -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1; exit}'
  else
    echo "$(bestn "$@") * 1000" | bc -l
  fi
}
printf "%-13s %9s %9s %6s\n" bench clang_ms opt_ms opt%
for c in $B/irregular/*.c; do
  n=$(basename "$c" .c)
  clang-19 $FLAGS -S -emit-llvm "$c" -o "$OUT/$n.ll"
  tc=$(ms clang-19 $FLAGS -c "$c" -o "$OUT/$n.o")
  tw=$(ms "$WEFT" opt "$OUT/$n.ll" -o "$OUT/$n.bc")
  python3 -c "print('%-13s %9.1f %9.1f %6.1f' % ('$n', $tc, $tw, 100 * $tw / $tc))"
done
