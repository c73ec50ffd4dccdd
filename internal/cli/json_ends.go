package cli

import (
	"ndma/isa"
)

// endJSON is one end of a transfer in the --json of the runs (docs/json.md
// "A transfer"): the Neuron address its first DMA word's leg starts at, as
// a number, and the address split into fields (field-tables §11.2).
type endJSON struct {
	// Space is the region of the address (sbuf, psum, hbm, unmapped), or
	// registers (a TENSOR_LOAD's destination, a TENSOR_STORE's source),
	// or "" when the word gives no immediate address (a register-based
	// ADDR8 the executor reads at run time).
	Space     string  `json:"space"`
	Address   *uint64 `json:"address"`   // null: no immediate address (registers, a register-based leg)
	Partition int     `json:"partition"` // sbuf/psum: the partition; else 0
	Offset    uint64  `json:"offset"`    // sbuf/psum: the byte offset in the partition; hbm: from the HBM base
	Variable  string  `json:"variable"`  // neff run: the variable (not the state buffer) whose bytes hold it; "" for none
}

// wordEnds are the start addresses of the first word of run that has
// both legs (DMA words: DMA_DIRECT2D, DMA_INDIRECT1D, the transposes, the
// scalar movers' memory leg); ok false when none has.
func wordEnds(run []isa.Inst) (src, dst endJSON, ok bool) {
	leg := func(a isa.Addr8) endJSON {
		if v, ok := a.Imm(); ok {
			return endJSON{Address: &v}
		}
		return endJSON{}
	}
	regs := endJSON{Space: "registers"}
	for i := range run {
		in := &run[i]
		if v, ok := in.Direct2D(); ok {
			return leg(v.SrcStartAddr()), leg(v.DstStartAddr()), true
		}
		if v, ok := in.Indirect1D(); ok {
			return leg(v.SrcStartAddr()), leg(v.DstStartAddr()), true
		}
		if v, ok := in.Xpose(); ok {
			return leg(v.SrcStartAddr()), leg(v.DstStartAddr()), true
		}
		if v, ok := in.GatherXpose(); ok {
			return leg(v.SrcStartAddr()), leg(v.DstStartAddr()), true
		}
		if v, ok := in.Mem2D(); ok {
			if in.Opcode() == isa.OpTensorLoad {
				return leg(v.StartAddr()), regs, true
			}
			return regs, leg(v.StartAddr()), true
		}
	}
	return endJSON{}, endJSON{}, false
}

// split fills the region fields of an end with an address on gen.
func (e *endJSON) split(gen isa.Gen) {
	if e.Address == nil {
		return
	}
	r, part, off := isa.Map(gen).Split(*e.Address)
	e.Space, e.Partition, e.Offset = r.String(), part, off
}
