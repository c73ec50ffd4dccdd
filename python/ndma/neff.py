"""NEFF files: open, inspect, check and run a compiled Neuron kernel.

    n = ndma.neff.open("kernel.neff")
    r = n.run(inputs={"x": x, "y": y})
    r.outputs["out"]
"""

import os as _os

import numpy as _np

from . import _errors, _lib
from ._core import DTYPES as _DTYPES, FLOATS as _FLOATS, Handle as _Handle, inbuf as _inbuf

__all__ = ["open", "NEFF", "Result", "Tensor"]


class Tensor:
    """A kernel input or output: name, kind ("input"/"output"), dtype (ndma's name),
    np_dtype (its arrays' NumPy dtype: bit patterns for bfloat16/fp8), shape, nbytes."""

    __slots__ = ("name", "kind", "dtype", "np_dtype", "shape", "nbytes")

    def __init__(self, d):
        self.name, self.kind, self.dtype = d["name"], d["kind"], d["dtype"]
        self.np_dtype = _DTYPES[self.dtype]
        self.shape = tuple(d["shape"])
        self.nbytes = d["bytes"]

    def __repr__(self):
        return "Tensor(%r, %s, %s, %s)" % (self.name, self.kind, self.dtype, self.shape)


def open(path):  # noqa: A001 - the module's verb: ndma.neff.open
    """Open and resolve the NEFF at path."""
    p = _os.fspath(path)
    if not _os.path.exists(p):
        raise _errors.NotFoundError("%s: no such file" % p)
    return NEFF(p)


class NEFF(_Handle):
    """An opened NEFF: .target, .gen, .subgraphs, .tensors (name → Tensor), .variables."""

    def __init__(self, path):
        value, _ = _lib.call("neff_open", {"path": path})
        super().__init__(value["handle"])
        self.path = path
        self.target = value["target"]
        self.gen = value["gen"]
        self.subgraphs = value["subgraphs"]
        self.tensors = {t["name"]: Tensor(t) for t in value["tensors"]}
        self.variables = value["variables"]

    def _call(self, name, **kw):
        kw["handle"] = self._handle()
        return _lib.call(name, kw)[0]

    def check(self):
        """`ndma neff check`: dict with target, words, subgraphs and problems (located)."""
        return self._call("neff_check")

    def lint(self):
        """`ndma neff lint`: per queue the descriptor sizes and overhead, findings, budget."""
        return self._call("neff_lint")

    def budget(self):
        """The load-time DMA budget (rings, descriptors, problems)."""
        return self._call("neff_budget")

    def diff(self, other):
        """`ndma neff diff` against another NEFF (or a path)."""
        if not isinstance(other, NEFF):
            other = open(other)
        return self._call("neff_diff", other=other._handle())

    def report(self, path=None):
        """Write the one-page HTML report to path (whole or not at all); without a path, its data."""
        if path is None:
            return self._call("neff_report", path="")
        self._call("neff_report", path=_os.fspath(path))
        return None

    def run(self, inputs=None, exec="sim", engine_time=None, timeline=False, dma_only=False):
        """Run the kernel; returns a Result.

        inputs maps every input name to an array of its tensor's shape, in its
        dtype (bit patterns for bfloat16/fp8) or float32 for a float tensor;
        anything else raises InputError naming the input. inputs=None runs
        on deterministic random data (as `ndma neff run` without --in).
        engine_time maps a non-DMA opcode name to its nanoseconds.
        """
        names, bufs, keep = [], [], []
        if inputs is not None:
            ins = {t.name: t for t in self.tensors.values() if t.kind == "input"}
            if not hasattr(inputs, "items"):  # a list of arrays has no names to match the tensors by
                raise TypeError("inputs: want a dict of input name to array (the kernel's inputs: %s), not %s"
                                % (", ".join(sorted(ins)) or "none", type(inputs).__name__))
            for name in inputs:
                if name not in ins:
                    raise _errors.InputError("input %r: the kernel has no such input (its inputs: %s)"
                                             % (name, ", ".join(sorted(ins)) or "none"), name)
            missing = sorted(set(ins) - set(inputs))
            if missing:
                raise _errors.InputError("inputs: missing %s (give every input, or inputs=None for random data)"
                                         % ", ".join(repr(m) for m in missing), missing[0])
            for name, arr in inputs.items():
                t = ins[name]
                a = _np.asarray(arr)
                if a.shape != t.shape:
                    raise _errors.InputError("input %r: shape %s, the tensor is %s" % (name, a.shape, t.shape), name)
                if a.dtype == t.np_dtype and a.dtype.byteorder in "=<|":
                    dt = t.dtype
                elif a.dtype == _np.float32 and t.dtype in _FLOATS:
                    dt = "float32"
                else:
                    raise _errors.InputError(
                        "input %r: dtype %s, the tensor is %s (give %s%s)" % (
                            name, a.dtype, t.dtype, t.np_dtype,
                            " or float32" if t.dtype in _FLOATS and t.dtype != "float32" else ""), name)
                a = _np.ascontiguousarray(a)
                keep.append(a)
                names.append({"name": name, "dtype": dt})
                bufs.append(_inbuf(a))
        et = {}
        for k, v in (engine_time or {}).items():  # as --engine-time takes them: ns, or a duration "1.2us"
            if isinstance(v, str):
                et[str(k)] = v
            elif isinstance(v, (int, _np.integer)) and not isinstance(v, bool):
                et[str(k)] = str(int(v))
            else:
                raise TypeError("engine_time[%r]: %r: want nanoseconds (an int) or a duration such as \"1.2us\"" % (k, v))
        value, _ = _lib.call("neff_run", {"handle": self._handle(), "exec": exec, "engine_time": et,
                                          "inputs": names, "timeline": bool(timeline), "dma_only": bool(dma_only)},
                             bufs)
        return Result(self, value)

    def __repr__(self):
        return "ndma.neff.open(%r)  # %s, %d subgraphs" % (self.path, self.target, len(self.subgraphs))


