package sim

import (
	"testing"

	"ndma/internal/benchcase"
	"ndma/isa"
)

// BenchmarkSim: the data paths of ref's BenchmarkRef (internal/benchcase)
// through the DGE lowering and the descriptor engines (bench/compare.sh
// prints the ratios).
func BenchmarkSim(b *testing.B) {
	for _, c := range benchcase.Cases {
		b.Run(c.Name, func(b *testing.B) {
			x := New(isa.Cayman)
			if err := c.Setup(x.Mem); err != nil {
				b.Fatal(err)
			}
			in := wordTB(b, isa.Cayman, c.Word)
			if err := x.Exec(in); err != nil { // once untimed: the destination's pages exist, as NumPy's out arrays do (bench/numpy_ref.py)
				b.Fatal(err)
			}
			b.SetBytes(c.Bytes)
			b.ReportAllocs()
			for b.Loop() {
				if err := x.Exec(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScale: ref's time-vs-size cases on the engines.
func BenchmarkScale(b *testing.B) {
	benchcase.BenchScale(b, func(maxBytes int64) (benchcase.Machine, benchcase.Writer) {
		x := New(isa.Cayman)
		x.MaxBytes = maxBytes
		return x, x.Mem
	}, wordTB)
}
