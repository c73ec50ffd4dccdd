package asm

import (
	"strings"
	"sync"

	"ndma/isa"
)

// The COMPACT_CONTROL_INST block (docs/asm.md): up to 15 indented compact
// instructions after the mnemonic line, with block-local labels; a branch
// target is the slot offset relative to the branch's own slot (INFERRED).

const cciSlots = 15

type slotLine struct {
	s    stmt
	off  int
	slot int
}

// cciBlock assembles the slot statements into the word's insts.
func (a *assembler) cciBlock(in *isa.Inst, slots []stmt, head stmt) bool {
	ok := true
	labels := a.ccLabels
	clear(labels)
	n := 0
	lines := a.ccLines[:0]
	defer func() { a.ccLines = lines[:0] }()
	for _, s := range slots {
		off := 0
		if name, rest, isLabel := leadingLabel(s.ll.text); isLabel {
			if _, dup := labels[name]; dup {
				a.errorf(s.ll, 0, "label %q defined twice in this compact_control_inst block", name)
				ok = false
			}
			labels[name] = n
			off = rest
			if off == len(s.ll.text) {
				continue
			}
		}
		if n == cciSlots {
			a.errorf(s.ll, off, "more than %d compact instructions", cciSlots)
			return false
		}
		lines = append(lines, slotLine{s: s, off: off, slot: n})
		n++
	}
	for _, l := range lines {
		v, err := a.ccInst(l.s.ll.text[l.off:], l.slot, labels)
		if err != nil {
			a.errorf(l.s.ll, l.off+err.at, "%s", err.msg)
			ok = false
			continue
		}
		if e := in.SetLeaf(a.cciFirst(in)+l.slot, uint64(v)); e != nil {
			a.errorf(l.s.ll, l.off, "%v", e)
			ok = false
		}
	}
	return ok
}

// ccNames are the CCOP names in lower case (for "did you mean").
var ccNames = sync.OnceValue(func() []string {
	var out []string
	for _, v := range isa.CCOp().Values {
		out = append(out, strings.ToLower(v.Name))
	}
	return out
})

// cciFirst is the leaf index of insts[0].
func (a *assembler) cciFirst(in *isa.Inst) int {
	for _, it := range keysOf(in.Layout()).items {
		if it.field.Kind == isa.KCCInst {
			return it.first
		}
	}
	panic("asm: COMPACT_CONTROL_INST layout without insts")
}

// ccInst parses one compact instruction.
func (a *assembler) ccInst(t string, slot int, labels map[string]int) (uint32, *valueError) {
	op, rest, _ := strings.Cut(t, " ")
	rest = strings.TrimSpace(rest)
	restAt := len(t) - len(rest)
	if strings.EqualFold(op, ".inst") {
		neg, v, err := a.number(rest)
		if err != nil || neg || v > 0xffffffff {
			return 0, verr(restAt, ".inst wants the slot's 4 bytes as a u32 (0..0xffffffff)")
		}
		return uint32(v), nil
	}
	code, found := isa.CCOp().Parse(op)
	if !found {
		return 0, verr(0, "unknown compact instruction %s%s", op, didYouMean(op, ccNames()))
	}
	lop := strings.ToLower(op)
	want, _ := isa.CCSyntax(isa.CCMember(uint8(code)))
	a.ccParts = splitTop(a.ccParts[:0], rest)
	args := a.ccParts
	if len(want) == 0 && len(args) > 0 || len(want) > 0 && len(args) != len(want) {
		return 0, verr(restAt, "%s takes %d operands (%s)", lop, len(want), ccUsage(op, want))
	}
	vals := a.ccVals
	clear(vals)
	for k, name := range want {
		arg := args[k]
		at := restAt + arg.at
		if arg.text == "" {
			return 0, verr(at, "%s: missing operand %d (%s)", lop, k+1, ccUsage(op, want))
		}
		switch {
		case isa.CCRegisterOperand(name):
			r, err := register(arg.text)
			if err != nil {
				return 0, verr(at, "%s: %v", lop, err)
			}
			vals[name] = int64(r)
		case name == "addr":
			inner := strings.TrimSpace(arg.text)
			if len(inner) < 2 || inner[0] != '[' || inner[len(inner)-1] != ']' {
				return 0, verr(at, "%s: want [rN+OFFSET]", lop)
			}
			reg, off, hasOff := strings.Cut(inner[1:len(inner)-1], "+")
			r, err := register(reg)
			if err != nil {
				return 0, verr(at+1, "%s: %v", lop, err)
			}
			vals["addr_reg"] = int64(r)
			if hasOff {
				neg, o, err := a.number(strings.TrimSpace(off))
				if err != nil || neg || o > 0xff {
					return 0, verr(at+1+len(reg)+1, "%s: addr_imm: %s does not fit u8 (0..255)", lop, strings.TrimSpace(off))
				}
				vals["addr_imm"] = int64(o)
			}
		case name == "target":
			if isIdentStart(arg.text[0]) {
				if s, ok := labels[arg.text]; ok {
					vals[name] = int64(s - slot)
					continue
				}
				if _, ok := a.symbol(arg.text); !ok {
					return 0, verr(at, "label %q not found", arg.text)
				}
			}
			neg, m, err := a.number(arg.text)
			if err != nil {
				return 0, verr(at, "%s: target: %v", lop, err)
			}
			bits, err := fitInt(neg, m, 16, true)
			if err != nil {
				return 0, verr(at, "%s: target: %v", lop, err)
			}
			vals[name] = int64(int16(bits))
		default:
			neg, m, err := a.number(arg.text)
			if err != nil {
				return 0, verr(at, "%s: %s: %v", lop, name, err)
			}
			if neg || m > 0xffffffff {
				return 0, verr(at, "%s: %s: %s is out of range", lop, name, arg.text)
			}
			vals[name] = int64(m)
		}
	}
	v, err := isa.BuildCCInst(uint8(code), vals)
	if err != nil {
		return 0, verr(restAt, "%s: %v", lop, err)
	}
	return v, nil
}

func ccUsage(op string, want []string) string {
	if len(want) == 0 {
		return strings.ToLower(op)
	}
	parts := make([]string, len(want))
	for i, w := range want {
		switch {
		case isa.CCRegisterOperand(w):
			parts[i] = "r" + strings.ToUpper(w)
		case w == "addr":
			parts[i] = "[rADDR+IMM]"
		default:
			parts[i] = strings.ToUpper(w)
		}
	}
	return strings.ToLower(op) + " " + strings.Join(parts, ", ")
}
