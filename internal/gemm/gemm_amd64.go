//go:build !purego

package gemm

import "golang.org/x/sys/cpu"

// hasAsm: the micro-kernel uses AVX2-era YMM instructions and FMA3
// (VBROADCASTSS, VMOVUPS, VFMADD231PS); x/sys/cpu reports AVX2 only where
// the OS saves the YMM state.
var hasAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVX512: kern6x32 and packX32 use ZMM registers (AVX-512F); x/sys/cpu
// reports AVX-512F only where the OS also saves the ZMM and opmask state
// (XCR0). Zen 4/5 run AVX-512 at full clock (measured here on Zen 5: the
// 6×32 kernel at twice the 6×16 kernel's rate); Intel parts that lower
// their clock for 512-bit FMAs (Skylake-SP and kin) were not measured — a
// PE-shape call is 8 M FMAs of sustained work, the case where the wider
// FMAs usually outweigh the lower clock.
var hasAVX512 = hasAsm && cpu.X86.HasAVX512F

// panelWidth is the width in n of the packed panels of x of the kernel
// MatMul uses, by which parallel cuts columns.
func panelWidth() int {
	if hasAVX512 {
		return nrWide
	}
	return nr
}

// kern6x16 computes the 6×16 tile c[i*ldc+j] = (acc ? c[i*ldc+j] : 0) +
// Σ_{p<k} a[p*6+i]·b[p*16+j] for i < 6, j < 16: a is k steps of 6 packed
// values of w, b k steps of 16 packed values of x, c the tile's first
// element with rows ldc elements apart. It reads exactly 6k floats at a and
// 16k at b and reads and writes the 6 rows of 16 at c (k ≥ 0).
//
//go:noescape
func kern6x16(k int, a, b, c *float32, ldc int, acc bool)

// kern6x32 is kern6x16 on AVX-512F ZMM registers for a 6×32 tile: b is k
// steps of 32 packed values of x; it reads exactly 6k floats at a and 32k
// at b and reads and writes the 6 rows of 32 at c (k ≥ 0).
//
//go:noescape
func kern6x32(k int, a, b, c *float32, ldc int, acc bool)

// packX32 copies k rows of 32 floats, ld floats apart at src, to dst
// contiguously (32k floats). AVX-512F.
//
//go:noescape
func packX32(k int, dst, src *float32, ld int)

// packX16 copies k rows of 16 floats, ld floats apart at src, to dst
// contiguously (16k floats).
//
//go:noescape
func packX16(k int, dst, src *float32, ld int)

// packW6 copies k rows of 6 floats, ld floats apart at src, to dst
// contiguously (6k floats).
//
//go:noescape
func packW6(k int, dst, src *float32, ld int)

// matMulAsm is MatMul with the micro-kernel, for sizes check has accepted
// and K > 0, packing in s (whose block of w, if packed, is reused): the
// 6×32 AVX-512 kernel where the CPU has it, else the 6×16 AVX2 one.
func matMulAsm(s *scratch, M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool) {
	matMulPanels(s, hasAVX512, M, N, K, w, ldw, x, ldx, out, ldo, acc)
}

// matMulPanels is matMulAsm with the kernel chosen by wide: panels of x
// nrWide columns wide and kern6x32 (AVX-512F, which the caller has checked)
// or nr wide and kern6x16. With wide, a last panel of at most nr columns
// takes the 16-wide kernel instead of a half-empty 32-wide one.
func matMulPanels(s *scratch, wide bool, M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool) {
	for k0 := 0; k0 < K; k0 += kc {
		kb := min(kc, K-k0)
		add := acc || k0 > 0
		for m0 := 0; m0 < M; m0 += mc {
			mb := min(mc, M-m0)
			panels := (mb + mr - 1) / mr
			if key := (packKey{&w[k0*ldw+m0], ldw, kb, mb}); s.packed != key {
				packW(s.wp[:panels*mr*kb], w[k0*ldw+m0:], ldw, kb, mb)
				s.packed = key
			}
			for n0 := 0; n0 < N; {
				pw := nr
				if wide && N-n0 > nr {
					pw = nrWide
				}
				nb := min(pw, N-n0)
				xp := s.xp[:kb*pw]
				packX(xp, x[k0*ldx+n0:], ldx, kb, nb, pw)
				kern := kern6x16
				if pw == nrWide {
					kern = kern6x32
				}
				for p := range panels {
					m := m0 + p*mr
					wp := s.wp[p*mr*kb : (p+1)*mr*kb]
					rows := min(mr, M-m)
					if rows == mr && nb == pw {
						// The slice expression is the bounds check of the
						// assembly's 6 rows of pw.
						o := out[m*ldo+n0 : (m+mr-1)*ldo+n0+pw]
						kern(kb, &wp[0], &xp[0], &o[0], ldo, add)
						continue
					}
					tile := s.tile[:mr*pw]
					kern(kb, &wp[0], &xp[0], &tile[0], pw, false)
					for i := range rows {
						o := out[(m+i)*ldo+n0 : (m+i)*ldo+n0+nb]
						t := tile[i*pw : i*pw+nb]
						if add {
							for j := range o {
								o[j] += t[j]
							}
						} else {
							copy(o, t)
						}
					}
				}
				n0 += nb
			}
		}
	}
}

// packW writes the kb×mb block of w (rows ld apart) to dst as panels of mr
// columns, each kb steps of mr contiguous values, the last panel padded with
// zeros.
func packW(dst, w []float32, ld, kb, mb int) {
	full := mb / mr
	if full > 0 {
		// The bounds of the assembly's reads and writes.
		_ = w[(kb-1)*ld+full*mr-1]
		_ = dst[full*kb*mr-1]
	}
	for p := range full {
		packW6(kb, &dst[p*kb*mr], &w[p*mr], ld)
	}
	if full*mr < mb {
		for k := range kb {
			d := dst[(full*kb+k)*mr : (full*kb+k+1)*mr]
			clear(d[copy(d, w[k*ld+full*mr:k*ld+mb]):])
		}
	}
}

// packX writes the kb×nb block of x (rows ld apart) to dst as kb steps of
// pw (nr or nrWide) contiguous values, padded with zeros when nb < pw.
func packX(dst, x []float32, ld, kb, nb, pw int) {
	if nb == pw {
		// The bounds of the assembly's reads and writes.
		_ = x[(kb-1)*ld+pw-1]
		_ = dst[kb*pw-1]
		if pw == nrWide {
			packX32(kb, &dst[0], &x[0], ld)
		} else {
			packX16(kb, &dst[0], &x[0], ld)
		}
		return
	}
	for k := range kb {
		d := dst[k*pw : (k+1)*pw]
		clear(d[copy(d, x[k*ld:k*ld+nb]):])
	}
}
