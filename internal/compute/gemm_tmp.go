package compute

// matMul is out[m][n] (+)= Σ_k w[k][m]·x[k][n] (to be internal/gemm).
func matMul(M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool) {
	for m := range M {
		o := out[m*ldo : m*ldo+N]
		if !acc {
			clear(o)
		}
		for k := range K {
			a := w[k*ldw+m]
			xr := x[k*ldx : k*ldx+N]
			for j := range o {
				o[j] += a * xr[j]
			}
		}
	}
}
