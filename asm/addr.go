package asm

import (
	"fmt"
	"strconv"
	"strings"

	"ndma/isa"
)

// Address syntax (docs/asm.md "Addresses"): the value text of an ADDR8,
// PSEUDO_ADDR8, ADDR4 or DMA_ADDR_UNION field to its raw union bits, through
// isa.BuildArm so that the arm tables stay the only place bit positions live.

func (a *assembler) address(kind isa.Kind, val string) (uint64, *valueError) {
	if v, ok := a.plainImmediate(kind, val); ok { // the common case, without the arm machinery
		return v, nil
	}
	var marker uint64
	at := 0
	// wrappers add marker bits: shape(…) SHAPE_REG, indirect(…) ADDR4 INDIRECT
	for {
		if inner, ok := call(val, "shape"); ok && kind != isa.KDMAAddr {
			marker |= isa.MarkerShapeReg
			at += len("shape(")
			val = inner
			continue
		}
		if inner, ok := call(val, "indirect"); ok && kind == isa.KAddr4 {
			marker |= 0x20
			at += len("indirect(")
			val = inner
			continue
		}
		break
	}
	arm, vals, err := a.addrArm(kind, val)
	if err != nil {
		err.at += at
		return 0, err
	}
	if arm == "raw" {
		if marker != 0 {
			return 0, verr(at, "raw(…) carries its own marker: no shape(…)/indirect(…) around it")
		}
		marker = vals["marker"]
		arm = ""
	}
	if kind == isa.KAddr8 || kind == isa.KPseudoAddr8 {
		if marker&^isa.MarkerMask != 0 {
			return 0, verr(at, "marker %#x has bits outside the mask 0xfc", marker)
		}
	}
	if kind == isa.KAddr4 && marker&^isa.Addr4MarkerMask != 0 {
		return 0, verr(at, "marker %#x has bits outside the mask 0xe0", marker)
	}
	if arm == "" { // raw: whatever arm the marker selects, filled from the payload
		return a.rawUnion(kind, marker, vals["payload"], at)
	}
	v, e := isa.BuildArm(kind, arm, marker, vals)
	if e != nil {
		return 0, verr(at, "%v", e)
	}
	return v, nil
}

// rawUnion is raw(MARKER, PAYLOAD): the marker byte over the payload bits.
func (a *assembler) rawUnion(kind isa.Kind, marker, payload uint64, at int) (uint64, *valueError) {
	switch kind {
	case isa.KAddr8, isa.KPseudoAddr8:
		if payload>>58 != 0 {
			return 0, verr(at, "raw payload %#x does not fit 58 bits", payload)
		}
		return marker<<56 | payload, nil
	case isa.KAddr4:
		if payload>>29 != 0 {
			return 0, verr(at, "raw payload %#x does not fit 29 bits", payload)
		}
		return marker<<24 | payload, nil
	}
	return 0, verr(at, "raw(…) is for ADDR8 and ADDR4; a DMA_ADDR_UNION is a number or regs(…)")
}

