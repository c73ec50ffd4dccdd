package device_test

import (
	"bytes"
	"strings"
	"testing"

	"ndma/check"
	"ndma/device"
	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// openGen builds p and returns its first subgraph, the engine of key and
// the placement.
func openGen(t *testing.T, p *neffgen.Program, key string) (*neff.Subgraph, *neff.Engine, map[int]uint64) {
	t.Helper()
	sg, _, place := open(t, p)
	for i := range sg.Engines {
		if sg.Engines[i].Key == key {
			return sg, &sg.Engines[i], place
		}
	}
	t.Fatalf("no engine %s", key)
	return nil, nil, nil
}

// triggerOn is a 0xc1 word of gen naming queue and block.
func triggerOn(t *testing.T, gen isa.Gen, queue string, id int) *isa.Inst {
	b := make([]byte, 64)
	b[0], b[1] = 0xc1, 0x10
	copy(b[12:44], queue)
	b[48], b[49] = byte(id), byte(id>>8)
	in, err := isa.Decode(gen, b)
	if err != nil {
		t.Fatal(err)
	}
	return &in
}

// xword is one expected DMA_TRANSPOSE, fields as field-tables §3.6 names them.
type xword struct {
	src, dst           uint64
	srcStep, dstStep   [2]int64
	srcNum, dstNum     [2]int64
	rowStep            int64
	rows, cols, dt, sm uint64
}

func gotX(w *isa.Inst) xword {
	var g xword
	sides(w, &g.src, &g.dst, &g.srcStep, &g.dstStep, &g.srcNum, &g.dstNum)
	g.rowStep, _ = w.Int("tile_src_row_step")
	g.rows, _ = w.Uint("tile_src_rows")
	g.cols, _ = w.Uint("tile_src_cols")
	g.dt, _ = w.Uint("out_dtype")
	g.sm, _ = w.Uint("semaphore")
	return g
}

// The §4.7 shapes become the words worked out here by hand from neff.md
// §4.7 (byte sizes and steps per side, offsets added, SB offsets
// partition·2^18 + offset mapped onto the generation's partition stride —
// 256 KiB, 1 MiB on v5 — the block's own semaphore, 16 increments) and
// field-tables §3.2 / §3.6. Placement (docs/neff.md): var_id order from
// 0x1_0000_0000, 64-byte aligned. FP32 = 10, FP16 = 7, INT8 = 2.
func TestStyleAWords(t *testing.T) {
	const hbm = device.HBMBase
	const kib = 1024
	type want struct {
		d2 *word  // a DMA_DIRECT2D
		x  *xword // or a DMA_TRANSPOSE
	}
	// the observed fp32 transpose on a partition stride of part bytes: tile
	// 0 (columns 0..63: 128 source rows of 64 elements at pitch 512) as one
	// DMA_TRANSPOSE into partitions 0..63 (+1 on semaphore 40), tile 1
	// (columns 64..127, from +256) element by element into partitions
	// 64..127: 128 × 64 elements, the source stepped down a column (512)
	// then across (4), carrying the other 15
	observed := func(part int64) []want {
		return []want{
			{x: &xword{src: hbm, dst: 0, srcStep: [2]int64{4, 512}, dstStep: [2]int64{4, part}, srcNum: [2]int64{64, 128}, dstNum: [2]int64{128, 64}, rowStep: 512, rows: 16, cols: 64, dt: 10, sm: 40}},
			{d2: &word{src: hbm + 256, dst: uint64(64 * part), srcStep: [2]int64{512, 4}, dstStep: [2]int64{4, part}, srcNum: [2]int64{128, 64}, dstNum: [2]int64{128, 64},
				srcElem: 4, dstElem: 4, inT: 10, outT: 10, sem: 40, inc: 15}},
		}
	}
	for _, tc := range []struct {
		name, key, queue string
		id               int
		gen              isa.Gen
		p                *neffgen.Program
		want             []want
		ring, descs      int
	}{
		// a_vec's second tile: from_off 4000 (at 0x1_0000_0000), 128 rows of
		// 4000 bytes at pitch 8000, into SB partitions 0..127 at to_off 221368,
		// on semaphore_set[2 % 16] = 10 with 16 increments; 128 runs a side.
		// The partition step 262144 is no multiple of a 4000-byte element
		// and the DGE counts dims in elements (docs/lower.md), so each row
		// moves as 125 sub-elements of 8 fp32 (gcd of 1000, 2000 and 65536
		// elements): num [125, 128], steps [32, pitch]
		{"vector-add tile, cayman", "sp", "qSPIn", 2, isa.Cayman, neffgen.VectorAdd("cayman", 1),
			[]want{{d2: &word{src: hbm + 4000, dst: 221368, srcStep: [2]int64{32, 8000}, dstStep: [2]int64{32, 256 * kib}, srcNum: [2]int64{125, 128}, dstNum: [2]int64{125, 128},
				srcElem: 32, dstElem: 32, inT: 10, outT: 10, sem: 10, inc: 16}}}, 129, 257},
		// v5: the tiles end at its 2^18 − 8 (VectorAddTiles: 262136 − 16000 +
		// 8000) and the NEFF's partition step 2^18 becomes 1 MiB
		{"vector-add tile, maverick", "sp", "qSPIn", 2, isa.Maverick, neffgen.VectorAdd("maverick", 1),
			[]want{{d2: &word{src: hbm + 4000, dst: 254136, srcStep: [2]int64{32, 8000}, dstStep: [2]int64{32, 1024 * kib}, srcNum: [2]int64{125, 128}, dstNum: [2]int64{125, 128},
				srcElem: 32, dstElem: 32, inT: 10, outT: 10, sem: 10, inc: 16}}}, 129, 257},
		// sunda's tiles end below its 192 KiB: to_off 196600 − 16000 + 8000
		{"vector-add tile, sunda", "sp", "qSPIn", 2, isa.Sunda, neffgen.VectorAdd("sunda", 1),
			[]want{{d2: &word{src: hbm + 4000, dst: 188600, srcStep: [2]int64{32, 8000}, dstStep: [2]int64{32, 256 * kib}, srcNum: [2]int64{125, 128}, dstNum: [2]int64{125, 128},
				srcElem: 32, dstElem: 32, inT: 10, outT: 10, sem: 10, inc: 16}}}, 129, 257},
		// c_vec's second tile from SB (from_off 221368) to to_off 4000 of c_vec
		// (0x1_0000_0000 + 2 × 1,024,000), on qSPOut's semaphore_set[1] = 25
		{"vector-add output, cayman", "sp", "qSPOut", 1, isa.Cayman, neffgen.VectorAdd("cayman", 1),
			[]want{{d2: &word{src: 221368, dst: hbm + 2048000 + 4000, srcStep: [2]int64{32, 256 * kib}, dstStep: [2]int64{32, 8000}, srcNum: [2]int64{125, 128}, dstNum: [2]int64{125, 128},
				srcElem: 32, dstElem: 32, inT: 10, outT: 10, sem: 25, inc: 16}}}, 129, 257},
		// int8 → fp16: 128 rows of 128 one-byte elements read, 256 bytes written per partition
		{"cast int8 to fp16", "pool", "qPoolIn", 0, isa.Cayman, neffgen.Casts("cayman"),
			[]want{{d2: &word{src: hbm, dst: 0, srcStep: [2]int64{128, 0}, dstStep: [2]int64{256 * kib, 0}, srcNum: [2]int64{128, 1}, dstNum: [2]int64{128, 1},
				srcElem: 128, dstElem: 256, inT: 2, outT: 7, sem: 24, inc: 16}}}, 129, 130},
		// fp32 → fp16: [1776, 128] read from x32 (after x8's 16 KiB), [888, 128]
		// written at SB offset 1024; 262144 is no multiple of 888, so rows of
		// 111 sub-elements of 4 values (gcd of 444, 444 and 131072)
		{"cast fp32 to fp16", "pool", "qPoolIn", 1, isa.Cayman, neffgen.Casts("cayman"),
			[]want{{d2: &word{src: hbm + 16*kib, dst: 1024, srcStep: [2]int64{16, 1776}, dstStep: [2]int64{8, 256 * kib}, srcNum: [2]int64{111, 128}, dstNum: [2]int64{111, 128},
				srcElem: 16, dstElem: 8, inT: 10, outT: 7, sem: 25, inc: 16}}}, 129, 4 + 128 + 1}, // 227,328 contiguous bytes: 4 runs of ≤ 64 KiB
		// the weight copy: every 9th fp32 of w's 9216-byte rows, 16,384 runs of
		// 4 bytes, one word; the ring must take 16,384 + 1 descriptors
		{"16,384-run weight copy", "pool", "qPoolIn", 0, isa.Cayman, neffgen.Weights("cayman", false),
			[]want{{d2: &word{src: hbm, dst: 8192, srcStep: [2]int64{36, 9216}, dstStep: [2]int64{4, 256 * kib}, srcNum: [2]int64{128, 128}, dstNum: [2]int64{128, 128},
				srcElem: 4, dstElem: 4, inT: 10, outT: 10, sem: 24, inc: 16}}}, 16385, 16384 + 128 + 1},
		// spill into the virtual variable (after w's 1,179,648 bytes)
		{"spill to a virtual variable", "pool", "qPoolData", 0, isa.Cayman, neffgen.Weights("cayman", false),
			[]want{{d2: &word{src: 8192, dst: hbm + 1179648, srcStep: [2]int64{256 * kib, 0}, dstStep: [2]int64{512, 0}, srcNum: [2]int64{128, 1}, dstNum: [2]int64{128, 1},
				srcElem: 512, dstElem: 512, inT: 10, outT: 10, sem: 40, inc: 16}}}, 129, 130},
		// the observed fp32 transpose on 256 KiB partitions
		{"transpose, cayman", "act", "qActIn", 0, isa.Cayman, neffgen.Transposes("cayman"), observed(256 * kib), 8193, 128 + 64 + 1 + 8192 + 64 + 1},
		// SUNDA has no DMA_TRANSPOSE: both tiles element by element
		{"transpose, sunda", "act", "qActIn", 0, isa.Sunda, neffgen.Transposes("sunda"),
			[]want{
				{d2: &word{src: hbm, dst: 0, srcStep: [2]int64{512, 4}, dstStep: [2]int64{4, 256 * kib}, srcNum: [2]int64{128, 64}, dstNum: [2]int64{128, 64}, srcElem: 4, dstElem: 4, inT: 10, outT: 10}},
				{d2: &word{src: hbm + 256, dst: 64 * 256 * kib, srcStep: [2]int64{512, 4}, dstStep: [2]int64{4, 256 * kib}, srcNum: [2]int64{128, 64}, dstNum: [2]int64{128, 64},
					srcElem: 4, dstElem: 4, inT: 10, outT: 10, sem: 40, inc: 16}},
			}, 8193, 2 * (8192 + 64 + 1)},
		// v5: partition 64 is 64 MiB up
		{"transpose, maverick", "act", "qActIn", 0, isa.Maverick, neffgen.Transposes("maverick"), observed(1024 * kib), 8193, 128 + 64 + 1 + 8192 + 64 + 1},
		// the fp16 transpose out of the virtual stage (after w32 and w16) into
		// SB offset 512, then the row copy to row0 carrying 15
		{"fp16 transpose from a virtual variable", "act", "qActIn", 2, isa.Cayman, neffgen.Transposes("cayman"),
			[]want{
				{x: &xword{src: hbm + 0x18000, dst: 512, srcStep: [2]int64{2, 256}, dstStep: [2]int64{2, 256 * kib}, srcNum: [2]int64{128, 128}, dstNum: [2]int64{128, 128}, rowStep: 256, rows: 16, cols: 128, dt: 7, sm: 42}},
				{d2: &word{src: hbm + 0x10000, dst: hbm + 0x20000, srcNum: [2]int64{1, 1}, dstNum: [2]int64{1, 1}, srcElem: 256, dstElem: 256, inT: 7, outT: 7, sem: 42, inc: 15}},
			}, 129, 1 + 128 + 1 + 1 + 1 + 1}, // the stage is one contiguous run
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.Target = strings.ToLower(tc.gen.String())
			sg, en, place := openGen(t, tc.p, tc.key)
			f, err := device.Fire(tc.gen, sg, en, triggerOn(t, tc.gen, tc.queue, tc.id), place)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Words) != len(tc.want) {
				t.Fatalf("%d words, want %d", len(f.Words), len(tc.want))
			}
			for i, w := range tc.want {
				in := &f.Words[i]
				switch {
				case w.d2 != nil && in.Opcode() == isa.OpDMAMemcpy:
					if g := got(in); g != *w.d2 {
						t.Errorf("word %d\n got %+v\nwant %+v", i, g, *w.d2)
					}
				case w.x != nil && in.Opcode() == isa.OpDMATranspose:
					if g := gotX(in); g != *w.x {
						t.Errorf("word %d\n got %+v\nwant %+v", i, g, *w.x)
					}
				default:
					t.Errorf("word %d is %s", i, in.Def().Mnemonic())
				}
				for _, p := range check.Validate(in, tc.gen) { // the words are valid words of the generation
					if p.Severity == check.Error {
						t.Errorf("word %d: %s: %s %s %s", i, p.Predicate, p.Field, p.Value, p.Want)
					}
				}
			}
			if f.Ring != device.RuntimeRing || f.RingDescriptors != tc.ring || f.Descriptors != tc.descs || f.Increment != 16 {
				t.Errorf("Ring %d, RingDescriptors %d (want %d), Descriptors %d (want %d), Increment %d", f.Ring, f.RingDescriptors, tc.ring, f.Descriptors, tc.descs, f.Increment)
			}
		})
	}
}

