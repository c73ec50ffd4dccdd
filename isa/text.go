package isa

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The canonical assembly text of a word (docs/asm.md), printed here so that
// an Inst can print itself; package asm parses it back and prints whole
// streams with it.

// Key is one assembly key of a layout (docs/asm.md "Keys"): a scalar leaf, a
// whole array, or a byte range. It is spelled by its full path, by the last
// part of the path where that is unique (Name), and array elements by
// path[i].
type Key struct {
	Path   string // full path: "events.wait_mode", "src_num_elem"
	Name   string // canonical spelling: short where unique
	Field  *Field //
	First  int    // first leaf index
	NLeaf  int    // leaves in the key
	Count  int    // array elements (0 = scalar)
	Chunk  int    // leaves per element (byte ranges longer than 8 are chunked)
	Width  int    // bits of one scalar element
	Signed bool
}

// Keys are the layout's assembly keys in table order (a copy).
func (s *Struct) Keys() []Key { return slices.Clone(s.keys) }

var elemRe = regexp.MustCompile(`\[\d+\]$`)

// buildKeys groups the leaves into keys and names them.
func (s *Struct) buildKeys() {
	s.keys = nil
	leaves := s.leaves
	for i := 0; i < len(leaves); {
		l := &leaves[i]
		p, _, _ := strings.Cut(l.Path, "#")
		if l.Field.Count > 0 {
			p = elemRe.ReplaceAllString(p, "")
		}
		k := Key{Path: p, Field: l.Field, First: i, Count: l.Field.Count, Width: l.Bits, Signed: l.Signed()}
		j := i
		for j < len(leaves) && leaves[j].Field == l.Field && strings.HasPrefix(leaves[j].Path, p) && sameKey(leaves[j].Path, p) {
			j++
		}
		k.NLeaf = j - i
		k.Chunk = k.NLeaf
		if k.Count > 0 {
			k.Chunk = k.NLeaf / k.Count
		}
		s.keys = append(s.keys, k)
		i = j
	}
	short := map[string]int{}
	for _, k := range s.keys {
		short[lastPart(k.Path)]++
	}
	for i := range s.keys {
		k := &s.keys[i]
		k.Name = k.Path
		if p := lastPart(k.Path); short[p] == 1 && !tooGeneric(p) {
			k.Name = p
		}
	}
}

// tooGeneric names the member names that say nothing without their struct
// (DMA_ADDR_MODE_PAIR.src, DMA_CONFIGS.reserved): they keep their full path.
func tooGeneric(s string) bool {
	return s == "src" || s == "dst" || strings.HasPrefix(s, "reserved")
}

func sameKey(leafPath, key string) bool {
	rest := strings.TrimPrefix(leafPath, key)
	return rest == "" || rest[0] == '[' || rest[0] == '#'
}

