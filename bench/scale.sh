#!/usr/bin/env bash
# Time vs size on both executors (issue 17): go test -bench 'Scale/' of ref
# and sim (internal/benchcase.Scale: copy 1 MiB → 1 GiB, gather 1 k → 1 M
# indices, cast fp32 → bf16 1 M → 64 M elements, 2-byte transpose 256² →
# 4096²), the fastest of [count] runs of [benchtime] each, written as the
# table between the scale markers of docs/performance.md (and printed).
# Each case runs once untimed first (its pages exist: the table is of the
# moves, not of the kernel's page faults). Wall and CPU time per operation
# both: on a shared machine the CPU time is the steadier. Needs about 5 GB of free memory (the 1 GiB copy).
#   bench/scale.sh [count] [benchtime]      (defaults: 3, 2x)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-3}
bt=${2:-2x}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndma-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go test ./ref -run '^$' -bench 'Scale/' -benchtime "$bt" -count "$count" -timeout 60m >"$tmp/ref.txt"
go test ./sim -run '^$' -bench 'Scale/' -benchtime "$bt" -count "$count" -timeout 60m >"$tmp/sim.txt"
/usr/bin/python3 bench/scale.py "$tmp/ref.txt" "$tmp/sim.txt" docs/performance.md \
  "$(date -u +%Y-%m-%d), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(go version | cut -d' ' -f3)"
