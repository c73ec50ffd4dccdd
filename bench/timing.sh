#!/usr/bin/env bash
# Predicted vs measured kernel time (issues 19, 32): the time model (package
# timing: DMA packets and compute words on one clock) on the training
# kernels of ../shared/spec/hw-timing.md that ndma builds as synthetic
# NEFFs, against the profiles — no engine times given.
#
#   bench/timing.sh
#
# 1. The table — predicted, measured, error % per queue window, median
#    transfer, per-transfer duration and kernel end — is device's
#    TestHWTiming, the deterministic check that holds the goal figures
#    (±25 % a queue figure, ±15 % the kernel end; known misses logged).
# 2. The same kernels end to end through `ndma neff run` (bench/mkhwneff
#    writes them), as a user runs them; the wall time of each run beside.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== predicted vs measured (go test ./device -run TestHWTiming)"
go test ./device -run '^TestHWTiming$' -count=1 -v | sed -n '/predicted vs measured/,/^---/p' | grep -v -e '^---' -e 'predicted vs measured' | sed 's/^        //'
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndma-timing.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/ndma" ./cmd/ndma
go run ./bench/mkhwneff "$tmp"
for name in vector_add transpose vector_add_trn1 conv2d_4 conv2d_3 conv2d_2; do
  echo "== ndma neff run $name.neff"
  start=$(date +%s%N)
  "$tmp/ndma" neff run "$tmp/$name.neff" | grep -E 'queue |kernel time|engine |critical path'
  end=$(date +%s%N)
  echo "wall $(( (end - start) / 1000000 )) ms, NEFF $(wc -c < "$tmp/$name.neff") bytes"
done
