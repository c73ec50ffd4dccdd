// Package check is the validity contract of every instruction word per
// generation (docs/validate.md): each failed rule becomes a Problem naming the
// predicate (the header's own name where the sources give one), the field,
// its value and what is allowed.
package check

import (
	"errors"
	"fmt"
	"strings"

	"ndma/internal/compute"
	"ndma/internal/control"
	"ndma/isa"
)

// Severity of a problem.
type Severity uint8

// Severities.
const (
	Error   Severity = iota // the word is illegal on the generation
	Warning                 // legal to decode, worth a look (reserved bits, pseudo words, opcodes unknown to ndma)
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Problem is one failed rule of one word.
type Problem struct {
	Index     int      `json:"index"`  // word index in the stream
	Offset    int      `json:"offset"` // byte offset in the stream
	Mnemonic  string   `json:"mnemonic"`
	Predicate string   `json:"predicate"`
	Prov      string   `json:"prov"` // OBSERVED: the header's predicate; INFERRED: ndma's name for a prose rule
	Field     string   `json:"field"`
	Value     string   `json:"value"`
	Want      string   `json:"want"`
	Severity  Severity `json:"-"`
	Level     string   `json:"severity"`
}

// String is the one-line form `ndma validate` prints.
func (p Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "offset %#x (#%d %s): ", p.Offset, p.Index, p.Mnemonic)
	if p.Severity == Warning {
		b.WriteString("warning: ")
	}
	fmt.Fprintf(&b, "%s: ", p.Predicate)
	if p.Field != "" {
		fmt.Fprintf(&b, "%s = %s, ", p.Field, p.Value)
	}
	b.WriteString(p.Want)
	return b.String()
}

// predicates records where each predicate name comes from.
var predicates = map[string]isa.Prov{}

func pred(name string, p isa.Prov) string { predicates[name] = p; return name }

