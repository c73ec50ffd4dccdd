"""ndma.nki: kernels in both dialects against NumPy (docs/nki.md)."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from nki_calls import vadd  # noqa: E402
from nki_conv2d import conv2d_maxpool, conv2d_maxpool_numpy  # noqa: E402  (the benchmark's kernel, small here)


vadd_legacy = nki.jit(vadd)  # bench/nki_calls.py's kernel: docs/nki.md's example


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
    assert gather["file"] == "test_nki.py"


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


def _fp32_sum_bound(x, y, terms):
    """FP32 summation's error bound gamma_n * sum |x_k y_k| (u = 2**-24): the PE
    multiplies FP16 exactly and FP32 with one rounding, and sums in FP32 PSUM."""
    n = terms + 1
    gamma = n * 2.0 ** -24 / (1 - n * 2.0 ** -24)
    return gamma * (np.abs(x.astype(np.float64)).T @ np.abs(y.astype(np.float64)))


@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_nc_matmul_legacy_runs_as_pe_words(dt):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((128, 64)).astype(dt)
    y = rng.standard_normal((128, 96)).astype(dt)

    def k(x, y):
        tx, ty = nl.load(x), nl.load(y)
        p = nisa.nc_matmul(tx, ty)  # legacy: stationary (K, M), moving (K, N) -> (M, N) PSUM
        out = nl.ndarray((64, 96), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(p))
        return out
    r = nki.trace(k)(x, y)
    want = x.astype(np.float64).T @ y.astype(np.float64)
    assert np.all(np.abs(r.outputs - want) <= _fp32_sum_bound(x, y, 128))
    mm = [c for c in r.calls if c["op"] == "nc_matmul"][0]
    passes = 2 if dt == np.float32 else 1  # FP32: the LOW and HIGH passes (docs/compute.md §14)
    assert mm["exact"] is True and r.inexact == [] and mm["engine"] == "tensor (PE)"
    assert [w["text"].split()[0] for w in mm["words"]] == ["ldweights", "matmul"] * passes

    with pytest.raises(NotImplementedError, match="is_transpose"):
        nki.trace(lambda x: nisa.nc_matmul(nl.load(x), nl.load(x), is_transpose=True))(x)


def test_nc_matmul_06_accumulates_in_psum():
    """NKI 0.6: nc_matmul(dst, stationary, moving, accumulate=): the first call
    overwrites the PSUM tile (here pre-filled with 5), the next ones add to it;
    K = 40 partitions, N = 512 moving columns (one MATMUL's most)."""
    rng = np.random.default_rng(3)
    K, M, N = 40, 128, 512
    xs = [rng.standard_normal((K, M)).astype(np.float32) for _ in range(3)]
    ys = [rng.standard_normal((K, N)).astype(np.float32) for _ in range(3)]

    @nki.jit
    def k(x0, y0, x1, y1, x2, y2):
        out = nl.ndarray((M, N), nl.float32, buffer=nl.shared_hbm)
        ps = nl.ndarray((M, N), nl.float32, buffer=nl.psum)
        nisa.memset(ps, 5.0)
        for i, (x, y) in enumerate(((x0, y0), (x1, y1), (x2, y2))):
            sx = nl.ndarray((K, M), nl.float32, buffer=nl.sbuf)
            sy = nl.ndarray((K, N), nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=sx, src=x)
            nisa.dma_copy(dst=sy, src=y)
            nisa.nc_matmul(ps, sx, sy, accumulate=i > 0)
        r = nl.ndarray((M, N), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=r, src=ps)
        nisa.dma_copy(dst=out, src=r)
        return out
    got = k(xs[0], ys[0], xs[1], ys[1], xs[2], ys[2])
    want = sum(x.astype(np.float64).T @ y.astype(np.float64) for x, y in zip(xs, ys))
    bound = sum(_fp32_sum_bound(x, y, 3 * K) for x, y in zip(xs, ys))
    assert np.all(np.abs(got - want) <= bound)


def test_matmul_trace_words_are_the_assemblers():
    """The trace's words of an nc_matmul are the assembler's: its text assembles
    (validated) to its bytes, and the bytes disassemble to its text."""
    import ndma
    x = np.ones((64, 32), np.float16)

    def k(x):
        t = nl.load(x)
        p = nisa.nc_matmul(t, t)
        out = nl.ndarray((32, 32), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(p))
        return out
    for target, gen in (("trn2", "cayman"), ("trn1", "sunda")):
        r = nki.trace(k, target=target)(x)
        assert np.array_equal(r.outputs, np.full((32, 32), 64, np.float32))
        mm = [c for c in r.calls if c["op"] == "nc_matmul"][0]
        assert len(mm["words"]) == 2
        for w in mm["words"]:
            b = bytes.fromhex(w["hex"])
            assert ndma.asm(w["text"], gen=gen) == b, w["text"]
            assert ndma.disasm(b, gen).splitlines()[-1] == w["text"]


def test_matmul_replays_in_the_cli(tmp_path):
    """`ndma nki run` on a kernel's program_json() forms the same PE words and
    gives the same bytes (one path: internal/nkic)."""
    import json
    import subprocess
    from conftest import ndma_cli
    exe = ndma_cli(tmp_path)
    rng = np.random.default_rng(4)
    xt = rng.standard_normal((128, 64)).astype(np.float32)
    y = rng.standard_normal((128, 200)).astype(np.float32)

    def k(xt, y):
        a = nl.matmul(nl.load(xt), nl.load(y), transpose_x=True)
        out = nl.ndarray((64, 200), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(a))
        return out
    r = nki.trace(k)(xt, y)
    pj = r.program_json()
    (tmp_path / "p.json").write_text(json.dumps(pj))
    np.save(tmp_path / "x.npy", xt)
    np.save(tmp_path / "y.npy", y)
    names = [t["name"] for t in pj["tensors"] if t.get("kind") == "input"]
    outn = [t["name"] for t in pj["tensors"] if t.get("kind") == "output"][0]
    subprocess.run([exe, "nki", "run", "--quiet", "--in", "%s=%s" % (names[0], tmp_path / "x.npy"),
                    "--in", "%s=%s" % (names[1], tmp_path / "y.npy"), "--out", "%s=%s" % (outn, tmp_path / "o.npy"),
                    "--trace", str(tmp_path / "t.json"), str(tmp_path / "p.json")], check=True, capture_output=True)
    assert np.array_equal(np.load(tmp_path / "o.npy"), r.outputs)
    cli = [c for c in json.loads((tmp_path / "t.json").read_text())["calls"] if c["op"] == "matmul"][0]
    mm = [c for c in r.calls if c["op"] == "matmul"][0]
    assert cli["exact"] and mm["exact"] and [w["hex"] for w in cli["words"]] == [w["hex"] for w in mm["words"]]


# --- the NKI SDK's DMA tests and documentation examples, re-expressed (NKI 0.6 dialect)

def test_oob_error_is_ndma_oob_error():
    import ndma
    assert nki.OOBError is ndma.OOBError and issubclass(nki.OOBError, IndexError)
    table = np.arange(10 * 4, dtype=np.float32).reshape(10, 4)
    idx = np.array([1, 12, 3, 4], dtype=np.uint32)
    with pytest.raises(ndma.OOBError, match=r"index 12 is out of bounds for axis 0 with size 10"):
        nki.simulate_kernel(gather_kernel(nisa.oob_mode.error), table, idx)


def test_scatter_and_scatter_add():
    rng = np.random.default_rng(3)
    base = rng.standard_normal((64, 32)).astype(np.float32)
    src = rng.standard_normal((8, 32)).astype(np.float32)
    idx = np.array([5, 60, 0, 33, 12, 7, 8, 63], dtype=np.uint32)

    def k(base, src, idx, op):
        dst = nl.ndarray(base.shape, base.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=dst, src=base)
        s = nl.ndarray(src.shape, src.dtype, buffer=nl.sbuf)
        it = nl.ndarray(idx.shape + (1,), idx.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=s, src=src)
        nisa.dma_copy(dst=it, src=idx.ap([[1, 8], [1, 1]]))
        view = dst.ap([[32, 8], [1, 32]], vector_offset=it, indirect_dim=0)
        if op == "copy":
            nisa.dma_copy(dst=view, src=s)
        elif op == "compute":
            nisa.dma_compute(dst=view, srcs=[view, s], reduce_op=np.add)
        else:
            nisa.dma_copy(dst=view, src=s, dst_rmw_op=np.add)
        return dst

    want = base.copy()
    want[idx] = src
    assert np.array_equal(nki.simulate_kernel(k, base, src, idx, "copy"), want)
    want = base.copy()
    want[idx] += src
    assert np.array_equal(nki.simulate_kernel(k, base, src, idx, "compute"), want)
    rep = np.array([5, 5, 0, 5, 12, 7, 0, 63], dtype=np.uint32)  # legacy dst_rmw_op: repeated indices accumulate
    want = base.copy()
    np.add.at(want, rep, src)
    np.testing.assert_allclose(nki.simulate_kernel(k, base, src, rep, "rmw"), want, rtol=1e-6)


@pytest.mark.parametrize("mode", ["swdge", "hwdge", "none", "unknown"])
def test_copies_per_dge_mode(mode):
    a = np.arange(128 * 48, dtype=np.float32).reshape(128, 48)

    def k(a):
        t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=t, src=a, dge_mode=getattr(nisa.dge_mode, mode))
        nisa.dma_copy(dst=out, src=t, dge_mode=getattr(nisa.dge_mode, mode))
        return out
    r = nki.trace(k)(a)
    assert np.array_equal(r.outputs, a)
    want = {"unknown": "hwdge"}.get(mode, mode)
    assert [c["dge_mode"] for c in r.calls] == [want, want]
    if mode == "hwdge":  # the pseudo word relocates to the DMAMEMCPY that runs
        assert r.calls[0]["words"][0]["resolved"].startswith("dmamemcpy")


