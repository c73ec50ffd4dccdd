package sim

import "unsafe"

// haveTurn8: this architecture has turn8 (turn_amd64.s).
const haveTurn8 = true

//go:noescape
func turn8(cols, rows *unsafe.Pointer, w, n, k int)
