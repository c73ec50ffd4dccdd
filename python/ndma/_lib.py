"""The Go core as a C shared library (cmd/libndma), loaded with ctypes.

One C function, ``ndma_call(name, json, buffers)``, reaches every entry
point of internal/pybridge; arguments go as JSON, arrays by pointer, and the
answer comes back as JSON plus an optional byte blob.

Fork: a Go runtime does not survive ``os.fork`` (the child has one thread;
the runtime's others are gone, and a call into it can hang). A forked child
therefore never calls the library its parent loaded: its first call loads a
fresh copy (a private copy of the .so, so the dynamic loader does not hand
back the parent's), and objects made before the fork raise ``ndma.Error``.
"""

import ctypes
import json
import os
import shutil
import tempfile
import threading

from . import _errors

_NAME = "libndma.so"


def _path():
    p = os.environ.get("NDMA_LIB")
    if p:
        return p
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), _NAME)


class _Lib:
    """One loaded copy of the library, in one process."""

    def __init__(self, path, pid):
        self.pid = pid
        self.path = path
        lib = ctypes.CDLL(path)
        f = lib.ndma_call
        f.restype = ctypes.c_void_p
        f.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                      ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t), ctypes.c_int,
                      ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_void_p),
                      ctypes.POINTER(ctypes.c_size_t)]
        lib.ndma_free.restype = None
        lib.ndma_free.argtypes = [ctypes.c_void_p]
        self.call = f
        self.free = lib.ndma_free
        self.lib = lib


_lock = threading.Lock()
_current = None
_copies = []  # private copies loaded in forked children, removed at exit


def _load():
    global _current
    pid = os.getpid()
    with _lock:
        if _current is not None and _current.pid == pid:
            return _current
        path = _path()
        if not os.path.exists(path):
            raise _errors.Error(
                "ndma: the Go library %s is missing: build it with `python3 python/build.py` "
                "(or set NDMA_LIB to its path)" % path)
        if _current is not None:
            # a forked child: the parent's Go runtime is unusable here; load a copy
            fd, copy = tempfile.mkstemp(prefix="libndma-%d-" % pid, suffix=".so")
            os.close(fd)
            shutil.copyfile(path, copy)
            _copies.append(copy)
            path = copy
        _current = _Lib(path, pid)
        return _current


_valid = False  # _current is this process's: cleared in a forked child (os.register_at_fork)


def _forked():
    global _valid
    _valid = False


os.register_at_fork(after_in_child=_forked)


def lib():
    """The library of this process (loaded at import; reloaded after fork)."""
    global _valid
    if _valid:
        return _current
    L = _load()
    _valid = True
    return L


def generation():
    """An identity of the loaded library: a handle is valid only under it."""
    return lib()


_EMPTY = (ctypes.c_void_p * 0)()
_EMPTY_LENS = (ctypes.c_size_t * 0)()


def call(name, args=None, bufs=(), lib_=None):
    """Run entry point name: (value, blob). bufs are (address, nbytes) pairs.

    Raises the ndma exception the Go side classifies.
    """
    L = lib_ if lib_ is not None else lib()
    a = json.dumps(args, separators=(",", ":")).encode() if args is not None else b""
    n = len(bufs)
    if n:
        ptrs = (ctypes.c_void_p * n)(*[b[0] for b in bufs])
        lens = (ctypes.c_size_t * n)(*[b[1] for b in bufs])
    else:
        ptrs, lens = _EMPTY, _EMPTY_LENS
    alen = ctypes.c_size_t()
    blob = ctypes.c_void_p()
    blen = ctypes.c_size_t()
    p = L.call(name.encode(), a, len(a), ptrs, lens, n, ctypes.byref(alen), ctypes.byref(blob), ctypes.byref(blen))
    try:
        answer = ctypes.string_at(p, alen.value)
    finally:
        L.free(p)
    data = b""
    if blob.value:
        try:
            data = ctypes.string_at(blob.value, blen.value)
        finally:
            L.free(blob.value)
    out = json.loads(answer)
    if "error" in out:
        raise _errors.from_go(out["error"])
    return out["value"], data


def _cleanup():
    for c in _copies:
        try:
            os.unlink(c)
        except OSError:
            pass


import atexit  # noqa: E402

atexit.register(_cleanup)