def test_cast_through_dma():
    a = (np.arange(128 * 16, dtype=np.float32) / 7).reshape(128, 16)

    def k(a):
        t = nl.ndarray(a.shape, nl.float16, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a)
        out = nl.ndarray(a.shape, nl.float16, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out
    assert np.array_equal(nki.simulate_kernel(k, a), a.astype(np.float16))


@pytest.mark.parametrize("via", ["hbm", "sbuf"])
def test_dma_transpose_16x128(via):
    a = (np.arange(16 * 128) % 1500).astype(np.float16).reshape(16, 128)

    def k(a):
        src = a
        if via == "sbuf":
            src = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=src, src=a)
        t = nl.ndarray((128, 16), a.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=t, src=src)
        out = nl.ndarray((128, 16), a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out
    assert np.array_equal(nki.simulate_kernel(k, a), a.T)


def test_indirect_transpose():
    rows, L, n = 64, 128, 32
    table = (np.arange(rows * L) % 2000).astype(np.float16).reshape(rows, L)
    idx = ((np.arange(n) * 5 + 3) % rows).astype(np.uint32)

    def k(table, idx):
        it = nl.load(idx)
        t = nl.ndarray((L, n), table.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=t, src=table.ap([[L, n], [1, L]], vector_offset=it, indirect_dim=0))
        out = nl.ndarray((L, n), table.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out
    r = nki.trace(k)(table, idx)
    assert np.array_equal(r.outputs, table[idx].T)
    assert r.calls[1]["words"][0]["text"].startswith("dma_gather_transpose")


def test_static_scalar_vector_aps():
    a = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)

    def k(a):
        t = nl.ndarray((8, 32), a.dtype, buffer=nl.sbuf)
        u = nl.ndarray((8, 16), a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a.ap([[32, 8], [1, 32]], scalar_offset=10 * 32), dge_mode=nisa.dge_mode.hwdge)
        nisa.dma_copy(dst=u, src=a.ap([[32, 8], [2, 16]], offset=1), dge_mode=nisa.dge_mode.swdge)
        o1 = nl.ndarray((8, 32), a.dtype, buffer=nl.shared_hbm)
        o2 = nl.ndarray((8, 16), a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=o1, src=t)
        nisa.dma_copy(dst=o2, src=u)
        return o1, o2
    o1, o2 = nki.simulate_kernel(k, a)
    assert np.array_equal(o1, a[10:18])
    assert np.array_equal(o2, a[:8, 1::2])


# --- kernels of our own, both dialects, against NumPy

@nki.jit
def vadd_streamed(a, b):
    """Legacy: one (128, F) tile at a time through index expressions, the last one masked."""
    n, F = a.shape
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:F]
    for i in nl.affine_range((n + 127) // 128):
        m = i * 128 + i_p < n
        x = nl.load(a[i * 128 + i_p, i_f], mask=m)
        y = nl.load(b[i * 128 + i_p, i_f], mask=m)
        nl.store(out[i * 128 + i_p, i_f], value=x + y, mask=m)
    return out


def test_vector_add_streamed_masked():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((300, 24)).astype(np.float32)  # 300 rows: the last tile is 44 partitions
    b = rng.standard_normal((300, 24)).astype(np.float32)
    assert np.array_equal(vadd_streamed(a, b), a + b)


def test_arange_load_is_p_by_1_and_broadcasts():
    a = np.arange(128, dtype=np.float32) * 3

    def k(a):
        i = nl.arange(128)[:, None]
        t = nl.load(a[i])
        assert t.shape == (128, 1)
        out = nl.ndarray((128, 1), a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=t * 2.0)
        return out
    assert np.array_equal(nki.simulate_kernel(k, a), (a * 2).reshape(128, 1))


def test_transpose_through_dma_and_pe():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((128, 96)).astype(np.float32)

    @nki.jit
    def by_dma(a):  # a strided load: the index expressions swap the axes
        P, F = a.shape
        out = nl.ndarray((F, P), a.dtype, buffer=nl.shared_hbm)
        i_f = nl.arange(F)[:, None]
        i_p = nl.arange(P)[None, :]
        t = nl.load(a[i_p, i_f])
        assert t.shape == (F, P)
        nl.store(out, value=t)
        return out

    @nki.jit
    def by_pe(a):
        out = nl.ndarray((a.shape[1], a.shape[0]), a.dtype, buffer=nl.shared_hbm)
        p = nisa.nc_transpose(nl.load(a))
        nl.store(out, value=nl.copy(p))
        return out
    assert np.array_equal(by_dma(a), a.T)
    assert np.array_equal(by_pe(a), a.T)


@pytest.mark.parametrize("target,dt,words", [("trn2", np.float32, 2), ("trn2", np.float16, 2), ("trn1", np.float32, 4),
                                             ("trn1", np.float16, 0)])
def test_nc_transpose_on_the_pe_streams_an_identity(target, dt, words):
    """nc_transpose on the tensor engine: LDWEIGHTS of the tile and a MATMUL streaming an
    identity tile an `identity` call wrote once (MEMSET words); bit for bit the tile
    turned. trn2 keeps the dtype in PSUM (transpose_mode); trn1 is an FP32 identity matmul
    (two passes), so a float16 transpose there stays a loop (not exact)."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((100, 64)).astype(dt)

    def k(a):
        out = nl.ndarray((64, 100), a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        p1 = nisa.nc_transpose(t)
        p2 = nisa.nc_transpose(t[0:50, :])
        nl.store(out, value=nl.copy(p1))
        return out
    r = nki.trace(k, target=target)(a)
    assert np.array_equal(r.outputs, a.T)
    ids = [c for c in r.calls if c["op"] == "identity"]
    tr = [c for c in r.calls if c["op"] == "nc_transpose"]
    assert len(tr) == 2 and all(c["exact"] == (words > 0) and len(c.get("words", [])) == words for c in tr)
    if words:  # one identity for the session: a zero MEMSET, then one per partition
        assert len(ids) == 1 and ids[0]["exact"] and len(ids[0]["words"]) == 129 and ids[0]["index"] < tr[0]["index"]
        assert [w["text"].split()[0] for w in tr[0]["words"]] == ["ldweights", "matmul"] * (words // 2)


def test_matmul_transpose_x_and_reductions():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((64, 128)).astype(np.float32)   # (M, K)
    xt = np.ascontiguousarray(x.T)                           # (K, M)
    y = rng.standard_normal((128, 32)).astype(np.float32)

    def k(x, xt, y):
        a = nl.matmul(nl.load(x), nl.load(y))                    # x @ y
        b = nl.matmul(nl.load(xt), nl.load(y), transpose_x=True)  # (xt).T @ y
        o1 = nl.ndarray((64, 32), nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray((64, 1), nl.float32, buffer=nl.shared_hbm)
        nl.store(o1, value=nl.copy(a) - nl.copy(b))
        nl.store(o2, value=nl.max(nl.copy(a), axis=1, keepdims=True))
        return o1, o2
    o1, o2 = nki.simulate_kernel(k, x, xt, y)
    np.testing.assert_allclose(o1, 0, atol=1e-4)
    r = nki.trace(k)(x, xt, y)
    mm = [c for c in r.calls if c["op"] in ("matmul", "nc_transpose", "identity")]
    assert [(c["op"], c["exact"]) for c in mm] == [("identity", True), ("nc_transpose", True), ("matmul", True),
                                                  ("matmul", True)]  # x (M, K) turned on the PE first
    r1 = nki.trace(k, target="trn1")(x, xt, y)  # trn1: the FP32 identity matmul
    assert [c["exact"] for c in r1.calls if c["op"] == "matmul"] == [True, True]
    np.testing.assert_allclose(r1.outputs[0], 0, atol=1e-4)
    np.testing.assert_allclose(o2, (x @ y).max(axis=1, keepdims=True), rtol=1e-5, atol=1e-5)


def test_iota_legacy_and_06():
    def k():
        t = nisa.iota(nl.arange(128)[:, None] * 3 + 5, dtype=nl.int32)
        u = nl.ndarray((16, 8), nl.float32, buffer=nl.sbuf)
        nisa.iota(u, [8, 1], value=2.0)
        o1 = nl.ndarray((128, 1), nl.int32, buffer=nl.shared_hbm)
        o2 = nl.ndarray((16, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(o1, value=t)
        nl.store(o2, value=u)
        return o1, o2
    o1, o2 = nki.simulate_kernel(k)
    assert np.array_equal(o1[:, 0], np.arange(128) * 3 + 5)
    assert np.array_equal(o2, (np.arange(128, dtype=np.float32) + 2).reshape(16, 8))


def test_small_conv2d_maxpool():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((8, 12, 14)).astype(np.float32)
    Wt = rng.standard_normal((3, 3, 8, 16)).astype(np.float32)
    got = nki.simulate_kernel(conv2d_maxpool, X, Wt)
    np.testing.assert_allclose(got, conv2d_maxpool_numpy(X, Wt), rtol=1e-4, atol=1e-4)


def test_conv2d_06_dialect_vadd_tiled():
    """NKI 0.6 dialect: dst-first calls, tiles declared up front."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((512, 40)).astype(np.float32)
    b = rng.standard_normal((512, 40)).astype(np.float32)

    @nki.jit
    def k(a, b):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(a.shape[0] // 128):
            x = nl.ndarray((128, a.shape[1]), a.dtype, buffer=nl.sbuf)
            y = nl.ndarray((128, a.shape[1]), a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=x, src=a[i * 128:(i + 1) * 128, :])
            nisa.dma_copy(dst=y, src=b[i * 128:(i + 1) * 128, :])
            nisa.tensor_tensor(dst=x, data1=x, data2=y, op=nl.add)
            nisa.tensor_scalar(dst=x, data=x, op0=nl.multiply, operand0=2.0)
            nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=x)
        return out
    assert np.array_equal(k(a, b), (a + b) * 2)


# --- frames, traces, the assembler

def test_trace_words_assemble_to_the_same_bytes():
    import ndma
    a = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)
    table = np.arange(100 * 16, dtype=np.float32).reshape(100, 16)
    idx = np.array([3, 99, 0, 42], dtype=np.uint32)
    r1 = nki.trace(vadd_legacy)(a, a)
    r2 = nki.trace(gather_kernel(nisa.oob_mode.error))(table, idx)
    n = 0
    for c in r1.calls + r2.calls:
        for w in c.get("words", []):
            assert ndma.asm(w["text"], gen="cayman", validate=False) == bytes.fromhex(w["hex"]), w["text"]
            n += 1
    assert n >= 5


