"""ndma: the AWS Neuron DMA toolkit in Python, over its Go core.

Words, devices and NEFFs with NumPy arrays in and out::

    import numpy as np, ndma
    w = ndma.asm("dma_memcpy ...")            # text -> 64-byte words
    dev = ndma.Device("cayman")
    dev.write("hbm:0x0", np.arange(64, dtype=np.float32))
    dev.run(w)
    out = dev.read("sbuf:0:0x0", np.float32, (64,))

See docs/python.md.
"""

import numpy as np

from . import _lib
from ._core import Handle as _Handle, check_shape as _check_shape, dtype_name as _dtype_name, \
    inbuf as _inbuf, np_dtype as _np_dtype, wordbuf as _wordbuf, FLOATS as _FLOATS
from ._errors import (AsmError, DeadlockError, DivergenceError, Error, InputError, NotFoundError,
                      OOBError, ValidationError)
from . import neff

__all__ = ["asm", "disasm", "decode", "encode", "validate", "describe", "lower", "Device",
           "to_float32", "from_float32", "neff", "Problem", "Lowered",
           "Error", "ValidationError", "AsmError", "InputError", "OOBError", "DeadlockError",
           "DivergenceError", "NotFoundError", "DESCRIPTOR"]

_lib.lib()  # load now: a missing library fails the import, not the first call

__version__ = _lib.call("version")[0]  # the Go core's release, as `ndma --version` prints it


def _gen(gen):
    return "" if gen is None else str(gen)


def asm(text, gen=None, validate=True):
    """Assemble text (docs/asm.md) into words (bytes, 64 a word).

    gen is the default generation (the text's ``.gen`` wins). With validate,
    words that break the generation's rules raise ValidationError naming
    each broken predicate; text that does not assemble raises AsmError.
    """
    if not isinstance(text, str):
        raise InputError("asm: text is %s: want str" % type(text).__name__, "text")
    _, blob = _lib.call("asm", {"text": text, "gen": _gen(gen), "validate": bool(validate)})
    return blob


def disasm(words, gen):
    """The canonical text of words (asm(disasm(w)) == w)."""
    a = _wordbuf(words)
    text, _ = _lib.call("disasm", {"gen": _gen(gen)}, [_inbuf(a)])
    return text


def decode(words, gen):
    """Every word as a dict (docs/json.md's form: offset, opcode, mnemonic, struct, fields)."""
    a = _wordbuf(words)
    value, _ = _lib.call("decode", {"gen": _gen(gen)}, [_inbuf(a)])
    return value


def encode(dicts, gen):
    """decode's inverse: dicts (one per word) to bytes."""
    if isinstance(dicts, dict):
        dicts = [dicts]
    _, blob = _lib.call("encode", {"gen": _gen(gen), "words": list(dicts)})
    return blob


class Problem:
    """One rule a word breaks: index, offset, mnemonic, predicate, prov, field, value, want, severity."""

    __slots__ = ("index", "offset", "mnemonic", "predicate", "prov", "field", "value", "want", "severity", "text")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])

    def __str__(self):
        return self.text

    def __repr__(self):
        return "Problem(%r)" % self.text


def validate(words, gen):
    """Every rule of gen the words break, as Problems (errors and warnings)."""
    a = _wordbuf(words)
    value, _ = _lib.call("validate", {"gen": _gen(gen)}, [_inbuf(a)])
    return [Problem(p) for p in value]


def describe(opcode, gen=None):
    """An opcode's field map: dict with opcode, mnemonic, struct, decoded and fields (offset, bit, width, …)."""
    op = "%#x" % opcode if isinstance(opcode, int) else str(opcode)
    value, _ = _lib.call("describe", {"opcode": op, "gen": _gen(gen)})
    return value


# One SDMA descriptor of lower(): the word it lowers (index into .program,
# and its byte offset), DMA engine and queue, leg (0 M2S, 1 S2M), flags,
# index on its ring, length, buf_ptr and the 16 raw bytes.
DESCRIPTOR = np.dtype([("word", "<u4"), ("offset", "<u4"), ("dma", "<u2"), ("queue", "<u2"), ("leg", "u1"),
                       ("first", "?"), ("last", "?"), ("phase", "u1"), ("op", "u1"), ("optype", "u1"),
                       ("index", "<u4"), ("length", "<u4"), ("buf_ptr", "<u8"), ("raw", "u1", (16,))])


class Lowered:
    """lower()'s result: .program (per word: offset, mnemonic, backend, skipped, refused,
    trace — the DGE's micro-ops as the firmware logs them) and .descriptors (DESCRIPTOR array)."""

    def __init__(self, program, descriptors):
        self.program = program
        self.descriptors = descriptors

    def __repr__(self):
        return "Lowered(%d words, %d descriptors)" % (len(self.program), len(self.descriptors))


