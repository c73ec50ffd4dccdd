"""The in-process table of bench/compare.sh: each internal/benchcase path on
ref and sim (go test -bench, the fastest of -count runs) against its NumPy
equivalent (bench/numpy_ref.py, same name), and the float casts of
internal/num against NumPy's astype.

    python3 bench/ratios.py REF_BENCH SIM_BENCH NUM_BENCH NUMPY_OUT
"""
import re
import sys


def bench(path):
    """name -> fastest ns/op of a go test -bench output."""
    best = {}
    for line in open(path):
        m = re.match(r"Benchmark\w+/(\S+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op", line)
        if m:
            best[m.group(1)] = min(best.get(m.group(1), float("inf")), float(m.group(3)))
    return best


ref, sim, conv = bench(sys.argv[1]), bench(sys.argv[2]), bench(sys.argv[3])
npy = {}
for line in open(sys.argv[4]):
    k, v = line.split()
    npy[k] = float(v) * 1e9

print("in process (go test -bench vs NumPy in-process; ms per operation)")
print(f"{'benchcase path':32} {'ref ms':>8} {'sim ms':>8} {'NumPy':>8} {'ref/NumPy':>10} {'sim/ref':>8} {'sim/NumPy':>10}")
fmt = lambda v: f"{v / 1e6:8.2f}" if v else f"{'-':>8}"
for name in ref:
    r, s, n = ref.get(name), sim.get(name), npy.get(name)
    rr = f"{n / r:6.2f}x {'ok' if n / r >= 1 else '--'}" if r and n else "-"
    sr = f"{r / s:5.2f}x {'ok' if r / s >= 0.5 else '--'}" if r and s else "-"
    sn = f"{n / s:6.2f}x" if s and n else "-"
    print(f"{name:32} {fmt(r)} {fmt(s)} {fmt(n)} {rr:>10} {sr:>8} {sn:>10}")
print("  targets: ref >= 1x NumPy (ok), sim >= 0.5x ref (ok); '--' is below its target")
print()
print("float casts, 16 M elements (internal/num ConvertSlice; NumPy astype where it has the pair)")
ref32to16 = npy.get("cast_fp32_fp16_16M")
ref16to32 = npy.get("cast_fp16_fp32_16M")
for name, v in conv.items():
    line = f"  {name:16} {v / 1e6:8.2f} ms  {16.777216e6 / v * 1e3:7.0f} M elements/s"
    if name == "fp32_fp16" and ref32to16:
        line += f"   {ref32to16 / v:5.2f}x NumPy astype (target >= 1: {'ok' if ref32to16 >= v else '--'})"
    elif name == "fp16_fp32" and ref16to32:
        line += f"   {ref16to32 / v:5.2f}x NumPy astype (target >= 1: {'ok' if ref16to32 >= v else '--'})"
    elif ref32to16:
        line += f"   {ref32to16 / v:5.2f}x NumPy's fp32 -> fp16 astype (NumPy has no such pair)"
    print(line)
