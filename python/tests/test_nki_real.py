"""Real public NKI kernels, re-typed, run on ndma.nki against NumPy (docs/nki.md).

Each kernel is a re-typed copy of a public one (aws-neuron/nki-samples tutorials and the
Neuron NKI documentation's examples), its body unchanged but for the import: the legacy
``neuronxcc.nki`` dialect or NKI 0.6 ``nki`` becomes ``ndma.nki``. The expectation of each
test is computed here with NumPy from the kernel's definition, never from ndma. A kernel that
needs a name ndma does not support is an xfail(strict=True) naming it (docs/nki.md "Not
supported"), so it flips to a failure when the name comes.
"""
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402   (was: import neuronxcc.nki as nki / import nki)
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402
from ndma.nki.typing import tensor  # noqa: E402


def _rng(seed):
    return np.random.default_rng(seed)


# -- nki-samples tutorials/tensor_addition and the getting-started page (legacy) ---------------

@nki.jit
def nki_tensor_add_kernel(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    assert a_input.shape == b_input.shape
    assert a_input.shape[0] <= nl.tile_size.pmax
    a_tile = nl.load(a_input)
    b_tile = nl.load(b_input)
    c_tile = nl.add(a_tile, b_tile)
    nl.store(c_output, value=c_tile)
    return c_output


def test_getting_started_tensor_add():
    a = _rng(1).standard_normal((128, 512)).astype(np.float32)
    b = _rng(2).standard_normal((128, 512)).astype(np.float32)
    assert np.array_equal(nki_tensor_add_kernel(a, b), a + b)


@nki.jit
def nki_tensor_add_kernel_(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    offset_i_x = nl.program_id(0) * 128
    offset_i_y = nl.program_id(1) * 512
    ix = offset_i_x + nl.arange(128)[:, None]
    iy = offset_i_y + nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    c_tile = a_tile + b_tile
    nl.store(c_output[ix, iy], value=c_tile)
    return c_output


def test_spmd_tensor_add():
    a = _rng(3).random((256, 1024)).astype(np.float16)
    b = _rng(4).random((256, 1024)).astype(np.float16)
    got = nki_tensor_add_kernel_[a.shape[0] // 128, a.shape[1] // 512](a, b)
    assert np.array_equal(got, a + b)


# -- tutorials/transpose2d: both dialects -------------------------------------------------------

@nki.jit
def tensor_transpose2D_kernel_legacy(in_tensor, shape2D):
    out_tensor = nl.ndarray(in_tensor.shape, dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    sz_p, _ = in_tensor.shape
    in_tile = nl.load(in_tensor)
    sz_f1, sz_f2 = shape2D
    i_p0 = nl.arange(sz_p)[:, None, None]
    i_f1 = nl.arange(sz_f1)[None, :, None]
    i_f2 = nl.arange(sz_f2)[None, None, :]
    out_tile = nl.ndarray(shape=(sz_p, sz_f2 * sz_f1), dtype=out_tensor.dtype)
    out_tile[i_p0, i_f2 * sz_f1 + i_f1] = nl.copy(in_tile[i_p0, i_f1 * sz_f2 + i_f2])
    nl.store(out_tensor, value=out_tile)
    return out_tensor


@nki.jit
def tensor_transpose2D_kernel_06(in_tensor, shape2D):
    out_tensor = nl.ndarray(in_tensor.shape, dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    sz_p, _ = in_tensor.shape
    in_tile = nl.ndarray(in_tensor.shape, dtype=in_tensor.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=in_tile, src=in_tensor)
    sz_f1, sz_f2 = shape2D
    out_tile = nl.ndarray(shape=(sz_p, sz_f2 * sz_f1), dtype=in_tensor.dtype, buffer=nl.sbuf)
    for i_f1 in nl.affine_range(sz_f1):
        for i_f2 in nl.affine_range(sz_f2):
            nisa.tensor_copy(dst=out_tile[:, nl.ds(i_f2 * sz_f1 + i_f1, 1)],
                             src=in_tile[:, nl.ds(i_f1 * sz_f2 + i_f2, 1)])
    nisa.dma_copy(dst=out_tensor, src=out_tile)
    return out_tensor


def _transpose2d_ref(x, shape2d):
    f1, f2 = shape2d
    return x.reshape(x.shape[0], f1, f2).transpose(0, 2, 1).reshape(x.shape[0], f1 * f2)


def test_transpose2d_tutorial_example():
    # the tutorial's own worked example: [a0..a3, b0..b3, c0..c3] as (3, 4) turns to (4, 3)
    y = np.array([[0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23]], np.float32)
    assert np.array_equal(_transpose2d_ref(y, (3, 4)),
                          np.array([[0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23]], np.float32))


def test_transpose2d_legacy():
    # i_f2*sz_f1 + i_f1: a sum of two index expressions walks one axis with two tile dimensions
    x = _rng(5).standard_normal((128, 12)).astype(np.float32)
    assert np.array_equal(tensor_transpose2D_kernel_legacy(x, (3, 4)), _transpose2d_ref(x, (3, 4)))
    x = _rng(27).standard_normal((64, 40)).astype(np.float32)
    assert np.array_equal(tensor_transpose2D_kernel_legacy(x, (5, 8)), _transpose2d_ref(x, (5, 8)))


def test_transpose2d_06():
    x = _rng(6).standard_normal((128, 12)).astype(np.float32)
    assert np.array_equal(tensor_transpose2D_kernel_06(x, (3, 4)), _transpose2d_ref(x, (3, 4)))


# -- tutorials/average_pool2d: both dialects ----------------------------------------------------

@nki.jit
def tensor_avgpool_kernel_legacy(in_tensor, pool_size):
    sz_cin, sz_hin, sz_win = in_tensor.shape
    sz_hout = sz_hin // pool_size
    sz_wout = sz_win // pool_size
    out_tensor = nl.ndarray((sz_cin, sz_hout, sz_wout), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    sz_p = sz_cin
    sz_pool = pool_size
    i0, i1, i2, i3, i4 = nl.mgrid[0:sz_p, 0:sz_hin // sz_pool, 0:sz_pool, 0:sz_win // sz_pool, 0:sz_pool]
    in_tile: tensor[sz_p, sz_hin, sz_win] = nl.load(in_tensor)
    out_tile: tensor[sz_p, sz_hout, sz_wout] = nl.sum(in_tile[i0, sz_pool * i1 + i2, sz_pool * i3 + i4],
                                                      axis=[2, 4]) / (pool_size * pool_size)
    nl.store(out_tensor, value=out_tile)
    return out_tensor


@nki.jit
def tensor_avgpool_kernel_06(in_tensor, pool_size):
    assert pool_size >= 1
    sz_cin, sz_hin, sz_win = in_tensor.shape
    sz_hout = sz_hin // pool_size
    sz_wout = sz_win // pool_size
    out_tensor = nl.ndarray((sz_cin, sz_hout, sz_wout), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    sz_p = sz_cin
    sz_pool = pool_size
    in_tile = nl.ndarray(in_tensor.shape, dtype=in_tensor.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=in_tile, src=in_tensor)
    pool_view = in_tile.ap([
        [sz_hin * sz_win, sz_p],
        [sz_pool * sz_win, sz_hin // sz_pool],
        [sz_pool, sz_win // sz_pool],
        [sz_win, sz_pool],
        [1, sz_pool],
    ])
    sum_tile = nl.sum(pool_view, axis=[3, 4])
    out_tile = nl.ndarray(sum_tile.shape, dtype=sum_tile.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=out_tile, data=sum_tile, op0=nl.multiply, operand0=1.0 / (pool_size * pool_size))
    nisa.dma_copy(dst=out_tensor, src=out_tile)
    return out_tensor


def _avgpool_ref(x, k):
    c, h, w = x.shape
    return x.reshape(c, h // k, k, w // k, k).astype(np.float64).mean(axis=(2, 4))


def test_avgpool_06():
    # the tutorial's input: C, H, W = 2, 6, 6 of arange; then a full 128-partition one
    x = np.arange(2 * 6 * 6, dtype=np.float32).reshape(2, 6, 6)
    assert np.array_equal(tensor_avgpool_kernel_06(x, 2), _avgpool_ref(x, 2).astype(np.float32))
    x = _rng(7).standard_normal((128, 12, 12)).astype(np.float32)
    np.testing.assert_allclose(tensor_avgpool_kernel_06(x, 3), _avgpool_ref(x, 3), rtol=1e-5, atol=1e-6)


def test_avgpool_legacy():
    x = np.arange(2 * 6 * 6, dtype=np.float32).reshape(2, 6, 6)
    assert np.array_equal(tensor_avgpool_kernel_legacy(x, 2), _avgpool_ref(x, 2).astype(np.float32))
    x = _rng(28).standard_normal((128, 12, 12)).astype(np.float32)
    np.testing.assert_allclose(tensor_avgpool_kernel_legacy(x, 3), _avgpool_ref(x, 3), rtol=1e-5, atol=1e-6)


def test_index_sum_bounds_and_refusals():
    """A sum's whole range must lie in the axis (legacy wording, the sum's first or last
    index); one variable twice in a sum is refused."""
    def past_end(a):
        i, j = nl.arange(4)[:, None], nl.arange(3)[None, :]
        nl.load(a[i, 4 * j + i])  # last index 4*2 + 3 = 11 of an axis of 10

    def twice(a):
        i = nl.arange(4)[:, None]
        nl.load(a[i, 2 * i + i])

    with pytest.raises(IndexError, match="index 11 is out of bounds for axis 1 with size 10"):
        nki.simulate_kernel(past_end, np.zeros((4, 10), np.float32))
    with pytest.raises(TypeError, match="one variable twice"):
        nki.simulate_kernel(twice, np.zeros((4, 10), np.float32))


# -- tutorials/matrix_multiplication (NKI 0.6) ---------------------------------------------------

@nki.jit
def nki_matmul_basic_(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_ == 128 and M == 64 and N == 512
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    lhs_tile = nl.ndarray(lhsT.shape, dtype=lhsT.dtype, buffer=nl.sbuf)
    rhs_tile = nl.ndarray(rhs.shape, dtype=rhs.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=lhs_tile, src=lhsT)
    nisa.dma_copy(dst=rhs_tile, src=rhs)
    result_psum = nl.ndarray(result.shape, dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(result_psum, lhs_tile, rhs_tile)
    result_sbuf = nl.ndarray(result_psum.shape, dtype=result.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=result_sbuf, src=result_psum)
    nisa.dma_copy(dst=result, src=result_sbuf)
    return result


@nki.jit
def nki_matmul_tiled_(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_
    TILE_M = nl.tile_size.gemm_stationary_fmax
    TILE_K = nl.tile_size.pmax
    TILE_N = nl.tile_size.gemm_moving_fmax
    assert M % TILE_M == 0 and N % TILE_N == 0 and K % TILE_K == 0
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=lhsT_tile, src=lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                nisa.dma_copy(dst=rhs_tile, src=rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                nisa.nc_matmul(dst=res_psum, stationary=lhsT_tile, moving=rhs_tile)
            res_sb = nl.ndarray(res_psum.shape, dtype=result.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res_sb, src=res_psum)
            nisa.dma_copy(dst=result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], src=res_sb)
    return result


@nki.jit
def nki_matmul_block_free_dimension_(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_
    TILE_M = nl.tile_size.gemm_stationary_fmax
    TILE_K = nl.tile_size.pmax
    TILE_N = nl.tile_size.gemm_moving_fmax
    TILES_IN_BLOCK_M = 2
    TILES_IN_BLOCK_N = 2
    BLOCK_M = TILE_M * TILES_IN_BLOCK_M
    BLOCK_N = TILE_N * TILES_IN_BLOCK_N
    assert M % BLOCK_M == 0 and N % BLOCK_N == 0
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // BLOCK_M):
        lhsT_tiles = []
        for bm in nl.affine_range(TILES_IN_BLOCK_M):
            inner = []
            for k in nl.affine_range(K // TILE_K):
                t = nl.ndarray(shape=(TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                c0 = (m * TILES_IN_BLOCK_M + bm) * TILE_M
                nisa.dma_copy(dst=t, src=lhsT[k * TILE_K:(k + 1) * TILE_K, c0:c0 + TILE_M])
                inner.append(t)
            lhsT_tiles.append(inner)
        for n in nl.affine_range(N // BLOCK_N):
            rhs_tiles = []
            for bn in nl.affine_range(TILES_IN_BLOCK_N):
                inner = []
                for k in nl.affine_range(K // TILE_K):
                    t = nl.ndarray(shape=(TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                    c0 = (n * TILES_IN_BLOCK_N + bn) * TILE_N
                    nisa.dma_copy(dst=t, src=rhs[k * TILE_K:(k + 1) * TILE_K, c0:c0 + TILE_N])
                    inner.append(t)
                rhs_tiles.append(inner)
            for bm in nl.affine_range(TILES_IN_BLOCK_M):
                for bn in nl.affine_range(TILES_IN_BLOCK_N):
                    result_tile = nl.ndarray(shape=(TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
                    for k in nl.affine_range(K // TILE_K):
                        nisa.nc_matmul(dst=result_tile, stationary=lhsT_tiles[bm][k], moving=rhs_tiles[bn][k])
                    result_tmp = nl.ndarray(shape=result_tile.shape, dtype=result.dtype, buffer=nl.sbuf)
                    nisa.tensor_copy(dst=result_tmp, src=result_tile)
                    r0 = (m * TILES_IN_BLOCK_M + bm) * TILE_M
                    c0 = (n * TILES_IN_BLOCK_N + bn) * TILE_N
                    nisa.dma_copy(dst=result[r0:r0 + TILE_M, c0:c0 + TILE_N], src=result_tmp)
    return result


def _mm_bound(lhsT, rhs):
    # an FP32 sum of K products: |error| <= K * eps * sum |a||b| (a plain bound, not ndma's)
    return lhsT.shape[0] * np.finfo(np.float32).eps * (np.abs(lhsT).T @ np.abs(rhs)) + 1e-6


def test_matmul_basic_06():
    lhsT = _rng(8).standard_normal((128, 64)).astype(np.float32)
    rhs = _rng(9).standard_normal((128, 512)).astype(np.float32)
    want = lhsT.astype(np.float64).T @ rhs.astype(np.float64)
    assert np.all(np.abs(nki_matmul_basic_(lhsT, rhs) - want) <= _mm_bound(lhsT, rhs))


@pytest.mark.parametrize("kernel", [nki_matmul_tiled_, nki_matmul_block_free_dimension_])
def test_matmul_tiled_06_accumulates_over_k(kernel):
    # K = 256: two nc_matmul calls into one PSUM tile with no accumulate flag; the tutorial's
    # "Accumulate partial-sums into PSUM" needs the second to add to the first
    lhsT = _rng(10).standard_normal((256, 256)).astype(np.float32)
    rhs = _rng(11).standard_normal((256, 1024)).astype(np.float32)
    want = lhsT.astype(np.float64).T @ rhs.astype(np.float64)
    assert np.all(np.abs(kernel(lhsT, rhs) - want) <= _mm_bound(lhsT, rhs))


# -- NKI docs nki.isa.nc_matmul example 2: legacy PSUM accumulation with += ----------------------

@nki.jit
def nc_matmul_psum_accumulate(d_tensor, e_tensor):
    f_tensor = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    d_mgrid = nl.mgrid[0:128, 0:128]
    e_mgrid = nl.mgrid[0:128, 0:512]
    f_mgrid = nl.mgrid[0:128, 0:512]
    f_psum = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
    for i_contract in nl.affine_range(2):
        d = nl.load(d_tensor[i_contract * 128 + d_mgrid.p, d_mgrid.x])
        e = nl.load(e_tensor[i_contract * 128 + e_mgrid.p, e_mgrid.x])
        f_psum += nisa.nc_matmul(d[d_mgrid.p, d_mgrid.x], e[e_mgrid.p, e_mgrid.x])
    nl.store(f_tensor[f_mgrid.p, f_mgrid.x], f_psum)
    return f_tensor


def test_nc_matmul_doc_psum_accumulation():
    d = _rng(12).standard_normal((256, 128)).astype(np.float32)
    e = _rng(13).standard_normal((256, 512)).astype(np.float32)
    want = d.astype(np.float64).T @ e.astype(np.float64)
    assert np.all(np.abs(nc_matmul_psum_accumulate(d, e) - want) <= _mm_bound(d, e))


# -- tutorials/rmsnorm (legacy) ------------------------------------------------------------------

@nki.jit
def nki_rmsnorm_kernel(a_tensor, g_tensor):
    out_tensor = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    assert a_tensor.shape[1] == g_tensor.shape[0]
    ix, iw, iy = nl.mgrid[0:128, 0:1, 0:a_tensor.shape[1]]
    num_rows = a_tensor.shape[0]
    g_tile = nl.load(g_tensor.reshape((1, g_tensor.shape[0]))[iw, iy])
    for i in nl.affine_range(math.ceil(a_tensor.shape[0] / 128)):
        a_tile = nl.load(a_tensor[i * 128 + ix, iy], mask=(i * 128 + ix < num_rows))
        in_square = nl.square(a_tile)
        square_sum = nl.sum(in_square, axis=[1])
        mean = square_sum / a_tensor.shape[1]
        rms_reciprocal = nl.rsqrt(mean)
        out_tile = nl.multiply(a_tile, rms_reciprocal)
        g_bcast = g_tile.broadcast_to((128, g_tensor.shape[0]))
        out_tile[...] = nl.multiply(out_tile, g_bcast, mask=(i * 128 + ix < num_rows))
        nl.store(out_tensor[i * 128 + ix, iy], value=out_tile, mask=(i * 128 + ix < num_rows))
    return out_tensor


def _rmsnorm_ref(a, g):
    a64 = a.astype(np.float64)
    return a64 / np.sqrt(np.mean(a64 * a64, axis=1, keepdims=True)) * g


@pytest.mark.parametrize("rows", [128, 200])
def test_rmsnorm(rows):
    a = _rng(14).random((rows, 512)).astype(np.float32)
    g = _rng(15).random(512).astype(np.float32)
    np.testing.assert_allclose(nki_rmsnorm_kernel(a, g), _rmsnorm_ref(a, g), rtol=1e-4, atol=1e-5)


# -- tutorials/layernorm v1 (nl only) and v2 (bn_stats / bn_aggr), legacy -------------------------

@nki.jit
def nki_layernorm_kernel_v1(input_tensor, epsilon, gamma_vector, beta_vector):
    output_tensor = nl.ndarray(input_tensor.shape, dtype=input_tensor.dtype, buffer=nl.shared_hbm)
    assert input_tensor.shape[1] == gamma_vector.shape[0] == beta_vector.shape[0]
    i_p_io, i_f_io, i_p_param = nl.mgrid[0:nl.tile_size.pmax, 0:input_tensor.shape[1], 0:1]
    num_rows = input_tensor.shape[0]
    gamma_sb = nl.load(gamma_vector.reshape((1, gamma_vector.shape[0]))[i_p_param, i_f_io])
    beta_sb = nl.load(beta_vector.reshape((1, beta_vector.shape[0]))[i_p_param, i_f_io])
    gamma_sb_bcast = gamma_sb.broadcast_to((nl.tile_size.pmax, gamma_vector.shape[0]))
    beta_sb_bcast = beta_sb.broadcast_to((nl.tile_size.pmax, beta_vector.shape[0]))
    for i in nl.affine_range(math.ceil(input_tensor.shape[0] / nl.tile_size.pmax)):
        input_sb = nl.load(input_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io],
                           mask=(i * nl.tile_size.pmax + i_p_io < num_rows))
        mean = nl.mean(input_sb, axis=1)
        var = nl.mean(nl.square(input_sb), axis=1) - mean * mean
        shift_scale_tensor = (input_sb - mean) * nl.rsqrt(var + epsilon)
        output_sb = shift_scale_tensor * gamma_sb_bcast + beta_sb_bcast
        nl.store(output_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io], value=output_sb,
                 mask=(i * nl.tile_size.pmax + i_p_io < num_rows))
    return output_tensor


@nki.jit
def nki_layernorm_kernel_v2(input_tensor, epsilon, gamma_vector, beta_vector):
    output_tensor = nl.ndarray(input_tensor.shape, dtype=input_tensor.dtype, buffer=nl.shared_hbm)
    i_p_io, i_f_io, i_p_param = nl.mgrid[0:nl.tile_size.pmax, 0:input_tensor.shape[1], 0:1]
    num_rows = input_tensor.shape[0]
    gamma_sb = nl.load(gamma_vector.reshape((1, gamma_vector.shape[0]))[i_p_param, i_f_io])
    beta_sb = nl.load(beta_vector.reshape((1, beta_vector.shape[0]))[i_p_param, i_f_io])
    gamma_sb_bcast = gamma_sb.broadcast_to((nl.tile_size.pmax, gamma_vector.shape[0]))
    beta_sb_bcast = beta_sb.broadcast_to((nl.tile_size.pmax, beta_vector.shape[0]))
    for i in nl.affine_range(math.ceil(input_tensor.shape[0] / nl.tile_size.pmax)):
        input_sb = nl.load(input_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io],
                           mask=(i * nl.tile_size.pmax + i_p_io < num_rows))
        i_f_bn, i_f_stats = nl.mgrid[0:nl.tile_size.bn_stats_fmax, 0:6]
        num_bn_stats = math.ceil(input_tensor.shape[1] / nl.tile_size.bn_stats_fmax)
        stats_results = nl.ndarray((nl.tile_size.pmax, 6 * num_bn_stats), dtype=np.float32)
        for j in nl.affine_range(num_bn_stats):
            stats_results[i_p_io, j * 6 + i_f_stats] = nisa.bn_stats(
                input_sb[i_p_io, j * nl.tile_size.bn_stats_fmax + i_f_bn],
                mask=(j * nl.tile_size.bn_stats_fmax + i_f_bn < input_tensor.shape[1]), dtype=np.float32)
        i_f_aggr = nl.arange(6 * num_bn_stats)[None, :]
        mean_var = nisa.bn_aggr(stats_results[i_p_io, i_f_aggr])
        mean = mean_var[i_p_io, 0]
        var = mean_var[i_p_io, 1]
        scale_var = nl.rsqrt(var + epsilon)
        shift_scale_tensor = nisa.tensor_scalar(data=input_sb, op0=np.subtract, operand0=mean,
                                                op1=np.multiply, operand1=scale_var)
        output_sb = shift_scale_tensor * gamma_sb_bcast + beta_sb_bcast
        nl.store(output_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io], value=output_sb,
                 mask=(i * nl.tile_size.pmax + i_p_io < num_rows))
    return output_tensor


def _layernorm_ref(x, eps, g, b):
    x64 = x.astype(np.float64)
    m = x64.mean(axis=1, keepdims=True)
    v = x64.var(axis=1, keepdims=True)
    return (x64 - m) / np.sqrt(v + eps) * g + b


@pytest.mark.parametrize("rows", [128, 300])
def test_layernorm_v1(rows):
    x = _rng(16).random((rows, 256)).astype(np.float32)
    g = _rng(17).random(256).astype(np.float32)
    b = _rng(18).random(256).astype(np.float32)
    # v1's mean(x^2) - mean(x)^2 loses digits in float32 (the tutorial's own trick): a looser bound
    np.testing.assert_allclose(nki_layernorm_kernel_v1(x, 1e-5, g, b), _layernorm_ref(x, 1e-5, g, b),
                               rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("rows,cols", [(128, 256), (300, 1100)])
def test_layernorm_v2(rows, cols):
    # 1100 columns: three bn_stats chunks of 512, 512 and a partial 76 (the mask), one bn_aggr
    x = _rng(19).random((rows, cols)).astype(np.float32)
    g = _rng(20).random(cols).astype(np.float32)
    b = _rng(21).random(cols).astype(np.float32)
    np.testing.assert_allclose(nki_layernorm_kernel_v2(x, 1e-5, g, b), _layernorm_ref(x, 1e-5, g, b),
                               rtol=1e-4, atol=1e-4)


# -- tutorials/softmax (legacy) ------------------------------------------------------------------

@nki.jit
def nki_softmax_kernel(a_tensor):
    out_tensor = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    ix, iy = nl.mgrid[0:128, 0:a_tensor.shape[1]]
    num_rows = a_tensor.shape[0]
    for i in nl.affine_range(math.ceil(a_tensor.shape[0] / 128)):
        a_tile = nl.load(a_tensor[i * 128 + ix, iy], mask=(i * 128 + ix < num_rows))
        max_vals = nl.max(a_tile, axis=[1], keepdims=True, mask=(i * 128 + ix < num_rows))
        shifted = nl.subtract(a_tile, max_vals, mask=(i * 128 + ix < num_rows))
        numerator = nl.exp(shifted)
        denominator = nl.sum(numerator, axis=[1])
        sm = numerator / denominator
        nl.store(out_tensor[i * 128 + ix, iy], value=sm, mask=(i * 128 + ix < num_rows))
    return out_tensor


@pytest.mark.parametrize("rows", [128, 250])
def test_softmax(rows):
    a = (_rng(22).standard_normal((rows, 384)) * 3).astype(np.float32)
    a64 = a.astype(np.float64)
    e = np.exp(a64 - a64.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(nki_softmax_kernel(a), want, rtol=1e-4, atol=1e-6)


# -- tutorials/fused_mamba v2 (legacy) -----------------------------------------------------------

@nki.jit
def mamba_v2(delta, u, A, B, C):
    batch_size, channels, seq_len = delta.shape
    output = nl.ndarray((batch_size, channels, seq_len), dtype=delta.dtype, buffer=nl.shared_hbm)
    _, state_size = A.shape
    assert channels % 128 == 0
    channel_psize = nl.tile_size.pmax
    n_channel_tile = channels // channel_psize
    for i_batch in nl.affine_range(batch_size):
        for i_channel_tile in nl.affine_range(n_channel_tile):
            channel_start = i_channel_tile * channel_psize
            scanC_accum = nl.zeros((nl.par_dim(channel_psize), seq_len), dtype=delta.dtype)
            delta_i = nl.load(delta[i_batch, channel_start:channel_start + channel_psize, 0:seq_len])
            u_i = nl.load(u[i_batch, channel_start:channel_start + channel_psize, 0:seq_len])
            for i_state in nl.affine_range(state_size):
                A_i = nl.load(A[channel_start:channel_start + channel_psize, i_state])
                deltaA = nisa.activation(op=nl.exp, data=delta_i, scale=A_i)
                B_i = nl.load(B[i_batch, i_state:i_state + 1, 0:seq_len])
                deltaU = nisa.tensor_tensor(delta_i, u_i, op=nl.multiply)
                B_i_bcast = B_i.broadcast_to((channel_psize, seq_len))
                deltaBu = nisa.tensor_tensor(deltaU, B_i_bcast, op=nl.multiply)
                scan_res = nki.isa.tensor_tensor_scan(deltaA, deltaBu, initial=0, op0=np.multiply, op1=np.add)
                C_i = nl.load(C[i_batch, i_state:i_state + 1, 0:seq_len])
                C_i_bcast = C_i.broadcast_to((channel_psize, seq_len))
                scanC = nisa.tensor_tensor(scan_res, C_i_bcast, op=nl.multiply)
                scanC_accum[0:channel_psize, 0:seq_len] += scanC
            nl.store(output[i_batch, channel_start:channel_start + channel_psize, 0:seq_len],
                     scanC_accum[0:channel_psize, 0:seq_len])
    return output


def _mamba_ref(delta, u, A, B, C):
    d, uu, a, b, c = (x.astype(np.float64) for x in (delta, u, A, B, C))
    bs, ch, sl = d.shape
    out = np.zeros((bs, ch, sl))
    for ib in range(bs):
        for s in range(a.shape[1]):
            dA = np.exp(d[ib] * a[:, s:s + 1])
            dBu = d[ib] * uu[ib] * b[ib, s][None, :]
            h = np.zeros(ch)
            for t in range(sl):
                h = dA[:, t] * h + dBu[:, t]
                out[ib, :, t] += h * c[ib, s, t]
    return out


@pytest.mark.parametrize("bs,ch,sl,st", [(1, 128, 64, 4), (2, 256, 40, 3)])
def test_mamba_v2(bs, ch, sl, st):
    r = _rng(23)
    delta = r.random((bs, ch, sl)).astype(np.float32) * 0.1
    u = r.standard_normal((bs, ch, sl)).astype(np.float32)
    A = -r.random((ch, st)).astype(np.float32)
    B = r.standard_normal((bs, st, sl)).astype(np.float32)
    C = r.standard_normal((bs, st, sl)).astype(np.float32)
    np.testing.assert_allclose(mamba_v2(delta, u, A, B, C), _mamba_ref(delta, u, A, B, C), rtol=1e-4, atol=1e-5)


# -- NKI docs: nl.load_transpose2d (legacy), nl.matmul / nl.transpose with nl.shared_identity_matrix (0.6) --

@nki.jit
def load_transpose2d_doc(in_tensor):
    N, M = in_tensor.shape
    out = nl.ndarray((M, N), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    local_tile: tensor[M, N] = nl.load_transpose2d(in_tensor)
    nl.store(out, value=local_tile)
    return out


def test_load_transpose2d_doc():
    x = _rng(24).standard_normal((96, 128)).astype(np.float32)  # in_tensor[F, P]
    assert np.array_equal(load_transpose2d_doc(x), x.T)


@nki.jit
def identity_matmul_and_transpose_doc(dummy):
    out = nl.ndarray((2, 128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    # nki.language.matmul -- identity.T @ ones = ones
    x = nl.shared_identity_matrix(n=128, dtype=nl.float32)
    y = nl.full((128, 128), 1.0, dtype=nl.float32, buffer=nl.sbuf)
    result_psum = nl.matmul(x, y, transpose_x=True)
    result = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(result, result_psum)
    nisa.dma_copy(dst=out[0], src=result)
    # nki.language.transpose -- transpose of identity is identity
    result_t = nl.transpose(x)
    r2 = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(r2, result_t)
    nisa.dma_copy(dst=out[1], src=r2)
    return out


def test_identity_matmul_and_transpose_doc():
    got = identity_matmul_and_transpose_doc(np.zeros((1, 1), np.float32))
    assert np.array_equal(got[0], np.ones((128, 128), np.float32))
    assert np.array_equal(got[1], np.eye(128, dtype=np.float32))


# -- the rules the kernels above needed, each on its own ------------------------------------------

def test_nc_matmul_default_accumulate_group_closes_on_another_call():
    """accumulate=None: the K loop's matmuls into one tile add; a read of the tile (the copy
    out) closes the group, so the next matmul into it overwrites (a tile reused per block)."""
    r = _rng(25)
    xs = [r.standard_normal((128, 64)).astype(np.float32) for _ in range(3)]
    ys = [r.standard_normal((128, 256)).astype(np.float32) for _ in range(3)]

    @nki.jit
    def k(x0, y0, x1, y1, x2, y2):
        out = nl.ndarray((2, 64, 256), nl.float32, buffer=nl.shared_hbm)
        ps = nl.ndarray((64, 256), nl.float32, buffer=nl.psum)
        tiles = []
        for x, y in ((x0, y0), (x1, y1), (x2, y2)):
            sx = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
            sy = nl.ndarray(y.shape, y.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=sx, src=x)
            nisa.dma_copy(dst=sy, src=y)
            tiles.append((sx, sy))
        for sx, sy in tiles[:2]:
            nisa.nc_matmul(dst=ps, stationary=sx, moving=sy)  # adds: x0.T y0 + x1.T y1
        sb = nl.ndarray((64, 256), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=sb, src=ps)
        nisa.dma_copy(dst=out[0], src=sb)
        nisa.nc_matmul(dst=ps, stationary=tiles[2][0], moving=tiles[2][1])  # overwrites: x2.T y2
        nisa.tensor_copy(dst=sb, src=ps)
        nisa.dma_copy(dst=out[1], src=sb)
        return out

    got = k(xs[0], ys[0], xs[1], ys[1], xs[2], ys[2])
    f = [x.astype(np.float64).T @ y.astype(np.float64) for x, y in zip(xs, ys)]
    assert np.all(np.abs(got[0] - (f[0] + f[1])) <= _mm_bound(xs[0], ys[0]) + _mm_bound(xs[1], ys[1]))
    assert np.all(np.abs(got[1] - f[2]) <= _mm_bound(xs[2], ys[2]))


def test_reshape_refusals():
    def on_chip(a):
        t = nl.load(a)
        t.reshape((32, 128))

    def wrong_count(a):
        a.reshape((3, 100))

    def strided(a):
        a[:, 0:16].reshape((16, 32))

    a = np.zeros((32, 32), np.float32)
    with pytest.raises(ValueError, match="cannot reshape tile"):  # 32 × 32 is not 32 × 128
        nki.simulate_kernel(on_chip, a)
    with pytest.raises(ValueError, match="cannot reshape"):
        nki.simulate_kernel(wrong_count, a)
    with pytest.raises(ValueError, match="not contiguous"):
        nki.simulate_kernel(strided, a)


def test_three_axis_mgrid_bounds_name_the_tensor_axis():
    """a[ix, iy] with ix, iy of a 3-axis mgrid: an index past the end still raises the
    legacy error for the tensor axis it indexes (axis 1, size 8; not the mgrid's position)."""
    def k(a):
        ix, iw, iy = nl.mgrid[0:4, 0:1, 0:16]
        nl.load(a[ix, iy])

    with pytest.raises(IndexError, match="index 15 is out of bounds for axis 1 with size 8"):
        nki.simulate_kernel(k, np.zeros((4, 8), np.float32))


def test_partition_broadcast_is_a_dma():
    def k(g):
        out = nl.ndarray((128, 64), g.dtype, buffer=nl.shared_hbm)
        t = nl.load(g.reshape((1, 64)))
        nl.store(out, value=t.broadcast_to((128, 64)))
        return out

    g = _rng(26).standard_normal(64).astype(np.float32)
    r = nki.trace(k)(g)
    assert np.array_equal(r.outputs, np.broadcast_to(g, (128, 64)))
    assert [c["op"] for c in r.calls] == ["load", "dma_copy", "store"]


# -- tutorials/matrix_multiplication, the legacy dialect (nl.matmul, tile arrays with par_dim) ----

@nki.jit
def nki_matmul_hoist_load_legacy(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    TILE_M = nl.tile_size.gemm_stationary_fmax
    TILE_K = nl.tile_size.pmax
    TILE_N = nl.tile_size.gemm_moving_fmax
    i_lhsT = nl.mgrid[0:TILE_K, 0:TILE_M]
    i_rhs = nl.mgrid[0:TILE_K, 0:TILE_N]
    i_res = nl.mgrid[0:TILE_M, 0:TILE_N]
    for m in nl.affine_range(M // TILE_M):
        lhsT_tiles = nl.ndarray((K // TILE_K, nl.par_dim(TILE_K), TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(K // TILE_K):
            lhsT_tiles[k, i_lhsT.p, i_lhsT.x] = nl.load(lhsT[k * TILE_K + i_lhsT.p, m * TILE_M + i_lhsT.x])
        for n in nl.affine_range(N // TILE_N):
            rhs_tiles = nl.ndarray((K // TILE_K, nl.par_dim(TILE_K), TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(K // TILE_K):
                rhs_tiles[k, i_rhs.p, i_rhs.x] = nl.load(rhs[k * TILE_K + i_rhs.p, n * TILE_N + i_rhs.x])
            res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                res_psum[...] += nl.matmul(lhsT_tiles[k, i_lhsT.p, i_lhsT.x], rhs_tiles[k, i_rhs.p, i_rhs.x],
                                           transpose_x=True)
            res_sb = nl.copy(res_psum, dtype=result.dtype)
            nl.store(result[m * TILE_M + i_res.p, n * TILE_N + i_res.x], value=res_sb)
    return result


@nki.jit
def nki_matmul_fully_optimized_legacy(lhsT, rhs, TILES_IN_BLOCK_M=16, TILES_IN_BLOCK_N=2, TILES_IN_BLOCK_K=8):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    TILE_M = nl.tile_size.gemm_stationary_fmax
    TILE_K = nl.tile_size.pmax
    TILE_N = nl.tile_size.gemm_moving_fmax
    BLOCK_M = TILE_M * TILES_IN_BLOCK_M
    BLOCK_N = TILE_N * TILES_IN_BLOCK_N
    BLOCK_K = TILE_K * TILES_IN_BLOCK_K
    assert M % BLOCK_M == 0 and N % BLOCK_N == 0 and K % BLOCK_K == 0
    NUM_BLOCK_M = M // BLOCK_M
    NUM_BLOCK_N = N // BLOCK_N
    NUM_BLOCK_K = K // BLOCK_K
    for n in nl.affine_range(NUM_BLOCK_N):
        result_tiles = nl.zeros((NUM_BLOCK_M, TILES_IN_BLOCK_M, TILES_IN_BLOCK_N, nl.par_dim(TILE_M), TILE_N),
                                dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.sequential_range(NUM_BLOCK_K):
            i_rhs = nl.mgrid[0:TILE_K, 0:BLOCK_N]
            rhs_tiles = nl.ndarray((TILES_IN_BLOCK_K, nl.par_dim(TILE_K), BLOCK_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for bk_r in nl.affine_range(TILES_IN_BLOCK_K):
                rhs_tiles[bk_r, i_rhs.p, i_rhs.x] = nl.load(
                    rhs[(TILES_IN_BLOCK_K * k + bk_r) * TILE_K + i_rhs.p, BLOCK_N * n + i_rhs.x])
            for m in nl.affine_range(NUM_BLOCK_M):
                i_lhsT = nl.mgrid[0:TILE_K, 0:BLOCK_M]
                lhsT_tiles = nl.ndarray((TILES_IN_BLOCK_K, nl.par_dim(TILE_K), BLOCK_M), dtype=lhsT.dtype,
                                        buffer=nl.sbuf)
                for bk_l in nl.affine_range(TILES_IN_BLOCK_K):
                    lhsT_tiles[bk_l, i_lhsT.p, i_lhsT.x] = nl.load(
                        lhsT[(TILES_IN_BLOCK_K * k + bk_l) * TILE_K + i_lhsT.p, BLOCK_M * m + i_lhsT.x])
                i_lhsT_mm = nl.mgrid[0:TILE_K, 0:TILE_M]
                i_rhs_mm = nl.mgrid[0:TILE_K, 0:TILE_N]
                i_res_mm = nl.mgrid[0:TILE_M, 0:TILE_N]
                for bn in nl.affine_range(TILES_IN_BLOCK_N):
                    for bm in nl.affine_range(TILES_IN_BLOCK_M):
                        res_tile = nl.zeros((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
                        for bk in nl.affine_range(TILES_IN_BLOCK_K):
                            res_tile[...] += nisa.nc_matmul(
                                lhsT_tiles[bk, i_lhsT_mm.p, bm * TILE_M + i_lhsT_mm.x],
                                rhs_tiles[bk, i_rhs_mm.p, bn * TILE_N + i_rhs_mm.x])
                        result_tiles[m, bm, bn, i_res_mm.p, i_res_mm.x] += res_tile[i_res_mm.p, i_res_mm.x]
        for m in nl.affine_range(NUM_BLOCK_M):
            for bm in nl.affine_range(TILES_IN_BLOCK_M):
                i_res = nl.mgrid[0:TILE_K, 0:TILE_N]
                i_res_packed = nl.mgrid[0:TILE_K, 0:BLOCK_N]
                result_packed = nl.ndarray((TILE_K, BLOCK_N), dtype=result_tiles.dtype, buffer=nl.sbuf)
                for bn in nl.affine_range(TILES_IN_BLOCK_N):
                    result_packed[i_res.p, bn * TILE_N + i_res.x] = nl.copy(
                        result_tiles[m, bm, bn, i_res.p, i_res.x])
                nl.store(result[(TILES_IN_BLOCK_M * m + bm) * TILE_K + i_res_packed.p, BLOCK_N * n + i_res_packed.x],
                         value=result_packed[i_res_packed.p, i_res_packed.x])
    return result


def test_matmul_hoist_load_legacy():
    lhsT = _rng(29).standard_normal((256, 256)).astype(np.float32)
    rhs = _rng(30).standard_normal((256, 512)).astype(np.float32)
    want = lhsT.astype(np.float64).T @ rhs.astype(np.float64)
    assert np.all(np.abs(nki_matmul_hoist_load_legacy(lhsT, rhs) - want) <= _mm_bound(lhsT, rhs))


def test_matmul_fully_optimized_legacy():
    # small meta-parameters: two blocks of K (the sequential loop adds into the SBUF result tiles)
    lhsT = _rng(31).standard_normal((512, 256)).astype(np.float32)
    rhs = _rng(32).standard_normal((512, 1024)).astype(np.float32)
    want = lhsT.astype(np.float64).T @ rhs.astype(np.float64)
    got = nki_matmul_fully_optimized_legacy(lhsT, rhs, TILES_IN_BLOCK_M=2, TILES_IN_BLOCK_N=1, TILES_IN_BLOCK_K=2)
    # the SBUF adds of the two K blocks' fp32 partial sums add an ulp per element to the bound
    assert np.all(np.abs(got - want) <= 2 * _mm_bound(lhsT, rhs))


def test_activation_tile_operand_bias_and_scale_run():
    """The SD-attention tutorial's activation(exp, data, bias=neg_max) takes a (P, 1) tile: it
    runs (exp(x + b) per partition; it used to be dropped silently); mamba's scale=A_i, a tile
    scale, runs as exp(s * x) per partition (ACTIVATE's pointer scale)."""
    a = _rng(9).standard_normal((128, 8)).astype(np.float32)

    def k(a, which):
        t = nl.load(a)
        col = nl.load(a[:, 0:1])
        out = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.activation(op=nl.exp, data=t, **{which: col}))
        return out
    np.testing.assert_allclose(nki.simulate_kernel(k, a, "bias"), np.exp(a + a[:, 0:1]), rtol=1e-6)
    np.testing.assert_allclose(nki.simulate_kernel(k, a, "scale"), np.exp(a * a[:, 0:1]), rtol=1e-6)


def test_nc_matmul_default_accumulate_groups_per_view():
    """Two halves of one PSUM tile, their K loops interleaved: each half's first matmul
    overwrites, its later ones add (a group per dst view)."""
    r = _rng(33)
    xs = [r.standard_normal((128, 32)).astype(np.float32) for _ in range(2)]
    ys = [r.standard_normal((128, 512)).astype(np.float32) for _ in range(2)]

    @nki.jit
    def k(x0, y0, x1, y1):
        out = nl.ndarray((32, 512), nl.float32, buffer=nl.shared_hbm)
        ps = nl.ndarray((32, 512), nl.float32, buffer=nl.psum)
        nisa.memset(ps, 7.0)
        for x, y in ((x0, y0), (x1, y1)):
            sx = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
            sy = nl.ndarray(y.shape, y.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=sx, src=x)
            nisa.dma_copy(dst=sy, src=y)
            nisa.nc_matmul(dst=ps[:, 0:256], stationary=sx, moving=sy[:, 0:256])
            nisa.nc_matmul(dst=ps[:, 256:512], stationary=sx, moving=sy[:, 256:512])
        sb = nl.ndarray((32, 512), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=sb, src=ps)
        nisa.dma_copy(dst=out, src=sb)
        return out

    want = sum(x.astype(np.float64).T @ y.astype(np.float64) for x, y in zip(xs, ys))
    bound = _mm_bound(xs[0], ys[0]) + _mm_bound(xs[1], ys[1])
    assert np.all(np.abs(k(xs[0], ys[0], xs[1], ys[1]) - want) <= bound)
