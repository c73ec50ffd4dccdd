package neff

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"ndma/isa"
)

// Subgraph is one `kelf-*.json` graph: its def.json and engine streams,
// every name resolved through the JSON (neff.md §4.2, §4.4, §4.5).
type Subgraph struct {
	Name    string
	Dir     string // the member directory ("sg00")
	Def     map[string]json.RawMessage
	Engines []Engine
	Blocks  []Block // def.json's own `dma` list (neff.md §4.4)

	vars   []Variable // def.json `var`, by var_id (parseDef)
	queues []Queue    // def.json `dma_queue`, by name
	byName map[string]int
	byID   map[int]int
}

// Engine is one engine's instruction stream in a subgraph.
type Engine struct {
	Key      string // the def.json key: pe, act, pool, dve, sp
	Manifest string // its engine JSON (e.g. Pool.json)
	Instr    string // its .bin (e.g. Pool.bin)
	Code     []byte
	Blocks   []Block // the engine JSON's `dma[]` descriptor blocks (style A)
}

// engineKeys are def.json's engine keys, in listing order.
var engineKeys = []string{"pe", "act", "pool", "dve", "sp"}

// Target is the kelf's arch target as a generation (neff.md §4.2: sunda/v2,
// cayman/v3, mariana/v4; "*" and an unknown value give GenAny, empty sunda).
func (f *File) Target() (string, isa.Gen) {
	for _, m := range f.Members {
		if strings.HasPrefix(m.Name, "kelf-") && strings.HasSuffix(m.Name, ".json") {
			var k struct {
				Target string `json:"target"`
			}
			if json.Unmarshal(m.Data, &k) == nil {
				if k.Target == "" {
					return "", isa.Sunda
				}
				g, err := isa.ParseGen(k.Target)
				if err != nil {
					return k.Target, isa.GenAny
				}
				return k.Target, g
			}
		}
	}
	return "", isa.GenAny
}

// MaxSubgraphs is the most subgraphs a NEFF may hold: each is a core of
// its own in a run (its SBUF, PSUM and streams), and a NEFF of a thousand
// cost 1.3 GB from 52 KB (issue 30). 64 is eight times the NeuronCores of a
// Trainium2 chip (INFERRED: compiler-built NEFFs hold one per core of a
// logical core, 2 in the samples).
const MaxSubgraphs = 64

