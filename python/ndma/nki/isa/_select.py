"""The masking and selection family of nki.isa (docs/nki.md "Selection"): affine_select,
max8, nc_find_index8, and the pattern form of iota. Each is one call ndma's Go core computes
as a loop (internal/nkic/selects.go), flagged not exact: ndma's ISA tables have no word for it.
Both dialects: legacy calls return a new tile, NKI 0.6 calls take dst first."""
import math
import numbers

from .. import _trace
from .. import language as _nl
from .._tensor import NkiTensor, Mask, AffinePred, mask_ranges as _ranges, restrict as _restrict

__all__ = ["affine_select", "max8", "nc_find_index8"]

_CMPS = ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal")
_INDEX_DTYPES = ("uint32", "uint16")


def _opname(op):
    n = getattr(op, "__name__", None) or str(op)
    return n.replace("np.", "").replace("nl.", "")


def _tile(v, what, call):
    """v, checked to be an on-chip tile (SBUF/PSUM)."""
    if not isinstance(v, NkiTensor):
        raise TypeError("%s: %s must be a tile, not %r" % (call, what, type(v).__name__))
    if v.buffer not in ("sbuf", "psum"):
        raise ValueError("%s: %s is in %s; the engines read SBUF/PSUM tiles" % (call, what, v.buffer))
    return v


def _number(v, what, call):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError("%s: %s must be a number, not %r" % (call, what, type(v).__name__))
    return float(v)


def _free(t):
    return math.prod(t.shape[1:]) if t.ndim > 1 else 1


def mask_cut(view, mask, call):
    """The ranges a legacy mask leaves of view, per dim: by its index-tagged dims, or — a
    plain tile — by the tile positions of the mask's variables (INFERRED, RATIONALE.md)."""
    if mask is None:
        return None
    if isinstance(mask, AffinePred):
        _ranges([view], mask)  # raises: not a range per variable
    if not isinstance(mask, Mask):
        raise TypeError("%s: mask=%r: want a comparison of index expressions (i_p < n, & to combine)" % (call, mask))
    if any(t is not None for t in view.tags):
        return _ranges([view], mask)
    r = [None] * view.ndim
    for var, (lo, hi) in mask.bounds.items():
        role = mask.roles.get(var)
        if role is None or role[0] is None or role[0] >= view.ndim:
            continue
        k, start = role
        n = view.dims[k][1]
        k0 = max(0, lo - start) if lo != -math.inf else 0
        k1 = min(n, hi - start) if hi != math.inf else n
        k0, k1 = int(k0), int(max(k0, k1))
        r[k] = (k0, k1) if r[k] is None else (max(r[k][0], k0), min(r[k][1], k1))
    return r


def pattern_view(t, pattern, what, call):
    """t seen through an NKI 0.6 pattern [[step, num], …] (outermost first): (the view of t
    with its partition axis then one axis per pattern entry, the steps). t's free elements
    must be the pattern's count; its free axes either the pattern's counts or one run."""
    try:
        pat = [(int(s), int(n)) for s, n in pattern]
    except (TypeError, ValueError):
        raise TypeError("%s: pattern must be [[step, num], …], not %r" % (call, pattern)) from None
    if not 1 <= len(pat) <= 4 or any(n <= 0 for _, n in pat):
        raise ValueError("%s: pattern %r: want 1 to 4 [step, num] pairs, num ≥ 1" % (call, pattern))
    if t.ndim < 2:
        raise ValueError("%s: %s %s needs a partition axis and free axes" % (call, what, t.shape))
    free = _free(t)
    if math.prod(n for _, n in pat) != free:
        raise ValueError("%s: pattern %r walks %d elements per partition; %s has %d"
                         % (call, pattern, math.prod(n for _, n in pat), what, free))
    fd = [d for d in t.dims[1:] if d[1] != 1]
    if [n for _, n in fd] == [n for _, n in pat if n != 1]:
        it = iter(fd)
        dims = [t.dims[0]] + [next(it) if n != 1 else (0, 1) for _, n in pat]
    else:
        inner = fd[-1][0] if fd else 1
        want = inner
        for st, n in reversed(fd):
            if st != want:
                raise NotImplementedError("ndma.nki: %s: %s's free axes are not one run; give a pattern of its own "
                                          "axes' counts" % (call, what))
            want *= n
        dims, acc = [t.dims[0]], free
        for _, n in pat:
            acc //= n
            dims.append((acc * inner, n))
    return t._view(t.offset, dims, t.indirect), [s for s, _ in pat]


