"""ndma.nki: nisa.bn_stats / bn_aggr, activation's (P, 1) scale, tensor_tensor_scan and
scalar_tensor_tensor (docs/nki.md "Statistics, scans and scalar_tensor_tensor") against NumPy
and plain loops written here, never ndma's own results."""
import math
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


def _halves(row):
    """bn_stats' six values of one partition's row: (count, mean, variance * count) of the
    elements at even positions, then at odd ones (an empty half: zeros)."""
    out = []
    for h in (row[0::2], row[1::2]):
        h = h.astype(np.float64)
        out += [len(h), h.mean() if len(h) else 0.0, ((h - h.mean()) ** 2).sum() if len(h) else 0.0]
    return out


@pytest.mark.parametrize("shape", [(128, 512), (64, 7), (3, 1), (16, 2, 5)])
def test_bn_stats_even_odd_halves(shape):
    x = _rng(1).standard_normal(shape).astype(np.float32)

    def legacy(x):
        out = nl.ndarray((shape[0], 6), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.bn_stats(nl.load(x)))
        return out

    def new06(x):
        t = nl.ndarray(shape, nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        s = nl.ndarray((shape[0], 6), nl.float32, buffer=nl.sbuf)
        nisa.bn_stats(dst=s, data=t)
        out = nl.ndarray((shape[0], 6), nl.float32, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=s)
        return out
    flat = x.reshape(shape[0], -1)
    want = np.array([_halves(r) for r in flat])
    for k in (legacy, new06):
        np.testing.assert_allclose(nki.simulate_kernel(k, x), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("F", [300, 1100, 1024])
def test_bn_stats_chunks_then_bn_aggr(F):
    """Per-partition mean and variance of F elements: bn_stats per chunk of at most 512 (the last
    one partial unless F divides), the triples side by side, one bn_aggr; against NumPy."""
    x = (_rng(2).standard_normal((128, F)) * 3 + 1).astype(np.float32)
    fmax = nl.tile_size.bn_stats_fmax
    n = math.ceil(F / fmax)

    def k(x):
        t = nl.load(x)
        st = nl.ndarray((128, 6 * n), nl.float32, buffer=nl.sbuf)
        for j in range(n):
            nisa.bn_stats(dst=st[:, 6 * j:6 * j + 6], data=t[:, j * fmax:min(F, (j + 1) * fmax)])
        mv = nl.ndarray((128, 2), nl.float32, buffer=nl.sbuf)
        nisa.bn_aggr(dst=mv, data=st)
        out = nl.ndarray((128, 2), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=mv)
        return out
    got = nki.simulate_kernel(k, x)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(got[:, 0], x64.mean(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[:, 1], x64.var(axis=1), rtol=1e-5, atol=1e-5)
    r = nki.trace(k)(x)
    ops = [c for c in r.calls if c["op"] in ("bn_stats", "bn_aggr")]
    assert len(ops) == n + 1 and not any(c["exact"] for c in ops) and all(c["note"] for c in ops)


def test_bn_stats_masked_legacy_and_bf16_out():
    """The layernorm tutorial's form: a 512-wide index over a narrower tile cut by mask=, dtype=."""
    x = _rng(3).random((128, 200)).astype(np.float32)

    def k(x):
        t = nl.load(x)
        ip, jf = nl.mgrid[0:128, 0:512]
        s = nisa.bn_stats(t[ip, jf], mask=(jf < 200), dtype=nl.bfloat16)
        mv = nisa.bn_aggr(s, dtype=nl.float32)
        out = nl.ndarray((128, 2), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=mv)
        return out
    got = nki.simulate_kernel(k, x)
    x64 = x.astype(np.float64)
    # the triples rounded to bfloat16 (8 bits): a loose bound
    np.testing.assert_allclose(got[:, 0], x64.mean(axis=1), rtol=1e-2)
    np.testing.assert_allclose(got[:, 1], x64.var(axis=1), rtol=3e-2)


def test_bn_stats_bn_aggr_refusals():
    x = np.zeros((128, 600), np.float32)

    def wide(x):
        nisa.bn_stats(nl.load(x))

    with pytest.raises(ValueError, match="bn_stats: data has 600 elements.*bn_stats_fmax"):
        nki.simulate_kernel(wide, x)

    def hbm(x):
        nisa.bn_stats(x)
    with pytest.raises(ValueError, match="bn_stats: data .* is in hbm"):
        nki.simulate_kernel(hbm, x)

    def bad_dst(x):
        t = nl.load(x[:, 0:8])
        nisa.bn_stats(dst=nl.ndarray((128, 5), nl.float32, buffer=nl.sbuf), data=t)
    with pytest.raises(ValueError, match="bn_stats: dst .* 6 elements"):
        nki.simulate_kernel(bad_dst, x)

    def aggr4(x):
        nisa.bn_aggr(nl.load(x[:, 0:4]))
    with pytest.raises(ValueError, match="bn_aggr: data has 4 elements.*multiple of 3"):
        nki.simulate_kernel(aggr4, x)

    def not_tile(x):
        nisa.bn_aggr(3.0)
    with pytest.raises(TypeError, match="bn_aggr: data must be"):
        nki.simulate_kernel(not_tile, x)


@pytest.mark.parametrize("shape", [(128, 64), (32, 5), (7, 2, 3)])
def test_activation_scale_tile(shape):
    """activation(op, data, scale=(P, 1) tile, bias=): F(s[p] * x + b) per partition, one exact
    ACTIVATE word whose scale is a pointer."""
    r = _rng(4)
    x = r.standard_normal(shape).astype(np.float32)
    s = r.standard_normal((shape[0], 1)).astype(np.float32)
    b = r.standard_normal((shape[0], 1)).astype(np.float32)

    def k(x, s, b):
        out = nl.ndarray(shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.activation(op=nl.tanh, data=nl.load(x), scale=nl.load(s), bias=nl.load(b)))
        return out
    x64 = x.astype(np.float64).reshape(shape[0], -1)
    want = np.tanh(x64 * s + b).reshape(shape)
    np.testing.assert_allclose(nki.simulate_kernel(k, x, s, b), want, rtol=1e-5, atol=1e-6)
    c = [c for c in nki.trace(k)(x, s, b).calls if c["op"] == "activation"][0]
    assert c["exact"] and "scale_src=POINTER_IMMEDIATE" in c["words"][0]["text"]


def test_activation_scale_tile_refusals():
    x = np.ones((16, 4), np.float32)

    def k(x, shape, dt):
        t = nl.load(x)
        s = nl.ndarray(shape, dt, buffer=nl.sbuf)
        nisa.activation(op=nl.exp, data=t, scale=s)
    for shape, dt in (((16, 1), nl.bfloat16), ((16, 2), nl.float32), ((8, 1), nl.float32)):
        with pytest.raises(ValueError, match="activation: scale tile"):
            nki.simulate_kernel(k, x, shape, dt)

    def bad(x):
        nisa.activation(op=nl.exp, data=nl.load(x), scale="x")
    with pytest.raises(TypeError, match="activation: scale='x'"):
        nki.simulate_kernel(bad, x)
    np.testing.assert_allclose(nki.simulate_kernel(  # a NumPy scalar is a number
        lambda x: nl.store(o := nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm),
                           value=nisa.activation(op=nl.exp, data=nl.load(x), scale=np.float32(2))) or o, x),
        np.exp(2 * x), rtol=1e-6)


def _scan(a, b, init, op0, op1, rev0=False, rev1=False):
    out = np.empty_like(a, dtype=np.float64)
    for p in range(a.shape[0]):
        acc = init[p] if np.ndim(init) else init
        for i in range(a.shape[1]):
            t = op0(acc, a[p, i]) if rev0 else op0(a[p, i], acc)
            acc = op1(b[p, i], t) if rev1 else op1(t, b[p, i])
            out[p, i] = acc
    return out


@pytest.mark.parametrize("ops,rev", [
    ((np.multiply, np.add), (False, False)),
    ((np.maximum, np.add), (False, False)),
    ((np.subtract, np.subtract), (True, False)),
    ((np.subtract, np.subtract), (False, True)),
    ((np.add, np.multiply), (True, True)),
])
def test_tensor_tensor_scan(ops, rev):
    r = _rng(5)
    a = (r.random((64, 40)) * 1.5 - 0.5).astype(np.float32)
    b = r.standard_normal((64, 40)).astype(np.float32)
    init = r.standard_normal((64, 1)).astype(np.float32)

    def legacy(a, b, init):  # positional, initial a number
        out = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.tensor_tensor_scan(nl.load(a), nl.load(b), 0.5, ops[0], ops[1], *rev))
        return out

    def new06(a, b, init):  # dst first, initial a (P, 1) tile
        d = nl.ndarray(a.shape, nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor_scan(d, nl.load(a), nl.load(b), nl.load(init), ops[0], ops[1],
                                reverse0=rev[0], reverse1=rev[1])
        out = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=d)
        return out
    def legacy_tile(a, b, init):  # legacy, the initial tile positional, the operators by keyword
        out = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.tensor_tensor_scan(nl.load(a), nl.load(b), nl.load(init), op0=ops[0], op1=ops[1],
                                                    reverse0=rev[0], reverse1=rev[1]))
        return out
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    np.testing.assert_allclose(nki.simulate_kernel(legacy_tile, a, b, init),
                               _scan(a64, b64, init[:, 0].astype(np.float64), *ops, *rev), rtol=1e-4, atol=1e-4)
    # the scan runs in float32: a relative bound grown with the chain
    np.testing.assert_allclose(nki.simulate_kernel(legacy, a, b, init), _scan(a64, b64, 0.5, *ops, *rev), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(nki.simulate_kernel(new06, a, b, init), _scan(a64, b64, init[:, 0].astype(np.float64), *ops, *rev),
                               rtol=1e-4, atol=1e-4)


def test_tensor_tensor_scan_refusals():
    a = np.ones((8, 4), np.float32)

    def k(a, **kw):
        t = nl.load(a)
        args = dict(data0=t, data1=t, initial=0.0, op0=np.multiply, op1=np.add)
        args.update(kw)
        nisa.tensor_tensor_scan(**args)
    for kw, err, msg in (({"op0": np.bitwise_and}, ValueError, "op0=.*not an arithmetic"),
                         ({"op1": None}, TypeError, "op1 is required"),
                         ({"initial": "x"}, TypeError, "initial="),
                         ({"initial": None}, TypeError, "initial is required")):
        with pytest.raises(err, match="tensor_tensor_scan: " + msg):
            nki.simulate_kernel(k, a, **kw)

    def shapes(a):
        t = nl.load(a)
        nisa.tensor_tensor_scan(t, t[:, 0:2], 0.0, np.multiply, np.add)
    with pytest.raises(ValueError, match="tensor_tensor_scan: data1"):
        nki.simulate_kernel(shapes, a)

    def psum(a):
        p = nl.ndarray((8, 4), nl.float32, buffer=nl.psum)
        nisa.tensor_tensor_scan(p, p, 0.0, np.multiply, np.add)
    with pytest.raises(ValueError, match="both reside in PSUM"):
        nki.simulate_kernel(psum, a)


@pytest.mark.parametrize("rev0,rev1", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("tile", [False, True])
def test_scalar_tensor_tensor(rev0, rev1, tile):
    r = _rng(6)
    x = r.standard_normal((96, 24)).astype(np.float32)
    y = (r.random((96, 24)) + 0.5).astype(np.float32)
    s = r.standard_normal((96, 1)).astype(np.float32)

    def legacy(x, y, s):
        out = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        o0 = nl.load(s) if tile else 0.75
        nl.store(out, value=nisa.scalar_tensor_tensor(data=nl.load(x), op0=np.subtract, operand0=o0, op1=np.divide,
                                                      operand1=nl.load(y), reverse0=rev0, reverse1=rev1))
        return out

    def new06(x, y, s):
        d = nl.ndarray(x.shape, nl.float32, buffer=nl.sbuf)
        nisa.scalar_tensor_tensor(d, nl.load(x), np.subtract, nl.load(s) if tile else 0.75, np.divide, nl.load(y),
                                  rev0, rev1)
        out = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=d)
        return out
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    k = s.astype(np.float64) if tile else 0.75
    t = k - x64 if rev0 else x64 - k
    want = t / y64 if not rev1 else y64 / t
    for kern in (legacy, new06):
        np.testing.assert_allclose(nki.simulate_kernel(kern, x, y, s), want, rtol=1e-5, atol=1e-5)
    c = [c for c in nki.trace(legacy)(x, y, s).calls if c["op"] == "scalar_tensor_tensor"][0]
    assert c["exact"] and len(c["words"]) == 2  # a float32 dst: TENSOR_SCALAR + TENSOR_TENSOR words


def test_scalar_tensor_tensor_refusals():
    x = np.ones((8, 4), np.float32)

    def k(x, **kw):
        t = nl.load(x)
        args = dict(data=t, op0=np.add, operand0=1.0, op1=np.multiply, operand1=t)
        args.update(kw)
        nisa.scalar_tensor_tensor(**args)
    for kw, err, msg in (({"op1": np.bitwise_or}, ValueError, "op1=.*not an arithmetic"),
                         ({"operand1": 2.0}, TypeError, "operand1 must be"),
                         ({"data": None}, TypeError, "data must be")):
        with pytest.raises(err, match="scalar_tensor_tensor: " + msg):
            nki.simulate_kernel(k, x, **kw)

    def col2(x):
        t = nl.load(x)
        nisa.scalar_tensor_tensor(data=t, op0=np.add, operand0=t[:, 0:2], op1=np.add, operand1=t)
    with pytest.raises(ValueError, match="scalar_tensor_tensor: operand0 tile"):
        nki.simulate_kernel(col2, x)


def test_stats_and_scan_replay_in_the_cli(tmp_path):
    """`ndma nki run` on the kernel's program_json() gives the same bytes and the same words
    (one path: internal/nkic/stats.go), for every new call and the scale tile."""
    import json
    import subprocess
    from conftest import ndma_cli
    exe = ndma_cli(tmp_path)
    r = _rng(7)
    x = r.standard_normal((64, 40)).astype(np.float32)
    s = r.standard_normal((64, 1)).astype(np.float32)

    def k(x, s):
        t, c = nl.load(x), nl.load(s)
        mv = nisa.bn_aggr(nisa.bn_stats(t))
        e = nisa.activation(op=nl.exp, data=t, scale=c)
        sc = nisa.tensor_tensor_scan(e, t, c, np.multiply, np.add, reverse1=True)
        st = nisa.scalar_tensor_tensor(data=sc, op0=np.subtract, operand0=c, op1=np.multiply, operand1=t)
        out = nl.ndarray((64, 42), nl.float32, buffer=nl.shared_hbm)
        nl.store(out[:, 0:2], value=mv)
        nl.store(out[:, 2:42], value=st)
        return out
    res = nki.trace(k)(x, s)
    pj = res.program_json()
    (tmp_path / "p.json").write_text(json.dumps(pj))
    names = [t["name"] for t in pj["tensors"] if t.get("kind") == "input"]
    outn = [t["name"] for t in pj["tensors"] if t.get("kind") == "output"][0]
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "s.npy", s)
    subprocess.run([exe, "nki", "run", "--quiet", "--in", "%s=%s" % (names[0], tmp_path / "x.npy"),
                    "--in", "%s=%s" % (names[1], tmp_path / "s.npy"), "--out", "%s=%s" % (outn, tmp_path / "o.npy"),
                    "--trace", str(tmp_path / "t.json"), str(tmp_path / "p.json")], check=True, capture_output=True)
    assert np.array_equal(np.load(tmp_path / "o.npy"), res.outputs)
    cli = json.loads((tmp_path / "t.json").read_text())["calls"]
    new = ("bn_stats", "bn_aggr", "activation", "tensor_tensor_scan", "scalar_tensor_tensor")
    want = [(c["op"], c["exact"], [w["hex"] for w in c.get("words", [])]) for c in res.calls if c["op"] in new]
    assert [(c["op"], c["exact"], [w["hex"] for w in c.get("words", [])]) for c in cli if c["op"] in new] == want
    # an independent check of the values: NumPy in float64
    x64, s64 = x.astype(np.float64), s.astype(np.float64)
    e = np.exp(x64 * s64)
    sc = _scan(e, x64, s64[:, 0], np.multiply, np.add, False, True)
    np.testing.assert_allclose(res.outputs[:, 2:], (sc - s64) * x64, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(res.outputs[:, 0], x64.mean(axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res.outputs[:, 1], x64.var(axis=1), rtol=1e-5, atol=1e-6)