// Subgraphs resolves kelf-*.json → def.json → engine JSON → .bin.
func (f *File) Subgraphs() ([]Subgraph, error) {
	var kelfs []string
	for _, m := range f.Members {
		if strings.HasPrefix(m.Name, "kelf-") && strings.HasSuffix(m.Name, ".json") {
			kelfs = append(kelfs, m.Name)
		}
	}
	sort.Strings(kelfs)
	if len(kelfs) == 0 {
		return nil, fmt.Errorf("no kelf-*.json member: no subgraphs")
	}
	var out []Subgraph
	for _, kn := range kelfs {
		kb, _ := f.Member(kn)
		var k struct {
			Graphs []struct {
				Definition string `json:"definition"`
				Name       string `json:"name"`
			} `json:"graphs"`
		}
		if err := json.Unmarshal(kb, &k); err != nil {
			return nil, fmt.Errorf("%s: %w", kn, err)
		}
		for _, g := range k.Graphs {
			if len(out) == MaxSubgraphs {
				return nil, fmt.Errorf("%s: more than %d subgraphs (neff.MaxSubgraphs): %w", kn, MaxSubgraphs, ErrLimit)
			}
			db, ok := f.Member(strings.TrimPrefix(g.Definition, "./"))
			if !ok {
				return nil, fmt.Errorf("%s: graph %q: no member %q", kn, g.Name, g.Definition)
			}
			sg := Subgraph{Name: g.Name, Dir: path.Dir(strings.TrimPrefix(g.Definition, "./"))}
			if err := json.Unmarshal(db, &sg.Def); err != nil {
				return nil, fmt.Errorf("%s: %w", g.Definition, err)
			}
			if err := sg.parseDef(); err != nil {
				return nil, err
			}
			if raw, ok := sg.Def["dma"]; ok && string(raw) != "null" {
				var err error
				if sg.Blocks, err = parseBlocks(raw, path.Join(sg.Dir, "def.json")); err != nil {
					return nil, err
				}
			}
			for _, key := range engineKeys {
				var manifest string
				if raw, ok := sg.Def[key]; !ok || json.Unmarshal(raw, &manifest) != nil || manifest == "" {
					continue
				}
				e := Engine{Key: key, Manifest: manifest}
				if mb, ok := f.Member(path.Join(sg.Dir, manifest)); ok {
					var man struct {
						Instr string          `json:"instr"`
						DMA   json.RawMessage `json:"dma"`
					}
					where := path.Join(sg.Dir, manifest)
					if err := json.Unmarshal(mb, &man); err != nil {
						return nil, fmt.Errorf("%s: %w", where, err)
					}
					e.Instr = man.Instr
					if len(man.DMA) > 0 && string(man.DMA) != "null" {
						var err error
						if e.Blocks, err = parseBlocks(man.DMA, where); err != nil {
							return nil, err
						}
					}
				}
				if e.Instr == "" { // the def's own <key>_instr
					if raw, ok := sg.Def[key+"_instr"]; ok {
						json.Unmarshal(raw, &e.Instr)
					}
				}
				if e.Instr == "" {
					return nil, fmt.Errorf("%s: engine %s (%s) names no instruction stream", g.Definition, key, manifest)
				}
				code, ok := f.Member(path.Join(sg.Dir, e.Instr))
				if !ok {
					return nil, fmt.Errorf("%s: engine %s: no member %q", g.Definition, key, path.Join(sg.Dir, e.Instr))
				}
				e.Code = code
				sg.Engines = append(sg.Engines, e)
			}
			out = append(out, sg)
		}
	}
	return out, nil
}

// Variable is one def.json `var` entry (neff.md §4.4).
type Variable struct {
	Name      string
	ID        int    `json:"var_id"`
	Type      string `json:"type"`
	Size      int64  `json:"size"`
	FileName  string `json:"file_name"`
	Alignment int64  `json:"alignment"`
	List      []int  `json:"list"` // dge-table: variable ids
	// BackingOff and FabricPath place a `virtual` variable in the shared
	// scratchpad (neff.md §4.4); ndma gives it its own `size` bytes like
	// any other variable (INFERRED, RATIONALE.md "NEFF").
	BackingOff int64  `json:"backing_variable_off"`
	FabricPath string `json:"fabric_path"`
}

// Queue is one def.json `dma_queue` entry.
type Queue struct {
	Name       string
	Owner      string `json:"owner"`
	Type       string `json:"type"`
	NumQueues  int    `json:"num_queues"`
	Semaphores []int  `json:"semaphore_set"`
	Semaphore  *int   `json:"semaphore"` // the single completion semaphore of older queues
}

// Completion is the queue's own completion semaphore: its `semaphore`,
// else the first of its `semaphore_set`, and whether it has one. A fired
// block signals its own (Fired.Semaphore: the block's `semaphore`, else
// semaphore_set[id % 16], neff.md §4.7).
func (q *Queue) Completion() (int, bool) {
	if q.Semaphore != nil {
		return *q.Semaphore, true
	}
	if len(q.Semaphores) > 0 {
		return q.Semaphores[0], true
	}
	return 0, false
}

