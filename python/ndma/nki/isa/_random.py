"""nki.isa's reciprocal, dropout and random numbers (docs/nki.md "Random numbers and dropout",
"Compute calls").
reciprocal is one TENSOR_SCALAR word (1.0 / x on the Vector Engine, exact); dropout one call
ndma's Go core computes from SplitMix64 (internal/nkic/random.go), flagged not exact. Both
dialects: legacy calls return a new tile, NKI 0.6 calls take dst first."""
import numbers

from .. import _trace
from .. import language as _nl
from .._tensor import NkiTensor
from ._select import _tile, _free

__all__ = ["reciprocal", "dropout", "rng", "rand2", "set_rng_seed"]

_INTS = ("int32", "uint32", "int16", "uint16", "int8", "uint8")


def reciprocal(dst=None, data=None, dtype=None, mask=None, name=None, **kw):
    """reciprocal: dst = 1.0 / data element for element, in float32, cast to dst's dtype (NKI:
    "performs the reciprocal computation in float32 math"). Legacy: reciprocal(data, dtype=,
    mask=) returns a new tile; NKI 0.6: reciprocal(dst, data). One TENSOR_SCALAR word,
    op0 divide with the operands reversed (1.0 / x)."""
    call = "reciprocal"
    if data is None:  # legacy reciprocal(data)
        dst, data = None, dst
    data = _tile(data, "data", call)
    if dst is None:
        out = _nl.ndarray(data.shape, _trace.dtype_name(dtype) if dtype else data.dtype, _nl.sbuf)
    else:
        out = _tile(dst, "dst", call)
        if out.shape[0] != data.shape[0] or _free(out) != _free(data):
            raise ValueError("%s: dst %s and data %s differ in partitions or elements per partition"
                             % (call, list(out.shape), list(data.shape)))
    d, s = _nl._masked(mask, out, data)
    if d is not None:
        _trace.current().call("tensor_scalar", dst=d, src=s, alu_op="divide", operand0=1.0, reverse0=True)
    return out if dst is None else None


def dropout_call(call, dst, data, prob, dtype, mask, one=False):
    """dropout's checks and its call: prob a number in [0, 1] or a tile — (P, 1), one per
    partition of data (nisa), or one element (nl.dropout, one=True) given to every partition."""
    data = _tile(data, "data" if not one else "x", call)
    pname = "prob" if not one else "rate"
    if dst is None:
        dt = _trace.dtype_name(dtype) if dtype else data.dtype
        out = _nl.ndarray(data.shape, dt, _nl.sbuf)
    else:
        out = _tile(dst, "dst", call)
        if out.shape[0] != data.shape[0] or _free(out) != _free(data):
            raise ValueError("%s: dst %s and data %s differ in partitions or elements per partition"
                             % (call, list(out.shape), list(data.shape)))
    if data.dtype in _INTS and out.dtype != data.dtype:
        raise TypeError("%s: data is %s, the output %s: NKI's output type must match an integer input"
                        % (call, data.dtype, out.dtype))
    kw = {}
    if isinstance(prob, NkiTensor):
        _tile(prob, pname, call)
        if data.dtype in _INTS and prob.dtype != "float32":
            raise TypeError("%s: %s is %s; with integer data NKI takes a float32 probability" % (call, pname, prob.dtype))
        if one and _nl._count(prob.shape) == 1:
            p = prob._view(prob.offset, [(0, data.shape[0]), (0, 1)], prob.indirect)  # every partition reads it
        elif one:  # one rate per partition, as nki-samples' flash_fwd passes dropout_p_tensor[:, 0]
            if prob.shape[0] != data.shape[0] or _nl._count(prob.shape) != prob.shape[0]:
                raise ValueError("%s: rate %s: want a scalar, a tile with 1 element or one value per partition of x (%d)"
                                 % (call, list(prob.shape), data.shape[0]))
            p = prob._view(prob.offset, [prob.dims[0], (0, 1)], prob.indirect)
        else:
            if prob.shape[0] != data.shape[0] or _free(prob) != 1:
                raise ValueError("%s: prob %s: want a scalar or a tile of shape (%d, 1), one per partition of data"
                                 % (call, list(prob.shape), data.shape[0]))
            p = prob
        srcs = [data, p]
    else:
        if isinstance(prob, bool) or not isinstance(prob, numbers.Real):
            raise TypeError("%s: %s must be a number or a tile, not %r" % (call, pname, type(prob).__name__))
        if not 0.0 <= float(prob) <= 1.0:
            raise ValueError("%s: %s %r is not a probability in [0, 1]" % (call, pname, prob))
        srcs, kw = [data], {"value": float(prob)}
    if mask is not None:
        views = _nl._masked(mask, out, srcs[0])
        if views[0] is None:
            return out if dst is None else None
        if len(srcs) == 2 and views[1].shape[0] != srcs[1].shape[0]:
            raise NotImplementedError("ndma.nki: %s with a tile %s and a mask cutting the partitions" % (call, pname))
        out_v, srcs = views[0], [views[1]] + srcs[1:]
    else:
        out_v = out
    _trace.current().call("dropout", dst=out_v, srcs=srcs, **kw)
    return out if dst is None else None


