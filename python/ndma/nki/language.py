"""ndma.nki.language: the names of neuronxcc.nki.language and nki.language (docs/nki.md)."""
import numpy as _np

from . import _trace
from ._tensor import NkiTensor, IndexExpr, Mask, arange, mgrid, mask_ranges as _ranges, restrict as _restrict  # noqa: F401

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
bool_ = uint8


class tile_size:
    pmax = 128
    psum_fmax = 512
    psum_pmax = 128
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512  # nisa.bn_stats' most elements per partition (the NKI API reference)


def ds(start, size):
    """nl.ds(start, size): the slice start:start+size."""
    return slice(start, start + size)


class _ParDim(int):
    """An int marked as a shape's partition axis (nl.par_dim)."""


def par_dim(n):
    """nl.par_dim(n): marks the partition dimension of a shape (the first, or a later
    one: the axes before it are blocks laid along each partition, ndarray)."""
    return _ParDim(n)


def affine_range(*a, **kw):
    return range(*a)


def sequential_range(*a, **kw):
    return range(*a)


def static_range(*a, **kw):
    return range(*a)


def _buf(buffer):
    return buffer if isinstance(buffer, str) else getattr(buffer, "name", str(buffer))


def ndarray(shape, dtype, buffer=sbuf, name=None, **kw):
    if isinstance(shape, int):
        shape = (shape,)
    buf = buffer if type(buffer) is str else _buf(buffer)
    dt = _trace.dtype_name(dtype)
    sess = _trace._current[-1] if _trace._current else None
    if buf == shared_hbm and sess is not None and sess.grid:
        return _shared(sess, tuple(int(n) for n in shape), dt, buf, name)
    k = next((i for i, n in enumerate(shape) if type(n) is _ParDim), 0) if "hbm" not in buf else 0
    if k == 0:
        return NkiTensor(shape, dt, buf, name=name)
    # (B.., par_dim(P), F..): a (P, B..·F..) tile, each partition holding the blocks one after
    # another, seen through a view of the given axis order (the legacy tutorials' tile arrays)
    shape = tuple(int(n) for n in shape)
    P, row = shape[k], 1
    for n in shape[:k] + shape[k + 1:]:
        row *= n
    base = NkiTensor((P, row), dt, buf, name=name)
    dims, s = [], 1
    for i in reversed(range(len(shape))):
        if i == k:
            dims.append((row, P))
        else:
            dims.append((s, shape[i]))
            s *= shape[i]
    dims.reverse()
    return base._view(0, dims)


def _shared(sess, shape, dt, buf, name):
    """A shared_hbm tensor under an SPMD grid: instance 0 makes it, each later
    instance's n-th shared_hbm ndarray is instance 0's n-th (NKI: one tensor the
    programs share)."""
    k = sess.nshared
    sess.nshared += 1
    if not any(sess.program_ids):
        t = NkiTensor(shape, dt, buf, name=name)
        sess.shared.append(t)
        return t
    if k >= len(sess.shared) or sess.shared[k].shape != shape or sess.shared[k].dtype != dt:
        raise ValueError("nl.ndarray(%s, %s, shared_hbm) in program %s: instance 0 made no such shared tensor "
                         "at this point (its shared_hbm tensors are shared by position)"
                         % (list(shape), dt, list(sess.program_ids)))
    return sess.shared[k]


def program_id(axis):
    """nl.program_id(axis): this SPMD instance's index on the launch grid's axis (0 without a grid)."""
    sess = _trace.current()
    return sess.program_ids[axis] if axis < len(sess.program_ids) else 0


def num_programs(axes=None):
    """nl.num_programs(axes): the launch grid's size on axes (1 without a grid); None: all instances."""
    g = _trace.current().grid
    if axes is None:
        return _count(g)
    axes = (axes,) if isinstance(axes, int) else axes
    return _count([g[a] if a < len(g) else 1 for a in axes])

def program_ndim():
    """nl.program_ndim(): the launch grid's number of axes (0 without a grid)."""
    return len(_trace.current().grid)


