package inspect

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"ndma/asm"
	"ndma/isa"
	"ndma/neff"
)

// QueueSummary is the DMA of one subgraph, engine and queue: its words by
// the kind that runs, descriptors, bytes moved and completion semaphores.
type QueueSummary struct {
	Words       map[string]int `json:"words"`
	Descriptors int            `json:"descriptors"`
	Bytes       uint64         `json:"bytes"`
	Semaphores  []int          `json:"semaphores"`
}

// QueueDiff is a subgraph, engine and queue whose DMA differs (A or B nil:
// only in the other).
type QueueDiff struct {
	Subgraph string        `json:"subgraph"`
	Engine   string        `json:"engine"`
	Queue    string        `json:"queue"`
	A        *QueueSummary `json:"a"`
	B        *QueueSummary `json:"b"`
	Changes  []string      `json:"changes"`
}

// StreamDiff is an engine stream whose words by opcode or EVENTS
// semaphores differ.
type StreamDiff struct {
	Subgraph string   `json:"subgraph"`
	Engine   string   `json:"engine"`
	Changes  []string `json:"changes"`
}

// VarDiff is a variable added, removed, resized or retyped.
type VarDiff struct {
	Subgraph string `json:"subgraph"`
	Name     string `json:"name"`
	Change   string `json:"change"` // added, removed, resized, retyped
	A        string `json:"a"`      // "input 65536 bytes" ("": absent)
	B        string `json:"b"`
}

// BlockDiff is a dma[] block added, removed, or whose walks changed; or an
// inline (0xd4) word whose walk changed.
type BlockDiff struct {
	Subgraph string   `json:"subgraph"`
	Engine   string   `json:"engine"` // "" for a def.json block
	Block    string   `json:"block"`  // "qPoolData block 1", "0xd4 at 0x80"
	Change   string   `json:"change"`
	Details  []string `json:"details"`
}

// DiffResult is what changed in the DMA of two NEFFs.
type DiffResult struct {
	Same      bool         `json:"same"`
	TargetA   string       `json:"target_a"` // each NEFF's generation ("CAYMAN"); a change is a difference
	TargetB   string       `json:"target_b"`
	Totals    DiffTotals   `json:"totals"`
	Queues    []QueueDiff  `json:"queues"`
	Streams   []StreamDiff `json:"streams"`
	Variables []VarDiff    `json:"variables"`
	// Renamed are the variables matched by role under another name
	// (compiler spill slots: by type, size and the blocks that use them),
	// B's name → A's; a rename alone is no difference.
	Renamed []VarRename `json:"renamed"`
	Blocks  []BlockDiff `json:"blocks"`
	// Problems are what keeps a word of one NEFF from resolving or
	// lowering (neff check's words), each side's own: a NEFF whose words
	// fail moves less, so its counts would read smaller and faster
	// without them. One only one side has is a difference.
	Problems DiffProblems `json:"problems"`
}

// DiffProblems are the problems found in A only and in B only (one both
// have is no difference and is left out).
type DiffProblems struct {
	A []string `json:"a"`
	B []string `json:"b"`
}

// DiffTotals are the DMA of each NEFF whole.
type DiffTotals struct {
	A DiffTotal `json:"a"`
	B DiffTotal `json:"b"`
}

// DiffTotal is one NEFF's DMA as lint totals it: words, descriptors, bytes
// and lint's estimated DMA time.
type DiffTotal struct {
	Words       int    `json:"words"`
	Descriptors int    `json:"descriptors"`
	Bytes       uint64 `json:"bytes"`
	DMATimeNS   int64  `json:"dma_time_ns"`
}

// VarRename is a variable matched by role under another name.
type VarRename struct {
	Subgraph string `json:"subgraph"`
	A        string `json:"a"`
	B        string `json:"b"`
	Type     string `json:"type"`
	Size     int64  `json:"size"`
}

