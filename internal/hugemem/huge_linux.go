//go:build linux

package hugemem

import (
	"syscall"
	"unsafe"
)

const align = 2 << 20

// huge is n zero bytes on a 2 MiB boundary, advised as huge pages.
func huge(n int) []byte {
	b := make([]byte, n+align)
	off := (align - int(uintptr(unsafe.Pointer(&b[0]))%align)) % align
	b = b[off : off+n : off+n]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice only: an error leaves small pages
	return b
}
