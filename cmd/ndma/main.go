// Command ndma is the reference toolkit for the GPSIMD data-movement ISA: see
// `ndma help` and the README.
package main

import (
	"os"

	"ndma/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
