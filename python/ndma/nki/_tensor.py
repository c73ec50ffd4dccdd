"""NkiTensor: a named tensor and its views (access patterns in elements),
and the legacy index expressions (nl.arange / nl.mgrid) and masks."""
import itertools
import math

from . import _trace

_BUFFERS = ("sbuf", "psum", "hbm", "shared_hbm", "private_hbm")
_ids = itertools.count(1)
_new = object.__new__


class _Affine:
    """What an index expression and a sum of them share: subtraction and
    scaling by a number (a product of two is not affine), and the
    affine_select predicates == and != (anything else compares by identity)."""

    def __sub__(self, k):
        if isinstance(k, _Affine):
            return self + k * -1
        return self + (-int(k))

    def __rsub__(self, k):
        return self * -1 + k

    def __mul__(self, k):
        if isinstance(k, _Affine):
            raise TypeError("ndma.nki: the product of two index expressions is not affine")
        return self._scaled(int(k))

    __rmul__ = __mul__

    def __eq__(self, k):
        if isinstance(k, (_Affine, int)) and not isinstance(k, bool):
            return AffinePred.of(self, k, "equal")
        return NotImplemented

    def __ne__(self, k):
        if isinstance(k, (_Affine, int)) and not isinstance(k, bool):
            return AffinePred.of(self, k, "not_equal")
        return NotImplemented

    __hash__ = object.__hash__


class IndexExpr(_Affine):
    """coef · v + const over an index variable v (an nl.arange / nl.mgrid
    axis: values start .. start+n-1), placed at position role of nroles in
    the tile it indexes (the partition dimension is role 0)."""

    def __init__(self, var, start, n, coef=1, const=0, role=None, nroles=None):
        self.var, self.start, self.n = var, start, n
        self.coef, self.const, self.role, self.nroles = coef, const, role, nroles

    def _with(self, coef=None, const=None, role=None, nroles=None):
        return IndexExpr(self.var, self.start, self.n, self.coef if coef is None else coef,
                         self.const if const is None else const,
                         self.role if role is None else role, self.nroles if nroles is None else nroles)

    def __getitem__(self, key):
        # i[:, None] is the partition axis of a 2-D tile, i[None, :] the free one
        if not isinstance(key, tuple):
            key = (key,)
        if sum(1 for k in key if k is not None) != 1:
            raise IndexError("an index expression takes one ':' and Nones: %r" % (key,))
        role = next(i for i, k in enumerate(key) if k is not None)
        return self._with(role=role, nroles=len(key))

    def __add__(self, k):
        if isinstance(k, _Affine):
            return IndexSum([self._with(const=0)], self.const) + k
        return self._with(const=self.const + int(k))

    __radd__ = __add__

    def _scaled(self, k):
        return self._with(coef=self.coef * k, const=self.const * k)

    # comparisons: with a number, masks (coef > 0) that also carry the comparison
    # (AffinePred, affine_select's predicate); with an expression, an AffinePred
    def _bound(self, k):
        if self.coef <= 0:
            raise NotImplementedError("ndma.nki: a mask over a decreasing index expression")
        return (int(k) - self.const) / self.coef

    def _cmp(self, k, op, bounds):
        pred = AffinePred.of(self, k, op)
        if isinstance(k, _Affine) or self.coef <= 0:
            return pred
        m = Mask({self.var: bounds(self._bound(k))})
        m.affine, m.roles = pred, {self.var: (self.role, self.start)}
        return m

    def __lt__(self, k):
        return self._cmp(k, "less", lambda b: (-math.inf, math.ceil(b)))

    def __le__(self, k):
        return self._cmp(k, "less_equal", lambda b: (-math.inf, math.floor(b) + 1))

    def __gt__(self, k):
        return self._cmp(k, "greater", lambda b: (math.floor(b) + 1, math.inf))

    def __ge__(self, k):
        return self._cmp(k, "greater_equal", lambda b: (math.ceil(b), math.inf))

    @property
    def shape(self):
        if self.nroles is None:
            return (self.n,)
        return tuple(self.n if i == self.role else 1 for i in range(self.nroles))

    def __repr__(self):
        return "IndexExpr(%d*i%d+%d, i in [%d, %d))" % (self.coef, self.var, self.const, self.start, self.start + self.n)


