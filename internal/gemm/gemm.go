// Package gemm is the float32 kernel of the PE array's MATMUL:
//
//	out[m][n] (+)= Σ_{k<K} w[k][m] · x[k][n]     m < M, n < N
//
// Layout. Both operands arrive as the simulator holds them, one SBUF
// partition a row: the stationary operand w is K rows of stride ldw (row k
// is partition k, element m), the moving operand x is K rows of stride ldx
// (element n), and out is M rows of stride ldo. So the product is wᵀ·x with
// the contraction along the rows of both operands.
//
// Method. On amd64 with AVX2 and FMA (x/sys/cpu) MatMul packs, per block of
// at most kc rows of k and mc columns of m, w into panels of 6 columns of m
// (each k step's 6 values contiguous, for VBROADCASTSS) and, per panel of
// nr = 16 columns of n, x into a contiguous kc×16 panel that stays in L1;
// an assembly micro-kernel (gemm_amd64.s) keeps a 6×16 tile of out in 12
// YMM registers and runs 6 VBROADCASTSS + 2 VMOVUPS + 12 VFMADD231PS per k.
// With AVX-512F as well (x/sys/cpu reports it only where the OS saves the
// ZMM state), the panels of x are nrWide = 32 columns and the kernel,
// kern6x32, keeps a 6×32 tile in 12 ZMM registers with the same
// instructions on ZMM — twice the multiply-adds per instruction; a last
// panel of at most 16 columns still takes the 6×16 kernel. On Zen 5 the
// ZMM kernel runs at the same clock (measured: exactly twice the 6×16
// kernel's rate in L1, ~220 against ~110 GFLOP/s), so there is no
// frequency trade-off to weigh there. kern6x32 prefetches the next tile of
// out and packX32 the next panel of x, which helps when operands come from
// memory at the large strides of a whole product done tile by tile.
// Packing also removes the cache-set conflicts of the power-of-two strides
// the simulator uses (2 KiB between partitions). Tiles cut by the edge of M
// or N are computed into a scratch tile from zero-padded panels and copied
// out in Go, so the assembly never touches memory outside the packed
// buffers and the full tiles of out, whose bounds MatMul checks first
// (prefetches aside, which do not fault).
// Large calls (≥ parallelMin multiply-adds) are split by columns of n (or
// rows of m when N is narrow) over GOMAXPROCS goroutines. Elsewhere (other
// GOARCH, -tags purego, no AVX2/FMA) matMulGeneric, a register-blocked
// plain-Go loop, does the work.
//
// Why assembly: Go has no SIMD intrinsics (short of GOEXPERIMENT=simd) and
// its compiler does not vectorize loops, so plain Go does one scalar
// multiply-add at a time — about 16× below an AVX2 core's two 8-wide FMAs
// per cycle.
//
// Limits against OpenBLAS: the micro-kernels do not software-pipeline
// their loads, and the simulator's shape (K ≤ 128 per call, out reloaded
// and stored back on each accumulating call) gives each tile of out only K
// multiply-adds per load/store pair, where OpenBLAS on a whole 4096³
// product blocks K by hundreds and keeps C in cache across them. M = 128
// is not a multiple of 6, so a PE-shape call spends 4 of its 132 rows of
// work on padding. Accumulation is in float32 in the order k = 0…K−1 per
// block (FMA), so results differ from a float64 sum by rounding only.
package gemm

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// The register tile of the micro-kernel, mr rows of m by nr columns of n,
// and the blocks of k and m packed at a time (kc·mc floats of w: 144 KiB,
// in L2; kc·nr of x: 16 KiB, in L1; kc·nrWide, 32 KiB, for the AVX-512
// kernel).
const (
	mr     = 6
	nr     = 16
	nrWide = 32
	kc     = 256
	mc     = 24 * mr
)

