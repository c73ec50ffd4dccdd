"""Real public NKI kernels that mask and select, re-typed, run on ndma.nki against NumPy
(docs/nki.md "Selection").

Each kernel is a re-typed copy of a public one — the Neuron NKI documentation's
nki.isa examples, aws-neuron/nki-samples' tutorials, and NKI ports of top-k and argmax
in public GitHub repositories — its body unchanged but for the import (``neuronxcc.nki``
becomes ``ndma.nki``). Every expectation is computed here with NumPy from the kernel's
definition, never from ndma. A kernel that needs a name ndma does not support is an
xfail(strict=True) naming it.
"""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402   (was: import neuronxcc.nki as nki)
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402
from ndma.nki.language import par_dim  # noqa: E402

nki_jit = nki.jit  # the docs harness had nki.trace: neuronxcc's decorator of that name
simulate_kernel = nki.simulate_kernel


def _rng(seed):
    return np.random.default_rng(seed)


# -- the NKI docs' nki.isa.affine_select example (legacy) -------------------------------------

@nki_jit
def nki_affine_select(a_tensor, b_tensor):
  ##################################################################
  # Example 1: Take tile a of shape [128, 128] and replace its
  # upper triangle with -9984.0;
  ##################################################################
  # return output in tile b
  i_p = nl.arange(128)[:, None]
  i_f = nl.arange(128)[None, :]
  a = nl.load(a_tensor[i_p, i_f])
  b = nisa.affine_select(pred=(i_f < i_p), on_true_tile=a[i_p, i_f], on_false_value=-9984.0)

  nl.store(b_tensor[i_p, i_f], b)


def test_docs_affine_select_example():
    a = np.random.random_sample([128, 128]).astype(np.float32)
    b = np.zeros([128, 128]).astype(np.float32)
    b_golden = np.copy(a)

    simulate_kernel(nki_affine_select, a, b)

    triui = np.triu_indices_from(b_golden)  # upper triangle indices (the docs' own check)
    b_golden[triui] = -9984.0
    assert np.array_equal(b, b_golden)


# -- aws-neuron/nki-samples tutorials/sd_attention: fused_self_attn_for_SD_small_head_size ----
# (legacy; the causal mask is an affine_select on the QK^T PSUM tile, then the softmax)