// totalOf is an analysis's totals, its DMA time lint's (neff lint prints it).
func totalOf(a *Analysis) DiffTotal {
	l := LintOf(a)
	return DiffTotal{Words: l.Words, Descriptors: l.Descriptors, Bytes: l.Bytes, DMATimeNS: lintTimeNS(l)}
}

// lintTimeNS is lint's estimated DMA time of the whole: its fixed and
// transfer parts, the words one after another.
func lintTimeNS(l *Lint) int64 { return l.FixedNS + l.TransferNS }

// summaries groups an analysis's words by subgraph, engine and queue.
func summaries(a *Analysis) map[[3]string]*QueueSummary {
	out := map[[3]string]*QueueSummary{}
	sems := map[[3]string]map[int]bool{}
	for i := range a.Words {
		w := &a.Words[i]
		k := [3]string{w.Subgraph, w.Engine, w.Queue}
		s := out[k]
		if s == nil {
			s = &QueueSummary{Words: map[string]int{}}
			out[k] = s
			sems[k] = map[int]bool{}
		}
		s.Words[w.Resolved]++
		s.Descriptors += w.Descriptors
		s.Bytes += w.Bytes
		sems[k][w.Semaphore] = true
	}
	for k, s := range out {
		s.Semaphores = sortedKeys(sems[k])
	}
	return out
}

// Diff compares the DMA of two NEFFs, each analysed for its generation:
// per subgraph, engine and queue the words by kind, descriptors, bytes and
// semaphores; per stream the words by opcode and the EVENTS semaphores;
// variables added, removed or resized; dma[] blocks and inline words whose
// walks changed.
func Diff(genA isa.Gen, a []neff.Subgraph, genB isa.Gen, b []neff.Subgraph) (*DiffResult, error) {
	aa, err := Analyze(genA, a, Options{})
	if err != nil {
		return nil, fmt.Errorf("A: %w", err)
	}
	ab, err := Analyze(genB, b, Options{})
	if err != nil {
		return nil, fmt.Errorf("B: %w", err)
	}
	r := &DiffResult{TargetA: genA.String(), TargetB: genB.String(), Totals: DiffTotals{totalOf(aa), totalOf(ab)},
		Queues: []QueueDiff{}, Streams: []StreamDiff{}, Variables: []VarDiff{}, Renamed: []VarRename{}, Blocks: []BlockDiff{}}
	compare(summaries(aa), summaries(ab), cmpKey3, func(x, y *QueueSummary) []string {
		ch := countChanges(nil, "%s words %d → %d", x.Words, y.Words)
		if x.Descriptors != y.Descriptors {
			ch = append(ch, fmt.Sprintf("descriptors %d → %d", x.Descriptors, y.Descriptors))
		}
		if x.Bytes != y.Bytes {
			ch = append(ch, fmt.Sprintf("bytes %d → %d", x.Bytes, y.Bytes))
		}
		if !reflect.DeepEqual(x.Semaphores, y.Semaphores) {
			ch = append(ch, fmt.Sprintf("semaphores %v → %v", x.Semaphores, y.Semaphores))
		}
		return ch
	}, func(k [3]string, x, y *QueueSummary, ch []string) {
		r.Queues = append(r.Queues, QueueDiff{Subgraph: k[0], Engine: k[1], Queue: k[2], A: x, B: y, Changes: ch})
	})
	streams := func(an *Analysis) map[[2]string]*Stream {
		m := map[[2]string]*Stream{}
		for i := range an.Streams {
			s := &an.Streams[i]
			m[[2]string{s.Subgraph, s.Engine}] = s
		}
		return m
	}
	compare(streams(aa), streams(ab), cmpKey2, func(x, y *Stream) []string {
		ch := countChanges(nil, "%s %d → %d", x.Opcodes, y.Opcodes)
		if !reflect.DeepEqual(x.Waits, y.Waits) {
			ch = append(ch, fmt.Sprintf("waits on %v → %v", x.Waits, y.Waits))
		}
		if !reflect.DeepEqual(x.Updates, y.Updates) {
			ch = append(ch, fmt.Sprintf("updates %v → %v", x.Updates, y.Updates))
		}
		return ch
	}, func(k [2]string, _, _ *Stream, ch []string) {
		r.Streams = append(r.Streams, StreamDiff{Subgraph: k[0], Engine: k[1], Changes: ch})
	})
	var rename map[string]map[string]string // per subgraph, B's variable name → A's
	r.Variables, r.Renamed, rename = varDiff(a, b)
	r.Blocks = append(append(r.Blocks, blockDiff(a, b, rename)...), inlineDiff(genA, a, genB, b)...)
	r.Problems = DiffProblems{A: only(aa.Problems, ab.Problems), B: only(ab.Problems, aa.Problems)}
	r.Same = len(r.Queues)+len(r.Streams)+len(r.Variables)+len(r.Blocks)+len(r.Problems.A)+len(r.Problems.B) == 0 && genA == genB
	return r, nil
}

