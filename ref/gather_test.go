package ref

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

// The gather-transpose's turn in place (gather.go) against §11.5's formula
// computed on the bytes read back — "dst(i0 = j, i1 = k) at dst + 2·j +
// k·dst_step_elem_1" holds element k of the row at src + idx[j]·src_step_elem[1]
// — for the destinations it treats apart: dense (dst_step_elem_1 = 2n) in one
// piece, dense across separately stored pages (byte by byte), dense at an odd
// address, rows apart in HBM, one row per SBUF partition; with rows of every
// count of elements mod 4, gathered rows never written (they read as zeros)
// and repeated indices, from a packed table and from rows a page apart.
func TestGatherInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 17))
	const table = 200 // rows in the table
	for trial := range 60 {
		n, l := 1+r.IntN(300), 1+r.IntN(40)
		row := 2 * l
		x := New(isa.Cayman)
		src := make([]byte, table*row)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		step := row // the table's rows: packed, or a page apart (each its own storage)
		if trial%2 == 1 {
			step = 64 << 10
		}
		for v := range table {
			if v%7 == 3 { // never written: reads as zeros
				clear(src[v*row : (v+1)*row])
				continue
			}
			if err := x.Mem.Write(hbm+uint64(v*step), src[v*row:(v+1)*row]); err != nil {
				t.Fatal(err)
			}
		}
		idx := make([]uint32, n)
		for j := range idx {
			idx[j] = uint32(r.IntN(table))
			x.Mem.Write(uint64(j%128)*0x40000+0x100+4*uint64(j/128), binary.LittleEndian.AppendUint32(nil, idx[j]))
		}
		dst, d1 := uint64(hbm+0x2000000), 2*n // past the table
		kind := trial % 5
		switch kind {
		case 1: // dense, across pages stored apart: a byte of the second written first
			if err := x.Mem.Write(dst, []byte{1}); err != nil {
				t.Fatal(err)
			}
			dst -= uint64(l * d1 / 2)
		case 2:
			dst++ // odd: pieces may split an element
		case 3:
			d1 += 2 * (1 + r.IntN(9)) // rows apart
		case 4:
			if l > 128 || 2*n > 0x38000 {
				continue
			}
			dst, d1 = 0x8000, 0x40000 // one row per partition
		}
		in := asmWord(t, isa.Cayman, fmt.Sprintf(`dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0,
  src_step_elem=[2, %d], src_num_elem=[%d, %d], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=%s, dst_step_elem_1=%d,
  dst_num_elem=[%d, %d], elem_size=%d, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`, step, l, n, addrText(dst), d1, n, l, row))
		if err := x.Exec(in); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 2*n)
		for k := range l {
			if err := x.Mem.Read(dst+uint64(k*d1), got); err != nil {
				t.Fatal(err)
			}
			for j := range n {
				s := int(idx[j])*row + 2*k
				if got[2*j] != src[s] || got[2*j+1] != src[s+1] {
					t.Fatalf("trial %d (kind %d, n %d, L %d): dst(%d, %d) = %x, want row %d element %d = %x", trial, kind, n, l, j, k, got[2*j:2*j+2], idx[j], k, src[s:s+2])
				}
			}
		}
	}
}

// addrText is a as the assembler writes it (hbm:… or sbuf:P:…).
func addrText(a uint64) string {
	if a >= hbm {
		return fmt.Sprintf("hbm:%#x", a-hbm)
	}
	return fmt.Sprintf("sbuf:%d:%#x", a/0x40000, a%0x40000)
}
