"""nki.isa's range_select, select_reduce and nc_match_replace8 and nki.language's
gather_flattened (docs/nki.md "Selection"): each one call ndma's Go core computes as a loop
(internal/nkic/gather.go), flagged not exact: ndma's ISA tables have no word for it."""
import numbers

from .. import _trace
from .. import language as _nl
from .._tensor import NkiTensor
from ._select import _tile, _number, _free, _opname, _CMPS, _INDEX_DTYPES

__all__ = ["range_select", "select_reduce", "nc_match_replace8", "nc_n_gather"]

_INTS = ("int32", "uint32", "int16", "uint16", "int8", "uint8")
_FLOATS = ("float32", "float16", "bfloat16", "float8e4", "float8e5")
LOWEST_F32 = -3.4028234663852886e38  # range_select's default on_false_value (FP32_MIN; INFERRED)


def _rows(t, what, call, like):
    """t checked to have like's partitions and elements per partition."""
    if t.shape[0] != like.shape[0] or _free(t) != _free(like):
        raise ValueError("%s: %s %s and %s differ in partitions or elements per partition"
                         % (call, what, list(t.shape), list(like.shape)))
    return t


def _per_part(v, what, call, like):
    """A per-partition operand: {field: number} or {tile field: a (P, 1) tile}."""
    if isinstance(v, NkiTensor):
        _tile(v, what, call)
        if v.shape[0] != like.shape[0] or _free(v) != 1:
            raise ValueError("%s: %s %s: want a number or a tile of shape (%d, 1)"
                             % (call, what, list(v.shape), like.shape[0]))
        return v
    return _number(v, what, call)


def _reduce(call, reduce_res, reduce_cmd, reduce_op, like):
    cmd = getattr(reduce_cmd, "value", reduce_cmd) or "idle"
    if cmd not in ("idle", "reset_reduce"):
        raise NotImplementedError("ndma.nki: %s with reduce_cmd=%s (the accumulator across instructions); "
                                  "idle and reset_reduce run" % (call, cmd))
    op = _opname(reduce_op) if reduce_op is not None else "maximum"
    if op not in ("maximum", "max", "amax"):
        raise ValueError("%s: reduce_op %s: NKI's reduce_op only supports max" % (call, op))
    if reduce_res is None:
        return {}
    _tile(reduce_res, "reduce_res", call)
    if reduce_res.shape[0] != like.shape[0] or _free(reduce_res) != 1:
        raise ValueError("%s: reduce_res %s must be a vector of shape (%d, 1)" % (call, list(reduce_res.shape), like.shape[0]))
    if reduce_res.dtype not in _FLOATS:
        raise TypeError("%s: reduce_res is %s; NKI: its dtype must be a float type" % (call, reduce_res.dtype))
    return {"reduce_res": reduce_res}


def _cmp(op, what, call):
    n = _opname(op) if op is not None else None
    if n not in _CMPS:
        raise ValueError("%s: %s %s: want one of nl.%s" % (call, what, n, ", nl.".join(_CMPS)))
    return n


