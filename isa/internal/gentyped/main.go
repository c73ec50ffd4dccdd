//go:build gentyped

// Command gentyped writes isa/typed_gen.go from the layout tables and the
// enums of package isa: a Go type and constants per enum, a view type per
// layout whose methods read and write each field in the word (in place by
// constant window and shift, or by its leaf index), and the
// CCINST member types. Run it in isa/ with -tags gentyped (isa/typed.go's
// go:generate line), which builds isa without the file it writes; the
// command itself builds only with that tag (isa.GenWords and the rest exist
// only then).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"ndma/isa"
)

func main() {
	out := flag.String("o", "typed_gen.go", "output file")
	dir := flag.String("dir", ".", "the isa package directory (checked for tables gentyped does not know)")
	flag.Parse()
	if err := checkComplete(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gentyped:", err)
		os.Exit(1)
	}
	src, err := generate()
	if err != nil {
		if src != nil { // unformatted output, to find the line the error names
			os.WriteFile(*out+".broken", src, 0o644)
		}
		fmt.Fprintln(os.Stderr, "gentyped:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gentyped:", err)
		os.Exit(1)
	}
}

// checkComplete finds every package-level layout table and enum declared in
// dir's sources and fails on one that isa.GenWords, GenSubs or GenEnums do
// not list: a new table cannot go without typed access by omission.
func checkComplete(dir string) error {
	known := map[string]bool{}
	for _, s := range isa.GenWords {
		known[s.Table] = true
	}
	for _, s := range isa.GenSubs {
		known[s.Table] = true
	}
	for _, e := range isa.GenEnums {
		known[e.Table] = true
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	found := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_gen.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				if len(vs.Values) == 0 || !isTable(vs.Values[0]) || vs.Names[0].Name == "_" {
					continue
				}
				n := vs.Names[0].Name
				found[n] = true
				if !known[n] {
					return fmt.Errorf("%s: %s is a layout table or enum that isa.GenWords/GenSubs/GenEnums (gentables.go) does not list", filepath.Base(name), n)
				}
			}
		}
	}
	for n := range known {
		if !found[n] {
			return fmt.Errorf("gentables.go lists %s, which no source in %s declares as a table or enum", n, dir)
		}
	}
	return nil
}

// isTable reports an initializer that builds a *Struct (`&Struct{…}`,
// `(&Struct{…}).finish()`) or an *Enum (`newEnum(…)`, a func literal whose
// first result is *Enum).
func isTable(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return isTable(x.X)
	case *ast.UnaryExpr:
		if c, ok := x.X.(*ast.CompositeLit); ok {
			id, ok := c.Type.(*ast.Ident)
			return ok && id.Name == "Struct"
		}
	case *ast.CallExpr:
		switch f := x.Fun.(type) {
		case *ast.Ident:
			return f.Name == "newEnum" || f.Name == "NewEnum"
		case *ast.SelectorExpr:
			return f.Sel.Name == "finish" && isTable(f.X)
		case *ast.FuncLit:
			if r := f.Type.Results; r != nil && len(r.List) > 0 {
				if st, ok := r.List[0].Type.(*ast.StarExpr); ok {
					id, ok := st.X.(*ast.Ident)
					return ok && id.Name == "Enum"
				}
			}
		}
	}
	return false
}

// words are the Go spellings of the snake_case parts gentyped keeps upper
// case (Go initialisms and the spec's own abbreviations).
var words = map[string]string{
	"dma": "DMA", "id": "ID", "ids": "IDs", "dtype": "DType", "oob": "OOB", "cce": "CCE", "dge": "DGE", "bc": "BC",
	"ge": "GE", "gt": "GT", "le": "LE", "lt": "LT", "eq": "EQ", "ne": "NE", "fp": "FP", "sfp": "SFP", "cptc": "CPTC",
	"lnc": "LNC", "pe": "PE", "act": "ACT", "dve": "DVE", "tpb": "TPB", "sp": "SP", "sow": "SOW", "pcie": "PCIe",
	"ro": "RO", "alu": "ALU", "bfloat": "BFloat", "tdg": "TDG", "cc": "CC", "srcdst": "SrcDst", "semid": "SemID", "rdma": "RDMA",
}

