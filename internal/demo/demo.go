// Package demo is `ndma demo`: the source documents' worked examples built
// for a generation, printed, round-tripped, validated, lowered, run on ref
// and the engines and checked against a direct computation, and a NEFF end
// to end — a guided tour of the library that fails if any step disagrees.
package demo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"

	"ndma"
	"ndma/asm"
	"ndma/check"
	"ndma/device"
	"ndma/dge"
	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/mem"
	"ndma/neff"
	"ndma/ref"
	"ndma/sdma"
	"ndma/sim"
)

// demoWord is one word the demo builds: the fields it sets, by spec path.
type demoWord struct {
	title  string
	op     isa.Opcode
	fields []demoField
}

type demoField struct {
	path string
	v    int64
}

type demoExample struct {
	title, source string
	words         []demoWord
}

// demoExamples are the two worked examples of the source documents: the
// C08220 memcpy (003 §7.2, field-tables §9.2) and the 64×128 BF16 transpose
// (003 §8, field-tables §9.3), each as the compiler's 0xd4 pseudo word and its
// resolved form. Steps are byte strides (field-tables §11.3). The resolved
// addresses are the demo's placement (input at hbm:0, gradient_in at
// sbuf:0:0; the transpose in SBUF partition 0): relocation itself arrives
// with the lowering.
func demoExamples() []demoExample {
	memcpyBody := func(src, dst int64) []demoField {
		return []demoField{
			{"semaphore", 10}, {"sem_increment", 1},
			{"src_start_addr", src}, {"src_step_elem[0]", 4}, {"src_step_elem[1]", 512},
			{"src_num_elem[0]", 128}, {"src_num_elem[1]", 1}, {"src_elem_size", 4},
			{"dst_start_addr", dst}, {"dst_step_elem[0]", 4}, {"dst_step_elem[1]", 512},
			{"dst_num_elem[0]", 128}, {"dst_num_elem[1]", 1}, {"dst_elem_size", 4},
			{"in_dtype", 0x0A}, {"out_dtype", 0x0A}, // FP32
		}
	}
	const hbm0 = 0x1_0000_0000 // hbm:0 (field-tables §11.2)
	xposeCommon := []demoField{
		{"src_step_elem[0]", 2}, {"src_step_elem[1]", 256}, {"src_num_elem[0]", 128}, {"src_num_elem[1]", 64},
		{"dst_step_elem[0]", 2}, {"dst_step_elem[1]", 128}, {"dst_num_elem[0]", 64}, {"dst_num_elem[1]", 128},
		{"in_dtype", 0x06}, {"out_dtype", 0x06}, // BFLOAT16
	}
	return []demoExample{
		{
			title:  "C08220 memcpy: q_gradient_in, input -> gradient_in, 128 x FP32",
			source: "docs/sources.md: source document 003 §7.2; docs/field-tables.md §9.2",
			words: []demoWord{
				{"compiler form: PSEUDO_DMA_DIRECT2D, dge_op = DMA_DIRECT2D, addresses are NEFF variables (input = var 0, gradient_in = var 1)",
					isa.OpPseudoDMADirect2D, append(memcpyBody(int64(isa.VarAddr8(0, 0)), int64(isa.VarAddr8(1, 0))), demoField{"dge_op", 0})},
				{"resolved: DMAMEMCPY (DMA_DIRECT2D), input at hbm:0x0, gradient_in at sbuf:0:0x0",
					isa.OpDMAMemcpy, append(memcpyBody(hbm0, 0), demoField{"compute_op", 0})},
			},
		},
		{
			title:  "64 x 128 BF16 transpose in SBUF: dst[c][r] = src[r][c]",
			source: "docs/sources.md: source document 003 §8; docs/field-tables.md §9.3",
			words: []demoWord{
				{"compiler form: PSEUDO_DMA_DIRECT2D, dge_op = DMA_TRANSPOSE, src = SB var 0 + 0x0, dst = SB var 0 + 0x8000",
					isa.OpPseudoDMADirect2D, append([]demoField{
						{"dge_op", 2}, {"semaphore", 3}, {"sem_increment", 1}, {"src_elem_size", 2}, {"dst_elem_size", 2},
						{"src_start_addr", int64(isa.VarAddr8(0, 0))}, {"dst_start_addr", int64(isa.VarAddr8(0, 0x8000))},
					}, xposeCommon...)},
				{"resolved: DMA_TRANSPOSE (DMA_DIRECT2D_XPOSE), tiles of 16 rows x 128 columns, dst at sbuf:0:0x8000",
					isa.OpDMATranspose, append([]demoField{
						{"semaphore", 3}, {"src_start_addr", 0}, {"dst_start_addr", 0x8000},
						{"tile_src_rows", 16}, {"tile_src_cols", 128}, {"tile_src_row_step", 256},
					}, xposeCommon...)},
			},
		},
	}
}

