#!/usr/bin/env python3
"""A 224x224, 256-channel conv2d + 2x2 max-pool kernel in the legacy NKI
dialect, run on ndma.nki: its wall time, as a user runs it (docs/nki.md
"Speed"; python/tests/test_nki.py runs the same kernel small, against NumPy).

    PYTHONPATH=python /usr/bin/python3 bench/nki_conv2d.py [H W C_in C_out]

The DMA calls run as ndma's words (Fast: bytes by the reference, each word
shape timed once on the descriptor engines); nc_matmul as the PE's LDWEIGHTS
and MATMUL words (two pairs each: FP32's LOW and HIGH passes); nl.maximum as a
TENSOR_TENSOR word; nl.max over the pooling axis in NumPy.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402


def conv2d_maxpool(X, Wt, pool=2):
    """Legacy dialect: X (C_in, H, W), Wt (FH, FW, C_in, C_out) in HBM;
    valid 2-D convolution (cross-correlation) then pool x pool max-pooling.
    Per output row: the FH input rows per C_in tile loaded once, one
    nc_matmul per (C_in tile, tap) into PSUM, two rows maxed together and
    then column pairs through nl.max."""
    C_in, H, W = X.shape
    FH, FW, _, C_out = Wt.shape
    Ho, Wo = H - FH + 1, W - FW + 1
    out = nl.ndarray((C_out, Ho // pool, Wo // pool), X.dtype, buffer=nl.shared_hbm)
    TI, TO = min(C_in, 128), min(C_out, 128)
    for co in nl.affine_range(C_out // TO):
        w = {}
        for ci in nl.static_range(C_in // TI):
            for fh in nl.static_range(FH):
                for fw in nl.static_range(FW):
                    w[ci, fh, fw] = nl.load(Wt[fh, fw, ci * TI:(ci + 1) * TI, co * TO:(co + 1) * TO])
        for r in nl.sequential_range(Ho // pool):
            rows = []
            for dr in range(pool):
                h = r * pool + dr
                acc = nl.zeros((nl.par_dim(TO), Wo), nl.float32, buffer=nl.psum)
                for ci in nl.affine_range(C_in // TI):
                    for fh in nl.static_range(FH):
                        x = nl.load(X[ci * TI:(ci + 1) * TI, h + fh, :])
                        for fw in nl.static_range(FW):
                            acc += nisa.nc_matmul(w[ci, fh, fw], x[:, fw:fw + Wo])
                rows.append(nl.copy(acc))
            m = rows[0]
            for t in rows[1:]:
                m = nl.maximum(m, t)
            pairs = nl.ndarray((TO, Wo // pool, pool), nl.float32, buffer=nl.sbuf)
            pairs[...] = m[:, 0:(Wo // pool) * pool]
            pooled = nl.max(pairs, axis=2)
            nl.store(out[co * TO:(co + 1) * TO, r, :], value=pooled)
    return out


def conv2d_maxpool_numpy(X, Wt, pool=2):
    C_in, H, W = X.shape
    FH, FW, _, C_out = Wt.shape
    Ho, Wo = H - FH + 1, W - FW + 1
    y = np.zeros((C_out, Ho, Wo), np.float32)
    for fh in range(FH):
        for fw in range(FW):  # BLAS: (C_in, C_out)^T @ (C_in, Ho*Wo)
            y += (Wt[fh, fw].T @ X[:, fh:fh + Ho, fw:fw + Wo].reshape(C_in, -1)).reshape(C_out, Ho, Wo)
    y = y[:, :Ho // pool * pool, :Wo // pool * pool]
    return y.reshape(C_out, Ho // pool, pool, Wo // pool, pool).max(axis=(2, 4))



def main():
    H, W, CI, CO = (int(v) for v in sys.argv[1:5]) if len(sys.argv) > 4 else (224, 224, 256, 256)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((CI, H, W)).astype(np.float32)
    Wt = (rng.standard_normal((3, 3, CI, CO)) / np.sqrt(9 * CI)).astype(np.float32)
    print("conv2d %dx%d, %d -> %d channels, 3x3, then 2x2 max-pool (legacy dialect)" % (H, W, CI, CO))
    c0, t0 = time.process_time(), time.perf_counter()
    r = nki.trace(conv2d_maxpool)(X, Wt)
    t, c = time.perf_counter() - t0, time.process_time() - c0
    ops = {}
    for call in r.calls:
        ops[call["op"]] = ops.get(call["op"], 0) + 1
    dma = sum(1 for call in r.calls if call["kind"] == "dma")
    print("  ndma.nki.trace: %.2f s wall, %.2f s cpu; %d calls (%d DMA): %s" % (
        t, c, len(r.calls), dma, ", ".join("%s %d" % kv for kv in sorted(ops.items()))))
    print("  predicted kernel time %.3f ms (%s); %d calls not exact (NumPy)" % (r.time_ns / 1e6, r.model, len(r.inexact)))
    t0 = time.perf_counter()
    want = conv2d_maxpool_numpy(X, Wt)
    t_np = time.perf_counter() - t0
    err = np.abs(r.outputs - want).max()
    print("  NumPy's own conv2d + max-pool (float32, BLAS) %.2f s; max |ndma - NumPy| = %.2e; ratio %.1fx" % (t_np, err, t / t_np))
    assert err < 1e-3


if __name__ == "__main__":
    main()
