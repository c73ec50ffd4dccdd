#!/usr/bin/env bash
# Every ratio of issue 17, in one run, on both executors (ref and sim):
#   1. end to end, as a user runs it: `ndma run` with --load/--dump .npy
#      (whole process, best of [reps]) against NumPy doing the same load +
#      operation + save in-process, the results checked equal (bench/e2e.py);
#   2. in process: `go test -bench` of every internal/benchcase path (ref's
#      BenchmarkRef, sim's BenchmarkSim) and of the float casts
#      (internal/num BenchmarkConvertSlice) against NumPy's equivalents
#      (bench/numpy_ref.py), each with its target (bench/ratios.py);
#   3. NEFF lowering in descriptors/s (internal/cli BenchmarkNeffLower*).
# NumPy is Debian's python3-numpy at /usr/bin/python3, installed with apt-get
# when missing. The machine may be noisy: read ratios, not absolute times.
#   bench/compare.sh [count] [reps]     (count: go -bench -count, default 3; reps: 3)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-3}
reps=${2:-3}
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "installing python3-numpy (Debian) ..." >&2
  apt-get install -y python3-numpy >/dev/null || { apt-get update >/dev/null && apt-get install -y python3-numpy >/dev/null; }
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndma-compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/ndma" ./cmd/ndma
echo "$(date -u +%Y-%m-%d), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))," \
  "$(go version | cut -d' ' -f3), NumPy $("$PY" -c 'import numpy; print(numpy.__version__)')"
echo
"$PY" bench/e2e.py "$tmp/ndma" "$reps"
echo
go test ./ref -run '^$' -bench 'Ref/' -benchtime 300ms -count "$count" >"$tmp/ref.txt"
go test ./sim -run '^$' -bench 'Sim/' -benchtime 300ms -count "$count" >"$tmp/sim.txt"
go test ./internal/num -run '^$' -bench 'ConvertSlice/' -benchtime 300ms -count "$count" >"$tmp/num.txt"
"$PY" bench/numpy_ref.py >"$tmp/numpy.txt"
"$PY" bench/ratios.py "$tmp/ref.txt" "$tmp/sim.txt" "$tmp/num.txt" "$tmp/numpy.txt"
echo
# NEFF lowering of the 10,000-word synthetic NEFF (internal/cli BenchmarkNeffLower*)
go test ./internal/cli -run '^$' -bench 'NeffLower' -benchtime 8x -count "$count" -benchmem >"$tmp/neff.txt"
echo "NEFF lowering, 10,000 words (descriptors/s, fastest of $count; target >= 10 M on the streamed path of every neff lower)"
for b in NeffLower NeffLowerStats NeffLowerKept; do
  awk -v b="Benchmark$b-" '{ d = ""; a = "" } index($1, b) == 1 || $1 == substr(b, 1, length(b) - 1) {
      for (i = 2; i < NF; i++) { if ($(i + 1) == "descriptors/s") d = $i; if ($(i + 1) == "allocs/op") a = $i }
      if (d > best) { best = d; al = a } }
    END { t = (b == "BenchmarkNeffLower-") ? (best >= 10e6 ? "  ok" : "  --") : ""
      printf "  %-22s %6.2f M descriptors/s  %d allocations a lowering%s\n", substr(b, 10, length(b) - 10), best / 1e6, al, t }' "$tmp/neff.txt"
done
