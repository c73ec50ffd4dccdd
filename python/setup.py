"""setuptools build of the ndma package: the Go library is built (build.py)
when python/ndma/libndma.so is not there yet, and shipped as package data.

    /usr/bin/python3 -m pip install --no-index --no-build-isolation ./python
"""

import os
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithGo(build_py):
    def run(self):
        lib = os.path.join(HERE, "ndma", "libndma.so")
        if not os.path.exists(lib):
            sys.path.insert(0, HERE)
            import build  # python/build.py
            build.build(lib)
        super().run()


setup(cmdclass={"build_py": BuildWithGo})
