package isa

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Describe writes the field map of an opcode's layout — what `ndma describe`
// prints: one row per leaf (offset, bits, width, spec path, type, provenance,
// note), a byte map, and the arms of its unions. All of it comes from the
// layout table.
func Describe(w io.Writer, d *OpDef) error { return DescribeOn(w, d, GenAny) }

// DescribeOn is Describe for generation g: the layout a word of the opcode
// decodes by on g. With GenAny, an opcode whose layout differs by
// generation (docs/compute.md's LDWEIGHTS, MATMUL) draws each of its tables
// in turn.
func DescribeOn(w io.Writer, d *OpDef, g Gen) error {
	if g == GenAny && d.Layout == nil && len(d.ByGen) > 0 {
		for i, r := range d.ByGen {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "on %s:\n", r.Gens)
			if err := describeLayout(w, d, r.Layout); err != nil {
				return err
			}
		}
		return nil
	}
	return describeLayout(w, d, d.layoutOn(g))
}

func describeLayout(w io.Writer, d *OpDef, lay *Struct) error {
	fmt.Fprintf(w, "%s — opcode 0x%02x %s", lay.Name, uint8(d.Opcode), d.Mnemonic())
	if len(d.Aliases) > 0 {
		fmt.Fprintf(w, " (also %s)", strings.Join(d.Aliases, ", "))
	}
	fmt.Fprintf(w, ", %d bytes\n", lay.Size)
	fmt.Fprintf(w, "generations: %s", genText(d))
	if d.DGEKind >= 0 {
		fmt.Fprintf(w, " · DGE kind %d %s (%s)", d.DGEKind, dgeOpcodeEnum.NameOf(uint64(d.DGEKind)), d.DGEProv)
	}
	if d.EngineDMA {
		fmt.Fprint(w, " · no DGE program (the engines run it)")
	}
	if d.Pseudo {
		fmt.Fprint(w, " · pseudo (compiler→runtime)")
	}
	if d.Control {
		fmt.Fprint(w, " · control")
	}
	fmt.Fprintln(w)
	if !d.Decoded() {
		fmt.Fprintln(w, "known, not decoded: shown with the common header and EVENTS, the rest as bytes")
	} else if lay == rawLayout {
		fmt.Fprintf(w, "decoded on %s only; on this generation shown with the common header and EVENTS, the rest as bytes\n", decodedGens(d))
	} else if d.ByGen != nil {
		fmt.Fprintf(w, "decoded by this table on: %s\n", layoutGens(d, lay))
	}
	if d.Note != "" {
		fmt.Fprintf(w, "note: %s\n", d.Note)
	}
	fmt.Fprintln(w)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "byte\tbits\twidth\tfield\ttype\tprov\tnote")
	for _, r := range describeRows(lay) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Byte, r.BitRange, r.Width, r.Field, r.Type, r.Prov[:3], r.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nbyte map (letters are the top-level fields):")
	letters, legend := byteLetters(lay)
	fmt.Fprint(w, "      ")
	for i := 0; i < 16; i++ {
		fmt.Fprintf(w, " +%x", i)
	}
	fmt.Fprintln(w)
	for row := 0; row < lay.Size; row += 16 {
		fmt.Fprintf(w, "  %02x: ", row)
		for i := row; i < row+16 && i < lay.Size; i++ {
			fmt.Fprintf(w, "  %c", letters[i])
		}
		fmt.Fprintln(w)
	}
	for _, l := range legend {
		fmt.Fprintf(w, "  %s\n", l)
	}

	arms := unionArms(lay)
	if len(arms) > 0 {
		fmt.Fprintln(w, "\nunion arms:")
		for _, a := range arms {
			fmt.Fprintf(w, "  %s\n", a)
		}
	}
	return nil
}

// DescribeRow is one leaf of a layout as `ndma describe --json` lists it.
type DescribeRow struct {
	Byte     string `json:"byte"`
	BitRange string `json:"bits"`
	Offset   int    `json:"offset"`
	Bit      int    `json:"bit"`
	Width    int    `json:"width"`
	Field    string `json:"field"`
	Type     string `json:"type"`
	Prov     string `json:"prov"`
	Reserved bool   `json:"reserved"`
	Note     string `json:"note"`
}