# -- affine_select

_AS06 = ("dst", "pattern", "offset", "channel_multiplier", "on_true_tile", "on_false_value", "cmp_op")
_AS03 = ("dst", "pattern", "channel_multiplier", "on_true_tile", "on_false_value", "cmp_op")  # NKI 0.3: offset a keyword
_ASLEG = ("pred", "on_true_tile", "on_false_value")


def _bind(call, names, args, kw):
    if len(args) > len(names):
        raise TypeError("%s takes at most %d positional arguments (%s), %d given"
                        % (call, len(names), ", ".join(names), len(args)))
    out = dict(zip(names, args))
    for k, v in kw.items():
        if k in out:
            raise TypeError("%s: %s given twice" % (call, k))
        out[k] = v
    return out


def affine_select(*args, **kw):
    """affine_select: dst[i] = on_true_tile[i] where the affine predicate holds at index i,
    else on_false_value. Legacy: affine_select(pred, on_true_tile, on_false_value, mask=, dtype=)
    returns a new tile, pred a comparison of index expressions (i_f < i_p). NKI 0.6:
    affine_select(dst, pattern, offset, channel_multiplier, on_true_tile, on_false_value,
    cmp_op=nl.equal): pred = cmp_op(offset + p·channel_multiplier + Σ step·i, 0)."""
    call = "affine_select"
    first = args[0] if args else kw.get("dst")
    if "pred" not in kw and isinstance(first, NkiTensor):
        names = _AS03 if len(args) >= 4 and isinstance(args[3], NkiTensor) else _AS06
        a = _bind(call, names, args, kw)
        a.pop("name", None)
        unknown = set(a) - set(_AS06)
        if unknown:
            raise TypeError("%s: unexpected argument %s" % (call, ", ".join(sorted(unknown))))
        for k in ("dst", "pattern", "on_true_tile", "on_false_value"):
            if a.get(k) is None:
                raise TypeError("%s: %s is required" % (call, k))
        dst = _tile(a["dst"], "dst", call)
        src = _tile(a["on_true_tile"], "on_true_tile", call)
        fill = _number(a["on_false_value"], "on_false_value", call)
        cm = int(_number(a.get("channel_multiplier", 0) or 0, "channel_multiplier", call))
        off = int(_number(a.get("offset", 0) or 0, "offset", call))
        op = _opname(a.get("cmp_op") or "equal")
        if op not in _CMPS:
            raise ValueError("%s: cmp_op %s: want one of nl.%s" % (call, op, ", nl.".join(_CMPS)))
        view, steps = pattern_view(dst, a["pattern"], "dst", call)
        if math.prod(src.shape) != math.prod(dst.shape) or src.shape[0] != dst.shape[0]:
            raise ValueError("%s: on_true_tile %s and dst %s differ in shape" % (call, src.shape, dst.shape))
        _trace.current().call("affine_select", dst=view, src=src, coefs=[cm] + steps, operand0=float(off),
                              alu_op=op, value=fill)
        return None
    a = _bind(call, _ASLEG, args, kw)
    mask, dtype = a.pop("mask", None), a.pop("dtype", None)
    for k in ("name", "engine"):
        a.pop(k, None)
    unknown = set(a) - set(_ASLEG)
    if unknown:
        raise TypeError("%s: unexpected argument %s" % (call, ", ".join(sorted(unknown))))
    pred = a.get("pred")
    if isinstance(pred, Mask):
        if pred.affine is None:
            raise NotImplementedError("ndma.nki: affine_select's pred is one comparison of index expressions; "
                                      "masks combined with & are not affine (use nl.where)")
        pred = pred.affine
    if not isinstance(pred, AffinePred):
        raise TypeError("%s: pred must be a comparison of index expressions (e.g. i_f < i_p), not %r"
                        % (call, type(pred).__name__))
    src = _tile(a.get("on_true_tile"), "on_true_tile", call)
    fill = _number(a.get("on_false_value"), "on_false_value", call)
    coefs, off = pred.coefs(src.ndim)
    out = _nl.ndarray(src.shape, _trace.dtype_name(dtype) if dtype else src.dtype, _nl.sbuf)
    d, s = out, src
    r = mask_cut(src, mask, call)
    if r is not None:
        d, s = _restrict(out, r), _restrict(src, r)
        if d is None or s is None:
            return out
        off += sum(c * rr[0] for c, rr in zip(coefs, r) if rr is not None)  # the cut's first index
    _trace.current().call("affine_select", dst=d, src=s, coefs=coefs, operand0=float(off), alu_op=pred.op, value=fill)
    return out