// only is the problems of x that y does not have, in x's order.
func only(x, y []string) []string {
	out := []string{}
	for _, p := range x {
		if !slices.Contains(y, p) {
			out = append(out, p)
		}
	}
	return out
}

// compare walks the keys of a and b in order: a thing one side lacks is
// "only in A" or "only in B", else changes says what differs; add gets
// every key with a change.
func compare[K comparable, V any](a, b map[K]*V, order func(x, y K) int, changes func(x, y *V) []string, add func(k K, x, y *V, ch []string)) {
	for _, k := range union(a, b, order) {
		x, y := a[k], b[k]
		var ch []string
		switch {
		case x == nil:
			ch = []string{"only in B"}
		case y == nil:
			ch = []string{"only in A"}
		default:
			ch = changes(x, y)
		}
		if len(ch) > 0 {
			add(k, x, y, ch)
		}
	}
}

// countChanges appends a line per name whose count differs between a and b.
func countChanges(ch []string, format string, a, b map[string]int) []string {
	for _, name := range union(a, b, strings.Compare) {
		if a[name] != b[name] {
			ch = append(ch, fmt.Sprintf(format, name, a[name], b[name]))
		}
	}
	return ch
}

// union is the keys of a and b, each once, in cmp's order.
func union[K comparable, A, B any](a map[K]A, b map[K]B, cmp func(x, y K) int) []K {
	out := make([]K, 0, len(a)+len(b))
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, cmp)
	return out
}

func cmpKey2(x, y [2]string) int { return slices.Compare(x[:], y[:]) }

// cmpNumKey orders (name, number) keys by name, then by the number's value
// (strconv's bases: "0x80"): block 11 before 109 before 110.
func cmpNumKey(x, y [2]string) int {
	if c := strings.Compare(x[0], y[0]); c != 0 {
		return c
	}
	a, errA := strconv.ParseInt(x[1], 0, 64)
	b, errB := strconv.ParseInt(y[1], 0, 64)
	if errA != nil || errB != nil || a == b {
		return strings.Compare(x[1], y[1])
	}
	return cmp.Compare(a, b)
}
func cmpKey3(x, y [3]string) int { return slices.Compare(x[:], y[:]) }

func bySubgraph(sgs []neff.Subgraph) map[string]*neff.Subgraph {
	m := map[string]*neff.Subgraph{}
	for i := range sgs {
		m[sgs[i].Name] = &sgs[i]
	}
	return m
}

func varText(v neff.Variable) string { return fmt.Sprintf("%s %d bytes", v.Type, v.Size) }

