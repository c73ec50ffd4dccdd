package inspect

import (
	"testing"

	"ndma/internal/samples/sampleneff"
	"ndma/isa"
)

// BenchmarkLintLarge analyses, lints and budgets matmul_large (8,768 DMA
// words, 2.3 M descriptors): go test ./inspect -bench LintLarge.
func BenchmarkLintLarge(b *testing.B) {
	_, sgs := sampleneff.Open(b, "matmul_large.neff")
	for b.Loop() {
		a, err := Analyze(isa.Cayman, sgs, Options{})
		if err != nil {
			b.Fatal(err)
		}
		LintOf(a)
		if _, err := BudgetFrom(a); err != nil {
			b.Fatal(err)
		}
	}
}
