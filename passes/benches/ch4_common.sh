# Shared by ch4_overheads.sh and ch4_native.sh (sourced; expects B and N set):
# the benchmarks' compile flags and the best-of-N helpers (kernel time, wall time);
# sourced by opt_time.sh too.
FLAGS="-O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -fno-discard-value-names -g0 -std=c11 -I$B/common"
bestk() { # best kernel time (the benchmark's "time: <s> s" line on stderr) of N runs of "$@"
  local best=""
  for _ in $(seq "$N"); do
    local d; d=$("$@" 2>&1 >/dev/null | awk '/ time: / {print $(NF-1)}' | tail -1)
    if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
  done
  echo "$best"
}
now() { date +%s.%N; }
bestn() { # best wall time (s) of N runs of "$@"
  local best=""
  for _ in $(seq "$N"); do
    local t0; t0=$(now); "$@" >/dev/null 2>&1; local t1; t1=$(now)
    local d; d=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
  done
  echo "$best"
}