def test_timeline_program_json_and_benchmark(tmp_path):
    import json
    a = np.ones((256, 32), np.float32)
    r = nki.trace(vadd_legacy)(a, a)
    p = tmp_path / "t.json"
    r.timeline(p)
    ev = json.loads(p.read_text())["traceEvents"]
    spans = [e for e in ev if e["ph"] == "X"]
    assert len(spans) == len(r.calls) and abs(sum(e["dur"] for e in spans) * 1000 - r.time_ns) < len(spans)
    pj = r.program_json()
    assert [c["op"] for c in pj["calls"]] == [c["op"] for c in r.calls]
    assert r.time_ns == sum(c["time_ns"] for c in r.calls) > 0
    bench = nki.benchmark(warmup=2, iters=5)(vadd_legacy)
    out = bench(a, a)
    assert np.array_equal(out, a + a)
    lat = bench.benchmark_result.nc_latency
    assert lat.predicted and lat.get_latency_percentile(50) == r.time_ns / 1000.0


def test_exec_sim_and_fast_agree():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((1024, 24)).astype(np.float32)
    fast = nki.trace(vadd_legacy)(a, a)
    sim = nki.trace(vadd_legacy, exec="sim")(a, a)
    assert np.array_equal(fast.outputs, sim.outputs)
    assert [c["time_ns"] for c in fast.calls] == [c["time_ns"] for c in sim.calls]