def dropout(dst=None, data=None, prob=None, mask=None, dtype=None, name=None, **kw):
    """dropout: dst = 0 where a random draw falls below the drop probability prob, else data
    ("If the probability is 1.0, all elements are replaced with zeros. If the probability is 0.0,
    all elements are kept with their original values"); prob a number or a (P, 1) tile. Legacy:
    dropout(data, prob, mask=, dtype=) returns a new tile; NKI 0.6: dropout(dst, data, prob)."""
    if prob is None and data is not None:  # legacy dropout(data, prob)
        dst, data, prob = None, dst, data
    if prob is None:
        raise TypeError("dropout: prob is required")
    return dropout_call("dropout", dst, data, prob, dtype, mask)


def rng(dst=None, engine=None, name=None, **kw):
    """rng(dst): "32 random bits per element", each "truncated to the specified data type, taking
    the least significant bits"; dst an integer tile."""
    call = "rng"
    dst = _tile(dst, "dst", call)
    if dst.dtype not in _INTS:
        raise TypeError("%s: dst is %s; NKI: \"The output dst tile must be an integer type\"" % (call, dst.dtype))
    if getattr(engine, "value", engine) == "gpsimd" and dst.buffer != "sbuf":
        raise ValueError("%s: dst is in %s; GpSimd cannot access PSUM" % (call, dst.buffer))
    _trace.current().call("rng", dst=dst)


def rand2(dst=None, min=None, max=None, name=None, **kw):
    """rand2(dst, min, max): uniform values in [min, max] (FP32, cast to dst's dtype); min and max
    numbers or (P, 1) tiles; NeuronCore-v4 and newer (trn3)."""
    call = "rand2"
    dst = _tile(dst, "dst", call)
    args = {}
    for what, v, nf, tf in (("min", min, "operand0", "operand0_tile"), ("max", max, "operand1", "operand1_tile")):
        if isinstance(v, NkiTensor):
            _tile(v, what, call)
            if v.shape[0] != dst.shape[0] or _free(v) != 1:
                raise ValueError("%s: %s %s: want a number or a tile of shape (%d, 1)" % (call, what, list(v.shape), dst.shape[0]))
            args[tf] = v
        elif isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError("%s: %s must be a number or a (P, 1) tile, not %r" % (call, what, type(v).__name__))
        else:
            args[nf] = float(v)
    if "operand0" in args and "operand1" in args and not args["operand0"] < args["operand1"]:
        raise ValueError("%s: min %r is not below max %r (NKI: \"min < max for valid range\")" % (call, min, max))
    if _trace.current().target != "trn3":
        raise ValueError("%s: NeuronCore-v4 and newer (trn3) only, not %s" % (call, _trace.current().target))
    _trace.current().call("rand2", dst=dst, **args)


def set_rng_seed(src_seeds=None, name=None, **kw):
    """set_rng_seed(src_seeds): the generator reseeded with a [1, 1] tile's 32-bit value (as
    nl.random_seed)."""
    call = "set_rng_seed"
    src_seeds = _tile(src_seeds, "src_seeds", call)
    if _nl._count(src_seeds.shape) != 1:
        raise ValueError("%s: src_seeds %s: NKI takes a [1, 1] tile" % (call, list(src_seeds.shape)))
    _nl.random_seed(src_seeds)
