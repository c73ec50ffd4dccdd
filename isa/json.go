package isa

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// JSON form of a word (the `ndma disasm --json` object), derived from the
// layout tables: keys are the spec field names, integers are numbers, arrays
// are arrays, sub-structs are objects, enum values are their spec names where
// the value has one, unions are objects with "form" and the arm's fields, and
// opaque bytes are hex strings. ParseJSON reads the same form back, so the
// JSON is exact: ParseJSON(AppendJSON(x)) == x.

// AppendJSON appends the word's JSON object; offset is its stream offset.
func (in *Inst) AppendJSON(dst []byte, offset int) []byte {
	d := in.def
	dst = fmt.Appendf(dst, `{"offset":%d,"opcode":%d,"mnemonic":%q,"struct":%q,"fields":`,
		offset, uint8(in.Opcode()), d.Mnemonic(), in.layout().Name)
	w := jsonWriter{in: in, lay: in.layout(), buf: dst}
	w.object(in.layout(), "")
	return append(w.buf, '}')
}

type jsonWriter struct {
	in   *Inst
	lay  *Struct
	buf  []byte
	leaf int // cursor into lay.leaves, advanced in table order
}

func (w *jsonWriter) object(st *Struct, prefix string) {
	w.buf = append(w.buf, '{')
	for i := range st.Fields {
		f := &st.Fields[i]
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = strconv.AppendQuote(w.buf, f.Name)
		w.buf = append(w.buf, ':')
		if f.Count > 0 {
			w.buf = append(w.buf, '[')
			for e := 0; e < f.Count; e++ {
				if e > 0 {
					w.buf = append(w.buf, ',')
				}
				w.value(f, fmt.Sprintf("%s%s[%d]", prefix, f.Name, e))
			}
			w.buf = append(w.buf, ']')
			continue
		}
		w.value(f, prefix+f.Name)
	}
	w.buf = append(w.buf, '}')
}

func (w *jsonWriter) next() (uint64, *Leaf) {
	l := &w.lay.leaves[w.leaf]
	v := w.in.leafAt(w.leaf)
	w.leaf++
	return v, l
}

func (w *jsonWriter) value(f *Field, path string) {
	switch f.Kind {
	case KStruct:
		w.object(f.Sub, path+".")
	case KBytes:
		var b [WordSize]byte
		n := 0
		for n < f.Size {
			v, l := w.next()
			for k := 0; k < l.Bits/8; k++ {
				b[n] = byte(v >> (8 * k))
				n++
			}
		}
		if f.Text { // every byte as a Latin-1 rune, trailing NULs dropped: exact and unambiguous
			n := f.Size
			for n > 0 && b[n-1] == 0 {
				n--
			}
			w.buf = append(w.buf, '"')
			for _, c := range b[:n] {
				if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
					w.buf = fmt.Appendf(w.buf, `\u%04x`, c)
					continue
				}
				w.buf = append(w.buf, c)
			}
			w.buf = append(w.buf, '"')
			break
		}
		w.buf = append(w.buf, '"')
		w.buf = hex.AppendEncode(w.buf, b[:f.Size])
		w.buf = append(w.buf, '"')
	case KAddr8, KPseudoAddr8:
		v, _ := w.next()
		w.arm(addr8Arm(v, f.Kind == KPseudoAddr8), v, int(byte(v>>56)&MarkerMask))
	case KAddr4:
		v, _ := w.next()
		w.arm(addr4Arm(v), v, int(byte(v>>24)&Addr4MarkerMask))
	case KDMAAddr:
		v, _ := w.next()
		w.arm(dmaAddrArm(w.in.selector(f, w.lay, path)), v, -1)
	case KCCInst:
		v, _ := w.next()
		a := ccArm(v)
		w.buf = append(w.buf, `{"type":`...)
		w.buf = strconv.AppendQuote(w.buf, a.Name)
		for _, af := range a.Fields {
			w.buf = append(w.buf, ',')
			w.armField(af, v)
		}
		w.buf = append(w.buf, '}')
	default:
		v, l := w.next()
		w.scalar(v, l.Bits, f.Kind == KInt, f.Enum)
	}
}

func (w *jsonWriter) scalar(v uint64, width int, signed bool, e *Enum) {
	if e != nil {
		if n := e.NameFor(v, w.in.Gen); n != "" {
			w.buf = strconv.AppendQuote(w.buf, n)
			return
		}
	}
	if signed {
		s := 64 - uint(width)
		w.buf = strconv.AppendInt(w.buf, int64(v<<s)>>s, 10)
		return
	}
	w.buf = strconv.AppendUint(w.buf, v, 10)
}

