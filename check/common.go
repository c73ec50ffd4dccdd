package check

import (
	"fmt"

	"ndma/isa"
)

// Rules of every word (docs/validate.md "Every word").

// enumFieldsOwn lists enum fields that have a predicate of their own.
var enumFieldsOwn = map[*isa.Enum]bool{
	isa.DType(): true, isa.WaitMode(): true, isa.UpdateMode(): true, isa.DGEOpcode(): true, isa.IndirectMode(): true,
	isa.TestEvtSemMode(): true, isa.DMAAddrMode(): true, isa.DMASemaUpdateMode(): true,
}

func (c *checker) common() {
	d := c.in.Def()
	if c.gen != isa.GenAny && d.GensKnown && !d.Gens.Has(c.gen) {
		c.failf(pOpcodeForGen, "header.opcode", d.Mnemonic(), "exists on %s only", d.Gens)
		if c.in.Opcode() == isa.OpDMATranspose || c.in.Opcode() == isa.OpDMAGatherTranspose {
			c.failf(pXposeNC, "header.opcode", d.Mnemonic(), "needs nc >= V3 (CAYMAN); %s is %s", c.gen, c.gen.Version())
		}
	}
	if !d.Known() {
		// ndma's catalog is a part of NEURON_ISA_TPB_OPCODE, not the whole enum: an
		// opcode outside it may be a legal word of another engine (neff.md §4.7), so
		// it is listed, never a header error (RATIONALE.md "Validation").
		c.warnf(pKnownOpcode, "header.opcode", fmt.Sprintf("0x%02x", uint8(c.in.Opcode())), "unknown to ndma: listed raw (header, EVENTS, payload bytes), its EVENTS honoured, its payload not checked")
	}
	if d.Pseudo {
		c.warnf(pPseudo, "header.opcode", d.Mnemonic(), "a pseudo word: compiler input, resolved by the runtime, never executed as is")
	}
	if h, ok := c.in.Header(); ok {
		// The opcode half of has_valid_neuron_header holds for every catalog row
		// (each is an enum name) and cannot be judged for the rest: the bits that
		// can be malformed on every generation are the length's.
		if n := h.InstWordLen(); n != 0x10 {
			c.failf(pHeader, "header.inst_word_len", fmt.Sprint(n), "must be 16 (0x10, in 4-byte words)")
		}
	}
	if ev, ok := c.in.Events(); ok {
		enumOn(c, pEvents, "events.wait_mode", ev.WaitMode())
		enumOn(c, pEvents, "events.update_mode", ev.UpdateMode())
	}
	lay := c.in.Layout()
	for i, l := range lay.Leaves() {
		f := l.Field
		v := c.in.Leaf(i)
		switch {
		case f.Reserved && v != 0:
			c.warnf(pReserved, trimChunk(l.Path), fmt.Sprintf("%#x", v), "reserved bits must be 0")
		case f.Enum == isa.DType() && v == 0 && lay == isa.MatmulV3() && l.Path == "out_dtype":
			// docs/compute.md §5.3: CAYMAN MATMUL's out_dtype is 0 in every
			// compiler-built word and the PSUM results are FP32: 0 reads as FP32.
		case f.Enum == isa.DType():
			if d := isa.DTypeCode(v); d == isa.DTypeInvalid || d == isa.DTypeUint64 || isa.DType().NameFor(v, c.gen) == "" { // UINT64 is "rejected by plain is_valid_dtype" (§5.1)
				c.failf(pDtype, l.Path, isa.DType().Format(v), "%s", dtypeWant(c.gen))
			}
		case f.Enum != nil && !enumFieldsOwn[f.Enum]:
			if f.Enum.NameFor(v, c.gen) == "" {
				c.failf(pEnum, l.Path, fmt.Sprint(v), "not a %s value (%s)", f.Enum.Name, namesOn(f.Enum, c.gen))
			}
		}
	}
}

func trimChunk(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '#' {
			return p[:i]
		}
	}
	return p
}

// enumCode is a value of one of isa's generated enum types.
type enumCode interface {
	~uint8
	Enum() *isa.Enum
}

// enumOn fails pred when the value v of field path is not named on the
// generation (or is the INVALID value).
func enumOn[T enumCode](c *checker, predicate, path string, v T) bool {
	e := v.Enum()
	n := e.NameFor(uint64(v), c.gen)
	if n == "" || n == "INVALID" {
		c.failf(predicate, path, e.Format(uint64(v)), "not a %s value on %s (%s)", e.Name, genName(c.gen), namesOn(e, c.gen))
		return false
	}
	return true
}

func genName(g isa.Gen) string {
	if g == isa.GenAny {
		return "any generation"
	}
	return g.String()
}

// namesOn lists the named values of e on g, short.
func namesOn(e *isa.Enum, g isa.Gen) string {
	var s []string
	for _, v := range e.Values {
		if v.Gens.Has(g) && v.Name != "INVALID" {
			s = append(s, v.Name)
		}
	}
	if len(s) > 8 {
		return fmt.Sprintf("%s … %s", joinN(s[:4]), s[len(s)-1])
	}
	return joinN(s)
}

func joinN(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func dtypeWant(g isa.Gen) string {
	return fmt.Sprintf("a DTYPE defined on %s, not INVALID or UINT64", genName(g))
}
