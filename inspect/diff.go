package inspect

import (
	"fmt"
	"reflect"
	"slices"
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
	Queues    []QueueDiff  `json:"queues"`
	Streams   []StreamDiff `json:"streams"`
	Variables []VarDiff    `json:"variables"`
	Blocks    []BlockDiff  `json:"blocks"`
}

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
	r := &DiffResult{Queues: []QueueDiff{}, Streams: []StreamDiff{}, Variables: []VarDiff{}, Blocks: []BlockDiff{}}
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
	r.Variables = varDiff(a, b)
	r.Blocks = append(append(r.Blocks, blockDiff(a, b)...), inlineDiff(genA, a, genB, b)...)
	r.Same = len(r.Queues)+len(r.Streams)+len(r.Variables)+len(r.Blocks) == 0
	return r, nil
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
func cmpKey3(x, y [3]string) int { return slices.Compare(x[:], y[:]) }

func bySubgraph(sgs []neff.Subgraph) map[string]*neff.Subgraph {
	m := map[string]*neff.Subgraph{}
	for i := range sgs {
		m[sgs[i].Name] = &sgs[i]
	}
	return m
}

func varText(v neff.Variable) string { return fmt.Sprintf("%s %d bytes", v.Type, v.Size) }

// varDiff is the variables of each subgraph by name.
func varDiff(a, b []neff.Subgraph) []VarDiff {
	out := []VarDiff{}
	ma, mb := bySubgraph(a), bySubgraph(b)
	for _, name := range union(ma, mb, strings.Compare) {
		va, vb := map[string]neff.Variable{}, map[string]neff.Variable{}
		if sg := ma[name]; sg != nil {
			for _, v := range sg.Variables() {
				va[v.Name] = v
			}
		}
		if sg := mb[name]; sg != nil {
			for _, v := range sg.Variables() {
				vb[v.Name] = v
			}
		}
		for _, n := range union(va, vb, strings.Compare) {
			x, inA := va[n]
			y, inB := vb[n]
			d := VarDiff{Subgraph: name, Name: n}
			switch {
			case !inA:
				d.Change, d.B = "added", varText(y)
			case !inB:
				d.Change, d.A = "removed", varText(x)
			case x.Size != y.Size:
				d.Change, d.A, d.B = "resized", varText(x), varText(y)
			case x.Type != y.Type:
				d.Change, d.A, d.B = "retyped", varText(x), varText(y)
			default:
				continue
			}
			out = append(out, d)
		}
	}
	return out
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
func blockDiff(a, b []neff.Subgraph) []BlockDiff {
	var out []BlockDiff
	ma, mb := bySubgraph(a), bySubgraph(b)
	for _, name := range union(ma, mb, strings.Compare) {
		ba, bb := blocksOf(ma[name]), blocksOf(mb[name])
		for _, k := range union(ba, bb, cmpKey2) {
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
				d.Details = descDiff(x.b.Desc, y.b.Desc)
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
		for _, k := range union(wa, wb, cmpKey2) {
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
