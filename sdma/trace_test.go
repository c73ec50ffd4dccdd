package sdma

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"ndma/dge"
	"ndma/internal/samples"
	"ndma/isa"
)

// The firmware's format strings, quoted from the documents (field-tables
// §8.3 "verbatim, usable as our dump/trace formats"; 003 §3, §5.2, §7.1).
// The three push lines are 003 §3's ("push GENERATE to DMA[%d]: …", as §8's
// worked program prints them), without field-tables §8.3's "S: " (RATIONALE.md,
// Document conflicts).
// Trigger DMA is 003's: §3.3 quotes its start "Trigger DMA; sdma_bcast_base
// = 0x%08x", §4 its end "mask=…, n_desc=%d" (field-tables §8.3 has "mask =
// 0x%08x n_desc=%d", without the comma; RATIONALE.md).
var firmwareFormats = []string{
	"push GENERATE to DMA[%d]: %s : addr=0x%llx, elem_size=%d, sem_num=%i",
	"push DIMPUSH to DMA[%d]: [%u,%u][%d,%d]",
	"push REGWRITE to DMA[%d]",
	"S: DGE $S[%i]+=%i@dmacomplete src=[0x%x]@0x%llx[0x%x,0x%x][%u,%u] dst=[0x%x]@0x%llx[0x%x,0x%x][%u,%u] cast:0x%x->0x%x bounds:(%1d 0x%llx<=0x%llx, %1d 0x%llx<=0x%llx) compute_op: 0x%x",
	"S: DGE software backend: $S[%i]+=%i@dmacomplete src=[0x%x]@0x%llx[0x%x,0x%x,0x%x,0x%x][%u,%u,%u,%u] dst=[0x%x]@0x%llx[0x%x,0x%x,0x%x,0x%x][%u,%u,%u,%u] cast:0x%x->0x%x, indirection_dim=0x%x, reshape_kind=0x%x",
	"S: DGE RTL backend: $S[%i]+=%i@dmacomplete src=[0x%x]@0x%llx[0x%x,0x%x,0x%x,0x%x,0x%x|0x%x,0x%x][%u,%u,%u,%u,%u|%u,%u] dst=[0x%x]@0x%llx[0x%x,0x%x,0x%x,0x%x,0x%x|0x%x,0x%x][%u,%u,%u,%u,%u|%u,%u]",
	"S: DGE: Select backend Pool",
	"S: DGE: Select backend RTL",
	"S: DGE Reshape: Analyzed tensor (nelem_target = %u, step_target = 0x%X (%dP), base = 0x%X (%dP)): Reshape Strategy = %d, Requested Reshape Kind = %d, Partition Range = %d, Num Partitions = %d",
	"S: DGE Reshape: Assessed tensor pair params (Requested Reshape Kind = %d, Min Num Partitions = %u, #DMA Avail = %u): Reshape Kind = %d, #DMA = %u",
	"S: DGE contexts 0x%x/0x%x init sw=%d engine=%u queue_idx=%u queue_num=%u",
	"S: rx.base=0x%llx, tx.base=0x%llx",
	"P%i: Generating %i descriptors; ring_ndesc = %i",
	"Descriptor generation loop index: [%d, %d, %d, %d, %d]",
	"Trigger DMA; sdma_bcast_base = 0x%08x, trigger addr = 0x%08x, mask = 0x%08x, n_desc=%d",
	"P%i: DGE DIRECT2D", "P%i: DGE INDIRECT", "P%i: DGE GATHER",
}

