#!/usr/bin/env bash
# Prints README's performance tables from a fresh run of the benchmarks (means of 3 repetitions):
#   tests/bench/run.sh [BUILD_DIR]      (default: build; builds the dsx_bench target first)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
cmake --build "$build" --target dsx_bench >/dev/null
"./$build/tests/bench/dsx_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_format=csv 2>/dev/null | awk -F, '
  function rate(v) { return v >= 1e6 ? sprintf("%.2f M", v / 1e6) : sprintf("%.0f k", v / 1e3) }
  /^name/ { for (i = 1; i <= NF; ++i) if ($i == "\"points_per_s\"" || $i == "points_per_s") col = i; next }
  /_mean/ {
    name = $1; gsub(/"/, "", name); sub(/_mean$/, "", name); sub(/\/real_time$/, "", name)
    value[name] = $col; order[++n] = name
  }
  END {
    print "| benchmark | points/s |"; print "|---|---:|"
    for (i = 1; i <= n; ++i) if (order[i] !~ /^BM_SweepIntoStore/) print "| `" order[i] "` | " rate(value[order[i]]) " |"
    print ""; print "| `keep:` | 1 thread | 2 threads | 2 / 1 |"; print "|---|---:|---:|---:|"
    split("all front top_k sample", modes, " ")
    for (k = 0; k < 4; ++k) {
      one = value["BM_SweepIntoStore/keep:" k "/threads:1"]; two = value["BM_SweepIntoStore/keep:" k "/threads:2"]
      if (one > 0) printf "| %s | %s | %s | %.2fx |\n", modes[k + 1], rate(one), rate(two), two / one
    }
  }'
