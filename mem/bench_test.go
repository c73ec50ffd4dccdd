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
