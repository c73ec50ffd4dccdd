"""NumPy references for bench/compare.sh: seconds per operation, best of N,
one line per internal/benchcase case (same name, same sizes), the operation
its NumPy field names."""
import sys
import time
import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 7


def best(f):
    f()
    t = []
    for _ in range(n):
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
    return min(t)


def out(name, f):
    print(name, best(f))


rng = np.random.default_rng(1)

a = rng.integers(0, 256, size=64 << 20, dtype=np.uint8)
b = np.empty_like(a)
out("copy64MiB", lambda: np.copyto(b, a))

s = a[: 65535 * 128].reshape(65535, 128)
d = np.empty((65535, 64), dtype=np.uint8)
out("strided4MiB", lambda: np.copyto(d, s[:, :64]))
s = a[: 8 * 65535 * 128].reshape(8 * 65535, 128)
d = np.empty((8 * 65535, 64), dtype=np.uint8)
out("strided_8x65535x64B", lambda: np.copyto(d, s[:, :64]))
del a, b, s, d

f1 = rng.uniform(-1, 1, size=1 << 20).astype(np.float32)
out("cast_fp32_bf16_1M", lambda: f1.astype(np.float16))  # NumPy has no bf16: its fp32 -> fp16
f16m = rng.uniform(-1, 1, size=16 << 20).astype(np.float32)
out("cast_fp32_fp16_16M", lambda: f16m.astype(np.float16))
h16m = f16m.astype(np.float16)
out("cast_fp16_fp32_16M", lambda: h16m.astype(np.float32))
d1 = rng.uniform(-1, 1, size=1 << 20).astype(np.float32)
out("reduce_add_fp32_1M", lambda: np.add(d1, f1, out=d1))
d16m = rng.uniform(-1, 1, size=16 << 20).astype(np.float32)
out("add_fp32_16M", lambda: np.add(d16m, f16m, out=d16m))
del f16m, h16m, d16m

for k in (4096, 1024):
    src = rng.integers(0, 65535, size=(k, k), dtype=np.uint16)
    dst = np.empty((k, k), dtype=np.uint16)
    out(f"transpose_bf16_{k}x{k}", lambda: np.copyto(dst, src.T))
x = rng.uniform(-1, 1, size=(65520, 128)).astype(np.float16)
xt = np.empty((128, 65520), dtype=np.float16)
out("transpose_fp16_65520x128_sbuf", lambda: np.copyto(xt, x.T))

table = rng.integers(0, 65535, size=(65535, 256), dtype=np.uint16)  # 65535 rows of 512 bytes
idx = rng.integers(0, 65535, size=4096)
gt = np.empty((256, 4096), dtype=np.uint16)
out("gather_transpose_4096x256", lambda: np.copyto(gt, np.take(table, idx, axis=0).T))
g = np.empty((4096, 256), dtype=np.uint16)
out("gather_4096_rows_of_512B", lambda: np.take(table, idx, axis=0, out=g))
table = rng.integers(0, 256, size=(4096, 16384), dtype=np.uint8)  # 4096 rows of 16 KiB
idx = rng.integers(0, 4096, size=4096)
g = np.empty((4096, 16384), dtype=np.uint8)
out("gather_4096_rows_of_16KiB", lambda: np.take(table, idx, axis=0, out=g))
