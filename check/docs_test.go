package check

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"ndma/asm"
	"ndma/internal/samples"
	"ndma/isa"
)

// Tests written from the source documents' own text (issue 16, items 10–12).

// xposeWord assembles a DMA_TRANSPOSE whose dst_step_elem is the given pair.
func xposeWord(t *testing.T, step [2]int) *isa.Inst {
	t.Helper()
	src := fmt.Sprintf(`dma_transpose semaphore=5, in_dtype=BFLOAT16, out_dtype=BFLOAT16, src_start_addr=sbuf:0:0x0,
    src_step_elem=[2, 256], src_num_elem=[128, 64], tile_src_row_step=256, tile_src_rows=16,
    tile_src_cols=128, dst_start_addr=sbuf:0:0x4000, dst_step_elem=[%d, %d], dst_num_elem=[64, 128]
`, step[0], step[1])
	obj, err := asm.Assemble("x.s", []byte(src), asm.Options{Gen: isa.Cayman})
	if err != nil {
		t.Fatal(err)
	}
	in, err := isa.Decode(isa.Cayman, obj.Code)
	if err != nil {
		t.Fatal(err)
	}
	return &in
}

// 000 §3d: "dst_step_elem 32 B-aligned unless dst_num_elem == 1 (xbar HW)";
// field-tables §11.5: "The 32-byte rule: dst_step_elem[1] % 32 == 0 unless
// dst_num_elem[1] == 1." describe's note on each dst_step_elem element and
// validate's verdict on a step of 3 in that element must agree.
func TestXposeDescribeAgreesWithValidate(t *testing.T) {
	d, err := isa.LookupName("DMA_TRANSPOSE")
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]string{}
	for _, r := range isa.DescribeRows(d) {
		notes[r.Field] = r.Note
	}
	for k := 0; k < 2; k++ {
		field := fmt.Sprintf("dst_step_elem[%d]", k)
		note, ok := notes[field]
		if !ok {
			t.Fatalf("describe has no row %s (rows: %v)", field, notes)
		}
		if note != isa.XposeDstStepRule {
			t.Errorf("describe %s note = %q, want the rule validate states: %q", field, note, isa.XposeDstStepRule)
		}
		describeSays := strings.Contains(note, fmt.Sprintf("[%d] %%32 == 0", k))
		step := [2]int{2, 128}
		step[k] = 3
		flagged := false
		for _, p := range Validate(xposeWord(t, step), isa.Cayman) {
			if p.Predicate == pXposeDstStep {
				flagged = true
				if !strings.Contains(p.Want, isa.XposeDstStepRule) {
					t.Errorf("validate's text %q does not carry describe's rule %q", p.Want, isa.XposeDstStepRule)
				}
			}
		}
		if describeSays != flagged {
			t.Errorf("%s = 3: describe says the 32-byte rule applies: %v; validate flags it: %v", field, describeSays, flagged)
		}
	}
}

func predProv(t *testing.T, name string) isa.Prov {
	t.Helper()
	p, ok := PredicateProv(name)
	if !ok {
		t.Fatalf("predicate %s not registered", name)
	}
	return p
}

func TestPredicateProvFromDocuments(t *testing.T) {
	// 000 §8d: "assert(i->in_dtype == i->out_dtype);             // has_valid_xpose_dtypes_temporary (no cast)"
	if p := predProv(t, "has_valid_xpose_dtypes_temporary"); p != isa.Observed {
		t.Errorf("has_valid_xpose_dtypes_temporary: %s, want OBSERVED (000 §8d names it)", p)
	}
	// 000 §3d: "tile_src_cols ∈ [1,128] for 2-byte out / [1,64] for 4-byte" — no rule rejects 1- or
	// 8-byte types; that one is ndma's, under its own name.
	if p := predProv(t, pXposeDtypeSize); p != isa.Inferred {
		t.Errorf("%s: %s, want INFERRED", pXposeDtypeSize, p)
	}
	// 000 §3e: "Validity predicates (in-header is_valid_dma_gather_transpose, OBSERVED)" — the
	// document names the whole predicate only; the parts are ndma's names.
	for _, n := range []string{pGatherDtype, pGatherElem, pGatherNumIdx, pGatherAlign, pGatherDstStep, pGatherDim,
		pGatherRowLen, pIdxBoundReg} {
		if p := predProv(t, n); p != isa.Inferred {
			t.Errorf("%s: %s, want INFERRED (no document gives the name)", n, p)
		}
	}
	// field-tables §5.1: "| 0x01 | UINT64 | 8 | all | rejected by plain is_valid_dtype |" — the
	// name is in field-tables only: CARRIED.
	if p := predProv(t, pDtype); p != isa.Carried {
		t.Errorf("%s: %s, want CARRIED", pDtype, p)
	}
}

