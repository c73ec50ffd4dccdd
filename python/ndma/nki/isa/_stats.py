"""nki.isa's statistics and scan calls (docs/nki.md "Statistics, scans and
scalar_tensor_tensor"): bn_stats, bn_aggr, tensor_tensor_scan and
scalar_tensor_tensor. ndma has no words for them (docs/compute.md has no
field table): its Go core computes each with a loop over the partitions'
rows (internal/nkic/stats.go), flagged not exact. Both dialects: legacy
calls return a new tile, NKI 0.6 calls take dst first."""
import math

from .. import _trace
from .. import language as _nl
from .._tensor import NkiTensor

BN_STATS_FMAX = 512  # nl.tile_size.bn_stats_fmax: elements per partition one bn_stats reads
_ARITH = ("add", "subtract", "multiply", "divide", "maximum", "max", "minimum", "min", "power", "mod",
          "equal", "not_equal", "greater", "greater_equal", "less", "less_equal")


def _opname(op, what, call):
    if op is None:
        raise TypeError("%s: %s is required (an arithmetic operator such as np.add)" % (call, what))
    n = getattr(op, "__name__", None) or str(op)
    n = n.replace("np.", "").replace("nl.", "")
    if n not in _ARITH:
        raise ValueError("%s: %s=%r is not an arithmetic operator ndma computes (%s)" % (call, what, op, ", ".join(_ARITH)))
    return n


def _tile(x, what, call):
    """x, an on-chip tile, as (x, partitions, elements per partition)."""
    if not isinstance(x, NkiTensor):
        raise TypeError("%s: %s must be an SBUF or PSUM tile, not %r" % (call, what, type(x).__name__))
    if x.buffer not in ("sbuf", "psum"):
        raise ValueError("%s: %s %s is in %s: the Vector Engine reads SBUF or PSUM tiles" % (call, what, x.name, x.buffer))
    return x, x.shape[0], math.prod(x.shape[1:])


def _masked(mask, data, *others):
    """data (and others, by its partition range only, or alike) cut by mask."""
    if mask is None:
        return (data,) + others
    r = _nl._ranges((data,) + tuple(o for o in others if o is not None and o.shape == data.shape), mask)
    part = [r[0]] if r else None
    return (_nl._restrict(data, r),) + tuple(
        None if o is None else _nl._restrict(o, r if o.shape == data.shape else part) for o in others)


def _new(shape, dtype, like):
    return _nl.ndarray(shape, _trace.dtype_name(dtype) if dtype else like.dtype, _nl.sbuf)


def bn_stats(dst=None, data=None, mask=None, dtype=None, name=None, **kw):
    """bn_stats: per partition, (count, mean, variance * count) of the even elements, then of the
    odd ones — 6 elements — over at most nl.tile_size.bn_stats_fmax (512) elements per partition.
    Legacy bn_stats(data, mask=, dtype=) returns a new (P, 6) tile; NKI 0.6 bn_stats(dst, data)."""
    legacy = data is None
    if legacy:
        dst, data = None, dst
    data, P, F = _tile(data, "data", "bn_stats")
    out = dst if dst is not None else _new((P, 6), dtype, data)
    out, _, n = _tile(out, "dst", "bn_stats")
    d, o = _masked(mask, data, out)
    if d is None:
        return out if legacy else None
    F = math.prod(d.shape[1:])
    if F > BN_STATS_FMAX:
        raise ValueError("bn_stats: data has %d elements per partition: at most %d (nl.tile_size.bn_stats_fmax); "
                         "call it per chunk and aggregate with bn_aggr" % (F, BN_STATS_FMAX))
    if out.shape[0] != P or n != 6:
        raise ValueError("bn_stats: dst %s must hold 6 elements in each of data's %d partitions" % (list(out.shape), P))
    _trace.current().call("bn_stats", dst=o, src=d)
    return out if legacy else None


def bn_aggr(dst=None, data=None, mask=None, dtype=None, name=None, **kw):
    """bn_aggr: per partition, the (count, mean, variance * count) triples of one or more bn_stats
    combined into the mean and the variance (2 elements). Legacy bn_aggr(data, mask=, dtype=)
    returns a new (P, 2) tile; NKI 0.6 bn_aggr(dst, data)."""
    legacy = data is None
    if legacy:
        dst, data = None, dst
    data, P, F = _tile(data, "data", "bn_aggr")
    if F % 3:
        raise ValueError("bn_aggr: data has %d elements per partition: bn_stats' (count, mean, variance * count) "
                         "triples make a multiple of 3" % F)
    out = dst if dst is not None else _new((P, 2), dtype, data)
    out, _, n = _tile(out, "dst", "bn_aggr")
    if out.shape[0] != P or n != 2:
        raise ValueError("bn_aggr: dst %s must hold 2 elements (mean, variance) in each of data's %d partitions"
                         % (list(out.shape), P))
    d, o = _masked(mask, data, out)
    if d is not None:
        _trace.current().call("bn_aggr", dst=o, src=d)
    return out if legacy else None


