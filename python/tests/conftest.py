import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))  # python/: the package as built in place (build.py) or NDMA_LIB


def example(name):
    with open(os.path.join(ROOT, "examples", name)) as f:
        return f.read()


def sample(name):
    """A real NEFF of NDMA_NEFF_SAMPLES (read in place), or skip — fail under NDMA_REQUIRE_SAMPLES=1."""
    d = os.environ.get("NDMA_NEFF_SAMPLES", "")
    p = os.path.join(d, name)
    if d and os.path.exists(p):
        return p
    if os.environ.get("NDMA_REQUIRE_SAMPLES") == "1":
        pytest.fail("NDMA_REQUIRE_SAMPLES=1 but %s is not in NDMA_NEFF_SAMPLES=%r" % (name, d))
    pytest.skip("no %s: set NDMA_NEFF_SAMPLES" % name)


def ndma_cli(tmp_path):
    """The ndma CLI built from this tree into tmp_path (Go's build cache makes it cheap), or skip."""
    import shutil
    import subprocess
    go = shutil.which("go")
    if go is None:
        pytest.skip("needs Go to build the ndma CLI")
    exe = str(tmp_path / "ndma")
    subprocess.run([go, "build", "-o", exe, "./cmd/ndma"], cwd=ROOT, check=True)
    return exe
