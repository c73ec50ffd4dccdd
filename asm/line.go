package asm

import (
	"fmt"
	"strconv"
	"strings"

	"ndma/isa"
)

// inst parses one instruction line: mnemonic, then key=value pairs. It
// returns the instruction (nil when the mnemonic is unknown) and whether the
// line had no error.
func (a *assembler) inst(s stmt) (*isa.Inst, bool) {
	t := s.ll.text
	i := s.off
	j := i
	for j < len(t) && t[j] != ' ' && t[j] != '\t' {
		j++
	}
	mn := t[i:j]
	d, err := isa.LookupName(mn)
	if err != nil {
		a.errorf(s.ll, i, "unknown mnemonic %q", mn)
		return nil, false
	}
	if !d.Decoded() {
		a.errorf(s.ll, i, "%s has no layout table: write it as .word", d.Mnemonic())
		return nil, false
	}
	in := isa.New(a.gen, d.Opcode)
	kt := keysOf(in.Layout())
	ok := true
	seen := map[*item]map[int]bool{}
	var dmaChecks []dmaCheck
	for {
		for j < len(t) && (t[j] == ' ' || t[j] == '\t' || t[j] == ',') {
			j++
		}
		if j >= len(t) {
			break
		}
		kStart := j
		for j < len(t) && t[j] != '=' && t[j] != ' ' && t[j] != '\t' && t[j] != ',' {
			j++
		}
		key := t[kStart:j]
		if j >= len(t) || t[j] != '=' {
			a.errorf(s.ll, kStart, "expected key=value, found %q", key)
			return &in, false
		}
		j++
		vStart := j
		depth := 0
		for j < len(t) {
			c := t[j]
			if c == '[' || c == '(' {
				depth++
			} else if c == ']' || c == ')' {
				depth--
			} else if depth <= 0 && (c == ',' || c == ' ' || c == '\t') {
				break
			}
			j++
		}
		val := t[vStart:j]
		ref, found := kt.keys[key]
		if !found {
			msg := fmt.Sprintf("unknown field %s for %s", key, d.Mnemonic())
			if sug := kt.suggest(key); sug != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", sug)
			} else if strings.Contains(key, ".") || ambiguousShort(kt, key) {
				msg += " (" + candidates(kt, key) + ")"
			}
			a.errorf(s.ll, kStart, "%s", msg)
			ok = false
			continue
		}
		it := ref.it
		if it.first == 0 || it.path == "header.opcode" {
			a.errorf(s.ll, kStart, "%s: the opcode comes from the mnemonic", key)
			ok = false
			continue
		}
		if it.field.Kind == isa.KCCInst {
			a.errorf(s.ll, kStart, "%s: compact instructions are written as an indented block", key)
			ok = false
			continue
		}
		if seen[it] == nil {
			seen[it] = map[int]bool{}
		}
		if seen[it][ref.elem] || seen[it][-1] || ref.elem == -1 && len(seen[it]) > 0 {
			a.errorf(s.ll, kStart, "%s given twice", key)
			ok = false
			continue
		}
		seen[it][ref.elem] = true
		if val == "" {
			a.errorf(s.ll, vStart, "%s: missing value", key)
			ok = false
			continue
		}
		if err := a.setItem(&in, it, ref.elem, val); err != nil {
			a.errorf(s.ll, vStart+err.at, "%s: %s", label(it, ref.elem, err.elem), err.msg)
			ok = false
			continue
		}
		if it.field.Kind == isa.KDMAAddr {
			dmaChecks = append(dmaChecks, dmaCheck{it: it, regs: strings.HasPrefix(strings.TrimSpace(val), "regs("), at: vStart})
		}
	}
	for _, c := range dmaChecks {
		name, _, _ := in.UnionArm(c.it.first)
		if (name == "regs") != c.regs {
			want := "a register mode"
			if !c.regs {
				want = "IMM64"
			}
			a.errorf(s.ll, c.at, "%s: this form needs %s = %s", c.it.name, c.it.field.Sel, want)
			ok = false
		}
	}
	return &in, ok
}

