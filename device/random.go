package device

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"ndma/internal/num"
	"ndma/mem"
)

// Inputs a NEFF run is not given are deterministic random data: uniform in
// [-1, 1) for a float dtype, random bytes otherwise. The generator is
// counter-based (splitmix64 of the variable name's hash + the value's
// index), so the data depends on the name alone — not on what else the NEFF
// holds, where the variable lies, or how the range is cut — and any byte
// range is computed from its offset alone: the input is a lazy range of the
// device's HBM, generated as it is read, so a 4 GiB input costs no memory
// until something writes it.

// golden is splitmix64's counter increment (golden2 twice it, mod 2^64).
const (
	golden  = 0x9e3779b97f4a7c15
	golden2 = 2 * golden & (1<<64 - 1)
)

// mix is splitmix64's output function of the k-th counter value.
func mix(seed, k uint64) uint64 { return out(seed + (k+1)*golden) }

// out is splitmix64's output function of a counter state z: the state of
// counter value k is seed + (k+1)·golden, so consecutive values add golden.
func out(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// random generates the bytes of one input: at offset off of the variable,
// b's values (off and len(b) whole elements, but for the variable's end).
type random struct {
	seed  uint64
	dt    uint8
	size  int      // element bytes (0: raw bytes)
	table []uint16 // 1- and 2-byte floats: 16 random bits pick one of 65536 evenly spaced values
}

func newRandom(dt uint8, name string) *random {
	h := fnv.New64a()
	h.Write([]byte(name))
	r := &random{seed: h.Sum64(), dt: dt}
	if size, _ := num.Size(dt); num.IsFloat(dt) && size > 0 {
		r.size = size
	}
	if r.size == 1 || r.size == 2 {
		r.table = make([]uint16, 1<<16)
		below1 := num.FromFloat32(dt, 1) - 1 // the largest value under 1 (positive codes are ordered)
		for i := range r.table {
			b := num.FromFloat32(dt, float32(i-1<<15)/(1<<15))
			if num.ToFloat32(dt, b) >= 1 { // rounded up to 1: [-1, 1) excludes it
				b = below1
			}
			r.table[i] = uint16(b)
		}
	}
	return r
}

// fill writes the values of b, which starts at byte off of the variable
// (off and len(b) whole counter groups, but for the variable's end): raw
// bytes and 2-byte floats take one counter value per 8 bytes, other sizes
// one per element. The hot loops step the counter state instead of
// multiplying it out, and work two values at a time.
func (r *random) fill(b []byte, off int) {
	switch r.size {
	case 0:
		z := r.seed + (uint64(off/8)+1)*golden
		for len(b) >= 16 {
			binary.LittleEndian.PutUint64(b, out(z))
			binary.LittleEndian.PutUint64(b[8:], out(z+golden))
			b, z = b[16:], z+golden2
		}
		for len(b) >= 8 {
			binary.LittleEndian.PutUint64(b, out(z))
			b, z = b[8:], z+golden
		}
		for i, v := 0, out(z); i < len(b); i, v = i+1, v>>8 {
			b[i] = byte(v)
		}
	case 2:
		t := (*[1 << 16]uint16)(r.table)
		z := r.seed + (uint64(off/8)+1)*golden
		for len(b) >= 16 {
			v, w := out(z), out(z+golden)
			binary.LittleEndian.PutUint64(b, uint64(t[uint16(v)])|uint64(t[uint16(v>>16)])<<16|
				uint64(t[uint16(v>>32)])<<32|uint64(t[uint16(v>>48)])<<48)
			binary.LittleEndian.PutUint64(b[8:], uint64(t[uint16(w)])|uint64(t[uint16(w>>16)])<<16|
				uint64(t[uint16(w>>32)])<<32|uint64(t[uint16(w>>48)])<<48)
			b, z = b[16:], z+golden2
		}
		if len(b) >= 8 {
			v := out(z)
			binary.LittleEndian.PutUint64(b, uint64(t[uint16(v)])|uint64(t[uint16(v>>16)])<<16|
				uint64(t[uint16(v>>32)])<<32|uint64(t[uint16(v>>48)])<<48)
			b, z = b[8:], z+golden
		}
		for v := out(z); len(b) >= 2; v >>= 16 { // the variable's last values
			binary.LittleEndian.PutUint16(b, t[uint16(v)])
			b = b[2:]
		}
	case 1:
		for i := range b {
			b[i] = byte(r.table[uint16(mix(r.seed, uint64(off+i)))])
		}
	default:
		for i := 0; i+r.size <= len(b); i += r.size {
			v := mix(r.seed, uint64((off+i)/r.size))
			bits := num.FromFloat32(r.dt, float32(int64(v>>40)-1<<23)/(1<<23)) // 24 bits: uniform in [-1, 1)
			for k := 0; k < r.size; k++ {
				b[i+k] = byte(bits >> (8 * k))
			}
		}
	}
}

// group is the bytes one counter value makes (fill's pieces start on one).
func (r *random) group() int {
	if r.size == 0 || r.size == 2 {
		return 8
	}
	return r.size
}

// gen writes the bytes of b, which starts at byte off of the variable, for
// any off and length: the whole counter groups in place, a group cut by
// either end through a scratch group.
func (r *random) gen(b []byte, off int) {
	g := r.group()
	var t [8]byte
	if h := off % g; h != 0 {
		r.fill(t[:g], off-h)
		c := copy(b, t[h:g])
		b, off = b[c:], off+c
	}
	whole := len(b) / g * g
	r.fill(b[:whole], off)
	if whole < len(b) {
		r.fill(t[:g], off+whole)
		copy(b[whole:], t[:g])
	}
}

// fillRandom makes the n bytes at addr read as random values of dtype dt:
// a lazy range of the HBM (mem.Memory.Lazy), generated where and when it
// is read, stored only where a write materialises a page — an input read
// once costs its reads' generation, not its size in memory.
func fillRandom(m *mem.Memory, addr uint64, n int64, dt uint8, name string) error {
	if n < 0 || n > math.MaxInt {
		return fmt.Errorf("random input %q: %d bytes", name, n)
	}
	r := newRandom(dt, name)
	return m.Lazy(addr, int(n), fmt.Sprintf("random dtype %#x %q", dt, name), r.gen)
}