// parseDef reads def.json's `var` and `dma_queue` once, for every later
// lookup (Subgraphs calls it).
func (sg *Subgraph) parseDef() error {
	var vm map[string]Variable
	if raw, ok := sg.Def["var"]; ok {
		if err := json.Unmarshal(raw, &vm); err != nil {
			return fmt.Errorf("%s/def.json var: %w", sg.Dir, err)
		}
	}
	var qm map[string]Queue
	if raw, ok := sg.Def["dma_queue"]; ok {
		if err := json.Unmarshal(raw, &qm); err != nil {
			return fmt.Errorf("%s/def.json dma_queue: %w", sg.Dir, err)
		}
	}
	sg.vars, sg.byName, sg.byID = nil, map[string]int{}, map[int]int{}
	for name, v := range vm {
		v.Name = name
		sg.vars = append(sg.vars, v)
	}
	sort.Slice(sg.vars, func(i, j int) bool {
		a, b := &sg.vars[i], &sg.vars[j]
		return a.ID < b.ID || a.ID == b.ID && a.Name < b.Name
	})
	for i, v := range sg.vars {
		sg.byName[v.Name] = i
		if _, dup := sg.byID[v.ID]; !dup { // a repeated id: the first (Check reports it)
			sg.byID[v.ID] = i
		}
	}
	sg.queues = nil
	for name, q := range qm {
		q.Name = name
		sg.queues = append(sg.queues, q)
	}
	sort.Slice(sg.queues, func(i, j int) bool { return sg.queues[i].Name < sg.queues[j].Name })
	return nil
}

// Variables are the subgraph's variables, by var_id.
func (sg *Subgraph) Variables() []Variable { return sg.vars }

// InputNames are the names of the subgraphs' `input` variables, once each,
// in subgraph and id order: what an unknown input's message lists.
func InputNames(sgs []Subgraph) []string {
	var out []string
	seen := map[string]bool{}
	for i := range sgs {
		for _, v := range sgs[i].vars {
			if v.Type == "input" && !seen[v.Name] {
				seen[v.Name] = true
				out = append(out, v.Name)
			}
		}
	}
	return out
}

// Var finds a variable by name.
func (sg *Subgraph) Var(name string) (Variable, bool) {
	i, ok := sg.byName[name]
	if !ok {
		return Variable{}, false
	}
	return sg.vars[i], true
}

// VarID finds a variable by var_id.
func (sg *Subgraph) VarID(id int) (Variable, bool) {
	i, ok := sg.byID[id]
	if !ok {
		return Variable{}, false
	}
	return sg.vars[i], true
}

// Queues are the subgraph's DMA queues, by name.
func (sg *Subgraph) Queues() []Queue { return sg.queues }

// QueueOf names the queue an inline 0xd4 word of engine en uses: the one
// en owns whose semaphore (or semaphore_set) holds the word's completion
// semaphore (neff.md §5.3); "" when none does.
func (sg *Subgraph) QueueOf(en *Engine, sem int) string {
	for _, q := range sg.queues {
		if q.Owner != en.Key {
			continue
		}
		if q.Semaphore != nil && *q.Semaphore == sem {
			return q.Name
		}
		for _, s := range q.Semaphores {
			if s == sem {
				return q.Name
			}
		}
	}
	return ""
}

// Table is the subgraph's dge-table list (the variable ids its table arms
// index), empty when it has none.
func (sg *Subgraph) Table() []uint16 {
	for _, v := range sg.vars {
		if v.Type == "dge-table" {
			t := make([]uint16, len(v.List))
			for i, id := range v.List {
				t[i] = uint16(id)
			}
			return t
		}
	}
	return nil
}

// TableEntry is Table()[i] — the variable id entry i of the dge-table list
// names, 0 when i is outside it — and the list's length, read in place
// (each 0xd4 of a stream is checked: no copy of the list a word).
func (sg *Subgraph) TableEntry(i int) (id uint16, n int) {
	for _, v := range sg.vars {
		if v.Type == "dge-table" {
			if i >= 0 && i < len(v.List) {
				id = uint16(v.List[i])
			}
			return id, len(v.List)
		}
	}
	return 0, 0
}