type dmaCheck struct {
	it   *item
	regs bool
	at   int
}

func ambiguousShort(kt *keyTable, key string) bool {
	n := 0
	for _, it := range kt.items {
		if last(it.path) == key {
			n++
		}
	}
	return n > 1
}

// candidates lists the full paths a short key could mean.
func candidates(kt *keyTable, key string) string {
	var c []string
	for _, it := range kt.items {
		if last(it.path) == last(key) {
			c = append(c, it.path)
		}
	}
	if len(c) == 0 {
		return "see `ndma describe`"
	}
	return "ambiguous: " + strings.Join(c, " or ")
}

// label names an item or one of its elements in a message.
func label(it *item, elem, errElem int) string {
	if elem < 0 {
		elem = errElem
	}
	if it.count > 0 && elem >= 0 {
		return fmt.Sprintf("%s[%d]", it.path, elem)
	}
	return it.path
}

// valueError is a value problem at byte offset at of the value text.
type valueError struct {
	at   int
	elem int // array element, -1 for none
	msg  string
}

func verr(at int, format string, args ...any) *valueError {
	return &valueError{at: at, elem: -1, msg: fmt.Sprintf(format, args...)}
}

// setItem parses val into the item (elem ≥ 0: one array element).
func (a *assembler) setItem(in *isa.Inst, it *item, elem int, val string) *valueError {
	if it.count == 0 || elem >= 0 {
		e := max(elem, 0)
		return a.setElem(in, it, e, val, 0)
	}
	if len(val) < 2 || val[0] != '[' || val[len(val)-1] != ']' {
		return verr(0, "want an array [a, b, …] of %d", it.count)
	}
	parts := splitTop(val[1 : len(val)-1])
	if len(parts) > it.count {
		return verr(parts[it.count].at+1, "%d elements, the array holds %d", len(parts), it.count)
	}
	for e, p := range parts {
		if p.text == "" {
			return &valueError{at: p.at + 1, elem: e, msg: "missing element"}
		}
		if err := a.setElem(in, it, e, p.text, p.at+1); err != nil {
			err.elem = e
			return err
		}
	}
	return nil
}

type part struct {
	text string
	at   int
}