// Every OBSERVED predicate name occurs in source document 000 or 003, every
// CARRIED one in field-tables.md.
func TestPredicateNamesInDocuments(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../../shared/spec/" + name)
		if err != nil {
			t.Skipf("source documents not here: %v", err)
		}
		return string(b)
	}
	docs := read("000_c152fb1f111af5a1.txt") + read("003_ab041bf452dc313e.txt")
	ft := read("field-tables.md")
	for name, p := range predicates {
		switch {
		case p == isa.Observed && !strings.Contains(docs, name):
			t.Errorf("%s is OBSERVED but neither 000 nor 003 names it", name)
		case p == isa.Carried && !strings.Contains(ft, name):
			t.Errorf("%s is CARRIED but field-tables does not name it", name)
		}
	}
}

// 000 §8f (HIGH/OBSERVED): "for (int rep = 0; rep <= i->repeat_count; ++rep)          // ConditionalUpdate basic-loop"
func TestTestESRepeatCountObserved(t *testing.T) {
	d, err := isa.LookupName("TEST_EVENT_SEM")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range isa.DescribeRows(d) {
		if r.Field == "repeat_count" {
			if r.Prov != "OBSERVED" || strings.Contains(r.Note, "INFERRED") || !strings.Contains(r.Note, "§8f") {
				t.Errorf("repeat_count: %s %q, want OBSERVED from 000 §8f", r.Prov, r.Note)
			}
			return
		}
	}
	t.Fatal("no repeat_count row")
}

// 000 §3g: "integer abs ABS_VALUE..ABS_MIN64=0x3a..0x3f"; "logical/bitwise
// LOGICAL_AND..BITWISE_XOR=0x50..0x57"; "compares CMP*_EQ..GE=0x60..0x85".
func TestCCOpNamedCodesObserved(t *testing.T) {
	for code, name := range map[uint64]string{0x3a: "ABS_VALUE", 0x3f: "ABS_MIN64", 0x50: "LOGICAL_AND", 0x57: "BITWISE_XOR", 0x60: "CMP_EQ"} {
		v, ok := isa.CCOp().Lookup(code)
		if !ok || v.Name != name || v.Prov != isa.Observed {
			t.Errorf("CCOP %#x = %+v, want %s OBSERVED", code, v, name)
		}
	}
	// the names between the endpoints are ndma's spelling
	if v, _ := isa.CCOp().Lookup(0x3b); v.Prov != isa.Inferred {
		t.Errorf("CCOP 0x3b %s: %s, want INFERRED", v.Name, v.Prov)
	}
}

// 000 §3g: "The "compact control instruction" carries its own CCIHEADER { opcode; reserved[1]; debug_cmd; debug_hint }."
func TestCCIHeaderByte1Reserved(t *testing.T) {
	d, err := isa.LookupName("COMPACT_CONTROL_INST")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range isa.DescribeRows(d) {
		if r.Offset == 1 {
			if r.Prov != "INFERRED" || !strings.Contains(r.Note, "reserved[1]") {
				t.Errorf("CCI byte 1 %s: %s %q, want INFERRED naming 000 §3g's reserved[1]", r.Field, r.Prov, r.Note)
			}
			return
		}
	}
	t.Fatal("no byte-1 row")
}