// A block's semaphore: its own `semaphore` key when present (even outside
// the rule), else semaphore_set[id % 16] — §4.7's rule — for a block id past
// the set's length too; an instance name picks its own set entry.
func TestStyleASemaphores(t *testing.T) {
	p := neffgen.VectorAdd("cayman", 1)
	sp := &p.Subgraphs[0].Engines[1]
	b := sp.DMA[0]
	b.ID, b.Semaphore = 17, nil // 17 % 16 = 1: semaphore 9
	c := sp.DMA[0]
	c.ID, c.Semaphore = 18, new(int) // its own: 0
	sp.DMA = append(sp.DMA, b, c)
	sg, en, place := openGen(t, p, "sp")
	for _, tc := range []struct {
		queue    string
		id, sem  int
		instance int
	}{{"qSPIn", 3, 11, 0}, {"qSPIn", 17, 9, 0}, {"qSPIn", 18, 0, 0}} {
		f, err := device.Fire(isa.Cayman, sg, en, triggerOn(t, isa.Cayman, tc.queue, tc.id), place)
		if err != nil {
			t.Fatal(err)
		}
		last, _ := f.Words[len(f.Words)-1].Direct2D()
		if f.Semaphore != tc.sem || last.Semaphore() != uint64(tc.sem) || last.SemIncrement() != 16 {
			t.Errorf("%s %d: semaphore %d (word %d +%d), want %d +16", tc.queue, tc.id, f.Semaphore, last.Semaphore(), last.SemIncrement(), tc.sem)
		}
	}
}

