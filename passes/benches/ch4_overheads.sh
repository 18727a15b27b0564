#!/usr/bin/env bash
# Measures the issue-6 figures on every irregular benchmark (quick inputs):
#  1. `weft opt` time (default pipeline, on clang's IR) against `clang-19 -O1 -c` of the C file;
#  2. the inspector's share of the region's run time (runtime stats: inspector_ns vs executor_ns),
#     natively (WEFT_CORES=2) and in trace mode (WEFT_CORES=16, instrumented kernels);
#  3. native executor overhead with the identity (static) schedule on one worker:
#     `executor-form` binary against the unchanged program (`--passes=none`), best of 3.
# Usage: passes/benches/ch4_overheads.sh [weft-binary]   (run from the repository root)
set -euo pipefail
WEFT=${1:-target/debug/weft}
B=testsuite/benchmarks
OUT=$(mktemp -d)
FLAGS="-O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -fno-discard-value-names -g0 -std=c11 -I$B/common"
clang-19 $FLAGS -c $B/common/weft_bench.c -o $OUT/wb.o
now() { date +%s.%N; }
best3() { # best wall time of 3 runs of "$@"
  local best=""
  for _ in 1 2 3; do
    local t0; t0=$(now); "$@" >/dev/null 2>&1; local t1; t1=$(now)
    local d; d=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
  done
  echo "$best"
}
share() { # inspector share (%) from a runtime stats JSON
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ins = exe = 0
def walk(x):
    global ins, exe
    if isinstance(x, dict):
        if "inspector_ns" in x and "executor_ns" in x:
            ins += x["inspector_ns"]; exe += x["executor_ns"]
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(d)
print("%.2f" % (100.0 * ins / max(1, ins + exe)))
PY
}
printf "%-14s %9s %9s %7s %9s %9s %9s %9s %8s\n" bench clang_s opt_s opt% insp_nat% insp_tr% orig_s exec_s exec%
for c in $B/irregular/*.c; do
  n=$(basename $c .c)
  clang-19 $FLAGS -S -emit-llvm $c -o $OUT/$n.ll
  tc=$(best3 clang-19 $FLAGS -c $c -o $OUT/$n.o)
  to=$(best3 $WEFT opt $OUT/$n.ll -o $OUT/$n.opt.bc)
  $WEFT build $OUT/$n.ll --link $OUT/wb.o -o $OUT/$n.orig --passes=none
  $WEFT build $OUT/$n.ll --link $OUT/wb.o -o $OUT/$n.exec --passes=executor-form
  $WEFT build $OUT/$n.ll --link $OUT/wb.o -o $OUT/$n.blp --passes=insert-inspector,parallel-for
  $WEFT build $OUT/$n.ll --link $OUT/wb.o -o $OUT/$n.tr --passes='insert-inspector,parallel-for,instrument-trace<only=kernel_*>'
  WEFT_CORES=2 WEFT_STATS=$OUT/$n.nat.json $OUT/$n.blp --quick >/dev/null 2>&1
  WEFT_CORES=16 WEFT_TRACE=$OUT/$n.trace WEFT_STATS=$OUT/$n.tr.json $OUT/$n.tr --quick >/dev/null 2>&1
  to_=$(WEFT_CORES=1 best3 $OUT/$n.orig --quick)
  te=$(WEFT_CORES=1 best3 $OUT/$n.exec --quick)
  printf "%-14s %9.3f %9.3f %7.1f %9s %9s %9.3f %9.3f %8.2f\n" $n $tc $to $(echo "100*$to/$tc" | bc -l) \
    $(share $OUT/$n.nat.json) $(share $OUT/$n.tr.json) $to_ $te $(echo "100*($te-$to_)/$to_" | bc -l)
done
rm -rf $OUT
