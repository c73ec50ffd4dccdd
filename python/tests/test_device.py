"""ndma.Device: write, read, run; its errors."""

import numpy as np
import pytest

import ndma
from conftest import example

MEMCPY = example("memcpy.s")


def test_write_read_hbm_round_trip():
    d = ndma.Device("cayman")
    a = np.random.default_rng(1).standard_normal((32, 48)).astype(np.float32)
    d.write("hbm:0x100", a)
    assert np.array_equal(d.read("hbm:0x100", np.float32, (32, 48)), a)
    assert np.array_equal(d.read(0x1_0000_0100 - 0x1_0000_0000 + 0x1_0000_0000, "float32", a.shape), a)
    # the same bytes as another dtype: NumPy's own view of them
    assert np.array_equal(d.read("hbm:0x100", np.uint32, (32 * 48,)), a.view(np.uint32).reshape(-1))


def test_sbuf_axis0_runs_over_partitions():
    d = ndma.Device("cayman")
    a = np.arange(4 * 16, dtype=np.int32).reshape(4, 16)
    d.write("sbuf:2:0x40", a)
    for p in range(4):  # row p lands in partition 2+p at the same offset
        assert np.array_equal(d.read("sbuf:%d:0x40" % (2 + p), np.int32, (16,)), a[p])
    assert np.array_equal(d.read("sbuf:2:0x40", np.int32, (4, 16)), a)


def test_run_memcpy_each_executor():
    for ex in ("sim", "ref", "both"):
        d = ndma.Device("cayman")
        x = np.arange(128, dtype=np.float32) * 1.5
        d.write("hbm:0x0", x)
        d.write("sbuf:0:0x200", -x)
        r = d.run(ndma.asm(MEMCPY), exec=ex)
        assert r["words"] == 2 and r["exec"] == ex
        # word 1: hbm:0x0 → sbuf:0:0x0 (128 fp32); word 2: sbuf:0:0x200 → hbm:0x1000
        assert np.array_equal(d.read("sbuf:0:0x0", np.float32, (128,)), x)
        assert np.array_equal(d.read("hbm:0x1000", np.float32, (128,)), -x)
    d = ndma.Device("cayman")
    d.write("hbm:0x0", np.ones(128, np.float32))
    d.run(MEMCPY)  # text runs too
    assert d.read("sbuf:0:0x0", np.float32, (128,)).sum() == 128


def test_oob_error():
    d = ndma.Device("cayman")
    # CAYMAN: 224 KiB (0x38000) active in an SBUF partition (field-tables §11.2)
    text = MEMCPY.replace("dst_start_addr=sbuf:0:0x0", "dst_start_addr=sbuf:0:0x37f00")
    for ex in ("ref", "sim"):
        with pytest.raises(ndma.OOBError) as e:
            d.run(text, exec=ex)
        assert isinstance(e.value, IndexError) and "partition 0" in str(e.value)
    d.read("sbuf:0:0x37f00", np.float32, (64,))  # the last 256 bytes: in bounds
    with pytest.raises(ndma.OOBError) as e:
        d.read("sbuf:0:0x37f04", np.float32, (64,))
    assert e.value.address is not None


def test_deadlock_error():
    with pytest.raises(ndma.DeadlockError) as e:
        ndma.Device("cayman").run(example("deadlock.s"))
    assert len(e.value.blocked) >= 2 and all("wait" in b or "sem" in b.lower() for b in e.value.blocked)


def test_bad_input():
    d = ndma.Device("cayman")
    with pytest.raises(ndma.InputError) as e:
        ndma.Device("nope")
    assert e.value.name == "gen"
    with pytest.raises(ndma.InputError):
        ndma.Device("cayman", cores=0)
    with pytest.raises(ndma.InputError) as e:
        d.read("hbm:0x0", "complex-ish", (4,))
    assert e.value.name == "dtype"
    with pytest.raises(ndma.InputError) as e:
        d.read("hbm:0x0", np.float32, (1 << 20, 1 << 20))  # 4 TiB: refused before any allocation
    assert e.value.name == "shape"
    with pytest.raises(ndma.InputError):
        d.read("hbm:0x0", np.float32, (0,))
    with pytest.raises(ndma.InputError) as e:
        d.write("nowhere:0", np.zeros(4))
    assert e.value.name == "addr"
    with pytest.raises(ndma.InputError):
        d.write("hbm:0x0", np.array(["a"], dtype=object))
    with pytest.raises(ndma.InputError) as e:
        d.write("hbm:0x0", np.zeros(4), core=3)
    assert e.value.name == "core"
    ro = np.empty(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ndma.InputError) as e:
        d.read("hbm:0x0", np.float32, (4,), out=ro)
    assert e.value.name == "out"
    with pytest.raises(ndma.InputError):
        d.run(ndma.asm(MEMCPY), exec="fast")
    # a failed write changes nothing: every row is checked first
    d.write("sbuf:126:0x0", np.full(8, 7, np.uint8))
    with pytest.raises(ndma.Error) as e:
        d.write("sbuf:126:0x0", np.zeros((4, 8), np.uint8))  # partitions 126..129: past the last
    assert "partition 129" in str(e.value)
    assert np.array_equal(d.read("sbuf:126:0x0", np.uint8, (8,)), np.full(8, 7, np.uint8))


def test_non_contiguous_and_read_only_inputs():
    d = ndma.Device("cayman")
    base = np.arange(64, dtype=np.int16).reshape(8, 8)
    a = base[:, ::2]  # not contiguous: written in C order as NumPy lays it out
    d.write("hbm:0x0", a)
    assert np.array_equal(d.read("hbm:0x0", np.int16, (8, 4)), np.ascontiguousarray(a))
    ro = np.arange(8, dtype=np.float64)
    ro.flags.writeable = False
    d.write("hbm:0x1000", ro)
    assert np.array_equal(d.read("hbm:0x1000", np.float64, (8,)), ro)
    out = np.empty(8, np.float64)
    assert d.read("hbm:0x1000", np.float64, 8, out=out) is out and np.array_equal(out, ro)
