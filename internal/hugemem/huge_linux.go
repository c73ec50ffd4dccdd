//go:build linux

package hugemem

import (
	"syscall"
	"unsafe"
)

const align = 2 << 20

// huge is n zero bytes on a 2 MiB boundary, advised as huge pages.
func huge(n int) []byte {
	b := aligned(n)
	advise(b)
	return b
}

// aligned is n zero bytes on a 2 MiB boundary, not advised.
func aligned(n int) []byte {
	b := make([]byte, n+align)
	off := (align - int(uintptr(unsafe.Pointer(&b[0]))%align)) % align
	return b[off : off+n : off+n]
}

// advise advises b's whole 2 MiB pages as huge pages.
func advise(b []byte) { madvise(b, syscall.MADV_HUGEPAGE) }

// small advises b's whole 2 MiB pages as 4 KiB pages: heap memory reused
// from an advised buffer keeps its advice otherwise.
func small(b []byte) { madvise(b, syscall.MADV_NOHUGEPAGE) }

func madvise(b []byte, advice int) {
	if len(b) == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	lo, hi := (p+align-1)&^(align-1), (p+uintptr(len(b)))&^(align-1)
	if hi > lo {
		_ = syscall.Madvise(b[lo-p:hi-p], advice) // advice only: an error leaves the pages as they come
	}
}