func (w *jsonWriter) arm(a *arm, v uint64, marker int) {
	w.buf = append(w.buf, `{"form":`...)
	w.buf = strconv.AppendQuote(w.buf, a.Name)
	if marker >= 0 {
		w.buf = fmt.Appendf(w.buf, `,"marker":%d`, marker)
	}
	for _, af := range a.Fields {
		w.buf = append(w.buf, ',')
		w.armField(af, v)
	}
	w.buf = append(w.buf, '}')
}

func (w *jsonWriter) armField(af armField, v uint64) {
	w.buf = strconv.AppendQuote(w.buf, af.Name)
	w.buf = append(w.buf, ':')
	w.scalar(af.get(v), int(af.Width), af.Signed, af.Enum)
}

// selector is the DMA_ADDR_MODE value that picks a DMA_ADDR_UNION arm.
func (in *Inst) selector(f *Field, lay *Struct, path string) uint64 {
	i, ok := lay.byPath[f.Sel]
	if !ok {
		panic(fmt.Sprintf("isa: %s.%s selects by missing field %s", lay.Name, path, f.Sel))
	}
	return in.leafAt(i)
}

// ParseJSON reads one word object in the AppendJSON form. The opcode comes
// from "opcode", "mnemonic", "struct" or fields.header.opcode (they must
// agree); omitted fields are zero except the header's opcode and
// inst_word_len (0x10). "offset" is ignored.
func ParseJSON(gen Gen, data []byte) (Inst, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return Inst{}, fmt.Errorf("json: %w", err)
	}
	return FromJSONObject(gen, obj)
}

// FromJSONObject is ParseJSON over an already-decoded object (numbers as json.Number).
func FromJSONObject(gen Gen, obj map[string]any) (Inst, error) {
	op := -1
	agree := func(key string, d *OpDef) error {
		if op >= 0 && int(d.Opcode) != op {
			return fmt.Errorf("%s names opcode %#02x, but the word's opcode is %#02x", key, uint8(d.Opcode), op)
		}
		op = int(d.Opcode)
		return nil
	}
	for _, key := range []string{"opcode", "mnemonic", "struct"} {
		raw, ok := obj[key]
		if !ok {
			continue
		}
		var d *OpDef
		switch x := raw.(type) {
		case json.Number:
			n, err := strconv.ParseUint(x.String(), 0, 8)
			if err != nil {
				return Inst{}, fmt.Errorf("%s: %q is not an opcode byte", key, x)
			}
			d = opTable[n]
		case string:
			if key == "struct" && op >= 0 && opTable[op].layoutOn(gen).Name == x {
				continue // a struct several opcodes share (MEM_2D) names the layout, not the opcode
			}
			var err error
			if d, err = LookupName(x); err != nil {
				if key == "struct" && x == rawLayout.Name {
					continue
				}
				return Inst{}, fmt.Errorf("%s: %w", key, err)
			}
		default:
			return Inst{}, fmt.Errorf("%s: want a number or a name", key)
		}
		if err := agree(key, d); err != nil {
			return Inst{}, err
		}
	}
	fields, _ := obj["fields"].(map[string]any)
	if _, ok := obj["fields"]; ok && fields == nil {
		return Inst{}, fmt.Errorf("fields: want an object")
	}
	if h, ok := fields["header"].(map[string]any); ok {
		if n, ok := h["opcode"].(json.Number); ok {
			v, err := strconv.ParseUint(n.String(), 0, 8)
			if err != nil {
				return Inst{}, fmt.Errorf("fields.header.opcode: %q is not an opcode byte", n)
			}
			if err := agree("fields.header.opcode", opTable[v]); err != nil {
				return Inst{}, err
			}
		}
	}
	if f, ok := fields["opcode"].(json.Number); ok { // the 0xda word has no header
		v, err := strconv.ParseUint(f.String(), 0, 8)
		if err != nil {
			return Inst{}, fmt.Errorf("fields.opcode: %q is not an opcode byte", f)
		}
		if err := agree("fields.opcode", opTable[v]); err != nil {
			return Inst{}, err
		}
	}
	for k := range obj {
		switch k {
		case "offset", "opcode", "mnemonic", "struct", "fields":
		default:
			return Inst{}, fmt.Errorf("unknown key %q (want offset, opcode, mnemonic, struct, fields)", k)
		}
	}
	if op < 0 {
		return Inst{}, fmt.Errorf("no opcode: give \"opcode\", \"mnemonic\" or fields.header.opcode")
	}
	in := New(gen, Opcode(op))
	r := jsonReader{in: &in, lay: in.layout()}
	if err := r.object(in.layout(), "", fields); err != nil {
		return Inst{}, err
	}
	return in, nil
}