// RATIONALE.md "Document conflicts" (issue 16 item 13) quotes both sides of
// each conflict; every quote must be the documents' own text, and in the
// section.
func TestDocumentConflictsQuoted(t *testing.T) {
	section := samples.RationaleSection(t, "## Document conflicts")
	d000, d003, ft := samples.SpecText(t, "000_c152fb1f111af5a1.txt"), samples.SpecText(t, "003_ab041bf452dc313e.txt"), samples.SpecText(t, "field-tables.md")
	for _, q := range []struct{ doc, text string }{
		{d003, "The DGE issues one DIMPUSH per dim, in nesting order (outer-to-inner), each pushing that dim's (src_num,dst_num)(src_step,dst_step)."},
		{d003, "DIMPUSH dim0  [128,128][1,1]"},
		{d003, "DIMPUSH dim1  [1,1][128,128]"},
		{d003, "push DIMPUSH  to DMA[d]: [128,64][1,1]      ; dim0"},
		{d003, "push DIMPUSH  to DMA[d]: [64,128][128,64]   ; dim1"},
		{d003, "GENERATE appears in 15 images, DIMPUSH in 15, REGWRITE in only 10 — exactly the CAYMAN+MARIANA (×5 engines × DEBUG/PERF) set"},
		{d003, "The push DIMPUSH/GENERATE/REGWRITE strings are CAYMAN/MARIANA only — consistent with v5 having moved to the inline model."},
		{d000, "for (tile across (i->src_num_elem, i->tile_src_row_step)) {"},
		{d003, "push GENERATE to DMA[d]: RD : addr=&src, elem_size=2, sem_num=S"},
		{d003, "[fire]    TDRTP_inc doorbell (RD leg)."},
		{d003, "The q_gradient_out leg is the symmetric WRITE (S2M/RDRTP_inc, sem 11)"},
		{d003, "RD = M2S/read (HBM→local, doorbell TDRTP_inc), WR = S2M/write (local→HBM, doorbell RDRTP_inc)"},
		{d003, "(4) DOORBELL       bump M2S TDRTP_inc (RD) / S2M RDRTP_inc (WR) by num_descriptors."},
		{d003, "src_step_elem = { 1, 128 };                   // [+24] x step 1, y step 128 elem"},
		{ft, "**Steps in a 64-byte word are signed byte strides** (OBSERVED: real 0xd4 words of a public NEFF"},
		{d000, "tile_src_cols ∈ [1,128] for 2-byte out / [1,64] for 4-byte"},
		{d000, "i->tile_src_cols <= (dtype_bytes(i->out_dtype) == 2 ? 128 : 64)"},
		{d000, "dst_step_elem 32 B-aligned unless dst_num_elem == 1 (xbar HW)"},
		{ft, "The 32-byte rule: dst_step_elem[1] % 32"},
		{d000, "CCIHEADER { opcode; reserved[1]; debug_cmd; debug_hint }"},
	} {
		if !strings.Contains(q.doc, q.text) {
			t.Errorf("not the document's text: %q", q.text)
		}
		if !strings.Contains(section, q.text) {
			t.Errorf("RATIONALE.md Document conflicts does not quote %q", q.text)
		}
	}
}

