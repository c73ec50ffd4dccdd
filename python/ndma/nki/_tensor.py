"""NkiTensor: a named tensor and its views (access patterns in elements)."""
from . import _trace

_BUFFERS = ("sbuf", "psum", "hbm", "shared_hbm", "private_hbm")


class NkiTensor:
    """A tensor, or a view of one: base tensor, element offset, per-axis
    (step, count) pairs, and optionally an indirect axis with its index tile."""

    def __init__(self, shape, dtype, buffer="sbuf", name=None, kind=None, _base=None, _offset=0, _dims=None,
                 _indirect=None):
        self.dtype = dtype
        if _base is None:
            if buffer not in _BUFFERS:
                raise ValueError("buffer %r: want one of %s" % (buffer, ", ".join(_BUFFERS)))
            self.name = name or "t"
            self.buffer = buffer
            self.kind = kind
            self.base = self
            self.base_shape = tuple(int(n) for n in shape)
            strides, s = [], 1
            for n in reversed(self.base_shape):
                strides.append(s)
                s *= n
            self.dims = list(zip(reversed(strides), self.base_shape))
            self.offset = 0
            self.indirect = None
            prog = _trace.current()
            if name is None:
                self.name = prog.fresh("t")
            prog.add_tensor(self)
        else:
            self.base, self.offset, self.dims, self.indirect = _base, _offset, _dims, _indirect
            self.name, self.buffer, self.kind = _base.name, _base.buffer, _base.kind

    @property
    def shape(self):
        return tuple(n for _, n in self.dims)

    @property
    def ndim(self):
        return len(self.dims)

    def __len__(self):
        return self.dims[0][1]

    def __repr__(self):
        return "NkiTensor(%s %s %s %s)" % (self.name, self.buffer, self.dtype, self.shape)

    def _view(self, offset, dims, indirect=None):
        return NkiTensor(None, self.dtype, _base=self.base, _offset=offset, _dims=dims, _indirect=indirect)

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (self.ndim - len(key) + 1) + key[i + 1:]
        key = key + (slice(None),) * (self.ndim - len(key))
        if len(key) > self.ndim:
            raise IndexError("%d indices for a tensor of %d axes" % (len(key), self.ndim))
        off, dims, indirect = self.offset, [], self.indirect
        for (step, n), k in zip(self.dims, key):
            if isinstance(k, NkiTensor):  # a tile of indices: an indirect axis (the legacy t[idx_tile, iy])
                if indirect is not None:
                    raise IndexError("one indirect axis per access")
                indirect = (len(dims), k)
                cnt = k.shape[0] if k.ndim else 1
                dims.append((step, cnt))
            elif isinstance(k, slice):
                start, stop, st = k.indices(n)  # over-long slices clip, as NumPy's do
                cnt = max(0, (stop - start + st - 1) // st) if st > 0 else max(0, (start - stop - st - 1) // -st)
                if cnt == 0:
                    raise IndexError("an empty slice %r of an axis of %d" % (k, n))
                off += start * step
                dims.append((step * st, cnt))
            else:
                i = int(k)
                if i < 0:
                    i += n
                if not 0 <= i < n:
                    raise IndexError("index %d is out of bounds for axis %d with size %d" % (int(k), len(dims), n))
                off += i * step
        return self._view(off, dims, indirect)

    def __setitem__(self, key, value):
        from . import language as nl
        dst = self[key]
        if isinstance(value, NkiTensor):
            nl._assign(dst, value)
        else:
            _trace.current().call("memset", dst=dst, value=float(value))

    def ap(self, pattern, offset=0, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None):
        """NKI 0.6's access pattern: [[step, num], ...] over the base tensor's elements."""
        dims = [(int(s), int(n)) for s, n in pattern]
        off = int(offset)
        if scalar_offset is not None:
            off += int(scalar_offset)  # the traced value of the dynamic offset
        v = self._view(off, dims, (indirect_dim, vector_offset) if vector_offset is not None else None)
        v.scalar = scalar_offset is not None
        return v

    def ap_json(self):
        d = {"tensor": self.base.name, "pattern": [[s, n] for s, n in self.dims] or [[1, 1]]}
        if getattr(self, "scalar", False):
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

    def __sub__(self, o):
        from . import language as nl
        return nl.subtract(self, o)

    def __mul__(self, o):
        from . import language as nl
        return nl.multiply(self, o)

    def __iadd__(self, o):
        from . import language as nl
        _trace.current().call("tensor_tensor", dst=self, srcs=[self.ap_json(), nl._tile(o, self).ap_json()], alu_op="add")
        return self
