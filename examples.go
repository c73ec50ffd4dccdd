// Package ndma holds what belongs to the whole module: the hand-written
// example programs of examples/, embedded so that `ndma demo` and the tests
// can use them from any working directory. (The examples stay outside any Go
// package directory: the go tool would take *.s files there for Go assembly.)
// To run a compiled NEFF from Go in a few lines, see package ndma/kernel.
package ndma

import "embed"

// Examples holds examples/*.s.
//
//go:embed examples/*.s
var Examples embed.FS