class IndexSum(_Affine):
    """A sum of index expressions over distinct variables plus a constant
    (``i_f2*sz_f1 + i_f1``, ``k*i1 + i2``): one axis walked by several tile
    dimensions, a term each (its step the axis's times the term's coef)."""

    def __init__(self, terms, const=0):
        self.terms, self.const = terms, const

    def __add__(self, k):
        if isinstance(k, IndexSum):
            return IndexSum(self.terms + k.terms, self.const + k.const)._distinct()
        if isinstance(k, IndexExpr):
            return IndexSum(self.terms + [k._with(const=0)], self.const + k.const)._distinct()
        return IndexSum(self.terms, self.const + int(k))

    __radd__ = __add__

    def _scaled(self, k):
        return IndexSum([t._with(coef=t.coef * k) for t in self.terms], self.const * k)

    # comparisons: affine_select's predicates
    def __lt__(self, k):
        return AffinePred.of(self, k, "less")

    def __le__(self, k):
        return AffinePred.of(self, k, "less_equal")

    def __gt__(self, k):
        return AffinePred.of(self, k, "greater")

    def __ge__(self, k):
        return AffinePred.of(self, k, "greater_equal")

    def _distinct(self):
        if len({t.var for t in self.terms}) != len(self.terms):
            raise TypeError("ndma.nki: a sum of index expressions over one variable twice")
        return self

    def bounds(self):
        """(first, last) index the sum takes (a negative coef walks down)."""
        lo = hi = self.const
        for t in self.terms:
            a, b = t.coef * t.start, t.coef * (t.start + t.n - 1)
            lo, hi = lo + min(a, b), hi + max(a, b)
        return lo, hi

    def __repr__(self):
        return " + ".join(map(repr, self.terms)) + " + %d" % self.const


def _affine_terms(e):
    """(terms, const) of an index expression, a sum of them or a number: each term an
    IndexExpr of const 0, its value at tile position k coef·(start + k)."""
    if isinstance(e, IndexExpr):
        return [e._with(const=0)], e.const
    if isinstance(e, IndexSum):
        return list(e.terms), e.const
    return [], int(e)


class AffinePred:
    """A comparison of affine index expressions (``i_f < i_p``, ``q*128 + i_p >= k*128 + i_f``):
    lhs − rhs compared with 0 by op, the predicate nisa.affine_select evaluates per element."""

    def __init__(self, terms, const, op):
        self.terms, self.const, self.op = terms, const, op

    @classmethod
    def of(cls, lhs, rhs, op):
        a, ca = _affine_terms(lhs)
        b, cb = _affine_terms(rhs)
        return cls(a + [t._with(coef=-t.coef) for t in b], ca - cb, op)

    def coefs(self, ndim):
        """(coefs per tile axis, offset): the predicate's value at tile index i is
        offset + Σ coefs[d]·i_d (each variable at the axis of its tile position)."""
        coefs, off = [0] * ndim, self.const
        for t in self.terms:
            if t.role is None:
                raise ValueError("affine_select: pred's index expression %r has no tile position "
                                 "(write i[:, None] / i[None, :] or use nl.mgrid)" % (t,))
            if t.role >= ndim:
                raise ValueError("affine_select: pred's index expression %r is at tile axis %d; on_true_tile has %d axes"
                                 % (t, t.role, ndim))
            coefs[t.role] += t.coef
            off += t.coef * t.start
        return coefs, off

    def __and__(self, o):
        raise NotImplementedError("ndma.nki: an affine predicate combined with & (NKI's affine_select takes one "
                                  "comparison; use nl.where for a complex predicate)")

    __rand__ = __and__


