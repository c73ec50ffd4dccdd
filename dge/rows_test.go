package dge

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"ndma/isa"
)

// lowerWord lowers the first word of src.
func lowerWord(t *testing.T, gen isa.Gen, src string, opt Options) *Program {
	t.Helper()
	insts := assemble(t, src)
	p, err := Lower(&insts[0], gen, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return p
}

func generates(p *Program) []Op {
	var g []Op
	for _, ch := range p.Channels {
		for _, op := range ch.Ops {
			if op.Kind == Generate {
				g = append(g, op)
			}
		}
	}
	return g
}

// 003 §3.1: "GENERATE emits exactly one descriptor. For an indirect gather it
// is called once per gathered row (the per-row address is the index-driven
// address-gen result)". 000 §8e: "for (int c = 0; …) { uint32_t row = idx[c];
// … uint64_t src_row = resolve(i->src_start_addr) + (uint64_t)row *
// i->src_step_elem[1]; … dge_generate(/*buf=*/src_row, /*elem=*/i->elem_size,
// i->semaphore);". 003 §4: "(3) DIMPUSH × Ndim ONE per tensor dim …
// (Pool=2, software=4, RTL=5+2)".
func TestOneGeneratePerGatheredRow(t *testing.T) {
	const hbm0 = 0x1_0000_0000 // hbm:0x0 as a SoC address (field-tables §11.2)
	idx := make([]uint32, 64)
	for j := range idx {
		idx[j] = uint32(j*37+5) % 128 // scrambled, every row a different place
	}
	index := func(_, j int) (uint32, error) { return idx[j], nil }

	t.Run("DMA_INDIRECT gather of 64 indices", func(t *testing.T) {
		p := lowerWord(t, isa.MarianaPlus, `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC,
  idx_bound_is_err=1, src_start_addr=hbm:0x0, src_step_elem=512, src_num_elem=128, src_elem_size=512,
  dst_start_addr=sbuf:0:0x0, dst_step_elem=512, dst_num_elem=64, dst_elem_size=512, src_idx_start_addr=sbuf:0:0x2000,
  in_dtype=fp16, out_dtype=fp16`, Options{Index: index})
		g := generates(p)
		if len(g) != 64 {
			t.Fatalf("%d GENERATEs, want one per index (64)", len(g))
		}
		for j, op := range g {
			if want := uint64(hbm0 + 512*int(idx[j])); op.Addr != want || op.ElemSize != 512 || op.Dir != RD || int(op.Row) != j {
				t.Errorf("row %d: GENERATE %s addr %#x elem_size %d (row %d), want RD %#x elem_size 512", j, op.Dir, op.Addr, op.ElemSize, op.Row, want)
			}
		}
		dump := string(p.AppendDump(nil))
		if n := strings.Count(dump, "push GENERATE to DMA[0]: RD : "); n != 64 {
			t.Errorf("dump has %d GENERATE lines, want 64", n)
		}
		if n := strings.Count(dump, "push DIMPUSH to DMA[0]: "); n != 4*64 {
			t.Errorf("dump has %d DIMPUSH lines, want 4 per row (software = 4 dims)", n)
		}
		if p.IndicesAssumed {
			t.Error("indices given, recorded as assumed")
		}
	})
	t.Run("DMA_INDIRECT scatter: the row is the written element", func(t *testing.T) {
		p := lowerWord(t, isa.Cayman, `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=DST,
  non_unique_dst_idx=1, src_start_addr=sbuf:0:0x0, src_step_elem=64, src_num_elem=64, src_elem_size=64,
  dst_start_addr=hbm:0x1000, dst_step_elem=64, dst_num_elem=128, dst_elem_size=64, dst_idx_start_addr=sbuf:0:0x2000,
  in_dtype=fp16, out_dtype=fp16`, Options{Index: index})
		g := generates(p)
		if len(g) != 64 {
			t.Fatalf("%d GENERATEs, want 64", len(g))
		}
		for j, op := range g {
			if want := uint64(hbm0 + 0x1000 + 64*int(idx[j])); op.Addr != want || op.Dir != WR || op.ElemSize != 64 {
				t.Errorf("lane %d: GENERATE %s %#x elem_size %d, want WR %#x elem_size 64", j, op.Dir, op.Addr, op.ElemSize, want)
			}
		}
	})
	t.Run("DMA_GATHER_TRANSPOSE of 256-byte rows", func(t *testing.T) {
		p := lowerWord(t, isa.Cayman, `dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x10000,
  src_step_elem=[2, 256], src_num_elem=[128, 64], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=128, dst_num_elem=[64, 128], elem_size=256, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16, gather_dim=Y`, Options{Index: index})
		g := generates(p)
		if len(g) != 64 {
			t.Fatalf("%d GENERATEs, want one per gathered row (64)", len(g))
		}
		for j, op := range g {
			if want := uint64(hbm0 + 0x10000 + 256*int(idx[j])); op.Addr != want || op.ElemSize != 256 {
				t.Errorf("row %d: GENERATE addr %#x elem_size %d, want %#x elem_size = i->elem_size = 256", j, op.Addr, op.ElemSize, want)
			}
		}
		// each row's walk: 128 elements, src step 1 element, dst step dst_step_elem_1 = 128 bytes = 64 elements
		if !strings.Contains(string(p.AppendDump(nil)), "elem_size=256, sem_num=6\npush DIMPUSH to DMA[0]: [128,128][1,64]\n") {
			t.Errorf("row DIMPUSH:\n%s", p.AppendDump(nil))
		}
	})
	t.Run("an index past its bound gets no GENERATE", func(t *testing.T) {
		p := lowerWord(t, isa.Cayman, `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC,
  src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=100, src_elem_size=4,
  dst_start_addr=sbuf:0:0x0, dst_step_elem=4, dst_num_elem=64, dst_elem_size=4, src_idx_start_addr=sbuf:0:0x2000,
  in_dtype=fp32, out_dtype=fp32`, Options{Index: index})
		var past []int
		for j, v := range idx {
			if v >= 100 {
				past = append(past, j)
			}
		}
		if len(generates(p)) != 64-len(past) || fmt.Sprint(p.Skipped) != fmt.Sprint(past) {
			t.Errorf("%d GENERATEs, skipped %v; want %d, %v", len(generates(p)), p.Skipped, 64-len(past), past)
		}
		if !strings.Contains(string(p.AppendDump(nil)), fmt.Sprintf("\n# %d rows without a GENERATE", len(past))) {
			t.Errorf("no '#' line for the skipped rows:\n%s", p.AppendDump(nil))
		}
	})
	t.Run("no memory: the identity, recorded as assumed", func(t *testing.T) {
		p := lowerWord(t, isa.Cayman, `dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x0,
  src_step_elem=[2, 256], src_num_elem=[128, 16], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=32, dst_num_elem=[16, 4], elem_size=8, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`, Options{})
		if !p.IndicesAssumed || len(p.Indices[0]) != 16 || p.Indices[0][15] != 15 || p.Indices[1] != nil {
			t.Errorf("assumed %v, indices %v", p.IndicesAssumed, p.Indices)
		}
		for j, op := range generates(p) {
			if op.Addr != uint64(hbm0+256*j) {
				t.Errorf("row %d at %#x", j, op.Addr)
			}
		}
	})
}

// 003 §5.2: "The Q7 SW-DGE descriptor-generation loop walks the index
// explicitly: Descriptor generation loop index: [%d, %d, %d, %d, %d] (a 5-D
// counted nest, §5.5)". On the software backend each GENERATE follows its
// loop line; the row sits at the word's indirection dimension (INFERRED).
func TestLoopIndexLine(t *testing.T) {
	loop := regexp.MustCompile(`^Descriptor generation loop index: \[(-?\d+), (-?\d+), (-?\d+), (-?\d+), (-?\d+)\]$`)
	p := lowerWord(t, isa.MarianaPlus, `dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x0,
  src_step_elem=[2, 256], src_num_elem=[128, 32], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=64, dst_num_elem=[32, 4], elem_size=8, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`, Options{})
	lines := strings.Split(string(p.AppendDump(nil)), "\n")
	row := 0
	for i, l := range lines {
		if !strings.HasPrefix(l, "push GENERATE") {
			continue
		}
		m := loop.FindStringSubmatch(lines[i-1])
		if m == nil {
			t.Fatalf("GENERATE %d not after a loop line: %q", row, lines[i-1])
		}
		if want := []string{"0", fmt.Sprint(row), "0", "0", "0"}; fmt.Sprint(m[1:]) != fmt.Sprint(want) { // gather_dim = Y = 1
			t.Errorf("row %d: loop index %v, want %v", row, m[1:], want)
		}
		row++
	}
	if row != 32 {
		t.Errorf("%d rows, want 32", row)
	}
	pool := lowerWord(t, isa.MarianaPlus, `dmamemcpy semaphore=10, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[4, 512],
  src_num_elem=[128, 1], src_elem_size=4, dst_start_addr=sbuf:0:0x0, dst_step_elem=[4, 512], dst_num_elem=[128, 1],
  dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`, Options{})
	if strings.Contains(string(pool.AppendDump(nil)), "Descriptor generation loop") {
		t.Error("the Pool backend prints the Q7 SW-DGE loop line")
	}
}

// copy128 is a 128-partition SBUF copy: it fans out over 16 channels.
const copy128 = `dmamemcpy semaphore=1, sem_increment=16, src_start_addr=sbuf:0:0x0, src_step_elem=[4, 0x40000], src_num_elem=[64, 128],
  src_elem_size=4, dst_start_addr=sbuf:0:0x1000, dst_step_elem=[4, 0x40000], dst_num_elem=[64, 128], dst_elem_size=4,
  in_dtype=FP32, out_dtype=FP32`

// 003 §8: "setup: "DGE contexts … init sw=0 engine=E queue_idx=Q …"" on the
// Pool backend; §7.2: "DGE setup binds the (tx,rx) context for
// q_gradient_in (the "DGE contexts … init" string)"; field-tables §8.2:
// software is "context sw=1". One line per channel, its own engine.
func TestContextsLine(t *testing.T) {
	ctx := regexp.MustCompile(`(?m)^S: DGE contexts 0x([0-9a-f]+)/0x([0-9a-f]+) init sw=(\d+) engine=(\d+) queue_idx=(\d+) queue_num=(\d+)$`)
	for _, tc := range []struct {
		b  Backend
		sw string
	}{{Pool, "0"}, {Software, "1"}} {
		p := lowerWord(t, isa.Cayman, copy128, Options{Backend: tc.b})
		rings := make([]Ring, len(p.Channels))
		for c := range rings {
			rings[c] = Ring{Queue: 3, Tx: 0x1000 * uint64(c), Rx: 0x1000*uint64(c) + 0x800}
		}
		dump := string(p.AppendTrace(nil, rings))
		ms := ctx.FindAllStringSubmatch(dump, -1)
		if len(p.Channels) != 16 || len(ms) != 16 {
			t.Fatalf("%s: %d channels, %d contexts lines, want 16 each", tc.b, len(p.Channels), len(ms))
		}
		for c, m := range ms {
			if m[3] != tc.sw || m[4] != fmt.Sprint(c) || m[5] != "3" || m[6] != "16" {
				t.Errorf("%s channel %d: %q", tc.b, c, m[0])
			}
			if want := fmt.Sprintf("%s\nS: rx.base=0x%x, tx.base=0x%x\n", m[0], rings[c].Rx, rings[c].Tx); !strings.Contains(dump, want) {
				t.Errorf("%s channel %d: no ring line after the contexts line", tc.b, c)
			}
		}
	}
	if rtl := lowerWord(t, isa.Cayman, copy128, Options{Backend: RTL}); ctx.MatchString(string(rtl.AppendDump(nil))) {
		t.Error("RTL: a contexts line the documents do not show on that path")
	}
}

// The §8 transpose is single-partition, and still analysed: 003 §5.2
// "Per tensor: count, target stride in partitions (%dP), base, a strategy +
// kind, partition range/count; then the pair assess resolves the FINAL
// Reshape Kind + the #DMA fan-out", in field-tables §8.1's order "decode →
// analyze_tensor_reshape per tensor → pair assessment (final Reshape Kind +
// #DMA) → backend select → per channel DMA[d]: [REGWRITE]* + one GENERATE".
func TestReshapeLinesEveryLeg(t *testing.T) {
	p := lowerWord(t, isa.MarianaPlus, `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16,
  src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256], src_num_elem=[128, 64], tile_src_row_step=256,
  tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 128], dst_num_elem=[64, 128]`, Options{})
	dump := string(p.AppendDump(nil))
	analyzed := regexp.MustCompile(`(?m)^S: DGE Reshape: Analyzed tensor \(nelem_target = (\d+), step_target = 0x([0-9A-F]+) \((-?\d+)P\), base = 0x([0-9A-F]+) \((-?\d+)P\)\): Reshape Strategy = (-?\d+), Requested Reshape Kind = (-?\d+), Partition Range = (-?\d+), Num Partitions = (-?\d+)$`)
	ms := analyzed.FindAllStringSubmatch(dump, -1)
	if len(ms) != 2 {
		t.Fatalf("%d Analyzed lines, want one per leg:\n%s", len(ms), dump)
	}
	// src: 64 rows of 256 bytes, dst: 128 rows of 128 bytes, in partition 0; base 0x0 / 0x8000
	for k, want := range [][]string{{"64", "100", "0", "0", "0"}, {"128", "80", "0", "8000", "0"}} {
		if fmt.Sprint(ms[k][1:6]) != fmt.Sprint(want) || ms[k][7] != "1" || ms[k][8] != "1" || ms[k][9] != "1" {
			t.Errorf("leg %d: %q", k, ms[k][0])
		}
	}
	order := []string{"S: DGE Reshape: Analyzed tensor", "S: DGE Reshape: Assessed tensor pair params (Requested Reshape Kind = 1, Min Num Partitions = 1, #DMA Avail = 16): Reshape Kind = 1, #DMA = 1\n",
		"S: DGE: Select backend Pool\n", "push GENERATE"}
	at := 0
	for _, s := range order {
		i := strings.Index(dump[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order:\n%s", s, dump)
		}
		at += i
	}
}

// 003 §3.4: "software carries indirection_dim / reshape_kind"; §5.2: "the
// pair assess resolves the FINAL Reshape Kind"; "A transpose is realized as
// a permutation of the step_elem[] / num_elem[] arrays". The software dump's
// reshape_kind is that final kind (ndma's numbers, INFERRED: 0 none, 1
// transpose, 2 split over DMAs), the same as the Assessed line's.
func TestReshapeKindFromWord(t *testing.T) {
	final := regexp.MustCompile(`Reshape Kind = (\d+), #DMA = \d+\n`)
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"transpose", `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, 64], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x8000,
  dst_step_elem=[2, 128], dst_num_elem=[64, 128]`, ReshapeTranspose},
		{"gather transpose", `dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x0,
  src_step_elem=[2, 256], src_num_elem=[128, 16], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=32, dst_num_elem=[16, 4], elem_size=8, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`, ReshapeTranspose},
		{"indirect", `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC, src_start_addr=hbm:0x0,
  src_step_elem=4, src_num_elem=64, src_elem_size=4, dst_start_addr=sbuf:0:0x0, dst_step_elem=4, dst_num_elem=16, dst_elem_size=4,
  src_idx_start_addr=sbuf:0:0x2000, in_dtype=fp32, out_dtype=fp32`, ReshapeNone},
		{"128-partition copy", copy128, ReshapeSplit},
	} {
		p := lowerWord(t, isa.Cayman, tc.src, Options{Backend: Software})
		dump := string(p.AppendDump(nil))
		if !strings.Contains(dump, fmt.Sprintf(", reshape_kind=0x%x\n", tc.want)) {
			t.Errorf("%s: software dump lacks reshape_kind=0x%x:\n%s", tc.name, tc.want, dump)
		}
		if m := final.FindStringSubmatch(dump); m == nil || m[1] != fmt.Sprint(tc.want) {
			t.Errorf("%s: Assessed line's kind %v, want %d", tc.name, m, tc.want)
		}
	}
}

