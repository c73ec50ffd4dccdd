"""After a fork the child's calls work on a fresh copy of the library, objects of
the parent raise, and nothing hangs (each child under a timeout)."""

import multiprocessing as mp
import os
import threading
import time

import numpy as np
import pytest

import ndma
from conftest import example

MEMCPY = example("memcpy.s")


def child_work():
    d = ndma.Device("cayman")
    x = np.arange(128, dtype=np.float32)
    d.write("hbm:0x0", x)
    d.run(ndma.asm(MEMCPY))
    return bool((d.read("sbuf:0:0x0", np.float32, (128,)) == x).all())


def wait(pid, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        r, st = os.waitpid(pid, os.WNOHANG)
        if r:
            return os.waitstatus_to_exitcode(st)
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("a forked child hung")


@pytest.mark.parametrize("busy", [False, True])
def test_raw_fork(busy):
    parent_dev = ndma.Device("cayman")
    w = ndma.asm(MEMCPY)
    stop = threading.Event()

    def spin():  # a parent thread inside Go while the fork happens
        while not stop.is_set():
            ndma.Device("cayman").run(w)

    t = threading.Thread(target=spin, daemon=True)
    if busy:
        t.start()
    try:
        for _ in range(8):
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    if not child_work():
                        code = 2
                    try:
                        parent_dev.run(w)
                        code = 3
                    except ndma.Error as e:
                        if "fork" not in str(e):
                            code = 4
                except BaseException:
                    code = 1
                os._exit(code)
            assert wait(pid) == 0
    finally:
        stop.set()
    assert parent_dev.run(w)["words"] == 2  # the parent's library is untouched


def pool_task(i):
    return child_work() and i


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_multiprocessing(method):
    ctx = mp.get_context(method)
    with ctx.Pool(2) as pool:
        res = pool.map_async(pool_task, range(6))
        assert res.get(timeout=120) == list(range(6))
