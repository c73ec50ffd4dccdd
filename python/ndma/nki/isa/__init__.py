"""ndma.nki.isa: the names of neuronxcc.nki.isa and nki.isa (docs/nki.md).

Both dialects: legacy calls return a new tile (dst omitted), NKI 0.6 calls
take dst first; told apart by whether dst is given.
"""
import numbers
import weakref

import numpy as np

from .. import _trace
from .. import language as _nl
from .._tensor import NkiTensor, IndexExpr, IndexSum
from .constants import dge_mode, oob_mode, engine, reduce_cmd

__all__ = ["dma_copy", "dma_transpose", "dma_compute", "tensor_copy", "tensor_tensor", "tensor_scalar",
           "activation", "memset", "iota", "nc_matmul", "nc_transpose", "tensor_reduce", "dge_mode", "oob_mode", "engine"]


def _mode(v):
    if v is None:
        return None
    return getattr(v, "value", v)


def _opname(op):
    if op is None:
        return None
    n = getattr(op, "__name__", None) or str(op)
    return n.replace("np.", "").replace("nl.", "")


def dma_copy(dst=None, src=None, dst_rmw_op=None, oob_mode=None, dge_mode=None, unique_indices=None, mask=None,
             name=None, engine=None, **kw):
    if dst is None:
        raise TypeError("dma_copy needs dst and src")
    _trace.current().call("dma_copy", dst=dst, src=src, dst_rmw_op=_opname(dst_rmw_op), oob_mode=_mode(oob_mode),
                          dge_mode=_mode(dge_mode), unique_indices=unique_indices)


def dma_transpose(dst=None, src=None, axes=None, dge_mode=None, oob_mode=None, dtype=None, mask=None, name=None, **kw):
    if src is None and isinstance(dst, NkiTensor) and dst.buffer.endswith("hbm"):  # legacy: dma_transpose(src)
        dst, src = None, dst
    out = dst
    if out is None:
        out = _nl.ndarray((src.shape[1], src.shape[0]), src.dtype, _nl.sbuf)
    _trace.current().call("dma_transpose", dst=out, src=src, axes=list(axes) if axes else None,
                          dge_mode=_mode(dge_mode), oob_mode=_mode(oob_mode))
    return out if dst is None else None


def dma_compute(dst, srcs, reduce_op, scales=None, unique_indices=True, oob_mode=None, name=None, **kw):
    _trace.current().call("dma_compute", dst=dst, srcs=[s.ap_json() for s in srcs], reduce_op=_opname(reduce_op),
                          scales=list(scales) if scales else None, unique_indices=unique_indices, oob_mode=_mode(oob_mode))


def _out(dst, like, dtype=None):
    if dst is not None:
        return dst, False
    return _nl.ndarray(like.shape, _trace.dtype_name(dtype) if dtype else like.dtype, _nl.sbuf), True


def tensor_copy(dst=None, src=None, dtype=None, engine=None, name=None, **kw):
    if src is None:  # legacy tensor_copy(src, ...)
        dst, src = None, dst
    out, new = _out(dst, src, dtype)
    _trace.current().call("tensor_copy", dst=out, src=src)
    return out if new else None


def tensor_tensor(dst=None, data1=None, data2=None, op=None, dtype=None, name=None, **kw):
    if not isinstance(data2, NkiTensor):  # legacy (data1, data2, op), op positional or by keyword
        dst, data1, data2, op = None, dst, data1, data2 if op is None else op
    out, new = _out(dst, data1, dtype)
    _trace.current().call("tensor_tensor", dst=out, srcs=[data1.ap_json(), data2.ap_json()], alu_op=_opname(op))
    return out if new else None