// addrArm parses the form inside any wrappers: the arm name and its fields.
func (a *assembler) addrArm(kind isa.Kind, val string) (string, map[string]uint64, *valueError) {
	pseudo := kind == isa.KPseudoAddr8
	switch {
	case hasPrefixFold(val, "reg("):
		inner, ok := call(val, "reg")
		if !ok {
			return "", nil, verr(0, "malformed reg(…)")
		}
		a.addrParts = splitTop(a.addrParts[:0], inner)
		args := a.addrParts
		if kind == isa.KAddr4 {
			if len(args) != 1 {
				return "", nil, verr(0, "an ADDR4 register is reg(rN)")
			}
			r, err := register(args[0].text)
			if err != nil {
				return "", nil, verr(4+args[0].at, "%v", err)
			}
			return "reg", a.kv("reg", r), nil
		}
		if kind == isa.KDMAAddr || len(args) != 2 {
			return "", nil, verr(0, "an ADDR8 register address is reg(rLO, rHI)")
		}
		lo, err := register(args[0].text)
		if err != nil {
			return "", nil, verr(4+args[0].at, "%v", err)
		}
		hi, err := register(args[1].text)
		if err != nil {
			return "", nil, verr(4+args[1].at, "%v", err)
		}
		return "reg", a.kv("reg_lo", lo, "reg_hi", hi), nil
	case hasPrefixFold(val, "var("), hasPrefixFold(val, "tbl("):
		name := strings.ToLower(val[:3])
		if !pseudo {
			return "", nil, verr(0, "%s(…) addresses exist only in PSEUDO_DMA_DIRECT2D words", name)
		}
		close := strings.IndexByte(val, ')')
		if close < 0 {
			return "", nil, verr(0, "malformed %s(…)", name)
		}
		neg, id, err := a.number(strings.TrimSpace(val[4:close]))
		if err != nil {
			return "", nil, verr(4, "%v", err)
		}
		if neg || id > 0xffff {
			return "", nil, verr(4, "%s id must be 0..65535", name)
		}
		var off uint64
		if rest := val[close+1:]; rest != "" {
			if rest[0] != '+' {
				return "", nil, verr(close+1, "want %s(N)+OFFSET", name)
			}
			neg, o, err := a.number(rest[1:])
			if err != nil || neg || o > 0xffffffff {
				return "", nil, verr(close+2, "offset must be 0..0xffffffff")
			}
			off = o
		}
		if name == "var" {
			return "var", a.kv("var_id", id, "var_offset", off), nil
		}
		return "tbl", a.kv("index", id, "offset", off), nil
	case hasPrefixFold(val, "regs("):
		if kind != isa.KDMAAddr {
			return "", nil, verr(0, "regs(…) is the v5 DMA_ADDR_UNION register arm")
		}
		inner, _ := call(val, "regs")
		a.addrParts = splitTop(a.addrParts[:0], inner)
		args := a.addrParts
		if len(args) != 4 && len(args) != 5 {
			return "", nil, verr(0, "want regs(rBASE, rOFFSET, rINC, IMM[, RESERVED])")
		}
		vals := a.kv()
		for k, n := range []string{"base_reg", "offset_reg", "inc_reg"} {
			r, err := register(args[k].text)
			if err != nil {
				return "", nil, verr(5+args[k].at, "%v", err)
			}
			vals[n] = r
		}
		neg, imm, err := a.number(args[3].text)
		if err != nil || neg || imm > 0xffffffff {
			return "", nil, verr(5+args[3].at, "offset_imm must be 0..0xffffffff")
		}
		vals["offset_imm"] = imm
		if len(args) == 5 {
			neg, r, err := a.number(args[4].text)
			if err != nil || neg || r > 0xff {
				return "", nil, verr(5+args[4].at, "reserved must be 0..255")
			}
			vals["reserved"] = r
		}
		return "regs", vals, nil
	case hasPrefixFold(val, "raw("):
		inner, _ := call(val, "raw")
		a.addrParts = splitTop(a.addrParts[:0], inner)
		args := a.addrParts
		if len(args) != 2 {
			return "", nil, verr(0, "want raw(MARKER, PAYLOAD)")
		}
		neg, m, err := a.number(args[0].text)
		if err != nil || neg || m > 0xff {
			return "", nil, verr(4+args[0].at, "marker must be a byte")
		}
		neg, p, err := a.number(args[1].text)
		if err != nil || neg {
			return "", nil, verr(4+args[1].at, "payload must be a non-negative number")
		}
		return "raw", a.kv("marker", m, "payload", p), nil
	}
	v, err := a.immediate(val)
	if err != nil {
		return "", nil, err
	}
	switch kind {
	case isa.KAddr4:
		if v > isa.Addr4ImmMask {
			return "", nil, verr(0, "%#x does not fit the 29-bit PartitionOffset", v)
		}
		return "imm", a.kv("addr", v), nil
	case isa.KDMAAddr:
		return "imm64", a.kv("addr", v), nil
	}
	if v>>58 != 0 {
		return "", nil, verr(0, "%#x does not fit a 58-bit ADDR8 immediate", v)
	}
	return "imm", a.kv("addr", v), nil
}

