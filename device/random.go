package device

import (
	"encoding/binary"
	"hash/fnv"
	"runtime"
	"sync"

	"ndma/internal/num"
	"ndma/mem"
)

// Inputs a NEFF run is not given are deterministic random data: uniform in
// [-1, 1) for a float dtype, random bytes otherwise. The generator is
// counter-based (splitmix64 of the variable name's hash + the value's
// index), so the data depends on the name alone — not on what else the NEFF
// holds, where the variable lies, or how the range is cut — and the pages
// fill in parallel, straight into the device: a 4 GiB input costs its
// 4 GiB once.

// mix is splitmix64's output function of the k-th counter value.
func mix(seed, k uint64) uint64 {
	z := seed + (k+1)*0x9e3779b97f4a7c15
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

// fill writes the values of b, which starts at byte off of the variable:
// raw bytes and 2-byte floats take one counter value per 8 bytes, other
// sizes one per element.
func (r *random) fill(b []byte, off int) {
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
			bits := num.FromFloat32(r.dt, float32(int64(v>>40)-1<<23)/(1<<23)) // 24 bits: uniform in [-1, 1)
			for k := 0; k < r.size; k++ {
				b[i+k] = byte(bits >> (8 * k))
			}
		}
	}
}

// fillChunk is the most bytes one worker fills at a time.
const fillChunk = 1 << 20

// fillRandom writes n random values of dtype dt at addr: straight into the
// pages (handed out in order by mem.Fill, then filled by one worker per
// CPU) when addr is 8-aligned, so every piece starts on a counter group;
// else staged a chunk at a time.
func fillRandom(m *mem.Memory, addr uint64, n int64, dt uint8, name string) error {
	r := newRandom(dt, name)
	if addr%8 != 0 {
		buf := make([]byte, min(int64(fillChunk), n))
		for off := int64(0); off < n; off += int64(len(buf)) {
			b := buf[:min(int64(len(buf)), n-off)]
			r.fill(b, int(off))
			if err := m.Write(addr+uint64(off), b); err != nil {
				return err
			}
		}
		return nil
	}
	type piece struct {
		b   []byte
		off int
	}
	var pieces []piece
	err := m.Fill(addr, int(n), func(dst []byte, off int) {
		for len(dst) > 0 { // pages start 8-aligned from addr; chunks keep them so
			c := min(len(dst), fillChunk)
			pieces = append(pieces, piece{dst[:c], off})
			dst, off = dst[c:], off+c
		}
	})
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	next := make(chan piece)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for p := range next {
				r.fill(p.b, p.off)
			}
		})
	}
	for _, p := range pieces {
		next <- p
	}
	close(next)
	wg.Wait()
	return nil
}