def zeros(shape, dtype, buffer=sbuf, name=None, **kw):
    t = ndarray(shape, dtype, buffer, name)
    _trace.current().call("memset", dst=t, value=0.0)
    return t


def full(shape, fill_value, dtype, buffer=sbuf, name=None, **kw):
    t = ndarray(shape, dtype, buffer, name)
    _trace.current().call("memset", dst=t, value=float(fill_value))
    return t


def ones(shape, dtype, buffer=sbuf, name=None, **kw):
    return full(shape, 1.0, dtype, buffer, name)


def empty_like(t, dtype=None, buffer=None, **kw):
    return ndarray(t.shape, dtype or t.dtype, buffer or t.buffer)


def zeros_like(t, dtype=None, buffer=None, **kw):
    return zeros(t.shape, dtype or t.dtype, buffer or t.buffer)


def _tile(v, like):
    """v as a tile: a scalar broadcast into a new tile of like's shape."""
    if isinstance(v, NkiTensor):
        return v
    t = ndarray(like.shape, like.dtype, sbuf)
    _trace.current().call("memset", dst=t, value=float(v))
    return t


def _masked(mask, *views):
    """The views cut by mask (each None where the mask leaves nothing)."""
    if mask is None:
        return views
    r = _ranges(views, mask)
    return [_restrict(v, r) for v in views]


def _assign(dst, src, mask=None):
    """dst = src: a DMA when either side is in HBM, else a tensor copy (matched by element count)."""
    dst, src = _masked(mask, dst, src)
    if dst is None:
        return
    op = "dma_copy" if "hbm" in dst.buffer or "hbm" in src.buffer else "tensor_copy"
    _trace.current().call(op, dst=dst, src=src)


def load(src, mask=None, dtype=None, **kw):
    """Legacy nl.load: a new SBUF tile holding src (a 1-D load is a (P, 1) tile; one element,
    `seed[0]` of a 1-D tensor, a (1, 1) tile)."""
    shape = src.shape if len(src.shape) > 1 else (src.shape[0], 1) if src.shape else (1, 1)
    t = ndarray(shape, _trace.dtype_name(dtype) if dtype else src.dtype, sbuf)
    dst = t if len(src.shape) != 1 else t[:, 0]
    d, s = (dst, src) if mask is None else _masked(mask, dst, src)
    if d is not None:
        _trace.current().call("load", dst=d, src=s)
    return t


def load_transpose2d(src, mask=None, dtype=None, **kw):
    """Legacy nl.load_transpose2d: src (F, P) in HBM into a new SBUF tile (P, F),
    a load through the view with the two axes' steps swapped (one strided DMA)."""
    if len(src.shape) != 2 or "hbm" not in src.buffer:
        raise ValueError("load_transpose2d: want a 2-D HBM tensor, not %s %s" % (src.buffer, src.shape))
    t = src._view(src.offset, [src.dims[1], src.dims[0]], src.indirect, [src.tags[1], src.tags[0]])
    t.checks = [(1 - c[0],) + tuple(c[1:]) for c in src.checks]
    return load(t, mask=mask, dtype=dtype)


def shared_identity_matrix(n, dtype=float32, **kw):
    """nl.shared_identity_matrix(n, dtype): an (n, n) identity tile in SBUF, written by
    the ``identity`` call (MEMSET words, docs/nki.md "Compute calls")."""
    t = ndarray((n, n), dtype, sbuf)
    _trace.current().call("identity", dst=t)
    return t


def store(dst, value, mask=None, **kw):
    if isinstance(value, _np.ndarray) and value.ndim > 0:  # NKI stores tiles: an array is the host's
        raise TypeError("nl.store: value is a NumPy array %s; store a tile (nl.load it, or build it on-chip) "
                        "or a scalar" % (value.shape,))
    v = value if type(value) is NkiTensor else _tile(value, dst)
    if len(dst.shape) == 1 and len(v.shape) == 2 and v.shape[1] == 1:
        v = v[:, 0]
    d, s = (dst, v) if mask is None else _masked(mask, dst, v)
    if d is not None:
        _trace.current().call("store", dst=d, src=s)


