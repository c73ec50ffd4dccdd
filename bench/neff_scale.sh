#!/usr/bin/env bash
# Scale of `ndma neff` on matmul_large.neff (issue 14, item 6), end to end as
# a user runs it: wall time and peak RSS (/usr/bin/time) of
#   ndma neff lower --stats            (no filter)
#   ndma neff run                      (inputs: deterministic random data)
#   ndma neff run --in x=… --in y=…    (real-size inputs: x [128,32768] and
#                                       y [32768,65536] fp16, 8 MiB and 4 GiB)
# in one run, with the issue's targets beside them. The machine may be noisy:
# read the columns against each other (and run twice), not one figure alone.
#
#   bench/neff_scale.sh
#
# The sample is found in $NDMA_NEFF_SAMPLES, else ../shared/neff-samples.
# The .npy inputs (4 GiB, written by bench/mknpy: no NumPy needed) go to a
# temporary directory removed at the end, or to $NDMA_SCALE_DATA when set
# (kept there and reused by later runs). Each step is cut off after
# $NDMA_SCALE_TIMEOUT seconds (default 600).
set -uo pipefail
cd "$(dirname "$0")/.."
samples=${NDMA_NEFF_SAMPLES:-../shared/neff-samples}
neff=$samples/matmul_large.neff
if [ ! -f "$neff" ]; then
  echo "neff_scale: no $neff (set NDMA_NEFF_SAMPLES to the directory holding matmul_large.neff)" >&2
  exit 2
fi
if [ ! -x /usr/bin/time ]; then
  echo "neff_scale: /usr/bin/time (GNU time) is needed for the peak RSS" >&2
  exit 2
fi
timeout=${NDMA_SCALE_TIMEOUT:-600}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndma-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
data=${NDMA_SCALE_DATA:-$tmp}
mkdir -p "$data"

echo "building ndma and bench/mknpy ..." >&2
go build -o "$tmp/ndma" ./cmd/ndma || exit 1
go build -o "$tmp/mknpy" ./bench/mknpy || exit 1
x=$data/x.npy y=$data/y.npy
# a file of the right size is reused (NDMA_SCALE_DATA); else written anew
[ "$(stat -c %s "$x" 2>/dev/null)" = $((128 + 128 * 32768 * 2)) ] || {
  echo "writing $x (8 MiB) ..." >&2
  "$tmp/mknpy" -shape 128,32768 -seed 1 "$x" || exit 1
}
[ "$(stat -c %s "$y" 2>/dev/null)" = $((128 + 32768 * 65536 * 2)) ] || {
  echo "writing $y (4 GiB) ..." >&2
  "$tmp/mknpy" -shape 32768,65536 -seed 2 "$y" || exit 1
}

rows=()
# step NAME TARGET_S TARGET_MIB ARGS…: one timed run of ndma
step() {
  local name=$1 ts=$2 tm=$3
  shift 3
  echo "running: ndma $* ..." >&2
  timeout "$timeout" /usr/bin/time -f '%e %M' -o "$tmp/time" "$tmp/ndma" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local wall kb
  read -r wall kb < <(tail -n 1 "$tmp/time" 2>/dev/null) || true
  local status=ok
  if [ "$rc" = 124 ]; then
    status="timed out after ${timeout} s"
  elif [ "$rc" != 0 ]; then
    status="exit $rc: $(tail -n 1 "$tmp/err" | cut -c1-80)"
  fi
  local mib=$(( ${kb:-0} / 1024 ))
  # the figures as fractions of their targets (≤ 1 meets it)
  local rt rm
  rt=$(awk -v a="${wall:-0}" -v b="$ts" 'BEGIN { printf "%.2f", a / b }')
  rm=-
  [ "$tm" = - ] || rm=$(awk -v a="$mib" -v b="$tm" 'BEGIN { printf "%.2f", a / b }')
  rows+=("$(printf '%-26s %7s %9s %7s %10s %6s %6s  %s' "$name" "${wall:--}" "$mib" "$ts" "$tm" "$rt" "$rm" "$status")")
}

step "neff lower --stats" 3 - neff lower --stats "$neff"
step "neff run (random inputs)" 5 1024 neff run "$neff"
step "neff run --in x, y" 20 6144 neff run --in "x=$x" --in "y=$y" "$neff"

echo
echo "matmul_large.neff ($(stat -c %s "$neff") bytes), $(nproc) CPUs, $(go version | cut -d' ' -f3)"
printf '%-26s %7s %9s %7s %10s %6s %6s  %s\n' step "wall s" "peak MiB" "goal s" "goal MiB" "s/goal" "M/goal" status
for r in "${rows[@]}"; do
  echo "$r"
done
