# Shared by ch4_overheads.sh and ch4_native.sh (sourced; expects B and N set):
# the benchmarks' compile flags and the best-of-N helpers (kernel time, wall time);
# sourced by opt_time.sh too.
FLAGS="-O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -fno-discard-value-names -g0 -std=c11 -I$B/common"
kt() { # kernel time (the benchmark's "time: <s> s" line on stderr) of one run of "$@"
  "$@" 2>&1 >/dev/null | awk '/ time: / {print $(NF-1)}' | tail -1
}
bestk() { # best kernel time of N runs of "$@"
  local best=""
  for _ in $(seq "$N"); do
    local d; d=$(kt "$@")
    if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
  done
  echo "$best"
}
median() { # median of the numbers on stdin, one per line
  sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
medk2() { # "median_a median_b": kernel times of N alternating runs of command a ($1) and b ($2)
  # (each a string, split on spaces), so drift of the host's speed hits both alike
  local a=() b=()
  for _ in $(seq "$N"); do a+=("$(kt $1)"); b+=("$(kt $2)"); done
  echo "$(printf '%s\n' "${a[@]}" | median) $(printf '%s\n' "${b[@]}" | median)"
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
