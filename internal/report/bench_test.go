package report

import (
	"io"
	"testing"

	"ndma/internal/samples/sampleneff"
	"ndma/isa"
)

// BenchmarkReportLarge builds and writes matmul_large's page (8,768 DMA
// words, a run on the engines): go test ./internal/report -bench ReportLarge.
func BenchmarkReportLarge(b *testing.B) {
	f, sgs := sampleneff.Open(b, "matmul_large.neff")
	for b.Loop() {
		d, err := Build(isa.Cayman, f, sgs, "matmul_large.neff")
		if err != nil {
			b.Fatal(err)
		}
		if err := Write(io.Discard, d); err != nil {
			b.Fatal(err)
		}
	}
}
