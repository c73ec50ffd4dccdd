#!/usr/bin/env bash
# The PE array's MATMUL kernel (internal/gemm) against NumPy, in one run:
#
#   bench/matmul.sh [-time 2s] [-size 4096]
#
# 1. bench/cmd/matmulbench: GFLOP/s of gemm.MatMul on the PE shape
#    (K = 128, M = 128, N = 512, accumulating) for about 2 s on one thread
#    and on all, and of a whole 4096³ product done as the simulator would,
#    one 128 × 512 × 128 MatMul per tile.
# 2. NumPy (OpenBLAS) float32 4096 × 4096 @ 4096 × 4096 with
#    /usr/bin/python3, OpenBLAS choosing its own kernel for this CPU
#    (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset), best of 3.
# 3. The ratio ndma / NumPy on the whole product.
set -euo pipefail
cd "$(dirname "$0")/.."
size=4096
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [[ ${args[i]} == -size ]] && size=${args[i + 1]}
  [[ ${args[i]} == -size=* ]] && size=${args[i]#-size=}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndma-matmul.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/matmulbench" ./bench/cmd/matmulbench
echo "== ndma internal/gemm.MatMul ($(nproc) CPUs, GOMAXPROCS ${GOMAXPROCS:-default})"
"$tmp/matmulbench" "$@" | tee "$tmp/ndma.txt" | grep -v '^ndma_whole_gflops'
ndma=$(sed -n 's/^ndma_whole_gflops //p' "$tmp/ndma.txt")
echo "== NumPy float32 ${size} × ${size} @ ${size} × ${size}"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 - "$size" <<'PY' | tee "$tmp/numpy.txt" | grep -v '^numpy_gflops'
import sys, time
import numpy as np
n = int(sys.argv[1])
rng = np.random.default_rng(1)
a = rng.random((n, n), dtype=np.float32)
b = rng.random((n, n), dtype=np.float32)
a @ b
best = min(
    (lambda t: (a @ b, time.perf_counter() - t)[1])(time.perf_counter())
    for _ in range(3)
)
print(f"numpy {np.__version__} (OpenBLAS), {n}³: {2 * n**3 / best / 1e9:7.1f} GFLOP/s ({best:.2f} s)")
print(f"numpy_gflops {2 * n**3 / best / 1e9:.3f}")
PY
numpy=$(sed -n 's/^numpy_gflops //p' "$tmp/numpy.txt")
/usr/bin/python3 -c "import sys; a, b = map(float, sys.argv[1:]); print(f'== ratio ndma / NumPy on the whole product: {a:.1f} / {b:.1f} = {a / b:.3f}')" "$ndma" "$numpy"