// goName Go-cases a spec name: "tile_src_rows" → TileSrcRows,
// "WAIT_FOR_SEM_GE_IMM" → WaitForSemGEImm, "FP8_EXP3" → FP8Exp3.
func goName(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		if w == "" {
			continue
		}
		lw := strings.ToLower(w)
		if r, ok := words[lw]; ok {
			b.WriteString(r)
			continue
		}
		head, tail := lw, ""
		if i := strings.IndexFunc(lw, unicode.IsDigit); i >= 0 {
			head, tail = lw[:i], lw[i:]
		}
		if r, ok := words[head]; ok {
			b.WriteString(r)
		} else if head != "" {
			b.WriteString(strings.ToUpper(head[:1]) + head[1:])
		}
		b.WriteString(strings.ToUpper(tail))
	}
	return b.String()
}

type gen struct {
	b     bytes.Buffer
	enums map[*isa.Enum]isa.GenEnum
	views map[*isa.Struct]isa.GenStruct
	probe bytes.Buffer // the body of typedProbe
}

func (g *gen) p(format string, a ...any) { fmt.Fprintf(&g.b, format+"\n", a...) }

func generate() ([]byte, error) {
	g := &gen{enums: map[*isa.Enum]isa.GenEnum{}, views: map[*isa.Struct]isa.GenStruct{}}
	for _, e := range isa.GenEnums {
		g.enums[e.E] = e
	}
	for _, s := range append(append([]isa.GenStruct{}, isa.GenWords...), isa.GenSubs...) {
		g.views[s.S] = s
	}
	g.p("// Code generated by gentyped; DO NOT EDIT.")
	g.p("")
	g.p("//go:build !gentyped")
	g.p("")
	g.p("package isa")
	g.p("")
	if err := g.enumTypes(); err != nil {
		return nil, err
	}
	for _, s := range isa.GenWords {
		if err := g.view(s, true); err != nil {
			return nil, err
		}
	}
	for _, s := range isa.GenSubs {
		if err := g.view(s, false); err != nil {
			return nil, err
		}
	}
	g.common("header", isa.Header(), "HEADER (docs/field-tables.md §2.1)")
	g.common("events", isa.Events(), "EVENTS block (docs/field-tables.md §2.2)")
	if err := g.members(); err != nil {
		return nil, err
	}
	g.probes()
	src, err := format.Source(g.b.Bytes())
	if err != nil {
		return g.b.Bytes(), fmt.Errorf("formatting the output: %v", err)
	}
	return src, nil
}

// enumTypes writes a named type, its constants and a String method per enum.
func (g *gen) enumTypes() error {
	seen := map[string]string{}
	for _, e := range isa.GenEnums {
		g.p("// %s is a value of %s (the %s table).", e.Type, e.E.Name, e.Var)
		g.p("type %s uint8", e.Type)
		g.p("")
		g.p("// The %s values.", e.E.Name)
		g.p("const (")
		for _, v := range e.E.Values {
			if v.Value > 0xff {
				return fmt.Errorf("enum %s value %s = %#x does not fit uint8", e.E.Name, v.Name, v.Value)
			}
			n := e.Var + goName(v.Name)
			if prev, dup := seen[n]; dup {
				return fmt.Errorf("enum %s value %s and %s are both %s in Go", e.E.Name, v.Name, prev, n)
			}
			seen[n] = v.Name
			note := v.Name
			if v.Gens != isa.AllGens {
				note += " (" + v.Gens.String() + ")"
			}
			if v.Note != "" {
				note += ": " + v.Note
			}
			g.p("\t%s %s = %#02x // %s", n, e.Type, v.Value, note)
		}
		g.p(")")
		g.p("")
		g.p("// String is the value's spec name, or its hex form when it has none.")
		g.p("func (c %s) String() string { return %s.Format(uint64(c)) }", e.Type, e.Table)
		g.p("")
		g.p("// Enum is the table of %s's values.", e.Type)
		g.p("func (%s) Enum() *Enum { return %s }", e.Type, e.Table)
		g.p("")
	}
	g.p("// Enums are every enum of the tables, in gentables.go's order (a new slice")
	g.p("// each call; the enums are the tables themselves, as WaitMode() returns).")
	g.p("func Enums() []*Enum {")
	g.p("\treturn []*Enum{")
	for _, e := range isa.GenEnums {
		g.p("\t\t%s,", e.Table)
	}
	g.p("\t}")
	g.p("}")
	g.p("")
	return nil
}