func lastPart(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// String is the instruction's canonical assembly text, as `ndma disasm`
// prints it (AppendText; a 0xd4 with its 0xda extension is both words'
// lines), without the final newline.
func (in Inst) String() string {
	if in.def == nil {
		return "(empty instruction)"
	}
	b := in.AppendText(nil)
	if x, ok := in.Ext(); ok {
		b = x.AppendText(b)
	}
	return string(b[:len(b)-1])
}

// AppendText appends the canonical assembly text of the word (docs/asm.md):
// its line, and for a COMPACT_CONTROL_INST the 15 slot lines, each ending in
// a newline — what `ndma disasm` prints for it (its 0xda extension, if any,
// is a word of its own: see String).
func (in *Inst) AppendText(dst []byte) []byte {
	d := in.Def()
	if in.layout() == rawLayout {
		var w [WordSize]byte
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
	first := true
	var cci *Key
	for i := range in.Layout().keys {
		it := &in.Layout().keys[i]
		if it.First == 0 { // the opcode: the mnemonic says it
			continue
		}
		if it.Field.Kind == KCCInst {
			cci = it
			continue
		}
		if it.Path == "header.inst_word_len" {
			if in.Leaf(it.First) == 0x10 {
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
		dst = append(dst, it.Name...)
		dst = append(dst, '=')
		if it.Count > 0 {
			dst = append(dst, '[')
			for e := 0; e < it.Count; e++ {
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
		for k := 0; k < cci.Count; k++ {
			dst = append(dst, "    "...)
			dst = CCInst(in.Leaf(cci.First + k)).AppendText(dst)
			dst = append(dst, '\n')
		}
	}
	return dst
}

func allZero(in *Inst, it *Key) bool {
	for i := it.First; i < it.First+it.NLeaf; i++ {
		if in.Leaf(i) != 0 {
			return false
		}
	}
	return true
}

func appendElem(dst []byte, in *Inst, it *Key, e int) []byte {
	leaf := it.First + e*it.Chunk
	f := it.Field
	v := in.Leaf(leaf)
	switch f.Kind {
	case KBytes:
		if f.Text {
			var b [WordSize]byte
			for c := 0; c < it.Chunk; c++ {
				x := in.Leaf(leaf + c)
				for k := 0; k < min(8, f.Size-8*c); k++ {
					b[8*c+k] = byte(x >> (8 * k))
				}
			}
			if s, ok := TextBytes(b[:f.Size]); ok {
				dst = append(dst, '"')
				dst = append(dst, s...)
				return append(dst, '"')
			}
		}
		dst = append(dst, "bytes("...)
		for c := 0; c < it.Chunk; c++ {
			x := in.Leaf(leaf + c)
			n := min(8, f.Size-8*c)
			for k := 0; k < n; k++ {
				dst = append(dst, hexDigits[byte(x>>(8*k))>>4], hexDigits[byte(x>>(8*k))&15])
			}
		}
		return append(dst, ')')
	case KAddr8, KPseudoAddr8, KAddr4, KDMAAddr:
		return appendAddr(dst, in, leaf, f.Kind)
	}
	if f.Enum != nil {
		if n := f.Enum.NameFor(v, in.Gen); n != "" {
			return append(dst, n...)
		}
	}
	if it.Signed {
		s := 64 - uint(it.Width)
		return strconv.AppendInt(dst, int64(v<<s)>>s, 10)
	}
	return strconv.AppendUint(dst, v, 10)
}

const hexDigits = "0123456789abcdef"

// lowerMnemonic is each opcode's mnemonic in lower case, as disassembly prints it.
var lowerMnemonic = func() (m [256]string) {
	for i := range m {
		m[i] = strings.ToLower(Lookup(Opcode(i)).Mnemonic())
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
func appendAddr(dst []byte, in *Inst, leaf int, kind Kind) []byte {
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
	if kind == KDMAAddr {
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
	if m&MarkerShapeReg != 0 {
		wrap = append(wrap, "shape(")
		base &^= MarkerShapeReg
	}
	if kind == KAddr4 && m&0x20 != 0 && arm != "raw" {
		wrap = append(wrap, "indirect(")
		base &^= 0x20
	}
	var body []byte
	switch {
	case arm == "imm":
		body = appendImm(nil, in.Gen, get("addr"))
	case arm == "reg" && get("reserved") == 0 && kind == KAddr4:
		body = strconv.AppendUint([]byte("reg(r"), get("reg"), 10)
		body = append(body, ')')
	case arm == "reg" && get("reserved") == 0:
		body = strconv.AppendUint([]byte("reg(r"), get("reg_lo"), 10)
		body = strconv.AppendUint(append(body, ", r"...), get("reg_hi"), 10)
		body = append(body, ')')
	case (arm == "var" || arm == "tbl" && kind == KPseudoAddr8) && get("reserved") == 0:
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
		if kind == KAddr4 {
			payload = v & Addr4ImmMask
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
func appendImm(dst []byte, g Gen, a uint64) []byte {
	r, part, off := Map(g).Split(a)
	switch r {
	case SBUF, PSUM:
		dst = append(dst, r.String()...)
		dst = strconv.AppendInt(append(dst, ':'), int64(part), 10)
		return appendHex(append(dst, ':'), off)
	case HBM:
		return appendHex(append(dst, "hbm:"...), off)
	}
	return appendHex(dst, a)
}

// ccSyntax is the operand order in text, per CCINST member.
var ccSyntax = map[string][]string{
	"ALU":    {"dst", "src0", "src1"},
	"MOV":    {"dst", "src"},
	"MOVIMM": {"dst", "imm"},
	"BR":     {"cc_src", "target"},
	"BL":     {"dst", "target"},
	"MEM":    {"srcdst", "addr"}, // addr = [addr_reg+addr_imm]
	"SEMR":   {"dst", "semid"},
	"SEMU":   {"semid", "src0", "imm"},
	"NOP":    {},
}

// ccRegister are the operands written as a register (rN).
var ccRegister = map[string]bool{"dst": true, "src0": true, "src1": true, "src": true, "cc_src": true, "srcdst": true}

// CCSyntax is the operand names of a CCINST member in text order (a copy):
// "addr" is [rADDR+IMM] (addr_reg, addr_imm), CCRegisterOperand names the
// registers. ok is false for a member without a text form.
func CCSyntax(member string) (operands []string, ok bool) {
	s, ok := ccSyntax[member]
	return slices.Clone(s), ok
}

// CCRegisterOperand reports whether a CCSyntax operand is a register (rN).
func CCRegisterOperand(name string) bool { return ccRegister[name] }

// AppendText appends the slot's canonical assembly text (no newline).
func (c CCInst) AppendText(dst []byte) []byte {
	member, fields := CCInstFields(uint32(c))
	want, known := ccSyntax[member]
	for _, f := range fields {
		if f.Name == "reserved" && f.Value != 0 {
			known = false
		}
	}
	if !known {
		return fmt.Appendf(dst, ".inst 0x%08x", c)
	}
	get := map[string]ArmField{}
	for _, f := range fields {
		get[f.Name] = f
	}
	dst = append(dst, strings.ToLower(ccOpEnum.NameOf(uint64(uint8(c))))...)
	for k, name := range want {
		if k == 0 {
			dst = append(dst, ' ')
		} else {
			dst = append(dst, ", "...)
		}
		switch {
		case ccRegister[name]:
			dst = append(dst, 'r')
			dst = strconv.AppendUint(dst, get[name].Value, 10)
		case name == "addr":
			if imm := get["addr_imm"].Value; imm != 0 {
				dst = fmt.Appendf(dst, "[r%d+%d]", get["addr_reg"].Value, imm)
			} else {
				dst = fmt.Appendf(dst, "[r%d]", get["addr_reg"].Value)
			}
		default:
			dst = strconv.AppendInt(dst, get[name].Int, 10)
		}
	}
	return dst
}
