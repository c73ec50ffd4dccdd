package device

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
)

// Random inputs are a function of the variable's name alone: the same bytes
// wherever the variable is placed (8-aligned or not), across HBM page
// boundaries; fp16 values lie in [-1, 1) (decoded here by hand, IEEE
// binary16, not by ndma's own conversion).
func TestFillRandom(t *testing.T) {
	const n = 3*mem.PageSize + 1000
	read := func(addr uint64, dt uint8, name string) []byte {
		m := mem.New(isa.Cayman)
		if err := fillRandom(m, addr, n, dt, name); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, n)
		if err := m.Read(addr, b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	const fp16, u8 = 0x07, 0x00
	for _, dt := range []uint8{fp16, u8} {
		a := read(0x1_0000_0000+mem.PageSize-24, dt, "y") // the first page's piece ends mid-page
		b := read(0x1_0000_0000+3, dt, "y")               // not 8-aligned
		if !bytes.Equal(a, b) {
			t.Fatalf("dtype %#x: the data depends on where it is placed", dt)
		}
		if c := read(0x1_0000_0000, dt, "x"); bytes.Equal(a, c) {
			t.Fatalf("dtype %#x: two names, the same data", dt)
		}
	}
	a := read(0x1_0000_0000, fp16, "y")
	var neg, pos int
	for i := 0; i+2 <= len(a); i += 2 {
		f := half(binary.LittleEndian.Uint16(a[i:]))
		if math.IsNaN(float64(f)) || f < -1 || f >= 1 {
			t.Fatalf("element %d = %v: not in [-1, 1)", i/2, f)
		}
		if f < 0 {
			neg++
		} else {
			pos++
		}
	}
	if neg < len(a)/8 || pos < len(a)/8 { // uniform: about half each
		t.Fatalf("%d negative, %d non-negative values", neg, pos)
	}
}

// An input is a lazy range: read back, in whole or in any cut (odd
// offsets, mid-element, across pages), it is byte for byte what the
// former generator wrote into the pages (oldFill below, kept verbatim as
// the reference) for every kind of dtype; reading it stores no page, and
// a write stores only the page it touches. A copy of it into SBUF (the
// simulator's DMA path, generated in the background) reads back alike.
func TestFillRandomLazy(t *testing.T) {
	const n = 5*mem.PageSize + 996 // whole elements of every size, not whole 8-byte groups
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []uint8{0x07, 0x06, 0x00, 0x03, 0x0A, 0x0E} { // fp16, bf16, raw (uint8 code 0 and 3), fp32, fp8
		want := make([]byte, n)
		oldFill(newRandom(dt, "y"), want, 0)
		for _, addr := range []uint64{0x1_0000_0000, 0x1_0000_0000 + mem.PageSize - 24, 0x1_0000_0000 + 7} {
			m := mem.New(isa.Cayman)
			if err := fillRandom(m, addr, n, dt, "y"); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, n)
			if err := m.Read(addr, got); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("dtype %#x at %#x: read back differs from the former generator (err %v)", dt, addr, err)
			}
			for range 300 {
				lo := r.IntN(n)
				hi := lo + 1 + r.IntN(min(n-lo, 3*mem.PageSize))
				b := make([]byte, hi-lo)
				if err := m.Read(addr+uint64(lo), b); err != nil || !bytes.Equal(b, want[lo:hi]) {
					t.Fatalf("dtype %#x at %#x: bytes [%d, %d) differ (err %v)", dt, addr, lo, hi, err)
				}
			}
			sb := uint64(3<<18 + 5)
			if err := m.Copy(sb, addr+1001, 20000); err != nil {
				t.Fatal(err)
			}
			b := make([]byte, 20000)
			if err := m.Read(sb, b); err != nil || !bytes.Equal(b, want[1001:21001]) {
				t.Fatalf("dtype %#x at %#x: a copy into SBUF differs (err %v)", dt, addr, err)
			}
			if m.Pages() != 0 {
				t.Fatalf("dtype %#x: reading the input stored %d pages", dt, m.Pages())
			}
			if err := m.Write(addr+2*mem.PageSize, []byte{1}); err != nil {
				t.Fatal(err)
			}
			if m.Pages() != 1 {
				t.Fatalf("dtype %#x: a one-byte write stored %d pages", dt, m.Pages())
			}
		}
	}
}

// oldFill is the generator as it was when inputs were written into the
// pages (before they became lazy ranges): the reference for the bytes.
func oldFill(r *random, b []byte, off int) {
	switch r.size {
	case 0:
		k := uint64(off / 8)
		i := 0
		for ; i+8 <= len(b); i, k = i+8, k+1 {
			binary.LittleEndian.PutUint64(b[i:], mix(r.seed, k))
		}
		for v := mix(r.seed, k); i < len(b); i, v = i+1, v>>8 {
			b[i] = byte(v)
		}
	case 2:
		t := r.table
		k := uint64(off / 8)
		i := 0
		for ; i+8 <= len(b); i, k = i+8, k+1 {
			v := mix(r.seed, k)
			binary.LittleEndian.PutUint64(b[i:], uint64(t[uint16(v)])|uint64(t[uint16(v>>16)])<<16|
				uint64(t[uint16(v>>32)])<<32|uint64(t[uint16(v>>48)])<<48)
		}
		for v := mix(r.seed, k); i+2 <= len(b); i, v = i+2, v>>16 {
			binary.LittleEndian.PutUint16(b[i:], t[uint16(v)])
		}
	case 1:
		for i := range b {
			b[i] = byte(r.table[uint16(mix(r.seed, uint64(off+i)))])
		}
	default:
		for i := 0; i+r.size <= len(b); i += r.size {
			v := mix(r.seed, uint64((off+i)/r.size))
			bits := num.FromFloat32(r.dt, float32(int64(v>>40)-1<<23)/(1<<23))
			for k := 0; k < r.size; k++ {
				b[i+k] = byte(bits >> (8 * k))
			}
		}
	}
}

// The generator's speed for fp16 (the 4 GiB input of matmul_large): the
// current loop against the former one, the same bytes.
func BenchmarkRandomFP16(b *testing.B) {
	r := newRandom(0x07, "y")
	buf := make([]byte, 64<<10)
	b.Run("now", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			r.fill(buf, 1<<20)
		}
	})
	b.Run("former", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			oldFill(r, buf, 1<<20)
		}
	})
}

// half decodes an IEEE 754 binary16: sign, 5-bit exponent (bias 15), 10-bit
// fraction; exponent 0 subnormal, 31 infinity or NaN.
func half(h uint16) float32 {
	sign, exp, frac := float64(1), int(h>>10&0x1f), float64(h&0x3ff)
	if h&0x8000 != 0 {
		sign = -1
	}
	switch exp {
	case 0:
		return float32(sign * frac / 1024 * math.Pow(2, -14))
	case 31:
		if frac != 0 {
			return float32(math.NaN())
		}
		return float32(sign * math.Inf(1))
	}
	return float32(sign * (1 + frac/1024) * math.Pow(2, float64(exp-15)))
}
