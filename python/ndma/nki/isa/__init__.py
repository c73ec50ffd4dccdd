"""ndma.nki.isa: the names of neuronxcc.nki.isa and nki.isa (docs/nki.md).

Both dialects: legacy calls return a new tile (dst omitted), NKI 0.6 calls
take dst first; told apart by whether dst is given.
"""
from .. import _trace
from .. import language as _nl
from .._tensor import NkiTensor
from .constants import dge_mode, oob_mode, engine

__all__ = ["dma_copy", "dma_transpose", "dma_compute", "tensor_copy", "tensor_tensor", "tensor_scalar",
           "activation", "memset", "iota", "nc_matmul", "nc_transpose", "dge_mode", "oob_mode", "engine"]


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
    if op is None and data2 is not None and not isinstance(data2, NkiTensor):  # legacy (data1, data2, op)
        dst, data1, data2, op = None, dst, data1, data2
    out, new = _out(dst, data1, dtype)
    _trace.current().call("tensor_tensor", dst=out, srcs=[data1.ap_json(), data2.ap_json()], alu_op=_opname(op))
    return out if new else None


def tensor_scalar(dst=None, data=None, op0=None, operand0=None, reverse0=False, op1=None, operand1=None, dtype=None,
                  name=None, **kw):
    if data is None or not isinstance(dst, NkiTensor) or op0 is None and callable(data):
        pass
    out, new = _out(dst, data, dtype)
    _trace.current().call("tensor_scalar", dst=out, src=data, alu_op=_opname(op0), operand0=float(operand0),
                          alu_op1=_opname(op1), operand1=None if operand1 is None else float(operand1))
    return out if new else None


def activation(dst=None, op=None, data=None, bias=None, scale=1.0, dtype=None, name=None, **kw):
    if data is None and isinstance(op, NkiTensor):  # legacy activation(op, data)
        dst, op, data = None, dst, op
    out, new = _out(dst, data, dtype)
    b = None if bias is None or isinstance(bias, NkiTensor) else float(bias)
    _trace.current().call("activation", dst=out, src=data, func=_opname(op), scale=float(scale), bias=b)
    return out if new else None


def memset(dst=None, value=0.0, shape=None, dtype=None, name=None, **kw):
    out = dst if dst is not None else _nl.ndarray(shape, dtype, _nl.sbuf)
    _trace.current().call("memset", dst=out, value=float(value))
    return out if dst is None else None


def iota(dst, coefs, value=0.0, **kw):
    """ndma's form: dst[i0, i1, ...] = value + sum(coefs[d] * i_d)."""
    _trace.current().call("iota", dst=dst, coefs=[int(c) for c in coefs], value=float(value))


def nc_matmul(dst=None, stationary=None, moving=None, accumulate=False, name=None, **kw):
    if moving is None:  # legacy nc_matmul(stationary, moving)
        dst, stationary, moving = None, dst, stationary
    out = dst
    if out is None:
        out = _nl.ndarray((stationary.shape[1], moving.shape[1]), "float32", _nl.psum)
    _trace.current().call("nc_matmul", dst=out, stationary=stationary.ap_json(), moving=moving.ap_json(),
                          accumulate=bool(accumulate) or None)
    return out if dst is None else None


def nc_transpose(dst=None, data=None, engine=None, name=None, **kw):
    if data is None:
        dst, data = None, dst
    out = dst if dst is not None else _nl.ndarray((data.shape[1], data.shape[0]), data.dtype, _nl.psum)
    _trace.current().call("nc_transpose", dst=out, src=data)
    return out if dst is None else None
