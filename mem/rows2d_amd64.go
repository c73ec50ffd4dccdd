package mem

import "unsafe"

// haveNT: this architecture has rowsNT (rows2d_amd64.s).
const haveNT = true

//go:noescape
func rowsNT(d, s unsafe.Pointer, ds, ss int64, n, k int)