def arange(*a):
    """nl.arange: an index variable (use i[:, None] / i[None, :] for 2-D tiles)."""
    r = range(*a)
    if r.step != 1:
        return IndexExpr(next(_ids), 0, len(r), coef=r.step, const=r.start)
    return IndexExpr(next(_ids), r.start, len(r))


class _Grid(tuple):
    """nl.mgrid's index expressions, one per axis; also by name: .p (the
    partition axis), .x, .y, .z (the free axes), as legacy kernels write i.p, i.x."""
    __slots__ = ()
    p = property(lambda self: self[0])
    x = property(lambda self: self[1])
    y = property(lambda self: self[2])
    z = property(lambda self: self[3])


class _MGrid:
    """nl.mgrid[0:P, 0:F]: one index expression per axis."""

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        out = []
        for i, k in enumerate(key):
            r = range(k.start or 0, k.stop, k.step or 1)
            e = arange(r.start, r.stop, r.step) if r.step != 1 else arange(r.start, r.stop)
            out.append(e._with(role=i, nroles=len(key)))
        return _Grid(out) if len(out) > 1 else out[0]


mgrid = _MGrid()


class Mask:
    """A mask: per index variable, its allowed values [lo, hi)."""

    affine = None  # a single comparison's AffinePred (affine_select's pred); None once combined
    roles = {}     # index variable -> (tile position, first value): binds the mask to an untagged tile

    def __init__(self, bounds):
        self.bounds = dict(bounds)

    def __and__(self, o):
        if isinstance(o, AffinePred):
            return o & self
        b = dict(self.bounds)
        for v, (lo, hi) in o.bounds.items():
            lo0, hi0 = b.get(v, (-math.inf, math.inf))
            b[v] = (max(lo, lo0), min(hi, hi0))
        m = Mask(b)
        m.roles = {**self.roles, **o.roles}
        return m

    __rand__ = __and__


def mask_ranges(views, mask):
    """Per dimension position, the [k0, k1) the mask leaves of the views'
    dims (a dim is tagged with its index variable in any view)."""
    if mask is None:
        return None
    if isinstance(mask, AffinePred):
        raise NotImplementedError("ndma.nki: a mask comparing two index expressions, or over a decreasing one (not a "
                                  "range per variable; nisa.affine_select takes such a predicate)")
    if not isinstance(mask, Mask):
        raise TypeError("mask=%r: want a comparison of index expressions (i_p < n, & to combine)" % (mask,))
    nd = max(v.ndim for v in views)
    out = [None] * nd
    for v in views:
        for k, tag in enumerate(v.tags):
            if tag is None or tag[0] not in mask.bounds:
                continue
            var, start = tag
            lo, hi = mask.bounds[var]
            n = v.dims[k][1]
            k0 = max(0, lo - start) if lo != -math.inf else 0
            k1 = min(n, hi - start) if hi != math.inf else n
            k0, k1 = int(k0), int(max(k0, k1))
            if out[k] is None:
                out[k] = (k0, k1)
            else:
                out[k] = (max(out[k][0], k0), min(out[k][1], k1))
    return out


def restrict(view, ranges):
    """view cut to ranges (per dim position; None: whole); None if empty."""
    if ranges is None:
        return view
    off, dims, tags = view.offset, list(view.dims), list(view.tags)
    checks = [list(c) for c in view.checks]
    for k, r in enumerate(ranges):
        if r is None or k >= len(dims):
            continue
        k0, k1 = r
        if k1 <= k0:
            return None
        step, _ = dims[k]
        off += k0 * step
        dims[k] = (step, k1 - k0)
        if tags[k] is not None:
            tags[k] = (tags[k][0], tags[k][1] + k0)
        for c in checks:
            if c[0] == k:
                c[1] += k0 * c[2]
    v = view._view(off, dims, view.indirect, tags)
    v.checks = [tuple(c) for c in checks]
    return v


