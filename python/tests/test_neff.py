"""ndma.neff: open, tensors, check, lint, budget, diff, report, run — against an
independent walk of the NEFF's own JSON (tarfile + json here, never ndma's resolver)."""

import io
import json
import os
import tarfile

import numpy as np
import pytest

import ndma
from conftest import sample

HEADER = 0x400  # neff.md: the header's size; the tar (gzip or raw) follows


def walk(path):
    """neff.json's graph: every input and output name → (dtype, shape)."""
    with open(path, "rb") as f:
        t = tarfile.open(fileobj=io.BytesIO(f.read()[HEADER:]), mode="r:*")
    j = json.load(t.extractfile("neff.json"))
    shapes, dtypes, rows = j["attrs"]["shape"][1], j["attrs"]["dltype"][1], j["node_row_ptr"]
    ins, outs = {}, {}
    for n in j["arg_nodes"]:
        e = rows[n]
        ins[j["nodes"][n]["name"]] = (dtypes[e], tuple(shapes[e]))
    for node, idx, _ in j["heads"]:
        e = rows[node] + idx
        outs[j["nodes"][node]["output_names"][idx]] = (dtypes[e], tuple(shapes[e]))
    return ins, outs


@pytest.fixture(scope="module")
def small():
    return ndma.neff.open(sample("matmul_small.neff"))


def test_open(small):
    ins, outs = walk(small.path)
    assert {k: (t.dtype, t.shape) for k, t in small.tensors.items() if t.kind == "input"} == ins
    assert {k: (t.dtype, t.shape) for k, t in small.tensors.items() if t.kind == "output"} == outs
    assert small.gen == "cayman" and [s["name"] for s in small.subgraphs] == ["sg00", "sg01"][:len(small.subgraphs)]
    placed = [v for v in small.variables if v["kind"] == "input"]
    assert placed and all(isinstance(v["address"], int) for v in placed)
    assert all(set(v) == {"subgraph", "var_id", "name", "kind", "size", "address", "file_name"} for v in small.variables)


def test_check_lint_budget_diff(small):
    c = small.check()
    assert c["problems"] == [] and c["words"] > 0
    lint = small.lint()
    assert lint["queues"] and "findings" in lint and "budget" in lint
    assert sum(q["words"] for q in lint["queues"]) == lint["words"]
    assert sum(q["descriptors"] for q in lint["queues"]) == lint["descriptors"] > 0
    # one kernel time: lint's is the run's (it once read 0 from Python)
    assert lint["kernel_time_ns"] == small.run().time_ns > 0
    b = small.budget()
    assert b["problems"] == [] and {e["subgraph"] for e in b["engines"]} == {s["name"] for s in small.subgraphs}
    assert small.diff(small)["same"] is True
    other = ndma.neff.open(small.path)
    assert small.diff(other)["same"] is True


def test_run_is_numpys_matmul(small):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((128, 256)).astype(np.float16)
    y = rng.standard_normal((256, 128)).astype(np.float16)
    r = small.run(inputs={"x": x, "y": y})
    out = r.outputs["output0"]
    assert out.dtype == np.float16 and out.shape == (128, 128)
    want = x.astype(np.float32) @ y.astype(np.float32)
    assert np.allclose(out.astype(np.float32), want, rtol=2e-2, atol=5e-2)
    # float32 input for a float16 tensor: rounded to nearest even, as NumPy's astype rounds
    r32 = small.run(inputs={"x": x.astype(np.float32), "y": y.astype(np.float32)})
    assert np.array_equal(r32.outputs["output0"], out)
    # non-contiguous and read-only inputs are read as NumPy lays them out
    big = np.zeros((128, 512), np.float16)
    big[:, ::2] = x
    y.flags.writeable = False
    rn = small.run(inputs={"x": big[:, ::2], "y": y})
    assert np.array_equal(rn.outputs["output0"], out)
    assert np.array_equal(r.read("x"), x)


