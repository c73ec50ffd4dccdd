"""Real public NKI kernels built on nc_match_replace8, re-typed, run on ndma.nki against NumPy
(docs/nki.md "Selection"). Each kernel body is as published but for the import
(``neuronxcc.nki`` becomes ``ndma.nki``); every expectation is computed here with NumPy, the
docs' examples checked by the docs' own NumPy reference (re-typed too)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ndma.nki as nki  # noqa: E402   (was: import neuronxcc.nki as nki)
import ndma.nki.isa as nisa  # noqa: E402
import ndma.nki.language as nl  # noqa: E402
import ndma.nki.typing as nt  # noqa: E402


# -- the NKI docs' nki.isa.nc_match_replace8 examples (test_nki_isa_nc_match_replace8.py) ------

@nki.jit(mode="simulation")
def nki_nc_match_replace8():
  ##################################################################
  # Example 1: Generate tile a of random floating point values,
  # get the 8 largest values in each row, then replace their first
  # occurrences with -inf:
  ##################################################################
  N = 4
  M = 16
  data_tile = nl.rand((N, M))
  max_vals = nisa.max8(src=data_tile)

  result = nisa.nc_match_replace8(data=data_tile[:, :], vals=max_vals, imm=float('-inf'))
  result_tensor = nl.ndarray([N, M], dtype=nl.float32, buffer=nl.shared_hbm)
  nl.store(result_tensor, value=result)

  return result_tensor


@nki.jit(mode="simulation")
def nki_nc_match_replace_indices8(in_tensor: nt.tensor, imm: np.float32):
  ##################################################################
  # Example 2: Read the 8 largest values in each row of the tensor,
  # replace the first occurrence with imm, write indices, and return
  # the replaced output.
  ##################################################################
  n, m = in_tensor.shape
  out_tensor = nl.ndarray([n, m], dtype=in_tensor.dtype, buffer=nl.hbm)
  idx_tensor = nl.ndarray([n, 8], dtype=nl.uint32, buffer=nl.hbm)
  dst_idx = nl.ndarray((n, 8), dtype=idx_tensor.dtype)

  ix, iy = nl.mgrid[0:n, 0:8]

  inp_tile: nt.tensor[n, m] = nl.load(in_tensor)
  max_vals: nt.tensor[n, 8] = nisa.max8(src=inp_tile)

  out_tile = nisa.nc_match_replace8(
    dst_idx=dst_idx[ix, iy], data=inp_tile[:, :], vals=max_vals, imm=imm
  )

  nl.store(out_tensor, value=out_tile)
  nl.store(idx_tensor[ix, iy], value=dst_idx[ix, iy])
  return out_tensor, idx_tensor


@nki.jit(mode="simulation")
def nki_nc_match_replace_indices8_3d(data_tensor: nt.tensor):
  ##################################################################
  # Example 4: Read the 8 largest values in each row of the tensor,
  # replace the first occurrence with 0.0, write indices, and return
  # the replaced output.
  ##################################################################
  n, b, m = data_tensor.shape
  out_tensor = nl.ndarray([n, b, m], dtype=data_tensor.dtype, buffer=nl.hbm)
  n, b, m = data_tensor.shape

  out_tensor = nl.ndarray([n, b, m], dtype=data_tensor.dtype, buffer=nl.hbm)
  idx_tensor = nl.ndarray([n, 8], dtype=nl.uint32, buffer=nl.hbm)

  imm = 0.0
  idx_tile = nisa.memset(shape=(n, 8), value=0, dtype=nl.uint32)
  out_tile = nisa.memset(shape=(n, b, m), value=0, dtype=data_tensor.dtype)

  iq, ir, iw = nl.mgrid[0:n, 0:b, 0:m]
  ip, io = nl.mgrid[0:n, 0:8]

  inp_tile = nl.load(data_tensor[iq, ir, iw])
  max_vals: nt.tensor[n, 8] = nisa.max8(src=inp_tile)

  out_tile[iq, ir, iw] = nisa.nc_match_replace8(
    dst_idx=idx_tile[ip, io],
    data=inp_tile[iq, ir, iw],
    vals=max_vals[ip, io],
    imm=imm,
  )

  nl.store(out_tensor, value=out_tile)
  nl.store(idx_tensor, value=idx_tile)
  return out_tensor, idx_tensor


@nki.jit(mode="simulation")
def nki_nc_match_replace_indices8_3d_inplace(data_tensor: nt.tensor):
  ##################################################################
  # Example 5: Read the 8 largest values in each row of the tensor,
  # replace the first occurrence with 0.0 in-place and write indices.
  ##################################################################
  n, b, m = data_tensor.shape
  out_tensor = nl.ndarray([n, b, m], dtype=data_tensor.dtype, buffer=nl.hbm)
  n, b, m = data_tensor.shape

  out_tensor = nl.ndarray([n, b, m], dtype=data_tensor.dtype, buffer=nl.hbm)
  idx_tensor = nl.ndarray([n, 8], dtype=nl.uint32, buffer=nl.hbm)

  imm = 0.0
  idx_tile = nisa.memset(shape=(n, 8), value=0, dtype=nl.uint32)

  iq, ir, iw = nl.mgrid[0:n, 0:b, 0:m]
  ip, io = nl.mgrid[0:n, 0:8]

  inp_tile = nl.load(data_tensor[iq, ir, iw])
  max_vals: nt.tensor[n, 8] = nisa.max8(src=inp_tile)

  inp_tile[iq, ir, iw] = nisa.nc_match_replace8(
    dst_idx=idx_tile[ip, io],
    data=inp_tile[iq, ir, iw],
    vals=max_vals[ip, io],
    imm=imm,
  )

  nl.store(out_tensor, value=inp_tile)
  nl.store(idx_tensor, value=idx_tile)
  return out_tensor, idx_tensor


def match_and_get_index(data, vals):  # the docs' NumPy reference
  row = data.copy()
  vlength = vals.shape[-1]

  result = np.zeros(shape=vals.shape, dtype=np.int32)
  idx = 0
  for j in range(vlength):
    matches = np.where(row == vals[j])[0]
    if matches.size:  # the docs write `if matches:`, which NumPy refuses for more than one match
      idx = matches[0]
      row[idx] = np.float32("-inf")
      result[j] = idx
  return result


def get_replaced_output_and_max_indices(a, imm=0):
  axis = -1
  a_reshaped = a.reshape(a.shape[0], -1)
  a_sorted = np.sort(a_reshaped, axis=axis)
  a_sorted_last_8 = a_sorted[:, -8:]
  max_vals = np.flip(a_sorted_last_8, axis=-1)

  c = a_reshaped.copy()
  concat_out_golden_max_vals = np.concatenate([c, max_vals], axis=axis)
  c_idx = np.apply_along_axis(
    # get index for first occurence of max_vals along the specified axis
    lambda x: match_and_get_index(x[:-8], x[-8:]),
    axis=axis,
    arr=concat_out_golden_max_vals,
  ).astype(np.uint32)
  np.put_along_axis(c, indices=c_idx, values=imm, axis=axis)
  c = np.reshape(c, a.shape)
  return c, c_idx


def test_docs_nc_match_replace8_example1():
    result = nki_nc_match_replace8()
    assert result.shape == (4, 16) and result.dtype == np.float32
    inf_count = np.sum(np.isinf(result) & (result < 0), axis=1)  # the docs' own checks
    assert np.all(inf_count == 8)
    non_inf_mask = ~(np.isinf(result) & (result < 0))
    assert np.all(result[non_inf_mask] >= 0) and np.all(result[non_inf_mask] <= 1)


def test_docs_nc_match_replace8_indices():
    imm = np.float32('-inf')
    np.random.seed(0)
    a = np.random.random_sample([128, 512]).astype(np.float32)
    b, b_idx = nki_nc_match_replace_indices8(a, imm=imm)
    c, c_idx = get_replaced_output_and_max_indices(a, imm)
    assert np.array_equal(b, c) and np.array_equal(b_idx, c_idx)


def test_docs_nc_match_replace8_3d_and_inplace():
    np.random.seed(0)
    a = np.random.random_sample([128, 4, 4]).astype(np.float32)
    c, c_idx = get_replaced_output_and_max_indices(a, imm=0)
    for kernel in (nki_nc_match_replace_indices8_3d, nki_nc_match_replace_indices8_3d_inplace):
        b, b_idx = kernel(a)
        assert np.array_equal(b, c) and np.array_equal(b_idx, c_idx)


# -- a public NKI flash-knn kernel (knn_body, legacy): the top-k of 2<q, c> - |c|^2 over a corpus
#    resident in SBUF, peeled 8 at a time by max8 + nc_match_replace8 ------------------------------

_PMAX = 128        # partition / contraction and query-tile size
_BK = 512          # corpus tile (moving free / psum free)
_MAX8_FMAX = 16384  # max8 elements-per-partition limit
_NEG = -3.0e38     # sentinel below any real sim (padded corpus, peeled maxima)


def knn_body(qT, cT, c_sq, out_idx, *, BK: int = _BK, n_shards: int = 1,
             score_dtype=None, fold_csq: bool = False):
    Dp, Qp = qT.shape
    _, M = cT.shape
    kpad = out_idx.shape[1]
    n_dt = Dp // _PMAX
    n_qt = Qp // _PMAX
    n_ct = M // BK
    n_rounds = kpad // 8
    per = n_qt // n_shards
    q_base = (nl.program_id(0) * per) if n_shards > 1 else 0
    assert M <= _MAX8_FMAX, "NKI KNN v1 supports M <= 16384 (max8 limit)"
    assert kpad % 8 == 0
    score_dt = score_dtype if score_dtype is not None else nl.float32

    cT_sb = nl.ndarray((nl.par_dim(_PMAX), n_dt, M), dtype=cT.dtype, buffer=nl.sbuf)
    for i in nl.affine_range(n_dt):
        cT_sb[:, i, :] = nl.load(cT[i * _PMAX:(i + 1) * _PMAX, :])
    if not fold_csq:
        csq_sb = nl.ndarray((1, M), dtype=nl.float32, buffer=nl.sbuf)
        csq_sb[...] = nl.load(c_sq)

    for qt in nl.affine_range(per):
        q0 = (q_base + qt) * _PMAX
        q_sb = nl.ndarray((nl.par_dim(_PMAX), n_dt, _PMAX), dtype=qT.dtype,
                          buffer=nl.sbuf)
        for i in nl.affine_range(n_dt):
            q_sb[:, i, :] = nl.load(qT[i * _PMAX:(i + 1) * _PMAX, q0:q0 + _PMAX])

        score = nl.ndarray((_PMAX, M), dtype=score_dt, buffer=nl.sbuf)
        for ct in range(n_ct):
            c0 = ct * BK
            acc = nl.zeros((_PMAX, BK), dtype=nl.float32, buffer=nl.psum)
            for i in nl.affine_range(n_dt):
                acc += nisa.nc_matmul(q_sb[:, i, :], cT_sb[:, i, c0:c0 + BK])
            if fold_csq:
                score[:, c0:c0 + BK] = nl.copy(acc, dtype=score_dt)
            else:
                csq_bc = nl.broadcast_to(csq_sb[:, c0:c0 + BK], shape=(_PMAX, BK))
                score[:, c0:c0 + BK] = nisa.scalar_tensor_tensor(
                    data=acc, op0=nl.multiply, operand0=2.0,
                    op1=nl.subtract, operand1=csq_bc, dtype=score_dt,
                )

        ix, iy = nl.mgrid[0:_PMAX, 0:8]
        for r in range(n_rounds):
            top8 = nisa.max8(src=score)                          # [128, 8]
            dst_idx = nl.ndarray((_PMAX, 8), dtype=nl.uint32, buffer=nl.sbuf)
            replaced = nisa.nc_match_replace8(
                dst_idx=dst_idx[ix, iy], data=score[:, :], vals=top8, imm=_NEG)
            score[...] = replaced
            nl.store(out_idx[q0:q0 + _PMAX, r * 8:r * 8 + 8],
                     value=dst_idx[ix, iy])


@nki.jit
def knn_kernel(qT, cT, c_sq, kpad: int):  # the test's harness: the caller's out_idx, as the driver allocates it
    out_idx = nl.ndarray((qT.shape[1], kpad), dtype=nl.int32, buffer=nl.shared_hbm)
    knn_body(qT, cT, c_sq, out_idx)
    return out_idx


def test_flash_knn_top16():
    rng = np.random.default_rng(21)
    Q, M, D, k = 128, 1024, 64, 16
    q = rng.standard_normal((Q, D)).astype(np.float32)
    c = rng.standard_normal((M, D)).astype(np.float32)
    qT = np.zeros((128, Q), np.float32)  # D padded to 128 with zeros (the caller's padding)
    cT = np.zeros((128, M), np.float32)
    qT[:D], cT[:D] = q.T, c.T
    c_sq = (c.astype(np.float64) ** 2).sum(axis=1)[None, :].astype(np.float32)
    got = knn_kernel(qT, cT, c_sq, k)
    assert got.shape == (Q, k) and got.dtype == np.int32
    d2 = ((q[:, None, :].astype(np.float64) - c[None, :, :]) ** 2).sum(axis=2)
    want = np.argsort(d2, axis=1, kind="stable")[:, :k]
    # nearest first; fp32 rounding of the score may swap near-ties, so compare the sets and the
    # distances in order
    assert all(set(g) == set(w) for g, w in zip(got.tolist(), want.tolist()))
    gd = np.take_along_axis(d2, got.astype(np.int64), axis=1)
    assert np.all(np.diff(gd, axis=1) >= -1e-3)
