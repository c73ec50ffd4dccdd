#!/usr/bin/env python3
"""Per-DMA-call cost of ndma.nki, measured as a user runs it (docs/nki.md "Speed").

A legacy-dialect kernel streams a vector add over TILES tiles of (128, COLS)
float32: per tile two nl.load, one nl.add (a TENSOR_TENSOR word) and one
nl.store — 3 DMA calls. The wall time of the whole call (tracing in Python,
the batches through the ctypes bridge, compiling and running every word on
ndma) is divided by the DMA calls; NumPy's a + b is printed beside it.

    PYTHONPATH=python /usr/bin/python3 bench/nki_calls.py [TILES] [COLS]
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402
import ndma.nki as nki  # noqa: E402
import ndma.nki.language as nl  # noqa: E402


def vadd(a, b):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        x = nl.load(a[i * 128:(i + 1) * 128, :])
        y = nl.load(b[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(x, y))
    return out


def best(f, n=3):
    """(best wall s, its CPU s of this process — Python and Go threads —, result)."""
    ts = []
    for _ in range(n):
        c0, t0 = time.process_time(), time.perf_counter()
        r = f()
        ts.append((time.perf_counter() - t0, time.process_time() - c0))
    w, c = min(ts)
    return w, c, r


def main():
    TILES = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    COLS = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rng = np.random.default_rng(0)
    a = rng.standard_normal((TILES * 128, COLS)).astype(np.float32)
    b = rng.standard_normal((TILES * 128, COLS)).astype(np.float32)
    dma = 3 * TILES
    print("kernel: vector add, %d tiles of (128, %d) float32: %d DMA calls, %d compute calls" % (TILES, COLS, dma, TILES))
    t_np, _, want = best(lambda: a + b)
    print("  (wall: the best of the runs; cpu: that run's process CPU time — the VM is shared and noisy)")
    for exec in ("fast", "sim"):
        k = nki.jit(vadd, exec=exec)
        t, c, got = best(lambda: k(a, b), 2)
        assert np.array_equal(got, want)
        print("  jit exec=%-4s %7.3f s wall %7.3f s cpu   %6.1f us wall, %6.1f us cpu per DMA call   %6.0fx NumPy's a + b (%.2f ms)"
              % (exec, t, c, t / dma * 1e6, c / dma * 1e6, t / t_np, t_np * 1e3))
    t, c, r = best(lambda: nki.trace(vadd)(a, b), 2)
    print("  trace()       %7.3f s wall %7.3f s cpu   %6.1f us wall, %6.1f us cpu per DMA call (with words and text per call); "
          "predicted kernel time %.1f us" % (t, c, t / dma * 1e6, c / dma * 1e6, r.time_ns / 1e3))
    # the tracer alone: the kernel's Python with no run (what the bridge and Go add on top)
    from ndma.nki import _trace
    orig = _trace.Session.flush
    _trace.Session.flush = lambda self: self._new_batch()
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            nki.jit(vadd)(a, b)
        except Exception:
            pass  # reading the output of a run that did not happen
        t, c = time.perf_counter() - t0, time.process_time() - c0
    finally:
        _trace.Session.flush = orig
    print("  tracing only  %7.3f s wall %7.3f s cpu   %6.1f us wall, %6.1f us cpu per DMA call (the kernel's Python, no run)"
          % (t, c, t / dma * 1e6, c / dma * 1e6))


if __name__ == "__main__":
    main()