// varDiff compares the variables of each subgraph by role: inputs and
// outputs (the names neff.json gives the caller) by name; every other —
// spill slots, constants, scratch the compiler names anew each build — by
// its type, size and the dma[] blocks that use it, then by name, then by
// type and size. Those matched under another name are renamed, B's name
// mapped to A's for blockDiff; the rest added, removed, resized or retyped.
func varDiff(a, b []neff.Subgraph) ([]VarDiff, []VarRename, map[string]map[string]string) {
	out, renamed, rename := []VarDiff{}, []VarRename{}, map[string]map[string]string{}
	ma, mb := bySubgraph(a), bySubgraph(b)
	for _, name := range union(ma, mb, strings.Compare) {
		va, vb := varsOf(ma[name]), varsOf(mb[name])
		pairs := [][2]*neff.Variable{} // matched A, B
		var onlyA, onlyB []*neff.Variable
		take := func(key func(v *neff.Variable, side int) string) {
			byKey := map[string][]*neff.Variable{}
			for _, v := range vb {
				byKey[key(v, 1)] = append(byKey[key(v, 1)], v)
			}
			var restA []*neff.Variable
			for _, x := range va {
				k := key(x, 0)
				if ys := byKey[k]; k != "" && len(ys) > 0 { // several alike: paired in name order
					pairs, byKey[k] = append(pairs, [2]*neff.Variable{x, ys[0]}), ys[1:]
					continue
				}
				restA = append(restA, x)
			}
			var restB []*neff.Variable
			for _, y := range vb {
				if slices.Contains(byKey[key(y, 1)], y) {
					restB = append(restB, y)
				}
			}
			va, vb = restA, restB
		}
		io := func(v *neff.Variable) bool { return v.Type == "input" || v.Type == "output" }
		uses := blockUses(ma[name], mb[name])
		take(func(v *neff.Variable, _ int) string { // inputs and outputs by name
			if io(v) {
				return v.Name
			}
			return ""
		})
		take(func(v *neff.Variable, side int) string { // the others by what they are and which blocks use them
			if io(v) {
				return ""
			}
			return fmt.Sprintf("%s %d %s", v.Type, v.Size, uses[side][v.Name])
		})
		take(func(v *neff.Variable, _ int) string { return v.Name })
		take(func(v *neff.Variable, _ int) string {
			if io(v) {
				return ""
			}
			return fmt.Sprintf("%s %d", v.Type, v.Size)
		})
		onlyA, onlyB = va, vb
		var ds []VarDiff
		for _, p := range pairs {
			x, y := p[0], p[1]
			if x.Name != y.Name {
				renamed = append(renamed, VarRename{name, x.Name, y.Name, y.Type, y.Size})
				if rename[name] == nil {
					rename[name] = map[string]string{}
				}
				rename[name][y.Name] = x.Name
			}
			d := VarDiff{Subgraph: name, Name: x.Name, A: varText(*x), B: varText(*y)}
			if x.Name != y.Name {
				d.Name = x.Name + " → " + y.Name
			}
			switch {
			case x.Size != y.Size:
				d.Change = "resized"
			case x.Type != y.Type:
				d.Change = "retyped"
			default:
				continue
			}
			ds = append(ds, d)
		}
		for _, x := range onlyA {
			ds = append(ds, VarDiff{Subgraph: name, Name: x.Name, Change: "removed", A: varText(*x)})
		}
		for _, y := range onlyB {
			ds = append(ds, VarDiff{Subgraph: name, Name: y.Name, Change: "added", B: varText(*y)})
		}
		slices.SortStableFunc(ds, func(x, y VarDiff) int { return strings.Compare(x.Name, y.Name) })
		out = append(out, ds...)
	}
	slices.SortStableFunc(renamed, func(x, y VarRename) int { return cmp.Compare(x.Subgraph+" "+x.A, y.Subgraph+" "+y.A) })
	return out, renamed, rename
}

