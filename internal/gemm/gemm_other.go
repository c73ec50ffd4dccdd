//go:build !amd64 || purego

package gemm

// No micro-kernel: matMulGeneric does all (other GOARCH, or -tags purego).
const (
	hasAsm    = false
	hasAVX512 = false
)

func panelWidth() int { return nr }

func matMulAsm(_ *scratch, M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool) {
	matMulGeneric(M, N, K, w, ldw, x, ldx, out, ldo, acc)
}

func matMulPanels(_ *scratch, _ bool, M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool) {
	matMulGeneric(M, N, K, w, ldw, x, ldx, out, ldo, acc)
}