// Fired words run on the reference and on the descriptor engines (with a
// ring of RingDescriptors entries: the 16,384-run copy from HBM to HBM fills
// one channel's ring past the DGE's 4096) and leave what a byte walk of the
// descriptor says; the semaphore ends at 16.
func TestStyleARingSize(t *testing.T) {
	p := neffgen.Weights("cayman", true)
	sg, en, place := openGen(t, p, "pool")
	f, err := device.Fire(isa.Cayman, sg, en, triggerOn(t, isa.Cayman, "qPoolIn", 1), place)
	if err != nil {
		t.Fatal(err)
	}
	if f.RingDescriptors != 16385 {
		t.Fatalf("RingDescriptors %d", f.RingDescriptors)
	}
	w, _ := sg.Var("w")
	flat, _ := sg.Var("flat")
	src := randomBytes(int(w.Size), 4, 4)
	want := make([]byte, flat.Size) // element k of row j: bytes 9216j + 36k … +4 of w
	for j := 0; j < 128; j++ {
		for k := 0; k < 128; k++ {
			copy(want[512*j+4*k:], src[9216*j+36*k:9216*j+36*k+4])
		}
	}
	for _, x := range executors(isa.Cayman, f.RingDescriptors) {
		x.write(t, place[w.ID], src)
		x.run(t, "", f.Words)
		got := make([]byte, flat.Size)
		if err := x.mem.Read(place[flat.ID], got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: flat differs from the walk", x.name)
		}
		if v := x.mem.Sems[f.Semaphore]; v != 16 {
			t.Errorf("%s: $S[%d] = %d", x.name, f.Semaphore, v)
		}
	}
}

