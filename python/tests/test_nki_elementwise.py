"""ndma.nki's element-wise family (docs/nki.md "Compute calls"): nisa.reciprocal and the
nl functions — ACT functions, TENSOR_SCALAR / TENSOR_TENSOR forms, and the Go loops for
floor/ceil/trunc/cos/tan — against NumPy closed forms written here."""
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402

_erf = np.vectorize(math.erf)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x):
    return np.log1p(np.exp(x))


# name -> (NumPy closed form in float64, input range, exact word?)
UNARY = {
    "reciprocal": (lambda x: 1 / x, (0.1, 4.0), True),
    "negative": (lambda x: -x, (-4, 4), True),
    "sign": (np.sign, (-4, 4), True),
    "erf": (_erf, (-3, 3), True),
    "erf_dx": (lambda x: 2 / np.sqrt(np.pi) * np.exp(-x * x), (-3, 3), True),
    "softplus": (_softplus, (-4, 4), True),
    "mish": (lambda x: x * np.tanh(_softplus(x)), (-4, 4), True),
    "gelu_apprx_tanh": (lambda x: 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3))), (-4, 4), True),
    "gelu_apprx_sigmoid": (lambda x: x * _sig(1.702 * x), (-4, 4), True),
    "gelu_dx": (lambda x: 0.5 * (1 + _erf(x / np.sqrt(2))) + x * np.exp(-x * x / 2) / np.sqrt(2 * np.pi), (-4, 4), True),
    "silu_dx": (lambda x: _sig(x) * (1 + x * (1 - _sig(x))), (-4, 4), True),
    "sin": (np.sin, (-3, 3), True),
    "arctan": (np.arctan, (-4, 4), True),
    "floor": (np.floor, (-5, 5), False),
    "ceil": (np.ceil, (-5, 5), False),
    "trunc": (np.trunc, (-5, 5), False),
    "cos": (np.cos, (-3, 3), False),
    "tan": (np.tan, (-1.2, 1.2), False),
    "logical_not": (lambda x: (x == 0).astype(np.float64), (-2, 2), True),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_numpy(name):
    fn, (lo, hi), exact = UNARY[name]
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    x = rng.uniform(lo, hi, (128, 96)).astype(np.float32)
    if name == "logical_not":
        x[::3] = 0.0
    if name in ("floor", "ceil", "trunc"):
        x[:, :4] = [2.0, -2.0, 3.7, -3.2]  # integers stay; the NKI pages' examples

    def k(x):
        o = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=getattr(nl, name)(nl.load(x)))
        return o
    r = nki.trace(k)(x)
    got = r.outputs if not isinstance(r.outputs, (list, tuple)) else r.outputs[0]
    want = fn(x.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
    calls = [c for c in r.calls if c["kind"] == "compute"]
    assert len(calls) == 1 and calls[0]["exact"] is exact


@pytest.mark.parametrize("name,fn", [
    ("logical_and", lambda a, b: (a != 0) & (b != 0)),
    ("logical_or", lambda a, b: (a != 0) | (b != 0)),
    ("logical_xor", lambda a, b: (a != 0) ^ (b != 0)),
    ("power", lambda a, b: np.abs(a) ** b),
    ("fmod", np.fmod),
])
def test_binary_against_numpy(name, fn):
    rng = np.random.default_rng(5)
    a = rng.integers(-3, 4, (64, 32)).astype(np.float32)
    b = rng.integers(1, 4, (64, 32)).astype(np.float32)
    if name == "power":
        a = np.abs(a) + 0.5

    def k(a, b):
        o = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=getattr(nl, name)(nl.load(a), nl.load(b)))
        return o
    got = nki.simulate_kernel(k, a, b)
    np.testing.assert_allclose(got, fn(a.astype(np.float64), b.astype(np.float64)).astype(np.float64), rtol=1e-6)


def test_shifts_on_int32():
    a = np.arange(-64, 64, dtype=np.int32).reshape(8, 16)
    s = (np.arange(128, dtype=np.int32).reshape(8, 16) % 5)

    def k(a, s):
        o1 = nl.ndarray(a.shape, nl.int32, buffer=nl.shared_hbm)
        o2 = nl.ndarray(a.shape, nl.int32, buffer=nl.shared_hbm)
        ta, ts = nl.load(a), nl.load(s)
        nl.store(o1, value=nl.left_shift(ta, ts))
        nl.store(o2, value=nl.right_shift(ta, ts))
        return o1, o2
    o1, o2 = nki.simulate_kernel(k, a, s)
    assert np.array_equal(o1, np.left_shift(a, s))
    assert np.array_equal(o2, np.right_shift(a, s))


