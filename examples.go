package ndma

// The hand-written example programs of examples/, embedded so that `ndma
// demo` and the tests can use them from any working directory. (The
// examples stay outside any Go package directory: the go tool would take
// *.s files there for Go assembly.)

import "embed"

// Examples holds examples/*.s.
//
//go:embed examples/*.s
var Examples embed.FS
