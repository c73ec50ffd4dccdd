// Package asm is ndma's text form of the instruction words: an assembler with
// file:line:col diagnostics and the canonical disassembler (docs/asm.md).
// Everything it knows about fields comes from the isa layout tables.
package asm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"ndma/isa"
)

// Error is one diagnostic.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

// Error is the one-line form: file:line:col: message, with control bytes,
// invisible format characters and bytes that are not UTF-8 escaped (\x00,
// \u202e), so that a diagnostic quoting binary input stays one printable line.
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", escapeControl(e.File), e.Line, e.Col, escapeControl(e.Msg))
}

// escapeControl writes the C0 and C1 controls, DEL, Unicode format
// characters (bidi overrides, zero-width) and invalid UTF-8 bytes as Go
// escapes; the rest of s, non-ASCII text included, is kept.
func escapeControl(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r >= 0x7f && (r < 0xa0 || r == utf8.RuneError || unicode.Is(unicode.Cf, r)) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1 || r < 0x20 || 0x7f <= r && r < 0xa0:
			if r >= 0x80 && r != utf8.RuneError {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				fmt.Fprintf(&b, `\x%02x`, s[i])
			}
		case unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// ErrorList is every diagnostic of a file, in source order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// MaxErrors caps the diagnostics of one file.
const MaxErrors = 50

// ErrTooManyErrors ends a list that hit MaxErrors.
var ErrTooManyErrors = errors.New("too many errors")

// Object is an assembled program.
type Object struct {
	Gen     isa.Gen        // the last .gen in effect (or the option)
	Code    []byte         // the words, every stream's in source order
	Lines   []int          // source line of each 64-byte word
	Labels  map[string]int // label → byte offset
	Streams []Stream       // the instruction streams (.engine, .core); one when the file names none
}

// Stream is one engine's instruction stream on one core: the words of Code
// from byte Start up to the next stream's Start.
type Stream struct {
	Engine string // a NEURON_ENGINE name ("POOL", "ACT", …); "" before any .engine
	Core   int
	Start  int
}

// StreamCode is stream k's words.
func (o *Object) StreamCode(k int) []byte {
	end := len(o.Code)
	if k+1 < len(o.Streams) {
		end = o.Streams[k+1].Start
	}
	return o.Code[o.Streams[k].Start:end]
}

// Options are the assembler's settings.
type Options struct {
	Gen isa.Gen // default generation, overridden by .gen
	// CCIBlock reads the source as the body of one COMPACT_CONTROL_INST
	// block (`ndma cci`): every line is a slot or a block label, indented or
	// not, and the word's mnemonic line is implied. Diagnostics name the
	// source's own lines and columns.
	CCIBlock bool
	// Partial returns, beside the ErrorList of a file with errors, the
	// Object of the words that did assemble (each with its source line), so
	// that a caller can report their rule violations with the syntax errors.
	Partial bool
}

// A segment maps a stretch of a logical line back to the source.
type segment struct {
	start, line, col int // offset in the logical line, 1-based source line, 0-based column of the stretch
}

// logical is one statement's text: a source line, joined with the lines that
// follow a trailing comma.
type logical struct {
	text     string
	segs     []segment
	indented bool
}

func (l *logical) pos(i int) (line, col int) {
	s := l.segs[0]
	for _, x := range l.segs[1:] {
		if x.start > i {
			break
		}
		s = x
	}
	return s.line, s.col + (i - s.start) + 1
}

type stmtKind uint8

const (
	stLabel stmtKind = iota
	stDirective
	stInst
	stSlot
)

type stmt struct {
	kind stmtKind
	ll   *logical
	off  int    // start of the statement in ll.text (after a label)
	name string // label name
}

// assembler holds one run's state.
type assembler struct {
	file      string
	errs      ErrorList
	gen       isa.Gen
	genLine   int // line of the file's .gen (0: none yet)
	labels    map[string]int
	labelLine map[string]int
	equs      map[string]int64   // .equ values, once evaluated
	equDefs   map[string]*equDef // every .equ of the file, by name
	obj       *Object

	cur       isa.Inst          // the word being assembled
	vals      map[string]uint64 // union arm fields (reused)
	ccVals    map[string]int64  // compact instruction operands (reused)
	parts     []part            // splitTop's results (reused, one per caller that may nest)
	ccParts   []part
	addrParts []part
	ccLabels  map[string]int
	ktLayout  *isa.Struct // the layout whose keys kt holds
	kt        *keyTable
	ccLines   []slotLine
}

func (a *assembler) errorf(ll *logical, i int, format string, args ...any) {
	if len(a.errs) >= MaxErrors {
		return
	}
	line, col := ll.pos(i)
	a.errs = append(a.errs, &Error{File: a.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// Assemble assembles src (named file in diagnostics). On any error it
// returns an ErrorList of every diagnostic (at most MaxErrors) and a nil
// Object, or with Options.Partial the words that assembled.
func Assemble(file string, src []byte, opt Options) (*Object, error) {
	a := &assembler{file: file, gen: opt.Gen, labels: map[string]int{}, labelLine: map[string]int{}, equs: map[string]int64{},
		obj: &Object{Gen: opt.Gen}, vals: map[string]uint64{}, ccVals: map[string]int64{}, ccLabels: map[string]int{}}
	// The text is read in place (no copy of the source); only label names
	// outlive the call, and they are cloned.
	var text string
	if len(src) > 0 {
		text = unsafe.String(&src[0], len(src))
	}
	lls := logicalLines(text)
	var stmts []stmt
	if opt.CCIBlock {
		stmts = blockStmts(lls)
	} else {
		stmts = a.split(lls)
	}
	words := 0
	for _, s := range stmts {
		if s.kind == stInst || s.kind == stDirective && strings.HasPrefix(s.ll.text[s.off:], ".word") {
			words++
		}
	}
	a.obj.Code = make([]byte, 0, words*isa.WordSize)
	a.obj.Lines = make([]int, 0, words)
	a.layout(stmts)
	a.emit(stmts)
	if len(a.obj.Streams) == 0 {
		a.obj.Streams = []Stream{{}}
	}
	a.obj.Labels = a.labels
	if len(a.errs) > 0 {
		if opt.Partial {
			return a.obj, a.errs
		}
		return nil, a.errs
	}
	return a.obj, nil
}

// logicalLines strips comments and joins lines that end with a comma.
func logicalLines(src string) []*logical {
	store := make([]logical, 0, strings.Count(src, "\n")+1) // one allocation for all lines
	segStore := make([]segment, 0, cap(store))
	out := make([]*logical, 0, cap(store))
	var cur *logical
	var joined []byte // the statement being continued, once it spans lines (until then it is read in place)
	continued := false
	end := func() {
		if continued {
			cur.text = string(joined) // one copy per continued statement: the cost follows the bytes
			continued = false
		}
		out = append(out, cur)
		cur = nil
	}
	n := -1
	for len(src) > 0 {
		var line string
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			line, src = src, ""
		}
		n++
		line = strings.TrimSuffix(line, "\r")
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		body := strings.TrimRight(line, " \t")
		lead := len(body) - len(strings.TrimLeft(body, " \t"))
		if cur != nil { // continuing the statement before
			if !continued {
				joined, continued = append(joined[:0], cur.text...), true
			}
			cur.segs = append(cur.segs, segment{start: len(joined) + 1, line: n + 1, col: lead})
			joined = append(append(joined, ' '), body[lead:]...)
			if joined[len(joined)-1] == ',' {
				continue
			}
		} else {
			if body == "" {
				continue
			}
			segStore = append(segStore, segment{0, n + 1, lead})
			store = append(store, logical{text: body[lead:], segs: segStore[len(segStore)-1 : len(segStore) : len(segStore)], indented: lead > 0})
			cur = &store[len(store)-1]
			if strings.HasSuffix(cur.text, ",") {
				continue
			}
		}
		end()
	}
	if cur != nil {
		end()
	}
	return out
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// leadingLabel reports a "name:" at the start of s (not "sbuf:…").
func leadingLabel(s string) (name string, rest int, ok bool) {
	i := 0
	for i < len(s) && isIdent(s[i]) && s[i] != '.' {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != ':' || !isIdentStart(s[0]) {
		return "", 0, false
	}
	if i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t' {
		return "", 0, false
	}
	j := i + 1
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return s[:i], j, true
}

// split classifies the logical lines: labels, directives, instructions, and
// the indented slot lines of a COMPACT_CONTROL_INST block.
func (a *assembler) split(lls []*logical) []stmt {
	out := make([]stmt, 0, len(lls)+len(lls)/8)
	inCCI := false
	for k, ll := range lls {
		off := 0
		if name, rest, ok := leadingLabel(ll.text); ok {
			// a label line inside a block stays in it when the block goes on after it
			slotLabel := inCCI && (ll.indented || rest == len(ll.text) && k+1 < len(lls) && lls[k+1].indented)
			if slotLabel {
				out = append(out, stmt{kind: stSlot, ll: ll, off: 0})
				continue
			}
			inCCI = false
			out = append(out, stmt{kind: stLabel, ll: ll, name: name})
			off = rest
			if off == len(ll.text) {
				continue
			}
		}
		switch {
		case inCCI && ll.indented:
			out = append(out, stmt{kind: stSlot, ll: ll})
		case ll.text[off] == '.':
			inCCI = false
			out = append(out, stmt{kind: stDirective, ll: ll, off: off})
		default:
			mn := ll.text[off:]
			if i := strings.IndexAny(mn, " \t"); i >= 0 {
				mn = mn[:i]
			}
			d, err := isa.LookupName(mn)
			inCCI = err == nil && d.Opcode == isa.OpCompactControlInst
			out = append(out, stmt{kind: stInst, ll: ll, off: off})
		}
	}
	return out
}

// blockStmts are the statements of a bare COMPACT_CONTROL_INST block: the
// implied mnemonic line (at line 1), then every line as a slot.
func blockStmts(lls []*logical) []stmt {
	head := &logical{text: "compact_control_inst", segs: []segment{{0, 1, 0}}}
	out := make([]stmt, 0, len(lls)+1)
	out = append(out, stmt{kind: stInst, ll: head})
	for _, ll := range lls {
		out = append(out, stmt{kind: stSlot, ll: ll})
	}
	return out
}

// layout gives every label its byte offset (every word is 64 bytes), then
// evaluates every .equ: a value may name a label or an .equ defined later in
// the file (a forward reference), as an instruction's field may.
func (a *assembler) layout(stmts []stmt) {
	off := 0
	var order []*equDef
	for _, s := range stmts {
		switch s.kind {
		case stLabel:
			if _, dup := a.labels[s.name]; dup {
				a.errorf(s.ll, 0, "label %q already defined at line %d", s.name, a.labelLine[s.name])
				continue
			}
			a.labels[strings.Clone(s.name)] = off
			a.labelLine[s.name], _ = s.ll.pos(0)
		case stInst:
			off += isa.WordSize
		case stDirective:
			name, args, _ := directive(s)
			switch name {
			case ".word":
				off += isa.WordSize
			case ".equ":
				if d := a.defineEqu(s, args); d != nil {
					order = append(order, d)
				}
			}
		}
	}
	for _, d := range order {
		a.evalEqu(d)
	}
}

// equDef is one .equ line, evaluated on first use (or in source order).
type equDef struct {
	s      stmt
	name   string
	val    string
	valAt  int // the value's offset in the logical line
	line   int
	state  uint8 // equPending, equEvaluating, equDone, equFailed
	failed error
}

const (
	equPending = iota
	equEvaluating
	equDone
	equFailed
)

func (a *assembler) defineEqu(s stmt, args string) *equDef {
	_, _, at := directive(s)
	name, val, ok := strings.Cut(args, ",")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	if !ok || name == "" || !isIdentStart(name[0]) {
		a.errorf(s.ll, at, ".equ wants NAME, VALUE")
		return nil
	}
	line, _ := s.ll.pos(0)
	if d, dup := a.equDefs[name]; dup {
		a.errorf(s.ll, at, ".equ %s defined twice (first at line %d)", name, d.line)
		return nil
	}
	d := &equDef{s: s, name: name, val: val, valAt: at + strings.Index(args, val), line: line}
	if a.equDefs == nil {
		a.equDefs = map[string]*equDef{}
	}
	a.equDefs[d.name] = d
	return d
}

// evalEqu evaluates d once; a name it uses that is an .equ not yet
// evaluated is evaluated first (a cycle is an error).
func (a *assembler) evalEqu(d *equDef) {
	if d.state != equPending {
		return
	}
	d.state = equEvaluating
	neg, mag, err := a.number(d.val)
	if err != nil {
		d.state, d.failed = equFailed, err
		a.errorf(d.s.ll, d.valAt, "%v", err)
		return
	}
	v := int64(mag)
	if neg {
		v = -v
	}
	a.equs[d.name] = v
	d.state = equDone
}

func directive(s stmt) (name, args string, argOff int) {
	t := s.ll.text[s.off:]
	i := strings.IndexAny(t, " \t")
	if i < 0 {
		return t, "", len(s.ll.text)
	}
	rest := strings.TrimLeft(t[i:], " \t")
	return t[:i], rest, len(s.ll.text) - len(rest)
}

// emit assembles the statements in order.
func (a *assembler) emit(stmts []stmt) {
	for i := 0; i < len(stmts); i++ {
		s := stmts[i]
		switch s.kind {
		case stDirective:
			a.directive(s)
		case stInst:
			in, ok := a.inst(s)
			if in != nil && in.Opcode() == isa.OpCompactControlInst {
				j := i + 1
				for j < len(stmts) && stmts[j].kind == stSlot {
					j++
				}
				ok = a.cciBlock(in, stmts[i+1:j], s) && ok
				i = j - 1
			}
			if ok {
				var w [isa.WordSize]byte
				if err := in.EncodeTo(w[:]); err != nil {
					a.errorf(s.ll, s.off, "%v", err)
				}
				a.appendWord(w[:], s.ll)
			}
		case stSlot:
			a.errorf(s.ll, 0, "indented compact instruction outside a compact_control_inst block")
		}
	}
}

// startStream begins a stream at the current end of the code; an empty
// stream it follows is replaced.
func (a *assembler) startStream(engine string, core int) {
	st := Stream{Engine: engine, Core: core, Start: len(a.obj.Code)}
	if len(a.obj.Streams) == 0 && st.Start > 0 { // the words before the first directive
		a.obj.Streams = append(a.obj.Streams, Stream{})
	}
	if n := len(a.obj.Streams); n > 0 && a.obj.Streams[n-1].Start == st.Start {
		a.obj.Streams[n-1] = st
		return
	}
	a.obj.Streams = append(a.obj.Streams, st)
}

func (a *assembler) engine() string {
	if n := len(a.obj.Streams); n > 0 {
		return a.obj.Streams[n-1].Engine
	}
	return ""
}

func (a *assembler) core() int {
	if n := len(a.obj.Streams); n > 0 {
		return a.obj.Streams[n-1].Core
	}
	return 0
}

func (a *assembler) appendWord(w []byte, ll *logical) {
	line, _ := ll.pos(0)
	a.obj.Code = append(a.obj.Code, w...)
	a.obj.Lines = append(a.obj.Lines, line)
}

func (a *assembler) directive(s stmt) {
	name, args, at := directive(s)
	switch name {
	case ".gen":
		g, err := isa.ParseGen(args)
		if err != nil {
			a.errorf(s.ll, at, "%v", err)
			return
		}
		// One generation per file (RATIONALE.md "Assembly text"): the words of a
		// run share one machine, its address map and enum values.
		switch {
		case a.genLine > 0 && g != a.gen:
			a.errorf(s.ll, at, ".gen %s: the file is %s since line %d (one generation per file)", g, a.gen, a.genLine)
			return
		case a.genLine == 0 && len(a.obj.Code) > 0 && g != a.gen:
			was := "without a generation"
			if a.gen != isa.GenAny {
				was = "for " + a.gen.String()
			}
			a.errorf(s.ll, at, ".gen %s after words assembled %s: put .gen before the first word (one generation per file)", g, was)
			return
		}
		a.genLine, _ = s.ll.pos(0)
		a.gen, a.obj.Gen = g, g
	case ".word":
		var w [isa.WordSize]byte
		n := 0
		for rest := args; rest != ""; {
			tok, tail, _ := strings.Cut(rest, " ")
			x, err := decodeHexInto(w[:], n, tok)
			if err != nil {
				a.errorf(s.ll, at+len(args)-len(rest)+err.at, ".word: %v", err.msg)
				return
			}
			n += x
			rest = strings.TrimLeft(tail, " \t")
		}
		if n != isa.WordSize {
			a.errorf(s.ll, at, ".word: %d bytes, want 64", n)
			return
		}
		a.appendWord(w[:], s.ll)
	case ".equ":
		// evaluated in layout
	case ".engine":
		v, ok := isa.NeuronEngine().Parse(strings.ToUpper(strings.TrimSpace(args)))
		if !ok {
			a.errorf(s.ll, at, ".engine %q: want a NEURON_ENGINE name (PE, ACT, POOL, DVE, TPB_SP, TOP_SP)", args)
			return
		}
		a.startStream(isa.NeuronEngine().Format(v), a.core())
	case ".core":
		n, err := strconv.ParseUint(strings.TrimSpace(args), 0, 8)
		if err != nil || n > 63 {
			a.errorf(s.ll, at, ".core %q: want a core number 0..63", args)
			return
		}
		a.startStream(a.engine(), int(n))
	default:
		a.errorf(s.ll, s.off, "unknown directive %s%s", name, didYouMean(name, []string{".gen", ".word", ".equ", ".engine", ".core"}))
	}
}

// decodeHex decodes hex digits (an optional 0x first); an error says where.
func decodeHex(s string) ([]byte, *valueError) {
	b := make([]byte, len(s)/2)
	n, err := decodeHexInto(b, 0, s)
	return b[:n], err
}

// decodeHexInto decodes hex digits into dst[at:], counting bytes beyond
// dst's end without writing them (so a too-long .word reports its length).
func decodeHexInto(dst []byte, at int, s string) (int, *valueError) {
	off := 0
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s, off = s[2:], 2
	}
	if len(s)%2 != 0 {
		return 0, verr(off, "odd number of hex digits (%d)", len(s))
	}
	for i := 0; i < len(s)/2; i++ {
		hi, ok1 := unhex(s[2*i])
		lo, ok2 := unhex(s[2*i+1])
		if !ok1 || !ok2 {
			return 0, verr(off+2*i, "%q is not hex", s[2*i:2*i+2])
		}
		if at+i < len(dst) {
			dst[at+i] = hi<<4 | lo
		}
	}
	return len(s) / 2, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