// varsOf is a subgraph's variables in name order (none for nil).
func varsOf(sg *neff.Subgraph) []*neff.Variable {
	if sg == nil {
		return nil
	}
	vs := sg.Variables()
	out := make([]*neff.Variable, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	slices.SortStableFunc(out, func(x, y *neff.Variable) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// blockUses is, for subgraphs a and b (nil: none), each variable's dma[]
// blocks whose descriptors read or write it: "qPoolData 0 from, qPoolData 1 to".
func blockUses(a, b *neff.Subgraph) [2]map[string]string {
	index := func(sg *neff.Subgraph) map[string]string {
		m := map[string][]string{}
		for _, r := range blocksOf(sg) {
			for k := range r.b.Desc {
				d := &r.b.Desc[k]
				use := func(v, side string) {
					if v != "" {
						m[v] = append(m[v], fmt.Sprintf("%s %d %s", r.b.Queue, r.b.ID, side))
					}
				}
				use(d.From, "from")
				use(d.To, "to")
				for j := range d.FromArr {
					use(d.FromArr[j].From, "from")
				}
			}
		}
		out := map[string]string{}
		for v, us := range m {
			slices.Sort(us)
			out[v] = strings.Join(slices.Compact(us), ", ")
		}
		return out
	}
	return [2]map[string]string{index(a), index(b)}
}

type blockRef struct {
	engine string
	b      *neff.Block
}

func blocksOf(sg *neff.Subgraph) map[[2]string]blockRef {
	m := map[[2]string]blockRef{}
	if sg == nil {
		return m
	}
	for ei := range sg.Engines {
		for k := range sg.Engines[ei].Blocks {
			b := &sg.Engines[ei].Blocks[k]
			m[[2]string{b.Queue, fmt.Sprint(b.ID)}] = blockRef{sg.Engines[ei].Key, b}
		}
	}
	for k := range sg.Blocks {
		b := &sg.Blocks[k]
		m[[2]string{b.Queue, fmt.Sprint(b.ID)}] = blockRef{"", b}
	}
	return m
}

// blockDiff compares the dma[] blocks of each subgraph by queue and id,
// descriptor by descriptor and key by key (neff.md §4.5's key names).
//
// rename maps B's variable names to A's per subgraph (varDiff): a spill
// slot the compiler named anew is no change of the walk.
func blockDiff(a, b []neff.Subgraph, rename map[string]map[string]string) []BlockDiff {
	var out []BlockDiff
	ma, mb := bySubgraph(a), bySubgraph(b)
	for _, name := range union(ma, mb, strings.Compare) {
		ba, bb := blocksOf(ma[name]), blocksOf(mb[name])
		for _, k := range union(ba, bb, cmpNumKey) {
			x, inA := ba[k]
			y, inB := bb[k]
			d := BlockDiff{Subgraph: name, Block: fmt.Sprintf("%s block %s", k[0], k[1]), Details: []string{}}
			switch {
			case !inA:
				d.Engine, d.Change = y.engine, "added"
			case !inB:
				d.Engine, d.Change = x.engine, "removed"
			default:
				d.Engine, d.Change = y.engine, "walk changed"
				d.Details = descDiff(x.b.Desc, renamed(y.b.Desc, rename[name]))
				if x.engine != y.engine {
					d.Details = append(d.Details, fmt.Sprintf("engine %s → %s", x.engine, y.engine))
				}
				if len(d.Details) == 0 {
					continue
				}
			}
			out = append(out, d)
		}
	}
	return out
}

// descDiff lists the keys of each descriptor that differ:
// "desc[0] to_off 16384 → 16448".
func descDiff(a, b []neff.Desc) []string {
	var out []string
	if len(a) != len(b) {
		out = append(out, fmt.Sprintf("descriptors %d → %d", len(a), len(b)))
	}
	for i := 0; i < min(len(a), len(b)); i++ {
		fa, fb := descFields(&a[i]), descFields(&b[i])
		for j := range fa {
			if fa[j][1] != fb[j][1] {
				out = append(out, fmt.Sprintf("desc[%d] %s %s → %s", i, fa[j][0], fa[j][1], fb[j][1]))
			}
		}
	}
	return out
}

// descFields is a descriptor as (key, value) pairs in neff.md §4.5's names.
func descFields(d *neff.Desc) [][2]string {
	fromArr := ""
	if len(d.FromArr) > 0 {
		var parts []string
		for k := range d.FromArr {
			p := &d.FromArr[k]
			parts = append(parts, fmt.Sprintf("%s+%d %v %v", p.From, p.FromOff, p.FromSizes, p.FromSteps))
		}
		fromArr = "[" + strings.Join(parts, "; ") + "]"
	}
	f := func(v any) string { return fmt.Sprint(v) }
	return [][2]string{
		{"from", d.From}, {"to", d.To}, {"from_off", f(d.FromOff)}, {"to_off", f(d.ToOff)},
		{"from_sizes", f(d.FromSizes)}, {"from_steps", f(d.FromSteps)}, {"to_sizes", f(d.ToSizes)}, {"to_steps", f(d.ToSteps)},
		{"from_arr", fromArr}, {"op", d.Op}, {"from_dtype", d.FromDtype}, {"to_dtype", d.ToDtype},
		{"num_tiling_dimensions", f(d.NumTilingDimensions)}, {"transpose_op", d.TransposeOp},
		{"transpose_shape", f(d.TransposeShape)}, {"transpose_element_size", f(d.TransposeElementSize)},
	}
}

// inlineDiff compares the 0xd4 words of each stream position by position,
// as written (their walks name variables, so a placement change alone is
// no difference).
func inlineDiff(genA isa.Gen, a []neff.Subgraph, genB isa.Gen, b []neff.Subgraph) []BlockDiff {
	var out []BlockDiff
	words := func(gen isa.Gen, sg *neff.Subgraph) map[[2]string]string {
		m := map[[2]string]string{}
		if sg == nil {
			return m
		}
		for _, en := range sg.Engines {
			d := isa.NewDecoder(gen, en.Code)
			for d.Next() {
				if d.Inst().Opcode() == isa.OpPseudoDMADirect2D {
					m[[2]string{en.Key, fmt.Sprintf("%#x", d.Offset())}] = strings.TrimSuffix(string(asm.AppendInst(nil, d.Inst())), "\n")
				}
			}
		}
		return m
	}
	ma, mb := bySubgraph(a), bySubgraph(b)
	for _, name := range union(ma, mb, strings.Compare) {
		wa, wb := words(genA, ma[name]), words(genB, mb[name])
		for _, k := range union(wa, wb, cmpNumKey) {
			x, inA := wa[k]
			y, inB := wb[k]
			d := BlockDiff{Subgraph: name, Engine: k[0], Block: "PSEUDO_DMA_DIRECT2D at " + k[1]}
			switch {
			case !inA:
				d.Change, d.Details = "added", []string{y}
			case !inB:
				d.Change, d.Details = "removed", []string{x}
			case x != y:
				d.Change, d.Details = "walk changed", fieldDiff(x, y)
			default:
				continue
			}
			out = append(out, d)
		}
	}
	return out
}

// fieldDiff is the key=value pairs of two canonical texts that differ.
func fieldDiff(a, b string) []string {
	split := func(s string) map[string]string {
		m := map[string]string{}
		_, rest, _ := strings.Cut(s, " ")
		for _, kv := range splitTop(rest) {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			m[k] = v
		}
		return m
	}
	ma, mb := split(a), split(b)
	var out []string
	for _, k := range union(ma, mb, strings.Compare) {
		if ma[k] != mb[k] {
			out = append(out, fmt.Sprintf("%s %s → %s", k, orNone(ma[k]), orNone(mb[k])))
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// splitTop splits at the commas outside brackets and parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

// renamed is descs with their variables renamed by m (B's name → A's).
func renamed(descs []neff.Desc, m map[string]string) []neff.Desc {
	if len(m) == 0 {
		return descs
	}
	out := make([]neff.Desc, len(descs))
	for i, d := range descs {
		if n, ok := m[d.From]; ok {
			d.From = n
		}
		if n, ok := m[d.To]; ok {
			d.To = n
		}
		if len(d.FromArr) > 0 {
			d.FromArr = slices.Clone(d.FromArr)
			for j := range d.FromArr {
				if n, ok := m[d.FromArr[j].From]; ok {
					d.FromArr[j].From = n
				}
			}
		}
		out[i] = d
	}
	return out
}