// plainImmediate handles a bare number or sugar address that fits its
// union's immediate arm (marker 0); anything else takes the general path.
func (a *assembler) plainImmediate(kind isa.Kind, val string) (uint64, bool) {
	if val == "" || !(val[0] >= '0' && val[0] <= '9' || hasPrefixFold(val, "sbuf:") || hasPrefixFold(val, "hbm:") || hasPrefixFold(val, "psum:")) {
		return 0, false
	}
	v, err := a.immediate(val)
	if err != nil {
		return 0, false
	}
	switch kind {
	case isa.KAddr4:
		return v, v <= isa.Addr4ImmMask
	case isa.KDMAAddr:
		return v, true
	}
	return v, v>>58 == 0
}

// immediate parses a number or the sugar sbuf:P:OFF, psum:P:OFF, hbm:OFF.
func (a *assembler) immediate(val string) (uint64, *valueError) {
	for _, r := range []isa.Region{isa.SBUF, isa.PSUM, isa.HBM} {
		prefix := r.String() + ":"
		if !hasPrefixFold(val, prefix) {
			continue
		}
		rest := val[len(prefix):]
		part := 0
		if r != isa.HBM {
			p, o, ok := strings.Cut(rest, ":")
			if !ok {
				return 0, verr(0, "want %s:PARTITION:OFFSET", r)
			}
			n, err := strconv.Atoi(p)
			if err != nil {
				return 0, verr(len(prefix), "partition %q is not a number", p)
			}
			part, rest = n, o
		}
		neg, off, err := a.number(rest)
		if err != nil || neg {
			return 0, verr(len(val)-len(rest), "offset %q is not a non-negative number", rest)
		}
		m := isa.Map(a.gen)
		if r == isa.PSUM && m.PSUMSize == 0 {
			return 0, verr(0, "%s has no PSUM", a.gen)
		}
		v, e := m.Join(r, part, off)
		if e != nil {
			return 0, verr(0, "%v", e)
		}
		return v, nil
	}
	neg, v, err := a.number(val)
	if err != nil {
		return 0, verr(0, "%v (want a number, sbuf:P:OFF, psum:P:OFF, hbm:OFF, reg(…), var(…), tbl(…), shape(…) or raw(…))", err)
	}
	if neg {
		return 0, verr(0, "an address cannot be negative")
	}
	return v, nil
}

// register parses rN (0..255).
func register(s string) (uint64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	n, err := strconv.ParseUint(strings.TrimPrefix(t, "r"), 10, 8)
	if !strings.HasPrefix(t, "r") || err != nil {
		return 0, fmt.Errorf("%q is not a register (r0..r255)", strings.TrimSpace(s))
	}
	return n, nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// kv refills the reused arm-field map with key/value pairs.
func (a *assembler) kv(kvs ...any) map[string]uint64 {
	clear(a.vals)
	for i := 0; i < len(kvs); i += 2 {
		a.vals[kvs[i].(string)] = kvs[i+1].(uint64)
	}
	return a.vals
}

// ParseAddress reads an address as the assembler does: a number, or the
// sugar sbuf:P:OFF, psum:P:OFF, hbm:OFF of generation g (field-tables §11.2)
// — and, for addresses copied from firmware traces and descriptors,
// soc:ADDR, a SoC address of core 0 (ndma's form, RATIONALE.md).
func ParseAddress(g isa.Gen, s string) (uint64, error) {
	a := &assembler{gen: g, labels: map[string]int{}, equs: map[string]int64{}}
	t := strings.TrimSpace(s)
	soc := len(t) > 4 && strings.EqualFold(t[:4], "soc:")
	if soc {
		t = t[4:]
	}
	v, err := a.immediate(t)
	if err != nil {
		msg := err.msg
		if i := strings.Index(msg, " (want a number"); i >= 0 { // a word's forms (reg, var, …) are not addresses here
			msg = msg[:i] + " (want a number, sbuf:P:OFF, psum:P:OFF, hbm:OFF or soc:ADDR)"
		}
		return 0, fmt.Errorf("address %q: %s", s, msg)
	}
	if soc {
		n, core, err := isa.Map(g).FromSoC(v)
		if err != nil {
			return 0, fmt.Errorf("address %q: %w", s, err)
		}
		if core != 0 {
			return 0, fmt.Errorf("address %q: SoC address of core %d; ndma's memory is core 0's", s, core)
		}
		return n, nil
	}
	return v, nil
}
