package mem

import (
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

// BenchmarkCopyRowsGather: 4096 rows of 512 B picked at random from a 32 MiB
// HBM table (the indirect gather's data path without the word around it);
// BenchmarkGoGather is the same loop over one Go slice, for the ratio.
func BenchmarkCopyRowsGather(b *testing.B) {
	m := New(isa.Cayman)
	table := make([]byte, 65535*512)
	for i := range table {
		table[i] = byte(i * 7)
	}
	if err := m.Write(0x1_0000_0000, table); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	src, dst := make([]uint64, 4096), make([]uint64, 4096)
	for j := range src {
		src[j] = 0x1_0000_0000 + 512*uint64(r.IntN(65535))
		dst[j] = 0x1_1000_0000 + 512*uint64(j)
	}
	b.SetBytes(4096 * 512)
	for b.Loop() {
		if _, err := m.CopyRows(dst, src, 512); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGoGather(b *testing.B) {
	table := make([]byte, 65535*512)
	for i := range table {
		table[i] = byte(i * 7)
	}
	r := rand.New(rand.NewPCG(2, 2))
	idx := make([]int, 4096)
	for j := range idx {
		idx[j] = r.IntN(65535)
	}
	out := make([]byte, 4096*512)
	b.SetBytes(4096 * 512)
	for b.Loop() {
		for j, v := range idx {
			copy(out[512*j:512*(j+1)], table[512*v:])
		}
	}
}

// The accesses a DMA makes, on stored memory: 4 KiB rows from HBM into SBUF
// partitions (Copy, the simulator's path), 4 KiB reads and writes of HBM,
// and one contiguous 64 MiB HBM copy.
func BenchmarkAccess(b *testing.B) {
	m := New(isa.Cayman)
	const src, dst = 0x1_0000_0000, 0x2_0000_0000
	block := make([]byte, 64<<20)
	for i := range block {
		block[i] = byte(i * 7)
	}
	if err := m.Write(src, block); err != nil {
		b.Fatal(err)
	}
	if err := m.Write(dst, block); err != nil {
		b.Fatal(err)
	}
	row := make([]byte, 4096)
	b.Run("copy_4KiB_rows_to_sbuf", func(b *testing.B) {
		b.SetBytes(128 * 4096)
		for b.Loop() {
			for p := range 128 {
				if err := m.Copy(uint64(p)<<18, src+uint64(p)*128<<10, 4096); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("read_4KiB", func(b *testing.B) {
		b.SetBytes(128 * 4096)
		for b.Loop() {
			for p := range 128 {
				if err := m.Read(src+uint64(p)*128<<10, row); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("write_4KiB", func(b *testing.B) {
		b.SetBytes(128 * 4096)
		for b.Loop() {
			for p := range 128 {
				if err := m.Write(dst+uint64(p)*128<<10, row); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("copy_64MiB", func(b *testing.B) {
		b.SetBytes(64 << 20)
		for b.Loop() {
			if err := m.Copy(dst, src, 64<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
}
