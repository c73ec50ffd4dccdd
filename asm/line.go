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
		a.errorf(s.ll, i, "unknown mnemonic %s%s", mn, didYouMean(mn, mnemonics()))
		return nil, false
	}
	if !d.DecodedOn(a.gen) {
		if d.Decoded() {
			a.errorf(s.ll, i, "%s has no layout table on generation %s: write it as .word (or give a generation it has one on)", d.Mnemonic(), a.gen)
			return nil, false
		}
		a.errorf(s.ll, i, "%s has no layout table: write it as .word", d.Mnemonic())
		return nil, false
	}
	in := &a.cur
	in.Reset(a.gen, d.Opcode)
	if a.ktLayout != in.Layout() { // consecutive words mostly share a layout
		a.ktLayout, a.kt = in.Layout(), keysOf(in.Layout())
	}
	kt := a.kt
	ok := true
	var seen [isa.MaxLeaves]int32 // 1 + where the key that gave each leaf its value starts (0: not given)
	next := 0                     // index of the item expected next
	var dmaChecks []dmaCheck
	for {
		for j < len(t) && (t[j] == ' ' || t[j] == '\t' || t[j] == ',') {
			j++
		}
		if j >= len(t) {
			break
		}
		kStart := j
		// canonical text lists items in table order: try the one after the last match first
		var ref keyRef
		found := false
		for k := next; k < min(next+4, len(kt.items)); k++ { // zero items are left out: look a little ahead
			if n := kt.items[k].name; len(t)-j > len(n) && t[j+len(n)] == '=' && t[j:j+len(n)] == n {
				ref, found = keyRef{kt.items[k], -1}, true
				j += len(n)
				break
			}
		}
		if !found {
			for j < len(t) && class[t[j]]&(cDelim|cEquals) == 0 {
				j++
			}
		}
		key := t[kStart:j]
		if j >= len(t) || t[j] != '=' {
			a.errorf(s.ll, kStart, "%s: missing \"=\" (want key=value)", key)
			return in, false
		}
		j++
		vStart := j
		depth := 0
		for ; j < len(t); j++ {
			cl := class[t[j]]
			if cl&^cEquals == 0 { // the common case: part of the value
				continue
			}
			switch cl {
			case cOpen:
				depth++
			case cClose:
				depth--
			case cDelim:
				if depth <= 0 {
					goto done
				}
			}
		}
	done:
		val := t[vStart:j]
		if !found {
			ref, found = kt.keys[key]
		}
		if found {
			next = ref.it.index + 1
		}
		if !found {
			if c := kt.sharing(key); len(c) > 1 {
				a.errorf(s.ll, kStart, "%s is ambiguous for %s (%s)", key, d.Mnemonic(), strings.Join(c, " or "))
			} else {
				a.errorf(s.ll, kStart, "unknown field %s for %s%s", key, d.Mnemonic(), didYouMean(key, kt.names))
			}
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
		lo, hi := it.first, it.first+it.nleaf
		if ref.elem >= 0 {
			lo += ref.elem * it.chunk
			hi = lo + it.chunk
		}
		var firstAt int32
		for k := lo; k < hi; k++ {
			if firstAt == 0 {
				firstAt = seen[k]
			}
			seen[k] = int32(kStart) + 1
		}
		if firstAt != 0 {
			first := t[firstAt-1:]
			first = first[:strings.IndexByte(first, '=')]
			as := ""
			if first != key {
				as = " (as " + first + ")"
			}
			a.errorf(s.ll, kStart, "%s: given twice on this line%s", it.path, as)
			ok = false
			continue
		}
		if val == "" {
			a.errorf(s.ll, vStart, "%s: missing value", key)
			ok = false
			continue
		}
		if err := a.setItem(in, it, ref.elem, val); err != nil {
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
	return in, ok
}

// character classes for the line scanner
const (
	cDelim  = 1 << iota // ',' ' ' '\t': ends a key or a top-level value
	cEquals             // '='
	cOpen               // '[' '('
	cClose              // ']' ')'
)

var class = func() (c [256]uint8) {
	c[','], c[' '], c['\t'] = cDelim, cDelim, cDelim
	c['='] = cEquals
	c['['], c['('] = cOpen, cOpen
	c[']'], c[')'] = cClose, cClose
	return c
}()

type dmaCheck struct {
	it   *item
	regs bool
	at   int
}

// sharing lists the full paths whose last part is key (a short name that is
// not unique).
func (t *keyTable) sharing(key string) []string {
	var c []string
	for _, it := range t.items {
		if last(it.path) == key && it.path != key {
			c = append(c, it.path)
		}
	}
	return c
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
	a.parts = splitTop(a.parts[:0], val[1:len(val)-1])
	parts := a.parts
	if len(parts) > it.count {
		return verr(parts[it.count].at+1, "%d elements, at most %d", len(parts), it.count)
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

// splitTop appends to out the parts of s between commas outside brackets and
// parentheses, trimmed.
func splitTop(out []part, s string) []part {
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '[', '(':
				depth++
				continue
			case ']', ')':
				depth--
				continue
			case ',':
				if depth != 0 {
					continue
				}
			default:
				continue
			}
		} else if len(out) == 0 && strings.TrimSpace(s) == "" {
			break
		}
		a, b := start, i
		for a < b && (s[a] == ' ' || s[a] == '\t') {
			a++
		}
		for b > a && (s[b-1] == ' ' || s[b-1] == '\t') {
			b--
		}
		out = append(out, part{s[a:b], a})
		start = i + 1
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
		var b []byte
		var err error
		if f.Text && strings.HasPrefix(val, `"`) {
			b, err = textString(val, f.Size)
		} else {
			b, err = a.byteString(val, f.Size)
		}
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
		v, err := enumValue(e, val, a.gen)
		if err == nil { // an enum name wins over a label or .equ
			return v, nil
		}
		if _, isSym := a.symbol(val); !isSym {
			return 0, err
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
		return 0, fmt.Errorf("%s does not fit u%d (0..%d)", signedText(neg, mag), width, m)
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
	if d, ok := a.equDefs[s]; ok { // defined further on: evaluate it now
		a.evalEqu(d)
		v, ok := a.equs[s]
		return v, ok
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
			if d, isEqu := a.equDefs[t]; isEqu {
				if d.state == equEvaluating {
					return false, 0, fmt.Errorf(".equ %s (line %d) depends on itself", t, d.line)
				}
				return false, 0, fmt.Errorf(".equ %s (line %d) has no value: %v", t, d.line, d.failed)
			}
			return false, 0, fmt.Errorf("%q is not a number, label or .equ name", t)
		}
		if v < 0 {
			neg, v = !neg, -v
		}
		return neg, uint64(v), nil
	}
	if v, ok := fastUint(t); ok {
		return neg, v, nil
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
	if strings.ContainsAny(inner, " \t") {
		inner = strings.Join(strings.Fields(inner), "")
	}
	b, err := decodeHex(inner)
	if err != nil {
		return nil, fmt.Errorf("bytes(…): %s", err.msg)
	}
	if len(b) != n {
		return nil, fmt.Errorf("%d bytes, want %d", len(b), n)
	}
	return b, nil
}

// textString reads a Text field's "name": the printable characters TextBytes
// accepts, NUL-padded to n bytes (anything else is written as bytes(…)).
func textString(val string, n int) ([]byte, error) {
	if len(val) < 2 || val[len(val)-1] != '"' {
		return nil, fmt.Errorf("unterminated string %s", val)
	}
	s := val[1 : len(val)-1]
	if len(s) > n {
		return nil, fmt.Errorf("string of %d bytes, at most %d", len(s), n)
	}
	b := make([]byte, n)
	copy(b, s)
	if _, ok := isa.TextBytes(b); !ok || strings.IndexByte(s, 0) >= 0 {
		return nil, fmt.Errorf("string %s: only printable ASCII without blanks or any of \" \\ , [ ] ( ) # = ; — write other bytes as bytes(…)", val)
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

// fastUint parses the common literals — decimal, or 0x hex, up to 15 digits —
// without strconv's generality; anything else falls back to strconv.
func fastUint(t string) (uint64, bool) {
	var v uint64
	if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		if len(t) > 17 {
			return 0, false
		}
		for i := 2; i < len(t); i++ {
			d, ok := unhex(t[i])
			if !ok {
				return 0, false
			}
			v = v<<4 | uint64(d)
		}
		return v, true
	}
	if len(t) == 0 || len(t) > 15 || len(t) > 1 && t[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}
