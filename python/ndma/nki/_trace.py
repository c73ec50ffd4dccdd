"""The tracer: NKI calls become the JSON program form ndma compiles (docs/nki.md).

A kernel runs once in Python; every nki.language / nki.isa call appends a call
(op, access patterns, modes, the caller's file and line) to the current
program. Tensors are named, placed by the Go compiler, and viewed through
access patterns: a base offset and per-axis [step, count] pairs in elements.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))

_DTYPES = {
    "float32": "float32", "float16": "float16", "bfloat16": "bfloat16",
    "int32": "int32", "uint32": "uint32", "int16": "int16", "uint16": "uint16",
    "int8": "int8", "uint8": "uint8", "float8_e4m3": "float8e4", "float8_e5m2": "float8e5",
}


def dtype_name(dt):
    """The program form's dtype name of an NKI or NumPy dtype."""
    if dt is None:
        return None
    name = getattr(dt, "name", None) or getattr(dt, "__name__", None) or str(dt)
    name = str(name).replace("np.", "").replace("nl.", "")
    if name in _DTYPES:
        return _DTYPES[name]
    raise TypeError("dtype %r is not one ndma.nki supports (%s)" % (dt, ", ".join(sorted(_DTYPES))))


def caller():
    """(file, line) of the first frame outside ndma.nki: the kernel's source."""
    f = sys._getframe(1)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)).startswith(_HERE):
        f = f.f_back
    if f is None:
        return "", 0
    return os.path.basename(f.f_code.co_filename), f.f_lineno


class Program:
    def __init__(self, target):
        self.target = target
        self.tensors = []
        self.calls = []
        self.names = set()

    def fresh(self, stem):
        k = len(self.tensors)
        name = "%s%d" % (stem, k)
        while name in self.names:
            k += 1
            name = "%s%d" % (stem, k)
        return name

    def add_tensor(self, t):
        if t.name in self.names:
            t.name = self.fresh(t.name + "_")
        self.names.add(t.name)
        self.tensors.append(t)

    def call(self, op, **kw):
        file, line = caller()
        c = {"op": op, "file": file, "line": line}
        for k, v in kw.items():
            if v is None:
                continue
            c[k] = v.ap_json() if hasattr(v, "ap_json") else v
        self.calls.append(c)
        return c

    def json(self):
        ts = []
        for t in self.tensors:
            d = {"name": t.name, "buffer": t.buffer, "dtype": t.dtype, "shape": list(t.shape)}
            if t.kind:
                d["kind"] = t.kind
            ts.append(d)
        return {"target": self.target, "tensors": ts, "calls": self.calls}


_current = []


def current():
    if not _current:
        raise RuntimeError("an NKI call outside a kernel: call the kernel through ndma.nki.jit / simulate_kernel")
    return _current[-1]


def push(p):
    _current.append(p)


def pop():
    _current.pop()
