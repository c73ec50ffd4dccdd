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
	cases, maxBytes := benchcase.Scale()
	for _, c := range cases {
		b.Run(c.Name, func(b *testing.B) {
			x := New(isa.Cayman)
			x.MaxBytes = maxBytes
			if err := c.Setup(x.Mem); err != nil {
				b.Fatal(err)
			}
			ins := []*isa.Inst{wordTB(b, isa.Cayman, c.Word)}
			for _, w := range c.More {
				ins = append(ins, wordTB(b, isa.Cayman, w))
			}
			for _, in := range ins { // once untimed: the destination's pages exist, the table is of the moves
				if err := x.Exec(in); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(c.Bytes)
			cpu := benchcase.CPUTime()
			for b.Loop() {
				for _, in := range ins {
					if err := x.Exec(in); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(benchcase.CPUTime()-cpu)/float64(b.N), "cpu-ns/op") // the machine may be shared: CPU time beside wall time
		})
	}
}