// DescribeRows lists the leaves of an opcode's layout (for an opcode whose
// layout differs by generation, its first generation's).
func DescribeRows(d *OpDef) []DescribeRow {
	if d.Layout == nil && len(d.ByGen) > 0 {
		return describeRows(d.ByGen[0].Layout)
	}
	return describeRows(d.layout())
}

// DescribeRowsOn lists the leaves of the layout the opcode decodes by on g.
func DescribeRowsOn(d *OpDef, g Gen) []DescribeRow {
	if g == GenAny {
		return DescribeRows(d)
	}
	return describeRows(d.layoutOn(g))
}

// decodedGens are the generations an opcode with ByGen decodes on.
func decodedGens(d *OpDef) GenSet {
	var s GenSet
	for _, r := range d.ByGen {
		s |= r.Gens
	}
	return s
}

// layoutGens are the generations that decode the opcode by lay.
func layoutGens(d *OpDef, lay *Struct) GenSet {
	var s GenSet
	for _, r := range d.ByGen {
		if r.Layout == lay {
			s |= r.Gens
		}
	}
	return s
}

func describeRows(lay *Struct) []DescribeRow {
	var rows []DescribeRow
	for _, l := range lay.leaves {
		f := l.Field
		if l.Chunk > 0 { // one row for a whole byte range
			continue
		}
		width := l.Bits
		path := l.Path
		if f.Kind == KBytes && f.Size > 8 {
			width = f.Size * 8
			path = strings.TrimSuffix(path, "#0")
		}
		t := f.TypeName()
		if f.Count > 0 {
			t = strings.TrimSuffix(t, fmt.Sprintf("[%d]", f.Count))
		}
		br := "-"
		if f.Bits != 0 {
			br = fmt.Sprintf("%d-%d", l.Bit, l.Bit+l.Bits-1)
			if l.Bits == 1 {
				br = fmt.Sprint(l.Bit)
			}
		}
		by := fmt.Sprint(l.Off)
		if n := width / 8; f.Bits == 0 && n > 1 {
			by = fmt.Sprintf("%d-%d", l.Off, l.Off+n-1)
		}
		prov, note := f.Prov, f.Note
		if ll, ok := leafLabels[lay][path]; ok {
			prov, note = ll.Prov, ll.Note
		}
		if top := topField(lay, path); top != nil && provRank[top.Prov] > provRank[prov] {
			prov = top.Prov // a sub-struct's row is no surer than the row that names the sub-struct
		}
		rows = append(rows, DescribeRow{Byte: by, BitRange: br, Offset: l.Off, Bit: l.Bit, Width: width, Field: path,
			Type: t, Prov: prov.String(), Reserved: f.Reserved, Note: note})
	}
	return rows
}

func byteLetters(lay *Struct) ([]byte, []string) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	letters := make([]byte, lay.Size)
	var legend []string
	for i, f := range lay.Fields {
		c := alphabet[i%len(alphabet)]
		for b := f.Off; b < f.Off+f.n()*f.Size; b++ {
			letters[b] = c
		}
		legend = append(legend, fmt.Sprintf("%c %s", c, f.Name))
	}
	// several legend entries to a line keep the picture short
	var lines []string
	for i := 0; i < len(legend); i += 4 {
		lines = append(lines, strings.Join(legend[i:min(i+4, len(legend))], "   "))
	}
	return letters, lines
}

func unionArms(lay *Struct) []string {
	seen := map[Kind]bool{}
	var out []string
	for _, l := range lay.leaves {
		k := l.Field.Kind
		if seen[k] {
			continue
		}
		var arms []*arm
		switch k {
		case KAddr8:
			arms = []*arm{&addr8Imm, &addr8Reg, &addr8Tbl, &addr8Raw}
		case KPseudoAddr8:
			arms = []*arm{&addr8Imm, &addr8Reg, &pseudoVar, &pseudoTbl, &addr8Raw}
		case KAddr4:
			arms = []*arm{&addr4Imm, &addr4Reg}
		case KDMAAddr:
			arms = []*arm{&dmaAddrImm, &dmaAddrRegs}
		case KCCInst:
			for i := range ccMembers {
				arms = append(arms, &ccMembers[i])
			}
			arms = append(arms, &ccRaw)
		default:
			continue
		}
		seen[k] = true
		out = append(out, l.Field.TypeName()+":")
		for _, a := range arms {
			var fs []string
			for _, f := range a.Fields {
				fs = append(fs, fmt.Sprintf("%s[%d:%d]", f.Name, int(f.Shift)+int(f.Width)-1, f.Shift))
			}
			out = append(out, fmt.Sprintf("  %-8s %s  (%s) %s", a.Name, strings.Join(fs, " "), a.Prov.Short(), a.Note))
		}
	}
	return out
}

