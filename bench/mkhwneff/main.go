// Command mkhwneff writes the training kernels of docs/hw-timing.md that
// ndma builds as synthetic NEFFs of their structure (internal/neffgen):
// the vector add (trn2 and trn1), the 1024 × 1024 transpose and the three
// conv2d kernels (conv2d_2, _3, _4), for `ndma
// neff run` and bench/timing.sh.
//
//	go run ./bench/mkhwneff DIR    # writes DIR/vector_add.neff, vector_add_trn1.neff, transpose.neff, conv2d_{2,3,4}.neff
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
	if err := os.MkdirAll(os.Args[1], 0o755); err != nil { // DIR made if need be
		fmt.Fprintf(os.Stderr, "mkhwneff: %v\n", err)
		os.Exit(1)
	}
	for name, p := range map[string]*neffgen.Program{
		"vector_add.neff":      neffgen.HWVectorAdd("cayman"),
		"transpose.neff":       neffgen.HWTranspose("cayman"),
		"vector_add_trn1.neff": neffgen.HWVectorAdd("sunda"),
		"conv2d_4.neff":        neffgen.HWConv2dF16Small(),
		"conv2d_3.neff":        neffgen.HWConv2dF32Small(),
		"conv2d_2.neff":        neffgen.HWConv2dF16(),
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
