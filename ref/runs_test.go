package ref

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ndma/isa"
	"ndma/mem"
)

// leg2D is a 2-D leg as field-tables §11.3 defines it: "Element (i0, i1)
// of a 2-D leg starts at start + i0·step[0] + i1·step[1]; dim 0 is
// innermost. An element is elem_size bytes".
type leg2D struct {
	start uint64
	num   [2]int
	step  [2]int64
	size  int
}

func (l leg2D) asm(side string) string {
	return fmt.Sprintf("%s_start_addr=%#x, %s_step_elem=[%d, %d], %s_num_elem=[%d, %d], %s_elem_size=%d",
		side, l.start, side, l.step[0], l.step[1], side, l.num[0], l.num[1], side, l.size)
}

// elems is every element's address in walk order, computed one by one.
func (l leg2D) elems() []uint64 {
	var a []uint64
	for i1 := range l.num[1] {
		for i0 := range l.num[0] {
			a = append(a, uint64(int64(l.start)+int64(i0)*l.step[0]+int64(i1)*l.step[1]))
		}
	}
	return a
}

// A plain 2-D word — strided rows against contiguous ones, strided against
// strided, element sizes equal and not, steps positive, negative and
// shorter than an element, HBM and SBUF partitions — leaves the bytes the
// §11.3 byte stream computed element by element in the test leaves: "DIRECT2D
// / COPY2D move a byte stream: the src elements in walk order,
// concatenated, fill the dst elements in walk order", the reads before the
// writes; the stats count every byte once each way.
func TestStridedWordsElementByElement(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 17))
	const hbmSrc, hbmDst = hbm, hbm + 0x100_0000 // 1 MiB areas, 16 MiB apart
	const area = 1 << 20
	sizes := []int{1, 2, 3, 4, 8, 16, 24, 32, 64, 100, 128}
	pool := make([]byte, 2*area) // the areas' bytes are cut from it at random offsets
	for i := range pool {
		pool[i] = byte(r.Uint32())
	}
	fill := func(n int) []byte {
		o := r.IntN(len(pool) - n)
		return append([]byte(nil), pool[o:o+n]...)
	}
	ran, skipped := 0, 0
	for trial := 0; ran < 250; trial++ {
		x := New(isa.Sunda) // byte steps of any size: a generation without a DGE (control.ShapeRules)
		mp := x.Mem.Map
		type areaAt struct {
			base uint64
			n    int
		}
		areas := []areaAt{{hbmSrc, area}, {hbmDst, area}}
		for p := range 8 { // SBUF partitions 0–7: 0–3 on the src side, 4–7 on the dst side
			areas = append(areas, areaAt{uint64(p) * mp.SBUFStride, int(mp.SBUFActive)})
		}
		// in reports which model area holds [a, a+n) (0, false: none)
		in := func(a uint64, n int) (uint64, bool) {
			for _, ar := range areas {
				if a >= ar.base && a-ar.base+uint64(n) <= uint64(ar.n) {
					return ar.base, true
				}
			}
			return 0, false
		}
		side := func(area uint64) int { // 0: the src side's areas, 1: the dst side's
			if area == hbmDst || area < hbm && area/mp.SBUFStride >= 4 {
				return 1
			}
			return 0
		}
		size := sizes[r.IntN(len(sizes))]
		ssize, dsize := size, size
		switch r.IntN(4) {
		case 0:
			dsize = size * 2
		case 1:
			ssize = size * 2
		}
		leg := func(size, bytes int, sbufPart uint64, hbmArea uint64) leg2D {
			l := leg2D{size: size}
			elems := bytes / size
			l.num[1] = []int{1, 2, 3, 4, 16, 17, 40, 64}[r.IntN(8)] // 16 rows and more: uniform rows as one 2-D copy
			for elems%l.num[1] != 0 {
				l.num[1]--
			}
			l.num[0] = elems / l.num[1]
			switch r.IntN(6) {
			case 0, 5:
				l.step[0] = int64(size) // contiguous
			case 1:
				l.step[0] = -int64(size + r.IntN(3*size))
			case 2:
				l.step[0] = int64(max(1, size/2+r.IntN(size))) // shorter than an element, or a little longer
			default:
				l.step[0] = int64(size + r.IntN(3*size+1))
			}
			row := int64(l.num[0]) * max(l.step[0], -l.step[0])
			l.step[1] = row + int64(r.IntN(64))
			if r.IntN(3) == 0 {
				l.step[1] = -l.step[1]
			}
			if r.IntN(3) == 0 { // SBUF, a row per partition when the rows are short
				if row+int64(size) < int64(mp.SBUFActive)/2 && l.step[1] > 0 && r.IntN(2) == 0 {
					l.step[1] = int64(mp.SBUFStride)
				}
				l.start = sbufPart*mp.SBUFStride + uint64(r.IntN(int(mp.SBUFActive)))
			} else {
				l.start = hbmArea + uint64(r.IntN(area))
			}
			return l
		}
		total := 64 * (1 + r.IntN(300)) * ssize * dsize / gcd(ssize, dsize)
		for total > 200_000 {
			total /= 2
		}
		total -= total % (ssize * dsize / gcd(ssize, dsize))
		if total == 0 {
			continue
		}
		ss := r.IntN(2) // the src side: 0, or 1 (the legs the other way round)
		src, dst := leg(ssize, total, uint64(4*ss+r.IntN(2)), hbmSrc+uint64(ss)*(hbmDst-hbmSrc)), leg(dsize, total, uint64(4*(1-ss)+r.IntN(2)), hbmDst-uint64(ss)*(hbmDst-hbmSrc))
		sa, da := src.elems(), dst.elems()
		valid := true // every element in the model, each leg on its side: disjoint
		for _, a := range sa {
			base, ok := in(a, ssize)
			valid = valid && ok && side(base) == ss
		}
		for _, a := range da {
			base, ok := in(a, dsize)
			valid = valid && ok && side(base) == 1-ss
		}
		if !valid {
			skipped++
			continue
		}
		init := map[uint64][]byte{} // the model: area start → its bytes
		for _, ar := range areas {
			b := fill(ar.n)
			init[ar.base] = b
			if ar.base < hbm || trial%2 == 1 {
				if err := x.Mem.Write(ar.base, b); err != nil {
					t.Fatal(err)
				}
				continue
			}
			clear(b[3<<16 : 5<<16]) // pages 3 and 4 left absent: they read as zero
			if err := x.Mem.Write(ar.base, b[:3<<16]); err != nil {
				t.Fatal(err)
			}
			if err := x.Mem.Write(ar.base+5<<16, b[5<<16:]); err != nil {
				t.Fatal(err)
			}
		}
		// the byte stream, read whole before any write, then the writes in walk order
		var stream []byte
		for _, a := range sa {
			base, _ := in(a, ssize)
			stream = append(stream, init[base][a-base:a-base+uint64(ssize)]...)
		}
		want := map[uint64][]byte{}
		for base, b := range init {
			want[base] = append([]byte(nil), b...)
		}
		for k, a := range da {
			base, _ := in(a, dsize)
			copy(want[base][a-base:], stream[k*dsize:(k+1)*dsize])
		}
		word := "dmamemcpy " + src.asm("src") + ", " + dst.asm("dst") + ", in_dtype=u8, out_dtype=u8"
		x.Mem.Stats = mem.Stats{}
		if err := x.Exec(asmWord(t, isa.Sunda, word)); err != nil {
			t.Fatalf("trial %d: %s: %v", trial, word, err)
		}
		var rd, wr uint64
		for i := range x.Mem.Stats.Read {
			rd, wr = rd+x.Mem.Stats.Read[i], wr+x.Mem.Stats.Written[i]
		}
		if rd != uint64(total) || wr != uint64(total) {
			t.Fatalf("trial %d: %s: %d bytes read, %d written, want %d each", trial, word, rd, wr, total)
		}
		for base, w := range want {
			got := make([]byte, len(w))
			if err := x.Mem.Read(base, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, w) {
				i := 0
				for got[i] == w[i] {
					i++
				}
				t.Fatalf("trial %d: %s: byte %#x is %#x, element by element %#x", trial, word, base+uint64(i), got[i], w[i])
			}
		}
		ran++
	}
	t.Logf("%d words, %d skipped", ran, skipped)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// An indexed word whose indices come in runs of consecutive values has
