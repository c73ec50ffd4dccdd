package device

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"ndma/isa"
	"ndma/mem"
)

// Random inputs are a function of the variable's name alone: the same bytes
// whether they go straight into the pages (an 8-aligned address) or through
// the staged writes (any other), across HBM page boundaries; fp16 values lie
// in [-1, 1) (decoded here by hand, IEEE binary16, not by ndma's own conversion).
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
		a := read(0x1_0000_0000+mem.PageSize-24, dt, "y") // in place, the first piece ends mid-page
		b := read(0x1_0000_0000+3, dt, "y")               // staged: 1 MiB chunks
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