@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_nisa_reciprocal_both_dialects(dt):
    rng = np.random.default_rng(9)
    x = rng.uniform(0.25, 8.0, (128, 512)).astype(dt)

    def k(x):
        t = nl.load(x)
        y = nisa.reciprocal(t)  # the legacy page's example
        z = nl.ndarray(t.shape, nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=z, data=t)  # NKI 0.6: float32 math, cast to dst's dtype
        o1 = nl.ndarray(x.shape, y.dtype, buffer=nl.shared_hbm)
        o2 = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o1, value=y)
        nl.store(o2, value=z)
        return o1, o2
    r = nki.trace(k)(x)
    o1, o2 = r.outputs
    want = 1.0 / x.astype(np.float64)
    assert o1.dtype == dt
    np.testing.assert_allclose(o2, want, rtol=1e-7)
    np.testing.assert_allclose(o1.astype(np.float64), want, rtol=1e-3 if dt == np.float16 else 1e-7)
    rec = [c for c in r.calls if c["kind"] == "compute"]
    assert len(rec) == 2 and all(c["exact"] for c in rec)
    assert all(w["text"].startswith("tensor_scalar ") and "op0=DIVIDE, reverse_operands=FIRST" in w["text"]
               for c in rec for w in c["words"])


def test_activation_op_reciprocal_and_dx_names():
    x = np.linspace(0.5, 3.0, 64 * 8, dtype=np.float32).reshape(64, 8)

    def k(x):
        o = nl.ndarray(x.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=nisa.activation(op=nl.reciprocal, data=nl.load(x), scale=2.0))
        return o
    np.testing.assert_allclose(nki.simulate_kernel(k, x), 1 / (2.0 * x.astype(np.float64)), rtol=1e-7)


@pytest.mark.parametrize("shape,axis", [((128, 200), 1), ((16, 6, 10), (1, 2)), ((32, 5, 7), 2)])
def test_var_against_numpy(shape, axis):
    x = (np.random.default_rng(11).standard_normal(shape) * 3 + 1).astype(np.float32)

    def k(x):
        v = nl.var(nl.load(x), axis=axis)
        o = nl.ndarray(v.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=v)
        return o
    r = nki.trace(k)(x)
    want = x.astype(np.float64).var(axis=axis)
    np.testing.assert_allclose(r.outputs.reshape(want.shape), want, rtol=2e-5, atol=1e-6)
    assert all(c["exact"] for c in r.calls if c["kind"] == "compute")  # words only


@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_activation_reduce_both_dialects(dt):
    """activation_reduce / activation(reduce_res=): exp(x·scale + bias) and its per-partition sum,
    the sum of the float32 activations (before rounding to a narrower dst), all words."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((128, 4, 96)).astype(np.float32)
    b = rng.standard_normal((128, 1)).astype(np.float32)

    def k(x, b):
        t, tb = nl.load(x), nl.load(b)
        s1 = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        s2 = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        a1 = nisa.activation_reduce(np.exp, t, reduce_op=np.add, reduce_res=s1, bias=tb, scale=0.5,
                                    dtype=dt)  # legacy
        a2 = nl.ndarray(t.shape, dt, buffer=nl.sbuf)
        nisa.activation(dst=a2, op=nl.exp, data=t, bias=tb, scale=0.5, reduce_op=nl.add, reduce_res=s2,
                        reduce_cmd=nisa.reduce_cmd.reset_reduce)  # NKI 0.6
        return _o(a1), _o(s1), _o(a2), _o(s2)
    r = nki.trace(k)(x, b)
    a1, s1, a2, s2 = r.outputs
    want = np.exp(x.astype(np.float64) * 0.5 + b[:, :, None])
    np.testing.assert_allclose(a1, want, rtol=1e-3 if dt == np.float16 else 1e-6)
    np.testing.assert_allclose(s1[:, 0], want.sum(axis=(1, 2)), rtol=1e-5)
    assert np.array_equal(a1, a2) and np.array_equal(s1, s2)
    assert all(c["exact"] for c in r.calls if c["kind"] == "compute")


def _o(t):
    o = nl.ndarray(t.shape, t.dtype, buffer=nl.shared_hbm)
    nl.store(o, value=t)
    return o


def test_activation_reduce_refusals():
    def k(a):
        t = nl.load(a)
        s = nl.ndarray((8, 1), nl.float32, buffer=nl.sbuf)
        for bad, err in ((dict(reduce_op=nl.maximum, reduce_res=s), ValueError),
                         (dict(reduce_op=nl.add, reduce_res=t), ValueError),
                         (dict(reduce_op=nl.add, reduce_res=s, reduce_cmd=nisa.reduce_cmd.reduce), NotImplementedError)):
            with pytest.raises(err):
                nisa.activation(op=nl.exp, data=t, **bad)
        with pytest.raises(TypeError, match="reduce_res"):
            nisa.activation_reduce(nl.exp, t, reduce_op=nl.add)
    nki.simulate_kernel(k, np.zeros((8, 16), np.float32))