// view writes the view type of a layout: a constructor on Inst for a word,
// then one getter (and, for a writable field, one setter) per field.
func (g *gen) view(s isa.GenStruct, word bool) error {
	st := s.S
	if word {
		g.p("// %s is the typed view of a %s word (%d leaves): one method per field of the %s table.", s.View, st.Name, len(st.Leaves()), s.Var)
		g.p("type %s struct{ in *Inst }", s.View)
		g.p("")
		g.p("// %s returns the typed view of a %s word; ok is false when in decodes by another layout.", s.Var, st.Name)
		g.p("func (in *Inst) %s() (%s, bool) {", s.Var, s.View)
		g.p("\tif in.def == nil || in.layout() != %s {", s.Table)
		g.p("\t\treturn %s{}, false", s.View)
		g.p("\t}")
		g.p("\treturn %s{in}, true", s.View)
		g.p("}")
	} else {
		g.p("// %s is the typed view of a %s inside a word.", s.View, st.Name)
		g.p("type %s struct {", s.View)
		g.p("\tin *Inst")
		g.p("\tat int // the leaf index of its first field")
		g.p("}")
	}
	g.p("")
	g.p("// Inst is the viewed instruction.")
	g.p("func (v %s) Inst() *Inst { return v.in }", s.View)
	g.p("")
	if word {
		fmt.Fprintf(&g.probe, "case %s:\n\tv, _ := in.%s()\n\treturn []typedAccess{\n", s.Table, s.Var)
		if err := g.fields(s, true, "v"); err != nil {
			return err
		}
		fmt.Fprintf(&g.probe, "\t}\n")
		return nil
	}
	return g.fields(s, false, "")
}

