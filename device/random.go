package device

import (
	"hash/fnv"
	"math/rand/v2"

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
	r := rand.New(rand.NewPCG(h.Sum64(), 0x6e646d61)) // "ndma"
	size, _ := num.Size(dt)
	float := num.IsFloat(dt) && size > 0
	var table []uint16 // 2-byte (and smaller) floats: 16 random bits pick one of 65536 values
	if float && size <= 2 {
		table = make([]uint16, 1<<16)
		for i := range table {
			table[i] = uint16(num.FromFloat32(dt, float32(i-1<<15)/(1<<15)))
		}
	}
	buf := make([]byte, min(int64(fillChunk), n))
	for off := int64(0); off < n; off += int64(len(buf)) {
		b := buf[:min(int64(len(buf)), n-off)]
		switch {
		case !float:
			for i := 0; i < len(b); i += 8 {
				v := r.Uint64()
				for k := 0; k < 8 && i+k < len(b); k++ {
					b[i+k] = byte(v >> (8 * k))
				}
			}
		case table != nil:
			for i := 0; i+size <= len(b); {
				v := r.Uint64()
				for k := 0; k < 4 && i+size <= len(b); k++ {
					t := table[uint16(v>>(16*k))]
					b[i] = byte(t)
					if size == 2 {
						b[i+1] = byte(t >> 8)
					}
					i += size
				}
			}
		default:
			for i := 0; i+size <= len(b); i += size {
				bits := num.FromFloat32(dt, float32(r.Float64()*2-1))
				for k := 0; k < size; k++ {
					b[i+k] = byte(bits >> (8 * k))
				}
			}
		}
		if err := m.Write(addr+uint64(off), b); err != nil {
			return err
		}
	}
	return nil
}