// parallelMin is the work, in multiply-adds, from which MatMul splits a call
// over goroutines: 2^24, so a PE-shape call (128×128×512 = 2^23) stays on
// one thread — with the AVX-512 kernel it takes ~45 µs, less than waking a
// second thread gains (measurements at parallel).
const parallelMin = 1 << 24

// MatMul computes out[m*ldo+n] = (acc ? out[m*ldo+n] : 0) + Σ_k w[k*ldw+m]·x[k*ldx+n] for m<M, n<N, k<K.
// It panics only on slices too short for the given sizes and strides (callers check first).
//
// Rows of out must not overlap (ldo ≥ N when M > 1) and out must not share
// memory with w or x; MatMul keeps no state, so calls on disjoint outputs
// may run at once from several goroutines.
func MatMul(M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool) {
	check(M, N, K, w, ldw, x, ldx, out, ldo)
	if M == 0 || N == 0 {
		return
	}
	if K == 0 {
		if !acc {
			for m := 0; m < M; m++ {
				clear(out[m*ldo : m*ldo+N])
			}
		}
		return
	}
	kernel := kernelFunc(func(_ *scratch, M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool) {
		matMulGeneric(M, N, K, w, ldw, x, ldx, out, ldo, acc)
	})
	if hasAsm {
		kernel = matMulAsm
	}
	parallel(M, N, K, w, ldw, x, ldx, out, ldo, acc, kernel)
}

// check panics unless w, x and out hold the given sizes at their strides.
func check(M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int) {
	if M < 0 || N < 0 || K < 0 {
		panic(fmt.Sprintf("gemm: negative size M=%d N=%d K=%d", M, N, K))
	}
	need := func(name string, s []float32, rows, cols, ld int) {
		if rows == 0 || cols == 0 {
			return
		}
		if ld < 0 || (rows > 1 && ld < 1) {
			panic(fmt.Sprintf("gemm: %s stride %d", name, ld))
		}
		if n := (rows-1)*ld + cols; n > len(s) || n < 0 {
			panic(fmt.Sprintf("gemm: %s has %d elements, %d×%d at stride %d needs %d", name, len(s), rows, cols, ld, n))
		}
	}
	if M > 0 && N > 0 {
		need("w", w, K, M, ldw)
		need("x", x, K, N, ldx)
	}
	need("out", out, M, N, ldo)
}

// kernelFunc computes one rectangle of a call (sizes check has accepted,
// K > 0) with a participant's scratch.
type kernelFunc func(s *scratch, M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool)

// scratch is one participant's packed operands and edge tile, from
// scratchPool. packed names the block of w in wp, so that a participant
// packs it once for all the column chunks it takes; it is reset on each Get.
type scratch struct {
	wp     []float32 // mc/mr panels of kb steps × mr values of w
	xp     []float32 // kb steps × nr or nrWide values of x
	tile   [mr * nrWide]float32
	packed packKey
}

type packKey struct {
	w          *float32
	ld, kb, mb int
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{wp: make([]float32, mc*kc), xp: make([]float32, kc*nrWide)}
}}

func getScratch() *scratch {
	s := scratchPool.Get().(*scratch)
	s.packed = packKey{}
	return s
}