def tensor_scalar(dst=None, data=None, op0=None, operand0=None, reverse0=False, op1=None, operand1=None,
                  reverse1=False, dtype=None, name=None, **kw):
    if not isinstance(data, NkiTensor):  # legacy tensor_scalar(data, op0, operand0, ...)
        dst, data, op0, operand0 = None, dst, data, op0 if operand0 is None else operand0
    out, new = _out(dst, data, dtype)
    # a number is an immediate; a (P, 1) tile a per-partition operand (a pointer scalar)
    t0, t1 = isinstance(operand0, NkiTensor), isinstance(operand1, NkiTensor)
    kw = {"alu_op1": _opname(op1), "operand1": None if t1 or operand1 is None else float(operand1),
          "operand0_tile": operand0 if t0 else None, "operand1_tile": operand1 if t1 else None,
          "reverse0": True if reverse0 else None, "reverse1": True if reverse1 else None}
    _trace.current().call("tensor_scalar", dst=out, src=data, alu_op=_opname(op0),
                          operand0=None if t0 else float(operand0), **{k: v for k, v in kw.items() if v is not None})
    return out if new else None


def activation(dst=None, op=None, data=None, bias=None, scale=1.0, dtype=None, name=None, reduce_op=None,
               reduce_res=None, reduce_cmd=None, **kw):
    """activation: dst = op(data * scale + bias), one ACTIVATE word. With reduce_res (reduce_op
    nl.add, reduce_cmd reset_reduce or not given): also each partition's sum of the activated
    values ("reduce along the free dimensions of the activated data per lane") — the ACTIVATE
    into a float32 tile, a TENSOR_REDUCE add of it into reduce_res and, for a narrower dst, a
    CAST into dst (the sum is of the values before their rounding to dst's dtype)."""
    if data is None and isinstance(op, NkiTensor):  # legacy activation(op, data)
        dst, op, data = None, dst, op
    elif dst is not None and not isinstance(dst, NkiTensor) and op is None:  # legacy activation(op, data=…)
        dst, op = None, dst
    out, new = _out(dst, data, dtype)
    tb = isinstance(bias, NkiTensor)  # a (P, 1) tile: a per-partition bias (a pointer scalar)
    kw = {"bias_tile": bias} if tb else {} if bias is None else {"bias": float(bias)}
    if isinstance(scale, NkiTensor):  # a (P, 1) float32 tile: a per-partition scale (a pointer scalar)
        if scale.shape[0] != data.shape[0] or _nl._count(scale.shape[1:]) != 1 or scale.dtype != "float32":
            raise ValueError("activation: scale tile %s %s must be (%d, 1) float32: one value per partition of data"
                             % (scale.dtype, list(scale.shape), data.shape[0]))
        kw["scale_tile"], scale = scale, 1.0
    elif not isinstance(scale, (int, float)) or isinstance(scale, bool):
        try:
            if isinstance(scale, (str, bytes)):
                raise TypeError
            scale = float(scale)  # a NumPy scalar
        except (TypeError, ValueError):
            raise TypeError("activation: scale=%r: want a number or a (P, 1) float32 tile" % (scale,)) from None
    if reduce_res is None and reduce_op is None and reduce_cmd is None:
        _trace.current().call("activation", dst=out, src=data, func=_opname(op), scale=float(scale), **kw)
        return out if new else None
    _act_reduce(out, data, _opname(op), float(scale), kw, reduce_op, reduce_res, reduce_cmd)
    return out if new else None


def _act_reduce(out, data, func, scale, kw, reduce_op, reduce_res, reduce_cmd):
    call = "activation"
    cmd = getattr(reduce_cmd, "value", reduce_cmd)
    if cmd not in (None, "reset_reduce"):
        raise NotImplementedError("ndma.nki: activation with reduce_cmd=%s (the Scalar Engine's reduce registers "
                                  "across instructions); reset_reduce runs" % cmd)
    if _opname(reduce_op) not in ("add", "sum"):
        raise ValueError("%s: reduce_op %s: NKI's reduce_op must be nl.add" % (call, _opname(reduce_op)))
    if not isinstance(reduce_res, NkiTensor):
        raise TypeError("%s: reduce_res must be a tile, not %r" % (call, type(reduce_res).__name__))
    if reduce_res.shape[0] != data.shape[0] or _nl._count(reduce_res.shape[1:]) != 1:
        raise ValueError("%s: reduce_res %s: want a tile of %d partitions and one element per partition"
                         % (call, list(reduce_res.shape), data.shape[0]))
    sess = _trace.current()
    act = out if out.dtype == "float32" else _nl.ndarray(out.shape, "float32", _nl.sbuf)
    sess.call("activation", dst=act, src=data, func=func, scale=scale, **kw)
    sess.call("tensor_reduce", dst=reduce_res, src=act, axes=list(range(1, act.ndim)), alu_op="add")
    if act is not out:
        sess.call("tensor_copy", dst=out, src=act)


