package device

import (
	"testing"

	"ndma/isa"
)

// BenchmarkNEFFRun is `ndma neff run` without inputs, in process: the
// sample NEFFs placed on a two-core device (inputs generated into the
// shared HBM: matmul_large's y alone is 4 GiB), resolved and run on the
// engines. matmul_large is the scale case of neff-samples/PROVENANCE.md.
func BenchmarkNEFFRun(b *testing.B) {
	for _, name := range []string{"matmul_small.neff", "matmul_large.neff"} {
		b.Run(name, func(b *testing.B) {
			f, sgs := openSample(b, name)
			for b.Loop() {
				im, err := Load(isa.Cayman, f, sgs, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := im.Run(NEFFOptions{Exec: Sim}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
