"""ndma.nki: NKI kernels run on ndma — their DMA calls as the words a NeuronCore
issues, with a per-call trace and a predicted timeline (docs/nki.md).

    import ndma.nki as nki
    import ndma.nki.language as nl
    import ndma.nki.isa as nisa

A kernel written for neuronxcc.nki (legacy) or nki (NKI 0.6) runs after its
imports name ndma.nki instead. Targets: trn1, trn2, trn3 (target= or
NEURON_PLATFORM_TARGET_OVERRIDE).
"""
import functools
import gc
import json
import os
import tempfile

import numpy as np

from . import _trace
from . import language, isa, compiler, typing  # noqa: F401  (the submodules kernels import)
from ._tensor import NkiTensor
from .._errors import OOBError, NKIError  # noqa: F401  (ndma.nki.OOBError is ndma.OOBError, an IndexError)

__all__ = ["jit", "baremetal", "benchmark", "simulate_kernel", "simulate", "trace", "TraceResult",
           "OOBError", "NKIError", "language", "isa", "compiler", "typing"]

_NP2NKI = {np.dtype(np.float32): "float32", np.dtype(np.float16): "float16", np.dtype(np.int32): "int32",
           np.dtype(np.uint32): "uint32", np.dtype(np.int8): "int8", np.dtype(np.uint8): "uint8",
           np.dtype(np.int16): "int16", np.dtype(np.uint16): "uint16"}


def _target(target):
    t = target or os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE") or "trn2"
    if t not in ("trn1", "trn2", "trn3"):
        raise ValueError("target %r: want trn1, trn2 or trn3" % t)
    return t