def activation_reduce(dst=None, op=None, data=None, reduce_op=None, reduce_res=None, bias=None, scale=1.0,
                      dtype=None, name=None, **kw):
    """activation_reduce: activation and each partition's sum of its result into reduce_res
    ("equivalent to calling nisa.activation with reduce_cmd=nisa.reduce_cmd.reset_reduce and
    passing in reduce_res"). Legacy activation_reduce(op, data, reduce_op=, reduce_res=, bias=,
    scale=, dtype=) returns a new tile; NKI 0.6 takes dst first."""
    if reduce_res is None:
        raise TypeError("activation_reduce: reduce_res is required")
    return activation(dst, op, data, bias=bias, scale=scale, dtype=dtype, reduce_op=reduce_op,
                      reduce_res=reduce_res, reduce_cmd="reset_reduce", **kw)


def memset(dst=None, value=0.0, shape=None, dtype=None, name=None, **kw):
    """memset: NKI 0.6 memset(dst, value); legacy memset(shape, value, dtype) returns the tile."""
    if isinstance(dst, (tuple, list)):  # legacy memset(shape, value, dtype)
        dst, shape = None, dst
    out = dst if dst is not None else _nl.ndarray(shape, dtype, _nl.sbuf)
    _trace.current().call("memset", dst=out, value=float(value))
    return out if dst is None else None


def iota(dst=None, coefs=None, value=0.0, dtype=None, expr=None, **kw):
    """iota. Legacy: iota(expr, dtype) -> a tile of the index expression's
    values (e.g. nl.arange(128)[:, None] * 4 + 1, or a sum over the partition and
    free variables). NKI 0.6: iota(dst, pattern, offset, channel_multiplier=0):
    dst[p, i…] = offset + p·channel_multiplier + Σ step·i over the pattern
    (_select.pattern_view). ndma's form: iota(dst, coefs, value): dst[i0, i1, ...] =
    value + sum(coefs[d] * i_d)."""
    if isinstance(dst, IndexSum) or isinstance(expr, IndexSum):
        return _select.iota_sum(dst if isinstance(dst, IndexSum) else expr, dtype or coefs)
    pattern = kw.get("pattern", coefs if isinstance(coefs, (list, tuple)) and coefs
                     and isinstance(coefs[0], (list, tuple)) else None)
    if pattern is not None and isinstance(dst, NkiTensor):  # NKI 0.6
        cm = kw.get("channel_multiplier", dtype if isinstance(dtype, numbers.Real) else 0)
        view, steps = _select.pattern_view(dst, pattern, "dst", "iota")
        iota(view, [int(cm)] + steps, float(kw.get("offset", value)))
        return None
    if isinstance(dst, IndexExpr) or isinstance(expr, IndexExpr):
        e = dst if isinstance(dst, IndexExpr) else expr
        dtype = dtype or coefs
        shape = e.shape if len(e.shape) > 1 else (e.shape[0], 1)
        out = _nl.ndarray(shape, dtype, _nl.sbuf)
        coefs = [e.coef if i == (e.role or 0) else 0 for i in range(len(shape))]
        value = e.coef * e.start + e.const
        iota(out, coefs, value)
        return out
    if dst is None or coefs is None:
        raise TypeError("iota(dst, coefs, value) or legacy iota(expr, dtype)")
    cs = [int(c) for c in coefs]
    npdt = _trace.NP[dst.dtype]
    if np.issubdtype(npdt, np.integer):  # an integer tile gets the exact integers, each in its dtype's range
        info = np.iinfo(npdt)
        lo = hi = value
        for c, n in zip(cs, dst.shape):
            lo, hi = lo + min(0, c * (n - 1)), hi + max(0, c * (n - 1))
        if value != int(value) or lo < info.min or hi > info.max:
            raise ValueError("iota into a %s tile: values %s to %s, the dtype holds %d to %d%s"
                             % (dst.dtype, lo, hi, info.min, info.max,
                                "" if value == int(value) else " (value %r is not an integer)" % value))
        sess = _trace.current()

        def run():
            grids = np.indices(dst.shape, dtype=np.int64)
            sess.view(dst)[...] = (int(value) + sum(c * g for c, g in zip(cs, grids))).astype(npdt)
        sess.numpy_call("iota", _nl.NUMPY_NOTE, "gpsimd", run, dst=dst, coefs=cs, value=float(value))
        return None

    def fn():
        grids = np.indices(dst.shape, dtype=np.float64)
        return value + sum(c * g for c, g in zip(cs, grids))
    _nl._numpy("iota", dst, [], fn, "gpsimd", coefs=cs, value=float(value))


