#!/usr/bin/env bash
# Side by side, in one run: ndma's reference data paths (go test -bench) against
# Go's copy() and NumPy (Debian's python3-numpy, installed if missing). This
# machine is noisy: the ratios are what to compare, not absolute times. Both
# sides report their best run (NumPy: best of 7 after a warm-up; Go: the
# fastest of [count] benchmark runs of 300 ms each).
#   bench/compare.sh [count]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-3}
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "installing python3-numpy (Debian) ..." >&2
  apt-get install -y python3-numpy >/dev/null
fi
go_out=$(go test ./ref -run '^$' -bench 'GoCopy64MiB|Ref/(copy64MiB|transpose_bf16_4096|gather)' -benchtime 300ms -count "$count")
sim_out=$(go test ./sim -run '^$' -bench 'Sim/(copy64MiB|gather)' -benchtime 300ms -count "$count")
np_out=$("$PY" bench/numpy_ref.py)
echo "$go_out" | grep '^Benchmark'
echo "$sim_out" | grep '^Benchmark'
echo "$np_out" | sed 's/^/numpy: /'
{ echo "$go_out"; echo "$sim_out"; echo "$np_out" | sed 's/^/NUMPY /'; } | awk '
  function lo(v, cur) { return (cur == 0 || v < cur) ? v : cur }
  /^BenchmarkGoCopy64MiB/            { gc = lo($3, gc) }
  /^BenchmarkRef\/copy64MiB/         { rc = lo($3, rc) }
  /^BenchmarkRef\/transpose_bf16_4096/ { rt = lo($3, rt) }
  /^BenchmarkRef\/gather_4096_rows/  { rg = lo($3, rg) }
  /^BenchmarkRef\/gather_transpose/  { rgt = lo($3, rgt) }
  /^BenchmarkSim\/copy64MiB/         { sc = lo($3, sc) }
  /^BenchmarkSim\/gather_4096_rows/  { sg = lo($3, sg) }
  /^NUMPY transpose_bf16/            { nt = $3 * 1e9 }
  /^NUMPY gather_4096_rows/          { ng = $3 * 1e9 }
  /^NUMPY gather_transpose/          { ngt = $3 * 1e9 }
  END {
    printf "\nratios (higher is better for ndma):\n"
    if (rc && gc)  printf "  contiguous 64 MiB copy:          %.2f x Go copy() bandwidth   (target >= 0.5)\n", gc/rc
    if (rt && nt)  printf "  4096x4096 2-byte transpose:      %.2f x NumPy copyto(dst, src.T)   (target >= 2)\n", nt/rt
    if (rg && ng)  printf "  indirect gather, 4096 rows:      %.2f x NumPy take   (target >= 1)\n", ng/rg
    if (rgt && ngt) printf "  gather-transpose, 4096 x 256:    %.2f x NumPy take + transpose   (target >= 1)\n", ngt/rgt
    if (sc && gc)  printf "  sim: contiguous 64 MiB copy:     %.2f x Go copy() bandwidth   (target >= 0.3)\n", gc/sc
    if (sg && ng)  printf "  sim: indirect gather, 4096 rows: %.2f x NumPy take\n", ng/sg
  }'
