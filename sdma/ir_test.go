package sdma

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"ndma/dge"
	"ndma/isa"
)

// The expansion reads nothing but the Program: these programs are built by
// hand (no word behind them), and the descriptors follow their typed fields.

// handLeg is a 1- or 2-D leg; the unused dimensions walk once.
func handLeg(addr uint64, es uint32, num []uint32, step []int64, isSrc bool) dge.Leg {
	l := dge.Leg{Addr: addr, ElemSize: es, IsSrc: isSrc}
	for d := range l.Num {
		l.Num[d] = 1
	}
	copy(l.Num[:], num)
	copy(l.Step[:], step)
	return l
}

func handProgram(kind dge.Kind, src, dst dge.Leg) *dge.Program {
	return &dge.Program{Gen: isa.Cayman, Kind: kind, Backend: dge.Software, Src: src, Dst: dst, Semaphore: 3, SemIncrement: 1,
		Channels: []dge.Channel{{DMA: 0, Src: src, Dst: dst, SemInc: 1}}}
}

// A 32-row × 8-column BF16 transpose cut into the tiles of p.Tile: M2S reads
// each tile row by row, S2M writes it column by column (field-tables §11.5;
// edge tiles smaller), walked naively here for each tile shape.
func TestExpandFollowsTile(t *testing.T) {
	const rows, cols, es = 32, 8, 2
	src := handLeg(0, es, []uint32{cols, rows}, []int64{es, cols * es}, true)
	dst := handLeg(0x40000, es, []uint32{rows, cols}, []int64{es, rows * es}, false)
	srcAt := func(r, c int) uint64 { return uint64(c*es + r*cols*es) }
	dstAt := func(r, c int) uint64 { return uint64(0x40000 + r*es + c*rows*es) }
	m2sCount := map[dge.Tile]int{}
	for _, tile := range []dge.Tile{{Rows: 16, Cols: 8}, {Rows: 16, Cols: 4}, {Rows: 8, Cols: 2}, {Rows: 16, Cols: 3}, {Rows: 5, Cols: 8}} {
		p := handProgram(dge.KindTranspose, src, dst)
		p.Tile = tile
		lw, err := Expand(p, Options{})
		if err != nil {
			t.Fatalf("tile %+v: %v", tile, err)
		}
		var m2s, s2m []uint64
		tr, tc := int(tile.Rows), int(tile.Cols)
		for rb := 0; rb < rows; rb += tr {
			for cb := 0; cb < cols; cb += tc {
				for r := rb; r < min(rows, rb+tr); r++ {
					for c := cb; c < min(cols, cb+tc); c++ {
						m2s = append(m2s, srcAt(r, c), srcAt(r, c)+1)
					}
				}
				for c := cb; c < min(cols, cb+tc); c++ {
					for r := rb; r < min(rows, rb+tr); r++ {
						s2m = append(s2m, dstAt(r, c), dstAt(r, c)+1)
					}
				}
			}
		}
		q := lw.Queues[0]
		if fmt.Sprint(bytesOf(q.M2S)) != fmt.Sprint(m2s) || fmt.Sprint(bytesOf(q.S2M)) != fmt.Sprint(s2m) {
			t.Fatalf("tile %+v: descriptors differ from the tile walk", tile)
		}
		m2sCount[tile] = len(q.M2S)
	}
	// whole 8-column tiles of 16-byte rows read the block as one run; 4-column tiles read
	// 4 tiles × 16 half rows, the last of tile (0, 4) running on into tile (16, 0): 63
	if m2sCount[dge.Tile{Rows: 16, Cols: 8}] != 1 || m2sCount[dge.Tile{Rows: 16, Cols: 4}] != 63 {
		t.Fatalf("M2S descriptors per tile shape: %v", m2sCount)
	}
	p := handProgram(dge.KindTranspose, src, dst)
	if _, err := Expand(p, Options{}); err == nil || !strings.Contains(err.Error(), "no tiles") {
		t.Fatalf("no tile: %v", err)
	}
}