@nki.jit
def fused_self_attn_for_SD_small_head_size(q_ref, k_ref, v_ref, use_causal_mask=False,
                                           mixed_precision=True):
  # Use q_ref dtype as the intermediate tensor dtype
  # Assume all IO tensors have the same dtype
  kernel_dtype = q_ref.dtype
  pe_in_dt = nl.bfloat16 if mixed_precision else np.float32
  assert q_ref.dtype == k_ref.dtype == v_ref.dtype

  # Shape checking
  seqlen, d_head = q_ref.shape
  assert d_head <= 128, "Cannot use this kernel for d_head > 128"
  assert tuple(q_ref.shape) == (seqlen, d_head), 'Input shape mismatch!'
  assert tuple(k_ref.shape) == (seqlen, d_head), 'Input shape mismatch!'
  assert tuple(v_ref.shape) == (seqlen,d_head), \
  f'Input shape mismatch! Expected: {(seqlen, d_head)} Actual: {tuple(v_ref.shape)}'
  out_ref = nl.ndarray((seqlen, d_head), dtype=q_ref.dtype, buffer=nl.shared_hbm)

  # Softmax scaling factor, multiplied onto Q
  softmax_scale = 0.125

  q_seq_n_tiles, q_seq_tile_size = seqlen // 128, 128
  k_seq_n_tiles, k_seq_tile_size = seqlen // 128, 128
  # No tiling on d_head dimension since the dimension of d_head fits in SB
  d_head_tile_size = d_head
  v_seq_n_tiles, v_seq_tile_size = seqlen // 128, 128

  ###################################
  # Step 1. transpose(tensor_v)
  ###################################
  # Buffer for v matrix transposed
  # Pre-fetch and keep it in SBUF throughout different softmax tiles
  trans_v = nl.ndarray((par_dim(v_seq_tile_size), v_seq_n_tiles, d_head), dtype=pe_in_dt)

  for i_k_seq_tile in nl.affine_range(k_seq_n_tiles):
    ip_v = nl.arange(v_seq_tile_size)[:, None]
    if_v = nl.arange(d_head_tile_size)[None, :]
    trans_v[ip_v, i_k_seq_tile, if_v] = nl.load(
      v_ref[i_k_seq_tile * k_seq_tile_size + ip_v, if_v],
      dtype=pe_in_dt)

  q_local = nl.ndarray((q_seq_n_tiles, par_dim(d_head_tile_size), q_seq_tile_size), dtype=pe_in_dt)
  ip_q = nl.arange(d_head_tile_size)[:, None]
  if_q = nl.arange(q_seq_tile_size)[None, :]
  for i_q_seq_tile in nl.affine_range(q_seq_n_tiles):
    q_local[i_q_seq_tile, ip_q, if_q] = nl.load_transpose2d(
      q_ref[i_q_seq_tile * q_seq_tile_size + nl.arange(q_seq_tile_size)[:, None],
            nl.arange(d_head_tile_size)[None, :]
      ],
      dtype=pe_in_dt) * softmax_scale

  k_local = nl.ndarray((k_seq_n_tiles, par_dim(d_head_tile_size), k_seq_tile_size), dtype=pe_in_dt)
  ip_k = nl.arange(d_head_tile_size)[:, None]
  if_k = nl.arange(k_seq_tile_size)[None, :]
  for i_k_seq_tile in nl.affine_range(k_seq_n_tiles):
    k_local[i_k_seq_tile, ip_k, if_k] = nl.load_transpose2d(
      k_ref[i_k_seq_tile * k_seq_tile_size + nl.arange(k_seq_tile_size)[:, None],
            nl.arange(d_head_tile_size)[None, :]],
      dtype=pe_in_dt)

  for i_q_seq_tile in nl.affine_range(q_seq_n_tiles):  # indent = 2
    # A SBUF buffer for an independent softmax tile
    qk_res_buf = nl.ndarray((par_dim(q_seq_tile_size), seqlen), dtype=kernel_dtype)

    neg_max_res = nl.ndarray((par_dim(q_seq_tile_size), k_seq_n_tiles), dtype=kernel_dtype)
    ip_max = nl.arange(q_seq_tile_size)[:, None]
    if_max = nl.arange(k_seq_n_tiles)[None, :]

    # Loop over RHS free of matmul(stationary=tensor_q, moving=tensor_k, contract=d_head)
    for i_k_seq_tile in nl.affine_range(k_seq_n_tiles):  # indent = 4

      # Since the K^T tile is the RHS, the q_seq_len dimension will be P in the result
      # PSUM buffer shape: [q_seq_tile_size P, k_seq_tile_size F]
      qk_psum = nl.zeros((par_dim(q_seq_tile_size), k_seq_tile_size),
                         dtype=np.float32, buffer=nl.psum)

      # Tensor indices for accessing qk result in k_seq_tile_size
      ip_qk = nl.arange(q_seq_tile_size)[:, None]
      if_qk = nl.arange(k_seq_tile_size)[None, :]

      ##############################################################
      # Step 2. matmul(stationary=tensor_q, moving=tensor_k, contract=d_head)
      ##############################################################
      qk_psum[ip_qk, if_qk] += nisa.nc_matmul(moving=k_local[i_k_seq_tile, ip_k, if_k],
                                              stationary=q_local[i_q_seq_tile, ip_q, if_q])

      ###################################
      # Step 3. Apply optional causal mask
      ###################################
      if use_causal_mask:
        # Magic number -9984.0 to replace -inf similar to what neuronx-cc uses
        qk_res_buf[ip_qk, i_k_seq_tile * k_seq_tile_size + if_qk] = nisa.affine_select(
          pred=(i_q_seq_tile * q_seq_tile_size + ip_qk >= i_k_seq_tile * k_seq_tile_size + if_qk),
          on_true_tile=qk_psum[ip_qk, if_qk], on_false_value=-9984.0, dtype=kernel_dtype)
      else:
        # Simply send psum result back to sbuf
        qk_res_buf[ip_qk, i_k_seq_tile * k_seq_tile_size + if_qk] = nl.copy(qk_psum[ip_qk, if_qk],
                                                                              dtype=kernel_dtype)

      ###################################
      # Step 4. Softmax
      ###################################
      neg_max_res[ip_max, i_k_seq_tile] = nisa.tensor_reduce(
        np.max, data=qk_res_buf[ip_qk, i_k_seq_tile * k_seq_tile_size + if_qk],
        axis=(1,), dtype=kernel_dtype, negate=True)

    neg_max_res_final = nisa.tensor_reduce(
      np.min, data=neg_max_res[ip_max, if_max],
      axis=(1,), dtype=kernel_dtype, negate=False)

    ip_softmax = nl.arange(q_seq_tile_size)[:, None]
    if_softmax = nl.arange(seqlen)[None, :]
    ip_sum_res = nl.arange(q_seq_tile_size)[:, None]
    if_sum_res = nl.arange(d_head_tile_size)[None, :]

    softmax_res = nl.ndarray((par_dim(q_seq_tile_size), seqlen), dtype=pe_in_dt)
    sum_divisor = nl.ndarray((par_dim(q_seq_tile_size), d_head_tile_size), dtype=kernel_dtype)

    # Simply use a large tile of seq_len in size since this is a "blocking" instruction
    # Assuming the compiler will merge exp and reduce_add into a single instruction on ACT
    exp_res = nisa.activation(np.exp,
                              data=qk_res_buf[ip_softmax, if_softmax],
                              bias=neg_max_res_final, scale=1.0)

    sum_res = nisa.tensor_reduce(np.add, data=exp_res, axis=(1,),
                          dtype=kernel_dtype)
    softmax_res[ip_softmax, if_softmax] = nl.copy(exp_res, dtype=pe_in_dt)

    sum_reciprocal_broadcast = (1.0 / sum_res).broadcast_to((q_seq_tile_size, d_head_tile_size))
    sum_divisor[ip_sum_res, if_sum_res] = nl.copy(sum_reciprocal_broadcast, dtype=kernel_dtype)

    # Buffer for transposed softmax results (FP32 in PSUM)
    trans_softmax_res = nl.ndarray(
      (par_dim(k_seq_tile_size), k_seq_n_tiles, q_seq_tile_size),
      dtype=pe_in_dt)

    # Result psum buffer has the hidden dim as P
    attn_res_psum = nl.zeros((par_dim(d_head_tile_size), q_seq_tile_size),
                             dtype=np.float32, buffer=nl.psum)

    ip_scores_t = nl.arange(k_seq_tile_size)[:, None]
    if_scores_t = nl.arange(q_seq_tile_size)[None, :]
    # Loop over matmul_1 contraction
    for i_k_seq_tile in nl.affine_range(k_seq_n_tiles):
      ###################################
      # Step 5. transpose(softmax_res)
      ###################################
      ip_scores = nl.arange(q_seq_tile_size)[:, None]
      if_scores = nl.arange(k_seq_tile_size)[None, :]

      trans_softmax_res[ip_scores_t, i_k_seq_tile, if_scores_t] = nisa.nc_transpose(
        softmax_res[ip_scores, i_k_seq_tile * k_seq_tile_size + if_scores])

    ip_out = nl.arange(d_head_tile_size)[:, None]
    if_out = nl.arange(q_seq_tile_size)[None, :]
    for i_k_seq_tile in nl.affine_range(k_seq_n_tiles):
      ######################################################################
      # Step 6. matmul_1(stationary=trans_v, moving=trans_softmax_res, contract=seqlen_v=seqlen_k)
      ######################################################################
      ip_v_t = nl.arange(k_seq_tile_size)[:, None]
      if_v_t = nl.arange(d_head_tile_size)[None, :]
      attn_res_psum[ip_out, if_out] += \
        nisa.nc_matmul(moving=trans_softmax_res[ip_scores_t, i_k_seq_tile, if_scores_t],
                       stationary=trans_v[ip_v_t, i_k_seq_tile, if_v_t])

    attn_res_sbuf = nl.copy(attn_res_psum[ip_out, if_out], dtype=kernel_dtype)

    attn_res_div = attn_res_sbuf * nisa.nc_transpose(sum_divisor[ip_sum_res, if_sum_res])

    nl.store(
      out_ref[i_q_seq_tile * q_seq_tile_size + if_out, ip_out],
      value=attn_res_div)

  return out_ref


