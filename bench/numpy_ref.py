"""NumPy references for bench/compare.sh: seconds per operation, best of N."""
import time
import numpy as np

def best(f, n=7):
    f()
    t = []
    for _ in range(n):
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
    return min(t)

rng = np.random.default_rng(1)
src = rng.integers(0, 65535, size=(4096, 4096), dtype=np.uint16)
dst = np.empty((4096, 4096), dtype=np.uint16)
print("transpose_bf16_4096x4096", best(lambda: np.copyto(dst, src.T)))

table = rng.integers(0, 65535, size=(65535, 256), dtype=np.uint16)  # 65535 rows of 512 bytes
idx = rng.integers(0, 65535, size=4096)
out = np.empty((4096, 256), dtype=np.uint16)
print("gather_4096_rows_of_512B", best(lambda: np.take(table, idx, axis=0, out=out)))

# the gather-transpose: 4096 gathered rows, then transposed
gt = np.empty((256, 4096), dtype=np.uint16)
print("gather_transpose_4096x256", best(lambda: np.copyto(gt, np.take(table, idx, axis=0).T)))

a = np.ones(64 << 20, dtype=np.uint8)
b = np.empty_like(a)
print("copy64MiB", best(lambda: np.copyto(b, a)))
