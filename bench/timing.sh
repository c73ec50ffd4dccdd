#!/usr/bin/env bash
# Predicted vs measured DMA time (issue 19): the packet-level model
# (package timing) on the two kernels of ../shared/spec/hw-timing.md, built
# as synthetic NEFFs of their DMA structure, against the trn2 profile.
#
#   bench/timing.sh
#
# 1. The table — predicted, measured, error % per queue window, median and
#    per-transfer duration, kernel time — is device's TestHWTiming, the
#    deterministic model check that holds the goal figures to ±25 %.
# 2. The same kernels end to end through `ndma neff run` (bench/mkhwneff
#    writes them), with the vector add's DVE add given as 1.200 µs, as a
#    user runs them; the wall time of each run is printed beside.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== predicted vs measured (go test ./device -run TestHWTiming)"
go test ./device -run '^TestHWTiming$' -count=1 -v | sed -n '/predicted vs measured/,/^---/p' | grep -v -e '^---' -e 'predicted vs measured' | sed 's/^        //'
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndma-timing.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/ndma" ./cmd/ndma
go run ./bench/mkhwneff "$tmp"
for k in "vector_add --engine-time TENSOR_TENSOR=1.2us" "transpose"; do
  set -- $k
  name=$1; shift
  echo "== ndma neff run $* $name.neff"
  start=$(date +%s%N)
  "$tmp/ndma" neff run "$@" "$tmp/$name.neff" | grep -E '^DMA time|queue |simulated DMA time'
  end=$(date +%s%N)
  echo "wall $(( (end - start) / 1000000 )) ms, NEFF $(wc -c < "$tmp/$name.neff") bytes"
done
