#!/usr/bin/env bash
# Side-by-side: the table-driven decoder/encoder against a hand-written
# fixed-offset decoder of one struct, measured in the same run. Absolute
# times on this machine are noisy; the ratio is what to compare.
#   bench/decode.sh [count]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
out=$(go test ./isa -run '^$' -bench '^Benchmark(Decode|Encode|DecodeReference)$' -benchtime 1s -count "$count")
echo "$out" | grep '^Benchmark'
echo "$out" | awk '
  /^BenchmarkDecode-/          { d += $3; nd++ }
  /^BenchmarkEncode-/          { e += $3; ne++ }
  /^BenchmarkDecodeReference-/ { r += $3; nr++ }
  /Mwords\/s/ { for (i = 1; i < NF; i++) if ($(i+1) == "Mwords/s") {
      if ($1 ~ /^BenchmarkDecode-/) dm += $i; if ($1 ~ /^BenchmarkEncode-/) em += $i } }
  END {
    printf "\nmean ns/word: decode %.1f, encode %.1f, hand-written reference %.1f\n", d/nd, e/ne, r/nr
    printf "mean Mwords/s: decode %.1f, encode %.1f\n", dm/nd, em/ne
    printf "ratio (table-driven / hand-written): decode %.2fx the reference time\n", (d/nd)/(r/nr)
  }'