// parallel runs kernel on the whole call, or, when it is large, on chunks
// of it — runs of whole panels of n (panelWidth), or of whole 6-row panels of
// m when N is narrow, so that no tile is cut but by the call's edge —
// taken in turn by the calling goroutine and GOMAXPROCS−1 others: a
// goroutine that starts late (waking an idle thread costs tens of µs, a
// PE-shape call about 150 µs) takes fewer chunks instead of delaying the
// call. Measured on the 2-CPU VM this was written on, that makes a PE-shape
// call only ~1.1× faster on 2 threads than on 1: the started goroutine
// mostly joins half-way through. Kept helper goroutines that spin 200 µs
// between calls reached 1.6× on an idle machine but fell to 0.6× of one
// thread when another process kept a CPU busy (a helper descheduled while
// holding a chunk), so the simple form stays. With the AVX-512 kernel a
// PE-shape call takes ~45 µs on one thread, and the split costs more than
// it gains: on the same VM, idle, the PE tile ran at 150–170 GFLOP/s on 2
// threads against 170–195 on 1, and the 4096³ product as tiles at 96–107
// on 2 against 110–121 on 1 (a parallelMin of 1<<24, which leaves
// PE-shape calls whole, gave 117–125). Taking chunks from both ends, the
// caller's from the front, to keep columns on one thread's L2 from call to
// call, made no difference beyond the noise.
func parallel(M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool, kernel kernelFunc) {
	procs := runtime.GOMAXPROCS(0)
	work := M * N * K
	if procs < 2 || work < parallelMin || work/M/N != K {
		s := getScratch()
		kernel(s, M, N, K, w, ldw, x, ldx, out, ldo, acc)
		scratchPool.Put(s)
		return
	}
	procs = min(procs, work/(parallelMin/2))
	// Four chunks a participant, each of at least parallelMin/8
	// multiply-adds.
	chunks := min(4*procs, work/(parallelMin/8))
	byCols := true
	pw := panelWidth()
	panels := (N + pw - 1) / pw
	if panels < chunks {
		if rows := (M + mr - 1) / mr; rows > panels {
			byCols, panels = false, rows
		}
	}
	chunks = min(chunks, panels)
	procs = min(procs, chunks)
	var next atomic.Int64
	part := func() {
		s := getScratch()
		defer scratchPool.Put(s)
		for {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			p0, p1 := panels*c/chunks, panels*(c+1)/chunks
			if byCols {
				n0, n1 := p0*pw, min(N, p1*pw)
				kernel(s, M, n1-n0, K, w, ldw, x[n0:], ldx, out[n0:], ldo, acc)
			} else {
				m0, m1 := p0*mr, min(M, p1*mr)
				kernel(s, m1-m0, N, K, w[m0:], ldw, x, ldx, out[m0*ldo:], ldo, acc)
			}
		}
	}
	var wg sync.WaitGroup
	for range procs - 1 {
		wg.Go(part)
	}
	part()
	wg.Wait()
}

// matMulGeneric is MatMul in plain Go, for sizes check has accepted: four
// rows of out at a time, k outer and n inner, so that each row of x is
// read once per four rows and the inner loop is a bounds-check-free
// multiply-add of one scalar of w by a row of x into each row of out.
func matMulGeneric(M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool) {
	if M == 0 || N == 0 {
		return
	}
	m := 0
	for ; m+4 <= M; m += 4 {
		o0 := out[m*ldo : m*ldo+N]
		o1 := out[(m+1)*ldo : (m+1)*ldo+N]
		o2 := out[(m+2)*ldo : (m+2)*ldo+N]
		o3 := out[(m+3)*ldo : (m+3)*ldo+N]
		if !acc {
			clear(o0)
			clear(o1)
			clear(o2)
			clear(o3)
		}
		for k := 0; k < K; k++ {
			wk := w[k*ldw+m : k*ldw+m+4]
			w0, w1, w2, w3 := wk[0], wk[1], wk[2], wk[3]
			xr := x[k*ldx : k*ldx+N]
			o0, o1, o2, o3 := o0[:len(xr)], o1[:len(xr)], o2[:len(xr)], o3[:len(xr)]
			for n, v := range xr {
				o0[n] += w0 * v
				o1[n] += w1 * v
				o2[n] += w2 * v
				o3[n] += w3 * v
			}
		}
	}
	for ; m < M; m++ {
		o := out[m*ldo : m*ldo+N]
		if !acc {
			clear(o)
		}
		for k := 0; k < K; k++ {
			w0 := w[k*ldw+m]
			xr := x[k*ldx : k*ldx+N]
			o := o[:len(xr)]
			for n, v := range xr {
				o[n] += w0 * v
			}
		}
	}
}
