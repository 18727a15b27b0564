#!/usr/bin/env bash
# Native run times of the irregular (ch. 4) benchmarks at full size, best of N kernel times
# (orig and exec1: medians of N alternating runs, both built with loops 64-byte aligned, as
# in ch4_overheads.sh, so that code placement does not decide the comparison):
#   orig   the unchanged program (`--passes=none`), WEFT_CORES=1
#   exec1  the `executor-form` program (identity schedule) on one worker, against orig
#   blp2   the default pipeline (inspector/executor) on two workers, as a ratio to orig
# Usage (repository root, release builds of weft and the runtime):
#   N=3 passes/benches/ch4_native.sh [weft binary]
set -euo pipefail
W=${1:-target/release/weft}
B=testsuite/benchmarks
N=${N:-3}
O=$(mktemp -d)
. "$(dirname "$0")/ch4_common.sh"
clang-19 $FLAGS -c $B/common/weft_bench.c -o $O/wb.o
for c in $B/irregular/*.c; do
  n=$(basename "$c" .c)
  clang-19 $FLAGS -S -emit-llvm "$c" -o $O/$n.ll
  $W build $O/$n.ll --link $O/wb.o -o $O/$n.orig --passes=none --codegen-flag=-falign-loops=64
  $W build $O/$n.ll --link $O/wb.o -o $O/$n.exec --passes=executor-form --codegen-flag=-falign-loops=64
  $W build $O/$n.ll --link $O/wb.o -o $O/$n.blp
  read -r o1 e1 <<<"$(WEFT_CORES=1 medk2 $O/$n.orig $O/$n.exec)"
  b2=$(WEFT_CORES=2 bestk $O/$n.blp)
  printf "%-13s orig %9s exec1 %9s (%+.1f%%) blp2 %9s (%.2fx)\n" "$n" "$o1" "$e1" \
    "$(echo "100*($e1-$o1)/$o1" | bc -l)" "$b2" "$(echo "$b2/$o1" | bc -l)"
done
rm -rf "$O"
