package asm

import (
	"encoding/hex"
	"strconv"
	"strings"

	"ndma/isa"
)

// Disassemble prints the canonical text of a stream of words (docs/asm.md):
// a .gen line when gen is known, then one line per word — fields in table
// order, only those not zero, enums by name, addresses in sugar form — and
// the indented slots of a COMPACT_CONTROL_INST. Assemble(Disassemble(w)) == w.
func Disassemble(gen isa.Gen, code []byte) ([]byte, error) {
	out := make([]byte, 0, len(code)*6+64) // canonical text runs to ~5 bytes per word byte
	if gen != isa.GenAny {
		out = append(out, ".gen "...)
		out = append(out, strings.ToLower(gen.String())...)
		out = append(out, '\n')
	}
	d := isa.NewDecoder(gen, code)
	for d.Next() {
		in := d.Inst()
		out = AppendInst(out, in)
		if x, ok := in.Ext(); ok {
			out = AppendInst(out, &x)
		}
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// AppendInst appends the canonical text of one word (its line, and for a
// COMPACT_CONTROL_INST the 15 slot lines), each ending in a newline.
func AppendInst(dst []byte, in *isa.Inst) []byte {
	d := in.Def()
	if !d.Decoded() {
		var w [isa.WordSize]byte
		in.EncodeTo(w[:])
		dst = append(dst, ".word "...)
		dst = hex.AppendEncode(dst, w[:])
		if d.Known() {
			dst = append(dst, "  # "...)
			dst = append(dst, d.Name...)
		}
		return append(dst, '\n')
	}
	dst = append(dst, lowerMnemonic[d.Opcode]...)
	kt := keysOf(in.Layout())
	first := true
	var cci *item
	for _, it := range kt.items {
		if it.first == 0 { // the opcode: the mnemonic says it
			continue
		}
		if it.field.Kind == isa.KCCInst {
			cci = it
			continue
		}
		if it.path == "header.inst_word_len" {
			if in.Leaf(it.first) == 0x10 {
				continue
			}
		} else if allZero(in, it) {
			continue
		}
		if first {
			dst = append(dst, ' ')
			first = false
		} else {
			dst = append(dst, ", "...)
		}
		dst = append(dst, it.name...)
		dst = append(dst, '=')
		if it.count > 0 {
			dst = append(dst, '[')
			for e := 0; e < it.count; e++ {
				if e > 0 {
					dst = append(dst, ", "...)
				}
				dst = appendElem(dst, in, it, e)
			}
			dst = append(dst, ']')
		} else {
			dst = appendElem(dst, in, it, 0)
		}
	}
	dst = append(dst, '\n')
	if cci != nil {
		for k := 0; k < cci.count; k++ {
			dst = append(dst, "    "...)
			dst = appendCCInst(dst, uint32(in.Leaf(cci.first+k)))
			dst = append(dst, '\n')
		}
	}
	return dst
}

func allZero(in *isa.Inst, it *item) bool {
	for i := it.first; i < it.first+it.nleaf; i++ {
		if in.Leaf(i) != 0 {
			return false
		}
	}
	return true
}

func appendElem(dst []byte, in *isa.Inst, it *item, e int) []byte {
	leaf := it.first + e*it.chunk
	f := it.field
	v := in.Leaf(leaf)
	switch f.Kind {
	case isa.KBytes:
		if f.Text {
			var b [isa.WordSize]byte
			for c := 0; c < it.chunk; c++ {
				x := in.Leaf(leaf + c)
				for k := 0; k < min(8, f.Size-8*c); k++ {
					b[8*c+k] = byte(x >> (8 * k))
				}
			}
			if s, ok := isa.TextBytes(b[:f.Size]); ok {
				dst = append(dst, '"')
				dst = append(dst, s...)
				return append(dst, '"')
			}
		}
		dst = append(dst, "bytes("...)
		for c := 0; c < it.chunk; c++ {
			x := in.Leaf(leaf + c)
			n := min(8, f.Size-8*c)
			for k := 0; k < n; k++ {
				dst = append(dst, hexDigits[byte(x>>(8*k))>>4], hexDigits[byte(x>>(8*k))&15])
			}
		}
		return append(dst, ')')
	case isa.KAddr8, isa.KPseudoAddr8, isa.KAddr4, isa.KDMAAddr:
		return appendAddr(dst, in, leaf, f.Kind)
	}
	if f.Enum != nil {
		if n := f.Enum.NameFor(v, in.Gen); n != "" {
			return append(dst, n...)
		}
	}
	if it.sign {
		s := 64 - uint(it.width)
		return strconv.AppendInt(dst, int64(v<<s)>>s, 10)
	}
	return strconv.AppendUint(dst, v, 10)
}

const hexDigits = "0123456789abcdef"

// lowerMnemonic is each opcode's mnemonic in lower case, as disassembly prints it.
var lowerMnemonic = func() (m [256]string) {
	for i := range m {
		m[i] = strings.ToLower(isa.Lookup(isa.Opcode(i)).Mnemonic())
	}
	return m
}()

func appendHex(dst []byte, v uint64) []byte {
	dst = append(dst, "0x"...)
	return strconv.AppendUint(dst, v, 16)
}

// appendAddr prints a union in the nicest exact form: sugar or hex for an
// immediate, reg(…), var(…)+off, tbl(…)+off, regs(…), wrapped in shape(…)
// or indirect(…) for their marker bits, and raw(MARKER, PAYLOAD) otherwise.
func appendAddr(dst []byte, in *isa.Inst, leaf int, kind isa.Kind) []byte {
	arm, marker, fields := in.UnionArm(leaf)
	get := func(n string) uint64 {
		for _, f := range fields {
			if f.Name == n {
				return f.Value
			}
		}
		return 0
	}
	v := in.Leaf(leaf)
	if kind == isa.KDMAAddr {
		if arm == "imm64" {
			return appendImm(dst, in.Gen, v)
		}
		dst = append(dst, "regs("...)
		dst = strconv.AppendUint(append(dst, 'r'), get("base_reg"), 10)
		dst = strconv.AppendUint(append(dst, ", r"...), get("offset_reg"), 10)
		dst = strconv.AppendUint(append(dst, ", r"...), get("inc_reg"), 10)
		dst = appendHex(append(dst, ", "...), get("offset_imm"))
		if r := get("reserved"); r != 0 {
			dst = strconv.AppendUint(append(dst, ", "...), r, 10)
		}
		return append(dst, ')')
	}
	m := uint64(marker)
	var wrap []string
	base := m
	if m&isa.MarkerShapeReg != 0 {
		wrap = append(wrap, "shape(")
		base &^= isa.MarkerShapeReg
	}
	if kind == isa.KAddr4 && m&0x20 != 0 && arm != "raw" {
		wrap = append(wrap, "indirect(")
		base &^= 0x20
	}
	var body []byte
	switch {
	case arm == "imm":
		body = appendImm(nil, in.Gen, get("addr"))
	case arm == "reg" && get("reserved") == 0 && kind == isa.KAddr4:
		body = strconv.AppendUint([]byte("reg(r"), get("reg"), 10)
		body = append(body, ')')
	case arm == "reg" && get("reserved") == 0:
		body = strconv.AppendUint([]byte("reg(r"), get("reg_lo"), 10)
		body = strconv.AppendUint(append(body, ", r"...), get("reg_hi"), 10)
		body = append(body, ')')
	case (arm == "var" || arm == "tbl" && kind == isa.KPseudoAddr8) && get("reserved") == 0:
		id, off := get("var_id"), get("var_offset")
		if arm == "tbl" {
			id, off = get("index"), get("offset")
		}
		body = strconv.AppendUint(append([]byte(arm), '('), id, 10)
		body = append(body, ')')
		if off != 0 {
			body = appendHex(append(body, '+'), off)
		}
	default: // no exact form of its own
		payload := v & (1<<58 - 1)
		if kind == isa.KAddr4 {
			payload = v & isa.Addr4ImmMask
		}
		dst = appendHex(append(dst, "raw("...), m)
		dst = appendHex(append(dst, ", "...), payload)
		return append(dst, ')')
	}
	for _, w := range wrap {
		dst = append(dst, w...)
	}
	dst = append(dst, body...)
	for range wrap {
		dst = append(dst, ')')
	}
	return dst
}

// appendImm prints an immediate address as sugar when it falls in a region.
func appendImm(dst []byte, g isa.Gen, a uint64) []byte {
	r, part, off := isa.Map(g).Split(a)
	switch r {
	case isa.SBUF, isa.PSUM:
		dst = append(dst, r.String()...)
		dst = strconv.AppendInt(append(dst, ':'), int64(part), 10)
		return appendHex(append(dst, ':'), off)
	case isa.HBM:
		return appendHex(append(dst, "hbm:"...), off)
	}
	return appendHex(dst, a)
}
