"""End to end, as a user runs it (bench/compare.sh): `ndma run` with --load and
--dump .npy files (whole process, best of N) against NumPy doing the same
load + operation + save in-process (best of N), the results checked equal bit
for bit. Prints one line per path and executor with the ratio and its target.

    python3 bench/e2e.py NDMA_BINARY [N] [ONLY]

The .npy inputs go to a temporary directory (removed at the end); every file
is written before the first timing, so both sides read from the page cache.
Each side runs once untimed before its timings (the machine as the other
side's runs left it is not charged to it), and the files written so far are
synced to the disk before each side's timings (os.sync), so the kernel's
writeback of earlier files (30 s after they are written) does not land in
them.
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

ndma = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
only = sys.argv[3] if len(sys.argv) > 3 else ""

HBM_DST = "hbm:0x10000000"
COPY = """dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[1024, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[1024, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8"""
STRIDED = """dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[128, 8388480], src_num_elem=[65535, 8], src_elem_size=64,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[64, 4194240], dst_num_elem=[65535, 8], dst_elem_size=64, in_dtype=u8, out_dtype=u8"""
CAST = """dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[1024, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x8000, 0], dst_num_elem=[1024, 1], dst_elem_size=0x8000, in_dtype=fp32, out_dtype=fp16"""
ADD = """dmamemcpy compute_op=ADD, src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[1024, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[1024, 1], dst_elem_size=0, in_dtype=fp32, out_dtype=fp32"""
XPOSE = """dma_transpose in_dtype=fp16, out_dtype=fp16, src_start_addr=hbm:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, 65520], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x0,
  dst_step_elem=[2, 0x40000], dst_num_elem=[65520, 128]"""
GATHER = """dma_indirect idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1, src_start_addr=hbm:0x0,
  src_step_elem=16384, src_num_elem=4096, src_elem_size=16384, src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x10000000,
  dst_step_elem=16384, dst_num_elem=4096, dst_elem_size=16384, in_dtype=u8, out_dtype=u8"""


def best(f, n, child=False):
    """(wall, CPU) seconds, each the least of n runs: CPU is user + system
    time, the process's own (NumPy) or its children's (ndma) — on a shared
    machine the steadier of the two."""
    w, c = [], []
    for _ in range(n):
        r0, c0, s = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time(), time.perf_counter()
        f()
        w.append(time.perf_counter() - s)
        if child:
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            c.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
        else:
            c.append(time.process_time() - c0)
    return min(w), min(c)


def main():
    tmp = tempfile.mkdtemp(prefix="ndma-e2e.")
    try:
        run_all(tmp)
    finally:
        subprocess.run(["rm", "-rf", tmp])


def run_all(tmp):
    rng = np.random.default_rng(17)
    p = lambda name: os.path.join(tmp, name)
    cases = []  # name, label, word, loads [(addr, file)], dump spec, numpy fn(out file)

    def case(name, label, word, loads, dump, npfn):
        if only and only not in name:
            return
        cases.append((name, label, word, loads, dump, npfn))

    # inputs: written once, read by both sides
    u8 = rng.integers(0, 256, size=64 << 20, dtype=np.uint8)
    np.save(p("u8.npy"), u8)
    f32 = rng.uniform(-1, 1, size=16 << 20).astype(np.float32)
    np.save(p("f32.npy"), f32)
    f32b = rng.uniform(-1, 1, size=16 << 20).astype(np.float32)
    np.save(p("f32b.npy"), f32b)
    x16 = rng.uniform(-1, 1, size=(65520, 128)).astype(np.float16)
    np.save(p("x16.npy"), x16)
    table = rng.integers(0, 256, size=(4096, 16384), dtype=np.uint8)
    np.save(p("table.npy"), table)
    idx = rng.integers(0, 4096, size=4096).astype(np.uint32)
    # index j at partition j % 128, offset 4·(j / 128): row p of [128, 32] holds j = p + 128k
    np.save(p("idx.npy"), np.ascontiguousarray(idx.reshape(32, 128).T))
    del u8, f32, f32b, x16, table

    def np_copy(out):
        a = np.load(p("u8.npy"))
        np.save(out, a.copy())

    def np_strided(out):
        a = np.load(p("u8.npy"))[: 8 * 65535 * 128].reshape(8 * 65535, 128)
        np.save(out, np.ascontiguousarray(a[:, :64]))

    def np_cast(out):
        np.save(out, np.load(p("f32.npy")).astype(np.float16))

    def np_add(out):
        s, d = np.load(p("f32.npy")), np.load(p("f32b.npy"))
        np.add(d, s, out=d)
        np.save(out, d)

    def np_xpose(out):
        np.save(out, np.ascontiguousarray(np.load(p("x16.npy")).T))

    def np_gather(out):
        t = np.load(p("table.npy"))
        i = np.load(p("idx.npy")).T.reshape(4096)  # back to index order
        np.save(out, np.take(t, i, axis=0))

    case("copy", "contiguous 64 MiB u8 copy, HBM -> HBM", COPY, [("hbm:0x0", "u8.npy")],
         HBM_DST + ":u8:67108864", np_copy)
    case("strided", "strided: 8 x 65,535 rows of 64 B, every other one", STRIDED, [("hbm:0x0", "u8.npy")],
         HBM_DST + ":u8:524280x64", np_strided)
    case("cast", "cast fp32 -> fp16, 16 M elements (astype)", CAST, [("hbm:0x0", "f32.npy")],
         HBM_DST + ":fp16:16777216", np_cast)
    case("add", "in-flight ADD fp32, 16 M elements (np.add)", ADD, [("hbm:0x0", "f32.npy"), (HBM_DST, "f32b.npy")],
         HBM_DST + ":fp32:16777216", np_add)
    case("transpose", "2-byte transpose [65,520 x 128] -> SBUF (a.T)", XPOSE, [("hbm:0x0", "x16.npy")],
         "sbuf:0:0x0:fp16:128x65520", np_xpose)
    case("gather", "gather 4,096 rows x 16 KiB, indices in SBUF (take)", GATHER,
         [("hbm:0x0", "table.npy"), ("sbuf:0:0x0", "idx.npy")], HBM_DST + ":u8:4096x16384", np_gather)

    print(f"end to end, best of {reps}: ndma run --load/--dump .npy (whole process) vs NumPy {np.__version__} load+op+save in-process")
    print("(wall ms, and CPU ms = user + system; ratio = NumPy / ndma, higher is better for ndma)")
    print(f"{'data path':54} {'exec':4} {'ndma':>7} {'NumPy':>7} {'ratio':>6} {'ndma CPU':>9} {'NumPy CPU':>9} {'ratio':>6} {'target':>6}  result")
    for name, label, word, loads, dump, npfn in cases:
        src = p(name + ".s")
        with open(src, "w") as f:
            f.write(word + "\n")
        want = p(name + ".numpy.npy")
        npfn(want)  # warm-up, and the expected result
        os.sync()  # the files written so far reach the disk now, not in the kernel's writeback during a timing
        t_np, c_np = best(lambda: npfn(p(name + ".np2.npy")), reps)
        exp = np.load(want)
        for ex, target in (("ref", 1.0), ("sim", 0.5)):
            got = p(name + "." + ex + ".npy")
            cmd = [ndma, "run", "--gen", "cayman", "--exec", ex]
            for a, fn in loads:
                cmd += ["--load", a + "=" + p(fn)]
            cmd += ["--dump", dump + "=" + got, src]
            err = ""

            def run():
                nonlocal err
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    err = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1][:90]

            run()  # warm-up, as NumPy's first call above: not timed
            os.sync()
            t, c = best(run, reps, child=True)
            if err:
                print(f"{label:54} {ex:4} {'-':>7} {t_np * 1e3:7.0f} {'-':>6} {'-':>9} {c_np * 1e3:9.0f} {'-':>6} {target:5.1f}x  fails: {err}")
                continue
            g = np.load(got)
            same = g.shape == exp.shape and g.dtype == exp.dtype and g.tobytes() == exp.tobytes()
            ok = "equal" if same else "DIFFERS from NumPy"
            mark = "meets" if t_np / t >= target else "below"
            print(f"{label:54} {ex:4} {t * 1e3:7.0f} {t_np * 1e3:7.0f} {t_np / t:5.2f}x {c * 1e3:9.0f} {c_np * 1e3:9.0f} {c_np / max(c, 1e-9):5.2f}x {target:5.1f}x  {ok}, wall {mark}")
            os.remove(got)


main()