type jsonReader struct {
	in  *Inst
	lay *Struct
}

func (r *jsonReader) object(st *Struct, prefix string, obj map[string]any) error {
	known := map[string]bool{}
	for i := range st.Fields {
		f := &st.Fields[i]
		known[f.Name] = true
		raw, ok := obj[f.Name]
		if !ok {
			continue
		}
		p := prefix + f.Name
		if f.Count > 0 {
			arr, ok := raw.([]any)
			if !ok || len(arr) != f.Count {
				return fmt.Errorf("fields.%s: want an array of %d", p, f.Count)
			}
			for e, x := range arr {
				if err := r.value(f, fmt.Sprintf("%s[%d]", p, e), x); err != nil {
					return err
				}
			}
			continue
		}
		if err := r.value(f, p, raw); err != nil {
			return err
		}
	}
	var unknown []string
	for k := range obj {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("fields.%s%s: unknown field in %s", prefix, unknown[0], st.Name)
	}
	return nil
}

func (r *jsonReader) value(f *Field, path string, raw any) error {
	switch f.Kind {
	case KStruct:
		m, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("fields.%s: want an object (%s)", path, f.Sub.Name)
		}
		return r.object(f.Sub, path+".", m)
	case KBytes:
		s, ok := raw.(string)
		if !ok && f.Text {
			return fmt.Errorf("fields.%s: want a string of at most %d bytes", path, f.Size)
		}
		if !ok {
			return fmt.Errorf("fields.%s: want a hex string of %d bytes", path, f.Size)
		}
		var b []byte
		if f.Text {
			b = make([]byte, f.Size)
			n := 0
			for _, r := range s {
				if r > 0xff || n == f.Size {
					return fmt.Errorf("fields.%s: want a string of at most %d bytes (characters U+0000..U+00FF)", path, f.Size)
				}
				b[n] = byte(r)
				n++
			}
		} else {
			var err error
			b, err = hex.DecodeString(strings.ReplaceAll(s, " ", ""))
			if err != nil || len(b) != f.Size {
				return fmt.Errorf("fields.%s: want a hex string of %d bytes", path, f.Size)
			}
		}
		for c := 0; c*8 < f.Size; c++ {
			var v uint64
			chunk := b[c*8 : min(f.Size, c*8+8)]
			for k := len(chunk) - 1; k >= 0; k-- {
				v = v<<8 | uint64(chunk[k])
			}
			leafPath := path
			if f.Size > 8 {
				leafPath = fmt.Sprintf("%s#%d", path, c)
			}
			if err := r.in.SetUint(leafPath, v); err != nil {
				return fmt.Errorf("fields.%s: %w", path, err)
			}
		}
		return nil
	case KAddr8, KPseudoAddr8:
		return r.union(path, raw, func(form string, marker uint64) (*arm, uint64, error) {
			if marker&^MarkerMask != 0 {
				return nil, 0, fmt.Errorf("marker %#x has bits outside the mask 0xfc", marker)
			}
			v := marker << 56
			return addr8Arm(v, f.Kind == KPseudoAddr8), v, nil
		})
	case KAddr4:
		return r.union(path, raw, func(form string, marker uint64) (*arm, uint64, error) {
			if marker&^Addr4MarkerMask != 0 {
				return nil, 0, fmt.Errorf("marker %#x has bits outside the mask 0xe0", marker)
			}
			v := marker << 24
			return addr4Arm(v), v, nil
		})
	case KDMAAddr:
		// the arm follows the selector, which the table places before the union
		mode := r.in.selector(f, r.lay, path)
		return r.union(path, raw, func(string, uint64) (*arm, uint64, error) { return dmaAddrArm(mode), 0, nil })
	case KCCInst:
		m, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("fields.%s: want an object {type, op, …}", path)
		}
		opv, ok := m["op"]
		if !ok {
			return fmt.Errorf("fields.%s: missing \"op\"", path)
		}
		op, err := jsonUint(opv, 8, ccOpEnum, r.in.Gen)
		if err != nil {
			return fmt.Errorf("fields.%s.op: %w", path, err)
		}
		a := ccArm(op)
		if t, ok := m["type"].(string); ok && !strings.EqualFold(t, a.Name) {
			return fmt.Errorf("fields.%s.type: op %s decodes as %s, not %s", path, ccOpEnum.Format(op), a.Name, t)
		}
		v, err := r.armFields(path, a, op, m, "type")
		if err != nil {
			return err
		}
		return r.in.SetUint(path, v)
	default:
		l, _, err := r.in.leaf(path)
		if err != nil {
			return err
		}
		if f.Kind == KInt {
			n, err := jsonInt(raw)
			if err != nil {
				return fmt.Errorf("fields.%s: %w", path, err)
			}
			if err := r.in.Set(path, n); err != nil {
				return fmt.Errorf("fields.%s: %w", path, err)
			}
			return nil
		}
		v, err := jsonUint(raw, l.Bits, f.Enum, r.in.Gen)
		if err != nil {
			return fmt.Errorf("fields.%s: %w", path, err)
		}
		return r.in.SetUint(path, v)
	}
}

