#!/usr/bin/env python3
"""Per-call cost of ndma.nki's selection calls, measured as a user runs it (docs/nki.md
"Selection", "Random numbers and dropout"): N calls of affine_select (a causal-style mask),
max8, nc_match_replace8, range_select, nl.rand and nl.dropout on a (128, 512) float32 tile,
each a Go loop on ndma (not a word), the kernel's wall time divided by N — best of 2 after a
warm-up run — beside NumPy doing the same (np.where; a sort; a generator) per call.

    PYTHONPATH=python /usr/bin/python3 bench/nki_select.py [N]
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402
import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200


@nki.jit
def masks(a):
    o = nl.ndarray((128, 512), nl.float32, buffer=nl.shared_hbm)
    ip, jf = nl.arange(128)[:, None], nl.arange(512)[None, :]
    t = nl.load(a)
    for i in range(N):
        t = nisa.affine_select(pred=(ip * 4 + i >= jf), on_true_tile=t, on_false_value=-9984.0)
    nl.store(o, value=t)
    return o


def _kernel(body, shape=(128, 512)):
    """A kernel calling body(t, i) N times on the loaded tile t, storing the last result."""
    @nki.jit
    def k(a):
        o = nl.ndarray(shape, nl.float32, buffer=nl.shared_hbm)
        t = nl.load(a)
        lo = nl.full((128, 1), 100.0, nl.float32)
        for i in range(N):
            r = body(t, i, lo)
        nl.store(o, value=r)
        return o
    return k


tops = _kernel(lambda t, i, lo: nisa.max8(src=t), (128, 8))
replaces = _kernel(lambda t, i, lo: nisa.nc_match_replace8(data=t, vals=t[:, 0:8], imm=float("-inf")))
ranges = _kernel(lambda t, i, lo: nisa.range_select(on_true_tile=t, comp_op0=nl.greater_equal, comp_op1=nl.less,
                                                    bound0=lo, bound1=float(300 + i % 100), on_false_value=-9984.0))
rands = _kernel(lambda t, i, lo: nl.rand((128, 512)))
dropouts = _kernel(lambda t, i, lo: nl.dropout(t, 0.1))


def _replace_ref(a):
    """NumPy's same: each row's first occurrence of each of its first 8 values set to -inf."""
    out = a.copy()
    idx = np.argmax(a[:, :, None] == a[:, None, 0:8], axis=1)
    np.put_along_axis(out, idx, -np.inf, axis=1)
    return out


def main():
    a = np.random.default_rng(0).standard_normal((128, 512)).astype(np.float32)
    p, f = np.arange(128)[:, None], np.arange(512)[None, :]
    rng = np.random.default_rng(1)
    for name, kern, ref in (("affine_select", masks, lambda i: np.where(p * 4 + i >= f, a, np.float32(-9984.0))),
                            ("max8", tops, lambda i: -np.sort(-a, axis=1)[:, :8]),
                            ("nc_match_replace8", replaces, lambda i: _replace_ref(a)),
                            ("range_select", ranges, lambda i: np.where((f >= 100) & (f < 300 + i % 100), a, np.float32(-9984.0))),
                            ("rand", rands, lambda i: rng.random((128, 512), np.float32)),
                            ("dropout", dropouts, lambda i: np.where(rng.random((128, 512), np.float32) < 0.1, np.float32(0), a))):
        kern(a)
        best = min(_time(lambda: kern(a)) for _ in range(2)) / N
        t0 = time.perf_counter()
        for i in range(N):
            ref(i)
        tn = (time.perf_counter() - t0) / N
        print("%-17s (128, 512) float32: %7.1f us a call, NumPy %6.1f us (%.1fx)" % (name, best * 1e6, tn * 1e6, best / tn))


def _time(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
