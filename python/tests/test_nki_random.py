"""ndma.nki's random calls (docs/nki.md "Random numbers and dropout"): nl.rand, nl.random_seed,
nl.dropout and nisa.dropout. The hardware's generator cannot be reproduced; ndma draws from
SplitMix64, so the tests check distribution properties (range, shape, dtype, dropout rates within
statistical bounds, kept values unchanged), determinism under a seed, and — independently — the
values against SplitMix64 written here as a plain loop over Python ints."""
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402

M64 = (1 << 64) - 1


def _draws64(seed, n):
    """n raw SplitMix64 outputs from seed (Steele, Lea, Flood 2014), a plain loop over Python ints."""
    s, out = seed & M64, []
    for _ in range(n):
        s = (s + 0x9E3779B97F4A7C15) & M64
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        out.append(z ^ (z >> 31))
    return out


def splitmix64(seed, n):
    """n uniform draws in [0, 1) from SplitMix64 seeded with seed: the top 24 bits / 2^24."""
    return np.array([(z >> 40) / float(1 << 24) for z in _draws64(seed, n)], np.float32)


def _store(t, dtype=None):
    o = nl.ndarray(t.shape, dtype or t.dtype, buffer=nl.shared_hbm)
    nl.store(o, value=t)
    return o


def test_rand_range_shape_dtype_and_uniformity():
    def k():
        return _store(nl.rand((128, 512)))
    a = nki.simulate_kernel(k)
    assert a.shape == (128, 512) and a.dtype == np.float32
    assert a.min() >= 0.0 and a.max() < 1.0
    n = a.size
    # mean and variance of U(0, 1): 1/2 and 1/12, within 6 standard errors
    assert abs(a.mean() - 0.5) < 6 * math.sqrt(1 / 12 / n)
    assert abs(a.var() - 1 / 12) < 6 * math.sqrt(1 / 180 / n)
    hist, _ = np.histogram(a, bins=16, range=(0, 1))
    chi2 = ((hist - n / 16) ** 2 / (n / 16)).sum()
    assert chi2 < 50  # 15 degrees of freedom: P(chi2 > 50) < 1e-5
    assert len(np.unique(a)) > 0.99 * n


def test_rand_values_are_splitmix64_in_pattern_order():
    """With no random_seed the stream is seeded 0; each element one draw, in the tile's order,
    the second nl.rand continuing the stream."""
    def k():
        return _store(nl.rand((4, 8))), _store(nl.rand((2, 3)))
    a, b = nki.simulate_kernel(k)
    want = splitmix64(0, 32 + 6)
    assert np.array_equal(a.ravel(), want[:32])
    assert np.array_equal(b.ravel(), want[32:])


@pytest.mark.parametrize("seed", [42, 7, 0xFFFFFFFF])
def test_random_seed_tile_and_int(seed):
    """The NKI page's example: the same seed gives the same values; the seed a [1, 1] int32 tile
    (its 32 bits) or a Python int."""
    s32 = seed - (1 << 32) if seed >= 1 << 31 else seed

    def k():
        t = nl.full((1, 1), s32, dtype=nl.int32, buffer=nl.sbuf) if abs(s32) < 1 << 24 else None
        if t is not None:
            nl.random_seed(t)
        else:
            nl.random_seed(seed)
        a = nl.rand((128, 64), dtype=nl.float32)
        nl.random_seed(seed)
        b = nl.rand((128, 64), dtype=nl.float32)
        c = nl.rand((128, 64), dtype=nl.float32)
        return _store(a), _store(b), _store(c)
    a, b, c = nki.simulate_kernel(k)
    assert np.array_equal(a, b)
    assert not np.array_equal(b, c)
    assert np.array_equal(a.ravel(), splitmix64(seed, a.size))


def test_rand_narrow_dtype_and_runs_are_deterministic():
    def k():
        return _store(nl.rand((64, 32), dtype=nl.bfloat16), nl.float32)
    a, b = nki.simulate_kernel(k), nki.simulate_kernel(k)
    assert np.array_equal(a, b)  # each run starts from seed 0
    assert a.min() >= 0.0 and a.max() <= 1.0  # bf16 rounding may reach 1.0
    want = splitmix64(0, a.size)
    assert np.max(np.abs(a.ravel() - want)) <= 2.0 ** -8  # bf16: 8 significant bits


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_nl_dropout_rate_and_kept_values(p):
    x = (np.arange(128 * 256, dtype=np.float32).reshape(128, 256) % 97) + 1.0  # no zeros

    def k(x):
        return _store(nl.dropout(nl.load(x), rate=p))
    y = nki.simulate_kernel(k, x)
    dropped = y == 0
    assert np.array_equal(y[~dropped], x[~dropped])  # kept values unchanged (not rescaled)
    n = x.size
    sd = math.sqrt(p * (1 - p) / n)
    assert abs(dropped.mean() - p) <= 6 * sd + 1e-12
    if 0 < p < 1:  # the mask is the draws below p, in order, from seed 0
        assert np.array_equal(dropped.ravel(), splitmix64(0, n) < np.float32(p))


