package benchcase

import (
	"testing"

	"ndma/isa"
)

// Machine is what a case runs on: ref.Executor and sim.Machine alike.
type Machine interface {
	Exec(in *isa.Inst) error
}

// BenchScale runs the time-vs-size cases (Scale) on a machine newMachine
// makes for each (its memory set up by the case), each case's words once
// untimed so the destination's pages exist — the table is of the moves —
// and CPU time reported beside wall time, the machine being shared.
func BenchScale(b *testing.B, newMachine func(maxBytes int64) (Machine, Writer), word func(testing.TB, isa.Gen, string) *isa.Inst) {
	cases, maxBytes := Scale()
	for _, c := range cases {
		b.Run(c.Name, func(b *testing.B) {
			x, m := newMachine(maxBytes)
			if err := c.Setup(m); err != nil {
				b.Fatal(err)
			}
			ins := []*isa.Inst{word(b, isa.Cayman, c.Word)}
			for _, w := range c.More {
				ins = append(ins, word(b, isa.Cayman, w))
			}
			run := func() {
				for _, in := range ins {
					if err := x.Exec(in); err != nil {
						b.Fatal(err)
					}
				}
			}
			run()
			b.SetBytes(c.Bytes)
			cpu := CPUTime()
			for b.Loop() {
				run()
			}
			b.ReportMetric(float64(CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