def range_select(dst=None, on_true_tile=None, comp_op0=None, comp_op1=None, bound0=None, bound1=None,
                 reduce_cmd=None, reduce_res=None, reduce_op=None, range_start=0, on_false_value=LOWEST_F32,
                 mask=None, dtype=None, name=None, **kw):
    """range_select: dst[p, i] = on_true_tile[p, i] where comp_op0(i + range_start, bound0[p]) and
    comp_op1(i + range_start, bound1[p]) both hold (i the free index), else on_false_value;
    bound0/bound1 (P, 1) tiles or numbers; reduce_res (optional) each row's max. NKI 0.6 names
    dst; the legacy keyword form (no dst) returns a new tile of on_true_tile's shape."""
    call = "range_select"
    src = _tile(on_true_tile, "on_true_tile", call)
    if dst is None:
        out = _nl.ndarray(src.shape, _trace.dtype_name(dtype) if dtype else src.dtype, _nl.sbuf)
    else:
        out = _rows(_tile(dst, "dst", call), "dst", call, src)
    c0, c1 = _cmp(comp_op0, "comp_op0", call), _cmp(comp_op1, "comp_op1", call)
    args = {"alu_op": c0, "alu_op1": c1, "range_start": _number(range_start, "range_start", call),
            "value": _number(on_false_value, "on_false_value", call)}
    for what, b, tf, nf in (("bound0", bound0, "operand0_tile", "operand0"), ("bound1", bound1, "operand1_tile", "operand1")):
        if b is None:
            raise TypeError("%s: %s is required" % (call, what))
        v = _per_part(b, what, call, src)
        args[tf if isinstance(v, NkiTensor) else nf] = v
    args.update(_reduce(call, reduce_res, reduce_cmd, reduce_op, src))
    if mask is not None:
        raise NotImplementedError("ndma.nki: range_select with mask= (bounds compare the free index)")
    _trace.current().call(call, dst=out, src=src, **args)
    return out if dst is None else None


def select_reduce(dst=None, predicate=None, on_true=None, on_false=None, reduce_res=None, reduce_cmd=None,
                  reduce_op=None, reverse_pred=False, mask=None, dtype=None, name=None, **kw):
    """select_reduce: "np.where(predicate, on_true, on_false)" (predicate negated with reverse_pred)
    into dst, on_false a number or a (P, 1) tile; reduce_res (optional) "np.max(result, axis=1,
    keepdims=True)"."""
    call = "select_reduce"
    dst = _tile(dst, "dst", call)
    pred = _tile(predicate, "predicate", call)
    on = _tile(on_true, "on_true", call)
    _rows(pred, "predicate", call, on)
    _rows(dst, "dst", call, on)
    if pred.dtype not in _INTS:
        raise TypeError("%s: predicate is %s; NKI takes an integer type" % (call, pred.dtype))
    if on.dtype in ("int32", "uint32"):
        raise TypeError("%s: on_true is %s; NKI: any dtype except tfloat32, int32, uint32" % (call, on.dtype))
    if pred.buffer == "psum" and on.buffer == "psum":
        raise ValueError("%s: on_true and predicate are both in PSUM; NKI: \"not both simultaneously\"" % call)
    if on_false is None:
        raise TypeError("%s: on_false is required" % call)
    v = _per_part(on_false, "on_false", call, on)
    args = {"operand0_tile": v} if isinstance(v, NkiTensor) else {"value": v}
    if reverse_pred:
        args["reverse0"] = True
    args.update(_reduce(call, reduce_res, reduce_cmd, reduce_op, on))
    if mask is not None:
        raise NotImplementedError("ndma.nki: select_reduce with mask=")
    _trace.current().call(call, dst=dst, srcs=[pred, on], **args)
    return None


def nc_match_replace8(dst=None, data=None, vals=None, imm=None, dst_idx=None, mask=None, dtype=None, name=None, **kw):
    """nc_match_replace8: dst = data with the first occurrence of each of the 8 vals (per
    partition) replaced by imm — vals taken slot 7 first, each matching the first element not
    matched before; dst_idx (optional, (P, 8) uint32/uint16) the matched indices. NKI 0.6 names
    dst; without it a new tile of data's shape and dtype= is returned."""
    call = "nc_match_replace8"
    data = _tile(data, "data", call)
    vals = _tile(vals, "vals", call)
    if vals.shape[0] != data.shape[0] or _free(vals) != 8:
        raise ValueError("%s: vals %s: want %d partitions of 8 values (data's partitions)"
                         % (call, list(vals.shape), data.shape[0]))
    if not 1 <= _free(data) <= 16384:
        raise ValueError("%s: data %s has %d elements per partition; ndma reads 1 to 16,384 (as max8)"
                         % (call, list(data.shape), _free(data)))
    fill = _number(imm, "imm", call)
    if dst is None:
        out = _nl.ndarray(data.shape, _trace.dtype_name(dtype) if dtype else data.dtype, _nl.sbuf)
    else:
        out = _rows(_tile(dst, "dst", call), "dst", call, data)
    args = {"value": fill}
    if dst_idx is not None:
        _tile(dst_idx, "dst_idx", call)
        if dst_idx.shape[0] != data.shape[0] or _free(dst_idx) != 8:
            raise ValueError("%s: dst_idx %s: want %d partitions of 8 indices" % (call, list(dst_idx.shape), data.shape[0]))
        if dst_idx.dtype not in _INDEX_DTYPES:
            raise TypeError("%s: dst_idx is %s; ndma writes uint32 or uint16 indices" % (call, dst_idx.dtype))
        args["dst_idx"] = dst_idx
    if mask is not None:
        raise NotImplementedError("ndma.nki: nc_match_replace8 with mask=")
    _trace.current().call(call, dst=out, srcs=[data, vals], **args)
    return out if dst is None else None


