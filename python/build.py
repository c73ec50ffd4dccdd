#!/usr/bin/env python3
"""Build ndma's Go core as the C shared library python/ndma/libndma.so.

    /usr/bin/python3 python/build.py [-o PATH]

Needs Go (go.mod's version) and a C compiler (cgo). Then
`PYTHONPATH=python python3 -c "import ndma"` works, and so does
`python3 -m pip install --no-index --no-build-isolation ./python`.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT = os.path.join(HERE, "ndma", "libndma.so")


def build(out=DEFAULT):
    """go build -buildmode=c-shared ./cmd/libndma into out (written whole: built beside it, renamed)."""
    out = os.path.abspath(out)
    tmp = out + ".tmp-%d" % os.getpid()
    env = dict(os.environ, CGO_ENABLED="1")
    cmd = ["go", "build", "-buildmode=c-shared", "-trimpath", "-o", tmp, "./cmd/libndma"]
    try:
        subprocess.run(cmd, cwd=ROOT, env=env, check=True)
        os.replace(tmp, out)
    finally:
        for p in (tmp, os.path.splitext(tmp)[0] + ".h", tmp + ".h"):
            if os.path.exists(p):
                os.unlink(p)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", default=DEFAULT, help="where the library goes (default: %(default)s)")
    a = ap.parse_args()
    try:
        print(build(a.o))
    except FileNotFoundError:
        sys.exit("build.py: `go` not found: install Go (see go.mod) to build ndma's library")
    except subprocess.CalledProcessError as e:
        sys.exit("build.py: %s failed (exit %d)" % (" ".join(e.cmd), e.returncode))


if __name__ == "__main__":
    main()
