// Command mkhwneff writes the two kernels of ../shared/spec/hw-timing.md as
// synthetic NEFFs of their DMA structure (internal/neffgen): the vector add
// and the 1024 × 1024 transpose, for `ndma neff run` and bench/timing.sh.
//
//	go run ./bench/mkhwneff DIR    # writes DIR/vector_add.neff, DIR/transpose.neff
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
		"vector_add.neff": neffgen.HWVectorAdd("cayman"),
		"transpose.neff":  neffgen.HWTranspose("cayman"),
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
