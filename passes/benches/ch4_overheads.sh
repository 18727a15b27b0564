#!/usr/bin/env bash
# Measures the issue-6 figures on every irregular benchmark:
#  1. `weft opt` time (default pipeline, on clang's IR) against `clang-19 -O1 -c` of the C file
#     (best of 3 each);
#  2. the inspector's share of the regions' run time, inspector_ns / (inspector_ns + executor_ns)
#     summed over the kernel regions (runtime stats), natively (WEFT_CORES=2, default pipeline;
#     the run with the median share of N, the other columns from that run)
#     and in trace mode (WEFT_CORES=16, instrumented kernels); plus the region executions and
#     inspections, and where the inspector's time went (record / dependence check / schedule);
#     natively also the cost of one inspection in executions of the loop (inspector ns per
#     inspection / executor ns per execution; the share falls below 2% once a schedule serves
#     about 50x that many executions), and the share with a long timing loop, `--iters $LONG`
#     (default 200: miniFE's default CG iteration limit, twice Spark98's smvp i100 runs);
#  3. native executor overhead with the identity (static) schedule on one worker:
#     `executor-form` binary against the unchanged program (`--passes=none`), medians of NID
#     (default 11; N=3 left ±10% of host noise) alternating runs of the kernel time each benchmark reports on stderr (`time: <s> s`,
#     input loading excluded). Both are built with `--codegen-flag=-falign-loops=64`: an
#     outlined loop body lands elsewhere in the binary than the original loop, and on this
#     machine's AMD cores a hot inner loop that straddles two 64-byte lines runs up to 20%
#     slower (miniFE's SpMV), which made this column a lottery of code placement.
# Usage (from the repository root; use release builds, e.g. `cargo build --release -p weft -p weft-runtime`):
#   passes/benches/ch4_overheads.sh [weft-binary] [quick|full] [N]
# The runtime linked is the one next to the weft binary (target/<profile>/libweft_runtime.a)
# unless WEFT_RUNTIME_LIB is set. Arguments per benchmark are the registry's
# (testsuite/src/bench.rs) quick or full arguments.
set -euo pipefail
WEFT=${1:-target/release/weft}
SIZE=${2:-quick}
N=${3:-3}
LONG=${LONG:-200}
NID=${NID:-11}
ONLY=${ONLY:-}
B=testsuite/benchmarks
# Plain input files: $WEFT_DATA_DIR, else the shipped data/*.gz unpacked into target/weft-data
# (the folder the Rust harness unpacks into; see data/README.md).
D=${WEFT_DATA_DIR:-target/weft-data}
if [ -z "${WEFT_DATA_DIR:-}" ]; then
  for f in graphs/kron_g14_k16.gapbs.edges spark98/sf10.1.pack metis/4elt.graph; do
    [ "$D/$f" -nt "data/$f.gz" ] && continue
    mkdir -p "$(dirname "$D/$f")" && gzip -dc "data/$f.gz" > "$D/$f.tmp$$" && mv "$D/$f.tmp$$" "$D/$f"
  done
fi
OUT=$(mktemp -d)
. "$(dirname "$0")/ch4_common.sh"
clang-19 $FLAGS -c $B/common/weft_bench.c -o $OUT/wb.o
args() { # registry arguments of benchmark $1 for $SIZE
  case "$SIZE:$1" in
    quick:carey) echo "--quick --input $D/graphs/kron_g14_k16.gapbs.edges" ;;
    quick:equake) echo "--quick --input $D/spark98/sf10.1.pack" ;;
    quick:gauss_seidel) echo "--quick --input $D/metis/4elt.graph" ;;
    quick:*) echo "--quick" ;;
    full:*) echo "" ;;
  esac
}
share() { # "share% executions inspections record% deps% sched% insp/exec" from a runtime stats JSON
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ins = exe = ex = insp = rec = dep = sch = 0
for r in d.get("regions", []):
    if r.get("kind") != "irregular":
        continue
    ins += r["inspector_ns"]; exe += r["executor_ns"]
    ex += r["executions"]; insp += r["inspections"]
    b = r.get("inspector_breakdown") or {}
    rec += b.get("record_ns", 0); dep += b.get("dependence_ns", 0); sch += b.get("schedule_ns", 0)
tot = max(1, ins + exe)
per = (ins / insp) / (exe / ex) if insp and ex and exe else 0.0
print("%.2f %d %d %.1f %.1f %.1f %.1f" % (100.0 * ins / tot, ex, insp,
      100.0 * rec / tot, 100.0 * dep / tot, 100.0 * sch / tot, per))
PY
}
median_run() { # of $1.1.json .. $1.N.json, the file whose share is the median
  for f in "$1".*.json; do echo "$(share "$f" | cut -d' ' -f1) $f"; done | sort -g |
    awk '{ l[NR] = $2 } END { print l[int((NR + 1) / 2)] }'
}
printf "%-13s %7s %7s %6s | %8s %5s %5s %6s %6s %6s %9s %9s | %8s | %8s %8s %7s\n" \
  bench clang_s opt_s opt% insp_nat% execs insps rec% deps% sched% insp/exec "nat%@$LONG" insp_tr% orig_s exec_s exec%