// Predicates the two source documents (000, 003) name are OBSERVED; a name
// only field-tables gives is CARRIED (copied from an earlier analysis); the
// rest are ndma's names for rules the sources state in prose, INFERRED — the
// is_valid_dma_gather_transpose_* parts among them: 000 §3e names only
// is_valid_dma_gather_transpose itself.
var (
	pOpcodeForGen     = pred("has_valid_opcode_for_gen", isa.Inferred)
	pComputeOperands  = pred("has_valid_compute_operands", isa.Inferred)
	pHeader           = pred("has_valid_neuron_header", isa.Observed)
	pKnownOpcode      = pred("is_known_opcode", isa.Inferred)
	pEvents           = pred("has_valid_neuron_events", isa.Observed)
	pDtype            = pred("is_valid_dtype", isa.Carried)
	pEnum             = pred("is_valid_enum_value", isa.Inferred)
	pReserved         = pred("reserved_is_zero", isa.Inferred)
	pPseudo           = pred("is_not_pseudo", isa.Inferred)
	pAddr8            = pred("is_valid_addr8", isa.Observed)
	pShapeReg         = pred("is_valid_dge_shape_reg", isa.Observed)
	pShapeRegZero     = pred("zero_num_step_elem_shape_reg_mode", isa.Observed)
	pMemcpyDtypes     = pred("are_valid_memcpy_dtypes", isa.Observed)
	pBoundReg         = pred("has_valid_bound_check_reg", isa.Observed)
	pConfigs          = pred("is_valid_dma_configs", isa.Observed)
	pEqualBytes       = pred("has_equal_src_dst_bytes", isa.Inferred)
	pCCE              = pred("is_valid_dma_cce", isa.Observed)
	pDGEOpcode        = pred("is_valid_dge_opcode", isa.Inferred)
	pHasExt           = pred("has_pseudo_extension", isa.Inferred)
	pFollowsPseudo    = pred("follows_pseudo_dma_direct2d", isa.Inferred)
	pIdxChannels      = pred("has_valid_idx_num_active_channels", isa.Inferred)
	pIndirectNum      = pred("has_valid_indirect_num_elem", isa.Inferred)
	pIdxAddr4         = pred("is_valid_idx_addr4", isa.Inferred)
	pIndirectMode     = pred("has_valid_indirect_mode", isa.Inferred)
	pIndirectDims     = pred("has_valid_indirect_dims", isa.Inferred)
	pIdxBoundReg      = pred("has_valid_idx_bound_check_reg", isa.Inferred)
	pXposeNC          = pred("has_valid_dma_transpose_nc", isa.Observed)
	pXposeRows        = pred("has_valid_xpose_tile_rows_temporary", isa.Observed)
	pXposeCols        = pred("has_valid_xpose_tile_cols_temporary", isa.Observed)
	pXposeDtypes      = pred("has_valid_xpose_dtypes_temporary", isa.Observed)
	pXposeDtypeSize   = pred("has_valid_xpose_dtype_size", isa.Inferred)
	pXposeDstAddr     = pred("has_valid_xpose_dst_addr", isa.Inferred)
	pXposeDstStep     = pred("has_valid_xpose_dst_step", isa.Inferred)
	pXposeShape       = pred("has_valid_xpose_shape", isa.Inferred)
	pGatherDtype      = pred("is_valid_dma_gather_transpose_dtype", isa.Inferred)
	pGatherElem       = pred("is_valid_dma_gather_transpose_elem_size", isa.Inferred)
	pGatherNumIdx     = pred("is_valid_dma_gather_transpose_num_idx", isa.Inferred)
	pGatherAlign      = pred("is_valid_dma_gather_transpose_alignment", isa.Inferred)
	pGatherDstStep    = pred("is_valid_dma_gather_transpose_dst_step", isa.Inferred)
	pGatherDim        = pred("is_valid_dma_gather_transpose_gather_dim", isa.Inferred)
	pGatherRowLen     = pred("has_valid_gather_xpose_row_len", isa.Inferred)
	pWaitSemaMode     = pred("has_valid_wait_sema_mode", isa.Inferred)
	pEngines          = pred("has_valid_dma_engines", isa.Inferred)
	pAddrModes        = pred("has_valid_addr_modes", isa.Inferred)
	pSemaUpdateModes  = pred("has_valid_sema_update_modes", isa.Inferred)
	pRemoteCore       = pred("has_valid_remote_core_id", isa.Inferred)
	pImmEngines       = pred("is_valid_dma_immediate_engines", isa.Inferred)
	pImmNumDesc       = pred("is_valid_dma_immediate_num_descriptors", isa.Inferred)
	pImmFlags         = pred("is_valid_dma_immediate_flags", isa.Inferred)
	pDescRegs         = pred("has_valid_descriptor_regs", isa.Inferred)
	pTestESMode       = pred("has_valid_test_es_mode", isa.Inferred)
	pNumEvtSem        = pred("has_valid_num_evt_sem", isa.Inferred)
	pUniqueIDs        = pred("has_unique_evt_sem_ids", isa.Inferred)
	pUnusedSlots      = pred("has_zero_unused_slots", isa.Inferred)
	pTestESUpdateType = pred("has_valid_test_es_update_type", isa.Inferred)
	pValueRegs        = pred("has_valid_value_registers", isa.Inferred)
	pTileIdxZero      = pred("has_tile_idx_zero", isa.Observed)
	pCCOp             = pred("has_valid_ccop", isa.Inferred)
	pCCOperands       = pred("has_valid_cc_operands", isa.Inferred)
	pCCBranch         = pred("has_valid_cc_branch_target", isa.Inferred)
	pExtTile          = pred("has_valid_ext_tile", isa.Inferred)
	pNumElem          = pred("has_valid_num_elem", isa.Inferred)
	pWholeSteps       = pred("has_whole_elem_steps", isa.Inferred)
)

// PredicateProv reports where a predicate's name comes from, and whether ndma knows it.
func PredicateProv(name string) (isa.Prov, bool) {
	p, ok := predicates[name]
	return p, ok
}

// checker collects the problems of one word.
type checker struct {
	in  *isa.Inst
	gen isa.Gen
	out []Problem
	sev Severity
}

func (c *checker) fail(predicate, field, value, want string) {
	c.out = append(c.out, Problem{Mnemonic: c.in.Def().Mnemonic(), Predicate: predicate,
		Prov: predicates[predicate].String(), Field: field, Value: value, Want: want, Severity: c.sev,
		Level: c.sev.String()})
}

func (c *checker) failf(predicate, field, value, format string, args ...any) {
	c.fail(predicate, field, value, fmt.Sprintf(format, args...))
}

func (c *checker) warnf(predicate, field, value, format string, args ...any) {
	c.sev = Warning
	c.failf(predicate, field, value, format, args...)
	c.sev = Error
}

