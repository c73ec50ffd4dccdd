//go:build !amd64

package sim

import "unsafe"

// haveTurn8: no register turn here; turnStack's loops do it all.
const haveTurn8 = false

func turn8(cols, rows *unsafe.Pointer, w, n, k int) { panic("turn8: not on this architecture") }
