package cli

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"ndma/asm"
	"ndma/device"
	"ndma/dge"
	"ndma/internal/sched"
	"ndma/internal/strbuf"
	"ndma/isa"
	"ndma/sdma"
)

// multi is a repeatable flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, " ") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

// programFlags are a program's placement and registers: --var, --table,
// --vars, --reg (lower and run).
type programFlags struct {
	vars, tables, regs multi
	file               *string
}

func addProgramFlags(cl *cmdLine, regHelp string) *programFlags {
	f := &programFlags{}
	cl.fs.Var(&f.vars, "var", "NEFF variable base, ID=ADDR (e.g. 0=sbuf:0:0x0, 1=hbm:0x0); repeatable")
	cl.fs.Var(&f.tables, "table", "dge-table entries from index I, I=VAR,VAR,… (e.g. 0=1,2,3); repeatable")
	f.file = cl.fs.String("vars", "", `JSON file {"vars": {"ID": "ADDR"}, "table": [VAR, …]}`)
	cl.fs.Var(&f.regs, "reg", regHelp)
	return f
}

// load reads the program FILE (binary words or text; gen, when given,
// overrides its .gen) with its relocation table and register values.
func (f *programFlags) load(e *env, path string, gen isa.Gen) (*asm.Object, *dge.Vars, map[uint8]uint32, error) {
	prog, err := loadProgram(e, path, gen)
	if err != nil {
		return nil, nil, nil, err
	}
	if gen != isa.GenAny {
		prog.Gen = gen // the words decode as --gen says
	}
	if prog.Gen == isa.GenAny {
		return nil, nil, nil, usagef("no generation: give --gen G (or a .gen line in the text)")
	}
	var file []byte
	if *f.file != "" {
		if file, err = readInput(e, *f.file); err != nil {
			return nil, nil, nil, err
		}
	}
	vt, err := varTable(prog.Gen, f.vars, f.tables, *f.file, file)
	if err != nil {
		return nil, nil, nil, err
	}
	rv, err := regValues(f.regs)
	return prog, vt, rv, err
}