// Run writes the tour for generation gen to w; an error is a step that
// did not hold.
func Run(w io.Writer, gen isa.Gen) error {
	fmt.Fprintf(w, "ndma demo — the worked examples of the source documents, built for %s (%s)\n", gen, gen.Version())
	for i, ex := range demoExamples() {
		fmt.Fprintf(w, "\n=== %d. %s\n    (%s)\n", i+1, ex.title, ex.source)
		for _, dw := range ex.words {
			if err := demoOne(w, gen, dw); err != nil {
				return err
			}
		}
	}
	for _, step := range []func(io.Writer, isa.Gen) error{demoText, demoValidate, demoLower, demoRun, demoNEFF} {
		if err := step(w, gen); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nevery word: decode(encode(x)) == x and ParseJSON(JSON(x)) == x; asm(disasm(w)) == w.")
	return nil
}

// demoText assembles the hand-written transpose example and disassembles it
// back: the text round trip of docs/asm.md.
func demoText(w io.Writer, _ isa.Gen) error {
	const name = "examples/transpose.s"
	src, err := ndma.Examples.ReadFile(name)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n=== 3. text: %s, assembled and disassembled\n", name)
	var body []string
	for _, l := range strings.Split(string(src), "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			body = append(body, l)
		}
	}
	fmt.Fprintf(w, "--- the source (comments left out):\n%s\n", strings.Join(body, "\n"))
	obj, err := asm.Assemble(name, src, asm.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "--- assembled:")
	for row := 0; row < len(obj.Code); row += 16 {
		fmt.Fprintf(w, "  %02x: % x\n", row, obj.Code[row:row+16])
	}
	text, err := asm.Disassemble(obj.Gen, obj.Code)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "--- disassembled (canonical):\n%s", text)
	again, err := asm.Assemble("canonical.s", text, asm.Options{})
	if err != nil || !bytes.Equal(again.Code, obj.Code) {
		return fmt.Errorf("%s: asm(disasm(w)) != w: %v", name, err)
	}
	fmt.Fprintln(w, "  round trip: asm(disasm(w)) == w ✓")
	return nil
}

// buildDemoWord sets a demo word's fields on a fresh instruction.
func buildDemoWord(gen isa.Gen, dw demoWord) (isa.Inst, error) {
	in := isa.New(gen, dw.op)
	for _, f := range dw.fields {
		var err error
		if f.path == "src_start_addr" || f.path == "dst_start_addr" {
			err = in.SetUint(f.path, uint64(f.v))
		} else {
			err = in.Set(f.path, f.v)
		}
		if err != nil {
			return in, fmt.Errorf("building %s: %w", dw.title, err)
		}
	}
	return in, nil
}

