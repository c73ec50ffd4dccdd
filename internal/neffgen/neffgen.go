// Package neffgen writes synthetic NEFFs for tests and benchmarks: kelf,
// def.json (variables, queues, engine keys), engine JSON with dma[]
// descriptor blocks, instruction streams written in ndma's assembly, and
// constants — in every container dialect neff.Build writes. Both DMA styles
// of neff.md §5: named queue + blocks fired by 0xc1, and inline 0xd4 words.
package neffgen

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"ndma/asm"
	"ndma/neff"
)

// Program is one synthetic NEFF.
type Program struct {
	Target    string // kelf target ("cayman")
	Subgraphs []Graph
	Write     neff.WriteOptions
	Extra     []neff.Member // more members, as given (kept verbatim: malformed ones too)
}

// Graph is one subgraph.
type Graph struct {
	Name    string // "sg00": also its directory
	Vars    []Var  // var_id = index unless Var.ID is set
	Queues  map[string]Queue
	Engines []Engine
	DefDMA  []Block // def.json's own dma list
	Files   map[string][]byte
	Def     map[string]any // more def.json keys, written as given
}

// Var is one def.json variable.
type Var struct {
	Name      string
	Type      string
	Size      int64
	FileName  string
	Alignment int64
	List      []int
	ID        *int // nil: the index in Vars
	// BackingOff and FabricPath are a `virtual` variable's
	// backing_variable_off (always written for one) and fabric_path
	// ("main"; "" leaves it out), neff.md §4.4.
	BackingOff int64
	FabricPath string
}

// Queue is one dma_queue entry (Semaphore < 0: none; Set: a semaphore_set).
type Queue struct {
	Owner     string
	Type      string
	Semaphore int
	Set       []int
	NumQueues *int // nil: len(Set) with a Set
}

// Engine is one engine: its def.json key, manifest and stream names, the
// stream as assembly text (for the program's target) or raw bytes, and its
// dma[] blocks.
type Engine struct {
	Key, Manifest, Instr string
	Asm                  string
	Code                 []byte
	DMA                  []Block
}

// Block is one dma[] block as JSON writes it; Semaphore and Comment are
// left out when unset (the C08220 shape has neither, neff.md §4.7 blocks
// have both).
type Block struct {
	Queue     string      `json:"queue"`
	ID        int         `json:"id"`
	Semaphore *int        `json:"semaphore,omitempty"`
	Comment   string      `json:"#comment,omitempty"`
	Desc      []neff.Desc `json:"desc"`
}

// Build writes the NEFF.
func (p *Program) Build() ([]byte, error) {
	ms, err := p.Members()
	if err != nil {
		return nil, err
	}
	return neff.Build(ms, p.Write)
}

// Members are the NEFF's tar members as Build writes them (kelf-0.json,
// then per subgraph its engines' manifests and streams, def.json and
// files): the unit a structure-aware fuzzer mutates.
func (p *Program) Members() ([]neff.Member, error) {
	var ms []neff.Member
	add := func(name string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		ms = append(ms, neff.Member{Name: name, Data: b})
		return nil
	}
	type graphRef struct {
		Definition string `json:"definition"`
		Name       string `json:"name"`
	}
	kelf := struct {
		Graphs  []graphRef `json:"graphs"`
		Version string     `json:"version"`
		Target  string     `json:"target"`
	}{Version: "0.5", Target: p.Target}
	for _, g := range p.Subgraphs {
		kelf.Graphs = append(kelf.Graphs, graphRef{g.Name + "/def.json", g.Name})
	}
	if err := add("kelf-0.json", kelf); err != nil {
		return nil, err
	}
	for _, g := range p.Subgraphs {
		def := map[string]any{"name": "definition", "version": "0.6"}
		for k, v := range g.Def {
			def[k] = v
		}
		vars := map[string]any{}
		for i, v := range g.Vars {
			id := i
			if v.ID != nil {
				id = *v.ID
			}
			e := map[string]any{"type": v.Type, "var_id": id}
			if v.Size > 0 || v.Type == "input" || v.Type == "output" {
				e["size"] = v.Size
			}
			if v.FileName != "" {
				e["file_name"] = v.FileName
			}
			if v.Alignment != 0 {
				e["alignment"] = v.Alignment
			}
			if v.List != nil {
				e["list"] = v.List
			}
			if v.Type == "virtual" {
				e["backing_variable_off"] = v.BackingOff
			}
			if v.FabricPath != "" {
				e["fabric_path"] = v.FabricPath
			}
			vars[v.Name] = e
		}
		def["var"] = vars
		qs := map[string]any{}
		for name, q := range g.Queues {
			e := map[string]any{"owner": q.Owner, "type": q.Type}
			if q.Set != nil {
				e["semaphore_set"], e["num_queues"] = q.Set, len(q.Set)
			} else if q.Semaphore >= 0 {
				e["semaphore"] = q.Semaphore
			}
			if q.NumQueues != nil {
				e["num_queues"] = *q.NumQueues
			}
			qs[name] = e
		}
		def["dma_queue"] = qs
		if g.DefDMA != nil {
			def["dma"] = g.DefDMA
		}
		for _, e := range g.Engines {
			def[e.Key] = e.Manifest
			def[e.Key+"_instr"] = e.Instr
			code := e.Code
			if e.Asm != "" {
				obj, err := asm.Assemble(g.Name+"/"+e.Instr+".s", []byte(".gen "+p.Target+"\n"+e.Asm), asm.Options{})
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", g.Name, e.Key, err)
				}
				code = obj.Code
			}
			dma := e.DMA
			if dma == nil {
				dma = []Block{}
			}
			if err := add(path.Join(g.Name, e.Manifest), map[string]any{"dma": dma, "instr": e.Instr, "name": e.Manifest}); err != nil {
				return nil, err
			}
			ms = append(ms, neff.Member{Name: path.Join(g.Name, e.Instr), Data: code})
		}
		if err := add(path.Join(g.Name, "def.json"), def); err != nil {
			return nil, err
		}
		for name, b := range g.Files {
			ms = append(ms, neff.Member{Name: path.Join(g.Name, name), Data: b})
		}
	}
	return append(ms, p.Extra...), nil
}

