"""The execution backend: one function, run(program_json, arrays) -> (arrays, trace).

This first cut runs `ndma nki run` (the Go CLI) with .npy files; the ctypes
bridge can replace it without touching the tracer. The binary is $NDMA_BIN,
else `ndma` on PATH, else built once from this repository with `go build`.
"""
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_bin = None


class BackendError(RuntimeError):
    """ndma refused or failed the program: its message, as the CLI printed it."""


def _binary():
    global _bin
    if _bin:
        return _bin
    b = os.environ.get("NDMA_BIN") or shutil.which("ndma")
    if not b:
        out = os.path.join(tempfile.gettempdir(), "ndma-nki-%d" % os.getuid(), "ndma")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run(["go", "build", "-o", out, "./cmd/ndma"], cwd=_REPO, check=True)
        b = out
    _bin = b
    return b


def run(program_json, arrays):
    """Run a program (the dict the tracer builds) with input arrays by tensor
    name; returns (output arrays by name, trace dict)."""
    outs = [t["name"] for t in program_json["tensors"] if t.get("kind") == "output"]
    with tempfile.TemporaryDirectory(prefix="ndma-nki-") as d:
        prog = os.path.join(d, "prog.json")
        with open(prog, "w") as f:
            json.dump(program_json, f)
        cmd = [_binary(), "nki", "run", prog, "--quiet", "--trace", os.path.join(d, "trace.json")]
        for name, a in arrays.items():
            p = os.path.join(d, "in_%s.npy" % name)
            np.save(p, np.ascontiguousarray(a))
            cmd += ["--in", "%s=%s" % (name, p)]
        for name in outs:
            cmd += ["--out", "%s=%s" % (name, os.path.join(d, "out_%s.npy" % name))]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise BackendError(r.stderr.strip().removeprefix("ndma nki: ").removeprefix(prog + ": "))
        with open(os.path.join(d, "trace.json")) as f:
            trace = json.load(f)
        res = {name: np.load(os.path.join(d, "out_%s.npy" % name)) for name in outs}
    return res, trace
