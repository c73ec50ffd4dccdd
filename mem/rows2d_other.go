//go:build !amd64

package mem

import "unsafe"

// haveNT: no cache-bypassing row copy here; copyRows' loops do it all.
const haveNT = false

func rowsNT(d, s unsafe.Pointer, ds, ss int64, n, k int) { panic("rowsNT: not on this architecture") }