def test_kernel_calling_kernel_and_frames():
    @nki.jit
    def inner(x):
        return nl.multiply(x, 3.0)

    @nki.jit
    def outer(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=inner(nl.load(a)))
        return out
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
    assert np.array_equal(outer(a), a * 3)
    assert np.array_equal(nki.simulate(outer)(a), a * 3)
    assert np.array_equal(nki.baremetal(outer.kernel)(a), a * 3)


def test_baremetal_output_argument_written_in_place():
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
    res = np.zeros_like(a)

    @nki.baremetal
    def k(a, res):
        nl.store(res, value=nl.load(a) + 1.0)
    k(a, res)
    assert np.array_equal(res, a + 1)


def test_target_rules_and_sbuf_capacity():
    a = np.ones((16, 128), np.float16)

    def k(a):
        t = nl.ndarray((128, 16), a.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=t, src=a)
        return t
    with pytest.raises(nki.NKIError, match="dma_transpose is NeuronCore-v3 or newer") as e:
        nki.trace(k, target="trn1")(a)
    assert e.value.file == "test_nki.py" and e.value.line > 0

    def big(a):
        return nl.ndarray((128, 60 * 1024), nl.float32, buffer=nl.sbuf)  # 240 KiB a partition
    with pytest.raises(nki.NKIError, match="240 KiB|245760 bytes"):
        nki.simulate_kernel(big, a, target="trn2")
    nki.simulate_kernel(big, a, target="trn3")  # 256 KiB a partition


