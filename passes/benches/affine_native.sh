#!/usr/bin/env bash
# Issue-7 native figure without the release build `cargo bench -p weft-passes --bench affine` needs: kernel time on 2 threads
# (WEFT_CORES=2) of the sequential original and each ch. 5 version, best of N, all built by `weft build`
# (default -O2, default short-loop threshold) against the runtime in WEFT_RUNTIME_LIB.
# Usage (repository root): WEFT=target/debug/weft WEFT_RUNTIME_LIB=$PWD/target/release/libweft_runtime.a \
#   N=3 [ONLY=jacobi2d] [SIZE=--quick] passes/benches/affine_native.sh
set -u
W=${WEFT:-target/debug/weft}; N=${N:-3}; SIZE=${SIZE:-}
B=testsuite/benchmarks; T=$(mktemp -d)
FLAGS="-O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -fno-discard-value-names -g0 -std=c11 -I$B/common"
clang-19 $FLAGS -c $B/common/weft_bench.c -o $T/wb.o
kt() { local best=""; for _ in $(seq $N); do local d; d=$(WEFT_CORES=2 "$@" 2>&1 >/dev/null | awk '/ time: / {print $(NF-1)}' | tail -1); if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi; done; echo $best; }
declare -A P=( [default]='ib-schedule<scheme=default>' [clustering]='cluster-misses' [mlp-first]='strip-mine,ib-schedule<scheme=mlp-first>,loop-permute' [clp-first]='strip-mine,ib-schedule<scheme=clp-first>,loop-permute' [balanced]='strip-mine,ib-schedule<scheme=balanced>,loop-permute' [la-mlp]='strip-mine,ib-schedule<scheme=la-mlp>,loop-permute' )
printf "%-10s %9s" bench orig_s; for v in default clustering mlp-first clp-first balanced la-mlp; do printf " %11s" $v; done; echo
for c in $B/affine/*.c; do n=$(basename $c .c); [ -n "${ONLY:-}" ] && [ "$ONLY" != "$n" ] && continue
  clang-19 $FLAGS -S -emit-llvm $c -o $T/$n.ll
  $W build $T/$n.ll --link $T/wb.o -o $T/$n.orig --passes=none >/dev/null 2>&1
  for v in default clustering mlp-first clp-first balanced la-mlp; do $W build $T/$n.ll --link $T/wb.o -o $T/$n.$v --passes="${P[$v]}" >/dev/null 2>&1; done
  o=$(kt $T/$n.orig $SIZE); printf "%-10s %9.4f" $n $o
  for v in default clustering mlp-first clp-first balanced la-mlp; do t=$(kt $T/$n.$v $SIZE); printf " %6.4f %4.2fx" $t $(echo "$t / $o" | bc -l); done; echo
done
rm -rf $T