func demoOne(w io.Writer, gen isa.Gen, dw demoWord) error {
	in, err := buildDemoWord(gen, dw)
	if err != nil {
		return err
	}
	word, err := isa.Encode(in)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n--- %s\n", dw.title)
	for row := 0; row < isa.WordSize; row += 16 {
		fmt.Fprintf(w, "  %02x: % x\n", row, word[row:row+16])
	}
	back, err := isa.Decode(gen, word[:])
	if err != nil {
		return fmt.Errorf("decoding what we encoded: %w", err)
	}
	if !back.Equal(&in) {
		return fmt.Errorf("%s: decode(encode(x)) != x", dw.title)
	}
	again, err := isa.Encode(back)
	if err != nil || !bytes.Equal(again[:], word[:]) {
		return fmt.Errorf("%s: encode(decode(w)) != w", dw.title)
	}
	viaJSON, err := isa.ParseJSON(gen, back.AppendJSON(nil, 0))
	if err != nil || !viaJSON.Equal(&in) {
		return fmt.Errorf("%s: ParseJSON(JSON(x)) != x: %v", dw.title, err)
	}
	fmt.Fprintln(w, "  field map (non-zero fields):")
	if err := back.FieldMap(w, true); err != nil {
		return err
	}
	fmt.Fprintf(w, "  round trip: decode(encode(x)) == x, encode(decode(w)) == w, JSON exact ✓\n")
	return nil
}

// demoValidate checks the resolved words on the generation, and shows what a
// broken one looks like.
func demoValidate(w io.Writer, gen isa.Gen) error {
	fmt.Fprintf(w, "\n=== 4. validation on %s (docs/validate.md)\n", gen)
	for _, ex := range demoExamples() {
		for _, dw := range ex.words {
			in, err := buildDemoWord(gen, dw)
			if err != nil {
				return err
			}
			ps := check.Validate(&in, gen)
			status := "valid"
			if n := check.Errors(ps); n > 0 {
				status = fmt.Sprintf("%d errors", n)
			} else if len(ps) > 0 {
				status = fmt.Sprintf("valid, %d warnings", len(ps))
			}
			fmt.Fprintf(w, "  %-20s %s\n", in.Def().Mnemonic(), status)
			for _, p := range ps {
				fmt.Fprintf(w, "      %s\n", p)
			}
		}
	}
	bad, err := buildDemoWord(gen, demoExamples()[1].words[1])
	if err != nil {
		return err
	}
	bad.MustSet("tile_src_rows", 8)
	fmt.Fprintln(w, "  the transpose with tile_src_rows = 8:")
	for _, p := range check.Validate(&bad, gen) {
		fmt.Fprintf(w, "      %s\n", p)
	}
	return nil
}

// demoLower relocates the two pseudo words with the demo's placement and
// lowers them: the GENERATE/DIMPUSH values of source document 003 §7.2 and
// §8, then the descriptors.
func demoLower(w io.Writer, gen isa.Gen) error {
	fmt.Fprintf(w, "\n=== 5. lowering on %s (docs/lower.md)\n", gen)
	placements := []*dge.Vars{
		{Base: map[uint16]uint64{0: 0x1_0000_0000, 1: 0}}, // input at hbm:0x0, gradient_in at sbuf:0:0x0
		{Base: map[uint16]uint64{0: 0}},                   // the SBUF variable at partition 0
	}
	for k, ex := range demoExamples() {
		in, err := buildDemoWord(gen, ex.words[0])
		if err != nil {
			return err
		}
		r, err := dge.Relocate(&in, placements[k])
		if err != nil {
			return err
		}
		if d := r.Def(); d.GensKnown && !d.Gens.Has(gen) {
			fmt.Fprintf(w, "--- %s\n  (skipped: %s does not exist on %s)\n", ex.title, d.Name, gen)
			continue
		}
		fmt.Fprintf(w, "--- %s\nresolved: %s", ex.title, asm.AppendInst(nil, &r))
		_, lw, err := sdma.Lower(&r, gen, dge.Options{}, sdma.Options{})
		if err != nil {
			return err
		}
		w.Write(lw.AppendTrace(nil))
		listing := strings.Split(strings.TrimSuffix(string(lw.AppendListing(nil)), "\n"), "\n")
		if len(listing) > 8 { // the head and the tail are enough to see the pattern
			listing = append(append(listing[:6:6], fmt.Sprintf("  … %d more lines", len(listing)-8)), listing[len(listing)-2:]...)
		}
		for _, l := range listing {
			fmt.Fprintln(w, l)
		}
	}
	return nil
}