// Validate checks one decoded instruction (and its 0xda extension) on gen;
// GenAny skips the per-generation rules. Stream-level rules (a 0xda must
// follow a 0xd4) are Stream's.
func Validate(in *isa.Inst, gen isa.Gen) []Problem {
	out := validateWord(in, gen, true)
	if x, ok := in.Ext(); ok {
		for _, p := range validateWord(&x, gen, true) {
			p.Index = 1
			p.Offset = isa.WordSize
			out = append(out, p)
		}
	}
	return out
}

func validateWord(in *isa.Inst, gen isa.Gen, hasExtContext bool) []Problem {
	c := &checker{in: in, gen: gen}
	c.common()
	switch in.Opcode() {
	case isa.OpDMAMemcpy, isa.OpPseudoDMADirect2D:
		c.direct2D()
		c.shape() // not a pseudo word's: ShapeBroken reads the executed words only
	case isa.OpDMAIndirect:
		c.indirect1D()
		c.shape()
	case isa.OpDMATranspose:
		c.xpose()
		c.shape()
	case isa.OpDMAGatherTranspose:
		c.gatherXpose()
		c.shape()
	case isa.OpDMAMemcpy2:
		c.copy2D()
	case isa.OpDMAImmediate:
		c.immediate()
	case isa.OpTestEventSem:
		c.testES()
	case isa.OpCompactControlInst:
		c.cci()
	case isa.OpPseudoExtension:
		c.pseudoExt()
	case isa.OpTensorLoad, isa.OpTensorStore, isa.OpPseudoTensorLoad, isa.OpPseudoTensorStore:
		c.mem2D()
	case isa.OpExtendedInst:
		c.extended()
	default:
		c.computeOperands()
	}
	if p, ok := in.PseudoDirect2D(); ok && hasExtContext {
		if _, ok := in.Ext(); !ok && p.DGEOp() == isa.DGEOpcodeDMAIndirect1D {
			c.fail(pHasExt, "dge_op", "DMA_INDIRECT1D", "a dge_op 1 word must be followed by a PSEUDO_EXTENSION (0xda) word")
		}
	}
	return c.out
}

// shape applies the counts and steps both executors refuse
// (control.ShapeBroken): a zero count, and where a DGE lowers the word
// (not on SUNDA; GenAny skips it) a step that is no whole number of
// elements.
func (c *checker) shape() {
	for _, b := range control.ShapeBroken(c.in, c.gen) {
		if b.Rule == pWholeSteps && c.gen == isa.GenAny {
			continue
		}
		c.fail(b.Rule, b.Field, b.Value, b.Want)
	}
}

// Stream decodes and checks a whole stream, numbering words by their index.
func Stream(gen isa.Gen, code []byte) ([]Problem, error) {
	var out []Problem
	d := isa.NewDecoder(gen, code)
	for d.Next() {
		in := d.Inst()
		idx := d.Offset() / isa.WordSize
		for _, p := range Validate(in, gen) {
			p.Index += idx
			p.Offset += d.Offset()
			out = append(out, p)
		}
		if in.Opcode() == isa.OpPseudoExtension { // a 0xda the decoder did not pair with a 0xd4
			c := &checker{in: in, gen: gen}
			c.fail(pFollowsPseudo, "", "", "a PSEUDO_EXTENSION (0xda) word must come right after a PSEUDO_DMA_DIRECT2D (0xd4)")
			for _, p := range c.out {
				p.Index, p.Offset = idx, d.Offset()
				out = append(out, p)
			}
		}
	}
	return out, d.Err()
}

// Errors counts the problems of Error severity.
func Errors(ps []Problem) int {
	n := 0
	for _, p := range ps {
		if p.Severity == Error {
			n++
		}
	}
	return n
}

// computeOperands applies what the compute engines refuse before they run
// a word (docs/compute.md §14): operands inside SBUF/PSUM's active
// partitions and bytes, equal element counts, the dtypes and ALU ops the
// word takes, a modeled activation function.
func (c *checker) computeOperands() {
	if c.gen == isa.GenAny {
		return
	}
	err := compute.Check(c.gen, c.in)
	var f *compute.Fault
	if errors.As(err, &f) {
		value := ""
		if f.Addr != 0 {
			value = fmt.Sprintf("%#x", f.Addr)
		}
		c.fail(pComputeOperands, f.Field, value, f.Err.Error())
	}
}