// fields writes the methods of the fields of view s. A word's methods use
// constant leaf indices; a sub-struct view's add its v.at. For a word, the
// probe entries read each field through chain ("v").
func (g *gen) fields(s isa.GenStruct, word bool, chain string) error {
	st := s.S
	names := map[string]bool{"Inst": true}
	leaf := 0 // leaves of st before this field
	for fi := range st.Fields {
		f := &st.Fields[fi]
		n := goName(f.Name)
		if names[n] || names["Set"+n] {
			return fmt.Errorf("%s: field %s is %s in Go, which another method has", st.Name, f.Name, n)
		}
		names[n], names["Set"+n] = true, true
		per := leavesPer(f)
		count := max(f.Count, 1)
		first := fmt.Sprint(leaf) // the field's first leaf, as Go
		if !word {
			first = "v.at"
			if leaf > 0 {
				first = fmt.Sprintf("v.at+%d", leaf)
			}
		}
		note := f.TypeName()
		if f.Note != "" {
			note += ": " + f.Note
		}
		param := "" // the index parameter of an array's methods
		if f.Count > 0 {
			param = "i int"
		}
		withParam := func(rest string) string { // the setter's parameter list
			if param == "" {
				return rest
			}
			return param + ", " + rest
		}
		switch f.Kind {
		case isa.KStruct:
			sub, ok := g.views[f.Sub]
			if !ok {
				return fmt.Errorf("%s.%s: sub-struct %s has no view (gentables.go GenSubs)", st.Name, f.Name, f.Sub.Name)
			}
			if f.Count > 0 {
				return fmt.Errorf("%s.%s: arrays of sub-structs are not supported", st.Name, f.Name)
			}
			g.p("// %s is the %s field (%s).", n, f.Name, note)
			g.p("func (v %s) %s() %s { return %s{v.in, %s} }", s.View, n, sub.View, sub.View, first)
			g.p("")
			if word {
				g.probeSub(f.Sub, chain+"."+n+"()", f.Name+".", leaf)
			}
		case isa.KBytes:
			if f.Size <= 8 {
				return fmt.Errorf("%s.%s: a byte range of %d bytes (one leaf) is not supported", st.Name, f.Name, f.Size)
			}
			at := first // the range's first leaf
			if f.Count > 0 {
				at = fmt.Sprintf("%s+elemAt(0, %d, i)*%d", first, count, per)
			}
			g.p("// %s is the %s field (%s).", n, f.Name, note)
			g.p("func (v %s) %s(%s) (b [%d]byte) {", s.View, n, param, f.Size)
			g.p("\tv.in.leafBytes(%s, b[:])", at)
			g.p("\treturn b")
			g.p("}")
			g.p("")
			if !f.Reserved {
				g.p("// Set%s sets %s.", n, f.Name)
				g.p("func (v %s) Set%s(%s) {", s.View, n, withParam(fmt.Sprintf("b [%d]byte", f.Size)))
				g.p("\tv.in.setLeafBytes(%s, b[:])", at)
				g.p("}")
				g.p("")
			}
		default:
			at := first
			if f.Count > 0 {
				at = fmt.Sprintf("elemAt(%s, %d, i)", first, count)
			}
			x := fmt.Sprintf("v.in.leafAt(%s)", at)
			if word { // a word's leaves stand at constant places: read them in place
				if g, ok := wordGet(st, leaf, count); ok {
					x = g
				}
			}
			typ, get, set, setArg, fails, err := g.scalar(f, x)
			if err != nil {
				return fmt.Errorf("%s.%s: %v", st.Name, f.Name, err)
			}
			g.p("// %s is the %s field (%s).", n, f.Name, note)
			g.p("func (v %s) %s(%s) %s { return %s }", s.View, n, param, typ, get)
			g.p("")
			if writable(f) {
				if fails {
					g.p("// Set%s sets %s, refusing a value that does not fit (as Set does).", n, f.Name)
					g.p("func (v %s) Set%s(%s) error { return v.in.setAt(%s, %s) }", s.View, n, withParam(set), at, setArg)
				} else {
					g.p("// Set%s sets %s.", n, f.Name)
					g.p("func (v %s) Set%s(%s) { v.in.putLeaf(%s, %s) }", s.View, n, withParam(set), at, setArg)
				}
				g.p("")
			}
		}
		if word && f.Kind != isa.KStruct {
			g.probeField(f, chain, n, f.Name, leaf, per)
		}
		leaf += count * per
	}
	return nil
}

// wordGet is the in-place read of field leaves first..first+count-1 of
// layout st (Inst.get): each element's 8-byte window and shift, as constants
// or, for an array, a constant array indexed by i (which also checks i).
func wordGet(st *isa.Struct, first, count int) (string, bool) {
	var at []string
	width := 0
	for _, e := range st.Leaves()[first : first+count] {
		win := min(e.Off, isa.WordSize-8)
		shift := (e.Off-win)*8 + e.Bit
		if shift+e.Bits > 64 || (width != 0 && e.Bits != width) {
			return "", false
		}
		width = e.Bits
		at = append(at, fmt.Sprintf("%#x", win<<8|shift))
	}
	if count == 1 {
		return fmt.Sprintf("v.in.get(%s, %d)", at[0], width), true
	}
	return fmt.Sprintf("v.in.get([%d]uint{%s}[i], %d)", count, strings.Join(at, ", "), width), true
}