// What the §4.7 reading cannot place is refused with the member, block,
// queue, id, descriptor and key — never moved some other way.
func TestStyleARefusals(t *testing.T) {
	base := neff.Desc{From: "a_vec", To: "SB", FromSizes: []int64{4000, 128}, FromSteps: []int64{1, 8000}, ToSizes: []int64{4000, 128}, ToSteps: []int64{1, 1 << 18}, FromDtype: "float32", ToDtype: "float32"}
	xp := neff.Desc{From: "a_vec", To: "SB", FromSizes: []int64{256, 128, 2, 1}, FromSteps: []int64{1, 512, 256, 65536}, ToSizes: []int64{512, 64, 2, 1}, ToSteps: []int64{1, 262144, 16777216, 512},
		FromDtype: "float32", ToDtype: "float32", NumTilingDimensions: 2, TransposeOp: "WZXY", TransposeShape: []int64{1, 1, 128, 64}, TransposeElementSize: 4}
	with := func(d neff.Desc, f func(*neff.Desc)) neff.Desc { f(&d); return d }
	for _, tc := range []struct {
		name   string
		target string
		desc   neff.Desc
		sem    *int
		want   string
	}{
		{"packed dtype", "cayman", with(base, func(d *neff.Desc) { d.FromDtype, d.ToDtype = "float8e4_x4", "float8e4_x4" }), nil, `desc[0]: from_dtype: dtype "float8e4_x4" is not one ndma knows`},
		{"fma", "cayman", with(base, func(d *neff.Desc) { d.Op = "fma" }), nil, `desc[0]: op "fma" is not modelled`},
		{"64-bit cast", "cayman", with(base, func(d *neff.Desc) { d.Op, d.FromDtype, d.ToSizes = "cast", "int64", []int64{2000, 128} }), nil, "a DMA word cannot cast or compute INT64/UINT64"},
		{"negative offset", "cayman", with(base, func(d *neff.Desc) { d.FromOff = -4 }), nil, "desc[0]: from_off = -4: out of range"},
		{"past the variable", "cayman", with(base, func(d *neff.Desc) { d.FromOff = 8000 * 128 }), nil, `from: bytes 1024000..1028000 are outside "a_vec" (1024000 bytes)`},
		// 196600 + 4000 is past sunda's 192 KiB, inside cayman's 224 KiB
		{"past sunda's partition", "sunda", with(base, func(d *neff.Desc) { d.ToOff = 196600 }), nil, `to: bytes 196600..200600 of "SB" (NEFF SB partition 0, offset 196600) are not inside one SBUF partition's 196608 bytes`},
		{"across a NEFF partition", "cayman", with(base, func(d *neff.Desc) { d.ToOff = 1<<18 - 100 }), nil, `(NEFF SB partition 0, offset 262044) are not inside one SBUF partition's 229376 bytes`},
		{"past partition 127", "cayman", with(base, func(d *neff.Desc) { d.ToOff = 1 << 18 }), nil, `(NEFF SB partition 128, offset 0)`},
		{"tiling without a transpose", "cayman", with(base, func(d *neff.Desc) { d.NumTilingDimensions = 2 }), nil, "num_tiling_dimensions 2 without a transpose is not modelled"},
		{"letters", "cayman", with(xp, func(d *neff.Desc) { d.TransposeOp = "WZXX" }), nil, `desc[0]: transpose_op "WZXX": want the four letters W Z Y X`},
		{"tiling dims", "cayman", with(xp, func(d *neff.Desc) { d.TransposeShape = []int64{1, 1, 64, 64} }), nil, "num_tiling_dimensions 2: from_sizes[256 128] covers 32768 bytes per tile, transpose_shape [1 1 64 64] of 4-byte elements is 16384"},
		{"cast in a transpose", "cayman", with(xp, func(d *neff.Desc) { d.ToDtype = "float16" }), nil, "a transpose does not cast"},
		{"half a transpose", "cayman", with(xp, func(d *neff.Desc) { d.TransposeShape = nil }), nil, "a transpose needs transpose_op, transpose_shape and transpose_element_size"},
		{"semaphore", "cayman", base, func() *int { s := 300; return &s }(), "(queue qSPIn, id 9): semaphore 300: out of range (0..255)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := neffgen.VectorAdd(tc.target, 1)
			sp := &p.Subgraphs[0].Engines[1]
			b := neffgen.Compiled("qSPIn", 9, neffgen.SetOf(8), tc.desc)
			if tc.sem != nil {
				b.Semaphore = tc.sem
			}
			sp.DMA = append(sp.DMA, b)
			gen, _ := isa.ParseGen(tc.target)
			sg, en, place := openGen(t, p, "sp")
			_, err := device.Fire(gen, sg, en, triggerOn(t, gen, "qSPIn", 9), place)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "sg00/SP.json dma[6] (queue qSPIn, id 9)") {
				t.Errorf("%v\nwant …%s…", err, tc.want)
			}
		})
	}
}