def test_run_account(small, tmp_path):
    r = small.run(timeline=True)
    t = r.transfers
    assert set(t.dtype.names) == {"subgraph", "engine", "queue", "block", "offset", "src", "dst", "bytes",
                                  "issue_ns", "start_ns", "end_ns"}
    assert len(t) > 0 and (t["start_ns"] >= t["issue_ns"]).all() and (t["end_ns"] >= t["start_ns"]).all()
    # the kernel time is DMA and compute on one clock: at least the last transfer's end, and
    # the end of the last event its timeline draws (compute words included)
    assert r.time_ns >= t["end_ns"].max()
    path = tmp_path / "t.json"
    r.timeline(str(path))
    ev = [e for e in json.loads(path.read_text())["traceEvents"] if e.get("ph") == "X"]
    assert abs(max(e["ts"] + e.get("dur", 0) for e in ev) * 1000 - r.time_ns) < 1
    assert r.computed.get("MATMUL", 0) > 0
    ref = small.run(exec="ref")
    # one byte count across executors: the payload each transfer writes
    assert sorted(ref.transfers["bytes"].tolist()) == sorted(t["bytes"].tolist())
    assert ref.time_ns == 0 and np.array_equal(ref.outputs["output0"], r.outputs["output0"])


def test_timeline_and_report(small, tmp_path):
    r = small.run(timeline=True)
    p = tmp_path / "t.json"
    r.timeline(p)
    assert json.loads(p.read_text())["traceEvents"]
    q = tmp_path / "none.json"
    with pytest.raises(ndma.InputError):
        small.run().timeline(q)
    assert not q.exists()
    h = tmp_path / "r.html"
    small.report(h)
    assert h.read_text().lstrip().lower().startswith("<!doctype html")
    assert isinstance(small.report(), dict)
    with pytest.raises(ndma.Error):
        small.report(tmp_path / "no-such-dir" / "r.html")
    assert not (tmp_path / "no-such-dir").exists()
    assert sorted(os.listdir(tmp_path)) == ["r.html", "t.json"]  # no staged leftovers


def test_bad_inputs(small):
    x = np.zeros((128, 256), np.float16)
    y = np.zeros((256, 128), np.float16)
    cases = [
        ({"x": x.astype(np.int32), "y": y}, "x", "dtype"),
        ({"x": x, "y": y.T}, "y", "shape"),
        ({"x": x}, "y", "missing"),
        ({"x": x, "y": y, "z": y}, "z", "no such input"),
        ({"x": x.astype(np.float64), "y": y}, "x", "float32"),
    ]
    for inputs, culprit, words in cases:
        with pytest.raises(ndma.InputError) as e:
            small.run(inputs=inputs)
        assert e.value.name == culprit and repr(culprit) in str(e.value) and words in str(e.value)
    with pytest.raises(ndma.InputError):
        small.run(exec="fastest")
    with pytest.raises(ndma.InputError):
        small.run(engine_time={"NO_SUCH": 5})
    with pytest.raises(ndma.InputError):
        small.run(engine_time={"DMAMEMCPY": 5})  # the DMA model times it
    with pytest.raises(ndma.InputError):
        small.run(engine_time={"PSEUDO_DMA_DIRECT2D": 5})  # run as the DMA word it names
    with pytest.raises(ndma.InputError):
        small.run(engine_time={"MATMUL": "fast"})
    for bad in (1.5, True, None):
        with pytest.raises(TypeError):
            small.run(engine_time={"MATMUL": bad})


def test_engine_time_as_the_cli_takes_it(small):
    # a duration string is what --engine-time takes: "10us" is 10,000 ns; a MATMUL of 10 µs
    # (16 of them, on the PE's chain to the store) lengthens the kernel
    base = small.run().time_ns
    by_ns = small.run(engine_time={"MATMUL": 10000}).time_ns
    assert small.run(engine_time={"MATMUL": "10us"}).time_ns == by_ns
    assert small.run(engine_time={"0x02": np.int64(10000)}).time_ns == by_ns
    assert by_ns > base


def test_missing_and_bad_files(tmp_path):
    with pytest.raises(ndma.NotFoundError) as e:
        ndma.neff.open(tmp_path / "nope.neff")
    assert isinstance(e.value, FileNotFoundError) and "nope.neff" in str(e.value)
    bad = tmp_path / "bad.neff"
    bad.write_bytes(b"\0" * 2000)
    with pytest.raises(ndma.Error) as e:
        ndma.neff.open(bad)
    assert "bad.neff" in str(e.value)


def test_inputs_must_be_named(small):
    """A list of arrays has no names: TypeError naming the inputs (before: unhashable ndarray)."""
    x = np.zeros((128, 256), np.float16)
    with pytest.raises(TypeError, match="dict of input name to array.*x, y"):
        small.run([x, x])
