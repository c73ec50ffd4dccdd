// Package sampleneff opens a sample NEFF of ../shared/neff-samples for the
// tests and benchmarks above package neff (package samples cannot import
// neff: neff's own tests use it).
package sampleneff

import (
	"testing"

	"ndma/internal/samples"
	"ndma/neff"
)

// Open parses the sample and reads its subgraphs, failing tb on an error
// (skipping it where the sample is missing, as samples.Read does).
func Open(tb testing.TB, name string) (*neff.File, []neff.Subgraph) {
	tb.Helper()
	f, err := neff.Parse(samples.Read(tb, name), neff.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		tb.Fatal(err)
	}
	return f, sgs
}