# -- max8 and nc_find_index8

def _per_part(t, what, call):
    n = _free(t)
    if not 8 <= n <= 16384:
        raise ValueError("%s: %s %s has %d elements per partition; NKI reads 8 to 16,384" % (call, what, t.shape, n))


def _top8_out(dst, like, dtype, call):
    """dst checked (P, 8 per partition), or a new (P, 8) tile."""
    if dst is None:
        return _nl.ndarray((like.shape[0], 8), dtype, _nl.sbuf), True
    _tile(dst, "dst", call)
    if dst.shape[0] != like.shape[0] or _free(dst) != 8:
        raise ValueError("%s: dst %s: want %d partitions of 8 elements (the source's partitions)"
                         % (call, dst.shape, like.shape[0]))
    return dst, False


def _cut_call(op, call, dst, srcs, mask, **kw):
    """Record op with the mask applied to the first source (the data) and the dst's partitions."""
    r = mask_cut(srcs[0], mask, call)
    if r is not None:
        srcs = [_restrict(srcs[0], r)] + [_restrict(s, [r[0]]) for s in srcs[1:]]
        dst = _restrict(dst, [r[0]])
        if dst is None or any(s is None for s in srcs):
            return
    if len(srcs) == 1:
        _trace.current().call(op, dst=dst, src=srcs[0], **kw)
    else:
        _trace.current().call(op, dst=dst, srcs=srcs, **kw)


def max8(dst=None, src=None, mask=None, dtype=None, name=None, **kw):
    """max8: the 8 largest values of each partition of src, in descending order, into a
    (P, 8) tile (legacy: max8(src=, mask=, dtype=) returns it, of src's dtype by default;
    NKI 0.6: max8(dst, src))."""
    call = "max8"
    if src is None and isinstance(dst, NkiTensor):
        dst, src = None, dst  # legacy max8(src) positionally
    src = _tile(src, "src", call)
    _per_part(src, "src", call)
    out, new = _top8_out(dst, src, _trace.dtype_name(dtype) if dtype else src.dtype, call)
    _cut_call("max8", call, out, [src], mask)
    return out if new else None


