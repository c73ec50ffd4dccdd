#!/usr/bin/env python3
"""nc_matmul's cost as a user runs it (docs/nki.md "Speed"): a legacy kernel
of N nc_matmuls of a (128, 128) stationary by a (128, 512) moving tile, each
added into a PSUM accumulator, under ndma.nki.trace, beside NumPy doing the
same products and adds in float32.

    PYTHONPATH=python /usr/bin/python3 bench/nki_matmul.py [N [fp32|fp16]]

Each nc_matmul runs as the PE's LDWEIGHTS + MATMUL words (two pairs for
FP32: the LOW and HIGH passes) on ndma's compute engine; the add as a
TENSOR_TENSOR word.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402


def kernel(n):
    def k(x, y):
        tx, ty = nl.load(x), nl.load(y)
        acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
        for _ in range(n):
            acc += nisa.nc_matmul(tx, ty)
        out = nl.ndarray((128, 512), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(acc))
        return out
    return k


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    dt = np.float16 if len(sys.argv) > 2 and sys.argv[2] == "fp16" else np.float32
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 128)).astype(dt)
    y = rng.standard_normal((128, 512)).astype(dt)
    c0, t0 = time.process_time(), time.perf_counter()
    r = nki.trace(kernel(n))(x, y)
    t, c = time.perf_counter() - t0, time.process_time() - c0
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    t0 = time.perf_counter()
    acc = np.zeros((128, 512), np.float32)
    for _ in range(n):
        acc += xf.T @ yf
    t_np = time.perf_counter() - t0
    want = n * (x.astype(np.float64).T @ y.astype(np.float64))
    err = np.abs(r.outputs - want).max() / np.abs(want).max()
    print("%d nc_matmul (128, 128) x (128, 512) %s + add: ndma.nki.trace %.0f us wall, %.0f us CPU a matmul; "
          "NumPy %.0f us; ratio %.1fx; max error %.1e of the largest; %d calls not exact"
          % (n, np.dtype(dt).name, t / n * 1e6, c / n * 1e6, t_np / n * 1e6, t / t_np, err, len(r.inexact)))
    assert err < 1e-4 and not r.inexact


if __name__ == "__main__":
    main()
