"""The session: a kernel runs as it is traced (docs/nki.md).

Every nki.language / nki.isa call appends a call (op, access patterns,
modes, the kernel's file and line) to a batch; a batch runs on ndma's Go
core (the ``nki_add`` entry point) when NumPy needs the memory, when it
grows long, and when the kernel returns. The core's SBUF and PSUM are this
session's NumPy arrays (one row per partition), passed by pointer with
every batch and used in place: the DMA and compute words ndma runs and the
calls NumPy computes act on one memory. HBM tensors live in the core; the
inputs are written once and the outputs read back into fresh arrays.

On-chip tensors are placed here: each takes a range of bytes in every
partition it spans, returned when the tensor (and every view of it) is
garbage — a tile's Python lifetime is its liveness, as the NKI compiler's
allocator sees it (INFERRED, RATIONALE.md "NKI kernels").
"""
import json
import os
import struct
import sys

import numpy as np

from .. import _lib

_HERE = os.path.dirname(os.path.abspath(__file__))

_DTYPES = {
    "float32": "float32", "float16": "float16", "bfloat16": "bfloat16",
    "int32": "int32", "uint32": "uint32", "int16": "int16", "uint16": "uint16",
    "int8": "int8", "uint8": "uint8", "float8_e4m3": "float8e4", "float8_e5m2": "float8e5",
    "float8e4": "float8e4", "float8e5": "float8e5", "tfloat32": "float32",
}
# the NumPy dtype of an element as stored (bfloat16 and fp8: their bit patterns)
NP = {"float32": np.dtype("<f4"), "float16": np.dtype("<f2"), "bfloat16": np.dtype("<u2"),
      "int32": np.dtype("<i4"), "uint32": np.dtype("<u4"), "int16": np.dtype("<i2"), "uint16": np.dtype("<u2"),
      "int8": np.dtype("i1"), "uint8": np.dtype("u1"), "float8e4": np.dtype("u1"), "float8e5": np.dtype("u1")}
SIZE = {k: v.itemsize for k, v in NP.items()}
BATCH = 1024  # calls per batch at most (a batch is one crossing into Go)
MAX_STRINGS = 60000  # a batch's string table at most (records hold u16 ids)
ALIGN = 64    # on-chip placement alignment (internal/nkic's placeAlign)


_dtype_names = {}  # dt -> its name (dtype_name's answers, for hashable dt)


def dtype_name(dt):
    """The program form's dtype name of an NKI or NumPy dtype."""
    try:
        return _dtype_names[dt]
    except (KeyError, TypeError):
        pass
    v = _dtype_name(dt)
    try:
        _dtype_names[dt] = v
    except TypeError:
        pass
    return v


def _dtype_name(dt):
    if dt is None:
        return None
    if isinstance(dt, np.dtype) or isinstance(dt, type) and issubclass(dt, np.generic):
        name = np.dtype(dt).name
    else:
        name = getattr(dt, "name", None) or getattr(dt, "__name__", None) or str(dt)
    name = str(name).replace("np.", "").replace("nl.", "")
    if name in _DTYPES:
        return _DTYPES[name]
    raise TypeError("dtype %r is not one ndma.nki supports (%s)" % (dt, ", ".join(sorted(_DTYPES))))


_inside = {}  # code file name -> its base name, or None for ndma.nki's own


def _base(fn):
    try:
        return _inside[fn]
    except KeyError:
        v = _inside[fn] = None if os.path.abspath(fn).startswith(_HERE + os.sep) else os.path.basename(fn)
        return v


def caller():
    """(file, line) of the first frame outside ndma.nki: the kernel's source."""
    f = sys._getframe(1)
    while f is not None:
        b = _base(f.f_code.co_filename)
        if b is not None:
            return b, f.f_lineno
        f = f.f_back
    return "", 0


PSUM_BANK = 2048  # bytes per partition of one PSUM bank (nl.tile_size.psum_fmax fp32 elements)


