package dge

import (
	"encoding/binary"
	"strings"
	"testing"

	"ndma/asm"
	"ndma/isa"
)

// rawWord is a 64-byte word laid out by hand from the field-tables §3 offsets:
// byte 0 the opcode, byte 1 inst_word_len 0x10 (§2.1), then the puts.
type put struct {
	off  int
	size int // 1, 2, 4 or 8 bytes, little-endian
	v    uint64
}

func rawWord(op byte, puts ...put) []byte {
	w := make([]byte, 64)
	w[0], w[1] = op, 0x10
	for _, p := range puts {
		switch p.size {
		case 1:
			w[p.off] = byte(p.v)
		case 2:
			binary.LittleEndian.PutUint16(w[p.off:], uint16(p.v))
		case 4:
			binary.LittleEndian.PutUint32(w[p.off:], uint32(p.v))
		case 8:
			binary.LittleEndian.PutUint64(w[p.off:], p.v)
		}
	}
	return w
}

// The typed fields of the Program are read from the word once, by Lower: each
// word is built from the spec's byte offsets and bit positions, and the
// expected values are the ones written into it.
func TestProgramFieldsFromWord(t *testing.T) {
	regs := map[uint8]uint32{5: 0x1234, 7: 0x5678, 9: 0x9abc}
	cases := []struct {
		name       string
		gen        isa.Gen
		word       []byte
		core       int
		kind       Kind
		tile       Tile
		index      Indexing
		src, dst   BoundCheck
		limit      [2]uint64
		srcSoC     uint64
		dstSoC     uint64
		srcBoundB8 uint8 // the packed byte the $S dump prints
	}{
		{
			// §3.6 DMA_DIRECT2D_XPOSE: 12 src_bound_reg, 13 dst_bound_reg, 14/15 dtypes (BF16 = 6,
			// §5.1), 16 src addr, 24 steps, 32 nums, 36 row step, 40 dst addr, 48 steps, 56 nums,
			// 60 tile_src_rows, 61 tile_src_cols, 62 semaphore; BOUND_CHECK_REG §2.3: reg 0–5,
			// notif-off bit 6, enabled bit 7.
			name: "transpose", gen: isa.Cayman, core: 1, kind: KindTranspose,
			word: rawWord(0xbd, put{12, 1, 0xc5}, put{13, 1, 0x87}, put{14, 1, 6}, put{15, 1, 6},
				put{16, 8, 0}, put{24, 4, 2}, put{28, 4, 256}, put{32, 2, 128}, put{34, 2, 64}, put{36, 4, 256},
				put{40, 8, 0x8000}, put{48, 4, 2}, put{52, 4, 128}, put{56, 2, 64}, put{58, 2, 128},
				put{60, 1, 16}, put{61, 1, 32}, put{62, 1, 3}),
			tile:  Tile{Rows: 16, Cols: 32},
			src:   BoundCheck{Enabled: true, Quiet: true, Reg: 5},
			dst:   BoundCheck{Enabled: true, Reg: 7},
			limit: [2]uint64{0x1234, 0x5678},
			// core 1's SBUF window: core 0's + 0x10_0000_0000 (§11.2)
			srcSoC: 0x30_0000_0000, dstSoC: 0x30_0000_8000, srcBoundB8: 0xc5,
		},
		{
			// §3.5 DMA_INDIRECT1D: 15 flags (§2.5: mode 0–1, idx_bound_is_err 2, non_unique 3,
			// gather_dim 4–5, scatter_dim 6–7) = DST | err | non-unique; 58/59 the index bounds.
			name: "indirect scatter", gen: isa.Mariana, kind: KindIndirect1D,
			word: rawWord(0xbb, put{12, 1, 5}, put{13, 1, 1}, put{14, 1, 128}, put{15, 1, 0x01 | 0x04 | 0x08},
				put{16, 8, 0x1_0000_0000}, put{24, 4, 512}, put{28, 2, 8}, put{30, 2, 512},
				put{32, 8, 0x30000}, put{40, 4, 512}, put{44, 2, 128}, put{46, 2, 512},
				put{48, 4, 0x2000}, put{52, 4, 0x3000}, put{56, 1, 7}, put{57, 1, 7},
				put{58, 1, 0x89}, put{59, 1, 0xca}),
			index: Indexing{Mode: IndexDst, BoundIsErr: true, NonUniqueDst: true,
				Bound: [2]BoundCheck{{Enabled: true, Reg: 9}, {Enabled: true, Quiet: true, Reg: 10}}},
			srcSoC: 0x1_0000_0000, dstSoC: 0x20_0003_0000,
		},
		{
			// the same flags byte = SRC_DST (2) | gather_dim Y (1 << 4) | scatter_dim Z (2 << 6); no bounds
			name: "indirect src_dst dims", gen: isa.Cayman, kind: KindIndirect1D, core: 2,
			word: rawWord(0xbb, put{12, 1, 5}, put{14, 1, 128}, put{15, 1, 0x02 | 1<<4 | 2<<6},
				put{16, 8, 0x1_0000_0000}, put{24, 4, 4}, put{28, 2, 16}, put{30, 2, 4},
				put{32, 8, 0x1_0001_0000}, put{40, 4, 4}, put{44, 2, 16}, put{46, 2, 4}, put{56, 1, 3}, put{57, 1, 3}),
			index:  Indexing{Mode: IndexSrcDst, GatherDim: 1, ScatterDim: 2},
			srcSoC: 0x1_0000_0000, dstSoC: 0x1_0001_0000, // HBM is shared: no core offset (§11.2)
		},
		{
			// §3.7 DMA_GATHER_XPOSE: 15 src_idx_bound_reg, 62 DTYPE_PAIR, 63 flags gather_dim (0–1) = Y
			name: "gather transpose", gen: isa.Cayman, kind: KindGatherTranspose,
			word: rawWord(0xf1, put{12, 1, 6}, put{14, 1, 128}, put{15, 1, 0xc4},
				put{16, 8, 0x1_0000_0000}, put{24, 4, 2}, put{28, 4, 256}, put{32, 2, 128}, put{34, 2, 16},
				put{36, 4, 0x100}, put{40, 8, 0x1000}, put{52, 4, 32}, put{56, 2, 16}, put{58, 2, 4},
				put{60, 2, 8}, put{62, 1, 0x66}, put{63, 1, 1}),
			index:  Indexing{Mode: IndexSrc, GatherDim: 1, Bound: [2]BoundCheck{{Enabled: true, Quiet: true, Reg: 4}}},
			srcSoC: 0x1_0000_0000, dstSoC: 0x20_0000_1000,
		},
		{
			// §3.2 DMA_DIRECT2D: 38 src_bound_reg, 39 dst_bound_reg; 36/60 elem sizes, 62/63 dtypes (FP32 = 0xa)
			name: "direct2d", gen: isa.Cayman, kind: KindDirect2D, core: 3,
			word: rawWord(0xb8, put{13, 1, 10}, put{14, 1, 1},
				put{16, 8, 0x1_0000_0000}, put{24, 4, 4}, put{28, 4, 512}, put{32, 2, 128}, put{34, 2, 1}, put{36, 2, 4},
				put{38, 1, 0x49}, put{39, 1, 0x85},
				put{40, 8, 0}, put{48, 4, 4}, put{52, 4, 512}, put{56, 2, 128}, put{58, 2, 1}, put{60, 2, 4},
				put{62, 1, 0xa}, put{63, 1, 0xa}),
			src:   BoundCheck{Quiet: true, Reg: 9}, // not enabled: no limit read
			dst:   BoundCheck{Enabled: true, Reg: 5},
			limit: [2]uint64{0, 0x1234},
			// SBUF of core 3: 0x20_0000_0000 + 3 × 0x10_0000_0000
			srcSoC: 0x1_0000_0000, dstSoC: 0x50_0000_0000, srcBoundB8: 0x49,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := isa.Decode(c.gen, c.word)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Lower(&in, c.gen, Options{Regs: regs, Core: c.core})
			if err != nil {
				t.Fatal(err)
			}
			if p.Kind != c.kind || p.Core != c.core {
				t.Errorf("kind %s core %d, want %s core %d", p.Kind, p.Core, c.kind, c.core)
			}
			if p.Tile != c.tile {
				t.Errorf("tile %+v, want %+v", p.Tile, c.tile)
			}
			if p.Index != c.index {
				t.Errorf("index %+v, want %+v", p.Index, c.index)
			}
			if p.Src.Bound != c.src || p.Dst.Bound != c.dst {
				t.Errorf("bounds %+v / %+v, want %+v / %+v", p.Src.Bound, p.Dst.Bound, c.src, c.dst)
			}
			if p.BoundLimit != c.limit {
				t.Errorf("limits %#x, want %#x", p.BoundLimit, c.limit)
			}
			if p.Src.Bound.Byte() != c.srcBoundB8 {
				t.Errorf("src bound byte %#x, want %#x", p.Src.Bound.Byte(), c.srcBoundB8)
			}
			ch := p.Channels[0]
			if p.Src.SoC != c.srcSoC || p.Dst.SoC != c.dstSoC || ch.Src.SoC != c.srcSoC || ch.Dst.SoC != c.dstSoC {
				t.Errorf("SoC src %#x dst %#x (channel 0: %#x, %#x), want %#x, %#x", p.Src.SoC, p.Dst.SoC, ch.Src.SoC, ch.Dst.SoC, c.srcSoC, c.dstSoC)
			}
		})
	}
	// a core number below 0 has no SoC window (§11.2)
	in, err := isa.Decode(cases[0].gen, cases[0].word)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lower(&in, cases[0].gen, Options{Core: -1}); err == nil || !strings.Contains(err.Error(), "core -1") {
		t.Errorf("core -1: %v", err)
	}
}