// writable reports a field that gets a setter: not reserved, and not the
// opcode byte, which is the Inst's own (New, Reset).
func writable(f *isa.Field) bool { return !f.Reserved && f.Name != "opcode" }

// leavesPer is the number of leaves of one element of f.
func leavesPer(f *isa.Field) int {
	switch {
	case f.Kind == isa.KStruct:
		return countLeaves(f.Sub)
	case f.Kind == isa.KBytes && f.Size > 8:
		return (f.Size + 7) / 8
	}
	return 1
}

// scalar is a one-leaf field's Go type, getter expression over x (the leaf
// value), setter parameter, the value the setter stores, and whether the
// setter can fail (a value wider than the field).
func (g *gen) scalar(f *isa.Field, x string) (typ, get, set, setArg string, fails bool, err error) {
	bits := f.Bits
	if bits == 0 {
		bits = f.Size * 8
	}
	switch f.Kind {
	case isa.KUint:
		if f.Enum != nil {
			e, ok := g.enums[f.Enum]
			if !ok {
				return "", "", "", "", false, fmt.Errorf("enum %s is not in gentables.go GenEnums", f.Enum.Name)
			}
			return e.Type, fmt.Sprintf("%s(%s)", e.Type, x), "x " + e.Type, "int64(x)", true, nil
		}
		return "uint64", x, "x int64", "x", true, nil
	case isa.KInt:
		switch bits {
		case 8, 16, 32:
			return "int64", fmt.Sprintf("int64(int%d(%s))", bits, x), "x int64", "x", true, nil
		}
		return "int64", fmt.Sprintf("int64(%s<<%d) >> %d", x, 64-bits, 64-bits), "x int64", "x", true, nil
	case isa.KAddr8:
		return "Addr8", fmt.Sprintf("Addr8{Raw: %s}", x), "raw uint64", "raw", false, nil
	case isa.KPseudoAddr8:
		return "Addr8", fmt.Sprintf("Addr8{Raw: %s, Pseudo: true}", x), "raw uint64", "raw", false, nil
	case isa.KAddr4:
		return "Addr4", fmt.Sprintf("Addr4(%s)", x), "a Addr4", "uint64(a)", false, nil
	case isa.KDMAAddr:
		return "uint64", x, "raw uint64", "raw", false, nil
	case isa.KCCInst:
		return "CCInst", fmt.Sprintf("CCInst(%s)", x), "c CCInst", "uint64(c)", false, nil
	}
	return "", "", "", "", false, fmt.Errorf("kind %d has no typed form", f.Kind)
}

func countLeaves(st *isa.Struct) int {
	n := 0
	for i := range st.Fields {
		n += max(st.Fields[i].Count, 1) * leavesPer(&st.Fields[i])
	}
	return n
}

// probeSub adds the probe entries of a sub-struct read through chain.
func (g *gen) probeSub(st *isa.Struct, chain, prefix string, base int) {
	leaf := 0
	for fi := range st.Fields {
		f := &st.Fields[fi]
		n := goName(f.Name)
		if f.Kind == isa.KStruct {
			g.probeSub(f.Sub, chain+"."+n+"()", prefix+f.Name+".", base+leaf)
		} else {
			g.probeField(f, chain, n, prefix+f.Name, base+leaf, leavesPer(f))
		}
		leaf += max(f.Count, 1) * leavesPer(f)
	}
}