def copy(src, dtype=None, mask=None, **kw):
    t = ndarray(src.shape, _trace.dtype_name(dtype) if dtype else src.dtype, sbuf)
    d, s = _masked(mask, t, src)
    if d is not None:
        _trace.current().call("tensor_copy", dst=d, src=s)
    return t


def _binary_into(dst, x, y, op, mask=None):
    sess = _trace.current()
    if isinstance(x, NkiTensor) and isinstance(y, NkiTensor):
        if x.shape != y.shape and _count(y.shape) != _count(x.shape):
            y = _broadcast(y, x.shape)
        d, a, b = (dst, x, y) if mask is None else _masked(mask, dst, x, y)
        if d is not None:
            sess.call("tensor_tensor", dst=d, srcs=[a, b], alu_op=op)
        return
    if isinstance(x, NkiTensor):
        tile, scalar, rev = x, y, False
    else:
        tile, scalar, rev = y, x, True
    if rev and op in ("subtract", "divide"):  # scalar - tile: through a tile of the scalar
        _binary_into(dst, _tile(scalar, tile), tile, op, mask)
        return
    d, a = _masked(mask, dst, tile)
    if d is not None:
        sess.call("tensor_scalar", dst=d, src=a, alu_op=op, operand0=float(scalar))


def _count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _broadcast(t, shape):
    """t broadcast to shape along its size-1 axes (a step of 0)."""
    if len(t.shape) != len(shape):
        raise ValueError("shapes %s and %s do not broadcast" % (t.shape, shape))
    dims = []
    for (step, n), want in zip(t.dims, shape):
        if n == want:
            dims.append((step, n))
        elif n == 1:
            dims.append((0, want))
        else:
            raise ValueError("shapes %s and %s do not broadcast" % (t.shape, shape))
    return t._view(t.offset, dims, t.indirect)


def _binary(op):
    def f(x, y, dtype=None, mask=None, **kw):
        like = x if isinstance(x, NkiTensor) else y
        if isinstance(x, NkiTensor) and isinstance(y, NkiTensor) and _count(y.shape) > _count(x.shape):
            like = y
        t = ndarray(like.shape, _trace.dtype_name(dtype) if dtype else like.dtype, sbuf)
        if isinstance(x, NkiTensor) and isinstance(y, NkiTensor):
            x = x if x.shape == like.shape else _broadcast(x, like.shape)
            y = y if y.shape == like.shape else _broadcast(y, like.shape)
        _binary_into(t, x, y, op, mask)
        return t
    f.__name__ = op
    return f


