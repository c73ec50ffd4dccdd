"""to_float32 / from_float32: hand-derived bit patterns and NumPy's own arithmetic."""

import numpy as np
import pytest

import ndma

# (float32 value, bit pattern) derived by hand from each format's layout
BF16 = [(1.0, 0x3F80), (-2.0, 0xC000), (0.0, 0x0000), (-0.0, 0x8000), (np.inf, 0x7F80),
        (1 + 2 ** -8, 0x3F80),            # halfway between 0x3f80 and 0x3f81: to the even one
        (1 + 2 ** -7 + 2 ** -8, 0x3F82),  # halfway between 0x3f81 and 0x3f82: to the even one
        (1 + 2 ** -8 + 2 ** -20, 0x3F81),  # past halfway: up
        (3.140625, 0x4049)]
E4M3 = [(1.0, 0x38), (-0.5, 0xB0), (448.0, 0x7E), (2 ** -9, 0x01), (0.0, 0x00), (1.0625, 0x38), (1.1875, 0x3A)]
E5M2 = [(1.0, 0x3C), (2.0, 0x40), (57344.0, 0x7B), (-np.inf, 0xFC), (2 ** -16, 0x01), (1.125, 0x3C), (1.375, 0x3E)]


@pytest.mark.parametrize("dtype,table", [("bfloat16", BF16), ("float8e4", E4M3), ("float8_e5m2", E5M2)])
def test_hand_derived_bits(dtype, table):
    f = np.array([v for v, _ in table], np.float32)
    bits = ndma.from_float32(f, dtype)
    assert [int(b) for b in bits] == [b for _, b in table]
    back = ndma.to_float32(bits, dtype)
    exact = [v for v, b in table if float(np.float32(v)) == float(ndma.to_float32(np.array([b]), dtype)[0])]
    assert len(exact) >= len(table) - 3  # the ties and the past-halfway value widen to their rounded value
    assert back.dtype == np.float32


def numpy_bf16(f):
    """bfloat16 by integer arithmetic on the float32 bits: round to nearest even."""
    u = f.view(np.uint32).astype(np.uint64)
    r = ((u >> 16) & 1) + 0x7FFF
    out = ((u + r) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    out[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)  # a quiet NaN
    return out


def test_bf16_against_numpy():
    rng = np.random.default_rng(7)
    f = np.concatenate([rng.standard_normal(100000).astype(np.float32) * 1e3,
                        rng.integers(0, 2 ** 32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32)])
    f = f[~np.isnan(f)]
    assert np.array_equal(ndma.from_float32(f, "bf16"), numpy_bf16(f))
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    wide = ndma.to_float32(every, "bfloat16")
    want = (every.astype(np.uint32) << 16).view(np.float32)
    assert np.array_equal(np.isnan(wide), np.isnan(want))
    assert np.array_equal(wide[~np.isnan(want)], want[~np.isnan(want)])


def decode_fp8(b, e_bits, m_bits, bias, ieee):
    """A plain loop: sign, exponent, mantissa; subnormals; Inf/NaN as the format has them."""
    out = []
    for x in b:
        x = int(x)
        s = -1.0 if x >> 7 else 1.0
        e = (x >> m_bits) & ((1 << e_bits) - 1)
        m = x & ((1 << m_bits) - 1)
        if ieee and e == (1 << e_bits) - 1:
            out.append(s * np.inf if m == 0 else np.nan)
        elif not ieee and e == (1 << e_bits) - 1 and m == (1 << m_bits) - 1:
            out.append(np.nan)  # e4m3fn: only S.1111.111 is NaN, no Inf
        elif e == 0:
            out.append(s * m * 2.0 ** (1 - bias - m_bits))
        else:
            out.append(s * (1 + m / 2 ** m_bits) * 2.0 ** (e - bias))
    return np.array(out, np.float32)


@pytest.mark.parametrize("dtype,e,m,bias,ieee", [("float8e4", 4, 3, 7, False), ("float8e5", 5, 2, 15, True)])
def test_fp8_every_pattern(dtype, e, m, bias, ieee):
    every = np.arange(256, dtype=np.uint8)
    got = ndma.to_float32(every, dtype)
    want = decode_fp8(every, e, m, bias, ieee)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~np.isnan(want)], want[~np.isnan(want)])
    # every finite value rounds back to its own pattern (−0 and +0 aside)
    fin = np.isfinite(want) & (want != 0)
    assert np.array_equal(ndma.from_float32(want[fin], dtype), every[fin])


def test_converter_errors():
    with pytest.raises(ndma.InputError):
        ndma.to_float32(np.zeros(4, np.uint16), "int32")
    with pytest.raises(ndma.InputError):
        ndma.from_float32(np.zeros(4, np.float32), "bfloat17")
    assert ndma.to_float32(np.zeros((0,), np.uint16), "bf16").shape == (0,)
