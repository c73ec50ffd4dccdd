"""Shared helpers: buffers by pointer, dtypes, handles."""

import os

import numpy as np

from . import _errors, _lib

MAX_BYTES = 1 << 30  # device.MaxReadBytes: the most one array may hold

# ndma's dtype names (NEFF spellings) → the NumPy dtype an array of it has.
# bfloat16 and the FP8 formats have no NumPy dtype: their arrays hold the
# bit patterns as unsigned integers of their width (docs/dtype.md).
DTYPES = {
    "uint64": np.dtype("<u8"), "int8": np.dtype("i1"), "uint8": np.dtype("u1"),
    "int16": np.dtype("<i2"), "uint16": np.dtype("<u2"), "bfloat16": np.dtype("<u2"),
    "float16": np.dtype("<f2"), "int32": np.dtype("<i4"), "uint32": np.dtype("<u4"),
    "float32": np.dtype("<f4"), "float32r": np.dtype("<f4"), "int64": np.dtype("<i8"),
    "float8e3": np.dtype("u1"), "float8e4": np.dtype("u1"), "float8e5": np.dtype("u1"),
    "float8e2": np.dtype("u1"),
}
ALIASES = {"bf16": "bfloat16", "float8_e4m3fn": "float8e4", "float8_e5m2": "float8e5",
           "fp8e3": "float8e3", "fp8e4": "float8e4", "fp8e5": "float8e5", "fp8e2": "float8e2",
           "fp16": "float16", "fp32": "float32"}
BITS = {"bfloat16", "float8e3", "float8e4", "float8e5", "float8e2"}  # held as bit patterns
FLOATS = BITS | {"float16", "float32", "float32r"}


def dtype_name(dt):
    """An ndma dtype name for a name or a NumPy dtype."""
    if isinstance(dt, str):
        n = ALIASES.get(dt.lower(), dt.lower())
        if n in DTYPES:
            return n
    try:
        d = np.dtype(dt)
    except TypeError:
        raise _errors.InputError("dtype %r: not a dtype ndma knows (%s)" % (dt, ", ".join(sorted(DTYPES))), "dtype") from None
    for n in ("uint64", "int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32", "int64"):
        if DTYPES[n] == d.newbyteorder("<") and d.byteorder in "=<|":
            return n
    raise _errors.InputError("dtype %s: not a dtype ndma knows (%s)" % (d, ", ".join(sorted(DTYPES))), "dtype")


def np_dtype(dt):
    """The NumPy dtype of an array of dtype dt (a name or a NumPy dtype)."""
    return DTYPES[dtype_name(dt)]


def check_shape(shape, itemsize, what="shape"):
    """shape as a tuple of positive ints within MAX_BYTES, refused before any allocation."""
    if isinstance(shape, int):
        shape = (shape,)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise _errors.InputError("%s %r: want a tuple of ints" % (what, shape), what) from None
    n = itemsize
    for s in shape:
        if s <= 0:
            raise _errors.InputError("%s %r: every axis must be positive" % (what, shape), what)
        n *= s
        if n > MAX_BYTES:
            raise _errors.InputError("%s %r: more than %d bytes" % (what, shape, MAX_BYTES), what)
    if not shape:
        raise _errors.InputError("%s (): want at least one axis" % what, what)
    return shape


def inbuf(a):
    """(address, nbytes) of a C-contiguous array (read during one call only)."""
    return (a.ctypes.data, a.nbytes)


def wordbuf(words):
    """Words (bytes-like or a uint8 array) as a contiguous uint8 array."""
    if isinstance(words, str):
        raise _errors.InputError("words: give bytes (asm() makes them from text)", "words")
    a = np.frombuffer(words, dtype=np.uint8) if not isinstance(words, np.ndarray) else words
    if a.dtype != np.uint8:
        raise _errors.InputError("words: a %s array: want uint8 (or bytes)" % a.dtype, "words")
    return np.ascontiguousarray(a.reshape(-1))


class Handle:
    """A Go object kept across calls; valid in the process (and library) that made it."""

    def __init__(self, h):
        self._lib = _lib.lib()
        self._h = h

    def _handle(self):
        if self._lib is not _lib.lib():
            raise _errors.Error(
                "ndma: this %s was made before os.fork(); a forked process has its own Go runtime: "
                "make it again in this process" % type(self).__name__)
        return self._h

    def __del__(self):
        L = getattr(self, "_lib", None)
        if L is not None and L.pid == os.getpid():
            try:
                _lib.call("free", {"handle": self._h}, lib_=L)
            except Exception:
                pass
