// Package hugemem allocates the large zeroed buffers of the emulated memory
// and the executors on 2 MiB boundaries, advised as transparent huge pages
// where the kernel's THP mode is "madvise" (as NumPy advises its large
// arrays): 64 MiB then faults 32 pages, not 16,384 (issue 17). Smaller
// buffers come from make. The advice changes no byte.
package hugemem

import "unsafe"

// Min is the size from which a buffer is put on huge pages.
const Min = 4 << 20

// Bytes returns n zero bytes, cap n.
func Bytes(n int) []byte {
	if n < Min {
		return make([]byte, n)
	}
	return huge(n)
}

// Aligned returns n zero bytes, cap n, on a 2 MiB boundary from Min up,
// advised as 4 KiB pages until Advise says otherwise: memory that may be
// touched sparsely costs its 4 KiB pages, not 2 MiB ones.
func Aligned(n int) []byte {
	if n < Min {
		return make([]byte, n)
	}
	b := aligned(n)
	small(b)
	return b
}

// Advise advises the whole 2 MiB pages inside b as huge pages from now on:
// pages already faulted stay as they are.
func Advise(b []byte) { advise(b) }

// Slice returns n zero Ts, cap n, on huge pages when they take Min bytes or
// more. T must hold no pointers: the garbage collector does not look inside
// the memory (it is allocated as bytes).
func Slice[T any](n int) []T {
	var t T
	size := int(unsafe.Sizeof(t))
	if size == 0 || n < Min/size {
		return make([]T, n)
	}
	b := huge(n * size)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Grow is slices.Grow for pointer-free T: s with room for n more elements,
// the new backing from Slice.
func Grow[T any](s []T, n int) []T {
	if n <= cap(s)-len(s) {
		return s
	}
	g := Slice[T](len(s) + n)
	copy(g, s)
	return g[:len(s)]
}
