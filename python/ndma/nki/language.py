"""ndma.nki.language: the names of neuronxcc.nki.language and nki.language (docs/nki.md)."""
import numpy as _np

from . import _trace
from ._tensor import NkiTensor

# buffers
sbuf, psum, hbm, shared_hbm, private_hbm = "sbuf", "psum", "hbm", "shared_hbm", "private_hbm"


class _DType:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "nl." + self.name


float32, float16, bfloat16 = _DType("float32"), _DType("float16"), _DType("bfloat16")
int32, uint32, int16, uint16, int8, uint8 = (_DType(n) for n in ("int32", "uint32", "int16", "uint16", "int8", "uint8"))
float8_e4m3, float8_e5m2 = _DType("float8_e4m3"), _DType("float8_e5m2")
tfloat32 = float32


class tile_size:
    pmax = 128
    psum_fmax = 512
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512


def par_dim(n):
    return n


def affine_range(*a):
    return range(*a)


sequential_range = static_range = affine_range


def ndarray(shape, dtype, buffer=sbuf, name=None, **kw):
    buf = buffer if isinstance(buffer, str) else getattr(buffer, "name", str(buffer))
    return NkiTensor(tuple(shape), _trace.dtype_name(dtype), buf, name=name)


def zeros(shape, dtype, buffer=sbuf, name=None, **kw):
    t = ndarray(shape, dtype, buffer, name)
    _trace.current().call("memset", dst=t, value=0.0)
    return t


def empty_like(t, buffer=None, **kw):
    return ndarray(t.shape, t.dtype, buffer or t.buffer)


def _tile(v, like):
    """v as a tile: a scalar broadcast into a new tile of like's shape."""
    if isinstance(v, NkiTensor):
        return v
    t = ndarray(like.shape, like.dtype, sbuf)
    _trace.current().call("memset", dst=t, value=float(v))
    return t


def _assign(dst, src):
    """dst = src: a DMA when either side is in HBM, else a tensor copy (matched by element count)."""
    op = "dma_copy" if "hbm" in dst.buffer or "hbm" in src.buffer else "tensor_copy"
    _trace.current().call(op, dst=dst, src=src)


def load(src, mask=None, dtype=None, **kw):
    """Legacy nl.load: a new SBUF tile holding src (a 1-D load is a (P, 1) tile)."""
    shape = src.shape if len(src.shape) > 1 else (src.shape[0], 1)
    t = ndarray(shape, dtype and _trace.dtype_name(dtype) or src.dtype, sbuf)
    _trace.current().call("load", dst=t, src=src)
    return t


def store(dst, value, mask=None, **kw):
    _trace.current().call("store", dst=dst, src=_tile(value, dst))


def copy(src, dtype=None, **kw):
    t = ndarray(src.shape, dtype and _trace.dtype_name(dtype) or src.dtype, sbuf)
    _trace.current().call("tensor_copy", dst=t, src=src)
    return t


def _binary(op):
    def f(x, y, dtype=None, **kw):
        like = x if isinstance(x, NkiTensor) else y
        t = ndarray(like.shape, dtype and _trace.dtype_name(dtype) or like.dtype, sbuf)
        if isinstance(y, NkiTensor) and isinstance(x, NkiTensor):
            _trace.current().call("tensor_tensor", dst=t, srcs=[x.ap_json(), y.ap_json()], alu_op=op)
        else:
            tile, scalar = (x, y) if isinstance(x, NkiTensor) else (y, x)
            _trace.current().call("tensor_scalar", dst=t, src=tile, alu_op=op, operand0=float(scalar))
        return t
    f.__name__ = op
    return f


add, subtract, multiply, divide = _binary("add"), _binary("subtract"), _binary("multiply"), _binary("divide")
maximum, minimum = _binary("maximum"), _binary("minimum")


def matmul(x, y, transpose_x=False, **kw):
    """nl.matmul: x @ y into PSUM (fp32); with transpose_x, x is (K, M) already."""
    if not transpose_x:
        xt = ndarray((x.shape[1], x.shape[0]), x.dtype, sbuf)
        _trace.current().call("transpose", dst=xt, src=x)
        x = xt
    t = ndarray((x.shape[1], y.shape[1]), "float32", psum)
    _trace.current().call("matmul", dst=t, stationary=x.ap_json(), moving=y.ap_json())
    return t


def transpose(x, **kw):
    t = ndarray((x.shape[1], x.shape[0]), x.dtype, sbuf)
    _trace.current().call("transpose", dst=t, src=x)
    return t


def arange(*a):
    return _np.arange(*a)