def test_nisa_dropout_per_partition_prob_both_dialects():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((128, 512)).astype(np.float32) + 10.0
    probs = np.linspace(0.0, 1.0, 128, dtype=np.float32).reshape(128, 1)

    def k(x, pr):
        t, pt = nl.load(x), nl.load(pr)
        a = nisa.dropout(t, pt)  # legacy: returns a tile
        b = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf)
        nisa.dropout(dst=b, data=t, prob=0.25)  # NKI 0.6
        return _store(a), _store(b)
    a, b = nki.simulate_kernel(k, x, probs)
    rate = (a == 0).mean(axis=1)
    sd = np.sqrt(probs[:, 0] * (1 - probs[:, 0]) / 512)
    assert np.all(np.abs(rate - probs[:, 0]) <= 6 * sd + 1e-9)
    assert rate[0] == 0.0 and rate[-1] == 1.0
    assert np.array_equal(a[a != 0], x[a != 0])
    assert abs((b == 0).mean() - 0.25) < 6 * math.sqrt(0.25 * 0.75 / b.size)
    assert np.array_equal(b[b != 0], x[b != 0])


def test_dropout_integer_data_and_dtype():
    x = np.arange(1, 64 * 64 + 1, dtype=np.int32).reshape(64, 64)

    def k(x):
        t = nl.load(x)
        return _store(nisa.dropout(t, 0.5)), _store(nl.dropout(nl.load(x), 0.5, dtype=nl.int32))
    a, b = nki.simulate_kernel(k, x)
    assert a.dtype == np.int32
    assert np.array_equal(a[a != 0], x[a != 0])
    assert abs((a == 0).mean() - 0.5) < 6 * math.sqrt(0.25 / a.size)
    assert not np.array_equal(a == 0, b == 0)  # the second call continues the stream


def test_random_calls_flagged_not_exact_and_in_program():
    def k():
        nl.random_seed(5)
        r = nl.rand((16, 16))
        d = nl.dropout(r, 0.5)
        return _store(d)
    tr = nki.trace(k)()
    ops = {c["op"]: c for c in tr.calls if c["op"] in ("random_seed", "rand", "dropout")}
    assert sorted(ops) == ["dropout", "rand", "random_seed"]
    for c in ops.values():
        assert c["exact"] is False and "SplitMix64" in c["note"]
    assert ops["rand"]["time_ns"] > 0 and ops["dropout"]["time_ns"] > 0
    prog = tr.program_json()
    seed = [c for c in prog["calls"] if c["op"] == "random_seed"][0]
    assert seed["value"] == 5 and "dst" not in seed


@pytest.mark.parametrize("call,err,word", [
    (lambda t: nl.rand((4, 4), dtype=nl.int32), TypeError, "float dtype"),
    (lambda t: nl.rand("ab"), TypeError, "shape"),
    (lambda t: nl.random_seed(1.5), TypeError, "seed"),
    (lambda t: nl.random_seed(1 << 33), ValueError, "32-bit"),
    (lambda t: nl.random_seed(t), ValueError, "1, 1"),
    (lambda t: nl.dropout(t, 1.5), ValueError, "rate"),
    (lambda t: nl.dropout(t, "x"), TypeError, "rate"),
    (lambda t: nl.dropout(t, t), ValueError, "rate"),
    (lambda t: nisa.dropout(t, nl.zeros((8, 2), nl.float32)), ValueError, "prob"),
    (lambda t: nisa.dropout(nl.zeros((8, 8), nl.int32), 0.5, dtype=nl.float32), TypeError, "integer"),
    (lambda t: nisa.dropout(5, 0.5), TypeError, "data"),
    (lambda t: nisa.reciprocal(3.0), TypeError, "data"),
    (lambda t: nisa.reciprocal(nl.zeros((4, 8), nl.float32), t), ValueError, "dst"),
])
def test_bad_random_calls_raise_naming_the_argument(call, err, word):
    def k(a):
        call(nl.load(a))
    with pytest.raises(err, match=word):
        nki.simulate_kernel(k, np.zeros((8, 8), np.float32))



def test_nisa_rng_low_bits_and_set_rng_seed():
    """rng: each element the least significant bits of a 32-bit draw (the draw's top half);
    set_rng_seed reseeds as random_seed does."""
    def k():
        a = nl.ndarray((8, 16), nl.uint32, buffer=nl.sbuf)
        b = nl.ndarray((8, 16), nl.uint8, buffer=nl.sbuf)
        s = nl.full((1, 1), 9, dtype=nl.int32, buffer=nl.sbuf)
        nisa.set_rng_seed(s)
        nisa.rng(a)
        nisa.set_rng_seed(src_seeds=s)
        nisa.rng(dst=b, engine=nisa.engine.vector)
        return _store(a), _store(b)
    a, b = nki.simulate_kernel(k)
    want = np.array([d >> 32 for d in _draws64(9, 128)], np.uint64)
    assert np.array_equal(a.ravel().astype(np.uint64), want)
    assert np.array_equal(b.ravel().astype(np.uint64), want & 0xFF)