for c in $B/irregular/*.c; do
  n=$(basename $c .c)
  if [ -n "$ONLY" ] && [ "$ONLY" != "$n" ]; then continue; fi
  A=$(args $n)
  clang-19 $FLAGS -S -emit-llvm $c -o $OUT/$n.ll
  tc=$(bestn clang-19 $FLAGS -c $c -o $OUT/$n.o)
  to=$(bestn $WEFT opt $OUT/$n.ll -o $OUT/$n.opt.bc)
  $WEFT build $OUT/$n.ll --link $OUT/wb.o -o $OUT/$n.orig --passes=none --codegen-flag=-falign-loops=64
  $WEFT build $OUT/$n.ll --link $OUT/wb.o -o $OUT/$n.exec --passes=executor-form --codegen-flag=-falign-loops=64
  $WEFT build $OUT/$n.ll --link $OUT/wb.o -o $OUT/$n.blp --passes=insert-inspector,parallel-for
  $WEFT build $OUT/$n.ll --link $OUT/wb.o -o $OUT/$n.tr --passes='insert-inspector,parallel-for,instrument-trace<only=kernel_*>'
  # native shares: the run with the median share of N (single runs of millisecond
  # inspections move by a factor of 2 on this host)
  for k in $(seq "$N"); do
    WEFT_CORES=2 WEFT_STATS=$OUT/$n.nat.$k.json $OUT/$n.blp $A >/dev/null 2>&1
    WEFT_CORES=2 WEFT_STATS=$OUT/$n.long.$k.json $OUT/$n.blp $A --iters $LONG >/dev/null 2>&1
  done
  cp "$(median_run $OUT/$n.nat)" $OUT/$n.nat.json
  cp "$(median_run $OUT/$n.long)" $OUT/$n.long.json
  # the trace itself is not needed (full-size traces take tens of GB)
  # (stun's full-size traced run takes many minutes: bounded by TRACE_TIMEOUT seconds, and a
  # run that does not finish leaves its column empty instead of ending the script)
  rm -f $OUT/$n.tr.json
  timeout ${TRACE_TIMEOUT:-600} env WEFT_CORES=16 WEFT_TRACE=/dev/null WEFT_STATS=$OUT/$n.tr.json \
    $OUT/$n.tr $A >/dev/null 2>&1 || true
  [ -s $OUT/$n.tr.json ] || echo '{"regions": []}' > $OUT/$n.tr.json
  read -r to_ te <<<"$(N=$NID WEFT_CORES=1 medk2 "$OUT/$n.orig $A" "$OUT/$n.exec $A")"
  read -r sn ex insp rec dep sch per <<<"$(share $OUT/$n.nat.json)"
  read -r sl _ <<<"$(share $OUT/$n.long.json)"
  read -r st _ <<<"$(share $OUT/$n.tr.json)"
  printf "%-13s %7.3f %7.3f %6.1f | %8s %5s %5s %6s %6s %6s %9s %9s | %8s | %8.5f %8.5f %7.2f\n" $n $tc $to \
    $(echo "100*$to/$tc" | bc -l) $sn $ex $insp $rec $dep $sch $per $sl $st $to_ $te $(echo "100*($te-$to_)/$to_" | bc -l)
done
rm -rf $OUT