func genText(d *OpDef) string {
	switch {
	case d.GensKnown:
		return d.Gens.String()
	case d.Absent: // 000 §1: on no generation
		return "none (absent on every generation)"
	case d.PresentOn != 0:
		return "present on " + d.PresentOn.String() + " (others not stated)"
	}
	return "not stated"
}

// FieldMap writes a decoded word field by field: offset, spec path and value
// (enum names, address arms), one line per leaf. With nonZero it leaves out
// zero fields (addresses are always shown). `ndma demo` prints it.
func (in *Inst) FieldMap(w io.Writer, nonZero bool) error {
	lay := in.layout()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, l := range lay.leaves {
		switch l.Field.Kind {
		case KAddr8, KPseudoAddr8, KAddr4, KDMAAddr:
		default:
			if nonZero && in.leafAt(i) == 0 {
				continue
			}
		}
		fmt.Fprintf(tw, "  %2d\t%s\t%s\n", l.Off, l.Path, formatLeaf(in, lay, i))
	}
	return tw.Flush()
}

func formatLeaf(in *Inst, lay *Struct, i int) string {
	l := &lay.leaves[i]
	v := in.leafAt(i)
	f := l.Field
	var a *arm
	switch f.Kind {
	case KAddr8, KPseudoAddr8:
		a = addr8Arm(v, f.Kind == KPseudoAddr8)
	case KAddr4:
		a = addr4Arm(v)
	case KDMAAddr:
		a = dmaAddrArm(in.selector(f, lay, l.Path))
	case KCCInst:
		a = ccArm(v)
	case KBytes:
		var b []byte
		for k := 0; k < l.Bits/8; k++ {
			b = append(b, byte(v>>(8*k)))
		}
		return fmt.Sprintf("% x", b)
	case KInt:
		s := 64 - uint(l.Bits)
		return fmt.Sprint(int64(v<<s) >> s)
	default:
		if f.Enum != nil {
			if n := f.Enum.NameFor(v, in.Gen); n != "" {
				return fmt.Sprintf("%s (%#x)", n, v)
			}
		}
		if v > 9 {
			return fmt.Sprintf("%d (%#x)", v, v)
		}
		return fmt.Sprint(v)
	}
	parts := []string{a.Name}
	for _, af := range a.Fields {
		x := af.get(v)
		switch {
		case af.Enum != nil && af.Enum.NameFor(x, in.Gen) != "":
			parts = append(parts, af.Enum.NameFor(x, in.Gen))
		case af.Signed:
			parts = append(parts, fmt.Sprintf("%s=%d", af.Name, af.signedValue(x)))
		default:
			parts = append(parts, fmt.Sprintf("%s=%#x", af.Name, x))
		}
	}
	return strings.Join(parts, " ")
}

// provRank orders provenances from the surest: OBSERVED, CARRIED, INFERRED.
var provRank = map[Prov]int{Observed: 0, Carried: 1, Inferred: 2}

// topField is the top-level row of lay a leaf path lies in ("flags" for
// "flags.gather_dim"), or nil.
func topField(lay *Struct, path string) *Field {
	name, _, _ := strings.Cut(path, ".")
	name, _, _ = strings.Cut(name, "[")
	for i := range lay.Fields {
		if lay.Fields[i].Name == name {
			return &lay.Fields[i]
		}
	}
	return nil
}

// StructOn is the struct name the opcode decodes by on g: its own struct
// name on GenAny or when it is a raw word, "" where it does not decode on g.
func (d *OpDef) StructOn(g Gen) string {
	if g == GenAny || !d.Decoded() {
		return d.StructName()
	}
	if !d.DecodedOn(g) {
		return ""
	}
	return d.LayoutOn(g).Name
}
