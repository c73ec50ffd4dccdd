"""bench/scale.sh's table: BenchmarkScale of ref and sim (fastest of the
runs) as time per operation and per unit of size, written between the
<!-- scale:begin --> and <!-- scale:end --> lines of the doc given.

    python3 bench/scale.py REF_BENCH SIM_BENCH DOC MACHINE
"""
import re
import sys

UNITS = {"copy": ("MiB", "ns/KiB", 1024), "gather": ("k indices", "ns/index", 1), "cast_fp32_bf16": ("M elements", "ns/k elements", 1000),
         "transpose_bf16": ("elements", "ns/k elements", 1000)}


def bench(path):
    best = {}
    for line in open(path):
        m = re.match(r"BenchmarkScale/(\S+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op.*?([\d.]+) cpu-ns/op", line)
        if m:
            k = m.group(1)
            w, c = float(m.group(3)), float(m.group(4))
            o = best.get(k, (float("inf"), float("inf")))
            best[k] = (min(o[0], w), min(o[1], c))
    return best


def units(name):
    kind, size = name.split("/")
    if kind == "copy":
        n = int(size[:-3]) * 1024  # KiB
    elif kind == "gather":
        n = int(size[:-1]) * 1024  # indices
    elif kind == "cast_fp32_bf16":
        n = int(size[:-1]) * 1024 * 1024 // 1000  # k elements
    else:
        a, b = size.split("x")
        n = int(a) * int(b) // 1000
    return kind, size, n


ref, sim = bench(sys.argv[1]), bench(sys.argv[2])
out = [f"Measured {sys.argv[4]} by `bench/scale.sh` (each case once untimed, then the fastest of its runs; wall and CPU",
       "ms per operation, and CPU time per unit of size — flat down a column is linear growth).", "",
       "| path | size | ref wall ms | ref CPU ms | ref CPU per unit | sim wall ms | sim CPU ms | sim CPU per unit |",
       "|---|---|---|---|---|---|---|---|"]
for name in ref:
    kind, size, n = units(name)
    unit = UNITS[kind][1]
    r, s = ref.get(name), sim.get(name)
    cell = lambda v: (f"{v[0] / 1e6:.2f}", f"{v[1] / 1e6:.2f}", f"{v[1] / n:.1f} {unit}") if v else ("-", "-", "-")
    out.append(f"| {kind} | {size} | " + " | ".join(cell(r)) + " | " + " | ".join(cell(s)) + " |")
table = "\n".join(out)
print(table)
doc = open(sys.argv[3]).read()
begin, end = "<!-- scale:begin -->", "<!-- scale:end -->"
i, j = doc.index(begin) + len(begin), doc.index(end)
open(sys.argv[3], "w").write(doc[:i] + "\n" + table + "\n" + doc[j:])