def gather_flattened(data, indices, axis=0, dtype=None, mask=None, **kw):
    """nl.gather_flattened: out[p, j…] = data[p].ravel()[indices[p, j…]] — "np.take_along_axis" on
    each partition's flattened free elements; indices uint32, the output of indices' shape and
    data's dtype (or dtype=). An index past the row raises ndma.nki.OOBError (NKI: "garbage")."""
    call = "nl.gather_flattened"
    data = _tile(data, "data", call)
    indices = _tile(indices, "indices", call)
    if not 2 <= data.ndim <= 4 or not 2 <= indices.ndim <= 4:
        raise ValueError("%s: data %s and indices %s must be 2-, 3- or 4-dimensional"
                         % (call, list(data.shape), list(indices.shape)))
    if indices.dtype != "uint32":
        raise TypeError("%s: indices are %s; NKI: \"The indices tensor must contain uint32 values\"" % (call, indices.dtype))
    if indices.shape[0] != data.shape[0]:
        raise ValueError("%s: indices %s and data %s differ in partitions" % (call, list(indices.shape), list(data.shape)))
    if axis not in (0, None) and not isinstance(axis, numbers.Integral):
        raise TypeError("%s: axis must be an int" % call)
    if mask is not None:
        raise NotImplementedError("ndma.nki: gather_flattened with mask=")
    out = _nl.ndarray(indices.shape, _trace.dtype_name(dtype) if dtype else data.dtype, _nl.sbuf)
    _trace.current().call("gather_flattened", dst=out, srcs=[data, indices])
    return out



def nc_n_gather(dst=None, data=None, indices=None, name=None, **kw):
    """nc_n_gather(dst, data, indices): per partition, data's flattened free elements gathered by
    the uint32 indices into dst (gather_flattened's rule); "All input and output tiles … must be in
    SBUF", dst of data's dtype, its elements per partition indices'."""
    call = "nc_n_gather"
    dst = _tile(dst, "dst", call)
    data = _tile(data, "data", call)
    indices = _tile(indices, "indices", call)
    for what, t in (("dst", dst), ("data", data), ("indices", indices)):
        if t.buffer != "sbuf":
            raise ValueError("%s: %s is in %s; NKI: all tiles must be in SBUF (GpSimd cannot access PSUM)" % (call, what, t.buffer))
    if indices.dtype != "uint32":
        raise TypeError("%s: indices are %s; NKI: \"The indices tile must be uint32\"" % (call, indices.dtype))
    if dst.dtype != data.dtype:
        raise TypeError("%s: dst is %s, data %s; NKI: dst must have the same data type as data" % (call, dst.dtype, data.dtype))
    if not dst.shape[0] == data.shape[0] == indices.shape[0]:
        raise ValueError("%s: dst %s, data %s and indices %s differ in partitions"
                         % (call, list(dst.shape), list(data.shape), list(indices.shape)))
    if _free(dst) != _free(indices):
        raise ValueError("%s: dst %s and indices %s differ in elements per partition" % (call, list(dst.shape), list(indices.shape)))
    _trace.current().call("gather_flattened", dst=dst, srcs=[data, indices])
    return None