// printfRegexp is the regexp of the lines a printf format prints: each
// conversion a run of its digits, everything else literal.
func printfRegexp(f string) *regexp.Regexp {
	conv := regexp.MustCompile(`%(0?\d*)(ll)?([diuxXs])`)
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range conv.FindAllStringSubmatchIndex(f, -1) {
		b.WriteString(regexp.QuoteMeta(f[last:m[0]]))
		width := f[m[2]:m[3]]
		switch f[m[6]:m[7]] {
		case "d", "i":
			b.WriteString(`-?\d+`)
		case "u":
			b.WriteString(`\d+`)
		case "x":
			if strings.HasPrefix(width, "0") {
				fmt.Fprintf(&b, `[0-9a-f]{%s}`, width[1:])
			} else {
				b.WriteString(`[0-9a-f]+`)
			}
		case "X":
			b.WriteString(`[0-9A-F]+`)
		case "s":
			b.WriteString(`\S+`)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(f[last:]) + "$")
	return regexp.MustCompile(b.String())
}

// Every line of every golden trace is either ndma's ('#', dge/dump.go) or
// printed by one of the firmware's formats, whatever the word, generation
// and backend — the golden dumps are ndma's own file, this holds their
// firmware lines to the documents.
func TestTraceLinesAreFirmwareFormats(t *testing.T) {
	res := make([]*regexp.Regexp, len(firmwareFormats))
	for i, f := range firmwareFormats {
		res[i] = printfRegexp(f)
	}
	if !res[0].MatchString("push GENERATE to DMA[0]: RD : addr=0x100000000, elem_size=4, sem_num=10") || res[0].MatchString("push GENERATE to DMA[0]: RD : addr=0x1g, elem_size=4, sem_num=10") {
		t.Fatal("printfRegexp does not read the formats")
	}
	seen := map[int]bool{}
	for _, w := range goldenWords {
		for _, g := range isa.Gens() {
			for _, b := range []dge.Backend{dge.Auto, dge.Pool, dge.Software, dge.RTL} {
				in := decodeText(t, g, w.src)
				_, lw, err := Lower(&in, g, dge.Options{Backend: b}, Options{})
				if err != nil {
					continue // the goldens hold the refusals
				}
				for _, l := range strings.Split(strings.TrimSuffix(string(lw.AppendTrace(nil)), "\n"), "\n") {
					if strings.HasPrefix(l, "#") {
						continue
					}
					k := -1
					for i, re := range res {
						if re.MatchString(l) {
							k = i
							break
						}
					}
					if k < 0 {
						t.Errorf("%s/%s/%s: no firmware format prints %q", w.name, g, b, l)
					}
					seen[k] = true
				}
			}
		}
	}
	for i, f := range firmwareFormats {
		if !seen[i] {
			t.Errorf("no trace line of the format %q", f)
		}
	}
}

// 003 §4 (4) DOORBELL: "bump M2S TDRTP_inc (RD) / S2M RDRTP_inc (WR) by
// num_descriptors. For Q7 SW-DGE: "Trigger DMA; sdma_bcast_base=…, trigger
// addr=…, mask=…, n_desc=%d"" — the software backend's only, after the
// queue's "P%i: Generating %i descriptors" line, n_desc its descriptors.
func TestTriggerLine(t *testing.T) {
	for _, b := range []dge.Backend{dge.Software, dge.Pool} {
		in := word(t, isa.Cayman, goldenWords[2].src) // the indirect gather
		if b == dge.Pool {
			in = word(t, isa.Cayman, goldenWords[0].src)
		}
		_, lw, err := Lower(&in, isa.Cayman, dge.Options{Backend: b}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		tr := string(lw.AppendTrace(nil))
		q := lw.Queues[0]
		want := fmt.Sprintf("P0: Generating %d descriptors; ring_ndesc = 4096\nTrigger DMA; sdma_bcast_base = 0x%08x, trigger addr = 0x00001038, mask = 0x00000001, n_desc=%d\n",
			len(q.M2S)+len(q.S2M), uint32(q.M2SBase), len(q.M2S)+len(q.S2M))
		if got := strings.Contains(tr, want); got != (b == dge.Software) {
			t.Errorf("%s: trigger line present %v:\n%s", b, got, tr)
		}
		// its start is 003 §3.3's string, its end §4's ", n_desc=%d"
		start := regexp.MustCompile(strings.TrimSuffix(printfRegexp("Trigger DMA; sdma_bcast_base = 0x%08x").String(), "$") + `, .*, n_desc=\d+$`)
		for _, l := range strings.Split(tr, "\n") {
			if strings.HasPrefix(l, "Trigger") && !start.MatchString(l) {
				t.Errorf("%q: not 003's Trigger DMA line", l)
			}
		}
		if ring := fmt.Sprintf("S: rx.base=0x%x, tx.base=0x%x\n", q.S2MBase, q.M2SBase); !strings.Contains(tr, ring) {
			t.Errorf("%s: no %q", b, ring)
		}
	}
}

// The program is what executes (sdma.Lower composes lowering and
// expansion): the index values the rows were generated from are the ones
// the descriptors move. Rows of 512 bytes, scrambled: M2S descriptor j
// reads exactly the address GENERATE j names.
func TestDescriptorsFollowRows(t *testing.T) {
	idx := make([]uint32, 64)
	for j := range idx {
		idx[j] = uint32(j*37+5) % 128
	}
	calls := 0
	index := func(_, j int) (uint32, error) { calls++; return idx[j], nil }
	for _, src := range []string{
		`dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1,
  src_start_addr=hbm:0x0, src_step_elem=512, src_num_elem=128, src_elem_size=512, dst_start_addr=sbuf:0:0x0,
  dst_step_elem=512, dst_num_elem=64, dst_elem_size=512, src_idx_start_addr=sbuf:0:0x2000, in_dtype=fp16, out_dtype=fp16`,
		`dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, 512],
  src_num_elem=[256, 64], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000, dst_step_elem_1=128,
  dst_num_elem=[64, 256], elem_size=512, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`,
	} {
		in := word(t, isa.Cayman, src)
		calls = 0
		p, lw, err := Lower(&in, isa.Cayman, dge.Options{}, Options{Index: index})
		if err != nil {
			t.Fatal(err)
		}
		if calls != 64 {
			t.Errorf("%s: the index tensor read %d times, want once per lane (64)", p.Kind, calls)
		}
		var gen []uint64
		for _, op := range p.Channels[0].Ops {
			if op.Kind == dge.Generate {
				gen = append(gen, op.Addr)
			}
		}
		var m2s []uint64
		for i := range lw.Queues[0].M2S {
			m2s = append(m2s, lw.Queues[0].M2S[i].BufPtr())
		}
		if fmt.Sprint(gen) != fmt.Sprint(m2s) || len(gen) != 64 {
			t.Errorf("%s: GENERATE addresses\n%x\nM2S buf_ptrs\n%x", p.Kind, gen, m2s)
		}
		// an expansion of a program lowered without memory takes no index of its own
		q, err := dge.Lower(&in, isa.Cayman, dge.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Expand(q, Options{Index: index}); err == nil || !strings.Contains(err.Error(), "assumed") {
			t.Errorf("%s: Expand of assumed rows with an index: %v", p.Kind, err)
		}
	}
}

// RATIONALE.md "The software DGE path" quotes the documents for its
// choices: every quote is the documents' own text, and in that section.
func TestSoftwareDGERationaleQuotes(t *testing.T) {
	section := samples.RationaleSection(t, "## The software DGE path")
	d000, d003, ft := samples.SpecText(t, "000_c152fb1f111af5a1.txt"), samples.SpecText(t, "003_ab041bf452dc313e.txt"), samples.SpecText(t, "field-tables.md")
	for _, q := range []struct{ doc, text string }{
		{d003, "For an indirect gather it is called once per gathered row (the per-row address is the index-driven address-gen result"},
		{d000, "dge_generate(/*buf=*/src_row, /*elem=*/i->elem_size, i->semaphore);"},
		{d000, "dge_dimpush(/*src=*/(16, i->src_step_elem[0]),"},
		{d000, "/*dst=*/(128, i->dst_step_elem_1));"},
		{d000, "assert(i->src_num_elem[1] % 16 == 0);                  // index count multiple of 16"},
		{d003, "(3) DIMPUSH × Ndim ONE per tensor dim"},
		{d003, "AHEAD of the data BDs"},
		{d003, `setup:   "DGE contexts … init sw=0 engine=E queue_idx=Q …"`},
		{d003, "DGE setup binds the (tx,rx) context"},
		{ft, "context `sw=1`"},
		{d003, "Trigger DMA; sdma_bcast_base = 0x%08x"},
		{d003, "Trigger DMA; sdma_bcast_base=…, trigger addr=…,"},
		{d003, "mask=…, n_desc=%d"},
		{ft, "mask = 0x%08x n_desc=%d"},
		{ft, "Queue-0 doorbell absolute = engine base + 0x1038"},
		{d003, "The Q7 SW-DGE descriptor-generation loop walks the index explicitly"},
		{d003, "Per tensor: count, target stride in partitions (%dP), base, a strategy + kind, partition range/count; then the pair assess resolves the FINAL Reshape Kind + the #DMA fan-out"},
		{ft, "NOT recoverable"},
		{d003, "A transpose is realized as a permutation of the step_elem[] / num_elem[] arrays"},
		{d003, "software carries indirection_dim / reshape_kind"},
		{ft, "decode → `analyze_tensor_reshape` per tensor → pair assessment (final Reshape Kind + #DMA) →"},
		{ft, "backend select → per channel `DMA[d]`"},
	} {
		if !strings.Contains(q.doc, q.text) {
			t.Errorf("not the document's text: %q", q.text)
		}
		if !strings.Contains(section, q.text) {
			t.Errorf("RATIONALE.md's software DGE section does not quote %q", q.text)
		}
	}
}
