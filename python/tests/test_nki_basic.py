"""ndma.nki: kernels in both dialects against NumPy (docs/nki.md)."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402


@nki.jit
def vadd_legacy(a, b):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        x = nl.load(a[i * 128:(i + 1) * 128, :])
        y = nl.load(b[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(x, y))
    return out


@nki.jit
def vadd_06(a, b):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    x = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    y = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a, dge_mode=nisa.dge_mode.hwdge)
    nisa.dma_copy(dst=y, src=b, dge_mode=nisa.dge_mode.swdge)
    nisa.tensor_tensor(dst=x, data1=x, data2=y, op=nl.add)
    nisa.dma_copy(dst=out, src=x)
    return out


def test_vector_add_both_dialects():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((256, 64)).astype(np.float32)
    b = rng.standard_normal((256, 64)).astype(np.float32)
    assert np.array_equal(vadd_legacy(a, b), a + b)
    a2 = a[:128]
    b2 = b[:128]
    assert np.array_equal(vadd_06(a2, b2), a2 + b2)


def gather_kernel(oob):
    def k(table, idx):
        out = nl.ndarray((idx.shape[0], table.shape[1]), table.dtype, buffer=nl.shared_hbm)
        it = nl.load(idx)  # (P, 1) uint32 tile
        t = nl.ndarray((idx.shape[0], table.shape[1]), table.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=table[it, :], oob_mode=oob)
        nl.store(out, value=t)
        return out
    return k


def test_gather_and_oob():
    table = np.arange(100 * 16, dtype=np.float32).reshape(100, 16)
    idx = np.array([3, 99, 0, 42, 7, 8, 1, 2], dtype=np.uint32)
    got = nki.simulate_kernel(gather_kernel(nisa.oob_mode.error), table, idx)
    assert np.array_equal(got, table[idx])
    bad = idx.copy()
    bad[4] = 100
    with pytest.raises(IndexError, match="index 100 is out of bounds for axis 0 with size 100"):
        nki.simulate_kernel(gather_kernel(nisa.oob_mode.error), table, bad)
    r = nki.trace(gather_kernel(nisa.oob_mode.skip))(table, bad)
    want = table[np.minimum(bad, 99)].copy()
    want[4] = 0
    assert np.array_equal(r.outputs, want)
    gather = [c for c in r.calls if c["op"] == "dma_copy"][0]
    assert gather["rows_skipped"] == 1 and gather["dge_mode"] == "swdge"
    assert gather["words"][0]["text"].startswith("dma_indirect")
    assert gather["file"] == "test_nki_basic.py"


def test_dma_transpose_and_trace():
    a = (np.arange(16 * 128) % 1000).astype(np.float16).reshape(16, 128)

    def k(a):
        t = nl.ndarray((128, 16), a.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=t, src=a)
        out = nl.ndarray((128, 16), a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out
    r = nki.trace(k)(a)
    assert np.array_equal(r.outputs, a.T)
    c = r.calls[0]
    assert c["dge_mode"] == "hwdge" and c["time_ns"] > 0
    assert any(w.get("resolved", "").startswith("dma_transpose") or w["text"].startswith("dma_transpose") for w in c["words"])
    with pytest.raises(nki.NKIError, match="dma_transpose is NeuronCore-v3 or newer"):
        nki.trace(k, target="trn1")(a)


def test_matmul_flagged_not_exact():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((128, 64)).astype(np.float32)
    y = rng.standard_normal((128, 32)).astype(np.float32)

    def k(x, y):
        tx, ty = nl.load(x), nl.load(y)
        p = nisa.nc_matmul(tx, ty)  # legacy: stationary (K, M), moving (K, N) -> (M, N) PSUM
        out = nl.ndarray((64, 32), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(p))
        return out
    r = nki.trace(k)(x, y)
    np.testing.assert_allclose(r.outputs, x.T @ y, rtol=1e-5, atol=1e-4)
    mm = [c for c in r.calls if c["op"] == "nc_matmul"][0]
    assert mm["exact"] is False and r.inexact == [mm["index"]]