// The channels of a fanned-out program carry the SoC addresses of p's core too.
func TestFanOutCore(t *testing.T) {
	insts := assemble(t, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1],
  src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=sbuf:0:0x37c00, dst_step_elem=[0x40000, 1],
  dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`)
	p, err := Lower(&insts[0], isa.Cayman, Options{Core: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Channels) != 16 {
		t.Fatalf("%d channels, want 16", len(p.Channels))
	}
	// channel c starts at partition 8c: SBUF 0x37c00 + 8c × 256 KiB, in core 1's window
	for c, ch := range p.Channels {
		if want := uint64(0x30_0000_0000 + 0x37c00 + c*8*0x40000); ch.Dst.SoC != want {
			t.Fatalf("DMA[%d] dst SoC %#x, want %#x", c, ch.Dst.SoC, want)
		}
	}
}

// A word of a runtime-placed block (Options.Engines) is spread over its
// queue's engines whatever the backend (docs/hw-timing.md §2.1, C6): on
// SUNDA, whose DGE-less words stay on one channel otherwise; DRAM to DRAM
// along the outermost dimension (128 rows over 16, 8 each, 8 × 512 B
// apart; 3 rows over 3); 64 SB partitions over 16 engines, 4 each (the
// DGE's own rule: ceil(64/8) = 8). Every byte once, and the semaphore's
// 16 spread over the channels.
func TestFanOutEngines(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gen     isa.Gen
		src     string
		engines int
		want    int    // channels
		step    uint64 // dst address from one channel to the next (0: unchecked)
	}{
		{"sunda, no DGE, fired", isa.Sunda, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=sbuf:0:0x0, dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, 16, 16, 8 * 0x40000},
		{"sunda, no DGE, not fired", isa.Sunda, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=sbuf:0:0x0, dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, 0, 1, 0},
		{"DRAM to DRAM, fired", isa.Cayman, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=hbm:0x100000, dst_step_elem=[512, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, 16, 16, 8 * 512},
		{"DRAM to DRAM, not fired", isa.Cayman, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=hbm:0x100000, dst_step_elem=[512, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, 0, 1, 0},
		{"64 partitions, fired", isa.Cayman, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1], src_num_elem=[64, 1], src_elem_size=512, dst_start_addr=sbuf:0:0x0, dst_step_elem=[0x40000, 1], dst_num_elem=[64, 1], dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, 16, 16, 4 * 0x40000},
		{"64 partitions, not fired", isa.Cayman, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1], src_num_elem=[64, 1], src_elem_size=512, dst_start_addr=sbuf:0:0x0, dst_step_elem=[0x40000, 1], dst_num_elem=[64, 1], dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, 0, 8, 8 * 0x40000},
		{"3 rows, fired: 3 engines", isa.Cayman, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1], src_num_elem=[3, 1], src_elem_size=512, dst_start_addr=hbm:0x100000, dst_step_elem=[512, 1], dst_num_elem=[3, 1], dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, 16, 3, 512},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := asm.Assemble("t.s", []byte(tc.src), asm.Options{Gen: tc.gen})
			if err != nil {
				t.Fatal(err)
			}
			in, err := isa.Decode(tc.gen, obj.Code)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Lower(&in, tc.gen, Options{Engines: tc.engines})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Channels) != tc.want {
				t.Fatalf("%d channels, want %d", len(p.Channels), tc.want)
			}
			var bytes, sem int
			for c, ch := range p.Channels {
				if tc.step != 0 && ch.Dst.Addr != p.Dst.Addr+uint64(c)*tc.step {
					t.Errorf("DMA[%d] dst %#x, want %#x", c, ch.Dst.Addr, p.Dst.Addr+uint64(c)*tc.step)
				}
				bytes += int(ch.Dst.Num[0]) * int(ch.Dst.Num[1]) * int(ch.Dst.ElemSize)
				sem += ch.SemInc
			}
			if want := int(p.Dst.Num[0]) * int(p.Dst.Num[1]) * int(p.Dst.ElemSize); bytes != want || sem != 16 {
				t.Errorf("channels move %d bytes, raise the semaphore by %d; want %d, 16", bytes, sem, want)
			}
		})
	}
}