// Only the software backend builds the per-row program: 000 §8e "nc>=V3; 2B
// dtype; SW-DGE backend."; 003 §8 "run the Q7 SW-DGE §5.5 pipeline
// (make_gather_pattern / Batman / per-index GENERATE)"; field-tables §8.2
// lists indirection_dim among the software backend's features only ("RTL …
// pure transport").
func TestPerRowOnlyOnSoftware(t *testing.T) {
	const gather = `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC, src_start_addr=hbm:0x0,
  src_step_elem=4, src_num_elem=64, src_elem_size=4, dst_start_addr=sbuf:0:0x0, dst_step_elem=4, dst_num_elem=16, dst_elem_size=4,
  src_idx_start_addr=sbuf:0:0x2000, in_dtype=fp32, out_dtype=fp32`
	insts := assemble(t, gather)
	for _, b := range []Backend{Pool, RTL} {
		if _, err := Lower(&insts[0], isa.Cayman, Options{Backend: b}); err == nil || !strings.Contains(err.Error(), "has no indirection") {
			t.Errorf("%s lowers an indexed word: %v", b, err)
		}
	}
	if p := lowerWord(t, isa.Cayman, gather, Options{}); p.Backend != Software || len(generates(p)) != 16 {
		t.Errorf("auto: backend %s, %d GENERATEs", p.Backend, len(generates(p)))
	}
}
