"""ndma.nki's masking and selection family (docs/nki.md "Selection"): nl.where,
nisa.affine_select (both dialects), nisa.iota's pattern and sum forms, nisa.max8 and
nisa.nc_find_index8, against NumPy and plain loops written here."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402


def _rng(seed):
    return np.random.default_rng(seed)


# -- nl.where

@pytest.mark.parametrize("shape", [(128, 64), (5, 3), (64, 8, 4)])
def test_where_tiles(shape):
    rng = _rng(1)
    c = (rng.random(shape) < 0.5).astype(np.float32)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)

    def k(c, x, y):
        o = nl.ndarray(c.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=nl.where(nl.load(c), nl.load(x), nl.load(y)))
        return o
    assert np.array_equal(nki.simulate_kernel(k, c, x, y), np.where(c != 0, x, y))


def test_where_scalar_y_broadcast_condition_and_mask():
    rng = _rng(2)
    c = (rng.random((32, 1)) < 0.5).astype(np.float32)  # (P, 1): broadcast along the free axis
    x = rng.standard_normal((32, 16)).astype(np.float32)

    def k(c, x):
        o1 = nl.ndarray((32, 16), nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray((32, 16), nl.float32, buffer=nl.shared_hbm)
        tc, tx = nl.load(c), nl.load(x)
        nl.store(o1, value=nl.where(tc, tx, -3.0))
        ip, jf = nl.mgrid[0:32, 0:16]
        t = nl.zeros((32, 16), nl.float32)
        t[ip, jf] = nl.where(tc, tx, 1.5, mask=(ip < 20))  # rows from 20 on are not written
        nl.store(o2[ip, jf], value=t[ip, jf], mask=(ip < 20))
        return o1, o2
    o1, o2 = nki.simulate_kernel(k, c, x)
    want = np.where(np.broadcast_to(c, x.shape) != 0, x, np.float32(-3.0))
    assert np.array_equal(o1, want)
    want2 = np.where(np.broadcast_to(c, x.shape) != 0, x, np.float32(1.5))
    assert np.array_equal(o2[:20], want2[:20])


def test_where_dtypes_and_integer_bits():
    """An integer select moves the values' bits (2^31 − 1 stays exact); mixed float
    dtypes promote to the wider one."""
    c = np.array([[1, 0, 1, 0, 1, 0, 1, 0]] * 4, np.float32)
    xi = np.full((4, 8), 2 ** 31 - 1, np.int32)
    yi = np.arange(32, dtype=np.int32).reshape(4, 8) - 7

    def k(c, xi, yi):
        o = nl.ndarray((4, 8), nl.int32, buffer=nl.shared_hbm)
        o2 = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
        w = nl.where(nl.load(c), nl.load(xi), nl.load(yi))
        assert w.dtype == "int32"
        nl.store(o, value=w)
        h = nl.load(c, dtype=nl.float16)
        w2 = nl.where(nl.load(c), h, nl.load(c))  # float16 with float32: float32
        assert w2.dtype == "float32"
        nl.store(o2, value=w2)
        return o, o2
    o, o2 = nki.simulate_kernel(k, c, xi, yi)
    assert np.array_equal(o, np.where(c != 0, xi, yi))
    assert np.array_equal(o2, c)


def test_where_refusals():
    def k(c):
        t = nl.load(c)
        with pytest.raises(TypeError, match="condition"):
            nl.where(1.0, t, t)
        with pytest.raises(TypeError, match="y must be"):
            nl.where(t, t, "a")
        u = nl.ndarray((8, 3), nl.float32, buffer=nl.sbuf)
        with pytest.raises(ValueError, match="y .* does not broadcast"):
            nl.where(t, t, u)
        with pytest.raises(ValueError, match="condition is in"):
            nl.where(c, t, t)
        o = nl.ndarray((8, 4), nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=t)
        return o
    nki.simulate_kernel(k, np.zeros((8, 4), np.float32))


# -- affine_select

def _causal(a, fill, q0=0, k0=0):
    """a[p, f] where q0 + p >= k0 + f, else fill (a plain loop)."""
    out = a.copy()
    for p in range(a.shape[0]):
        for f in range(a.shape[1]):
            if not q0 + p >= k0 + f:
                out[p, f] = fill
    return out


@pytest.mark.parametrize("P,F,q0,k0", [(128, 128, 0, 0), (64, 96, 128, 64), (32, 40, 0, 16)])
def test_affine_select_legacy_causal(P, F, q0, k0):
    a = _rng(3).standard_normal((P, F)).astype(np.float32)

    def k(a):
        o = nl.ndarray((P, F), nl.float32, buffer=nl.shared_hbm)
        ip = nl.arange(P)[:, None]
        jf = nl.arange(F)[None, :]
        t = nl.load(a[ip, jf])
        nl.store(o[ip, jf], value=nisa.affine_select(pred=(q0 + ip >= k0 + jf), on_true_tile=t[ip, jf],
                                                       on_false_value=-9984.0))
        return o
    assert np.array_equal(nki.simulate_kernel(k, a), _causal(a, np.float32(-9984.0), q0, k0))


def test_affine_select_legacy_forms_mgrid_positional_dtype_mask():
    """pred against a number (a mask's comparison), the positional form on a plain tile,
    a strided and decreasing expression, dtype=, and mask= cutting rows."""
    a = _rng(4).standard_normal((16, 24)).astype(np.float32)

    def k(a):
        outs = [nl.ndarray((16, 24), nl.float32, buffer=nl.shared_hbm) for _ in range(4)]
        i = nl.mgrid[0:16, 0:24]
        t = nl.load(a)
        nl.store(outs[0], value=nisa.affine_select(i.x < 10, t, 0.0))
        nl.store(outs[1], value=nisa.affine_select(3 * i.p - i.x + 2 > 0, t, 7.0))
        b = nisa.affine_select(i.x - 2 * i.p == 0, t, -1.0, dtype=nl.bfloat16)
        assert b.dtype == "bfloat16"
        nl.store(outs[2], value=nl.copy(b, dtype=nl.float32))
        z = nl.zeros((16, 24), nl.float32)
        z[...] = nisa.affine_select(i.p >= i.x, t, -5.0, mask=(i.p >= 4))
        nl.store(outs[3], value=z)
        return tuple(outs)
    o = nki.simulate_kernel(k, a)
    p, f = np.mgrid[0:16, 0:24]
    assert np.array_equal(o[0], np.where(f < 10, a, 0))
    assert np.array_equal(o[1], np.where(3 * p - f + 2 > 0, a, 7))
    bf = (a.view(np.uint32) + 0x7FFF + ((a.view(np.uint32) >> 16) & 1)) >> 16 << 16  # round to bfloat16
    assert np.array_equal(o[2], np.where(f == 2 * p, bf.astype(np.uint32).view(np.float32), -1))
    want3 = np.where(p >= f, a, -5)
    assert np.array_equal(o[3][4:], want3[4:])


def test_affine_select_06_pattern():
    a = _rng(5).standard_normal((32, 48)).astype(np.float32)

    def k(a):
        o1 = nl.ndarray((32, 48), nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray((32, 48), nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray((32, 48), nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a)
        d = nl.ndarray((32, 48), nl.float32, buffer=nl.sbuf)
        # keep where f - p >= 0 (channel_multiplier -1, step 1)
        nisa.affine_select(d, [[1, 48]], 0, -1, t, -9984.0, cmp_op=nl.greater_equal)
        nisa.dma_copy(dst=o1, src=d)
        # NKI 0.3's order (offset a keyword) and a 2-D pattern over the 48: [[6, 8], [1, 6]]
        nisa.affine_select(d, [[6, 8], [1, 6]], 2, t, 0.0, cmp_op=nl.less, offset=-40)
        nisa.dma_copy(dst=o2, src=d)
        return o1, o2
    o1, o2 = nki.simulate_kernel(k, a)
    p, f = np.mgrid[0:32, 0:48]
    assert np.array_equal(o1, np.where(f - p >= 0, a, np.float32(-9984.0)))
    w, x = f // 6, f % 6
    assert np.array_equal(o2, np.where(2 * p + 6 * w + x - 40 < 0, a, 0))


def test_affine_select_refusals():
    def k(a):
        t = nl.load(a)
        i = nl.mgrid[0:8, 0:16]
        with pytest.raises(TypeError, match="pred must be"):
            nisa.affine_select(pred=t, on_true_tile=t, on_false_value=0.0)
        with pytest.raises(TypeError, match="on_false_value must be a number"):
            nisa.affine_select(i.p >= i.x, t, t)
        with pytest.raises(NotImplementedError, match="combined with &"):
            nisa.affine_select((i.p >= 2) & (i.x < 3), t, 0.0)
        with pytest.raises(ValueError, match="no tile position"):
            nisa.affine_select(nl.arange(8) >= nl.arange(16), t, 0.0)
        d = nl.ndarray((8, 16), nl.float32, buffer=nl.sbuf)
        with pytest.raises(ValueError, match="walks 12 elements per partition"):
            nisa.affine_select(d, [[1, 12]], 0, 0, t, 0.0)
        with pytest.raises(ValueError, match="cmp_op"):
            nisa.affine_select(d, [[1, 16]], 0, 0, t, 0.0, cmp_op=nl.add)
        with pytest.raises(TypeError, match="takes at most"):
            nisa.affine_select(d, [[1, 16]], 0, 0, t, 0.0, nl.equal, 9)
        o = nl.ndarray((8, 16), nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=t)
        return o
    nki.simulate_kernel(k, np.zeros((8, 16), np.float32))


# -- iota

def test_iota_06_pattern_and_legacy_sum():
    def k():
        a = nl.ndarray((128, 64), nl.int32, buffer=nl.sbuf)
        nisa.iota(dst=a, pattern=[[1, 64]], offset=0, channel_multiplier=0)
        b = nl.ndarray((16, 1), nl.int32, buffer=nl.sbuf)
        nisa.iota(b, [[0, 1]], 3, 2)  # positional: offset 3, channel_multiplier 2
        c = nl.ndarray((8, 12), nl.float32, buffer=nl.sbuf)
        nisa.iota(dst=c, pattern=[[-4, 3], [1, 4]], offset=100, channel_multiplier=12)
        d = nisa.iota(nl.arange(8)[:, None] * 64 + nl.arange(64)[None, :], dtype=nl.int32)
        outs = []
        for t in (a, b, c, d):
            o = nl.ndarray(t.shape, t.dtype, buffer=nl.shared_hbm)
            nl.store(o, value=t)
            outs.append(o)
        return tuple(outs)
    a, b, c, d = nki.simulate_kernel(k)
    assert np.array_equal(a, np.broadcast_to(np.arange(64), (128, 64)))
    assert np.array_equal(b[:, 0], 3 + 2 * np.arange(16))
    p, f = np.mgrid[0:8, 0:12]
    assert np.array_equal(c, 100 + 12 * p - 4 * (f // 4) + f % 4)
    assert np.array_equal(d, np.arange(8 * 64).reshape(8, 64))


# -- max8 and nc_find_index8

def _top8_loop(row):
    """The 8 largest values of row, largest first, each tie kept (a selection loop)."""
    left = [float(v) for v in row]
    out = []
    for _ in range(8):
        k = max(range(len(left)), key=lambda i: left[i])
        out.append(left[k])
        left[k] = -np.inf
    return out


def _first_index_loop(row, vals):
    out = []
    for v in vals:
        out.append(next((i for i, e in enumerate(row) if e == v), 0xFFFFFFFF))
    return out


@pytest.mark.parametrize("P,F", [(128, 64), (7, 8), (32, 1000)])
def test_max8_and_find_index8_legacy(P, F):
    rng = _rng(6)
    x = rng.integers(-20, 20, size=(P, F)).astype(np.float32)  # many ties

    def k(x):
        ov = nl.ndarray((P, 8), nl.float32, buffer=nl.shared_hbm)
        oi = nl.ndarray((P, 8), nl.uint32, buffer=nl.shared_hbm)
        t = nl.load(x)
        v = nisa.max8(src=t)
        i = nisa.nc_find_index8(data=t, vals=v)
        assert v.shape == (P, 8) and v.dtype == "float32" and i.dtype == "uint32"
        nl.store(ov, value=v)
        nl.store(oi, value=i)
        return ov, oi
    ov, oi = nki.simulate_kernel(k, x)
    for p in range(P):
        want = _top8_loop(x[p])
        assert ov[p].tolist() == want
        assert oi[p].tolist() == _first_index_loop(x[p].tolist(), want)


def test_max8_06_3d_source_uint16_indices_absent_value_and_mask():
    rng = _rng(7)
    x = rng.standard_normal((16, 4, 10)).astype(np.float32)
    vals = np.concatenate([np.sort(x.reshape(16, 40), axis=1)[:, ::-1][:, :7], np.full((16, 1), 99.0)], axis=1)
    vals = vals.astype(np.float32)

    def k(x, vals, xf):
        ov = nl.ndarray((16, 8), nl.float32, buffer=nl.shared_hbm)
        oi = nl.ndarray((16, 8), nl.uint16, buffer=nl.shared_hbm)
        om = nl.ndarray((16, 8), nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray((16, 4, 10), nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        v = nl.ndarray((16, 8), nl.float32, buffer=nl.sbuf)
        nisa.max8(dst=v, src=t)
        tv = nl.load(vals)
        i = nl.ndarray((16, 8), nl.uint16, buffer=nl.sbuf)
        nisa.nc_find_index8(dst=i, data=t, vals=tv)
        nisa.dma_copy(dst=ov, src=v)
        nisa.dma_copy(dst=oi, src=i)
        # a legacy mask on a plain tile binds by tile position: the first 12 of 40 columns
        flat = nl.load(xf)
        jf = nl.arange(40)[None, :]
        m = nl.zeros((16, 8), nl.float32)
        m[...] = nisa.max8(src=flat, mask=(jf < 12))
        nl.store(om, value=m)
        return ov, oi, om
    ov, oi, om = nki.simulate_kernel(k, x, vals, x.reshape(16, 40).copy())
    flat = x.reshape(16, 40)
    for p in range(16):
        assert ov[p].tolist() == _top8_loop(flat[p])
        want = _first_index_loop(flat[p].tolist(), vals[p].tolist())
        assert oi[p].tolist() == [w & 0xFFFF for w in want] and want[7] == 0xFFFFFFFF
        assert om[p].tolist() == _top8_loop(flat[p][:12])


def test_top8_refusals():
    def k(a):
        t = nl.load(a)
        with pytest.raises(ValueError, match="8 to 16,384"):
            nisa.max8(src=t[:, 0:4])
        with pytest.raises(TypeError, match="src must be a tile"):
            nisa.max8(src=3.0)
        v = nl.ndarray((8, 8), nl.float32, buffer=nl.sbuf)
        with pytest.raises(ValueError, match="want 8 partitions of 8"):
            nisa.max8(dst=nl.ndarray((8, 4), nl.float32, buffer=nl.sbuf), src=t)
        with pytest.raises(TypeError, match="uint32 or uint16"):
            nisa.nc_find_index8(data=t, vals=v, dtype=nl.int32)
        with pytest.raises(TypeError, match="dst is float32"):
            nisa.nc_find_index8(dst=v, data=t, vals=v)
        with pytest.raises(ValueError, match="vals"):
            nisa.nc_find_index8(data=t, vals=t)
        o = nl.ndarray((8, 16), nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=t)
        return o
    nki.simulate_kernel(k, np.zeros((8, 16), np.float32))


def test_selection_calls_are_flagged_not_exact():
    def k(a):
        t = nl.load(a)
        i = nl.mgrid[0:8, 0:16]
        s = nisa.affine_select(i.p >= i.x, t, 0.0)
        v = nisa.max8(src=s)
        idx = nisa.nc_find_index8(data=s, vals=v)
        w = nl.where(t, s, 1.0)
        o = nl.ndarray((8, 16), nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=w)
        oi = nl.ndarray((8, 8), nl.uint32, buffer=nl.shared_hbm)
        nl.store(oi, value=idx)
        return o, oi
    r = nki.trace(k)(np.ones((8, 16), np.float32))
    sel = {c["op"]: c for c in r.calls if c["op"] in ("affine_select", "max8", "nc_find_index8", "select")}
    assert sorted(sel) == ["affine_select", "max8", "nc_find_index8", "select"]
    for c in sel.values():
        assert c["exact"] is False and "no" in c["note"] and c["time_ns"] > 0
    prog = r.program_json()
    assert [c["op"] for c in prog["calls"]].count("affine_select") == 1


# -- tensor_copy_predicated

def test_tensor_copy_predicated():
    rng = _rng(8)
    x = rng.standard_normal((16, 20)).astype(np.float32)
    y = rng.standard_normal((16, 20)).astype(np.float32)
    pr = (rng.integers(0, 3, size=(16, 20)) * (rng.random((16, 20)) < 0.5)).astype(np.uint8)

    def k(x, y, pr):
        outs = [nl.ndarray((16, 20), nl.float32, buffer=nl.shared_hbm) for _ in range(3)]
        tp = nl.load(pr)
        tx = nl.load(x)
        for o, (src, rev) in zip(outs, ((tx, False), (tx, True), (2.5, False))):
            d = nl.load(y)
            nisa.tensor_copy_predicated(dst=d, src=src, predicate=tp, reverse_pred=rev)
            nl.store(o, value=d)
        return tuple(outs)
    o = nki.simulate_kernel(k, x, y, pr)
    assert np.array_equal(o[0], np.where(pr != 0, x, y))
    assert np.array_equal(o[1], np.where(pr == 0, x, y))
    assert np.array_equal(o[2], np.where(pr != 0, np.float32(2.5), y))


def test_tensor_copy_predicated_refusals():
    def k(a):
        t = nl.load(a)
        p8 = nl.ndarray((8, 16), nl.uint8, buffer=nl.sbuf)
        i32 = nl.ndarray((8, 16), nl.int32, buffer=nl.sbuf)
        with pytest.raises(TypeError, match="predicate is float32"):
            nisa.tensor_copy_predicated(dst=t, src=t, predicate=t)
        with pytest.raises(TypeError, match="src is int32, dst float32"):
            nisa.tensor_copy_predicated(dst=t, src=i32, predicate=p8)
        with pytest.raises(TypeError, match="Python float for a float dst"):
            nisa.tensor_copy_predicated(dst=t, src=3, predicate=p8)
        with pytest.raises(ValueError, match="predicate .* differ"):
            nisa.tensor_copy_predicated(dst=t, src=1.0, predicate=nl.ndarray((8, 4), nl.uint8, buffer=nl.sbuf))
        o = nl.ndarray((8, 16), nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=t)
        return o
    nki.simulate_kernel(k, np.zeros((8, 16), np.float32))


def test_affine_predicates_are_not_masks():
    """A comparison of two expressions (or over a decreasing one) is affine_select's
    predicate, not a mask: as mask= it is refused by name."""
    def k(a):
        t = nl.load(a)
        i = nl.mgrid[0:8, 0:16]
        with pytest.raises(NotImplementedError, match="comparing two index expressions"):
            nl.copy(t[i.p, i.x], mask=(i.p >= i.x))
        with pytest.raises(NotImplementedError, match="comparing two index expressions"):
            nisa.max8(src=t, mask=(i.p * -1 > -4))
        o = nl.ndarray((8, 16), nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=t)
        return o
    nki.simulate_kernel(k, np.zeros((8, 16), np.float32))


def test_iota_integer_tiles_exact_and_in_range():
    """iota into an int32 tile writes the exact integers — past 2^24, where float32 would round —
    and refuses values its dtype cannot hold, or a non-integer offset (before: wrapped or rounded
    silently). Expected values by a plain loop."""
    big = (1 << 24) + 1

    def k(off, coef):
        t = nl.ndarray((4, 8), nl.int32, buffer=nl.sbuf)
        nisa.iota(t, [coef, 1], off)
        o = nl.ndarray((4, 8), nl.int32, buffer=nl.shared_hbm)
        nl.store(o, value=t)
        return o
    got = nki.trace(k)(big, 3).outputs
    want = np.array([[big + 3 * p + f for f in range(8)] for p in range(4)], np.int32)
    assert np.array_equal(got, want)
    for off, coef in (((1 << 31) - 10, 3), (-(1 << 31), -1), (0.5, 1)):
        with pytest.raises(ValueError, match="iota into a int32 tile"):
            nki.trace(k)(off, coef)