// demoRun executes the transpose and a gather-transpose on generated data
// with the reference semantics, prints the corners before and after, and
// checks every element against a direct computation.
func demoRun(w io.Writer, gen isa.Gen) error {
	fmt.Fprintf(w, "\n=== 6. running on emulated memory (%s, ref and the descriptor engines)\n", gen)
	if d := isa.Lookup(isa.OpDMATranspose); d.GensKnown && !d.Gens.Has(gen) {
		fmt.Fprintf(w, "  (skipped: its words, DMA_TRANSPOSE and DMA_GATHER_TRANSPOSE, do not exist on %s)\n", gen)
		return nil
	}
	x := ref.New(gen)
	const rows, cols = 64, 128
	// each element's raw BF16 code is its (row, column) label, r·128 + c: unique, so
	// where every element lands can be read off the dst
	val := func(r, c int) uint16 { return uint16(r<<7 | c) }
	src := make([]byte, 2*rows*cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			binary.LittleEndian.PutUint16(src[2*(r*cols+c):], val(r, c))
		}
	}
	if err := x.Mem.Write(0, src); err != nil {
		return err
	}
	xpose, err := buildDemoWord(gen, demoExamples()[1].words[1])
	if err != nil {
		return err
	}
	if err := x.Exec(&xpose); err != nil {
		return err
	}
	at := func(addr uint64) uint16 {
		var b [2]byte
		x.Mem.Read(addr, b[:])
		return binary.LittleEndian.Uint16(b[:])
	}
	grid := func(title string, get func(i, j int) uint16) {
		fmt.Fprintf(w, "  %s\n", title)
		for i := 0; i < 3; i++ {
			fmt.Fprint(w, "   ")
			for j := 0; j < 4; j++ {
				v := get(i, j)
				fmt.Fprintf(w, "  src(%2d,%3d)", v>>7, v&127)
			}
			fmt.Fprintln(w, "  …")
		}
	}
	fmt.Fprintln(w, "--- DMA_TRANSPOSE of the 64 × 128 BF16 block (each element labelled by its src row, column)")
	grid("src rows 0..2, columns 0..3:", func(i, j int) uint16 { return at(uint64(2 * (i*cols + j))) })
	grid("dst rows 0..2, columns 0..3:", func(i, j int) uint16 { return at(0x8000 + uint64(2*(i*rows+j))) })
	bad := 0
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if at(0x8000+uint64(2*(c*rows+r))) != val(r, c) {
				bad++
			}
		}
	}
	fmt.Fprintf(w, "  check against dst[c][r] = src[r][c]: %d of %d elements differ\n", bad, rows*cols)
	if bad > 0 {
		return fmt.Errorf("demo transpose: %d elements differ", bad)
	}

	// gather-transpose: 16 rows of the block picked by UINT32 indices in SBUF
	// (index j at partition j mod 128, §11.5), each of its first 8 columns
	idx := []uint32{63, 0, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53}
	for j, v := range idx {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], v)
		if err := x.Mem.Write(uint64(j)*x.Mem.Map.SBUFStride+0x10000, b[:]); err != nil {
			return err
		}
	}
	g := isa.New(gen, isa.OpDMAGatherTranspose)
	for _, f := range []demoField{{"idx_num_active_channels", 128}, {"src_step_elem[0]", 2}, {"src_step_elem[1]", 2 * cols},
		{"src_num_elem[0]", cols}, {"src_num_elem[1]", 16}, {"dst_step_elem_1", 32}, {"dst_num_elem[0]", 16},
		{"dst_num_elem[1]", 8}, {"elem_size", 16}, {"dtype.dtype_lo", 0x06}, {"dtype.dtype_hi", 0x06}, {"flags.gather_dim", 1}, {"semaphore", 4}} {
		if err := g.Set(f.path, f.v); err != nil {
			return err
		}
	}
	g.SetUint("src_idx_start_addr", 0x10000)
	g.SetUint("dst_start_addr", isa.ImmAddr8(0xc000))
	if err := x.Exec(&g); err != nil {
		return err
	}
	fmt.Fprintf(w, "--- DMA_GATHER_TRANSPOSE: rows %v…, 8 columns each, transposed\n", idx[:4])
	grid("dst rows 0..2, columns 0..3:", func(i, j int) uint16 { return at(0xc000 + uint64(2*j+32*i)) })
	bad = 0
	for j, v := range idx {
		for k := 0; k < 8; k++ {
			if at(0xc000+uint64(2*j+32*k)) != val(int(v), k) {
				bad++
			}
		}
	}
	fmt.Fprintf(w, "  check against dst[k][j] = src[idx[j]][k]: %d of %d elements differ; $S[4] = %d\n", bad, 16*8, x.Mem.Sems[4])
	if bad > 0 {
		return fmt.Errorf("demo gather-transpose: %d elements differ", bad)
	}
	// the same two words the hardware's way: DGE lowering, descriptors, engines
	y := sim.New(gen)
	if err := y.Mem.Write(0, src); err != nil {
		return err
	}
	for j, v := range idx {
		if err := y.Mem.Write(uint64(j)*y.Mem.Map.SBUFStride+0x10000, binary.LittleEndian.AppendUint32(nil, v)); err != nil {
			return err
		}
	}
	for _, in := range []*isa.Inst{&xpose, &g} {
		if err := y.Exec(in); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "--- the same words through the DGE lowering and the descriptor engines (sim)\n")
	fmt.Fprintf(w, "  %d descriptors, %d bytes written, simulated DMA time %.2f µs\n", y.Stats.Descriptors, y.Stats.S2MBytes, float64(y.Stats.TimeNS)/1000)
	if d, ok := mem.FirstDifference(x.Mem, y.Mem, true); ok {
		return fmt.Errorf("demo: ref and sim differ: %s", d)
	}
	fmt.Fprintf(w, "  memory and semaphores identical to ref\n")
	return demoRows(w, gen, y, &g, idx)
}