def _transfers(ts):
    def width(k):
        return max([len(t[k]) for t in ts] + [1])
    dt = _np.dtype([("subgraph", "U%d" % width("subgraph")), ("engine", "U%d" % width("engine")),
                    ("queue", "U%d" % width("queue")), ("block", "<i4"), ("offset", "<i8"),
                    ("src", "U%d" % width("src")), ("dst", "U%d" % width("dst")), ("bytes", "<i8"),
                    ("issue_ns", "<i8"), ("start_ns", "<i8"), ("end_ns", "<i8")])
    return _np.array([(t["subgraph"], t["engine"], t["queue"], t["block"], t["offset"], t["src"], t["dst"],
                       t["bytes"], t["issue_ns"], t["start_ns"], t["end_ns"]) for t in ts], dtype=dt)


class Result(_Handle):
    """A NEFF run: .outputs (name → array in the tensor's dtype), .transfers (structured
    array: subgraph, engine, queue, block, offset, src, dst, bytes, issue_ns, start_ns,
    end_ns; block −1 for an inline DGE word), .computed / .not_computed (words by
    mnemonic), .engines, .time_ns, .warnings, .timeline(path)."""

    def __init__(self, n, value):
        super().__init__(value["handle"])
        self.neff = n
        self.exec = value["exec"]
        self.time_ns = value["time_ns"]
        self.transfers = _transfers(value["transfers"])
        self.computed = value["computed"]
        self.not_computed = value["not_computed"]
        self.engines = value["engines"]
        self.warnings = value["warnings"]
        self.uncomputed = value["uncomputed"]
        self._outputs = None

    def read(self, name):
        """Any input or output tensor's bytes after the run, as its array."""
        t = self.neff.tensors.get(name)
        if t is None:
            raise _errors.InputError("%r: not an input or output of the kernel" % (name,), name)
        out = _np.empty(t.shape, dtype=t.np_dtype)
        _lib.call("result_read", {"handle": self._handle(), "name": name}, [(out.ctypes.data, out.nbytes)])
        return out

    @property
    def outputs(self):
        if self._outputs is None:
            self._outputs = {t.name: self.read(t.name) for t in self.neff.tensors.values() if t.kind == "output"}
        return self._outputs

    def timeline(self, path):
        """Write the run as Chrome trace events (Perfetto) to path; needs run(..., timeline=True)."""
        _lib.call("result_timeline", {"handle": self._handle(), "path": _os.fspath(path)})

    def __repr__(self):
        return "Result(%s, %d transfers, %.3f µs)" % (self.exec, len(self.transfers), self.time_ns / 1000)
