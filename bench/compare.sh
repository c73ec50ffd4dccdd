#!/usr/bin/env bash
# Side by side, in one run: ndma's reference data paths (go test -bench) against
# Go's copy() and NumPy (Debian's python3-numpy, installed if missing). This
# machine is noisy: the ratios are what to compare, not absolute times.
#   bench/compare.sh [count]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-3}
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "installing python3-numpy (Debian) ..." >&2
  apt-get install -y python3-numpy >/dev/null
fi
go_out=$(go test ./ref -run '^$' -bench 'GoCopy64MiB|Ref/(copy64MiB|transpose|gather|gather_transpose)' -benchtime 5x -count "$count")
np_out=$("$PY" bench/numpy_ref.py)
echo "$go_out" | grep '^Benchmark'
echo "$np_out" | sed 's/^/numpy: /'
{ echo "$go_out"; echo "$np_out" | sed 's/^/NUMPY /'; } | awk '
  /^BenchmarkGoCopy64MiB/            { gc += $3; ngc++ }
  /^BenchmarkRef\/copy64MiB/         { rc += $3; nrc++ }
  /^BenchmarkRef\/transpose_bf16/    { rt += $3; nrt++ }
  /^BenchmarkRef\/gather_4096_rows/  { rg += $3; nrg++ }
  /^BenchmarkRef\/gather_transpose/  { rgt += $3; nrgt++ }
  /^NUMPY transpose_bf16/            { nt = $3 * 1e9 }
  /^NUMPY gather_4096_rows/          { ng = $3 * 1e9 }
  /^NUMPY gather_transpose/          { ngt = $3 * 1e9 }
  END {
    printf "\nratios (higher is better for ndma):\n"
    if (nrc && ngc) printf "  contiguous 64 MiB copy:          %.2f x Go copy() bandwidth   (target >= 0.5)\n", (gc/ngc)/(rc/nrc)
    if (nrt && nt)  printf "  4096x4096 2-byte transpose:      %.2f x NumPy copyto(dst, src.T)   (target >= 2)\n", nt/(rt/nrt)
    if (nrg && ng)  printf "  indirect gather, 4096 rows:      %.2f x NumPy take   (target >= 1)\n", ng/(rg/nrg)
    if (nrgt && ngt) printf "  gather-transpose, 4096 x 256:    %.2f x NumPy take + transpose   (target >= 1)\n", ngt/(rgt/nrgt)
  }'