class NkiTensor:
    """A tensor, or a view of one: base tensor, element offset, per-axis
    (step, count) pairs, optionally an indirect axis with its index tile,
    and per axis the index variable that walks it (masks)."""

    scalar = False
    checks = ()   # index expressions' bounds, checked at use: (dim, first index, coef, axis, size)
    _free = None  # a base on chip: (allocator, offset, bytes) given back when it is garbage

    def __init__(self, shape, dtype, buffer="sbuf", name=None, kind=None, array=None, _base=None, _offset=0,
                 _dims=None, _indirect=None, _tags=None):
        self.dtype = dtype
        if _base is None:
            if buffer not in _BUFFERS:
                raise ValueError("buffer %r: want one of %s" % (buffer, ", ".join(_BUFFERS)))
            self.buffer = buffer
            self.kind = kind
            self._b = None  # not self.base = self: a cycle only the cyclic collector frees, and the tile's bytes with it
            if type(shape) is tuple and len(shape) == 2 and type(shape[0]) is int and type(shape[1]) is int:
                bs = shape  # the common tile: (partitions, free)
            else:
                bs = shape if type(shape) is tuple and all(type(n) is int for n in shape) else tuple(int(n) for n in shape)
            self.base_shape = bs
            if not bs or min(bs) <= 0:
                raise ValueError("shape %r: want positive axes" % (shape,))
            if buffer in ("sbuf", "psum") and bs[0] > 128:  # raised where the tile is made: nl.load, nl.ndarray
                raise ValueError("an on-chip (%s) tile of shape %r: its partition axis (the first) holds at most "
                                 "128 partitions (nl.tile_size.pmax); tile the first axis" % (buffer, tuple(bs)))
            if len(bs) == 2:
                self.dims = [(bs[1], bs[0]), (1, bs[1])]
            else:
                dims, s = [], 1
                for n in reversed(bs):
                    dims.append((s, n))
                    s *= n
                dims.reverse()
                self.dims = dims
            self.shape = bs
            self.tags = [None] * len(bs)
            self.offset = 0
            self.indirect = None
            sess = _trace.current()
            self.name = name or sess.fresh("t")
            sess.add_tensor(self, array)
        else:
            self._b, self.offset, self.dims, self.indirect = _base, _offset, _dims, _indirect
            self.shape = tuple(n for _, n in _dims)
            self.tags = _tags if _tags is not None else [None] * len(_dims)
            self.name, self.buffer, self.kind = _base.name, _base.buffer, _base.kind

    def __del__(self):
        f = self._free
        if f is not None:
            self._free = None
            f[0].give(f[1], f[2])

    @property
    def base(self):
        """The tensor this is a view of (itself for a tensor)."""
        b = self._b
        return self if b is None else b

    @property
    def ndim(self):
        return len(self.shape)

    def __len__(self):
        return self.dims[0][1]

    def __repr__(self):
        return "NkiTensor(%s %s %s %s)" % (self.name, self.buffer, self.dtype, self.shape)

    def _view(self, offset, dims, indirect=None, tags=None):
        v = _new(NkiTensor)
        b = self._b
        if b is None:
            b = self
        v.dtype, v._b, v.offset, v.dims, v.indirect = self.dtype, b, offset, dims, indirect
        v.shape = tuple([n for _, n in dims])
        v.tags = tags if tags is not None else [None] * len(dims)
        v.name, v.buffer, v.kind = b.name, b.buffer, b.kind
        return v

    def __getitem__(self, key):
        if type(key) is not tuple:
            key = (key,)
        dims0 = self.dims
        nd = len(dims0)
        if nd == 2 and len(key) == 2:  # the common tile t[a:b, :] / t[a:b, c:d]: step-1 slices
            k0, k1 = key
            if type(k0) is slice and type(k1) is slice and k0.step is None and k1.step is None:
                (s0, n0), (s1, n1) = dims0
                a0, b0, _ = k0.indices(n0)
                a1, b1, _ = k1.indices(n1)
                c0, c1 = b0 - a0, b1 - a1
                if c0 > 0 and c1 > 0:
                    return self._view(self.offset + a0 * s0 + a1 * s1, [(s0, c0), (s1, c1)], self.indirect)
        if Ellipsis in key and any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (nd - len(key) + 1) + key[i + 1:]
        if len(key) > nd:
            raise IndexError("%d indices for a tensor of %d axes" % (len(key), nd))
        if len(key) < nd:
            key = key + (slice(None),) * (nd - len(key))
        off, indirect = self.offset, self.indirect
        if all(type(k) is slice or type(k) is int for k in key):  # the common case: slices and ints
            dims = []
            for axis, ((step, n), k) in enumerate(zip(self.dims, key)):
                if type(k) is int:
                    i = k + n if k < 0 else k
                    if not 0 <= i < n:
                        raise IndexError("index %d is out of bounds for axis %d with size %d" % (k, axis, n))
                    off += i * step
                    continue
                start, stop, st = k.indices(n)  # over-long slices clip, as NumPy's do
                if st == 1:
                    cnt = stop - start
                    if cnt <= 0:
                        raise IndexError("an empty slice %r of an axis of %d" % (k, n))
                    if cnt == n:  # the whole axis
                        dims.append((step, n))
                        continue
                else:
                    cnt = len(range(start, stop, st))
                    if cnt == 0:
                        raise IndexError("an empty slice %r of an axis of %d" % (k, n))
                off += start * step
                dims.append((step * st, cnt))
            return self._view(off, dims, indirect)
        plain = []        # (dim, tag) of slices, in axis order
        checks = []       # (role, first index, coef, axis, size) of index expressions
        placed = {}       # role -> [step, n, tag] of index expressions / the indirect axis
        nroles = 0
        # expressions of grids of fewer axes align to the right, as NumPy broadcasts index arrays
        # (layernorm's i_p of a 3-axis mgrid beside i_f of a 2-axis one; INFERRED, RATIONALE.md)
        width = max([t.nroles or 0 for k in key if isinstance(k, IndexSum) for t in k.terms] +
                    [k.nroles or 0 for k in key if isinstance(k, IndexExpr)] + [0])

        def _role(e, default):
            return default if e.role is None else e.role + (width - e.nroles if e.nroles else 0)
        for axis, ((step, n), k) in enumerate(zip(self.dims, key)):
            if isinstance(k, NkiTensor):  # a tile of indices: an indirect axis (the legacy t[idx_tile, iy])
                if indirect is not None:
                    raise IndexError("one indirect axis per access")
                cnt = k.shape[0] if k.ndim else 1
                placed.setdefault(0, [step, cnt, None, "indirect", k])
                nroles = max(nroles, 1)
            elif isinstance(k, IndexSum):  # a term a tile dimension; the sum's range checked here (masks cut terms)
                lo, hi = k.bounds()
                for i in (lo, hi):
                    if not 0 <= i < n:
                        raise IndexError("index %d is out of bounds for axis %d with size %d" % (i, axis, n))
                off += k.const * step
                for t in k.terms:
                    off += t.coef * t.start * step
                    role = _role(t, len(placed))
                    nroles = max(nroles, t.nroles or 0, role + 1)
                    if role in placed:
                        raise IndexError("two index variables at one tile position %d" % role)
                    placed[role] = [t.coef * step, t.n, (t.var, t.start)]
            elif isinstance(k, IndexExpr):
                lo = k.coef * k.start + k.const
                off += lo * step
                role = _role(k, len(placed))
                nroles = max(nroles, k.nroles or 0, role + 1)
                if role in placed:
                    p = placed[role]
                    if p[2] is None or p[2][0] != k.var or p[1] != k.n:
                        raise IndexError("two index variables at one tile position %d" % role)
                    p[0] += k.coef * step
                else:
                    placed[role] = [k.coef * step, k.n, (k.var, k.start)]
                checks.append((role, lo, k.coef, axis, n))  # bounds checked when the view is used (a mask may cut it)
            elif isinstance(k, slice):
                start, stop, st = k.indices(n)  # over-long slices clip, as NumPy's do
                cnt = len(range(start, stop, st))
                if cnt == 0:
                    raise IndexError("an empty slice %r of an axis of %d" % (k, n))
                off += start * step
                plain.append(((step * st, cnt), None))
            else:
                i = int(k)
                if i < 0:
                    i += n
                if not 0 <= i < n:
                    raise IndexError("index %d is out of bounds for axis %d with size %d" % (int(k), axis, n))
                off += i * step
        if not placed:
            dims = [d for d, _ in plain]
            tags = [t for _, t in plain]
            return self._view(off, dims, indirect, tags)
        dims, tags, plain = [], [], list(plain)
        pos = {}  # role -> its dim's position: roles no expression takes leave no axis (a[ix, iy] of a 3-D mgrid)
        for role in range(max(nroles, max(placed) + 1)):
            if role in placed:
                pos[role] = len(dims)
                p = placed[role]
                if len(p) > 3:  # the indirect axis
                    indirect = (len(dims), p[4])
                dims.append((p[0], p[1]))
                tags.append(p[2])
            elif plain:
                d, t = plain.pop(0)
                dims.append(d)
                tags.append(t)
        for d, t in plain:
            dims.append(d)
            tags.append(t)
        if 0 not in placed and len(dims) > 1 and dims[0][1] != 1 and indirect is None:
            # INFERRED (RATIONALE.md): indexed without the partition role (g[iw, iy] of a 3-axis mgrid),
            # a size-1 expression is the partition axis, as the layernorm/rmsnorm tutorials' (1, F) loads need
            k = next((i for i, (_, n) in enumerate(dims) if n == 1), None)
            if k is not None:
                for lst in (dims, tags):
                    lst.insert(0, lst.pop(k))
                pos = {r: (0 if q == k else q + 1 if q < k else q) for r, q in pos.items()}
        v = self._view(off, dims, indirect, tags)
        v.checks = [(pos[c[0]],) + c[1:] for c in checks]
        return v

    def __setitem__(self, key, value):
        from . import language as nl
        dst = self[key]
        if isinstance(value, NkiTensor):
            nl._assign(dst, value)
        else:
            _trace.current().call("memset", dst=dst, value=float(value))

    def reshape(self, shape):
        """An HBM tensor's contiguous view read as shape (same element count, C order); an
        on-chip tile's view with its partition axis kept (shape[0] its partitions) and its free
        elements, contiguous in each partition, read as shape[1:] (docs/nki.md "Python names")."""
        shape = tuple(int(n) for n in shape)
        if "hbm" not in self.buffer:
            return self._reshape_onchip(shape)
        want, s = [], 1
        for _, n in reversed(self.dims):
            want.append((s, n))
            s *= n
        if self.indirect is not None or [d for d in self.dims if d[1] != 1] != [d for d in reversed(want) if d[1] != 1]:
            raise ValueError("reshape of %s: the view %s is not contiguous" % (self.name, self.dims))
        if min(shape, default=0) <= 0 or math.prod(shape) != s:
            raise ValueError("cannot reshape %s of %d elements into %s" % (self.name, s, shape))
        dims, t = [], 1
        for n in reversed(shape):
            dims.append((t, n))
            t *= n
        dims.reverse()
        return self._view(self.offset, dims)

    def _reshape_onchip(self, shape):
        if self.indirect is not None or not self.dims:
            raise ValueError("reshape of %s: a tile view with an index tile cannot be reshaped" % self.name)
        (ps, P), free = self.dims[0], [d for d in self.dims[1:] if d[1] != 1]
        if not shape or shape[0] != P:
            raise ValueError("reshape of tile %s %s into %s: the partition axis (%d) must stay the first axis"
                             % (self.name, list(self.shape), list(shape), P))
        want = 1
        for st, n in reversed(free):
            if st != want:
                raise ValueError("reshape of tile %s: its free elements %s are not contiguous in a partition"
                                 % (self.name, self.dims[1:]))
            want *= n
        if min(shape) <= 0 or math.prod(shape[1:]) != want:
            raise ValueError("cannot reshape tile %s %s (%d elements per partition) into %s"
                             % (self.name, list(self.shape), want, list(shape)))
        dims, t = [], 1
        for n in reversed(shape[1:]):
            dims.append((t, n))
            t *= n
        dims.append((ps, P))
        dims.reverse()
        return self._view(self.offset, dims)

    def broadcast_to(self, shape):
        """The view broadcast to shape along its size-1 axes (a step of 0). On chip, a
        tile of one partition broadcast to many is a new tile a DMA fills (each dst
        partition reads the one source row): compute engines work partition for partition."""
        from . import language as nl
        shape = tuple(int(n) for n in shape)
        v = nl._broadcast(self, shape)
        if "hbm" in self.buffer or self.shape[0] == shape[0]:
            return v
        t = nl.ndarray(shape, self.dtype, nl.sbuf)
        _trace.current().call("dma_copy", dst=t, src=v)
        return t

    def ap(self, pattern, offset=0, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None):
        """NKI 0.6's access pattern: [[step, num], ...] over the base tensor's elements."""
        if dtype is not None and _trace.dtype_name(dtype) != self.dtype:
            raise NotImplementedError("ndma.nki: .ap(dtype=) reinterpreting a tensor's bytes is not supported")
        dims = [(int(s), int(n)) for s, n in pattern]
        off = self.offset + int(offset)
        scalar = scalar_offset is not None
        if scalar:
            off += int(scalar_offset)  # the traced value of the dynamic offset
        v = self._view(off, dims, (indirect_dim, vector_offset) if vector_offset is not None else None)
        v.scalar = scalar
        return v

    def check_bounds(self):
        """The index expressions' bounds (legacy wording), checked at use (a mask may have cut the view)."""
        for dim, first, coef, axis, n in self.checks:
            last = first + coef * (self.dims[dim][1] - 1)
            for i in (first, last):
                if not 0 <= i < n:
                    raise IndexError("index %d is out of bounds for axis %d with size %d" % (i, axis, n))

    def ap_json(self):
        if self.checks:
            self.check_bounds()
        d = {"tensor": self.name, "pattern": self.dims or [[1, 1]]}  # (step, num) tuples: JSON arrays
        if self.scalar:
            d["scalar_offset"] = self.offset
        elif self.offset:
            d["offset"] = self.offset
        if self.indirect is not None:
            dim, idx = self.indirect
            d["vector_offset"] = idx.ap_json()
            d["indirect_dim"] = dim
        return d

    # tile arithmetic (legacy dialect): new SBUF tiles
    def __add__(self, o):
        from . import language as nl
        return nl.add(self, o)

    __radd__ = __add__

    def __sub__(self, o):
        from . import language as nl
        return nl.subtract(self, o)

    def __rsub__(self, o):
        from . import language as nl
        return nl.subtract(nl._tile(o, self), self)

    def __mul__(self, o):
        from . import language as nl
        return nl.multiply(self, o)

    __rmul__ = __mul__

    def __truediv__(self, o):
        from . import language as nl
        return nl.divide(self, o)

    def __rtruediv__(self, o):  # 1.0 / tile: through a tile of the number (nl.divide's reversed form)
        from . import language as nl
        return nl.divide(o, self)

    def __pow__(self, o):  # tile ** k: nl.power
        from . import language as nl
        return nl.power(self, o)

    def __rpow__(self, o):
        from . import language as nl
        return nl.power(nl._tile(o, self), self)

    def __neg__(self):  # -tile: nl.negative
        from . import language as nl
        return nl.negative(self)

    def __matmul__(self, o):  # NKI has no @ on tiles: say what does the product
        raise TypeError("tile @ tile: NKI has no @ operator on tiles; use nl.matmul(x, y) or nisa.nc_matmul")

    def __iadd__(self, o):
        from . import language as nl
        nl._binary_into(self, self, o, "add")
        return self

    def __isub__(self, o):
        from . import language as nl
        nl._binary_into(self, self, o, "subtract")
        return self

    def __imul__(self, o):
        from . import language as nl
        nl._binary_into(self, self, o, "multiply")
        return self
