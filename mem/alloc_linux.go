//go:build linux

package mem

import (
	"syscall"
	"unsafe"
)

// Extents of hugeMin bytes or more are allocated on 2 MiB boundaries and
// advised as transparent huge pages (where the kernel's THP mode is
// "madvise", as NumPy advises its large arrays): a 64 MiB `--load` or copy
// then faults 32 pages, not 16,384 (issue 17). The advice changes no byte.
const (
	hugeMin   = 4 << 20
	hugeAlign = 2 << 20
)

// allocExtent returns n zero bytes, cap n (an extent's pages run to its end).
func allocExtent(n int) []byte {
	if n < hugeMin {
		return make([]byte, n)
	}
	b := make([]byte, n+hugeAlign)
	off := (hugeAlign - int(uintptr(unsafe.Pointer(&b[0]))%hugeAlign)) % hugeAlign
	b = b[off : off+n : off+n]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice only: an error leaves small pages
	return b
}

// Alloc is allocExtent for the executors' own large buffers (the engines'
// M2S streams and DRE turns): n zero bytes, on huge pages from 4 MiB up, so
// a 64 MiB stream faults 32 pages, not 16,384 (issue 17).
func Alloc(n int) []byte { return allocExtent(n) }
