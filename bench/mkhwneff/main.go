// Command mkhwneff writes the training kernels of ../shared/spec/hw-timing.md
// that ndma builds as synthetic NEFFs of their structure (internal/neffgen):
// the vector add (trn2 and trn1) and the 1024 × 1024 transpose, for `ndma
// neff run` and bench/timing.sh.
//
//	go run ./bench/mkhwneff DIR    # writes DIR/vector_add.neff, DIR/vector_add_trn1.neff, DIR/transpose.neff
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"ndma/internal/neffgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mkhwneff DIR")
		os.Exit(2)
	}
	for name, p := range map[string]*neffgen.Program{
		"vector_add.neff":      neffgen.HWVectorAdd("cayman"),
		"transpose.neff":       neffgen.HWTranspose("cayman"),
		"vector_add_trn1.neff": neffgen.HWVectorAdd("sunda"),
	} {
		b, err := p.Build()
		if err == nil {
			err = os.WriteFile(filepath.Join(os.Args[1], name), b, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "mkhwneff: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}