// Parse builds p and parses the NEFF with opt.
func (p *Program) Parse(opt neff.Options) (*neff.File, error) {
	raw, err := p.Build()
	if err != nil {
		return nil, err
	}
	return neff.Parse(raw, opt)
}

// Open builds p and opens the NEFF with opt, as Open does.
func (p *Program) Open(opt neff.Options) (*neff.File, []neff.Subgraph, error) {
	raw, err := p.Build()
	if err != nil {
		return nil, nil, err
	}
	return Open(raw, opt)
}

// Open parses the NEFF raw with opt and reads its subgraphs.
func Open(raw []byte, opt neff.Options) (*neff.File, []neff.Subgraph, error) {
	f, err := neff.Parse(raw, opt)
	if err != nil {
		return nil, nil, err
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		return nil, nil, err
	}
	return f, sgs, nil
}

// Inline is a style-B NEFF (neff.md §5.3's shape): n PSEUDO_DMA_DIRECT2D
// words on Pool, each copying the 64 KiB input x (dge-table entry 0) row by
// row — 128 rows of 512 bytes — into SBUF partitions, completing on
// qPoolDynamic's semaphore_set 24..39 with sem_increment 16.
func Inline(n int) *Program {
	var src strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&src, "pseudo_dma_direct2d semaphore=%d, sem_increment=16, src_start_addr=tbl(0), src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, "+
			"dst_start_addr=var(0)+%#x, dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=FP16, out_dtype=FP16\n", 24+i%16, (i%64)*512)
	}
	set := SetOf(24)
	return &Program{Target: "cayman", Subgraphs: []Graph{{
		Name: "sg00",
		Vars: []Var{
			{Name: "SB", Type: "state-buffer"},
			{Name: "x", Type: "input", Size: 65536},
			{Name: "out", Type: "output", Size: 65536},
			{Name: "DGETable0", Type: "dge-table", List: []int{1, 2}},
		},
		Queues:  map[string]Queue{"qPoolDynamic": {Owner: "pool", Type: "dynamic", Set: set}},
		Engines: []Engine{{Key: "pool", Manifest: "Pool.json", Instr: "Pool.bin", Asm: src.String()}},
	}}}
}

// Triggered is a style-A NEFF, the C08220 shape of neff.md §4.5/§5.2 and
// field-tables §9.1–§9.2: queues q_gradient_in and q_gradient_out (single
// semaphores 10 and 11, owned by pool), one block each, fired by two 0xc1
// words — the second waits $S[10] > 0, so the input reaches output through
// gradient_in — then the EVENT_SEMAPHORE of §9.1 waiting $S[11] > 0. Each
// extra descriptor becomes a q_gradient_in block of id 1, 2, ….
func Triggered(descs ...neff.Desc) *Program {
	blocks := []Block{
		{Queue: "q_gradient_in", ID: 0, Desc: []neff.Desc{{From: "input", To: "gradient_in", FromSizes: []int64{128, 1}, FromSteps: []int64{1, 128}, ToSizes: []int64{128, 1}, ToSteps: []int64{1, 128}}}},
		{Queue: "q_gradient_out", ID: 0, Desc: []neff.Desc{{From: "gradient_in", To: "output", FromSizes: []int64{128, 1}, FromSteps: []int64{1, 128}, ToSizes: []int64{128, 1}, ToSteps: []int64{1, 128}}}},
	}
	for i, d := range descs {
		blocks = append(blocks, Block{Queue: "q_gradient_in", ID: i + 1, Desc: []neff.Desc{d}})
	}
	return &Program{Target: "cayman", Subgraphs: []Graph{{
		Name: "sg00",
		Vars: []Var{
			{Name: "SB", Type: "state-buffer"},
			{Name: "input", Type: "input", Size: 128},
			{Name: "gradient_in", Type: "tmp-buf", Size: 128},
			{Name: "output", Type: "output", Size: 128},
			{Name: "big", Type: "tmp-buf", Size: 1 << 17},
			{Name: "scratch", Type: "tmp-buf"}, // no size: nothing may touch it
		},
		Queues: map[string]Queue{
			"q_gradient_in":  {Owner: "pool", Type: "in", Semaphore: 10},
			"q_gradient_out": {Owner: "pool", Type: "out", Semaphore: 11},
			"q_spare":        {Owner: "sp", Type: "data", Set: []int{40, 41, 42}},
		},
		Engines: []Engine{{Key: "pool", Manifest: "pool.json", Instr: "pool.bin", DMA: blocks, Asm: `
pseudo_dma_trigger dma_queue_name="q_gradient_in"
pseudo_dma_trigger wait_mode=WAIT_FOR_SEM_GT_IMM, wait_idx=10, dma_queue_name="q_gradient_out"
.word a0100000040b00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
`}},
	}}}
}
