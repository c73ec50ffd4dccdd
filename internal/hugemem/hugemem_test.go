package hugemem

import (
	"runtime"
	"testing"
	"unsafe"
)

type pair struct{ a, b uint64 }

func TestSliceAndGrow(t *testing.T) {
	for _, n := range []int{0, 1, 1000, Min/16 - 1, Min / 16, Min/16 + 5} {
		s := Slice[pair](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Slice(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			if s[i] != (pair{}) {
				t.Fatalf("Slice(%d)[%d] = %v, want zero", n, i, s[i])
			}
			s[i] = pair{uint64(i), ^uint64(i)}
		}
		if runtime.GOOS == "linux" && n >= Min/16 && uintptr(unsafe.Pointer(unsafe.SliceData(s)))%(2<<20) != 0 {
			t.Errorf("Slice(%d) of %d bytes not on a 2 MiB boundary", n, n*16)
		}
		g := Grow(s, 3)
		if len(g) != n || cap(g)-len(g) < 3 {
			t.Fatalf("Grow(%d, 3): len %d cap %d", n, len(g), cap(g))
		}
		for i := range g {
			if g[i] != (pair{uint64(i), ^uint64(i)}) {
				t.Fatalf("Grow lost element %d", i)
			}
		}
		if k := len(g); cap(g) > k && Grow(g, 1)[:k+1][k] != (pair{}) {
			t.Error("Grow's room is not zero")
		}
	}
	if b := Bytes(Min); len(b) != Min || runtime.GOOS == "linux" && uintptr(unsafe.Pointer(&b[0]))%(2<<20) != 0 {
		t.Errorf("Bytes(Min): len %d, not on a 2 MiB boundary", len(b))
	}
}

// Aligned is zeroed, cap n and (from Min, on Linux) on a 2 MiB boundary;
// Advise takes any slice, empty or smaller than a huge page, and changes no byte.
func TestAlignedAndAdvise(t *testing.T) {
	for _, n := range []int{0, 5, Min - 1, Min, Min + 4097} {
		b := Aligned(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Aligned(%d): len %d cap %d", n, len(b), cap(b))
		}
		if runtime.GOOS == "linux" && n >= Min && uintptr(unsafe.Pointer(&b[0]))%(2<<20) != 0 {
			t.Errorf("Aligned(%d) not on a 2 MiB boundary", n)
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("Aligned(%d)[%d] = %d", n, i, b[i])
			}
			b[i] = byte(i)
		}
		Advise(b)
		if n > 3 {
			Advise(b[1:3])
		}
		for i := range b {
			if b[i] != byte(i) {
				t.Fatalf("Advise changed byte %d of %d", i, n)
			}
		}
	}
	Advise(nil)
}
