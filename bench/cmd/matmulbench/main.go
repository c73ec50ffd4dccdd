// Command matmulbench times ndma/internal/gemm.MatMul, the PE array's
// MATMUL kernel: the PE shape (K = 128 partitions, M = 128 stationary
// columns, N = 512 moving columns) repeated for about -time, on one thread
// and on GOMAXPROCS, and a whole 4096 × 4096 × 4096 product done as the
// simulator would, tile by tile (128 × 512 outputs, 128 partitions a call,
// accumulating over k). It prints GFLOP/s at 2·M·N·K a call; bench/matmul.sh
// runs it beside NumPy.
//
//	go run ./bench/cmd/matmulbench [-time 2s] [-size 4096]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"ndma/internal/gemm"
)

const (
	tileK = 128
	tileM = 128
	tileN = 512
)

func random(n int, r *rand.Rand) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = r.Float32()*2 - 1
	}
	return v
}

// peTile repeats one PE-shape MatMul (accumulating, as a PSUM bank does)
// for about d and returns GFLOP/s.
func peTile(d time.Duration, r *rand.Rand) float64 {
	w, x, out := random(tileK*tileM, r), random(tileK*tileN, r), random(tileM*tileN, r)
	call := func() { gemm.MatMul(tileM, tileN, tileK, w, tileM, x, tileN, out, tileN, true) }
	for range 10 {
		call()
	}
	calls := 0
	start := time.Now()
	for time.Since(start) < d {
		for range 20 {
			call()
		}
		calls += 20
	}
	el := time.Since(start)
	return 2 * tileM * tileN * tileK * float64(calls) / el.Seconds() / 1e9
}

// whole computes out = wᵀ·x for w (size × size, row k = partition k) and x
// (size × size) as the simulator would: for each 128 × 512 tile of out,
// size/128 accumulating MatMuls over 128 partitions each, operands read in
// place at stride size. It returns GFLOP/s and the seconds taken.
func whole(size int, r *rand.Rand) (float64, float64) {
	w, x, out := random(size*size, r), random(size*size, r), make([]float32, size*size)
	start := time.Now()
	for m0 := 0; m0 < size; m0 += tileM {
		for n0 := 0; n0 < size; n0 += tileN {
			for k0 := 0; k0 < size; k0 += tileK {
				M, N, K := min(tileM, size-m0), min(tileN, size-n0), min(tileK, size-k0)
				gemm.MatMul(M, N, K, w[k0*size+m0:], size, x[k0*size+n0:], size, out[m0*size+n0:], size, k0 > 0)
			}
		}
	}
	el := time.Since(start).Seconds()
	return 2 * float64(size) * float64(size) * float64(size) / el / 1e9, el
}

func main() {
	d := flag.Duration("time", 2*time.Second, "how long to repeat the PE tile")
	size := flag.Int("size", 4096, "M = N = K of the whole product")
	flag.Parse()
	r := rand.New(rand.NewPCG(1, 1))
	procs := runtime.GOMAXPROCS(0)

	runtime.GOMAXPROCS(1)
	one := peTile(*d, r)
	runtime.GOMAXPROCS(procs)
	all := peTile(*d, r)
	fmt.Printf("ndma PE tile K=%d M=%d N=%d, 1 thread:    %7.1f GFLOP/s\n", tileK, tileM, tileN, one)
	fmt.Printf("ndma PE tile K=%d M=%d N=%d, %d threads:   %7.1f GFLOP/s\n", tileK, tileM, tileN, procs, all)

	g, s := whole(*size, r)
	fmt.Printf("ndma %d³ as %d×%d×%d tiles, %d threads: %7.1f GFLOP/s (%.2f s)\n", *size, tileM, tileN, tileK, procs, g, s)
	fmt.Printf("ndma_whole_gflops %.3f\n", g)
}