// An INDIRECT1D of 8 four-byte lanes: Index.Mode picks the indexed leg,
// NonUniqueDst allows repeated dst indices, BoundIsErr and Index.Bound decide
// an index past r[Reg] (field-tables §11.5).
func TestExpandFollowsIndex(t *testing.T) {
	const lanes, es = 8, 4
	src := handLeg(0x1_0000_0000, es, []uint32{lanes}, []int64{es}, true)
	dst := handLeg(0x1_0001_0000, es, []uint32{lanes}, []int64{es}, false)
	reversed := func(_, j int) (uint32, error) { return uint32(lanes - 1 - j), nil }
	// moves lists (src element, dst element) per lane that moved
	moves := func(lw *Lowered) []string {
		q := lw.Queues[0]
		s, d := bytesOf(q.M2S), bytesOf(q.S2M)
		var out []string
		for k := 0; k+es <= len(s) && k+es <= len(d); k += es {
			out = append(out, fmt.Sprintf("%d→%d", (s[k]-src.Addr)/es, (d[k]-dst.Addr)/es))
		}
		return out
	}
	cases := []struct {
		name  string
		index dge.Indexing
		idx   IndexFunc
		regs  map[uint8]uint32
		want  string // the lanes' moves, or the error's text
	}{
		{"gather", dge.Indexing{Mode: dge.IndexSrc}, reversed, nil, "[7→0 6→1 5→2 4→3 3→4 2→5 1→6 0→7]"},
		{"scatter", dge.Indexing{Mode: dge.IndexDst}, func(_, j int) (uint32, error) { return uint32((j + 3) % lanes), nil }, nil,
			"[0→3 1→4 2→5 3→6 4→7 5→0 6→1 7→2]"},
		{"repeat, unique", dge.Indexing{Mode: dge.IndexDst}, func(_, j int) (uint32, error) { return 2, nil }, nil,
			"non_unique_dst_idx is 0"},
		{"repeat, non-unique", dge.Indexing{Mode: dge.IndexDst, NonUniqueDst: true}, func(_, j int) (uint32, error) { return 2, nil }, nil,
			"[0→2 1→2 2→2 3→2 4→2 5→2 6→2 7→2]"},
		{"bound, error", dge.Indexing{Mode: dge.IndexSrc, BoundIsErr: true, Bound: [2]dge.BoundCheck{{Enabled: true, Reg: 3}}}, reversed,
			map[uint8]uint32{3: 4}, "index 7 > limit r3 = 4"},
		{"bound, skipped", dge.Indexing{Mode: dge.IndexSrc, Bound: [2]dge.BoundCheck{{Enabled: true, Reg: 3}}}, reversed,
			map[uint8]uint32{3: 4}, "[4→3 3→4 2→5 1→6 0→7]"},
	}
	for _, c := range cases {
		p := handProgram(dge.KindIndirect1D, src, dst)
		p.Index = c.index
		lw, err := Expand(p, Options{Index: c.idx, Regs: c.regs})
		got := ""
		if err != nil {
			got = err.Error()
			if c.name == "bound, error" && !errors.Is(err, ErrBounds) {
				t.Errorf("%s: %v is not ErrBounds", c.name, err)
			}
		} else {
			got = fmt.Sprint(moves(lw))
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// One core number: the descriptors, the completion and the rings are in the
// window of p.Core (field-tables §11.2: core c's on-chip windows are core 0's
// + c × 0x10_0000_0000; HBM is shared).
func TestExpandOnCore(t *testing.T) {
	src := handLeg(0x100, 4, []uint32{16}, []int64{4}, true)          // SBUF partition 0
	dst := handLeg(0x1_0000_0000, 4, []uint32{16}, []int64{4}, false) // HBM
	for _, core := range []int{0, 2} {
		p := handProgram(dge.KindDirect2D, src, dst)
		p.Core = core
		lw, err := Expand(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		q, off := lw.Queues[0], uint64(core)*0x10_0000_0000
		if got, want := q.M2S[0].BufPtr(), 0x20_0000_0100+off; got != want {
			t.Errorf("core %d: M2S buf_ptr %#x, want %#x", core, got, want)
		}
		if got, want := q.S2M[0].BufPtr(), uint64(0x1_0000_0000); got != want {
			t.Errorf("core %d: S2M buf_ptr %#x, want %#x (HBM)", core, got, want)
		}
		if got, want := q.S2M[1].BufPtr(), 0x28_0270_1800+4*3+off; got != want {
			t.Errorf("core %d: completion at %#x, want %#x ($S[3] INC)", core, got, want)
		}
		if got, want := q.M2SBase, 0x20_4000_0000+off; got != want {
			t.Errorf("core %d: M2S ring at %#x, want %#x", core, got, want)
		}
	}
	// lowered for core 1: the GENERATE address the dump prints is the first buf_ptr
	p := lower(t, isa.Cayman, `dmamemcpy semaphore=11, sem_increment=1, src_start_addr=sbuf:0:0x0,
  src_step_elem=[4, 512], src_num_elem=[128, 1], src_elem_size=4, dst_start_addr=hbm:0x200,
  dst_step_elem=[4, 512], dst_num_elem=[128, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`, dge.Options{Core: 1})
	lw, err := Expand(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lw.Queues[0].M2S[0].BufPtr(), p.Channels[0].Src.SoC; got != want || want != 0x30_0000_0000 {
		t.Errorf("core 1: M2S buf_ptr %#x, the program's src SoC %#x (want 0x3000000000)", got, want)
	}
}
