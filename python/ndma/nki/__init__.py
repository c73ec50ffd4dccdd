"""ndma.nki: NKI kernels run on ndma — their DMA calls as the words a NeuronCore
issues, with a per-call trace (docs/nki.md).

    import ndma.nki as nki
    import ndma.nki.language as nl
    import ndma.nki.isa as nisa

A kernel written for neuronxcc.nki (legacy) or nki (NKI 0.6) runs after its
imports name ndma.nki instead. Targets: trn1, trn2, trn3 (target= or
NEURON_PLATFORM_TARGET_OVERRIDE).
"""
import functools
import os
import re

import numpy as np

from . import _backend, _trace
from . import language, isa, compiler, typing  # noqa: F401  (the submodules kernels import)
from ._tensor import NkiTensor


class OOBError(IndexError):
    """An index out of bounds under oob_mode=error (legacy wording)."""


class NKIError(RuntimeError):
    """A call NKI's rules refuse on the target, or a malformed program."""


_NP2NKI = {np.dtype(np.float32): "float32", np.dtype(np.float16): "float16", np.dtype(np.int32): "int32",
           np.dtype(np.uint32): "uint32", np.dtype(np.int8): "int8", np.dtype(np.uint8): "uint8",
           np.dtype(np.int16): "int16", np.dtype(np.uint16): "uint16"}


def _target(target):
    t = target or os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE") or "trn2"
    if t not in ("trn1", "trn2", "trn3"):
        raise ValueError("target %r: want trn1, trn2 or trn3" % t)
    return t


class TraceResult:
    """A traced run: the outputs, the program and ndma's per-call trace."""

    def __init__(self, outputs, program, trace):
        self.outputs, self.program, self.trace = outputs, program, trace

    def program_json(self):
        return self.program

    @property
    def calls(self):
        return self.trace["calls"]


def _run(kernel, args, kwargs, target):
    prog = _trace.Program(_target(target))
    _trace.push(prog)
    try:
        arrays, targs = {}, []
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                if a.dtype not in _NP2NKI:
                    raise TypeError("argument %d: dtype %s is not one ndma.nki takes" % (i, a.dtype))
                t = NkiTensor(a.shape, _NP2NKI[a.dtype], "hbm", name="arg%d" % i, kind="input")
                arrays[t.name] = a
                targs.append(t)
            else:
                targs.append(a)
        ret = kernel(*targs, **kwargs)
    finally:
        _trace.pop()
    rets = ret if isinstance(ret, (tuple, list)) else (ret,)
    for r in rets:
        if isinstance(r, NkiTensor):
            r.base.kind = "output"
    pj = prog.json()
    try:
        outs, trace = _backend.run(pj, arrays)
    except _backend.BackendError as e:
        msg = str(e)
        if re.search(r"index -?\d+ is out of bounds for axis \d+ with size \d+", msg):
            raise OOBError(msg) from None
        raise NKIError(msg) from None
    vals = [outs[r.base.name] if isinstance(r, NkiTensor) else r for r in rets]
    value = vals[0] if not isinstance(ret, (tuple, list)) else type(ret)(vals)
    return TraceResult(value, pj, trace)


def jit(kernel=None, target=None, **kw):
    """@nki.jit (also baremetal, simulate_kernel's kernel): calling the kernel
    with NumPy arrays traces it and runs it on ndma; it returns the outputs."""
    if kernel is None:
        return functools.partial(jit, target=target, **kw)

    @functools.wraps(kernel)
    def run(*args, **kwargs):
        return _run(kernel, args, kwargs, target).outputs
    run.kernel = kernel
    return run


baremetal = jit


def simulate_kernel(kernel, *args, target=None, **kwargs):
    """nki.simulate_kernel(kernel, *args): the outputs as NumPy arrays."""
    return _run(getattr(kernel, "kernel", kernel), args, kwargs, target).outputs


simulate = simulate_kernel


def trace(kernel, target=None):
    """ndma.nki.trace(kernel)(*args) -> TraceResult: outputs, program_json(), calls."""
    k = getattr(kernel, "kernel", kernel)
    return lambda *args, **kwargs: _run(k, args, kwargs, target)