func runLower(e *env, args []string) error {
	cl := newCmdLine(e, "lower", "FILE|-", "", "generation (a text file's .gen is the default)")
	backendS := cl.fs.String("backend", "auto", "DGE backend: auto, pool, software, rtl")
	pf := addProgramFlags(cl, "register value for bound limits, rN=V; repeatable")
	asJSON := cl.fs.Bool("json", false, "print JSON")
	stats := cl.fs.Bool("stats", false, "print counts and descriptor-efficiency findings")
	ring := cl.fs.Int("ring", sdma.DefaultRingSize, "descriptors per ring")
	pos, gen, err := cl.parse(args, 1, "want one FILE (binary words or assembly text; - for stdin)")
	if err != nil {
		return err
	}
	backend, err := dge.ParseBackend(*backendS)
	if err != nil {
		return usageError{err}
	}
	if *ring <= 0 {
		return usagef("--ring %d: want a positive descriptor count", *ring)
	}
	prog, vt, rv, err := pf.load(e, pos[0], gen)
	if err != nil {
		return err
	}
	gen = prog.Gen
	steps, derr := device.Resolve(gen, prog.Code, vt)
	res, err := lowerSteps(gen, steps, derr, dge.Options{Backend: backend, Regs: rv}, sdma.Options{RingSize: *ring, Regs: rv}, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	switch {
	case *asJSON:
		for i := range res {
			res[i].detail()
		}
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	case *stats:
		var t lowerTally
		for i := range res {
			t.add(&res[i])
		}
		printStats(e, &t)
		return nil
	}
	var buf []byte
	for i := range res {
		if err := printLowered(e.stdout, &buf, &res[i]); err != nil {
			return err
		}
	}
	return nil
}

// loweredWord is one input word's lowering, as `lower` prints it.
type loweredWord struct {
	Offset   int          `json:"offset"`
	Mnemonic string       `json:"mnemonic"`
	Resolved string       `json:"resolved"` // "": the word runs as written
	Queue    string       `json:"queue"`    // the NEFF dma_queue (neff lower); "" for none
	Skipped  string       `json:"skipped"`  // why the DGE does not lower it; "" when it does
	Refused  string       `json:"refused"`  // why `run` refuses the word (a walk outside its NEFF variable); ""
	Backend  string       `json:"backend"`
	Trace    []string     `json:"trace"`
	Queues   []queueJSON  `json:"queues"`
	Indices  string       `json:"indices"`
	program  *dge.Program `json:"-"`
	lowered  *sdma.Lowered
	resolved *isa.Inst // the word Resolved names, its text built only when printed (--stats does not)
}

type descJSON struct {
	Leg    string `json:"leg"`
	Index  int    `json:"index"`
	Length int    `json:"length"`
	Flags  string `json:"flags"`
	Op     string `json:"op"`
	BufPtr uint64 `json:"buf_ptr"`      // the address it reads or writes (a number)
	BufTxt string `json:"buf_ptr_text"` // the same in hex
	Hex    string `json:"hex"`          // the descriptor's 16 bytes
}

type queueJSON struct {
	DMA         int            `json:"dma"`
	M2SRing     uint64         `json:"m2s_ring"` // the ring's base address (a number)
	S2MRing     uint64         `json:"s2m_ring"`
	M2SText     string         `json:"m2s_ring_text"` // the same in hex
	S2MText     string         `json:"s2m_ring_text"`
	Descriptors []descJSON     `json:"descriptors"`
	Doorbells   []doorbellJSON `json:"doorbells"`
}

// doorbellJSON is an sdma.Doorbell: the register a queue's descriptors
// are rung by, and how many.
type doorbellJSON struct {
	DMA   int    `json:"dma"`
	Reg   string `json:"reg"` // TDRTP_inc (M2S) or RDRTP_inc (S2M)
	Value int    `json:"value"`
}

// lowerSteps lowers a resolved stream (device.Resolve, device.ResolveEngine):
// every word a step executes, listed under the word as written; a fired
// block's words on a runtime-built ring (device.RuntimeRing). With emit
// set, each word goes to it as soon as it is lowered and none is kept: emit
// must not keep its program or descriptors past the call (the next word
// reuses the storage of the program, its descriptors and its doorbells).
func lowerSteps(gen isa.Gen, steps []sched.Step, decodeErr error, dopt dge.Options, sopt sdma.Options, emit func(loweredWord)) ([]loweredWord, error) {
	var out []loweredWord
	var scratch *dge.Program // emit keeps no word: one program's and one lowering's storage serve them all
	if emit != nil {
		scratch = &dge.Program{}
		sopt.Slab, sopt.Into = new([]sdma.Desc), &sdma.Lowered{}
	}
	if emit == nil {
		out = make([]loweredWord, 0, len(steps)) // a word a step, but for the blocks a trigger fires
	}
	for i := range steps {
		s := &steps[i]
		w := loweredWord{Offset: s.Offset, Mnemonic: s.Word.Def().Mnemonic(), Queue: s.Queue}
		if s.Err != nil {
			if s.Run == nil {
				return nil, fmt.Errorf("offset %#x (%s): %w", s.Offset, w.Mnemonic, s.Err)
			}
			w.Refused = s.Err.Error()
		}
		o, do := sopt, dopt
		if s.Ring != 0 { // a fired block's words on its runtime-built ring, its rows over its queue's engines
			o.RingSize, do.Engines = s.Ring, s.Engines
		}
		n := 1 // s.Words(), read in place: no copy of a word that executes itself (most of a NEFF's)
		if s.Run != nil {
			n = len(s.Run)
		}
		for k := range n {
			lw := w
			word := &s.Word
			if s.Run != nil {
				word = &s.Run[k]
				lw.resolved = word
			}
			if err := lowerWord(gen, word, &lw, do, o, scratch); err != nil {
				return nil, fmt.Errorf("offset %#x (%s): %w", s.Offset, w.Mnemonic, err)
			}
			if emit != nil {
				emit(lw)
				continue
			}
			out = append(out, lw)
		}
	}
	return out, decodeErr
}

// lowerWord lowers one resolved word into w (a word the DGE does not move
// is marked skipped).
//
// With scratch set, the program is lowered into it (dge.LowerInto): w's
// program is then scratch, and its lowering sopt.Into, valid until the next
// word (sdma.LowerInto).
func lowerWord(gen isa.Gen, word *isa.Inst, w *loweredWord, dopt dge.Options, sopt sdma.Options, scratch *dge.Program) error {
	p, lw, err := sdma.LowerInto(scratch, word, gen, dopt, sopt) // scratch nil: sdma.Lower
	if p == nil && errors.Is(err, dge.ErrNotLowered) {
		w.Skipped = "not a DGE data-movement word"
		return nil
	}
	if err != nil {
		return err
	}
	if p.IndicesAssumed {
		w.Indices = assumedIndices(p)
	}
	w.program, w.lowered, w.Backend = p, lw, p.Backend.String()
	return nil
}

// detail fills the listing and JSON fields of a lowered word: the firmware
// trace and every descriptor (built only when printed: --stats does not).
func (w *loweredWord) detail() {
	if w.resolved != nil && w.Resolved == "" {
		w.Resolved = string(resolvedText(nil, w.resolved))
	}
	lw := w.lowered
	if w.Trace == nil {
		w.Trace, w.Queues = []string{}, []queueJSON{}
	}
	if lw == nil || len(w.Trace) > 0 {
		return
	}
	w.Trace = strings.Split(strings.TrimSuffix(string(lw.AppendTrace(nil)), "\n"), "\n")
	for _, q := range lw.Queues {
		qj := queueJSON{DMA: q.DMA, M2SRing: q.M2SBase, S2MRing: q.S2MBase, M2SText: fmt.Sprintf("0x%x", q.M2SBase), S2MText: fmt.Sprintf("0x%x", q.S2MBase),
			Descriptors: []descJSON{}, Doorbells: []doorbellJSON{}}
		for _, d := range q.Doorbells {
			qj.Doorbells = append(qj.Doorbells, doorbellJSON{d.DMA, d.Reg, d.Value})
		}
		for _, leg := range []struct {
			name string
			ds   []sdma.Desc
		}{{"M2S", q.M2S}, {"S2M", q.S2M}} {
			for i := range leg.ds {
				dd := &leg.ds[i]
				f := strings.Fields(dd.String())
				qj.Descriptors = append(qj.Descriptors, descJSON{Leg: leg.name, Index: i, Length: dd.Length(), Flags: f[2],
					Op: f[3], BufPtr: dd.BufPtr(), BufTxt: fmt.Sprintf("0x%x", dd.BufPtr()), Hex: hex.EncodeToString(dd[:])})
			}
		}
		w.Queues = append(w.Queues, qj)
	}
}

// resolvedText appends the canonical text of a resolved word without its
// newline (a DIRECT2D is one line).
func resolvedText(b []byte, in *isa.Inst) []byte {
	b = asm.AppendInst(b, in)
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return b
}

// assumedIndices says which index values a lowering without memory used:
// the identity, for every lane of each indexed tensor (the rows of the trace
// are generated from them; `run` reads the real ones).
func assumedIndices(p *dge.Program) string {
	var parts []string
	for which, idx := range p.Indices {
		if idx != nil {
			parts = append(parts, fmt.Sprintf("%s_idx[j] = j for j = 0..%d", [...]string{"src", "dst"}[which], len(idx)-1))
		}
	}
	return "assumed " + strings.Join(parts, ", ") + " (lowering has no memory; `run` reads the index tensor)"
}

// printLowered writes one lowered word's listing, built in *buf (reused
// from word to word: a NEFF's listing is millions of lines).
func printLowered(out io.Writer, buf *[]byte, w *loweredWord) error {
	b := appendLowered((*buf)[:0], w)
	*buf = b
	_, err := out.Write(b)
	return err
}

// appendLowered is the listing of one lowered word: its header, queue,
// refusal, resolved word, then the firmware trace and the descriptors.
func appendLowered(b []byte, w *loweredWord) []byte {
	b = append(b, "== "...)
	b = appendOffset(b, w.Offset)
	b = append(b, ' ')
	b = append(b, w.Mnemonic...)
	b = append(b, '\n')
	if w.Queue != "" {
		b = append(append(append(b, "# queue "...), w.Queue...), '\n')
	}
	if w.Refused != "" {
		b = append(append(append(b, "# run refuses it: "...), w.Refused...), '\n')
	}
	switch { // a relocated word the DGE does not move (0xcd/0xce → 0xab/0xaa) shows it too
	case w.Resolved != "":
		b = append(append(append(b, "resolved: "...), w.Resolved...), '\n')
	case w.resolved != nil:
		at := len(b)
		b = resolvedText(append(b, "resolved: "...), w.resolved)
		if len(b) == at+len("resolved: ") { // no text: no line, as for an empty Resolved
			b = b[:at]
		} else {
			b = append(b, '\n')
		}
	}
	if w.Skipped != "" {
		return append(append(append(b, "# "...), w.Skipped...), '\n')
	}
	if w.Indices != "" {
		b = append(append(append(b, "# indices: "...), w.Indices...), '\n')
	}
	if w.Trace != nil {
		for _, l := range w.Trace {
			b = append(append(b, l...), '\n')
		}
	} else { // the trace's lines, each ending in a newline (an empty trace: one empty line)
		at := len(b)
		b = w.lowered.AppendTrace(b)
		if len(b) == at || b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
	}
	return w.lowered.AppendListing(b)
}

// appendOffset is fmt's %#06x of a word offset: 0x, then at least six hex
// digits (fmt pads the digits, not counting the prefix).
func appendOffset(b []byte, off int) []byte {
	if off < 0 {
		return fmt.Appendf(b, "%#06x", off)
	}
	var d [20]byte
	h := strconv.AppendUint(d[:0], uint64(off), 16)
	b = append(b, "0x"...)
	for n := len(h); n < 6; n++ {
		b = append(b, '0')
	}
	return append(b, h...)
}

// lowerTally is what --stats prints of a stream, counted word by word as it
// is lowered: the words need not be kept.
type lowerTally struct {
	c             lowerStats // the counts --json prints too (EstimatedNS: sim.EstimateNS of the lowered words, one after another)
	ops, m2sCount int
	findings      []string
	queues        map[string]*queueTally // by NEFF dma_queue
	queueNames    []string
	text          strbuf.Arena // the findings' strings
	scratch       []byte
	grouped       bool // print the findings a line per kind (neff lower --stats), not a line per word
}

type queueTally struct {
	words, descs int
	m2s          uint64
}

// add counts one lowered word: counts, and the transfers a descriptor
// budget dominates — runs under 512 bytes, per-partition payloads under
// 2 KiB (the efficiency floor the NKI documentation gives).
func (t *lowerTally) add(w *loweredWord) {
	t.c.add(w)
	if w.lowered == nil {
		return
	}
	small, n := 0, 0
	var wordBytes uint64
	var qt *queueTally
	if w.Queue != "" {
		if qt = t.queues[w.Queue]; qt == nil {
			if t.queues == nil {
				t.queues = map[string]*queueTally{}
			}
			qt = &queueTally{}
			t.queues[w.Queue] = qt
			t.queueNames = append(t.queueNames, w.Queue)
		}
		qt.words++
	}
	for c, q := range w.lowered.Queues {
		t.ops += len(w.program.Channels[c].Ops)
		for i := range q.M2S {
			l := uint64(q.M2S[i].Length())
			wordBytes += l
			if l < 512 {
				small++
			}
			n++
		}
		if qt != nil {
			qt.descs += len(q.M2S) + len(q.S2M)
		}
	}
	t.m2sCount += n
	if qt != nil {
		qt.m2s += wordBytes
	}
	// the findings' text is built without fmt, into the tally's arena: a NEFF can have one a word
	if small > 0 {
		b := t.finding(w)
		b = strconv.AppendInt(b, int64(small), 10)
		b = strconv.AppendInt(append(b, " of "...), int64(n), 10)
		t.scratch = append(b, " M2S descriptors move under 512 bytes (descriptor-bound)"...) // grown: kept for the next
		t.findings = append(t.findings, t.text.String(t.scratch))
	}
	if parts := partitionsOf(w.program); parts > 0 && wordBytes/uint64(parts) < 2048 {
		b := strconv.AppendUint(t.finding(w), wordBytes/uint64(parts), 10)
		t.scratch = append(b, " bytes per SBUF partition, under the 2 KiB efficiency floor"...)
		t.findings = append(t.findings, t.text.String(t.scratch))
	}
}

// finding starts a finding's text in the tally's scratch: "%#06x MNEMONIC: ".
func (t *lowerTally) finding(w *loweredWord) []byte {
	b := appendOffset(t.scratch[:0], w.Offset)
	b = append(append(b, ' '), w.Mnemonic...)
	t.scratch = append(b, ": "...)
	return t.scratch
}

// printStats prints the counts and the findings.
func printStats(e *env, t *lowerTally) {
	c := &t.c
	fmt.Fprintf(e.stdout, "words %d, lowered %d, micro-ops %d, descriptors %d\n", c.Words, c.Lowered, t.ops, c.Descriptors)
	avg := 0.0
	if c.Descriptors > 0 {
		avg = float64(c.BytesM2S) / float64(max(1, t.m2sCount))
	}
	fmt.Fprintf(e.stdout, "bytes M2S %d, S2M %d; average M2S descriptor %.0f bytes\n", c.BytesM2S, c.BytesS2M, avg)
	sort.Strings(t.findings)
	if t.grouped {
		printGroupedFindings(e.stdout, t.findings)
		return
	}
	for _, f := range t.findings {
		fmt.Fprintln(e.stdout, "finding:", f)
	}
}

// printGroupedFindings prints findings ("OFFSET MNEMONIC: N text") a line
// per kind, as `neff lint` groups them: how many words, the range of N, the
// first offsets (a NEFF can have one finding a word: 7,999 lines for one
// conv2d before, issue 34).
func printGroupedFindings(w io.Writer, findings []string) {
	type group struct {
		words     int
		lo, hi    int64
		offsets   []string
		mnemonics []string
	}
	var order []string
	groups := map[string]*group{}
	for _, f := range findings {
		head, rest, ok := strings.Cut(f, ": ")
		if !ok {
			continue
		}
		num, text, _ := strings.Cut(rest, " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil { // no leading count: a kind of its own
			text, n = rest, 0
		}
		key := text // the kind: the text after the word's own count
		g := groups[key]
		if g == nil {
			g = &group{lo: n, hi: n}
			groups[key] = g
			order = append(order, key)
		}
		off, mn, _ := strings.Cut(head, " ")
		g.words++
		g.lo, g.hi = min(g.lo, n), max(g.hi, n)
		if len(g.offsets) < 3 {
			g.offsets = append(g.offsets, off)
		}
		if !slices.Contains(g.mnemonics, mn) {
			g.mnemonics = append(g.mnemonics, mn)
		}
	}
	for _, k := range order {
		g := groups[k]
		more := ""
		if g.words > len(g.offsets) {
			more = ", …"
		}
		span := strconv.FormatInt(g.lo, 10)
		if g.hi != g.lo {
			span += ".." + strconv.FormatInt(g.hi, 10)
		}
		fmt.Fprintf(w, "finding: %d words (%s): %s %s (at %s%s)\n", g.words, strings.Join(g.mnemonics, ", "), span, k, strings.Join(g.offsets, ", "), more)
	}
}

// printQueueStats is the --stats breakdown by NEFF dma_queue.
func printQueueStats(e *env, t *lowerTally) {
	names := slices.Clone(t.queueNames)
	sort.Strings(names)
	for _, n := range names {
		q := t.queues[n]
		fmt.Fprintf(e.stdout, "queue %s: words %d, descriptors %d, bytes M2S %d\n", n, q.words, q.descs, q.m2s)
	}
}

// partitionsOf is the most SBUF partitions a leg of the program spans.
func partitionsOf(p *dge.Program) int {
	m := isa.Map(p.Gen)
	return max(p.Src.Partitions(m), p.Dst.Partitions(m))
}

// varTable builds the relocation table from --var, --table and --vars.
func varTable(gen isa.Gen, vars, tables multi, file string, b []byte) (*dge.Vars, error) {
	vt := &dge.Vars{Base: map[uint16]uint64{}}
	if file != "" {
		var f struct {
			Vars  map[string]string `json:"vars"`
			Table []uint16          `json:"table"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for id, a := range f.Vars {
			vars = append(vars, id+"="+a)
		}
		if len(f.Table) > 1<<16 { // a table index is bytes 4–5 of a tbl arm (docs/json.md PSEUDO_ADDR8)
			return nil, usagef("%s: %d table entries: at most 65536 (a table index is 16 bits)", file, len(f.Table))
		}
		vt.Table = f.Table
	}
	given := map[uint16]bool{}
	for _, v := range vars {
		id, a, ok := strings.Cut(v, "=")
		n, err := strconv.ParseUint(strings.TrimSpace(id), 0, 16)
		if !ok || err != nil {
			return nil, usagef("--var %q: want ID=ADDR (e.g. 1=hbm:0x0)", v)
		}
		addr, err := asm.ParseAddress(gen, a)
		if err != nil {
			return nil, usagef("--var %q: %v", v, err)
		}
		if _, twice := given[uint16(n)]; twice {
			return nil, usagef("--var %q: variable %d is given twice", v, n)
		}
		given[uint16(n)] = true
		vt.Base[uint16(n)] = addr
	}
	set := map[int]string{} // the table entries --table gives, each once
	for _, t := range tables {
		at, list, ok := strings.Cut(t, "=")
		start, err := strconv.Atoi(strings.TrimSpace(at))
		if !ok || err != nil || start < 0 || start > 0xffff {
			return nil, usagef("--table %q: want INDEX=VAR,VAR,… (e.g. 0=1,2,3)", t)
		}
		for k, s := range strings.Split(list, ",") {
			id, err := strconv.ParseUint(strings.TrimSpace(s), 0, 16)
			if err != nil {
				return nil, usagef("--table %q: %q is not a variable id", t, s)
			}
			if start+k > 0xffff { // a table index is 16 bits (docs/json.md PSEUDO_ADDR8)
				return nil, usagef("--table %q: entry %d is past the last table index, 65535", t, start+k)
			}
			if prev, twice := set[start+k]; twice {
				return nil, usagef("--table %q: entry %d is given twice (--table %q gives it too)", t, start+k, prev)
			}
			set[start+k] = t
			for len(vt.Table) <= start+k {
				vt.Table = append(vt.Table, 0xffff)
			}
			vt.Table[start+k] = uint16(id)
		}
	}
	return vt, nil
}

// semValues reads --sem N=V flags: semaphore N < 256, a 32-bit value.
func semValues(sems multi) (map[uint8]int32, error) {
	out := map[uint8]int32{}
	for _, s := range sems {
		k, v, ok := strings.Cut(s, "=")
		n, err1 := strconv.ParseUint(strings.TrimSpace(k), 0, 8)
		val, err2 := parse32(v)
		if !ok || err1 != nil || err2 != nil {
			return nil, usagef("--sem %q: want N=VALUE with N < 256 and a 32-bit value (-2147483648..4294967295)", s)
		}
		out[uint8(n)] = int32(val)
	}
	return out, nil
}

// parse32 is a 32-bit value given signed or unsigned (-1 and 0xffffffff
// are the same bits), as --sem and --reg both take it (issue 30 L8).
func parse32(s string) (uint32, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
	if err != nil || v < math.MinInt32 || v > math.MaxUint32 {
		return 0, fmt.Errorf("not a 32-bit value")
	}
	return uint32(v), nil
}

func regValues(regs multi) (map[uint8]uint32, error) {
	out := map[uint8]uint32{}
	for _, r := range regs {
		name, val, ok := strings.Cut(r, "=")
		n, err1 := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(name), "r"), 10, 6)
		v, err2 := parse32(val)
		if !ok || err1 != nil || err2 != nil {
			return nil, usagef("--reg %q: want rN=VALUE with N < 64 and a 32-bit value (-2147483648..4294967295)", r)
		}
		out[uint8(n)] = uint32(v)
	}
	return out, nil
}
