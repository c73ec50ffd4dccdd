package timing

import "testing"

// BenchmarkFire: packets/s through the model — kernel 1's load (128
// packets a transfer) fired back to back on one model.
func BenchmarkFire(b *testing.B) {
	m := New(Trn2())
	tr := &Transfer{Engines: 16, From: HBM, To: SB, Rows: []Run{{Bytes: 4000, Count: 128}}}
	n := 0
	for i := 0; b.Loop(); i++ {
		if _, err := m.Fire(tr, int64(i)*1000); err != nil {
			b.Fatal(err)
		}
		n += 8 * 16
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "packets/s")
}