// Every constraint describe's notes state on these words is one validate
// enforces (issue 16 item 10): the note is there, the example word is clean,
// breaking the rule the note states fails the predicate.
func TestDescribeNotesAgreeWithValidate(t *testing.T) {
	const xp = `dma_transpose semaphore=5, in_dtype=BFLOAT16, out_dtype=BFLOAT16, src_start_addr=sbuf:0:0x0,
    src_step_elem=[2, 256], src_num_elem=[128, 64], tile_src_row_step=256, tile_src_rows=16,
    tile_src_cols=128, dst_start_addr=sbuf:0:0x4000, dst_step_elem=[2, 128], dst_num_elem=[64, 128]
`
	const gx = `dma_gather_transpose wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=6, semaphore_value=1, semaphore=7,
    idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, 256],
    src_num_elem=[128, 64], src_idx_start_addr=sbuf:0:0x2000, dst_start_addr=sbuf:0:0x8000,
    dst_step_elem_1=128, dst_num_elem=[64, 128], elem_size=256, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16,
    gather_dim=Y
`
	for _, c := range []struct {
		op, src, field, note, from, to, pred string
	}{
		// 000 §3d: "tile_src_rows == 16 (has_valid_xpose_tile_rows_temporary)"
		{"DMA_TRANSPOSE", xp, "tile_src_rows", "must be 16", "tile_src_rows=16", "tile_src_rows=8", pXposeRows},
		// 000 §3d: "tile_src_cols ∈ [1,128] for 2-byte out / [1,64] for 4-byte (has_valid_xpose_tile_cols_temporary)"
		{"DMA_TRANSPOSE", xp, "tile_src_cols", "1..128 (2-byte)", "tile_src_cols=128", "tile_src_cols=0", pXposeCols},
		// 000 §3d: "dst_start_addr 32 B-aligned and a SBUF address"
		{"DMA_TRANSPOSE", xp, "dst_start_addr", "SBUF, 32-byte aligned", "dst_start_addr=sbuf:0:0x4000", "dst_start_addr=sbuf:0:0x4010", pXposeDstAddr},
		// 000 §3d: "dst_step_elem 32 B-aligned unless dst_num_elem == 1 (xbar HW)"
		{"DMA_TRANSPOSE", xp, "dst_step_elem[1]", "[1] %32 == 0", "dst_step_elem=[2, 128]", "dst_step_elem=[2, 100]", pXposeDstStep},
		// 000 §3e: "elem_size ∈ [2,256] and even"
		{"DMA_GATHER_TRANSPOSE", gx, "elem_size", "2..256, even", "elem_size=256", "elem_size=255", pGatherElem},
		// 000 §3e: "count a multiple of 16 (src_num_elem[1] % 16 == 0, the Y/gather dim)"
		{"DMA_GATHER_TRANSPOSE", gx, "src_num_elem[1]", "%16 == 0", "src_num_elem=[128, 64]", "src_num_elem=[128, 60]", pGatherNumIdx},
		// 000 §3e: "cross-field src_num_elem[1] == dst_num_elem[0] (both = #indices)"
		{"DMA_GATHER_TRANSPOSE", gx, "dst_num_elem[0]", "[0] == src_num_elem[1]", "dst_num_elem=[64, 128]", "dst_num_elem=[32, 128]", pGatherNumIdx},
		// 000 §3e: "src_idx_start_addr 4 B-aligned, src 2 B-aligned, dst_start_addr 32 B-aligned (xbar)"
		{"DMA_GATHER_TRANSPOSE", gx, "src_idx_start_addr", "4-byte aligned", "src_idx_start_addr=sbuf:0:0x2000", "src_idx_start_addr=sbuf:0:0x2002", pGatherAlign},
		{"DMA_GATHER_TRANSPOSE", gx, "src_start_addr", "2-byte aligned", "src_start_addr=hbm:0x0", "src_start_addr=hbm:0x1", pGatherAlign},
		{"DMA_GATHER_TRANSPOSE", gx, "dst_start_addr", "32-byte aligned", "dst_start_addr=sbuf:0:0x8000", "dst_start_addr=sbuf:0:0x8010", pGatherAlign},
	} {
		d, err := isa.LookupName(c.op)
		if err != nil {
			t.Fatal(err)
		}
		note, found := "", false
		for _, r := range isa.DescribeRows(d) {
			if r.Field == c.field {
				note, found = r.Note, true
			}
		}
		if !found || !strings.Contains(note, c.note) {
			t.Errorf("%s describe %s: note %q (row found %v), want it to say %q", c.op, c.field, note, found, c.note)
			continue
		}
		preds := func(src string) map[string]bool {
			obj, err := asm.Assemble("x.s", []byte(src), asm.Options{Gen: isa.Cayman})
			if err != nil {
				t.Fatalf("%s: %v", c.field, err)
			}
			ps, err := Stream(isa.Cayman, obj.Code)
			if err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			for _, p := range ps {
				set[p.Predicate] = true
			}
			return set
		}
		if got := preds(c.src); len(got) != 0 {
			t.Fatalf("%s example word not clean: %v", c.op, got)
		}
		if !strings.Contains(c.src, c.from) {
			t.Fatalf("%s: %q not in the example", c.op, c.from)
		}
		if got := preds(strings.Replace(c.src, c.from, c.to, 1)); !got[c.pred] {
			t.Errorf("%s %s (describe: %q): validate does not fail %s, got %v", c.op, c.to, note, c.pred, got)
		}
	}
}