def test_nisa_rand2_range_per_partition_and_target():
    lo = np.arange(128, dtype=np.float32).reshape(128, 1)

    def k(lo):
        d = nl.ndarray((128, 256), nl.float32, buffer=nl.sbuf)
        e = nl.ndarray((128, 256), nl.int32, buffer=nl.sbuf)
        tl = nl.load(lo)
        nisa.rand2(d, tl, 1000.0)
        nisa.rand2(dst=e, min=-5.0, max=5.0)
        return _store(d), _store(e)
    d, e = nki.simulate_kernel(k, lo, target="trn3")
    assert np.all(d >= lo) and np.all(d <= 1000.0)
    u = (d - lo) / (1000.0 - lo)  # back to the uniform draws: mean 1/2 over 32,768
    assert abs(u.mean() - 0.5) < 6 * math.sqrt(1 / 12 / u.size)
    assert e.min() >= -5 and e.max() <= 5 and len(np.unique(e)) == 11  # rounded to the integers in range
    with pytest.raises(ValueError, match="trn3"):
        nki.simulate_kernel(k, lo, target="trn2")


@pytest.mark.parametrize("call,err,word", [
    (lambda t: nisa.rng(t), TypeError, "integer"),
    (lambda t: nisa.rand2(t, 2.0, 1.0), ValueError, "min"),
    (lambda t: nisa.rand2(t, "a", 1.0), TypeError, "min"),
    (lambda t: nisa.rand2(t, 0.0, t), ValueError, "max"),
    (lambda t: nisa.set_rng_seed(3), TypeError, "src_seeds"),
    (lambda t: nisa.set_rng_seed(t), ValueError, "src_seeds"),
])
def test_bad_rng_calls(call, err, word):
    def k(a):
        call(nl.load(a))
    with pytest.raises(err, match=word):
        nki.simulate_kernel(k, np.zeros((8, 8), np.float32), target="trn3")


# -- aws-neuron/nki-samples' flash attention (reference/attention.py): its dropout step,
#    dropout_p_local, re-typed unchanged but for the import, driven as flash_fwd drives it ---------

@nki.jit(mode='trace')
def dropout_p_local(p_local, dropout_p, dropout_p_tensor, seed_tensor,
                    seed_offset_base, k_r_i, REDUCTION_TILE):
  B_F_SIZE = 512
  for k_d_i in nl.sequential_range(REDUCTION_TILE // B_F_SIZE):
    p_local_f_slice = nl.ds(k_r_i * REDUCTION_TILE + k_d_i * B_F_SIZE, B_F_SIZE)

    offset = k_d_i + seed_offset_base
    offset_seed = nl.add(seed_tensor, offset, dtype=nl.int32)
    nl.random_seed(seed=offset_seed)
    softmax_dropout = nl.dropout(p_local[:, p_local_f_slice],
                                 rate=dropout_p_tensor[:, 0])
    p_local[:, p_local_f_slice] = nl.multiply(
      softmax_dropout, 1 / (1 - dropout_p))


@nki.jit
def flash_dropout_step(seed, p, dropout_p: float, seed_offset_base: int):
    # flash_fwd's own lines: the seed and the probability tile
    B_P_SIZE = 128
    seed_local = nl.load(seed[0])
    dropout_p_tensor = nl.full((B_P_SIZE, 1), fill_value=dropout_p, dtype=np.float32)
    p_local = nl.load(p)
    dropout_p_local(p_local=p_local, dropout_p=dropout_p, dropout_p_tensor=dropout_p_tensor,
                    seed_tensor=seed_local, seed_offset_base=seed_offset_base, k_r_i=1, REDUCTION_TILE=1024)
    return _store(p_local)


def test_nki_samples_flash_dropout_step():
    """Columns 1024–2047 (k_r_i = 1 of a 2048-wide tile) in two 512-column blocks, each reseeded
    with seed + offset: the kept values scaled by the kernel's own 1 / (1 − p), the dropped ones 0,
    the mask exactly SplitMix64's draws below p from that seed; columns before 1024 untouched."""
    rng = np.random.default_rng(5)
    x = (rng.random((128, 2048)) + 0.5).astype(np.float32)
    seed, base, p = 1234, 40, 0.3
    got = flash_dropout_step(np.array([seed], np.int32), x, p, base)
    assert np.array_equal(got[:, :1024], x[:, :1024])
    scale = np.float32(1 / (1 - p))
    for k_d_i in range(2):
        cols = slice(1024 + 512 * k_d_i, 1024 + 512 * (k_d_i + 1))
        drop = splitmix64(seed + base + k_d_i, 128 * 512).reshape(128, 512) < np.float32(p)
        want = np.where(drop, np.float32(0), x[:, cols] * scale)
        assert np.array_equal(got[:, cols], want)
        assert abs(drop.mean() - p) < 6 * math.sqrt(p * (1 - p) / drop.size)