// demoRows prints the per-row software program of the gather-transpose: its
// index values read from the engines' SBUF, one GENERATE per gathered row
// (003 §3.1; 000 §8e), each at src + idx[j]·src_step_elem[1], elem_size the
// word's (the row's 16 bytes) — and checks every row against the indices.
func demoRows(w io.Writer, gen isa.Gen, y *sim.Machine, g *isa.Inst, idx []uint32) error {
	index := func(_, j int) (uint32, error) { // index j at partition j mod 128, offset 0x10000 (§11.5)
		var b [4]byte
		err := y.Mem.Read(uint64(j%128)*y.Mem.Map.SBUFStride+0x10000+4*uint64(j/128), b[:])
		return binary.LittleEndian.Uint32(b[:]), err
	}
	p, lw, err := sdma.Lower(g, gen, dge.Options{}, sdma.Options{Index: index})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "--- its per-row software program (source document 003 §3.1, docs/sources.md: GENERATE \"is called once per gathered row\"), indices read from SBUF")
	lines := strings.Split(strings.TrimSuffix(string(lw.AppendTrace(nil)), "\n"), "\n")
	first := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Descriptor generation loop index") })
	last := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "S: DGE software backend") })
	perRow := 1 + 1 + p.Backend.Dims() // loop index, GENERATE, DIMPUSH × dims
	if first < 0 || last < first+3*perRow {
		return fmt.Errorf("demo gather: no per-row program:\n%s", strings.Join(lines, "\n"))
	}
	shown := append(append(lines[:first+2*perRow:first+2*perRow], fmt.Sprintf("  … %d more rows", (last-first)/perRow-3)), lines[last-perRow:]...)
	for _, l := range shown {
		fmt.Fprintln(w, l)
	}
	rows := 0
	for _, op := range p.Channels[0].Ops {
		if op.Kind != dge.Generate {
			continue
		}
		if want := uint64(0x2000000000) + uint64(idx[rows])*256; op.Addr != want || op.ElemSize != 16 {
			return fmt.Errorf("demo gather: row %d GENERATE at %#x, elem_size %d; want %#x, 16", rows, op.Addr, op.ElemSize, want)
		}
		rows++
	}
	if rows != len(idx) {
		return fmt.Errorf("demo gather: %d GENERATEs for %d indices", rows, len(idx))
	}
	fmt.Fprintf(w, "  check: %d GENERATEs, one per index, row j at src + idx[j]·256 and elem_size 16 (the word's)\n", rows)
	return nil
}