// probeField adds one probe entry per element of a non-struct field.
func (g *gen) probeField(f *isa.Field, chain, n, path string, first, per int) {
	count := max(f.Count, 1)
	for e := 0; e < count; e++ {
		p, arg := path, ""
		if f.Count > 0 {
			p, arg = fmt.Sprintf("%s[%d]", path, e), fmt.Sprintf("%d, ", e)
		}
		get := fmt.Sprintf("func() any { return %s.%s(%s) }", chain, n, strings.TrimSuffix(arg, ", "))
		set := "nil"
		if writable(f) {
			switch f.Kind {
			case isa.KUint, isa.KInt:
				conv := "x"
				if f.Enum != nil {
					conv = g.enums[f.Enum].Type + "(x)"
				}
				set = fmt.Sprintf("func(x int64) error { return %s.Set%s(%s%s) }", chain, n, arg, conv)
			case isa.KAddr8, isa.KPseudoAddr8, isa.KDMAAddr:
				set = fmt.Sprintf("func(x int64) error { %s.Set%s(%suint64(x)); return nil }", chain, n, arg)
			case isa.KAddr4:
				set = fmt.Sprintf("func(x int64) error { %s.Set%s(%sAddr4(x)); return nil }", chain, n, arg)
			case isa.KCCInst:
				set = fmt.Sprintf("func(x int64) error { %s.Set%s(%sCCInst(x)); return nil }", chain, n, arg)
			case isa.KBytes:
				set = fmt.Sprintf("func(x int64) error { var b [%d]byte; probeBytes(b[:], x); %s.Set%s(%sb); return nil }", f.Size, chain, n, arg)
			}
		}
		fmt.Fprintf(&g.probe, "\t\t{%q, %d, %s, %s},\n", p, first+e*per, get, set)
	}
}

// common writes an Inst method returning the view of a sub-struct that most
// words carry as a top-level field (header, events), switching on layout.
func (g *gen) common(name string, sub *isa.Struct, what string) {
	view := g.views[sub].View
	at := map[int][]string{}
	for _, w := range isa.GenWords {
		leaf := 0
		for i := range w.S.Fields {
			f := &w.S.Fields[i]
			if f.Name == name && f.Kind == isa.KStruct && f.Sub == sub {
				at[leaf] = append(at[leaf], w.Table)
			}
			leaf += max(f.Count, 1) * leavesPer(f)
		}
	}
	var idx []int
	for k := range at {
		idx = append(idx, k)
	}
	sort.Ints(idx)
	n := goName(name)
	g.p("// %s returns the %s of a word whose layout has one; ok is false for the others.", n, what)
	g.p("func (in *Inst) %s() (%s, bool) {", n, view)
	g.p("\tif in.def == nil {")
	g.p("\t\treturn %s{}, false", view)
	g.p("\t}")
	g.p("\tswitch in.layout() {")
	for _, k := range idx {
		g.p("\tcase %s:", strings.Join(at[k], ", "))
		g.p("\t\treturn %s{in, %d}, true", view, k)
	}
	g.p("\t}")
	g.p("\treturn %s{}, false", view)
	g.p("}")
	g.p("")
}

