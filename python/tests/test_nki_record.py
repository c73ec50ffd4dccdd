"""ndma.nki's call recording: the common call is recorded as its packed
record alone (no dict; docs/nki.md "Speed"). Each kernel here runs both
ways — records (FAST) and the dict form every call had before — and the
two must agree on everything: outputs bit for bit, the program form, the
trace call by call; and against NumPy."""
import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402
from ndma.nki import _trace  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from nki_calls import vadd  # noqa: E402


def both(kernel, *args, exec="fast"):
    """The kernel's TraceResult recorded as packed records and as dicts."""
    out = []
    for fast in (True, False):
        old = _trace.FAST
        _trace.FAST = fast
        try:
            out.append(nki.trace(kernel, exec=exec)(*args))
        finally:
            _trace.FAST = old
    return out


def same(r1, r2):
    o1 = r1.outputs if isinstance(r1.outputs, tuple) else (r1.outputs,)
    o2 = r2.outputs if isinstance(r2.outputs, tuple) else (r2.outputs,)
    for a, b in zip(o1, o2):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert json.dumps(r1.program_json(), sort_keys=True) == json.dumps(r2.program_json(), sort_keys=True)
    assert r1.calls == r2.calls


def mixed(a, b):
    """Every op the record holds, 2-D, 3-D, 1-D and scalar views, slices with steps, masks."""
    n, F = a.shape
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    out3 = nl.ndarray((2, 64, F), a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:F]
    for i in nl.affine_range((n + 127) // 128):
        m = i * 128 + i_p < n
        x = nl.load(a[i * 128 + i_p, i_f], mask=m)
        y = nl.load(b[i * 128 + i_p, i_f], mask=m)
        z = nl.multiply(nl.add(x, y), 0.5)   # tensor_tensor, tensor_scalar
        w = nl.exp(z)                         # activation (func, scale)
        nl.store(out[i * 128 + i_p, i_f], value=nl.subtract(w, z), mask=m)
    t3 = nl.ndarray((64, 2, F), a.dtype, buffer=nl.sbuf)
    nl.store(t3[:, 0, :], value=nl.load(a[0:64, :]))
    t3[:, 1, :] = 2.0                           # memset on a 3-D view
    nl.store(out3[0], value=t3[:, 0, :])
    nl.store(out3[1], value=t3[:, 1, :])
    col = nl.load(a[0:128:2, 1])                # a strided 1-D load: a (64, 1) tile
    o1 = nl.ndarray((64, 1), a.dtype, buffer=nl.shared_hbm)
    nl.store(o1, value=nl.copy(col))
    u = nl.zeros((4, 4), a.dtype, buffer=nl.sbuf)
    u[1, 2] = 1.5                               # a scalar view: a pattern of [[1, 1]]
    s = nl.ndarray((4, 4), a.dtype, buffer=nl.shared_hbm)
    nl.store(s, value=u)
    return out, out3, o1, s


def test_mixed_kernel_records_and_dicts_agree_and_match_numpy():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((300, 16)).astype(np.float32)  # the last tile is 44 partitions (masked)
    b = rng.standard_normal((300, 16)).astype(np.float32)
    for exec in ("fast", "sim"):
        r1, r2 = both(mixed, a, b, exec=exec)
        same(r1, r2)
    out, out3, o1, s = r1.outputs
    z = (a + b) * np.float32(0.5)
    assert np.allclose(out, np.exp(z) - z, rtol=1e-5, atol=1e-6)
    assert np.array_equal(out3[0], a[:64]) and np.all(out3[1] == 2.0)
    want = np.zeros((4, 4), np.float32)
    want[1, 2] = 1.5
    assert np.array_equal(o1[:, 0], a[0:128:2, 1]) and np.array_equal(s, want)
    # the program form holds every call, in order, indexed 0..n-1
    calls = r1.program_json()["calls"]
    assert [c["index"] for c in calls] == list(range(len(calls)))
    assert {c["op"] for c in calls} >= {"load", "store", "tensor_tensor", "tensor_scalar", "activation", "memset",
                                        "tensor_copy"}


def test_batches_and_string_tables_across_flushes(monkeypatch):
    """Many batches (1,024 calls each) and, with a tiny string table, a flush
    every few tensors: the records name the right strings of their batch."""
    rng = np.random.default_rng(12)
    a = rng.standard_normal((128 * 300, 4)).astype(np.float32)
    b = rng.standard_normal((128 * 300, 4)).astype(np.float32)
    r1, r2 = both(vadd, a, b)
    same(r1, r2)
    assert np.array_equal(r1.outputs, a + b)
    monkeypatch.setattr(_trace, "MAX_STRINGS", 7)
    r3, r4 = both(vadd, a, b)
    same(r3, r4)
    same(r1, r3)


def test_unrec_inverts_the_dict_form():
    """A call's record decoded (program_json's _unrec) is the dict _record makes of it."""
    sess = _trace.Session("trn2")
    _trace.push(sess)
    try:
        t = nl.ndarray((128, 8), nl.float32, buffer=nl.sbuf)
        h = nl.ndarray((4, 128, 8), nl.float32, buffer=nl.hbm)
        views = [t, t[3:90, 2:7], t[::3, ::2], h[1], h[2, 5:9, 1::3], h[3, 7, 2], h[:, :, 0]]
        kws = [dict(dst=v, src=w) for v in views for w in views[::-1]]
        kws += [dict(dst=v, srcs=[w, v], alu_op="add") for v in views for w in views]
        kws += [dict(dst=v, src=w, alu_op="multiply", operand0=-2.5) for v, w in zip(views, views[1:])]
        kws += [dict(dst=v, value=3.0) for v in views] + [dict(dst=t, src=t, func="exp", scale=0.25)]
        for kw in kws:
            want = sess._record("load", dict(kw))
            table = []
            rec = _trace._call_rec(want, _trace._sid({}, table))
            assert rec is not None
            got = _trace._unrec(rec, table)
            assert json.loads(json.dumps(got, sort_keys=True)) == json.loads(json.dumps(want, sort_keys=True))
    finally:
        _trace.pop()
        sess.close()


def test_index_bounds_still_checked_on_the_record_path():
    a = np.zeros((100, 8), np.float32)

    def k(a):
        i_p, i_f = nl.mgrid[0:128, 0:8]
        out = nl.ndarray((128, 8), a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a[i_p, i_f]))  # rows 100..127 of a 100-row tensor
        return out
    with pytest.raises(IndexError, match="index 127 is out of bounds for axis 0 with size 100"):
        nki.simulate_kernel(k, a)


def test_baremetal_written_set_on_both_paths():
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
    for fast in (True, False):
        res = np.zeros_like(a)
        old = _trace.FAST
        _trace.FAST = fast
        try:
            @nki.baremetal
            def k(a, res):
                nl.store(res, value=nl.load(a) * 3.0)
            k(a, res)
        finally:
            _trace.FAST = old
        assert np.array_equal(res, a * 3)