def _sd_attention_ref(q, k, v, causal):
    """softmax(q·0.125 @ k.T) @ v in float64, the causal mask as -inf above the diagonal."""
    s = (q.astype(np.float64) * 0.125) @ k.astype(np.float64).T
    if causal:
        s = np.where(np.tril(np.ones_like(s, bool)), s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


@pytest.mark.parametrize("causal", [True, False])
def test_sd_attention_causal(causal):
    seqlen, d_head = 256, 64
    rng = _rng(11)
    q, k, v = (rng.random((seqlen, d_head)).astype(np.float32) for _ in range(3))
    got = fused_self_attn_for_SD_small_head_size(q, k, v, use_causal_mask=causal)
    want = _sd_attention_ref(q, k, v, causal)
    # the PE runs in bfloat16 (mixed_precision): measured 1.9e-3 (causal) and 3.5e-4 at most
    np.testing.assert_allclose(got, want, rtol=5e-3, atol=5e-3)
    if causal:  # row 0 attends to key 0 only: exactly v[0] up to bfloat16
        np.testing.assert_allclose(got[0], v[0], rtol=1e-2, atol=1e-2)


# -- the NKI docs' nki.isa.max8 / nc_find_index8 examples (legacy) ----------------------------

@nki.jit(mode="simulation", kernel_return=True)
def nki_max8():
  ##################################################################
  # Example 1: Generate tile b of 32 * 128 random floating point values
  # and get the 8 largest values in each row:
  ##################################################################
  expr_a = nl.rand((32, 128))
  a = nisa.max8(src=expr_a)

  a_tensor = nl.ndarray([32, 8], dtype=nl.float32, buffer=nl.shared_hbm)
  nl.store(a_tensor, value=a)

  return a_tensor


@nki.jit(mode="simulation", kernel_return=True)
def nki_max_index8():
  ##################################################################
  # Example 1: Generate tile b of 32 * 128 random floating point values,
  # find the 8 largest values in each row, then find their indices:
  ##################################################################
  # Generate random data
  data = nl.rand((32, 128))

  # Find max 8 values per row
  max_vals = nisa.max8(src=data)

  # Create output tensor for indices
  indices_tensor = nl.ndarray([32, 8], dtype=nl.uint32, buffer=nl.shared_hbm)

  # Find indices of max values
  indices = nisa.nc_find_index8(data=data, vals=max_vals)

  # Store results
  nl.store(indices_tensor, value=indices)

  return indices_tensor


def test_docs_max8_example():
    a = nki_max8()
    assert a.shape == (32, 8)
    assert np.all(a >= 0) and np.all(a <= 1)
    assert np.all(np.diff(a, axis=1) <= 0)  # descending in every row (the docs' own checks)


def test_docs_nc_find_index8_example():
    indices = nki_max_index8()
    assert indices.shape == (32, 8) and indices.dtype == np.uint32
    assert np.all(indices < 128)
    assert np.all(np.diff(indices.astype(np.int64), axis=1) != 0)


# -- a public NKI MoE top-k gating kernel (legacy): top-2 of each row by max8 / nc_find_index8 -

PMAX = nl.tile_size.pmax


@nki.jit
def moe_topk_kernel(logits):
    M, E = logits.shape
    num_blocks = (M + (PMAX - 1)) // PMAX

    hbm_weights = nl.ndarray((M, 2), dtype=logits.dtype, buffer=nl.hbm)
    hbm_idx = nl.ndarray((M, 2), dtype=nl.int32, buffer=nl.hbm)

    for i in range(num_blocks):
        offset = i * PMAX
        partition_index = nl.arange(PMAX)[:, None]
        free_index = nl.arange(E)[None, :]
        mask_p = partition_index < (M - offset)

        a_tile = nl.load(logits[offset + partition_index, free_index], mask=mask_p, dtype=nl.float32)

        top8 = nisa.max8(src=a_tile, mask=mask_p)
        idx8 = nisa.nc_find_index8(data=a_tile, vals=top8, mask=mask_p)

        max1 = top8[:, 0:1]
        max2 = top8[:, 1:2]
        idx1 = nl.static_cast(idx8[:, 0:1], nl.int32)
        idx2 = nl.static_cast(idx8[:, 1:2], nl.int32)

        e2nd = nl.exp(nl.subtract(max2, max1))
        e1st = nl.exp(nl.subtract(max1, max1))
        denom = nl.add(e2nd, e1st)
        w0 = nl.divide(e2nd, denom)
        w1 = nl.divide(e1st, denom)

        w_tile = nl.ndarray((PMAX, 2), dtype=logits.dtype, buffer=nl.sbuf)
        w_tile[:, 0:1] = nl.add(w1, 0.0, dtype=logits.dtype)
        w_tile[:, 1:2] = nl.add(w0, 0.0, dtype=logits.dtype)

        idx_tile = nl.ndarray((PMAX, 2), dtype=nl.int32, buffer=nl.sbuf)
        idx_tile[:, 0:1] = idx1
        idx_tile[:, 1:2] = idx2

        out_free = nl.arange(2)[None, :]
        nl.store(hbm_weights[offset + partition_index, out_free], value=w_tile, mask=mask_p)
        nl.store(hbm_idx[offset + partition_index, out_free], value=idx_tile, mask=mask_p)

    return hbm_weights, hbm_idx


@pytest.mark.parametrize("M,E", [(128, 16), (200, 64)])
def test_moe_topk_gating(M, E):
    logits = _rng(12).standard_normal((M, E)).astype(np.float32)
    w, idx = moe_topk_kernel(logits)
    order = np.argsort(-logits, axis=1, kind="stable")[:, :2]  # distinct values: no ties
    want_idx = order.astype(np.int32)
    m1 = np.take_along_axis(logits, order[:, :1], 1)
    m2 = np.take_along_axis(logits, order[:, 1:2], 1)
    e2 = np.exp(m2 - m1)
    want_w = np.concatenate([1 / (1 + e2), e2 / (1 + e2)], axis=1)
    assert np.array_equal(idx, want_idx)
    np.testing.assert_allclose(w, want_w, rtol=1e-5, atol=1e-6)


# -- a public NKI argmax kernel (legacy): max8 / nc_find_index8 over 16,384-column tiles, masks,
#    nl.where keeping the best so far

FREE_TILE = 16384


@nki.jit
def argmax_kernel(a_input):
    m, n = a_input.shape
    num_blocks = (m + PMAX - 1) // PMAX
    num_free_blocks = (n + FREE_TILE - 1) // FREE_TILE

    hbm_result = nl.ndarray((m, 1), dtype=nl.uint32, buffer=nl.hbm)

    for i in range(num_blocks):
        offset = i * PMAX
        partition_index = nl.arange(PMAX)[:, None]
        p_mask = partition_index < (m - offset)

        best_val = nl.full((PMAX, 8), fill_value=float('-inf'), dtype=nl.float32, buffer=nl.sbuf)
        best_idx = nl.zeros((PMAX, 1), dtype=nl.uint32, buffer=nl.sbuf)

        for j in range(num_free_blocks):
            free_offset = j * FREE_TILE
            free_dim_index = nl.arange(FREE_TILE)[None, :]
            f_mask = free_dim_index < (n - free_offset)
            mask = p_mask & f_mask

            a_tile = nl.load(a_input[offset + partition_index, free_offset + free_dim_index],
                            mask=mask)

            tile_top8_vals = nisa.max8(src=a_tile, mask=mask)
            tile_top8_idx = nisa.nc_find_index8(data=a_tile, vals=tile_top8_vals, mask=mask)

            # cast to uint32 and add global offset
            tile_max_val = tile_top8_vals[:, 0:1]
            tile_max_idx = nl.static_cast(tile_top8_idx[:, 0:1], nl.uint32)
            tile_max_idx = nl.add(tile_max_idx, free_offset)

            better = nl.greater(tile_max_val, best_val[:, 0:1])
            best_val[...] = nl.where(better, tile_top8_vals, best_val)
            best_idx[...] = nl.where(better, nl.static_cast(tile_max_idx, nl.uint32), best_idx)

        nl.store(hbm_result[offset + partition_index, nl.arange(1)[None, :]],
                value=best_idx, mask=p_mask)

    return hbm_result


@pytest.mark.parametrize("m,n", [(128, 300), (130, 17000)])
def test_argmax(m, n):
    a = -np.abs(_rng(13).standard_normal((m, n))).astype(np.float32) - 1.0  # all negative: a 0 never wins
    got = argmax_kernel(a)
    assert got.shape == (m, 1) and got.dtype == np.uint32
    assert np.array_equal(got[:, 0], np.argmax(a, axis=1))


# -- a public NKI 0.6 flash-attention prefill kernel (Gemma4, d-tiled): the causal and sliding-window
#    masks as nisa.affine_select's pattern form on the score tile, an online softmax

_P = 128
_NEG = -30000.0


@nki.jit
def gemma4_flash_prefill_v2(q, k, v, scale: float = 1.0, sliding_window: int = 0,
                           q_pos_offset: int = 0):
    BH, Sq, D = q.shape
    BHkv, Sk, Dk = k.shape
    groups = BH // BHkv
    n_d = D // _P
    n_qt = (Sq + _P - 1) // _P
    n_kt = (Sk + _P - 1) // _P

    out = nl.ndarray((BH, Sq, D), dtype=q.dtype, buffer=nl.shared_hbm)

    for bh in nl.affine_range(BH):
        kv = bh // groups

        for qt in nl.affine_range(n_qt):
            qs = qt * _P
            qsz = min(_P, Sq - qs)

            # Load Q-tile as [D, qsz] (d on partition) per d-chunk via transpose.
            q_dpart = []
            for dc in nl.static_range(n_d):
                qtile = nl.ndarray((_P, _P), dtype=q.dtype, buffer=nl.sbuf)
                nisa.memset(qtile, value=0)
                nisa.dma_copy(dst=qtile[0:qsz, :],
                              src=q[bh, nl.ds(qs, qsz), nl.ds(dc * _P, _P)])
                q_ps = nl.ndarray((_P, _P), dtype=q.dtype, buffer=nl.psum)
                nisa.nc_transpose(dst=q_ps, data=qtile, engine=nisa.engine.tensor)
                qd = nl.ndarray((_P, _P), dtype=q.dtype, buffer=nl.sbuf)
                nisa.tensor_copy(dst=qd, src=q_ps)
                q_dpart.append(qd)

            run_max = nl.ndarray((_P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(run_max, value=_NEG)
            run_sum = nl.ndarray((_P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(run_sum, value=0.0)
            run_out = nl.ndarray((_P, D), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(run_out, value=0.0)

            for kt in nl.sequential_range(n_kt):
                ks = kt * _P
                ksz = min(_P, Sk - ks)

                # --- ON-DEMAND load this K-tile as [D-part, ksz] per d-chunk ---
                k_dpart = []
                for dc in nl.static_range(n_d):
                    ktile = nl.ndarray((_P, _P), dtype=k.dtype, buffer=nl.sbuf)
                    nisa.memset(ktile, value=0)
                    nisa.dma_copy(dst=ktile[0:ksz, :],
                                  src=k[kv, nl.ds(ks, ksz), nl.ds(dc * _P, _P)])
                    kt_ps = nl.ndarray((_P, _P), dtype=k.dtype, buffer=nl.psum)
                    nisa.nc_transpose(dst=kt_ps, data=ktile, engine=nisa.engine.tensor)
                    kd = nl.ndarray((_P, _P), dtype=k.dtype, buffer=nl.sbuf)
                    nisa.tensor_copy(dst=kd[:, 0:ksz], src=kt_ps[:, 0:ksz])
                    k_dpart.append(kd)
                # --- ON-DEMAND load this V-tile [ksz, D] ---
                vt = nl.ndarray((_P, D), dtype=v.dtype, buffer=nl.sbuf)
                nisa.memset(vt, value=0)
                nisa.dma_copy(dst=vt[0:ksz, :], src=v[kv, nl.ds(ks, ksz), :])

                # MM1: scores[qsz, ksz] = sum_dc q_dpart[dc]^T @ k_dpart[dc]
                sc_ps = nl.ndarray((_P, _P), dtype=nl.float32, buffer=nl.psum)
                for dc in nl.static_range(n_d):
                    nisa.nc_matmul(sc_ps[0:qsz, 0:ksz],
                                   stationary=q_dpart[dc][:, 0:qsz],
                                   moving=k_dpart[dc][:, 0:ksz],
                                   accumulate=(dc > 0))
                scores = nl.ndarray((_P, _P), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=scores[0:qsz, 0:ksz], data=sc_ps[0:qsz, 0:ksz],
                                   op0=nl.multiply, operand0=float(scale))

                # causal: keep q_abs >= k_abs, q_abs = q_pos_offset + qs + i
                nisa.affine_select(dst=scores[0:qsz, 0:ksz], pattern=[[-1, ksz]],
                                   channel_multiplier=1, on_true_tile=scores[0:qsz, 0:ksz],
                                   on_false_value=_NEG, cmp_op=nl.greater_equal,
                                   offset=(q_pos_offset + qs - ks))
                if sliding_window and sliding_window > 0:
                    # window: keep q_abs - k_abs < window
                    nisa.affine_select(dst=scores[0:qsz, 0:ksz], pattern=[[1, ksz]],
                                       channel_multiplier=-1, on_true_tile=scores[0:qsz, 0:ksz],
                                       on_false_value=_NEG, cmp_op=nl.greater_equal,
                                       offset=(sliding_window - 1 - (q_pos_offset + qs - ks)))

                # flash online softmax
                tile_max = nl.ndarray((_P, 1), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_reduce(dst=tile_max[0:qsz, :], data=scores[0:qsz, 0:ksz],
                                   op=nl.maximum, axis=(1,))
                new_max = nl.ndarray((_P, 1), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=new_max[0:qsz, :], data1=run_max[0:qsz, :],
                                   data2=tile_max[0:qsz, :], op=nl.maximum)
                p = nl.ndarray((_P, _P), dtype=nl.float32, buffer=nl.sbuf)
                neg_new = nl.ndarray((_P, 1), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=neg_new[0:qsz, :], data=new_max[0:qsz, :],
                                   op0=nl.multiply, operand0=-1.0)
                nisa.activation(dst=p[0:qsz, 0:ksz], data=scores[0:qsz, 0:ksz],
                                op=nl.exp, bias=neg_new[0:qsz, :])
                alpha = nl.ndarray((_P, 1), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=alpha[0:qsz, :], data1=run_max[0:qsz, :],
                                   data2=new_max[0:qsz, :], op=nl.subtract)
                nisa.activation(dst=alpha[0:qsz, :], data=alpha[0:qsz, :], op=nl.exp)
                psum_row = nl.ndarray((_P, 1), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_reduce(dst=psum_row[0:qsz, :], data=p[0:qsz, 0:ksz],
                                   op=nl.add, axis=(1,))
                nisa.tensor_tensor(dst=run_sum[0:qsz, :], data1=run_sum[0:qsz, :],
                                   data2=alpha[0:qsz, :], op=nl.multiply)
                nisa.tensor_tensor(dst=run_sum[0:qsz, :], data1=run_sum[0:qsz, :],
                                   data2=psum_row[0:qsz, :], op=nl.add)

                # PV
                p_ps = nl.ndarray((_P, _P), dtype=q.dtype, buffer=nl.psum)
                p_bf = nl.ndarray((_P, _P), dtype=q.dtype, buffer=nl.sbuf)
                nisa.tensor_copy(dst=p_bf[0:qsz, 0:ksz], src=p[0:qsz, 0:ksz])
                nisa.nc_transpose(dst=p_ps[0:ksz, 0:qsz], data=p_bf[0:qsz, 0:ksz],
                                  engine=nisa.engine.tensor)
                pt = nl.ndarray((_P, _P), dtype=q.dtype, buffer=nl.sbuf)
                nisa.tensor_copy(dst=pt[0:ksz, 0:qsz], src=p_ps[0:ksz, 0:qsz])
                pv_ps = nl.ndarray((_P, D), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_matmul(pv_ps[0:qsz, :], stationary=pt[0:ksz, 0:qsz],
                               moving=vt[0:ksz, :], accumulate=False)
                nisa.tensor_scalar(dst=run_out[0:qsz, :], data=run_out[0:qsz, :],
                                   op0=nl.multiply, operand0=alpha[0:qsz, :])
                pv_sb = nl.ndarray((_P, D), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_copy(dst=pv_sb[0:qsz, :], src=pv_ps[0:qsz, :])
                nisa.tensor_tensor(dst=run_out[0:qsz, :], data1=run_out[0:qsz, :],
                                   data2=pv_sb[0:qsz, :], op=nl.add)
                nisa.tensor_copy(dst=run_max[0:qsz, :], src=new_max[0:qsz, :])

            inv = nl.ndarray((_P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.reciprocal(dst=inv[0:qsz, :], data=run_sum[0:qsz, :])
            o_sb = nl.ndarray((_P, D), dtype=q.dtype, buffer=nl.sbuf)
            nisa.tensor_scalar(dst=o_sb[0:qsz, :], data=run_out[0:qsz, :],
                               op0=nl.multiply, operand0=inv[0:qsz, :])
            nisa.dma_copy(dst=out[bh, nl.ds(qs, qsz), :], src=o_sb[0:qsz, :])

    return out


def _flash_ref(q, k, v, scale, window, q_off):
    """Causal (and windowed) softmax attention in float64: key j visible to query i when
    q_off + i >= j (and q_off + i − j < window)."""
    BH, Sq, D = q.shape
    groups = BH // k.shape[0]
    out = np.empty(q.shape)
    i = np.arange(Sq)[:, None] + q_off
    j = np.arange(k.shape[1])[None, :]
    keep = i >= j
    if window:
        keep &= i - j < window
    for bh in range(BH):
        s = scale * q[bh].astype(np.float64) @ k[bh // groups].astype(np.float64).T
        s = np.where(keep, s, -np.inf)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        out[bh] = e / e.sum(axis=1, keepdims=True) @ v[bh // groups]
    return out


@pytest.mark.parametrize("window", [0, 100])
def test_gemma4_flash_prefill_causal_and_window(window):
    rng = _rng(14)
    q = rng.standard_normal((2, 256, 128)).astype(np.float32)
    k = rng.standard_normal((1, 256, 128)).astype(np.float32)
    v = rng.standard_normal((1, 256, 128)).astype(np.float32)
    got = gemma4_flash_prefill_v2(q, k, v, scale=0.088, sliding_window=window)
    np.testing.assert_allclose(got, _flash_ref(q, k, v, 0.088, window, 0), rtol=2e-4, atol=2e-4)