def nc_matmul(dst=None, stationary=None, moving=None, accumulate=None, name=None, **kw):
    """nc_matmul: stationary (K, M), moving (K, N) -> (M, N) in PSUM, FP32
    (legacy: nc_matmul(stationary, moving) returns the PSUM tile; NKI 0.6:
    dst first, accumulate=True adds into it, False overwrites; None, the default,
    overwrites on the first matmul into dst and adds on the next ones until another
    call touches the tile — the tutorials' K loop into one PSUM tile; INFERRED,
    RATIONALE.md). Runs as the PE's LDWEIGHTS and MATMUL words on the session's SBUF/PSUM."""
    if moving is None:  # legacy nc_matmul(stationary, moving)
        dst, stationary, moving = None, dst, stationary
    if kw.get("is_transpose"):
        raise NotImplementedError("ndma.nki: nc_matmul(is_transpose=True); nc_transpose turns a tile on the PE")
    out = dst
    if out is None:
        out = _nl.ndarray((stationary.shape[1], moving.shape[1]), "float32", _nl.psum)
    K, M = stationary.shape
    if moving.shape[0] != K:  # the contraction runs over both operands' partitions
        raise ValueError("nc_matmul: stationary %s (K, M) and moving %s (K, N) contract over their first "
                         "(partition) axis: K is %d and %d" % (stationary.shape, moving.shape, K, moving.shape[0]))
    if out.shape != (M, moving.shape[1]):
        raise ValueError("nc_matmul: stationary %s (K, M), moving %s (K, N): dst must be (M, N), not %s"
                         % (stationary.shape, moving.shape, out.shape))
    if K > 128 or M > 128 or moving.shape[1] > 512:
        raise ValueError("nc_matmul: K=%d, M=%d, N=%d: the PE array takes K <= 128, M <= 128, N <= 512"
                         % (K, M, moving.shape[1]))
    sess = _trace.current()
    if accumulate is None and dst is not None:
        key = (out.offset, tuple(out.dims))
        open_ = sess.mm_groups.setdefault(out.name, set())  # the views of the tile with a group open
        accumulate = key in open_
        open_.add(key)
    # LDWEIGHTS + MATMUL words, formed and run by ndma's Go core (docs/nki.md "Compute")
    sess.call("nc_matmul", dst=out, stationary=stationary, moving=moving, accumulate=True if accumulate else None)
    return out if dst is None else None


_PE_DTYPES = ("float32", "float16", "bfloat16", "float8e4", "float8e5")
_identities = weakref.WeakKeyDictionary()  # session -> {dtype: its 128 x 128 identity tile}


