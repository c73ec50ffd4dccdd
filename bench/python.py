#!/usr/bin/env python3
"""Python ndma's speed beside NumPy and the CLI (issue 31 item 5):

    /usr/bin/python3 python/build.py && /usr/bin/python3 bench/python.py [NEFF]

Prints: `import ndma` time; a small call (ping, disasm of one word);
Device.write + read of 64 MiB against NumPy's copy of the same array (the
ratio is NumPy's time over ndma's: ≥ 0.5 is the target); and
neff.open(NEFF).run() against `ndma neff run NEFF` (the CLI built here),
as the ratio Python/CLI (≤ 1.2 is the target). Best of several runs each.
"""

import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))


def best(f, n):
    t = []
    for _ in range(n):
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
    return min(t)


def main():
    neff = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.environ.get("NDMA_NEFF_SAMPLES", os.path.join(ROOT, "..", "shared", "neff-samples")), "matmul_small.neff")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    imp = min(float(subprocess.run([sys.executable, "-c",
                                    "import time; t=time.perf_counter(); import ndma; print(time.perf_counter()-t)"],
                                   env=env, capture_output=True, text=True, check=True).stdout) for _ in range(5))
    npimp = min(float(subprocess.run([sys.executable, "-c",
                                      "import time; t=time.perf_counter(); import numpy; print(time.perf_counter()-t)"],
                                     capture_output=True, text=True, check=True).stdout) for _ in range(5))
    print("import ndma            %7.1f ms  (numpy alone %.1f ms; target ≤ 500 ms)" % (imp * 1e3, npimp * 1e3))

    import numpy as np
    import ndma
    from ndma import _lib
    n = 20000
    ping = best(lambda: [_lib.call("ping") for _ in range(n)], 3) / n
    w = ndma.asm(".gen cayman\ndmamemcpy src_start_addr=hbm:0x0, dst_start_addr=hbm:0x100, src_num_elem=[1,1], dst_num_elem=[1,1], src_elem_size=4, dst_elem_size=4, in_dtype=u32, out_dtype=u32\n")
    dis = best(lambda: [ndma.disasm(w, "cayman") for _ in range(n // 4)], 3) / (n // 4)
    d = ndma.Device("cayman")
    small = np.arange(16, dtype=np.float32)
    rw = best(lambda: [d.read("hbm:0x0", np.float32, (16,)) for _ in range(n // 4)], 3) / (n // 4)
    import json
    jl = best(lambda: [json.loads(b'{"value":0}') for _ in range(n)], 3) / n
    print("small call (ping)      %7.2f µs  (target ≤ 10 µs; Python's own json.loads of 11 bytes: %.2f µs)" % (ping * 1e6, jl * 1e6))
    print("disasm of one word     %7.2f µs" % (dis * 1e6))
    print("Device.read 64 bytes   %7.2f µs" % (rw * 1e6))

    a = np.random.default_rng(0).integers(0, 255, 64 << 20, dtype=np.uint8)
    npcopy = best(lambda: a.copy(), 5)

    def wr():
        dev = ndma.Device("cayman")
        dev.write("hbm:0x0", a)
        dev.read("hbm:0x0", np.uint8, a.shape)
    ndmawr = best(wr, 5)
    # write then read is two copies; NumPy's copy is one: the ratio is per copy
    print("64 MiB numpy copy      %7.2f ms  (%.1f GiB/s)" % (npcopy * 1e3, 64 / 1024 / npcopy))
    print("64 MiB write+read      %7.2f ms  (%.1f GiB/s per copy)" % (ndmawr * 1e3, 2 * 64 / 1024 / ndmawr))
    print("copy ratio             %7.2f  (numpy copy / (write+read)/2; target ≥ 0.5)" % (npcopy / (ndmawr / 2)))
    print("copy ratio, whole      %7.2f  (numpy copy / (write+read))" % (npcopy / ndmawr))

    if not os.path.exists(neff):
        print("no NEFF at %s: neff run ratio skipped" % neff)
        return
    with tempfile.TemporaryDirectory() as tmp:
        cli = os.path.join(tmp, "ndma")
        subprocess.run(["go", "build", "-o", cli, "./cmd/ndma"], cwd=ROOT, check=True)
        out = os.path.join(tmp, "o.npy")
        tcli = best(lambda: subprocess.run([cli, "neff", "run", neff, "--out", "output0=" + out], check=True,
                                           stdout=subprocess.DEVNULL), 5)
        tpy = best(lambda: ndma.neff.open(neff).run().outputs, 5)
        print("neff run (CLI)         %7.1f ms  %s" % (tcli * 1e3, os.path.basename(neff)))
        print("neff open+run (Python) %7.1f ms" % (tpy * 1e3))
        print("neff run ratio         %7.2f  (Python / CLI; target ≤ 1.2)" % (tpy / tcli))


if __name__ == "__main__":
    main()