class TraceResult:
    """A traced run: the outputs, the program and ndma's per-call trace.

    ``calls``: per call, in program order — ``op``, ``file``, ``line``,
    ``kind`` (dma / compute), ``dge_mode``, ``backend``, ``queue``,
    ``engine``, ``exact``, ``note``, ``words`` (``hex``, ``text``, and
    ``resolved`` for a relocated hwdge word), ``bytes``, ``descriptors``,
    ``rows_skipped``, ``time_ns`` (predicted: the model named by
    ``model``). ``time_ns`` is the kernel's predicted time, the calls one
    after another.
    """

    def __init__(self, outputs, program, calls, model, target):
        self.outputs, self._program, self.calls = outputs, program, calls  # program: a dict, or a function making it
        self.model, self.target = model, target
        self.time_ns = sum(c.get("time_ns", 0) for c in calls)
        self.dma_ns = sum(c.get("time_ns", 0) for c in calls if c.get("kind") == "dma")
        self.inexact = [c["index"] for c in calls if c.get("kind") == "compute" and not c.get("exact")]

    def program_json(self):
        """The kernel's calls in the program form `ndma nki run` replays (docs/nki.md)."""
        if callable(self._program):  # made on demand: a jit run never pays for it
            self._program = self._program()
        return self._program

    def timeline(self, path):
        """Write the predicted timeline as Chrome trace events (Perfetto,
        chrome://tracing): one track per DMA queue or compute engine, the
        calls one after another. Written whole or not at all."""
        events, t, tracks = [], 0.0, {}
        for c in self.calls:
            track = c.get("queue") or c.get("engine") or c.get("kind", "")
            tid = tracks.setdefault(track, len(tracks) + 1)
            dur = c.get("time_ns", 0) / 1000.0
            args = {k: c[k] for k in ("bytes", "descriptors", "dge_mode", "rows_skipped", "exact", "note") if k in c}
            if c.get("words"):
                args["words"] = [w["text"] for w in c["words"][:8]]
            events.append({"name": c["op"], "cat": c.get("kind", ""), "ph": "X", "ts": t, "dur": dur, "pid": 1,
                           "tid": tid, "args": dict(args, line="%s:%s" % (c.get("file", ""), c.get("line", 0)))})
            t += dur
        for name, tid in tracks.items():
            events.append({"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": name}})
        events.append({"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "ndma.nki %s (predicted)" % self.target}})
        doc = {"traceEvents": events, "displayTimeUnit": "ns",
               "otherData": {"model": self.model, "predicted": True, "time_ns": self.time_ns}}
        path = os.fspath(path)
        if os.path.islink(path) or os.path.exists(path) and not os.path.isfile(path):
            raise ValueError("%s: not a regular file; the timeline is not written over it" % path)
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".timeline-", dir=d)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(doc, f)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise


def _grid(g):
    """An SPMD launch grid as a tuple of positive ints (kernel[4], kernel[2, 3])."""
    g = tuple(g) if isinstance(g, (tuple, list)) else (g,)
    if not g or len(g) > 4 or any(not isinstance(v, (int, np.integer)) or v < 1 for v in g):
        raise ValueError("SPMD grid %r: want 1 to 4 positive ints" % (g,))
    if int(np.prod(g)) > 65536:
        raise ValueError("SPMD grid %r: %d instances, at most 65536" % (g, int(np.prod(g))))
    return tuple(int(v) for v in g)


def _instances(kernel, targs, kwargs, sess, grid):
    """The kernel's return: once, or under an SPMD grid once per instance in row-major
    order of program ids, instance 0's return (the shared tensors the others also write)."""
    if not grid:
        return kernel(*targs, **kwargs)
    sess.grid, ret = grid, None
    for idx in np.ndindex(*grid):
        sess.program_ids, sess.nshared = tuple(int(i) for i in idx), 0
        r = kernel(*targs, **kwargs)
        if not any(idx):
            ret = r
    return ret


def _run(kernel, args, kwargs, target, want_trace=False, exec="fast", grid=()):
    sess = _trace.Session(_target(target), exec=exec, want_trace=want_trace)
    _trace.push(sess)
    # A traced kernel allocates a few objects per call that live on (the
    # program) or die by reference count (tiles: no cycles); the cyclic
    # collector's passes over them cost ~10 us a call (bench/nki_calls.py),
    # so they run 100x less often while the kernel runs.
    th = gc.get_threshold()
    gc.set_threshold(max(th[0], 70000), *th[1:])
    try:
        targs, hbm_args = [], []
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                if a.dtype not in _NP2NKI:
                    raise TypeError("argument %d: dtype %s is not one ndma.nki takes (%s)"
                                    % (i, a.dtype, ", ".join(sorted(set(_NP2NKI.values())))))
                c = np.ascontiguousarray(a)
                t = NkiTensor(a.shape, _NP2NKI[a.dtype], "hbm", name="arg%d" % i, kind="input", array=c)
                targs.append(t)
                hbm_args.append((t, a))
            else:
                targs.append(a)
        try:
            ret = _instances(kernel, targs, kwargs, sess, grid)
            sess.flush()
        except _trace.NKIRefusal as e:
            raise NKIError(str(e)) from None
        rets = ret if isinstance(ret, (tuple, list)) else (ret,)
        vals = []
        for r in rets:
            if isinstance(r, NkiTensor):
                for d in sess.all_tensors:
                    if d["name"] == r.base.name and d.get("kind") != "input":
                        d["kind"] = "output"
                vals.append(sess.read(r.base) if r.base.buffer.endswith("hbm") else
                            np.array(sess.view(r), copy=True))
            else:
                vals.append(r)
        # baremetal: an argument the kernel wrote is written back in place
        written = sess.written
        for t, a in hbm_args:
            if t.name in written and a.flags.writeable:
                np.copyto(a, sess.read(t).reshape(a.shape))
        value = vals[0] if not isinstance(ret, (tuple, list)) else type(ret)(vals)
        if ret is None:
            value = None
        calls = sess.trace if want_trace else []
        return TraceResult(value, sess.program_json, calls, sess.model, sess.target)
    finally:
        gc.set_threshold(*th)
        _trace.pop()
        sess.close()


def _nested(args, kwargs=None):
    """Inside a running kernel, with tensors for arguments (positional or by keyword, as
    nki-samples' flash_fwd calls its helpers): a kernel calling another."""
    return bool(_trace._current) and (any(isinstance(a, NkiTensor) for a in args) or
                                      any(isinstance(a, NkiTensor) for a in (kwargs or {}).values()))


class _Kernel:
    """A jit kernel: calling it with NumPy arrays traces it and runs it on ndma
    (the outputs); kernel[grid] launches it as an SPMD grid (nl.program_id)."""

    def __init__(self, kernel, target, exec, grid=()):
        self.kernel, self.target, self.exec, self.grid = kernel, target, exec, grid
        functools.update_wrapper(self, kernel)

    def __getitem__(self, grid):
        return _Kernel(self.kernel, self.target, self.exec, _grid(grid))

    def __call__(self, *args, **kwargs):
        if _nested(args, kwargs):
            if self.grid:
                raise NKIError("%s[%s] called inside a kernel: an SPMD launch is the top level only"
                               % (self.kernel.__name__, ", ".join(map(str, self.grid))))
            return self.kernel(*args, **kwargs)
        return _run(self.kernel, args, kwargs, self.target, exec=self.exec, grid=self.grid).outputs


def _grid_of(kernel):
    return getattr(kernel, "grid", ())


def jit(kernel=None, target=None, exec="fast", **kw):
    """@nki.jit (also baremetal): calling the kernel with NumPy arrays traces
    it and runs it on ndma; it returns the outputs. Called from inside
    another kernel with tensors, it is inlined there. kernel[grid](...)
    runs it once per SPMD instance (docs/nki.md "Python names")."""
    if kernel is None:
        return functools.partial(jit, target=target, exec=exec, **kw)
    return _Kernel(kernel, target, exec)


baremetal = jit


class _Latency:
    """nc_latency: the predicted latency (ndma's time model; not measured)."""

    predicted = True

    def __init__(self, ns, model):
        self.ns, self.model = ns, model

    def get_latency_percentile(self, p):
        """The predicted latency in microseconds (every percentile: one prediction)."""
        return self.ns / 1000.0

    def __repr__(self):
        return "nc_latency(predicted %.3f us; %s)" % (self.ns / 1000.0, self.model)


class BenchmarkResult:
    """benchmark's result: ``nc_latency`` is ndma's predicted latency, not a
    measurement (``predicted`` is True; ``trace`` the run's TraceResult)."""

    predicted = True

    def __init__(self, tr):
        self.trace = tr
        self.nc_latency = _Latency(tr.time_ns, tr.model)


def benchmark(kernel=None, warmup=None, iters=None, target=None, save_neff_name=None, save_trace_name=None, **kw):
    """nki.benchmark(warmup=, iters=)(kernel): calling it runs the kernel
    once on ndma (warmup and iters do not change a prediction) and keeps
    ``.benchmark_result``, whose nc_latency is the PREDICTED latency."""
    if kernel is None:
        return functools.partial(benchmark, warmup=warmup, iters=iters, target=target,
                                 save_trace_name=save_trace_name, **kw)
    k = getattr(kernel, "kernel", kernel)

    @functools.wraps(k)
    def run(*args, **kwargs):
        tr = _run(k, args, kwargs, target, want_trace=True, grid=_grid_of(kernel))
        run.benchmark_result = BenchmarkResult(tr)
        if save_trace_name:
            tr.timeline(save_trace_name)
        return tr.outputs
    run.kernel = k
    run.benchmark_result = None
    return run


def simulate_kernel(kernel, *args, target=None, **kwargs):
    """nki.simulate_kernel(kernel, *args): the outputs as NumPy arrays."""
    return _run(getattr(kernel, "kernel", kernel), args, kwargs, target, grid=_grid_of(kernel)).outputs


def simulate(kernel, *args, target=None, **kwargs):
    """nki.simulate(kernel)(*args) or nki.simulate(kernel, *args): the outputs."""
    k, g = getattr(kernel, "kernel", kernel), _grid_of(kernel)
    if args or kwargs:
        return _run(k, args, kwargs, target, grid=g).outputs
    return lambda *a, **kw: _run(k, a, kw, target, grid=g).outputs


def trace(kernel, target=None, exec="fast"):
    """ndma.nki.trace(kernel)(*args) -> TraceResult: outputs, calls,
    program_json(), timeline(path). exec="sim" runs every word on the
    descriptor engines, each timed by the packet-level model (slower; the
    same times), "ref" gives no time."""
    k, g = getattr(kernel, "kernel", kernel), _grid_of(kernel)
    return lambda *args, **kwargs: _run(k, args, kwargs, target, want_trace=True, exec=exec, grid=g)