def _identity(sess, dt, n):
    """identity[:n, :n] of dt for a PE transpose: one SBUF tile per session and
    dtype, written once by an ``identity`` call (MEMSET words), kept for the
    session (NKI's compiler places such a tile too). None where the PE
    transpose's words do not apply (trn1 keeps FP32 only; trn3 has no PE tables)."""
    if dt not in _PE_DTYPES or sess.target == "trn3" or (sess.target == "trn1" and dt != "float32"):
        return None
    tiles = _identities.setdefault(sess, {})
    t = tiles.get(dt)
    if t is None:
        m = min(128, sess.parts)
        t = tiles[dt] = _nl.ndarray((m, m), dt, _nl.sbuf)
        sess.call("identity", dst=t)
    return t[0:n, 0:n] if n <= t.shape[0] else None


def nc_transpose(dst=None, data=None, engine=None, name=None, **kw):
    """nc_transpose: data (P, F) -> (F, P): on the tensor engine as LDWEIGHTS of data and a
    MATMUL streaming an identity tile (in PSUM), on the vector engine (32x32) in NumPy."""
    if data is None:
        dst, data = None, dst
    eng = getattr(engine, "value", engine) or "tensor"
    out = dst
    if out is None:
        buf = _nl.psum if eng in ("tensor", "unknown") else _nl.sbuf
        out = _nl.ndarray((data.shape[1], data.shape[0]), data.dtype, buf)
    if eng in ("tensor", "unknown"):
        sess = _trace.current()
        sess.call("nc_transpose", dst=out, src=data, identity=_identity(sess, data.dtype, data.shape[0]))
    else:
        _nl._numpy("nc_transpose", out, [data], lambda a: a.T, eng, src=data)
    return out if dst is None else None


def tensor_reduce(dst=None, op=None, data=None, axis=None, negate=False, keepdims=False, dtype=None, **kw):
    """tensor_reduce: legacy (op, data, axis) returns a tile; NKI 0.6 (dst, op, data, axis)."""
    if dst is not None and not isinstance(dst, NkiTensor):  # legacy tensor_reduce(op, data, axis)
        if op is None:  # tensor_reduce(np.max, data=…, axis=…): data and axis by keyword
            dst, op = None, dst
        else:
            dst, op, data, axis = None, dst, op, data if axis is None else axis
    name = _opname(op)
    name = {"amax": "max", "amin": "min"}.get(name, name)  # NumPy's np.max / np.min are amax / amin
    if name not in ("add", "maximum", "max", "minimum", "min", "multiply"):
        raise NotImplementedError("ndma.nki: tensor_reduce with op %r" % name)
    axes, out = _nl._reduced(data, axis, keepdims, dtype) if dst is None else (_nl._axes(data, axis), dst)
    # a TENSOR_REDUCE word on ndma (internal/nkic/reduce.go), negated by its own field
    _trace.current().call("tensor_reduce", dst=out, src=data, axes=list(axes), alu_op=name,
                          **({"negate": True} if negate else {}))
    return out if dst is None else None


from ._stats import bn_stats, bn_aggr, tensor_tensor_scan, scalar_tensor_tensor  # noqa: E402,F401  (docs/nki.md)
__all__ += ["bn_stats", "bn_aggr", "tensor_tensor_scan", "scalar_tensor_tensor", "activation_reduce"]
from . import _select  # noqa: E402  (masking and selection: affine_select, max8, nc_find_index8, tensor_copy_predicated)
from ._select import affine_select, max8, nc_find_index8, tensor_copy_predicated  # noqa: E402,F401
__all__ += _select.__all__
from . import _random  # noqa: E402  (reciprocal, dropout)
from ._random import reciprocal, dropout, rng, rand2, set_rng_seed  # noqa: E402,F401
__all__ += _random.__all__
from . import _gather  # noqa: E402  (range_select, select_reduce, nc_match_replace8)
from ._gather import range_select, select_reduce, nc_match_replace8, nc_n_gather  # noqa: E402,F401
__all__ += _gather.__all__ + ["reduce_cmd"]