add, subtract, multiply, divide = _binary("add"), _binary("subtract"), _binary("multiply"), _binary("divide")
maximum, minimum = _binary("maximum"), _binary("minimum")
equal, not_equal, greater, greater_equal, less, less_equal = (_binary(n) for n in (
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal"))
bitwise_and, bitwise_or, bitwise_xor = _binary("bitwise_and"), _binary("bitwise_or"), _binary("bitwise_xor")


def _unary(func):
    def f(x, dtype=None, mask=None, **kw):
        t = ndarray(x.shape, _trace.dtype_name(dtype) if dtype else x.dtype, sbuf)
        d, s = _masked(mask, t, x)
        if d is not None:
            _trace.current().call("activation", dst=d, src=s, func=func, scale=1.0)
        return t
    f.__name__ = func
    return f


exp, log, tanh, sigmoid, relu, sqrt, rsqrt, gelu, silu, square, abs = (_unary(n) for n in (
    "exp", "log", "tanh", "sigmoid", "relu", "sqrt", "rsqrt", "gelu", "silu", "square", "abs"))
# more of docs/compute.md §14's ACT functions (an ACTIVATE word each; the _dx names are the derivatives)
erf, erf_dx, gelu_dx, gelu_apprx_tanh, gelu_apprx_sigmoid, gelu_apprx_sigmoid_dx, silu_dx = (_unary(n) for n in (
    "erf", "erf_dx", "gelu_dx", "gelu_apprx_tanh", "gelu_apprx_sigmoid", "gelu_apprx_sigmoid_dx", "silu_dx"))
softplus, mish, sign, sin, arctan = (_unary(n) for n in ("softplus", "mish", "sign", "sin", "arctan"))
power, fmod = _binary("power"), _binary("fmod")
logical_and, logical_or, logical_xor = _binary("logical_and"), _binary("logical_or"), _binary("logical_xor")
left_shift, right_shift = _binary("left_shift"), _binary("right_shift")


def _unary_call(name, op, **fields):
    """An element-wise function recorded as one call op(dst=a new SBUF tile of x's dtype or
    dtype=, src=x, **fields): TENSOR_SCALAR forms (one word) or the ``elementwise`` Go loop
    (internal/nkic/unary.go, not exact) for the functions no word computes."""
    def f(x, dtype=None, mask=None, **kw):
        if not isinstance(x, NkiTensor):
            raise TypeError("nl.%s: x must be a tile, not %r" % (name, type(x).__name__))
        t = ndarray(x.shape, _trace.dtype_name(dtype) if dtype else x.dtype, sbuf)
        d, s = _masked(mask, t, x)
        if d is not None:
            _trace.current().call(op, dst=d, src=s, **fields)
        return t
    f.__name__ = name
    return f


reciprocal = _unary_call("reciprocal", "tensor_scalar", alu_op="divide", operand0=1.0, reverse0=True)  # 1.0 / x
negative = _unary_call("negative", "tensor_scalar", alu_op="multiply", operand0=-1.0)
logical_not = _unary_call("logical_not", "tensor_scalar", alu_op="equal", operand0=0.0)  # 1.0 where x is 0
floor, ceil, trunc, cos, tan = (_unary_call(n, "elementwise", func=n) for n in ("floor", "ceil", "trunc", "cos", "tan"))


# -- random numbers and dropout (docs/nki.md "Random numbers and dropout"): ndma's Go core draws
#    from SplitMix64 (internal/nkic/random.go), seeded 0 per kernel run until random_seed; not exact

_FLOATS = ("float32", "float16", "bfloat16", "float8e4", "float8e5")


def rand(shape, dtype=float32, buffer=sbuf, name=None, **kw):
    """nl.rand(shape, dtype=float32): a new tile of uniform random values in [0, 1)."""
    dt = _trace.dtype_name(dtype)
    if dt not in _FLOATS:
        raise TypeError("nl.rand: dtype %s: uniform values in [0, 1) need a float dtype" % dt)
    if isinstance(shape, int):
        shape = (shape,)
    try:
        shape = tuple(int(n) for n in shape)
    except (TypeError, ValueError):
        raise TypeError("nl.rand: shape must be a tuple of ints, not %r" % (shape,)) from None
    if not shape or any(n <= 0 for n in shape):
        raise ValueError("nl.rand: shape %r: want positive sizes" % (shape,))
    if len(shape) == 1:
        shape = (shape[0], 1)
    t = ndarray(shape, dt, buffer)
    if t.buffer not in (sbuf, psum):
        raise ValueError("nl.rand: buffer %s: the engines write SBUF/PSUM tiles" % t.buffer)
    _trace.current().call("rand", dst=t)
    return t


def random_seed(seed, mask=None, **kw):
    """nl.random_seed(seed): reseed the generator nl.rand and dropout draw from — seed a [1, 1]
    SBUF/PSUM tile of a 32-bit value (NKI 0.6) or a Python int (the legacy "32-bit scalar value")."""
    if isinstance(seed, NkiTensor):
        if seed.buffer not in (sbuf, psum):
            raise ValueError("nl.random_seed: seed is in %s; NKI takes a [1, 1] tile on SBUF or PSUM" % seed.buffer)
        if _count(seed.shape) != 1:
            raise ValueError("nl.random_seed: seed %s has %d elements; NKI takes a [1, 1] tile"
                             % (list(seed.shape), _count(seed.shape)))
        _trace.current().call("random_seed", src=seed)
        return
    if isinstance(seed, bool) or not isinstance(seed, (int, _np.integer)):
        raise TypeError("nl.random_seed: seed must be a [1, 1] tile or an int, not %r" % type(seed).__name__)
    if not -(1 << 31) <= int(seed) < 1 << 32:
        raise ValueError("nl.random_seed: seed %d is not a 32-bit value" % int(seed))
    _trace.current().call("random_seed", value=float(int(seed)))


def dropout(x, rate, dtype=None, mask=None, **kw):
    """nl.dropout(x, rate): x with each element zeroed with probability rate ("a scalar value or a
    tile with 1 element"), the kept ones unchanged; a new tile of x's dtype or dtype=."""
    from .isa import _random
    return _random.dropout_call("nl.dropout", None, x, rate, dtype, mask, one=True)


# -- calls NumPy computes on the shared SBUF/PSUM (not ndma's words; flagged not exact)

NUMPY_NOTE = "computed by NumPy in float32 on the shared SBUF/PSUM, not by ndma's words"


def _numpy(op, dst, srcs, fn, engine, **kw):
    sess = _trace.current()

    def run():
        vals = [_trace.to_f32(sess.view(s), s.dtype) for s in srcs]
        out = _np.asarray(fn(*vals), _np.float32)
        v = sess.view(dst)
        if out.shape != v.shape:
            out = out.reshape(v.shape)  # assignment matches by element count
        v[...] = _trace.from_f32(out, dst.dtype)
    sess.numpy_call(op, NUMPY_NOTE, engine, run, dst=dst, **kw)


def matmul(x, y, transpose_x=False, mask=None, **kw):
    """nl.matmul: x @ y into a new PSUM tile (fp32); with transpose_x, x is (K, M) already.
    ndma's Go core compiles it to the PE's LDWEIGHTS and MATMUL words; without
    transpose_x, x (M, K) is first turned on the PE (nisa.nc_transpose into PSUM, a copy
    to SBUF), as NKI's compiler does, where the PE transpose's words apply (else the Go
    core's float32 loop, flagged not exact)."""
    M = x.shape[1] if transpose_x else x.shape[0]
    t = ndarray((M, y.shape[1]), "float32", psum)
    if not transpose_x:
        xt = _pe_transpose(x, x.dtype)
        if xt is not None:
            x, transpose_x = xt, True
    _trace.current().call("matmul", dst=t, stationary=x, moving=y, transpose_x=True if transpose_x else None)
    return t


def _pe_transpose(x, dt):
    """x (P, F ≤ 128) turned on the PE — nisa.nc_transpose into PSUM, a copy to a new SBUF
    tile of dt — or None where the PE transpose's words do not apply (isa._identity)."""
    if x.ndim != 2 or x.shape[1] > 128:
        return None
    from . import isa as _isa
    sess = _trace.current()
    if _isa._identity(sess, x.dtype, x.shape[0]) is None:
        return None
    t = ndarray((x.shape[1], x.shape[0]), dt, sbuf)
    sess.call("tensor_copy", dst=t, src=_isa.nc_transpose(x))
    return t


def transpose(x, dtype=None, mask=None, **kw):
    """nl.transpose: x (P, F) turned into a new SBUF tile — on the PE (_pe_transpose; the
    copy casts to dtype) where its words apply, else NumPy (an exact move, flagged not exact)."""
    dt = _trace.dtype_name(dtype) if dtype else x.dtype
    t = _pe_transpose(x, dt)
    if t is None:
        t = ndarray((x.shape[1], x.shape[0]), dt, sbuf)
        _numpy("transpose", t, [x], lambda a: a.T, "tensor (PE)", src=x)
    return t


def _axes(x, axis):
    """axis (an int or several) as x's axes, counted from 0 (negative from the end, as NumPy
    counts them); an axis x does not have, or one given twice, raises ValueError (NumPy's
    AxisError is one), as NumPy and NKI refuse it."""
    try:
        given = (axis,) if isinstance(axis, (int, _np.integer)) else tuple(axis)
    except TypeError:
        raise TypeError("axis %r: want an int or a sequence of ints" % (axis,)) from None
    out = []
    for a in given:
        if isinstance(a, bool) or not isinstance(a, (int, _np.integer)):
            raise TypeError("axis %r: want an int or a sequence of ints" % (axis,))
        if not -x.ndim <= a < x.ndim:
            raise ValueError("axis %d is out of bounds for a tile of %d dimensions %s" % (a, x.ndim, x.shape))
        if a % x.ndim in out:
            raise ValueError("axis %r: axis %d is given twice" % (axis, a % x.ndim))
        out.append(int(a) % x.ndim)
    return tuple(out)


def _reduced(x, axis, keepdims, dtype):
    """(axes, a new SBUF tile) of x reduced over axis: the kept axes, or size 1 in their
    place with keepdims; a 1-D result is a (P, 1) tile."""
    axes = _axes(x, axis)
    shape = tuple((1 if i in axes else n) for i, n in enumerate(x.shape)) if keepdims else \
        tuple(n for i, n in enumerate(x.shape) if i not in axes)
    if not shape:
        shape = (1,)
    if len(shape) == 1:
        shape = (shape[0], 1)
    return axes, ndarray(shape, _trace.dtype_name(dtype) if dtype else x.dtype, sbuf)


def _reducer(name):
    """A reduction over axes: a TENSOR_REDUCE word on ndma (internal/nkic/reduce.go)."""
    def f(x, axis, dtype=None, keepdims=False, mask=None, **kw):
        axes, t = _reduced(x, axis, keepdims, dtype)
        _trace.current().call("tensor_reduce", dst=t, src=x, axes=list(axes), alu_op=name)
        return t
    f.__name__ = name
    return f


max = _reducer("max")
min = _reducer("min")
sum = _reducer("add")
prod = _reducer("multiply")
mean = _reducer("mean")
all = _reducer("all")


def var(x, axis, dtype=None, mask=None, **kw):
    """nl.var: "Variance along the specified axis (or axes) of the input" ("Similar to
    numpy.var": the mean of the squared deviations from the mean), as ndma's words in float32 —
    a mean (TENSOR_REDUCE add, TENSOR_SCALAR × 1/n), a TENSOR_TENSOR subtract, a multiply and a
    second mean — the result cast to dtype (default x's), the axes removed."""
    if mask is not None:
        raise NotImplementedError("ndma.nki: var with mask=")
    d = subtract(x, mean(x, axis, dtype="float32", keepdims=True), dtype="float32")
    return mean(multiply(d, d), axis, dtype=dtype or x.dtype)


def softmax(x, axis, dtype=None, compute_dtype=None, mask=None, **kw):
    """nl.softmax: exp(x - max(x)) / sum(exp(x - max(x))) over axis, as ndma's words: a
    TENSOR_REDUCE max, a TENSOR_TENSOR subtract, an exp ACTIVATE, a TENSOR_REDUCE add and a
    TENSOR_TENSOR divide, in float32, then cast to dtype (default x's)."""
    if mask is not None:
        raise NotImplementedError("ndma.nki: softmax with mask=")
    e = exp(subtract(x, max(x, axis, dtype="float32", keepdims=True), dtype="float32"))
    return divide(e, sum(e, axis, dtype="float32", keepdims=True), dtype=dtype or x.dtype)


def rms_norm(x, w, axis, n, epsilon=1e-6, dtype=None, compute_dtype=None, mask=None, **kw):
    """nl.rms_norm: x / sqrt(sum(x²) / n + epsilon) * w over axis, as ndma's words (a square
    ACTIVATE, a TENSOR_REDUCE add, a TENSOR_SCALAR (× 1/n, + epsilon), an rsqrt ACTIVATE and two
    TENSOR_TENSOR multiplies), in float32, then cast to dtype (default x's)."""
    if mask is not None:
        raise NotImplementedError("ndma.nki: rms_norm with mask=")
    s = sum(square(x, dtype="float32"), axis, dtype="float32", keepdims=True)
    r = rsqrt(add(multiply(s, 1.0 / float(n)), float(epsilon)))
    return multiply(multiply(x, r, dtype="float32"), w, dtype=dtype or x.dtype)


# -- masking and selection (docs/nki.md "Selection")

_RANK = {"float32": 6, "bfloat16": 5, "float16": 5, "float8e4": 3, "float8e5": 3,
         "int32": 2, "uint32": 2, "int16": 1, "uint16": 1, "int8": 0, "uint8": 0}


def _promote(a, b):
    """The wider of two dtypes (NKI Type Promotion, as ndma reads it: floats over
    integers, wider over narrower; float16 with bfloat16 is float32 — INFERRED)."""
    if a == b:
        return a
    ra, rb = _RANK[a], _RANK[b]
    if ra == rb:
        return "float32" if ra == 5 else a
    return a if ra > rb else b


def where(condition, x, y, dtype=None, mask=None, **kw):
    """nl.where(condition, x, y): x where condition is non-zero (True, 1.0), else y, element
    for element — x and y tiles or numbers, size-1 axes broadcast. The output dtype is dtype=,
    else the wider of the tiles' dtypes. One ``select`` call, computed by ndma's Go core
    (internal/nkic/selects.go; no word: flagged not exact)."""
    if not isinstance(condition, NkiTensor):
        raise TypeError("nl.where: condition must be a tile, not %r" % type(condition).__name__)
    for what, v in (("x", x), ("y", y)):
        if not isinstance(v, NkiTensor) and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise TypeError("nl.where: %s must be a tile or a number, not %r" % (what, type(v).__name__))
    tiles = [v for v in (condition, x, y) if isinstance(v, NkiTensor)]
    for what, v in (("condition", condition), ("x", x), ("y", y)):
        if isinstance(v, NkiTensor) and v.buffer not in (sbuf, psum):
            raise ValueError("nl.where: %s is in %s; the engines read SBUF/PSUM tiles" % (what, v.buffer))
    like = tiles[0]
    for t in tiles[1:]:
        if _count(t.shape) > _count(like.shape):
            like = t
    vals = [t for t in (x, y) if isinstance(t, NkiTensor)]
    if dtype is not None:
        dt = _trace.dtype_name(dtype)
    elif vals:
        dt = vals[0].dtype if len(vals) == 1 else _promote(vals[0].dtype, vals[1].dtype)
    else:
        dt = "float32"
    out = ndarray(like.shape, dt, sbuf)

    def fit(v, what):
        if v.shape == like.shape:
            return v
        try:
            return _broadcast(v, like.shape)
        except ValueError:
            raise ValueError("nl.where: %s %s does not broadcast to %s" % (what, v.shape, like.shape)) from None
    c = fit(condition, "condition")
    a = fit(x, "x") if isinstance(x, NkiTensor) else _tile(x, out)
    if isinstance(y, NkiTensor):
        views = _masked(mask, out, c, a, fit(y, "y"))
        if views[0] is not None:
            _trace.current().call("select", dst=views[0], srcs=list(views[1:]))
    else:
        views = _masked(mask, out, c, a)
        if views[0] is not None:
            _trace.current().call("select", dst=views[0], srcs=list(views[1:]), value=float(y))
    return out


def static_cast(x, dtype, **kw):
    """nl.static_cast(x, dtype): x's values in a new tile of dtype (a COPY, or a CAST between
    dtypes: rounding to nearest even, integers saturating — INFERRED, RATIONALE.md)."""
    return copy(x, dtype=dtype)


def gather_flattened(data, indices, axis=0, dtype=None, mask=None, **kw):
    """nl.gather_flattened (docs/nki.md "Selection"): each partition's flattened free elements
    gathered by uint32 indices; a Go loop in ndma's core, not exact."""
    from .isa import _gather
    return _gather.gather_flattened(data, indices, axis, dtype, mask)


def broadcast_to(x, shape, **kw):
    """nl.broadcast_to(x, shape): x's view broadcast along its size-1 axes (one partition to many:
    a new tile a DMA fills) — the tile method (docs/nki.md "Python names")."""
    if not isinstance(x, NkiTensor):
        raise TypeError("nl.broadcast_to: x must be a tile, not %r" % type(x).__name__)
    return x.broadcast_to(shape)