// demoNEFF builds the C08220-shaped style-A NEFF in memory (neffgen), checks
// it, fires its two PSEUDO_DMA_TRIGGER words into DMA_DIRECT2D words and runs
// it: input → gradient_in → output, the second trigger waiting for the first
// block's completion semaphore (docs/neff.md).
func demoNEFF(w io.Writer, gen isa.Gen) error {
	fmt.Fprintf(w, "\n=== 7. a NEFF, end to end (%s; docs/neff.md): two 0xc1 triggers fire descriptor blocks\n", gen)
	p := neffgen.Triggered()
	p.Target = strings.ToLower(gen.String())
	raw, err := p.Build()
	if err != nil {
		return err
	}
	f, err := neff.Parse(raw, neff.Options{Strict: true})
	if err != nil {
		return err
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  %d-byte NEFF (gzip ustar): %d members, hash %s\n", len(raw), len(f.Members), f.HashKind)
	problems, words, err := device.Check(gen, f, sgs)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  check: %d words, %d problems\n", words, len(problems))
	for _, pr := range problems {
		fmt.Fprintf(w, "    %s\n", pr)
	}
	sg := &sgs[0]
	place, err := device.Place(sgs)
	if err != nil {
		return err
	}
	d := isa.NewDecoder(gen, sg.Engines[0].Code)
	for d.Next() {
		if d.Inst().Opcode() != isa.OpPseudoDMATrigger {
			continue
		}
		fmt.Fprintf(w, "  %#04x %s", d.Offset(), asm.AppendInst(nil, d.Inst()))
		fired, err := device.Fire(gen, sg, &sg.Engines[0], d.Inst(), place[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "       %s (%s) → completion $S[%d] +1:\n", fired.Block.Where, fired.Queue.Name, fired.Semaphore)
		for i := range fired.Words {
			fmt.Fprintf(w, "       %s", asm.AppendInst(nil, &fired.Words[i]))
		}
	}
	im, err := device.Load(gen, f, sgs, nil)
	if err != nil {
		return err
	}
	res, err := im.Run(device.NEFFOptions{Exec: device.Sim})
	if err != nil {
		return err
	}
	for _, mv := range res.Subgraphs[0].Stats.Schedule {
		fmt.Fprintf(w, "  @%.3f–%.3fµs %s %#x: %s\n", float64(mv.IssueNS)/1000, float64(mv.DueNS)/1000, mv.Stream, mv.Offset, mv.Note)
	}
	in, err := im.Var("input")
	if err != nil {
		return err
	}
	out, err := im.Var("output")
	if err != nil {
		return err
	}
	diff := 0
	for i := range in {
		if in[i] != out[i] {
			diff++
		}
	}
	fmt.Fprintf(w, "  output against input: %d of %d bytes differ\n", diff, len(in))
	if diff > 0 || len(in) == 0 {
		return fmt.Errorf("demo NEFF: %d of %d bytes differ", diff, len(in))
	}
	return nil
}
