"""docs/python.md's first example runs as written (the NEFF from NDMA_NEFF_SAMPLES)."""

import os
import re

import numpy as np

from conftest import ROOT, sample


def test_first_example(monkeypatch, capsys):
    with open(os.path.join(ROOT, "docs", "python.md")) as f:
        code = re.search(r"```python\n(.*?)```", f.read(), re.S).group(1)
    assert len(code.strip().splitlines()) <= 11
    code = code.replace('"matmul_small.neff"', repr(sample("matmul_small.neff")))
    monkeypatch.chdir(ROOT)
    env = {}
    exec(compile(code, "docs/python.md", "exec"), env)
    out = env["r"].outputs["output0"].astype(np.float32)
    want = env["x"].astype(np.float32) @ env["y"].astype(np.float32)
    assert np.allclose(out, want, rtol=2e-2, atol=5e-2)
    assert np.array_equal(env["dev"].read("sbuf:0:0x0", np.float32, (128,)), np.arange(128, dtype=np.float32))


def test_version_is_the_go_release():
    """ndma.__version__ is the Go core's release constant (internal/version), read here from
    the source, as `ndma --version` prints it."""
    import ndma
    src = open(os.path.join(ROOT, "internal", "version", "version.go")).read()
    assert ndma.__version__ == re.search(r'Release = "([^"]+)"', src).group(1)
