package device

import (
	"encoding/binary"
	"hash/fnv"

	"ndma/internal/num"
	"ndma/mem"
)

// Inputs a NEFF run is not given are deterministic random data: uniform in
// [-1, 1) for a float dtype, random bytes otherwise, from a generator
// seeded by the variable's name (the same name, the same data, whatever
// else the NEFF holds). Generated a chunk at a time straight into the
// device: a 4 GiB input costs its 4 GiB and no copy.

// fillChunk is the bytes generated per write.
const fillChunk = 1 << 20

// fillRandom writes n random values of dtype dt at addr.
func fillRandom(m *mem.Memory, addr uint64, n int64, dt uint8, name string) error {
	h := fnv.New64a()
	h.Write([]byte(name))
	seed := h.Sum64()
	next := func() uint64 { // splitmix64: 8 bytes in a few cycles (the 4 GiB input of matmul_large)
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	size, _ := num.Size(dt)
	float := num.IsFloat(dt) && size > 0
	var table []uint16 // 2-byte (and smaller) floats: 16 random bits pick one of 65536 values
	if float && size <= 2 {
		table = make([]uint16, 1<<16)
		below1 := num.FromFloat32(dt, 1) - 1 // the largest value under 1 (positive codes are ordered)
		for i := range table {
			b := num.FromFloat32(dt, float32(i-1<<15)/(1<<15))
			if num.ToFloat32(dt, b) >= 1 { // rounded up to 1: [-1, 1) excludes it
				b = below1
			}
			table[i] = uint16(b)
		}
	}
	// gen fills b with the next values; every piece but the last is a
	// whole number of 8-byte groups, so the data is the same however the
	// range is cut
	gen := func(b []byte, _ int) {
		switch {
		case !float:
			i := 0
			for ; i+8 <= len(b); i += 8 {
				binary.LittleEndian.PutUint64(b[i:], next())
			}
			for v := next(); i < len(b); i, v = i+1, v>>8 {
				b[i] = byte(v)
			}
		case size == 2:
			i := 0
			for ; i+8 <= len(b); i += 8 {
				v := next()
				binary.LittleEndian.PutUint64(b[i:], uint64(table[uint16(v)])|uint64(table[uint16(v>>16)])<<16|
					uint64(table[uint16(v>>32)])<<32|uint64(table[uint16(v>>48)])<<48)
			}
			for ; i+2 <= len(b); i += 2 {
				binary.LittleEndian.PutUint16(b[i:], table[uint16(next())])
			}
		case size == 1:
			for i := range b {
				b[i] = byte(table[uint16(next())])
			}
		default:
			for i := 0; i+size <= len(b); i += size {
				bits := num.FromFloat32(dt, float32(int64(next()>>40)-1<<23)/(1<<23)) // 24 bits: uniform in [-1, 1)
				for k := 0; k < size; k++ {
					b[i+k] = byte(bits >> (8 * k))
				}
			}
		}
	}
	if addr%8 == 0 { // straight into the memory's pages (they start 8-aligned)
		return m.Fill(addr, int(n), gen)
	}
	buf := make([]byte, min(int64(fillChunk), n))
	for off := int64(0); off < n; off += int64(len(buf)) {
		b := buf[:min(int64(len(buf)), n-off)]
		gen(b, int(off))
		if err := m.Write(addr+uint64(off), b); err != nil {
			return err
		}
	}
	return nil
}