// union reads {"form", "marker", arm fields…}: pick decides the arm from the
// marker, and the stated form must agree with it.
func (r *jsonReader) union(path string, raw any, pick func(form string, marker uint64) (*arm, uint64, error)) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("fields.%s: want an object {form, marker, …}", path)
	}
	var marker uint64
	if mv, ok := m["marker"]; ok {
		var err error
		if marker, err = jsonUint(mv, 8, nil, r.in.Gen); err != nil {
			return fmt.Errorf("fields.%s.marker: %w", path, err)
		}
	}
	form, _ := m["form"].(string)
	a, v, err := pick(form, marker)
	if err != nil {
		return fmt.Errorf("fields.%s: %w", path, err)
	}
	if form != "" && form != a.Name {
		return fmt.Errorf("fields.%s.form: marker %#x selects form %q, not %q", path, marker, a.Name, form)
	}
	x, err := r.armFields(path, a, v, m, "form", "marker")
	if err != nil {
		return err
	}
	return r.in.SetUint(path, x)
}

func (r *jsonReader) armFields(path string, a *arm, v uint64, m map[string]any, extra ...string) (uint64, error) {
	known := map[string]bool{}
	for _, k := range extra {
		known[k] = true
	}
	for _, af := range a.Fields {
		known[af.Name] = true
		raw, ok := m[af.Name]
		if !ok {
			continue
		}
		var x uint64
		if af.Signed {
			n, err := jsonInt(raw)
			if err != nil {
				return 0, fmt.Errorf("fields.%s.%s: %w", path, af.Name, err)
			}
			lim := int64(1) << (af.Width - 1)
			if n < -lim || n >= lim {
				return 0, fmt.Errorf("fields.%s.%s: %d does not fit i%d: %w", path, af.Name, n, af.Width, ErrRange)
			}
			x = uint64(n) & mask(af.Width)
		} else {
			var err error
			if x, err = jsonUint(raw, int(af.Width), af.Enum, r.in.Gen); err != nil {
				return 0, fmt.Errorf("fields.%s.%s: %w", path, af.Name, err)
			}
		}
		v = af.put(v, x)
	}
	for k := range m {
		if !known[k] {
			return 0, fmt.Errorf("fields.%s.%s: unknown field of form %s", path, k, a.Name)
		}
	}
	return v, nil
}

func jsonUint(raw any, width int, e *Enum, g Gen) (uint64, error) {
	var v uint64
	switch x := raw.(type) {
	case json.Number:
		n, err := strconv.ParseUint(x.String(), 0, 64)
		if err != nil {
			return 0, fmt.Errorf("%s is not an unsigned integer", x)
		}
		v = n
	case string:
		if e == nil {
			return 0, fmt.Errorf("want a number, got %q", x)
		}
		n, err := e.ParseFor(x, g)
		if err != nil {
			return 0, err
		}
		v = n
	default:
		return 0, fmt.Errorf("want a number")
	}
	if width < 64 && v>>width != 0 {
		return 0, fmt.Errorf("%d does not fit u%d: %w", v, width, ErrRange)
	}
	return v, nil
}

func jsonInt(raw any) (int64, error) {
	x, ok := raw.(json.Number)
	if !ok {
		return 0, fmt.Errorf("want a number")
	}
	n, err := strconv.ParseInt(x.String(), 0, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not an integer", x)
	}
	return n, nil
}

// AppendJSONStream decodes a whole stream and appends its JSON array, one
// object per 64-byte word (a 0xda extension is its own object). On a decode
// error nothing is appended and the error names the offset.
func AppendJSONStream(dst []byte, gen Gen, b []byte) ([]byte, error) {
	out := append(dst, '[')
	d := NewDecoder(gen, b)
	n := 0
	sep := func() {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n  "...)
		n++
	}
	for d.Next() {
		in := d.Inst()
		sep()
		out = in.AppendJSON(out, d.Offset())
		if x, ok := in.Ext(); ok {
			sep()
			out = x.AppendJSON(out, d.Offset()+WordSize)
		}
	}
	if err := d.Err(); err != nil {
		return dst, err
	}
	if n > 0 {
		out = append(out, '\n')
	}
	return append(out, "]\n"...), nil
}