def nc_find_index8(dst=None, data=None, vals=None, mask=None, dtype=None, name=None, **kw):
    """nc_find_index8: per partition, the index (from 0, in data's element order) of the first
    element of data equal to each of the 8 vals, in vals' order; 0xFFFF… (all ones) where a
    value is absent. Legacy: nc_find_index8(data=, vals=, mask=, dtype=) returns a (P, 8)
    uint32 (or uint16) tile; NKI 0.6: nc_find_index8(dst, data, vals)."""
    call = "nc_find_index8"
    if vals is None and isinstance(dst, NkiTensor) and isinstance(data, NkiTensor):
        dst, data, vals = None, dst, data  # legacy nc_find_index8(data, vals) positionally
    data = _tile(data, "data", call)
    vals = _tile(vals, "vals", call)
    _per_part(data, "data", call)
    if vals.shape[0] != data.shape[0] or _free(vals) != 8:
        raise ValueError("%s: vals %s: want %d partitions of 8 values (data's partitions)" % (call, vals.shape, data.shape[0]))
    dt = _trace.dtype_name(dtype) if dtype else "uint32"
    if dt not in _INDEX_DTYPES:
        raise TypeError("%s: dtype %s: NKI writes uint32 or uint16 indices" % (call, dt))
    out, new = _top8_out(dst, data, dt, call)
    if out.dtype not in _INDEX_DTYPES:
        raise TypeError("%s: dst is %s; NKI writes uint32 or uint16 indices" % (call, out.dtype))
    _cut_call("nc_find_index8", call, out, [data, vals], mask)
    return out if new else None


def iota_sum(e, dtype):
    """Legacy iota of a sum of index expressions (nl.arange(128)[:, None] * 64 +
    nl.arange(64)[None, :]): a new tile of the sum's values, each variable along the
    tile axis of its position."""
    if dtype is None:
        raise TypeError("iota: dtype is required")
    nd = max((t.nroles or 1) for t in e.terms)
    shape = [1] * max(nd, 2)
    coefs, value = [0] * len(shape), e.const
    for t in e.terms:
        if t.role is None:
            raise ValueError("iota: the index expression %r has no tile position (write i[:, None] / i[None, :])" % (t,))
        shape[t.role] = t.n
        coefs[t.role] += t.coef
        value += t.coef * t.start
    out = _nl.ndarray(tuple(shape), dtype, _nl.sbuf)
    from . import iota
    iota(out, coefs, value)
    return out


_PRED_DTYPES = ("uint8", "uint16", "uint32")


def tensor_copy_predicated(dst=None, src=None, predicate=None, reverse_pred=False, mask=None, dtype=None, name=None,
                           **kw):
    """tensor_copy_predicated: dst = src where predicate is non-zero (zero with reverse_pred),
    dst unchanged elsewhere; src a tile of dst's dtype or a number (both dialects name dst)."""
    call = "tensor_copy_predicated"
    dst = _tile(dst, "dst", call)
    pred = _tile(predicate, "predicate", call)
    if pred.dtype not in _PRED_DTYPES:
        raise TypeError("%s: predicate is %s; NKI takes uint8, uint16 or uint32" % (call, pred.dtype))
    kwargs = {"reverse0": True} if reverse_pred else {}
    srcs = [pred]
    if isinstance(src, NkiTensor):
        _tile(src, "src", call)
        if src.dtype != dst.dtype:
            raise TypeError("%s: src is %s, dst %s: NKI's src and dst share one dtype" % (call, src.dtype, dst.dtype))
        srcs.append(src)
    else:
        v = _number(src, "src", call)
        is_int = _trace.NP[dst.dtype].kind in "iu" and dst.dtype not in ("bfloat16", "float8e4", "float8e5")
        if isinstance(src, float) and is_int or isinstance(src, int) and not is_int:
            raise TypeError("%s: src %r into a %s dst: NKI takes a Python float for a float dst and an int for an "
                            "integer dst" % (call, src, dst.dtype))
        kwargs["value"] = v
    for what, t in zip(("predicate", "src"), srcs):
        if t.shape[0] != dst.shape[0] or _free(t) != _free(dst):
            raise ValueError("%s: %s %s and dst %s differ in partitions or elements per partition"
                             % (call, what, t.shape, dst.shape))
    views = _nl._masked(mask, dst, *srcs)
    if views[0] is None:
        return None
    _trace.current().call(call, dst=views[0], srcs=list(views[1:]), **kwargs)
    return None


__all__.append("tensor_copy_predicated")
