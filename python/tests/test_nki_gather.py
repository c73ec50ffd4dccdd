"""ndma.nki's range_select, select_reduce, nc_match_replace8 and nl.gather_flattened
(docs/nki.md "Selection") against NumPy and plain loops written here."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402

FP32_MIN = np.float32(-3.4028235e38)


def _out(t, dtype=None):
    o = nl.ndarray(t.shape, dtype or t.dtype, buffer=nl.shared_hbm)
    nl.store(o, value=t)
    return o


def test_range_select_bounds_tiles_and_reduce():
    """A causal-style window per row: keep lo[p] <= i + start < hi[p]; the row max alongside."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((128, 96)).astype(np.float32)
    lo = rng.integers(0, 40, (128, 1)).astype(np.float32)
    hi = lo + rng.integers(0, 60, (128, 1)).astype(np.float32)

    def k(x, lo, hi):
        t, tl, th = nl.load(x), nl.load(lo), nl.load(hi)
        d = nl.ndarray((128, 96), nl.float32, buffer=nl.sbuf)
        m = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.range_select(dst=d, on_true_tile=t, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=tl,
                          bound1=th, reduce_cmd=nisa.reduce_cmd.reset_reduce, reduce_res=m, range_start=5,
                          on_false_value=-1e4)
        return _out(d), _out(m)
    d, m = nki.simulate_kernel(k, x, lo, hi)
    i = np.arange(96)[None, :] + 5
    want = np.where((i >= lo) & (i < hi), x, np.float32(-1e4))
    assert np.array_equal(d, want)
    assert np.array_equal(m[:, 0], want.max(axis=1))


def test_range_select_numbers_default_fill_and_legacy_form():
    x = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)

    def k(x):
        t = nl.load(x)
        a = nisa.range_select(on_true_tile=t, comp_op0=nl.greater, comp_op1=nl.not_equal, bound0=3.0, bound1=10.0)
        return _out(a)
    a = nki.simulate_kernel(k, x)
    i = np.arange(16)[None, :]
    assert np.array_equal(a, np.where((i > 3) & (i != 10), x, FP32_MIN))


@pytest.mark.parametrize("rev", [False, True])
def test_select_reduce_against_numpy(rev):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 40)).astype(np.float32)
    pred = (rng.random((64, 40)) < 0.4).astype(np.uint8)
    fill = rng.standard_normal((64, 1)).astype(np.float32)

    def k(x, pred, fill):
        t, p, f = nl.load(x), nl.load(pred), nl.load(fill)
        d1 = nl.ndarray((64, 40), nl.float32, buffer=nl.sbuf)
        d2 = nl.ndarray((64, 40), nl.float32, buffer=nl.sbuf)
        m = nl.ndarray((64, 1), nl.float32, buffer=nl.sbuf)
        nisa.select_reduce(dst=d1, predicate=p, on_true=t, on_false=f, reduce_res=m, reverse_pred=rev)
        nisa.select_reduce(d2, p, t, -2.5, reverse_pred=rev)
        return _out(d1), _out(m), _out(d2)
    d1, m, d2 = nki.simulate_kernel(k, x, pred, fill)
    keep = (pred != 0) if not rev else (pred == 0)  # the docs' "predicate = ~predicate if reverse_pred"
    want = np.where(keep, x, fill)
    assert np.array_equal(d1, want)
    assert np.array_equal(m, np.max(want, axis=1, keepdims=True))
    assert np.array_equal(d2, np.where(keep, x, np.float32(-2.5)))


def _match_replace_ref(data, vals, imm):
    """The NKI page's rule as a plain loop: vals slot 7 first, each takes the first element equal
    to it not matched before; absent: all ones."""
    out, idx = data.copy(), np.full(vals.shape, 0xFFFFFFFF, np.uint64)
    for p in range(data.shape[0]):
        taken = np.zeros(data.shape[1], bool)
        for s in range(7, -1, -1):
            for i in range(data.shape[1]):
                if data[p, i] == vals[p, s] and not taken[i]:
                    taken[i], idx[p, s] = True, i
                    break
        out[p, taken] = imm
    return out, idx


