package device_test

import (
	"archive/tar"
	"errors"
	"strings"
	"testing"

	"ndma/device"
	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// styleA is neffgen.Triggered: the C08220 shape of neff.md §4.5/§5.2.
func styleA(descs ...neff.Desc) *neffgen.Program { return neffgen.Triggered(descs...) }

// open builds p and returns its first subgraph, the pool engine and its placement.
func open(t *testing.T, p *neffgen.Program) (*neff.Subgraph, *neff.Engine, map[int]uint64) {
	t.Helper()
	_, sgs, err := p.Open(neff.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	place, err := device.Place(sgs)
	if err != nil {
		t.Fatal(err)
	}
	return &sgs[0], &sgs[0].Engines[0], place[0]
}

// trigger is a 0xc1 word of cayman naming queue and block.
func trigger(t *testing.T, queue string, id int) *isa.Inst {
	return triggerOn(t, isa.Cayman, queue, id)
}

// word is one expected DMA_DIRECT2D, fields as the spec names them.
type word struct {
	src, dst                     uint64
	srcStep, dstStep             [2]int64
	srcNum, dstNum               [2]int64
	srcElem, dstElem             int64
	inT, outT, sem, inc, compute uint64
}

func got(w *isa.Inst) word {
	var g word
	sides(w, &g.src, &g.dst, &g.srcStep, &g.dstStep, &g.srcNum, &g.dstNum)
	g.srcElem, _ = w.Int("src_elem_size")
	g.dstElem, _ = w.Int("dst_elem_size")
	g.inT, _ = w.Uint("in_dtype")
	g.outT, _ = w.Uint("out_dtype")
	g.sem, _ = w.Uint("semaphore")
	g.inc, _ = w.Uint("sem_increment")
	g.compute, _ = w.Uint("compute_op")
	return g
}

// Each descriptor shape becomes the DMA_DIRECT2D words worked out by hand
// from neff.md §4.5 (sizes[0] contiguous bytes, higher dims repeat counts,
// byte steps) and field-tables §3.2 (byte strides, elem sizes in bytes).
// Placement (docs/neff.md): input 0x1_0000_0000, gradient_in +0x80,
// output +0x100, big +0x180; SB at 0. UINT8 = 3, FP16 = 7, FP32 = 10.
func TestFireWords(t *testing.T) {
	const hbm = device.HBMBase
	in, grad, out, big := uint64(hbm), uint64(hbm+0x80), uint64(hbm+0x100), uint64(hbm+0x180)
	for _, tc := range []struct {
		name string
		desc neff.Desc
		want []word
	}{
		{"C08220 q_gradient_in block", neff.Desc{}, []word{{src: in, dst: grad, srcNum: [2]int64{1, 1}, dstNum: [2]int64{1, 1}, srcElem: 128, dstElem: 128, inT: 3, outT: 3, sem: 10, inc: 1}}},
		// 128 rows of 512 bytes, row pitch 1024, into 128 SBUF partitions at +0x100
		{"rows to partitions", neff.Desc{From: "big", To: "SB", FromSizes: []int64{512, 128}, FromSteps: []int64{1, 1024}, ToSizes: []int64{512, 128}, ToSteps: []int64{1, 0x40000}},
			[]word{{src: big, dst: 0, srcStep: [2]int64{1024, 0}, dstStep: [2]int64{0x40000, 0}, srcNum: [2]int64{128, 1}, dstNum: [2]int64{128, 1}, srcElem: 512, dstElem: 512, inT: 3, outT: 3, sem: 10, inc: 1}}},
		// a cast: 128 rows of 64 FP32 (256 B) into 128 rows of 64 FP16 (128 B)
		{"cast", neff.Desc{From: "big", To: "big", FromSizes: []int64{256, 128}, FromSteps: []int64{1, 256}, ToSizes: []int64{128, 128}, ToSteps: []int64{1, 128}, FromDtype: "float32", ToDtype: "float16"},
			// rows at their own pitch are one contiguous run each side: 8192 elements, one piece
			[]word{{src: big, dst: big, srcNum: [2]int64{1, 1}, dstNum: [2]int64{1, 1}, srcElem: 32768, dstElem: 16384, inT: 10, outT: 7, sem: 10, inc: 1}}},
		// three dims: 64-byte runs, 4 at pitch 128, 8 groups at pitch 1024 → one contiguous 2048-byte destination
		{"three dims", neff.Desc{From: "big", To: "big", FromSizes: []int64{64, 4, 8}, FromSteps: []int64{1, 128, 1024}, ToSizes: []int64{2048, 1}, ToSteps: []int64{1, 0}},
			[]word{{src: big, dst: big, srcStep: [2]int64{128, 1024}, dstStep: [2]int64{64, 256}, srcNum: [2]int64{4, 8}, dstNum: [2]int64{4, 8}, srcElem: 64, dstElem: 64, inT: 3, outT: 3, sem: 10, inc: 1}}},
		// the same with pitch 64: the 4 runs touch, so each group is one 256-byte run
		{"adjacent runs merge", neff.Desc{From: "big", To: "big", FromSizes: []int64{64, 4, 8}, FromSteps: []int64{1, 64, 1024}, ToSizes: []int64{2048, 1}, ToSteps: []int64{1, 0}},
			[]word{{src: big, dst: big, srcStep: [2]int64{1024, 0}, dstStep: [2]int64{256, 0}, srcNum: [2]int64{8, 1}, dstNum: [2]int64{8, 1}, srcElem: 256, dstElem: 256, inT: 3, outT: 3, sem: 10, inc: 1}}},
		// in-flight add, 4-byte elements
		{"add", neff.Desc{From: "input", To: "output", FromSizes: []int64{128}, ToSizes: []int64{128}, Op: "add", FromDtype: "float32"},
			[]word{{src: in, dst: out, srcNum: [2]int64{1, 1}, dstNum: [2]int64{1, 1}, srcElem: 128, dstElem: 128, inT: 10, outT: 10, sem: 10, inc: 1, compute: 1}}},
		// a gather: two partial sources, 64 bytes each, concatenated into output
		{"from_arr", neff.Desc{To: "output", ToSizes: []int64{128, 1}, ToSteps: []int64{1, 0}, FromArr: []neff.Desc{
			{From: "input", FromSizes: []int64{64}}, {From: "big", FromSizes: []int64{64, 1}, FromSteps: []int64{1, 0}}}},
			// two 64-byte pieces, src 0x180 apart, dst 64 apart: one word of num 2
			[]word{{src: in, dst: out, srcStep: [2]int64{0x180, 0}, dstStep: [2]int64{64, 0}, srcNum: [2]int64{2, 1}, dstNum: [2]int64{2, 1}, srcElem: 64, dstElem: 64, inT: 3, outT: 3, sem: 10, inc: 1}}},
		// a 128 KiB run: two 64 KiB pieces (elem_size 0 = 64 KiB), folded into one word of num 2
		{"64 KiB pieces", neff.Desc{From: "big", To: "big", FromSizes: []int64{1 << 17}, ToSizes: []int64{1 << 16, 2}, ToSteps: []int64{1, 1 << 16}},
			[]word{{src: big, dst: big, srcStep: [2]int64{1 << 16, 0}, dstStep: [2]int64{1 << 16, 0}, srcNum: [2]int64{2, 1}, dstNum: [2]int64{2, 1}, srcElem: 0, dstElem: 0, inT: 3, outT: 3, sem: 10, inc: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := 0
			p := styleA()
			if tc.desc.To != "" {
				p, id = styleA(tc.desc), 1
			}
			sg, en, place := open(t, p)
			f, err := device.Fire(isa.Cayman, sg, en, trigger(t, "q_gradient_in", id), place)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Words) != len(tc.want) {
				t.Fatalf("%d words, want %d", len(f.Words), len(tc.want))
			}
			for i := range f.Words {
				if g := got(&f.Words[i]); g != tc.want[i] {
					t.Errorf("word %d\n got %+v\nwant %+v", i, g, tc.want[i])
				}
			}
		})
	}
}

// The trigger's events move onto the first word; a queue instance name picks
// its semaphore from the set.
func TestFireEventsAndInstances(t *testing.T) {
	p := styleA()
	p.Subgraphs[0].Engines = append(p.Subgraphs[0].Engines, neffgen.Engine{Key: "sp", Manifest: "sp.json", Instr: "sp.bin", Asm: "", DMA: []neffgen.Block{
		{Queue: "q_spare_defId_2", ID: 7, Desc: []neff.Desc{{From: "input", To: "output", FromSizes: []int64{128}, ToSizes: []int64{128}}}}}})
	sg, _, place := open(t, p)
	d := isa.NewDecoder(isa.Cayman, sg.Engines[0].Code)
	d.Next()
	d.Next() // the gated q_gradient_out trigger
	f, err := device.Fire(isa.Cayman, sg, &sg.Engines[0], d.Inst(), place)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := f.Words[0].Uint("events.wait_mode"); m != 4 { // WAIT_FOR_SEM_GT_IMM
		t.Errorf("wait_mode %d", m)
	}
	if idx, _ := f.Words[0].Uint("events.wait_idx"); idx != 10 || f.Semaphore != 11 {
		t.Errorf("wait_idx %d, semaphore %d", idx, f.Semaphore)
	}
	f, err = device.Fire(isa.Cayman, sg, &sg.Engines[1], trigger(t, "q_spare_defId_2", 7), place)
	if err != nil || f.Semaphore != 42 || f.Instance != 2 {
		t.Fatalf("instance: %v %+v", err, f)
	}
}

// Every way a trigger or a block fails is a located error.
func TestFireRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		desc  *neff.Desc
		queue string
		id    int
		want  string
	}{
		{"unknown queue", nil, "q_nowhere", 0, `queue "q_nowhere" is not in sg00/def.json dma_queue`},
		{"other owner", nil, "q_spare", 0, "queue q_spare is owned by sp, triggered from pool"},
		{"no block", nil, "q_gradient_in", 9, `no dma[] block with queue "q_gradient_in" and id 9 in sg00/pool.json`},
		{"instance past the set", nil, "q_gradient_in_defId_1", 0, "queue instance q_gradient_in_defId_1: q_gradient_in has 0 semaphores in its semaphore_set, no instance 1"},
		{"unknown var", &neff.Desc{From: "nope", To: "output", FromSizes: []int64{4}, ToSizes: []int64{4}}, "q_gradient_in", 1, `sg00/pool.json dma[2] (queue q_gradient_in, id 1) desc[0]: from "nope" is not a def.json variable`},
		{"past the var", &neff.Desc{From: "input", To: "output", FromSizes: []int64{64, 2}, FromSteps: []int64{1, 100}, ToSizes: []int64{128}}, "q_gradient_in", 1, `from: bytes 100..164 are outside "input" (128 bytes)`},
		{"byte counts", &neff.Desc{From: "input", To: "output", FromSizes: []int64{128}, ToSizes: []int64{64}}, "q_gradient_in", 1, "from moves 128 elements (128 bytes), to takes 64 (64 bytes)"},
		{"fma", &neff.Desc{From: "input", To: "output", FromSizes: []int64{128}, ToSizes: []int64{128}, Op: "fma"}, "q_gradient_in", 1, `op "fma" is not modelled`},
		{"dtype", &neff.Desc{From: "input", To: "output", FromSizes: []int64{128}, ToSizes: []int64{128}, FromDtype: "complex64"}, "q_gradient_in", 1, `dtype "complex64"`},
		{"steps", &neff.Desc{From: "input", To: "output", FromSizes: []int64{64, 2}, ToSizes: []int64{128}}, "q_gradient_in", 1, "from_steps has 0 entries for 2 sizes"},
		{"huge", &neff.Desc{From: "input", To: "output", FromSizes: []int64{1, 1 << 20, 1 << 20}, FromSteps: []int64{1, 0, 0}, ToSizes: []int64{128}}, "q_gradient_in", 1, "walks more than"},
		{"ragged", &neff.Desc{From: "big", To: "big", FromSizes: []int64{3, 20000}, FromSteps: []int64{1, 5}, ToSizes: []int64{2, 30000}, ToSteps: []int64{1, 4}}, "q_gradient_in", 1, "needs more than 16384 DMA_DIRECT2D words"},
		{"zero-size var", &neff.Desc{From: "input", To: "scratch", FromSizes: []int64{128}, ToSizes: []int64{128}}, "q_gradient_in", 1, `to: bytes 0..128 are outside "scratch" (0 bytes)`},
		{"SBUF partition", &neff.Desc{From: "input", To: "SB", FromSizes: []int64{128}, ToSizes: []int64{1, 128}, ToSteps: []int64{1, 1 << 20}}, "q_gradient_in", 1, `to: bytes 33554432..33554433 of "SB" (NEFF SB partition 128, offset 0) are not inside one SBUF partition's 229376 bytes`},
		{"elements", &neff.Desc{From: "input", To: "output", FromSizes: []int64{6}, ToSizes: []int64{6}, FromDtype: "float32"}, "q_gradient_in", 1, "from_sizes[0] = 6 bytes is not a whole number of 4-byte elements"},
	} {
		p := styleA()
		if tc.desc != nil {
			p = styleA(*tc.desc)
		}
		sg, en, place := open(t, p)
		_, err := device.Fire(isa.Cayman, sg, en, trigger(t, tc.queue, tc.id), place)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if tc.desc == nil && !errors.Is(err, neff.ErrTrigger) {
			t.Errorf("%s: not ErrTrigger", tc.name)
		}
	}
}

// The container dialects the generator writes all read back with the same
// blocks (ustar and GNU, MD5 in both orders, padded and raw).
func TestStyleADialects(t *testing.T) {
	for _, w := range []neff.WriteOptions{
		{Format: tar.FormatUSTAR, Hash: "md5"},
		{Format: tar.FormatGNU, Hash: "md5 (4-byte words reversed)", Pad: 100},
		{Format: tar.FormatPAX, Raw: true, Hash: "sha256", PkgVersion: 1},
	} {
		p := styleA()
		p.Write = w
		sg, en, _ := open(t, p)
		if len(en.Blocks) != 2 || en.Blocks[1].Queue != "q_gradient_out" || en.Blocks[1].Where != "sg00/pool.json dma[1]" || len(sg.Engines) != 1 {
			t.Errorf("%+v: blocks %+v", w, en.Blocks)
		}
	}
}
