package sim

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"ndma/dge"
	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
	"ndma/sdma"
)

// A gather-transpose's rows are read where memory stores them (viewRows
// over a table's extent, gatherRows: mem.Peek per row), and a row not
// stored in one piece — across an HBM page's end, in a lazy range, absent —
// is read into a scratch: each case ends as the exact per-descriptor path
// and ref end (memory, stats, bytes memory counts read), and as
// field-tables §11.5 says: "row j starts at src_start + idx[j]·src_step_elem[1]
// and holds L = elem_size / 2 two-byte elements …; dst(i0 = j, i1 = k) sits
// at dst_start + 2·j + k·dst_step_elem_1".
func TestGatherRowsInPlace(t *testing.T) {
	const (
		hbmBase = 0x1_0000_0000
		nidx    = 64 // indices: 4 tiles of 16 rows
		l       = 64 // elements a row: 128 bytes
		dstOff  = 0x40000
	)
	g := isa.Cayman
	for _, tc := range []struct {
		name     string
		src      uint64 // the table's offset in HBM
		rows     int    // the table's rows (the indices below it)
		store    string // "write": the table written; "half": written below the page's end only; "apart": its pages written second first; "lazy": a lazy range; "attach": an attached buffer
		dst      uint64 // the destination's offset in HBM
		inPlace  bool   // the rows read in place (viewRows)
		ownRows  bool   // some row read into a scratch (gatherRows' fallback)
		tableHit bool   // the destination meets the table's extent
	}{
		{"stored rows", 0, 256, "write", dstOff, true, false, false},
		{"rows across a page's end, the next page absent", 0x10000 - 64*128, 128, "half", dstOff, true, true, false},
		{"rows across a page's end, both pages stored apart", 0x10000 - 64*128, 128, "apart", dstOff, true, true, false},
		{"a lazy table", 0, 256, "lazy", dstOff, true, true, false},
		{"an attached table", 0, 512, "attach", dstOff, true, false, false},
		{"the destination inside the table's extent", 0, 1024, "write", 0x8000, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(`dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:%#x, src_step_elem=[2, %d],
  src_num_elem=[%d, %d], src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:%#x, dst_step_elem_1=%d,
  dst_num_elem=[%[4]d, %[3]d], elem_size=%[7]d, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`,
				tc.src, 2*l, l, nidx, tc.dst, 2*nidx, 2*l)
			in, ok := tryWord(g, src)
			if !ok {
				t.Fatalf("does not assemble:\n%s", src)
			}
			r := rand.New(rand.NewPCG(uint64(tc.src), uint64(tc.rows)))
			idx := make([]uint32, nidx)
			for j := range idx {
				idx[j] = uint32(r.IntN(tc.rows))
			}
			idx[1] = idx[0] // a row gathered twice
			if tc.store == "half" || tc.store == "apart" {
				idx[2] = 63 // the row across the page's end (64 rows of 128 B below it)
			}
			table := make([]byte, tc.rows*2*l)
			for i := range table {
				table[i] = byte(r.Uint32())
			}
			gen := func(d []byte, off int) { copy(d, table[off:]) }
			fast, exact, rf := New(g), New(g), ref.New(g)
			exact.exact = true
			for _, m := range []*mem.Memory{fast.Mem, exact.Mem, rf.Mem} {
				for j, v := range idx { // §11.5: index j at partition j mod 128, byte 4·(j div 128)
					if err := m.Write(uint64(j%128)*isa.Map(g).SBUFStride+4*uint64(j/128), binary.LittleEndian.AppendUint32(nil, v)); err != nil {
						t.Fatal(err)
					}
				}
				var err error
				switch tc.store {
				case "write":
					err = m.Write(hbmBase+tc.src, table)
				case "apart": // the second page first: stored apart from the first
					if err = m.Write(hbmBase+0x10000, table[0x10000-tc.src:]); err == nil {
						err = m.Write(hbmBase+tc.src, table[:0x10000-tc.src])
					}
				case "half":
					err = m.Write(hbmBase+tc.src, table[:0x10000-tc.src])
				case "lazy":
					err = m.Lazy(hbmBase+tc.src, len(table), "table", gen)
				case "attach":
					own := append(make([]byte, 0, mem.PageSize), table...)
					if m.Attach(hbmBase+tc.src, own[:mem.PageSize]) != mem.PageSize {
						t.Fatal("the table is not attached")
					}
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if tc.store == "half" {
				clear(table[0x10000-tc.src:]) // the absent page reads as zeros
			}
			errs := [3]error{fast.Exec(in), exact.Exec(in), rf.Exec(in)}
			sameRun(t, src, fast, exact, errs[0], errs[1])
			if errs[2] != nil {
				t.Fatalf("ref %v", errs[2])
			}
			if d, differ := mem.FirstDifference(fast.Mem, rf.Mem, true); differ {
				t.Fatalf("memory differs from the engines': %v", d)
			}
			if fast.Mem.Stats.Read != exact.Mem.Stats.Read {
				t.Errorf("bytes read by region %v, the exact path %v", fast.Mem.Stats.Read, exact.Mem.Stats.Read)
			}
			if got := fast.viewed > 0; got != tc.inPlace {
				t.Errorf("rows read in place %v, want %v", got, tc.inPlace)
			}
			if tc.store == "apart" { // the pages' storage may or may not continue each other: the fallback where it does not
				tc.ownRows = fast.Mem.Peek(hbmBase+tc.src+63*2*l, 2*l) == nil
			}
			if got := fast.gathered > 0; got != tc.ownRows {
				t.Errorf("rows read into a scratch %v, want %v", got, tc.ownRows)
			}
			if fast.turned == 0 {
				t.Error("not turned into its destinations (turnPlanned): the in-place rows untested")
			}
			if tc.tableHit {
				return // the destination overwrote table rows: §11.5's values read before are not in memory now
			}
			got := make([]byte, 2*nidx*l)
			if err := fast.Mem.Read(hbmBase+tc.dst, got); err != nil {
				t.Fatal(err)
			}
			for j, v := range idx {
				for k := range l {
					w := table[int(v)*2*l+2*k : int(v)*2*l+2*k+2]
					if d := got[2*j+k*2*nidx:]; d[0] != w[0] || d[1] != w[1] {
						t.Fatalf("dst(%d, %d) = %#x, src row %d element %d = %#x", j, k, d[:2], v, k, w)
					}
				}
			}
		})
	}
}

// A quiet dst bound leaves elements out of the streams (the lowering's
// keep mask): the DRE's tiles are not whole, so the rows are not turned
// straight into the destinations (turnPlanned refuses) and the word runs
// as the exact path runs it.
func TestGatherKeepMaskNotPlanned(t *testing.T) {
	g := isa.Cayman
	const word = `dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, 128],
  src_num_elem=[64, 64], src_idx_start_addr=sbuf:0:0x0, dst_start_addr=sbuf:1:0x0, dst_step_elem_1=128,
  dst_num_elem=[64, 64], elem_size=128, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y,
  dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=4, dst_bound_reg.bc_disable_oob_error_notif=1`
	in, ok := tryWord(g, word)
	if !ok {
		t.Fatal("does not assemble")
	}
	fast, exact := New(g), New(g)
	exact.exact = true
	for _, x := range []*Machine{fast, exact} {
		seed(t, rand.New(rand.NewPCG(4, 4)), g, simM{x})
		x.Regs[4] = uint32(isa.Map(g).SBUFStride + 40*128 + 63) // dst rows 0–39 in bounds, every element of 40–63 past it
	}
	regs := map[uint8]uint32{4: fast.Regs[4]}
	idx, err := fast.indexFunc(in)
	if err != nil {
		t.Fatal(err)
	}
	p, lw, err := sdma.Lower(in, g, dge.Options{Regs: regs}, sdma.Options{Regs: regs, Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != dge.KindGatherTranspose || lw.Queues[0].Keep == nil {
		t.Fatalf("kind %v, keep mask %v: not the quiet-bound case", p.Kind, lw.Queues[0].Keep != nil)
	}
	sameRun(t, word, fast, exact, fast.Exec(in), exact.Exec(in))
	if fast.turned != 0 || fast.viewed != 0 {
		t.Fatalf("turned %d, rows in place %d: a masked stream reached the planned turn", fast.turned, fast.viewed)
	}
}

// oneSet: destinations at one offset of a 4 KiB page, and not.
func TestOneSet(t *testing.T) {
	b := make([]byte, 5*8192)
	o := 4096 - int(uintptr(unsafe.Pointer(&b[0]))%4096)
	at := func(offs ...int) [][]byte {
		var d [][]byte
		for _, x := range offs {
			d = append(d, b[o+x:o+x+32])
		}
		return d
	}
	if !oneSet(at(0, 8192, 4096, 3*8192)) || oneSet(at(0, 8192, 8192+64)) || oneSet(at(0, 2048)) {
		t.Fatal("oneSet: want true for offsets 4 KiB multiples apart, false otherwise")
	}
}