def lower(words, gen, backend="auto", ring=0):
    """Lower words as `ndma lower` does: the DGE micro-op programs and the SDMA descriptors."""
    a = _wordbuf(words)
    value, blob = _lib.call("lower", {"gen": _gen(gen), "backend": backend, "ring": int(ring)}, [_inbuf(a)])
    return Lowered(value, np.frombuffer(blob, dtype=DESCRIPTOR).copy())


def _convert(array, frm, to):
    src = np.ascontiguousarray(array, dtype=_np_dtype(frm))
    out = np.empty(src.shape, dtype=_np_dtype(to))
    if src.size:
        _lib.call("convert", {"from": frm, "to": to}, [_inbuf(src), _inbuf(out)])
    return out


def _float_name(dtype):
    n = _dtype_name(dtype)
    if n not in _FLOATS:
        raise InputError("dtype %s: not a float format" % n, "dtype")
    return n


def to_float32(array, dtype):
    """Widen an array of dtype's bit patterns (bfloat16, float8e4, …) to float32, exactly."""
    return _convert(array, _float_name(dtype), "float32")


def from_float32(array, dtype):
    """Round float32 to dtype (round to nearest even, as a DMA cast does): its bit patterns."""
    return _convert(array, "float32", _float_name(dtype))


def _addr(addr):
    if isinstance(addr, (int, np.integer)):
        if addr < 0:
            raise InputError("addr %d: negative" % addr, "addr")
        return "%#x" % int(addr)
    if not isinstance(addr, str):
        raise InputError("addr %r: want \"hbm:OFF\", \"sbuf:P:OFF\", \"psum:P:OFF\" or an int" % (addr,), "addr")
    return addr


def _read_dtype(dtype):
    """ndma's dtype names (bfloat16 → its uint16 bits), or any numeric NumPy dtype (memory is bytes)."""
    if isinstance(dtype, str) and dtype.lower() in ("bfloat16", "bf16") or isinstance(dtype, str) and "8" in dtype and "float" in dtype.lower():
        return _np_dtype(dtype)
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return _np_dtype(dtype)  # raises InputError naming the dtype
    if dt.hasobject or dt.fields is not None or dt.kind not in "biufc":
        raise InputError("dtype %s: want a numeric dtype" % dt, "dtype")
    return dt


class Device(_Handle):
    """A NeuronCore device of gen with cores cores (one HBM they share), kept across calls.

    Addresses are the assembler's: "hbm:0x0", "sbuf:P:OFF", "psum:P:OFF" or an
    int. At an SBUF/PSUM address an array's axis 0 runs over partitions.
    """

    def __init__(self, gen, cores=1):
        value, _ = _lib.call("device_new", {"gen": _gen(gen), "cores": int(cores)})
        super().__init__(value["handle"])
        self.gen = value["gen"]
        self.cores = int(cores)

    def write(self, addr, array, core=0):
        """Write array's bytes (C order) at addr of core's memory."""
        a = np.asarray(array)
        if a.dtype.hasobject or a.dtype.fields is not None:
            raise InputError("array: dtype %s: want a numeric dtype" % a.dtype, "array")
        if a.ndim == 0:
            a = a.reshape(1)
        a = np.ascontiguousarray(a)
        shape = _check_shape(a.shape, a.itemsize, "array shape")
        _lib.call("device_write", {"handle": self._handle(), "addr": _addr(addr), "core": int(core),
                                   "shape": list(shape), "itemsize": a.itemsize}, [_inbuf(a)])

    def read(self, addr, dtype, shape, core=0, out=None):
        """An array of dtype and shape read from addr of core's memory (into out when given)."""
        dt = _read_dtype(dtype)
        shape = _check_shape(shape, dt.itemsize)
        if out is None:
            out = np.empty(shape, dtype=dt)
        elif (not isinstance(out, np.ndarray) or out.dtype != dt or out.shape != shape
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise InputError("out: want a writable C-contiguous %s array of shape %s" % (dt, shape), "out")
        _lib.call("device_read", {"handle": self._handle(), "addr": _addr(addr), "core": int(core),
                                  "shape": list(shape), "itemsize": dt.itemsize}, [(out.ctypes.data, out.nbytes)])
        return out

    def run(self, words, exec="sim", regs=None, max_bytes=0):
        """Run words (bytes, or assembly text) on the device: exec "sim" (the descriptor
        engines), "ref" (the reference semantics) or "both" (held to each other; DivergenceError).
        Returns the run's counts (words, bytes, time_ns, …)."""
        args = {"handle": self._handle(), "exec": exec, "regs": {("r%d" % int(k) if not str(k).startswith("r") else str(k)): int(v)
                                                                 for k, v in (regs or {}).items()},
                "max_bytes": int(max_bytes)}
        bufs = []
        if isinstance(words, str):
            args["text"] = words
        else:
            a = _wordbuf(words)
            bufs = [_inbuf(a)]
        value, _ = _lib.call("device_run", args, bufs)
        return value

    def __repr__(self):
        return "Device(%r, cores=%d)" % (self.gen, self.cores)