def test_match_replace8_docs_duplicate_example():
    """The NKI page's example: data [1, 2, 3, 4, 8 × 7], vals [3, 8 × 7] -> dst_idx [2, 10, 9, …, 4]."""
    data = np.array([[1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8]], np.float32)
    vals = np.array([[3, 8, 8, 8, 8, 8, 8, 8]], np.float32)

    def k(d, v):
        td, tv = nl.load(d), nl.load(v)
        o = nl.ndarray(td.shape, nl.float32, buffer=nl.sbuf)
        ix = nl.ndarray((1, 8), nl.uint32, buffer=nl.sbuf)
        nisa.nc_match_replace8(dst=o, data=td, vals=tv, imm=-1.0, dst_idx=ix)
        return _out(o), _out(ix)
    o, ix = nki.simulate_kernel(k, data, vals)
    assert ix.tolist() == [[2, 10, 9, 8, 7, 6, 5, 4]]
    assert o.tolist() == [[1, 2, -1, 4, -1, -1, -1, -1, -1, -1, -1]]


def test_match_replace8_top16_by_two_rounds():
    """The top-k pattern: max8, replace those 8 by -inf, max8 again gives the next 8."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((128, 300)).astype(np.float32)

    def k(x):
        t = nl.load(x)
        v1 = nisa.max8(src=t)
        r = nl.ndarray(t.shape, nl.float32, buffer=nl.sbuf)
        i1 = nl.ndarray((128, 8), nl.uint32, buffer=nl.sbuf)
        nisa.nc_match_replace8(dst=r, data=t, vals=v1, imm=float("-inf"), dst_idx=i1)
        v2 = nisa.max8(src=r)
        return _out(v1), _out(v2), _out(i1)
    v1, v2, i1 = nki.simulate_kernel(k, x)
    s = -np.sort(-x, axis=1)
    assert np.array_equal(v1, s[:, :8]) and np.array_equal(v2, s[:, 8:16])
    assert np.array_equal(np.take_along_axis(x, i1.astype(np.int64), axis=1), v1)
    want, widx = _match_replace_ref(x, v1, -np.inf)
    assert np.array_equal(i1.astype(np.uint64), widx)


def test_match_replace8_absent_and_uint16_legacy():
    data = np.tile(np.arange(12, dtype=np.float32), (4, 1))
    vals = np.tile(np.array([5, 100, 0, 5, 11, -3, 7, 7], np.float32), (4, 1))

    def k(d, v):
        ix = nl.ndarray((4, 8), nl.uint16, buffer=nl.sbuf)
        o = nisa.nc_match_replace8(data=nl.load(d), vals=nl.load(v), imm=99.0, dst_idx=ix)
        return _out(o), _out(ix)
    o, ix = nki.simulate_kernel(k, data, vals)
    want, widx = _match_replace_ref(data, vals, 99.0)
    widx[widx == 0xFFFFFFFF] = 0xFFFF
    assert np.array_equal(o, want) and np.array_equal(ix.astype(np.uint64), widx)


@pytest.mark.parametrize("shape,ishape", [((128, 512), (128, 512)), ((2, 2, 2), (2, 2, 2)), ((16, 4, 8), (16, 5))])
def test_gather_flattened_against_take_along_axis(shape, ishape):
    rng = np.random.default_rng(4)
    data = rng.standard_normal(shape).astype(np.float32)
    F = int(np.prod(shape[1:]))
    idx = rng.integers(0, F, ishape).astype(np.uint32)
    if shape == (2, 2, 2):  # the NKI page's example
        data = np.array([[[1., 2.], [3., 4.]], [[5., 6.], [7., 8.]]], np.float32)
        idx = np.array([[[0, 1], [1, 3]], [[3, 3], [1, 0]]], np.uint32)

    def k(d, i):
        return _out(nl.gather_flattened(nl.load(d), nl.load(i)))
    got = nki.simulate_kernel(k, data, idx)
    want = np.take_along_axis(data.reshape(shape[0], -1), idx.reshape(ishape[0], -1).astype(np.int64), axis=1)
    assert np.array_equal(got, want.reshape(ishape))
    if shape == (2, 2, 2):
        assert got.tolist() == [[[1., 2.], [2., 4.]], [[8., 8.], [6., 5.]]]


def test_gather_flattened_out_of_bounds_raises():
    def k(d, i):
        return _out(nl.gather_flattened(nl.load(d), nl.load(i)))
    idx = np.zeros((4, 3), np.uint32)
    idx[2, 1] = 8
    with pytest.raises(nki.OOBError):
        nki.simulate_kernel(k, np.zeros((4, 8), np.float32), idx)


def test_gather_calls_not_exact():
    def k(x):
        t = nl.load(x)
        r = nisa.range_select(on_true_tile=t, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=0.0, bound1=4.0)
        g = nl.gather_flattened(r, nl.zeros((8, 16), nl.uint32))
        return _out(g)
    tr = nki.trace(k)(np.ones((8, 16), np.float32))
    ops = {c["op"]: c for c in tr.calls if c["op"] in ("range_select", "gather_flattened")}
    assert sorted(ops) == ["gather_flattened", "range_select"]
    assert all(c["exact"] is False and c["time_ns"] > 0 for c in ops.values())


@pytest.mark.parametrize("call,err,word", [
    (lambda t, u: nisa.range_select(on_true_tile=t, comp_op0=nl.add, comp_op1=nl.less, bound0=0, bound1=1), ValueError, "comp_op0"),
    (lambda t, u: nisa.range_select(on_true_tile=t, comp_op0=nl.less, comp_op1=nl.less, bound0=0), TypeError, "bound1"),
    (lambda t, u: nisa.range_select(on_true_tile=t, comp_op0=nl.less, comp_op1=nl.less, bound0=t, bound1=1), ValueError, "bound0"),
    (lambda t, u: nisa.range_select(on_true_tile=t, comp_op0=nl.less, comp_op1=nl.less, bound0=0, bound1=1,
                                    reduce_cmd=nisa.reduce_cmd.reduce), NotImplementedError, "reduce_cmd"),
    (lambda t, u: nisa.select_reduce(dst=t, predicate=t, on_true=t, on_false=0.0), TypeError, "predicate"),
    (lambda t, u: nisa.select_reduce(dst=t, predicate=u, on_true=t, on_false=0.0, reduce_op=nl.add), ValueError, "reduce_op"),
    (lambda t, u: nisa.select_reduce(dst=t, predicate=u, on_true=t, on_false="x"), TypeError, "on_false"),
    (lambda t, u: nisa.select_reduce(dst=t, predicate=u, on_true=t, on_false=0.0, reduce_res=t), ValueError, "reduce_res"),
    (lambda t, u: nisa.nc_match_replace8(dst=t, data=t, vals=t, imm=0.0), ValueError, "vals"),
    (lambda t, u: nisa.nc_match_replace8(dst=t, data=t, vals=t[:, 0:8], imm=None), TypeError, "imm"),
    (lambda t, u: nl.gather_flattened(t, t), TypeError, "indices"),
    (lambda t, u: nl.gather_flattened(3, t), TypeError, "data"),
])
def test_bad_calls_raise_naming_the_argument(call, err, word):
    def k(a):
        t = nl.load(a)
        u = nl.zeros((8, 16), nl.uint8)
        call(t, u)
    with pytest.raises(err, match=word):
        nki.simulate_kernel(k, np.zeros((8, 16), np.float32))


def test_nc_n_gather_and_onchip_reshape():
    """nc_n_gather into a dst of indices' elements; a tile reshaped on chip (partition axis kept)
    reads its free elements in C order."""
    rng = np.random.default_rng(6)
    data = rng.standard_normal((32, 4, 16)).astype(np.float32)
    idx = rng.integers(0, 64, (32, 10)).astype(np.uint32)

    def k(d, i):
        td, ti = nl.load(d), nl.load(i)
        g = nl.ndarray((32, 2, 5), nl.float32, buffer=nl.sbuf)
        nisa.nc_n_gather(dst=g, data=td, indices=ti)
        flat = td.reshape((32, 64))
        r = nl.ndarray((32, 64), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=r, src=flat)
        return _out(g), _out(r[:, 0:16].reshape((32, 2, 8)))
    g, r = nki.simulate_kernel(k, data, idx)
    flat = data.reshape(32, 64)
    assert np.array_equal(g, np.take_along_axis(flat, idx.astype(np.int64), axis=1).reshape(32, 2, 5))
    assert np.array_equal(r, flat[:, :16].reshape(32, 2, 8))


@pytest.mark.parametrize("call,err,word", [
    (lambda t: t.reshape((4, 32)), ValueError, "partition axis"),
    (lambda t: t.reshape((8, 15)), ValueError, "cannot reshape"),
    (lambda t: t[:, ::2].reshape((8, 8)), ValueError, "contiguous"),
    (lambda t: nisa.nc_n_gather(dst=t, data=t, indices=t), TypeError, "indices"),
])
def test_bad_reshape_and_nc_n_gather(call, err, word):
    def k(a):
        call(nl.load(a))
    with pytest.raises(err, match=word):
        nki.simulate_kernel(k, np.zeros((8, 16), np.float32))


def test_new_calls_replay_in_the_cli(tmp_path):
    """`ndma nki run` on a kernel's program_json() — rand, random_seed, dropout, range_select,
    select_reduce, nc_match_replace8 with a -inf imm (the program form's "-inf"),
    gather_flattened, an elementwise loop and reciprocal's word — gives the same bytes and
    flags as the Python run (one Go path, one generator seeded per run)."""
    import json
    import subprocess
    from conftest import ndma_cli
    exe = ndma_cli(tmp_path)
    x = np.random.default_rng(8).standard_normal((32, 64)).astype(np.float32)

    def k(x):
        t = nl.load(x)
        nl.random_seed(77)
        r = nl.dropout(nl.add(t, nl.rand((32, 64))), 0.25)
        lo = nl.full((32, 1), 3.0, nl.float32)
        s = nisa.range_select(on_true_tile=r, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=lo, bound1=60.0,
                              on_false_value=float("-inf"))
        v = nisa.max8(src=s)
        m = nisa.nc_match_replace8(data=s, vals=v, imm=float("-inf"))
        pr = nl.greater(t, 0.0, dtype=nl.uint8)
        sr = nl.ndarray((32, 64), nl.float32, buffer=nl.sbuf)
        nisa.select_reduce(dst=sr, predicate=pr, on_true=m, on_false=-7.0)
        g = nl.gather_flattened(sr, nl.zeros((32, 64), nl.uint32))
        f = nl.floor(nisa.reciprocal(g))
        return _out(f)
    res = nki.trace(k)(x)
    pj = res.program_json()
    assert any(c.get("value") == "-inf" for c in pj["calls"])
    (tmp_path / "p.json").write_text(json.dumps(pj))
    name = [t["name"] for t in pj["tensors"] if t.get("kind") == "input"][0]
    outn = [t["name"] for t in pj["tensors"] if t.get("kind") == "output"][0]
    np.save(tmp_path / "x.npy", x)
    subprocess.run([exe, "nki", "run", "--quiet", "--in", "%s=%s" % (name, tmp_path / "x.npy"),
                    "--out", "%s=%s" % (outn, tmp_path / "o.npy"), "--trace", str(tmp_path / "t.json"),
                    str(tmp_path / "p.json")], check=True, capture_output=True)
    assert np.array_equal(np.load(tmp_path / "o.npy"), res.outputs, equal_nan=True)
    cli = json.loads((tmp_path / "t.json").read_text())["calls"]
    assert [(c["op"], c["exact"]) for c in cli] == [(c["op"], c["exact"]) for c in res.calls]
