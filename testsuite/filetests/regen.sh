#!/usr/bin/env bash
# Regenerates the filetest .ll files from their C sources (src/<case>.c):
# clang-19 with the frontend's default flags, directives copied from the
# source's leading `//` comment lines to `;` comments at the top of the .ll.
set -euo pipefail
cd "$(dirname "$0")"
for c in */src/*.c; do
  dir=$(dirname "$(dirname "$c")"); case=$(basename "$c" .c); out="$dir/$case.ll"
  { grep -E '^// (PASSES|CHECK|CHECK-NOT|REMARK|run|cores|MIN-PARALLEL-ITERS|SERIAL-CONSUMER-BYTES):' "$c" | sed 's|^//|;|'
    clang-19 -O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -fno-discard-value-names -g0 \
      -S -emit-llvm -o - "$c" | grep -v '^; ModuleID' | sed "s|^source_filename = .*|source_filename = \"$case.c\"|"
  } > "$out"
done