// contiguous rows of one length at irregular addresses: not one 2-D copy.
// A gather (indirect_mode=SRC) and a scatter (DST) against the lane-by-lane
// rule of field-tables §3.5 and §11.5 — lane j moves element idx[j], at
// "start + index·step" (bytes), index j at partition j mod C, offset 4·(j div C).
func TestIndexedRunsOfRows(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	const C, lanes, elems = 128, 384, 4096
	for _, mode := range []string{"SRC", "DST"} {
		x := New(isa.Cayman)
		table := make([]byte, 4*elems)
		for i := range table {
			table[i] = byte(r.Uint32())
		}
		if err := x.Mem.Write(hbm, table); err != nil {
			t.Fatal(err)
		}
		idx := make([]uint32, 0, lanes)
		used := map[uint32]bool{}
		for len(idx) < lanes { // runs of 6 consecutive indices from random, distinct starts
			s := uint32(r.IntN(elems/6)) * 6
			if used[s] {
				continue
			}
			used[s] = true
			for k := range uint32(6) {
				idx = append(idx, s+k)
			}
		}
		for j, v := range idx {
			a := uint64(j%C)*x.Mem.Map.SBUFStride + 4*uint64(j/C)
			if err := x.Mem.Write(a, binary.LittleEndian.AppendUint32(nil, v)); err != nil {
				t.Fatal(err)
			}
		}
		want := make([]byte, 4*elems) // the dst area, as the test computes it lane by lane
		word := fmt.Sprintf(`dma_indirect idx_num_active_channels=%d, indirect_mode=%s, idx_bound_is_err=1, src_start_addr=hbm:0x0,
  src_step_elem=4, src_num_elem=%d, src_elem_size=4, %s_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x100000,
  dst_step_elem=4, dst_num_elem=%d, dst_elem_size=4, in_dtype=u8, out_dtype=u8`, C, mode, elems, strings.ToLower(mode), elems)
		for j, v := range idx {
			if mode == "SRC" {
				copy(want[4*j:4*j+4], table[4*v:4*v+4])
			} else {
				copy(want[4*v:4*v+4], table[4*j:4*j+4])
			}
		}
		if mode == "SRC" {
			word = strings.Replace(word, fmt.Sprintf("dst_num_elem=%d", elems), fmt.Sprintf("dst_num_elem=%d", lanes), 1)
		} else {
			word = strings.Replace(word, fmt.Sprintf("src_num_elem=%d", elems), fmt.Sprintf("src_num_elem=%d", lanes), 1)
		}
		if err := x.Exec(asmWord(t, isa.Cayman, word)); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		got := make([]byte, len(want))
		x.Mem.Read(hbm+0x100000, got)
		if !bytes.Equal(got, want) {
			i := 0
			for got[i] == want[i] {
				i++
			}
			t.Fatalf("%s: dst byte %d is %#x, lane by lane %#x", mode, i, got[i], want[i])
		}
	}
}