// splitTop splits s at commas outside brackets and parentheses, trimming.
func splitTop(s string) []part {
	var out []part
	depth, start := 0, 0
	emit := func(end int) {
		raw := s[start:end]
		lead := len(raw) - len(strings.TrimLeft(raw, " \t"))
		out = append(out, part{strings.TrimSpace(raw), start + lead})
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ',':
			if depth == 0 {
				emit(i)
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(s) != "" || len(out) > 0 {
		emit(len(s))
	}
	return out
}

// setElem parses one scalar, union or byte-range element; base is the
// element's offset in the value text (for columns).
func (a *assembler) setElem(in *isa.Inst, it *item, e int, val string, base int) *valueError {
	leaf := it.first + e*it.chunk
	f := it.field
	switch f.Kind {
	case isa.KBytes:
		b, err := a.byteString(val, f.Size)
		if err != nil {
			return verr(base, "%v", err)
		}
		for c := 0; c < it.chunk; c++ {
			var v uint64
			chunk := b[c*8 : min(len(b), c*8+8)]
			for k := len(chunk) - 1; k >= 0; k-- {
				v = v<<8 | uint64(chunk[k])
			}
			if err := in.SetLeaf(leaf+c, v); err != nil {
				return verr(base, "%v", err)
			}
		}
		return nil
	case isa.KAddr8, isa.KPseudoAddr8, isa.KAddr4, isa.KDMAAddr:
		v, err := a.address(f.Kind, val)
		if err != nil {
			err.at += base
			return err
		}
		if err := in.SetLeaf(leaf, v); err != nil {
			return verr(base, "%v", err)
		}
		return nil
	}
	v, err := a.scalar(val, it.width, it.sign, f.Enum)
	if err != nil {
		return verr(base, "%v", err)
	}
	if err := in.SetLeaf(leaf, v); err != nil {
		return verr(base, "%v", err)
	}
	return nil
}

// scalar parses an integer (or enum name, label, .equ) into the raw bits of
// a field `width` bits wide.
func (a *assembler) scalar(val string, width int, signed bool, e *isa.Enum) (uint64, error) {
	if e != nil && val != "" && isIdentStart(val[0]) {
		if _, isSym := a.symbol(val); !isSym {
			return enumValue(e, val, a.gen)
		}
	}
	neg, mag, err := a.number(val)
	if err != nil {
		return 0, err
	}
	return fitInt(neg, mag, width, signed)
}

// fitInt range-checks a sign and magnitude against a field and returns its bits.
func fitInt(neg bool, mag uint64, width int, signed bool) (uint64, error) {
	m := ^uint64(0) >> (64 - width)
	if signed {
		lim := uint64(1) << (width - 1)
		if !neg && mag >= lim || neg && mag > lim {
			return 0, fmt.Errorf("%s does not fit i%d (%d..%d)", signedText(neg, mag), width, -int64(lim), lim-1)
		}
		if neg {
			return -mag & m, nil
		}
		return mag, nil
	}
	if neg && mag != 0 {
		return 0, fmt.Errorf("%s is negative: u%d takes 0..%d", signedText(neg, mag), width, m)
	}
	if mag > m {
		return 0, fmt.Errorf("%d does not fit u%d (0..%d)", mag, width, m)
	}
	return mag, nil
}

func signedText(neg bool, mag uint64) string {
	if neg {
		return "-" + strconv.FormatUint(mag, 10)
	}
	return strconv.FormatUint(mag, 10)
}

func (a *assembler) symbol(s string) (int64, bool) {
	if v, ok := a.equs[s]; ok {
		return v, true
	}
	if v, ok := a.labels[s]; ok {
		return int64(v), true
	}
	return 0, false
}

// number parses an integer literal (Go syntax: 0x, 0b, 0o, _), a label or an
// .equ name, as sign and magnitude.
func (a *assembler) number(s string) (neg bool, mag uint64, err error) {
	t := s
	if strings.HasPrefix(t, "-") {
		neg, t = true, t[1:]
	} else {
		t = strings.TrimPrefix(t, "+")
	}
	if t == "" {
		return false, 0, fmt.Errorf("missing number")
	}
	if isIdentStart(t[0]) {
		v, ok := a.symbol(t)
		if !ok {
			return false, 0, fmt.Errorf("%q is not a number, label or .equ name", t)
		}
		if v < 0 {
			neg, v = !neg, -v
		}
		return neg, uint64(v), nil
	}
	mag, err = strconv.ParseUint(t, 0, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return false, 0, fmt.Errorf("%s does not fit 64 bits", s)
		}
		return false, 0, fmt.Errorf("%q is not a number", s)
	}
	return neg, mag, nil
}

// byteString parses bytes(HEX) of exactly n bytes.
func (a *assembler) byteString(val string, n int) ([]byte, error) {
	inner, ok := call(val, "bytes")
	if !ok {
		return nil, fmt.Errorf("want bytes(…) with %d hex bytes", n)
	}
	b, err := decodeHex(strings.Join(strings.Fields(inner), ""))
	if err != nil {
		return nil, fmt.Errorf("bytes(…): %v", err)
	}
	if len(b) != n {
		return nil, fmt.Errorf("bytes(…) holds %d bytes, want %d", len(b), n)
	}
	return b, nil
}

// call matches "name(inner)" (name case-insensitively) and returns inner.
func call(val, name string) (string, bool) {
	if len(val) < len(name)+2 || !strings.EqualFold(val[:len(name)], name) || val[len(name)] != '(' || val[len(val)-1] != ')' {
		return "", false
	}
	return val[len(name)+1 : len(val)-1], true
}
