package check

import (
	"strings"
	"testing"

	"ndma/internal/samples"
)

// RATIONALE.md "Document conflicts" records each place ndma departs from the
// documents (issue items B24, J02, J21, M03, K20, F11, K02 and the unmodelled
// keys): the source's words, quoted exactly, and what ndma does, by the text
// it prints or the rule that refuses.
func TestDocumentDeparturesRecorded(t *testing.T) {
	section := samples.RationaleSection(t, "## Document conflicts")
	d000, d003 := samples.SpecText(t, "000_c152fb1f111af5a1.txt"), samples.SpecText(t, "003_ab041bf452dc313e.txt")
	ft, nm := samples.SpecText(t, "field-tables.md"), samples.SpecText(t, "neff.md")
	for _, q := range []struct{ doc, text string }{
		// B24
		{d000, `with dma_engines.engine_count "must be 1"`},
		{d000, "DMA_ENGINE_COUNT {ONE=0, TWO=1, FOUR=2, EIGHT=3}"},
		{d000, "engine_count == 1, num_descriptors ∈ {1,2,3}, tdg == 0, wr_done_sync == 0 are stated only in the header docstring"},
		// J02
		{d003, `"push GENERATE to DMA[%d]: %s : addr=0x%llx, elem_size=%d, sem_num=%i"`},
		{ft, "S: push GENERATE to DMA[%d]: %s : addr=0x%llx, elem_size=%d, sem_num=%i"},
		{d003, "S: DGE $S[%i]+=%i@dmacomplete"},
		// J21
		{d003, "the Pool dump's two bounds: pairs are the BOUND_CHECK_REG predicate (addr <= limit, src then dst)"},
		{ft, "inclusive: address of the last byte ≤ limit"},
		// M03
		{d003, `from="gradient_out", to="output",`},
		{d003, "input(var_id 0, element_size 4 = FP32, size 128), output(var_id 2)"},
		// K20
		{d003, "GENERATE  (RD, addr=&input, elem_size=4, sem_num=10)"},
		{d003, "the DIRECT2D word -> 16-B SDMA_CME_BD_DESC (128×1×4 = 512 B, one chunk)"},
		{nm, "size 128, element_size 4, internal_shape [1,1,1,32], var_id 0}"},
		// F11
		{d000, "The five DMA opcodes additionally (iii) emit DGE descriptors."},
		{d003, "NC-v5 supersedes the GENERATE/DIMPUSH/REGWRITE emit with two inline-descriptor ops whose descriptor bytes ride INSIDE the 64-byte instruction."},
		{d003, "whether v5 still emits DIMPUSH internally, are INFERRED"},
		// K02
		{d003, "-> ONE GENERATE + 2× DIMPUSH (Pool = 2 dims)."},
		{d003, "AHEAD of the data BDs."},
		// priority_class, DMAQoSClass / DGEType
		{d000, "DMA_CONFIGS (1 B) is priority_class:3 + reserved"},
		{d003, "dma_configs.priority_class from DMAQoSClass"},
		{d003, "The bir::InstDMA carries DGEType (SWDGE/HWDGE, selecting the backend dim count) + DMAQoSClass."},
		// $S-shaped words, REGWRITE
		{d003, "When SHAPE_REG (bit6) is set, the runtime-sized transfer forces src/dst_num_elem == 0 and src/dst_step_elem[1] == 0 (zero_num_step_elem_shape_reg_mode) — the count comes from the register, not the immediate field."},
		{d003, "Maps to a WORD1 CME control optype on the 16-B BD (vs the COPY op of the GENERATE data BD)."},
		{d003, "exact WORD1 optype MED — FLIX-desynced body"},
	} {
		if !strings.Contains(q.doc, q.text) {
			t.Errorf("not the document's text: %q", q.text)
		}
		if !strings.Contains(section, q.text) {
			t.Errorf("RATIONALE.md Document conflicts does not quote %q", q.text)
		}
	}
	// what ndma does, in its own words
	for _, s := range []string{
		"is_valid_dma_immediate_engines: dma_engines.engine_count = TWO, must be ONE: immediate descriptors go to one queue",
		"push GENERATE to DMA[0]: RD : addr=0x100000000, elem_size=4, sem_num=10",
		"bounds:(0 0x1000001ff<=0x0, 1 0x1ff<=0xfff)",
		"0x20000001ff<=0xfff",
		"push GENERATE to DMA[0]: RD : addr=0x100000000, elem_size=128, sem_num=10",
		"push DIMPUSH to DMA[0]: [1,1][0,0]",
		"push REGWRITE to DMA[0]",
		"the shape comes from a $S register, known only at run time",
		"is_valid_dma_configs",
		"generations: v5 · no DGE program (the engines run it)",
		"B24", "J02", "J21", "M03", "K20", "K02", "F11",
	} {
		if !strings.Contains(section, s) {
			t.Errorf("RATIONALE.md Document conflicts does not record %q", s)
		}
	}
}
