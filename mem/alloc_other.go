//go:build !linux

package mem

// allocExtent returns n zero bytes, cap n (an extent's pages run to its end).
func allocExtent(n int) []byte { return make([]byte, n) }

// Alloc is allocExtent for the executors' own large buffers.
func Alloc(n int) []byte { return allocExtent(n) }