// members writes a type per CCINST member with a getter per field, and the
// CCInst method that returns it.
func (g *gen) members() error {
	var probe bytes.Buffer
	for _, m := range isa.GenMembers {
		typName := ""
		for _, e := range isa.GenEnums {
			if e.E == isa.CCInstType() {
				typName = e.Var + goName(m.Name)
			}
		}
		g.p("// %s is a CCINST of member %s (docs/field-tables.md §3.11): %s.", m.Type, m.Name, m.Note)
		g.p("type %s CCInst", m.Type)
		g.p("")
		g.p("// %s returns c as member %s; ok is false when c's op selects another member.", m.Method, m.Name)
		g.p("func (c CCInst) %s() (%s, bool) {", m.Method, m.Type)
		g.p("\tt, ok := CCOpType(c.Op())")
		g.p("\treturn %s(c), ok && t == uint64(%s)", m.Type, typName)
		g.p("}")
		g.p("")
		fmt.Fprintf(&probe, "\tif m, ok := c.%s(); ok {\n\t\treturn %q, []typedCCAccess{\n", m.Method, m.Name)
		for _, f := range m.Fields {
			n := goName(f.Name)
			var typ, get string
			x := "uint64(m)"
			if f.Shift > 0 {
				x = fmt.Sprintf("uint64(m) >> %d", f.Shift)
			}
			mask := fmt.Sprintf("%#x", uint64(1)<<f.Width-1)
			switch {
			case f.Enum != nil && f.TypeName != "":
				typ, get = f.TypeName, fmt.Sprintf("%s(%s & %s)", f.TypeName, x, mask)
			case f.Enum != nil:
				return fmt.Errorf("CCINST %s.%s: enum %s is not in GenEnums", m.Name, f.Name, f.Enum.Name)
			case f.Signed && (f.Width == 8 || f.Width == 16):
				typ, get = "int64", fmt.Sprintf("int64(int%d(%s))", f.Width, x)
			case f.Signed:
				typ, get = "int64", fmt.Sprintf("int64(uint64(m)<<%d) >> %d", 64-int(f.Shift)-int(f.Width), 64-int(f.Width))
			default:
				typ, get = "uint64", fmt.Sprintf("%s & %s", x, mask)
			}
			g.p("// %s is the %s field, bits %d..%d (%s).", n, f.Name, f.Shift, int(f.Shift)+int(f.Width)-1, f.Prov)
			g.p("func (m %s) %s() %s { return %s }", m.Type, n, typ, get)
			g.p("")
			fmt.Fprintf(&probe, "\t\t\t{%q, func() any { return m.%s() }},\n", f.Name, n)
		}
		fmt.Fprintf(&probe, "\t\t}\n\t}\n")
	}
	g.p("// typedCCProbe lists the member getters of c for typed_test.go.")
	g.p("func typedCCProbe(c CCInst) (string, []typedCCAccess) {")
	g.b.Write(probe.Bytes())
	g.p("\treturn \"\", nil")
	g.p("}")
	g.p("")
	return nil
}

// probes writes what typed_test.go cross-checks against the string-path
// API: every getter and setter of a word's view with the path it reads.
func (g *gen) probes() {
	g.p("// typedAccess is one accessor of a view, for typed_test.go.")
	g.p("type typedAccess struct {")
	g.p("\tpath string // the spec path the accessor reads")
	g.p("\tleaf int    // its (first) leaf")
	g.p("\tget  func() any")
	g.p("\tset  func(x int64) error // nil: read-only")
	g.p("}")
	g.p("")
	g.p("// typedCCAccess is one getter of a CCINST member, for typed_test.go.")
	g.p("type typedCCAccess struct {")
	g.p("\tname string")
	g.p("\tget  func() any")
	g.p("}")
	g.p("")
	g.p("// typedProbe lists every accessor of in's view for typed_test.go.")
	g.p("func typedProbe(in *Inst) []typedAccess {")
	g.p("\tif in.def == nil {")
	g.p("\t\treturn nil")
	g.p("\t}")
	g.p("\tswitch in.layout() {")
	g.b.Write(g.probe.Bytes())
	g.p("\t}")
	g.p("\treturn nil")
	g.p("}")
	g.p("")
	g.p("// probeBytes fills b with x's bytes, repeated per 8-byte chunk.")
	g.p("func probeBytes(b []byte, x int64) {")
	g.p("\tfor k := range b {")
	g.p("\t\tb[k] = byte(uint64(x) >> (8 * (k %% 8)))")
	g.p("\t}")
	g.p("}")
	g.p("")
	g.p("// typedEnumConst is one generated enum constant, for typed_test.go.")
	g.p("type typedEnumConst struct {")
	g.p("\te    *Enum")
	g.p("\tname string")
	g.p("\tc    any")
	g.p("}")
	g.p("")
	g.p("// typedEnumProbe lists every enum constant for typed_test.go.")
	g.p("func typedEnumProbe() []typedEnumConst {")
	g.p("\treturn []typedEnumConst{")
	for _, e := range isa.GenEnums {
		for _, v := range e.E.Values {
			g.p("\t\t{%s, %q, %s},", e.Table, v.Name, e.Var+goName(v.Name))
		}
	}
	g.p("\t}")
	g.p("}")
}