class _Alloc:
    """First-fit ranges of bytes per partition over [0, size)."""

    def __init__(self, size):
        self.size = size
        self.free = [(0, size)]  # sorted, disjoint (start, end)

    def take(self, n, bank=0):
        """(start, bytes) of n bytes first fit; with bank, a tile of at most a bank never
        crosses a bank boundary and a larger one starts on one (PSUM: a matmul writes one
        2 KiB bank per partition, docs/nki.md "Rules per target")."""
        n = (n + ALIGN - 1) // ALIGN * ALIGN
        for i, (a, b) in enumerate(self.free):
            s = a
            if bank and (s % bank + n > bank if n <= bank else s % bank):
                s = (s // bank + 1) * bank
            if b - s >= n:
                parts = ([(a, s)] if s > a else []) + ([(s + n, b)] if s + n < b else [])
                self.free[i:i + 1] = parts
                return s, n
        return None, n

    def give(self, a, n):
        fr = self.free
        lo, hi = 0, len(fr)
        while lo < hi:
            m = (lo + hi) // 2
            if fr[m][0] < a:
                lo = m + 1
            else:
                hi = m
        fr.insert(lo, (a, a + n))
        if lo + 1 < len(fr) and fr[lo][1] == fr[lo + 1][0]:
            fr[lo:lo + 2] = [(fr[lo][0], fr[lo + 1][1])]
        if lo > 0 and fr[lo - 1][1] == fr[lo][0]:
            fr[lo - 1:lo + 1] = [(fr[lo - 1][0], fr[lo][1])]

    def used(self):
        return self.size - sum(b - a for a, b in self.free)


# The packed batch (internal/nkic/packed.go: the record layout and the op
# order are its PackedOps): the common call as one fixed-size record, any
# other as JSON.
_OPS = ("load", "store", "dma_copy", "tensor_copy", "tensor_tensor", "tensor_scalar", "memset", "activation")
_OPID = {o: i + 1 for i, o in enumerate(_OPS)}
_PLAIN = frozenset(("op", "file", "line", "index", "dst", "src", "srcs", "alu_op", "operand0", "value", "func", "scale"))
_AP_PLAIN = frozenset(("tensor", "pattern", "offset"))
_PLAIN_KW = _PLAIN - {"op", "file", "line", "index"}
FAST = True  # record the common call as its packed record alone (False: every call as a dict too; tests)
_REC = struct.Struct("<BIIHHHBddd" + "iqB8q" * 3)
_JSON_REC = b"\0" * _REC.size
_NO_AP = (-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


def _ap_fields(a, sid):
    """A plain access pattern's record fields, or None."""
    if not _AP_PLAIN.issuperset(a):
        return None
    pat = a.get("pattern", ())
    n = len(pat)
    if n == 2:  # the common tile
        (s0, n0), (s1, n1) = pat
        return (sid(a["tensor"]), a.get("offset", 0), 2, s0, n0, s1, n1, 0, 0, 0, 0)
    if n > 4:
        return None
    f = [sid(a["tensor"]), a.get("offset", 0), n]
    for st, num in pat:
        f.append(st)
        f.append(num)
    f.extend((0, 0) * (4 - n))
    return f


_TREC = struct.Struct("<HHHHBBqi6q")
_TZERO = [(0,) * (6 - k) for k in range(7)]
_TKEYS = frozenset(("name", "buffer", "dtype", "shape", "kind", "offset", "partition"))


def _call_rec(c, sid):
    """A call's packed record (sid: its string ids), or None: it travels as JSON."""
    op = _OPID.get(c["op"])
    if op is None or not _PLAIN.issuperset(c):
        return None
    flags, f0, f1, f2 = 0, 0.0, 0.0, 0.0
    if "operand0" in c:
        flags, f0 = 1, c["operand0"]
    if "value" in c:
        flags, f1 = flags | 2, c["value"]
    if "scale" in c:
        flags, f2 = flags | 4, c["scale"]
    d = c.get("dst")
    aps = [_ap_fields(d, sid) if d is not None else _NO_AP]
    if "src" in c:
        flags |= 8
        aps.append(_ap_fields(c["src"], sid))
        aps.append(_NO_AP)
    else:
        srcs = c.get("srcs", ())
        if len(srcs) > 2:
            return None
        aps.extend(_ap_fields(x, sid) for x in srcs)
        aps.extend([_NO_AP] * (2 - len(srcs)))
    if None in aps or not 0 <= c["line"] < 1 << 32:
        return None
    alu, fn = c.get("alu_op"), c.get("func")
    return _REC.pack(op, c["index"], c["line"], sid(c["file"]), 0 if alu is None else sid(alu) + 1,
                     0 if fn is None else sid(fn) + 1, flags, f0, f1, f2, *aps[0], *aps[1], *aps[2])


def _tensor_rec(d, sid):
    """A tensor's packed record, or None: it travels as JSON."""
    shape = d["shape"]
    if len(shape) > 6 or not _TKEYS.issuperset(d):
        return None
    kind, placed = d.get("kind"), "offset" in d
    return _TREC.pack(sid(d["name"]), sid(d["buffer"]), sid(d["dtype"]), 0 if kind is None else sid(kind) + 1,
                      1 if placed else 0, len(shape), d["offset"] if placed else 0,
                      d.get("partition", 0) if placed else 0, *shape, *(0,) * (6 - len(shape)))


def _view_ap(v, strs, sid):
    """A plain access pattern's record fields from a tensor view (or its
    ap_json dict), or None; the view's index bounds checked as ap_json does.
    strs: the string ids so far (sid adds one)."""
    if type(v) is dict:
        return _ap_fields(v, sid)
    if v.checks:
        v.check_bounds()
    if v.scalar or v.indirect is not None:
        return None
    dims = v.dims
    n = len(dims)
    if n == 2:  # the common tile
        (s0, n0), (s1, n1) = dims
        t = strs.get(v.name)
        return (sid(v.name) if t is None else t, v.offset, 2, s0, n0, s1, n1, 0, 0, 0, 0)
    if n > 4:
        return None
    if n == 0:
        dims, n = ((1, 1),), 1  # ap_json's pattern of a scalar view
    f = [sid(v.name), v.offset, n]
    for st, num in dims:
        f.append(st)
        f.append(num)
    f.extend((0, 0) * (4 - n))
    return f


def _unrec(rec, table):
    """The program form's dict of a packed call record (program_json): what
    _record would have made of the call (internal/nkic's DecodePacked reads
    the same record)."""
    f = _REC.unpack(rec)
    op, index, line, file, alu, fn, flags, f0, f1, f2 = f[:10]
    c = {"op": _OPS[op - 1], "file": table[file], "line": line, "index": index}
    aps = []
    for j in range(3):
        a = f[10 + 11 * j:21 + 11 * j]
        if a[0] < 0:
            aps.append(None)
            continue
        d = {"tensor": table[a[0]], "pattern": [[a[3 + 2 * k], a[4 + 2 * k]] for k in range(a[2])]}
        if a[1]:
            d["offset"] = a[1]
        aps.append(d)
    if aps[0] is not None:
        c["dst"] = aps[0]
    if flags & 8:
        c["src"] = aps[1]
    else:
        srcs = [a for a in aps[1:] if a is not None]
        if srcs:
            c["srcs"] = srcs
    if alu:
        c["alu_op"] = table[alu - 1]
    if fn:
        c["func"] = table[fn - 1]
    if flags & 1:
        c["operand0"] = f0
    if flags & 2:
        c["value"] = f1
    if flags & 4:
        c["scale"] = f2
    return c


def _sid(strs, table):
    """The string id function of a table (strs: its ids so far)."""
    def sid(v):
        i = strs.get(v)
        if i is None:
            i = strs[v] = len(table)
            table.append(v)
        return i
    return sid


_TJSON_REC = b"\0" * 9 + b"\xff" + b"\0" * (_TREC.size - 10)


class NKIRefusal(Exception):
    """Raised by the front end for a call it refuses before ndma sees it."""


class Session:
    """One kernel run: the Go session, the on-chip memory as NumPy arrays,
    the pending batch and the trace so far."""

    def __init__(self, target, exec="fast", want_trace=False, detail=False):
        v, _ = _lib.call("nki_open", {"target": target, "exec": exec, "detail": bool(detail),
                                        "words": bool(want_trace)})
        self.h = v["handle"]
        self.lib = _lib.lib()
        self.target, self.model = v["target"], v["model"]
        self.parts = v["partitions"]
        self.sbuf = np.zeros((self.parts, v["sbuf_active"]), np.uint8)
        self.psum = np.zeros((self.parts, v["psum_active"]), np.uint8) if v["psum_active"] else None
        self.alloc = {"sbuf": _Alloc(v["sbuf_active"]), "psum": _Alloc(v["psum_active"])}
        self.want_trace = want_trace
        self._new_batch()
        self.all_tensors, self.all_calls = [], []              # the program so far (program_json)
        self.trace = []                                        # per call, Go's and NumPy's entries in order
        self.dma_ns = 0
        self.ncalls = 0
        self.written = set()  # the tensors a call writes (a baremetal argument is written back)
        self.mm_groups = {}  # tensor name -> the dst views nc_matmul (accumulate=None) opened a group on (isa.nc_matmul)
        self.names = set()
        self.closed = False
        # SPMD (kernel[grid]): the running instance's program ids, the grid, and the
        # shared_hbm tensors instance 0 made, in order (later instances share them)
        self.program_ids, self.grid, self.shared, self.nshared = (), (), [], 0

    def _new_batch(self):
        """The pending batch, empty: its tensors, calls and inputs, and each
        packed as it is recorded (_call_rec's and _tensor_rec's records; one string table)."""
        self.tensors, self.calls, self.inputs = [], [], []
        self.recs, self.trecs, self.js, self.tjs, self.table, self.strs = [], [], [], [], [], {}
        self.sid = _sid(self.strs, self.table)

    # -- tensors
    def fresh(self, stem):
        k = len(self.all_tensors)
        name = "%s%d" % (stem, k)
        while name in self.names:
            k += 1
            name = "%s%d" % (stem, k)
        return name

    def add_tensor(self, t, array=None):
        if len(self.table) > MAX_STRINGS:
            self.flush()
        name, buf, shape = t.name, t.buffer, t.base_shape
        if name in self.names:
            name = t.name = self.fresh(name + "_")
        self.names.add(name)
        d = {"name": name, "buffer": buf, "dtype": t.dtype, "shape": shape}  # a tuple: a JSON array
        if t.kind:
            d["kind"] = t.kind
        off = placed = 0
        if buf == "sbuf" or buf == "psum":
            if buf == "psum" and self.psum is None:
                raise NKIRefusal("%s has no PSUM" % self.target)
            row = SIZE[t.dtype]
            for n in shape[1:]:
                row *= n
            al = self.alloc[buf]
            off, n = al.take(row, PSUM_BANK if buf == "psum" else 0)
            if off is None:
                file, line = caller()
                raise NKIRefusal("%s:%d: tensor %s %s%s needs %d bytes per partition: %s %s has %d KiB per partition, "
                                 "%d in use" % (file, line, name, t.dtype, list(shape), row, self.target,
                                                buf.upper(), al.size >> 10, al.used()))
            t.part0, t.off0, t.row = 0, off, row
            d["offset"], d["partition"] = off, 0
            placed = 1
            t._free = (al, off, n)  # given back when the tensor (and every view of it) is garbage
        self.tensors.append(d)
        self.all_tensors.append(d)
        if len(shape) <= 6:  # _tensor_rec's record, from the tensor
            sid, strs = self.sid, self.strs
            b, dt = strs.get(buf), strs.get(t.dtype)
            self.trecs.append(_TREC.pack(sid(name), sid(buf) if b is None else b, sid(t.dtype) if dt is None else dt,
                                         sid(t.kind) + 1 if t.kind else 0, placed, len(shape), off, 0, *shape,
                                         *_TZERO[len(shape)]))
        else:
            self.tjs.append(d)
            self.trecs.append(_TJSON_REC)
        if array is not None:
            self.inputs.append((name, array))

    # -- calls
    def _record(self, op, kw):
        file, line = caller()
        c = {"op": op, "file": file, "line": line, "index": self.ncalls}
        self.ncalls += 1
        for k, v in kw.items():
            if v is not None:
                ap = getattr(v, "ap_json", None)
                if ap is not None:
                    v = ap()
                elif type(v) is list:  # srcs: views or their ap_json dicts
                    v = [x.ap_json() if hasattr(x, "ap_json") else x for x in v]
                elif type(v) is float and v - v != 0:  # JSON has no inf/NaN: the program form's strings
                    v = "nan" if v != v else "inf" if v > 0 else "-inf"
                c[k] = v
        self.all_calls.append(c)
        return c

    def call(self, op, **kw):
        """Record a call the batch runs on ndma (program order)."""
        if self.mm_groups and op != "nc_matmul":  # any other call touching the tile closes its matmul group
            for v in kw.values():
                for x in (v if type(v) is list else (v,)):
                    n = x.get("tensor") if type(x) is dict else getattr(x, "name", None)
                    if n is not None:
                        self.mm_groups.pop(n, None)
        opid = _OPID.get(op)
        if not (FAST and opid is not None and _PLAIN_KW.issuperset(kw) and self._packed(opid, kw)):
            c = self._record(op, kw)
            self.calls.append(c)
            rec = _call_rec(c, self.sid)
            if rec is None:
                self.js.append(c)
                rec = _JSON_REC
            self.recs.append(rec)
            d = c.get("dst")
            if type(d) is dict:
                self.written.add(d["tensor"])
        if len(self.calls) >= BATCH or len(self.table) > MAX_STRINGS:
            self.flush()

    def _packed(self, opid, kw):
        """The common call recorded as its packed record alone (no dict:
        program_json makes it from the record, _unrec); False, having
        recorded nothing, for one the record cannot hold."""
        file, line = caller()
        idx = self.ncalls
        if not 0 <= line < 1 << 32:
            return False
        sid, strs = self.sid, self.strs
        flags, f0, f1, f2, alu, fn = 0, 0.0, 0.0, 0.0, 0, 0
        a0 = a1 = a2 = _NO_AP
        dst = None
        for k, v in kw.items():
            if v is None:
                continue
            if k == "dst":
                a0, dst = _view_ap(v, strs, sid), v
                if a0 is None:
                    return False
            elif k == "src":
                a1, flags = _view_ap(v, strs, sid), flags | 8
                if a1 is None:
                    return False
            elif k == "srcs":
                if not 1 <= len(v) <= 2:
                    return False
                a1 = _view_ap(v[0], strs, sid)
                if len(v) == 2:
                    a2 = _view_ap(v[1], strs, sid)
                if a1 is None or a2 is None:
                    return False
            elif k == "alu_op" or k == "func":
                if type(v) is not str:
                    return False
                if k == "alu_op":
                    alu = sid(v) + 1
                else:
                    fn = sid(v) + 1
            elif type(v) is not float:
                return False
            elif k == "operand0":
                flags, f0 = flags | 1, v
            elif k == "value":
                flags, f1 = flags | 2, v
            else:  # scale
                flags, f2 = flags | 4, v
        if flags & 8 and "srcs" in kw and kw["srcs"] is not None:
            return False  # both forms: the record holds one
        fid = strs.get(file)
        rec = _REC.pack(opid, idx, line, sid(file) if fid is None else fid, alu, fn, flags, f0, f1, f2, *a0, *a1, *a2)
        self.ncalls = idx + 1
        self.recs.append(rec)
        self.calls.append(rec)
        self.all_calls.append((rec, self.table))
        if dst is not None:
            self.written.add(dst["tensor"] if type(dst) is dict else dst.name)
        return True

    def flush(self):
        if not (self.calls or self.tensors or self.inputs):
            return
        bufs = [(self.sbuf.ctypes.data, self.sbuf.nbytes)]
        if self.psum is not None:
            bufs.append((self.psum.ctypes.data, self.psum.nbytes))
        names = []
        for name, a in self.inputs:
            names.append(name)
            bufs.append((a.ctypes.data, a.nbytes))
        packed = [np.frombuffer(b"".join(r), np.uint8) if r else np.zeros(1, np.uint8)[:0] for r in (self.recs, self.trecs)]
        bufs += [(p.ctypes.data, p.nbytes) for p in packed]
        args = {"handle": self.h, "tensors": self.tjs, "calls": self.js, "sbuf": True,
                "psum": self.psum is not None, "inputs": names, "trace": self.want_trace,
                "packed": True, "packed_tensors": True, "strings": self.table}
        keep = self.inputs, packed  # alive until the call returns
        self._new_batch()
        try:
            v, blob = _lib.call("nki_add", args, bufs)
        except Exception:
            if self.want_trace:
                try:
                    tv, _ = _lib.call("nki_trace", {"handle": self.h, "from": len([e for e in self.trace if not e.get("numpy")])})
                    self.trace.extend(tv["calls"])
                except Exception:
                    pass
            raise
        del keep
        self.dma_ns = v["dma_ns"]
        if self.want_trace:
            self.trace.extend(json.loads(blob))  # the batch's call traces

    def numpy_call(self, op, note, engine, fn, **kw):
        """A call NumPy computes on the shared memory, after the batch before it."""
        c = self._record(op, kw)  # in the program, computed here, not by Go
        c["numpy"] = True
        d = c.get("dst")
        if type(d) is dict:
            self.written.add(d["tensor"])
        self.flush()
        fn()
        if self.want_trace:
            # the time of the words the call stands for (internal/nkic's TimeOf: the compute model)
            v, _ = _lib.call("nki_time", {"handle": self.h, "call": {k: x for k, x in c.items() if k != "numpy"}})
            self.trace.append({"index": c["index"], "op": op, "file": c["file"], "line": c["line"], "kind": "compute",
                               "engine": engine, "exact": False, "note": note, "bytes": 0, "descriptors": 0,
                               "rows_skipped": 0, "time_ns": v["time_ns"], "numpy": True})
        return c

    def read(self, t):
        """A HBM tensor's bytes as a fresh NumPy array."""
        self.flush()
        out = np.empty(t.base_shape, NP[t.dtype])
        _lib.call("nki_read", {"handle": self.h, "names": [t.name]}, [(out.ctypes.data, out.nbytes)])
        return out

    def close(self):
        if not self.closed and self.lib is _lib.lib():
            self.closed = True
            try:
                _lib.call("free", {"handle": self.h})
            except Exception:
                pass

    def program_json(self):
        # a round trip through JSON: plain lists (access patterns keep their dims as tuples)
        calls = [_unrec(*c) if type(c) is tuple else {k: v for k, v in c.items() if k != "numpy"} for c in self.all_calls]
        return json.loads(json.dumps({"target": self.target, "tensors": self.all_tensors, "calls": calls}))

    # -- NumPy views of on-chip tensors
    def view(self, t):
        """A NumPy view (in place) of an on-chip tensor view t."""
        b = t.base
        if b.buffer not in ("sbuf", "psum"):
            raise NKIRefusal("%s is in %s: NumPy computes on SBUF/PSUM tiles only" % (b.name, b.buffer))
        if t.indirect is not None:
            raise NKIRefusal("%s: a compute operand has no vector offset" % b.name)
        mem = self.sbuf if b.buffer == "sbuf" else self.psum
        es = SIZE[b.dtype]
        free = 1
        for n in b.base_shape[1:]:
            free *= n
        p0, r0 = divmod(t.offset, free)
        offset = (b.part0 + p0) * mem.strides[0] + b.off0 + r0 * es
        shape, strides = [], []
        for step, n in t.dims:
            if step % free == 0 and step != 0 and n > 1:
                strides.append(step // free * mem.strides[0])
            else:
                strides.append(step * es)
            shape.append(n)
        return np.ndarray(tuple(shape), NP[b.dtype], buffer=mem, offset=offset, strides=tuple(strides))


def to_f32(a, dt):
    """Stored elements as float32 (bfloat16's bits widened; fp8 through ndma)."""
    if dt == "bfloat16":
        return (a.astype(np.uint32) << 16).view(np.float32)
    if dt in ("float8e4", "float8e5"):
        from .. import to_float32
        return to_float32(np.ascontiguousarray(a), dt)
    return a.astype(np.float32)


def from_f32(v, dt):
    """float32 values as stored elements of dt (rounding to nearest even)."""
    v = np.asarray(v, np.float32)
    if dt == "bfloat16":
        u = v.view(np.uint32).astype(np.uint64)
        r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
        nan = np.isnan(v)
        return np.where(nan, (u >> 16) | 0x40, r).astype(np.uint16)
    if dt in ("float8e4", "float8e5"):
        from .. import from_float32
        return from_float32(np.ascontiguousarray(v), dt)
    if np.issubdtype(NP[dt], np.integer):
        info = np.iinfo(NP[dt])
        return np.clip(np.rint(v), info.min, info.max).astype(NP[dt])
    return v.astype(NP[dt])


_current = []


def current():
    if not _current:
        raise RuntimeError("an NKI call outside a kernel: call the kernel through ndma.nki.jit / simulate_kernel")
    return _current[-1]


def push(p):
    _current.append(p)


def pop():
    _current.pop()