def test_tiles_reuse_sbuf():
    """A tile no longer referenced gives its bytes back: 2,000 tiles of 64 KiB stream through 224 KiB."""
    a = np.arange(128 * 16384, dtype=np.float32).reshape(128, 16384)

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        for i in range(2000):
            j = i % 128
            t = nl.load(a[:, j * 128:(j + 1) * 128])
            nl.store(out[:, j * 128:(j + 1) * 128], value=t)
        return out
    assert np.array_equal(k(a), a)


def test_compute_calls_predicted_time():
    """Compute calls carry the compute model's time (internal/timing/compute.go's trn2
    constants): a DVE TENSOR_TENSOR of 128 x 256 fp32 156 + 2 * 0.5225 * 256 ns (two
    inputs); an fp32 nc_matmul as its two LDWEIGHTS (26 ns) + MATMUL (42 + 4 passes x
    0.169 ns a moving column) pairs: the LOW and HIGH passes (docs/compute.md §14)."""
    @nki.jit
    def k(a, b):
        out = nl.ndarray((128, 256), nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        s = nl.add(x, y)
        p = nisa.nc_matmul(x[:, 0:128], y)
        nl.store(out, value=s)
        return out

    a = np.ones((128, 256), np.float32)
    r = nki.trace(k, target="trn2")(a, a)
    comp = [c for c in r.calls if c["kind"] == "compute"]
    tt = [c for c in comp if c["op"] == "tensor_tensor"]
    mm = [c for c in comp if c["op"] == "nc_matmul"]
    assert len(tt) == 1 and tt[0]["time_ns"] == round(156 + 2 * 0.5225 * 256)
    assert len(mm) == 1 and mm[0]["time_ns"] == 2 * (26 + round(42 + 4 * 0.169 * 256))
    assert r.time_ns == r.dma_ns + sum(c["time_ns"] for c in comp)
    bench = nki.benchmark(k, target="trn2")
    bench(a, a)
    assert bench.benchmark_result.nc_latency.get_latency_percentile(50) * 1000 == r.time_ns


def test_reductions_as_words():
    """nl.max/sum/mean and nisa.tensor_reduce over free axes are TENSOR_REDUCE words (exact);
    over the partitions and `all` they are not; every value against NumPy."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((128, 6, 10)).astype(np.float32)

    def k(x):
        t = nl.load(x)
        outs = []
        for r in (nl.max(t, axis=2), nl.sum(t, axis=(1, 2), keepdims=True), nl.mean(t, axis=1),
                  nisa.tensor_reduce(np.minimum, t, axis=2, negate=True), nl.sum(t, axis=0), nl.all(t, axis=2)):
            o = nl.ndarray(r.shape, nl.float32, buffer=nl.shared_hbm)
            nl.store(o, value=r)
            outs.append(o)
        return tuple(outs)
    r = nki.trace(k)(x)
    mx, sm, mean, nmin, psum, al = r.outputs
    np.testing.assert_array_equal(mx, x.max(axis=2))
    np.testing.assert_allclose(sm, x.sum(axis=(1, 2), keepdims=True).reshape(sm.shape), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mean, x.mean(axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(nmin, -x.min(axis=2))
    np.testing.assert_allclose(psum, x.sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(al, np.all(x != 0, axis=2).astype(np.float32))
    reds = [c for c in r.calls if c["op"] == "tensor_reduce"]
    assert [c["exact"] for c in reds] == [True, True, True, True, False, False]
    assert ["TENSOR_REDUCE" in w["text"].upper() for c in reds[:4] for w in c["words"][:1]] == [True] * 4
    assert all(c["time_ns"] > 0 for c in reds)


@pytest.mark.parametrize("target,dt", [("trn2", np.float16), ("trn2", np.float32), ("trn1", np.float32)])
def test_nl_transpose_on_the_pe(target, dt):
    """nl.transpose is the PE's words (nc_transpose into PSUM, a copy to SBUF): a bit-exact move."""
    a = (np.random.default_rng(8).standard_normal((96, 40)) * 100).astype(dt)

    def k(a):
        out = nl.ndarray((a.shape[1], a.shape[0]), a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.transpose(nl.load(a)))
        return out
    r = nki.trace(k, target=target)(a)
    assert np.array_equal(r.outputs, a.T)
    pe = [c for c in r.calls if c["op"] == "nc_transpose"]
    assert len(pe) == 1 and pe[0]["exact"] and not r.inexact


def test_psum_tiles_stay_in_a_bank():
    """PSUM tiles of at most 2 KiB a partition never cross a 2 KiB bank; larger ones start on one."""
    from ndma.nki._trace import _Alloc
    al = _Alloc(16384)
    got = [al.take(n, 2048) for n in (1536, 1024, 512, 4096, 2048, 64)]
    assert got == [(0, 1536), (2048, 1024), (1536, 512), (4096, 4096), (8192, 2048), (3072, 64)]
    for a, n in got:
        assert n > 2048 and a % 2048 == 0 or a // 2048 == (a + n - 1) // 2048
    assert al.take(8192, 2048) == (None, 8192)   # 16 KiB: the free pieces are no bank run of 8 KiB
    a = np.arange(128 * 40, dtype=np.float32).reshape(128, 40)

    def k(a):   # three PSUM tiles of 1.5 KiB a partition, each in its own bank
        out = nl.ndarray((40, 128), nl.float32, buffer=nl.shared_hbm)
        t = nl.load(a)
        ps = [nl.matmul(t, nl.ndarray((128, 384), nl.float32, buffer=nl.sbuf), transpose_x=True) for _ in range(3)]
        offs = [p.base.off0 for p in ps]
        assert all(o // 2048 == (o + 1535) // 2048 for o in offs)
        nl.store(out, value=nl.transpose(t))
        return out
    assert np.array_equal(nki.simulate_kernel(k, a), a.T)


def test_per_partition_operands():
    """tensor_scalar with (P, 1) tiles as operands and activation with a bias tile (a layer-norm
    and a softmax step, both dialects) as exact words, against NumPy."""
    rng = np.random.default_rng(14)
    x = rng.standard_normal((128, 64)).astype(np.float32)

    def legacy(x):
        t = nl.load(x)
        mean = nl.mean(t, axis=1, keepdims=True)
        var = nl.mean(nl.square(t - mean), axis=1, keepdims=True)
        rstd = nl.rsqrt(nl.add(var, 1e-5))
        y = nisa.tensor_scalar(t, np.subtract, mean, op1=np.multiply, operand1=rstd)
        neg = nl.multiply(nl.max(t, axis=1, keepdims=True), -1.0)
        e = nisa.activation(op=nl.exp, data=t, bias=neg)
        o1 = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o1, value=y)
        nl.store(o2, value=e)
        return o1, o2
    r = nki.trace(legacy)(x)
    y, e = r.outputs
    mu = x.mean(axis=1, keepdims=True)
    want = (x - mu) / np.sqrt(((x - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(e, np.exp(x - x.max(axis=1, keepdims=True)), rtol=1e-5, atol=1e-6)
    for op in ("tensor_scalar", "activation"):
        assert all(c["exact"] for c in r.calls if c["op"] == op)

    @nki.jit
    def k06(x):   # NKI 0.6: dst first; reverse0 computes operand0 - x
        t = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
        m = nl.ndarray((x.shape[0], 1), x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=m, src=x[:, 0:1])
        nisa.tensor_scalar(dst=t, data=t, op0=np.subtract, operand0=m, reverse0=True)
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out
    assert np.array_equal(k06(x), x[:, 0:1] - x)


def test_spmd_grid():
    """kernel[grid]: one instance per program id (nl.program_id, nl.num_programs), the
    shared_hbm output shared by all (the NKI tutorial's tiled tensor add, typed afresh)."""
    @nki.jit
    def add(a_input, b_input):
        c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
        ix = nl.program_id(0) * 128 + nl.arange(128)[:, None]
        iy = nl.program_id(1) * 64 + nl.arange(64)[None, :]
        a_tile = nl.load(a_input[ix, iy])
        b_tile = nl.load(b_input[ix, iy])
        nl.store(c_output[ix, iy], value=a_tile + b_tile * float(nl.num_programs(1)))
        return c_output
    rng = np.random.default_rng(15)
    a = rng.standard_normal((256, 192)).astype(np.float32)
    b = rng.standard_normal((256, 192)).astype(np.float32)
    assert np.array_equal(add[2, 3](a, b), a + b * 3)
    assert np.array_equal(nki.simulate_kernel(add[2, 3], a, b), a + b * 3)
    r = nki.trace(add[2, 3])(a, b)
    assert np.array_equal(r.outputs, a + b * 3) and sum(c["op"] == "load" for c in r.calls) == 12
    with pytest.raises(ValueError):
        add[0]
    with pytest.raises(IndexError):   # program (2, y) reads rows 256..383 of 256
        add[3, 3](a, b)


def test_softmax_and_rms_norm():
    """nl.softmax and nl.rms_norm (the NKI documentation's signatures) as ndma's words, against NumPy."""
    rng = np.random.default_rng(16)
    x = rng.standard_normal((128, 96)).astype(np.float32)
    w = rng.standard_normal((128, 96)).astype(np.float32)

    def k(x, w):
        t, wt = nl.load(x), nl.load(w)
        o1 = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o1, value=nl.softmax(t, axis=1))
        nl.store(o2, value=nl.rms_norm(t, wt, axis=1, n=96))
        return o1, o2
    r = nki.trace(k)(x, w)
    sm, rn = r.outputs
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(sm, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(rn, x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w, rtol=1e-4, atol=1e-5)
    assert not r.inexact


def test_reduction_axis_refused_as_numpy_refuses_it():
    """An axis the tile does not have, or one given twice, raises ValueError, as NumPy and NKI
    do; before, axis 5 of a 2-D tile reduced axis 1 (5 mod 2) and axis 2 the partitions. A
    negative axis counts from the end, as in NumPy."""
    x = np.arange(128 * 6, dtype=np.float32).reshape(128, 6)

    def k(x, axis, isa):
        t = nl.load(x)
        r = nisa.tensor_reduce(np.add, t, axis=axis, keepdims=True) if isa else nl.sum(t, axis=axis, keepdims=True)
        o = nl.ndarray(r.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=r)
        return o
    for axis in (5, 2, -3, [1, 2], (1, 1), (1, -1)):
        for isa in (False, True):
            with pytest.raises(ValueError, match="axis"):
                nki.trace(k)(x, axis, isa)
    with pytest.raises(TypeError, match="axis"):
        nki.trace(k)(x, 1.0, False)
    np.testing.assert_array_equal(nki.trace(k)(x, -1, False).outputs, x.sum(axis=-1, keepdims=True))


def test_operators_and_clear_refusals():
    """tile ** k, k ** tile and -tile are nl.power and nl.negative (values against NumPy); the
    mistakes a newcomer makes fail where they are made, naming the cause: @ on tiles (NKI has
    none), a K mismatch in nc_matmul, an on-chip tile over 128 partitions, a NumPy array stored."""
    x = (np.random.default_rng(3).random((128, 16)) + 0.5).astype(np.float32)

    def k(x):
        a = nl.load(x)
        o = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=a ** 2 + (-a) + 2.0 ** a)
        return o
    np.testing.assert_allclose(nki.trace(k)(x).outputs, x ** 2 - x + 2.0 ** x, rtol=1e-5)

    def at(x):
        a = nl.load(x)
        return a @ a
    with pytest.raises(TypeError, match="nl.matmul"):
        nki.trace(at)(x)

    def kmis(x, y):
        r = nisa.nc_matmul(nl.load(x), nl.load(y))
        o = nl.ndarray(r.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=r)
        return o
    with pytest.raises(ValueError, match="K is 128 and 64"):
        nki.trace(kmis)(np.ones((128, 128), np.float32), np.ones((64, 128), np.float32))

    def tall(x):
        return nl.load(x)
    with pytest.raises(ValueError, match="at most 128 partitions"):
        nki.trace(tall)(np.ones((200, 64), np.float32))

    def host(x):
        o = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=np.ones(x.shape))
        return o
    with pytest.raises(TypeError, match="NumPy array"):
        nki.trace(host)(x)