def _scalar(v, what, call, P):
    """A per-partition operand: a number, or a (P, 1) tile."""
    if isinstance(v, NkiTensor):
        v, q, n = _tile(v, what, call)
        if q != P or n != 1:
            raise ValueError("%s: %s tile %s must be (%d, 1): one value per partition of the data"
                             % (call, what, list(v.shape), P))
        return None, v
    if v is None:
        raise TypeError("%s: %s is required (a number or a (P, 1) tile)" % (call, what))
    try:
        return float(v), None
    except (TypeError, ValueError):
        raise TypeError("%s: %s=%r: want a number or a (P, 1) tile" % (call, what, v)) from None


def _same(x, what, P, F, call):
    x, q, n = _tile(x, what, call)
    if q != P or n != F:
        raise ValueError("%s: %s %s must have the data's %d partitions and %d elements per partition"
                         % (call, what, list(x.shape), P, F))
    return x


_SCAN = ("dst", "data0", "data1", "initial", "op0", "op1", "reverse0", "reverse1")


def tensor_tensor_scan(*args, **kw):
    """tensor_tensor_scan: per partition, along the free elements in order,
    result[i] = op1(op0(data0[i], result[i-1]), data1[i]) with result[-1] = initial (a number or a
    (P, 1) tile); reverse0 / reverse1 swap op0's / op1's operands. Legacy (data0, data1, initial, op0,
    op1, reverse0, reverse1, dtype=, mask=) returns a new tile; NKI 0.6 takes dst first."""
    # NKI 0.6 puts dst first: three leading tiles followed by an initial value (legacy's fourth
    # positional is op0; legacy's (data0, data1, initial tile) alone leaves initial unnamed)
    t = [a for a in args[:3] if isinstance(a, NkiTensor)]
    new06 = "dst" in kw or len(t) == 3 and (not callable(args[3]) if len(args) > 3 else "initial" in kw)
    a = dict(zip(_SCAN if new06 else _SCAN[1:], args))
    for k, v in kw.items():
        if k in a:
            raise TypeError("tensor_tensor_scan: %s given twice" % k)
        a[k] = v
    call = "tensor_tensor_scan"
    data0, P, F = _tile(a.get("data0"), "data0", call)
    data1 = _same(a.get("data1"), "data1", P, F, call)
    if data0.buffer == "psum" and data1.buffer == "psum":
        raise ValueError("tensor_tensor_scan: data0 and data1 cannot both reside in PSUM")
    op0, op1 = _opname(a.get("op0"), "op0", call), _opname(a.get("op1"), "op1", call)
    val, tile = _scalar(a.get("initial"), "initial", call, P)
    dst = a.get("dst")
    out = dst if dst is not None else _new(data0.shape, a.get("dtype"), data0)
    out = _same(out, "dst", P, F, call)
    o, d0, d1 = _masked(a.get("mask"), out, data0, data1)
    if o is None:
        return None if new06 else out
    kw = {"initial": val, "initial_tile": tile, "reverse0": True if a.get("reverse0") else None,
          "reverse1": True if a.get("reverse1") else None}
    _trace.current().call(call, dst=o, srcs=[d0, d1], alu_op=op0, alu_op1=op1, **kw)
    return None if new06 else out


def scalar_tensor_tensor(dst=None, data=None, op0=None, operand0=None, op1=None, operand1=None, reverse0=False,
                         reverse1=False, dtype=None, mask=None, name=None, **kw):
    """scalar_tensor_tensor: (data <op0> operand0) <op1> operand1 — operand0 a number or a (P, 1)
    tile, operand1 a tile of data's shape; reverse0 makes operand0 op0's lhs, reverse1 operand1
    op1's lhs. Legacy (keywords only, dtype=, mask=) returns a new tile; NKI 0.6 takes dst first."""
    call = "scalar_tensor_tensor"
    data, P, F = _tile(data, "data", call)
    operand1 = _same(operand1, "operand1", P, F, call)
    if data.buffer == "psum" and operand1.buffer == "psum":
        raise ValueError("scalar_tensor_tensor: data and operand1 cannot both reside in PSUM")
    o0, o1 = _opname(op0, "op0", call), _opname(op1, "op1", call)
    val, tile = _scalar(operand0, "operand0", call, P)
    out = dst if dst is not None else _new(data.shape, dtype, data)
    out = _same(out, "dst", P, F, call)
    o, d, b = _masked(mask, out, data, operand1)
    if o is not None:
        kw = {"operand0": val, "operand0_tile": tile, "reverse0": True if reverse0 else None,
              "reverse1": True if reverse1 else None}
        _trace.current().call(call, dst=o, srcs=[d, b], alu_op=o0, alu_op1=o1, **kw)
    return out if dst is None else None
