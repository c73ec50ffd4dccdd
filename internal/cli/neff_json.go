package cli

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"ndma/device"
	"ndma/dge"
	"ndma/inspect"
	"ndma/isa"
	"ndma/neff"
	"ndma/sdma"
	"ndma/sim"
)

// The --json forms of `neff info`, `neff disasm` and `neff lower`
// (docs/json.md): field names are the spec's (neff.md §2.2 header fields,
// def.json keys), numbers stay numbers.

type neffInfoJSON struct {
	Header    headerJSON      `json:"header"`
	Payload   payloadJSON     `json:"payload"`
	Target    *targetJSON     `json:"target"`
	Subgraphs []subgraphJSON  `json:"subgraphs"`
	Error     string          `json:"error"` // the graph does not read: the container still lists ("" when it reads)
	Tensors   []tensorJSON    `json:"tensors"`
	Members   []memberJSON    `json:"members"`
	Budget    *inspect.Budget `json:"budget"` // null: the graph does not read
	Warnings  []string        `json:"warnings"`
}

type headerJSON struct {
	Name              string   `json:"name"`
	UUID              string   `json:"uuid"`
	PkgVersion        uint64   `json:"pkg_version"`
	HeaderSize        uint64   `json:"header_size"`
	DataSize          uint64   `json:"data_size"`
	NeffVersion       string   `json:"neff_version"`
	Build             string   `json:"build"`
	NumTPB            uint32   `json:"num_tpb"`
	RequestedTPBCount uint32   `json:"requested_tpb_count"`
	TPBPerNode0       byte     `json:"tpb_per_node0"`
	VNCSize           uint32   `json:"vnc_size"`
	FeatureBits       uint64   `json:"feature_bits"`
	Features          []string `json:"features"`
	Hash              string   `json:"hash"`
}

type payloadJSON struct {
	Gzip     bool   `json:"gzip"`
	Padding  int    `json:"padding"`
	HashKind string `json:"hash_kind"`
}

type targetJSON struct {
	Name       string `json:"name"`
	Generation string `json:"generation"`
}

type subgraphJSON struct {
	Name      string       `json:"name"`
	Dir       string       `json:"dir"`
	Engines   []engineJSON `json:"engines"`
	Variables []varJSON    `json:"variables"`
	Queues    []queueJSON2 `json:"queues"`
	Blocks    []blockJSON  `json:"blocks"` // def.json's own dma list
}

type engineJSON struct {
	Key      string         `json:"key"`
	Manifest string         `json:"manifest"`
	Instr    string         `json:"instr"`
	Words    int            `json:"words"`
	Opcodes  map[string]int `json:"opcodes"`
	Blocks   []blockJSON    `json:"blocks"`
}

type blockJSON struct {
	Where     string          `json:"where"`
	Queue     string          `json:"queue"`
	ID        int             `json:"id"`
	Semaphore *int            `json:"semaphore"`
	Comment   string          `json:"#comment"`
	Desc      []blockDescJSON `json:"desc"`
}

// blockDescJSON is a neff.Desc with every key present (neff.Desc leaves the
// newer ones out when zero, to keep older synthetic NEFFs' bytes): a
// consumer indexes desc["from_off"] on every descriptor.
type blockDescJSON struct {
	From                 string          `json:"from"`
	To                   string          `json:"to"`
	FromOff              int64           `json:"from_off"`
	ToOff                int64           `json:"to_off"`
	FromSizes            []int64         `json:"from_sizes"`
	ToSizes              []int64         `json:"to_sizes"`
	FromSteps            []int64         `json:"from_steps"`
	ToSteps              []int64         `json:"to_steps"`
	FromArr              []blockDescJSON `json:"from_arr"`
	Op                   string          `json:"op"`
	FromDtype            string          `json:"from_dtype"`
	ToDtype              string          `json:"to_dtype"`
	NumTilingDimensions  int             `json:"num_tiling_dimensions"`
	TransposeOp          string          `json:"transpose_op"`
	TransposeShape       []int64         `json:"transpose_shape"`
	TransposeElementSize int64           `json:"transpose_element_size"`
	Unmodelled           []string        `json:"unmodelled"` // the compute-on-DMA keys it carries that ndma refuses (neff.md §4.5)
}

// blockDescsJSON are ds with every key present, nil lists as [].
func blockDescsJSON(ds []neff.Desc) []blockDescJSON {
	out := make([]blockDescJSON, 0, len(ds))
	for _, d := range ds {
		out = append(out, blockDescJSON{d.From, d.To, d.FromOff, d.ToOff, ints(d.FromSizes), ints(d.ToSizes), ints(d.FromSteps), ints(d.ToSteps),
			blockDescsJSON(d.FromArr), d.Op, d.FromDtype, d.ToDtype, d.NumTilingDimensions, d.TransposeOp, ints(d.TransposeShape),
			d.TransposeElementSize, ints(d.Unmodelled)})
	}
	return out
}

// ints is s, or [] for nil.
func ints[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

type varJSON struct {
	VarID      int     `json:"var_id"`
	Name       string  `json:"name"`
	Type       string  `json:"type"`
	Size       int64   `json:"size"`
	FileName   string  `json:"file_name"`
	Alignment  int64   `json:"alignment"`
	List       []int   `json:"list"`
	BackingOff int64   `json:"backing_variable_off"`
	Address    *uint64 `json:"address"`      // where ndma places it (device.Place, as the run does); null when it holds no bytes
	AddrText   string  `json:"address_text"` // the same in hex ("0x100000000"), "" when null
}

type queueJSON2 struct {
	Name         string `json:"name"`
	Owner        string `json:"owner"`
	Type         string `json:"type"`
	NumQueues    int    `json:"num_queues"`
	SemaphoreSet []int  `json:"semaphore_set"`
	Semaphore    *int   `json:"semaphore"`
}

type tensorJSON struct {
	Name  string `json:"name"`
	Dtype string `json:"dtype"`
	Shape []int  `json:"shape"`
}

type memberJSON struct {
	Name  string `json:"name"`
	Bytes int    `json:"bytes"`
	Words int    `json:"words"` // a .bin engine stream: 64-byte words; 0 for any other member
}

func blocksJSON(bs []neff.Block) []blockJSON {
	out := []blockJSON{}
	for _, b := range bs {
		out = append(out, blockJSON{b.Where, b.Queue, b.ID, b.Semaphore, b.Comment, blockDescsJSON(b.Desc)})
	}
	return out
}

// infoJSON is `neff info --json`.
func infoJSON(f *neff.File, gen, bgen isa.Gen) (*neffInfoJSON, error) {
	h := f.Header
	out := &neffInfoJSON{
		Header: headerJSON{Name: h.Name, UUID: h.UUIDString(), PkgVersion: h.PkgVersion, HeaderSize: h.HeaderSize, DataSize: h.DataSize,
			NeffVersion: fmt.Sprintf("%d.%d", h.MajorVersion, h.MinorVersion), Build: h.Build, NumTPB: h.NumTPB, RequestedTPBCount: h.RequestedTPBCount,
			TPBPerNode0: h.TPBPerNode[0], VNCSize: h.VNCSize, FeatureBits: h.FeatureBits, Features: neff.Features(h.FeatureBits), Hash: hex.EncodeToString(h.Hash[:])},
		Payload:   payloadJSON{Gzip: f.Gzip, Padding: f.Padding, HashKind: f.HashKind},
		Subgraphs: []subgraphJSON{}, Tensors: []tensorJSON{}, Members: []memberJSON{}, Warnings: append([]string{}, f.Warnings...),
	}
	if out.Header.Features == nil {
		out.Header.Features = []string{}
	}
	if name, g := f.Target(); name != "" {
		out.Target = &targetJSON{name, g.String()}
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		out.Error = err.Error()
	} else {
		placed, perr := device.Place(sgs) // the run's own placement: one allocator for the device
		if perr != nil {                  // listed without addresses; the command fails
			out.Error = "placement: " + perr.Error()
		}
		for si, sg := range sgs {
			var place map[int]uint64
			if perr == nil {
				place = placed[si]
			}
			s := subgraphJSON{Name: sg.Name, Dir: sg.Dir, Engines: []engineJSON{}, Variables: []varJSON{}, Queues: []queueJSON2{}, Blocks: blocksJSON(sg.Blocks)}
			for _, v := range sg.Variables() {
				vj := varJSON{VarID: v.ID, Name: v.Name, Type: v.Type, Size: v.Size, FileName: v.FileName, Alignment: v.Alignment, List: ints(v.List), BackingOff: v.BackingOff}
				if a, ok := place[v.ID]; ok {
					vj.Address, vj.AddrText = &a, fmt.Sprintf("%#x", a)
				}
				s.Variables = append(s.Variables, vj)
			}
			for _, q := range sg.Queues() {
				set := q.Semaphores
				if set == nil {
					set = []int{}
				}
				s.Queues = append(s.Queues, queueJSON2{q.Name, q.Owner, q.Type, max(q.NumQueues, 1), set, q.Semaphore})
			}
			for _, en := range sg.Engines {
				ej := engineJSON{Key: en.Key, Manifest: en.Manifest, Instr: en.Instr, Opcodes: map[string]int{}, Blocks: blocksJSON(en.Blocks)}
				d := isa.NewDecoder(gen, en.Code)
				for d.Next() {
					ej.Opcodes[d.Inst().Def().Mnemonic()]++
					ej.Words++
				}
				s.Engines = append(s.Engines, ej)
			}
			out.Subgraphs = append(out.Subgraphs, s)
		}
		tensors := f.Tensors()
		for _, n := range slices.Sorted(maps.Keys(tensors)) {
			out.Tensors = append(out.Tensors, tensorJSON{n, tensors[n].Dtype, tensors[n].Shape})
		}
		if b, err := inspect.BudgetOf(bgen, sgs); err == nil {
			out.Budget = b
		} else {
			out.Warnings = append(out.Warnings, "budget: "+err.Error())
		}
	}
	for _, m := range f.Members {
		mj := memberJSON{Name: m.Name, Bytes: len(m.Data)}
		if strings.HasSuffix(m.Name, ".bin") && len(m.Data) > 0 && len(m.Data)%isa.WordSize == 0 && !strings.Contains(m.Name, "table") {
			mj.Words = len(m.Data) / isa.WordSize
		}
		out.Members = append(out.Members, mj)
	}
	return out, nil
}

// streamJSON is one engine stream of `neff disasm --json`: its words in
// the word JSON of docs/json.md.
type streamJSON struct {
	Subgraph string          `json:"subgraph"`
	Engine   string          `json:"engine"`
	Instr    string          `json:"instr"`
	Gen      string          `json:"gen"`
	Words    json.RawMessage `json:"words"`
}

// lowerStreamJSON is one engine stream of `neff lower --json`.
type lowerStreamJSON struct {
	Subgraph string        `json:"subgraph"`
	Engine   string        `json:"engine"`
	Instr    string        `json:"instr"`
	Words    []loweredWord `json:"words"`
	Stats    lowerStats    `json:"stats"`
}

// lowerStats are `neff lower --stats` as data.
type lowerStats struct {
	Words       int    `json:"words"`
	Lowered     int    `json:"lowered"`
	Descriptors int    `json:"descriptors"`
	BytesM2S    uint64 `json:"bytes_m2s"`
	BytesS2M    uint64 `json:"bytes_s2m"`
	EstimatedNS int64  `json:"estimated_ns"`
}

// lowerJSON is `neff lower --json`: per stream the lowered words (the
// DGE's only, or all with all) with their trace and descriptors, and the
// counts; with stats the counts alone. With a pick (--queue, --block,
// --offset), its steps alone, and only the streams that hold one.
//
// The words are written as they are lowered, stream by stream — the JSON
// of a large NEFF is gigabytes held whole — after a first pass that lowers
// every stream without printing: a stream that does not lower prints
// nothing, as when the whole was built first. The bytes are writeJSON's
// (json.Encoder, two-space indent, no HTML escaping): each piece is
// encoded at its depth, as the encoder's indentation would place it.
func lowerJSON(e *env, gen isa.Gen, sgs []neff.Subgraph, place device.Placement, keep func(*neff.Subgraph, *neff.Engine) bool, pick *lowerPick, path string, stats, all bool) error {
	seen := map[int]bool{}
	all = all || pick.offset >= 0 // the word asked for, whatever it is
	// with stats the counts alone: small, built whole
	if stats {
		out := []lowerStreamJSON{}
		err := eachStream(gen, sgs, place, keep, func(st *neffStream) error {
			if st.steps = pick.filter(st.steps, seen); pick.set && len(st.steps) == 0 {
				return nil
			}
			j := lowerStreamJSON{Subgraph: st.sg.Name, Engine: st.en.Key, Instr: st.en.Instr, Words: []loweredWord{}}
			_, err := lowerSteps(gen, st.steps, st.derr, dge.Options{}, sdma.Options{}, func(w loweredWord) { j.Stats.add(&w) })
			if err != nil {
				return fmt.Errorf("%s %s: %w", st.sg.Name, st.en.Key, err)
			}
			out = append(out, j)
			return nil
		})
		if err != nil {
			return err
		}
		if pick.set && len(out) == 0 {
			return pick.missed(path, seen)
		}
		return writeJSON(e.stdout, out)
	}
	picked := 0
	err := eachStream(gen, sgs, place, keep, func(st *neffStream) error {
		if st.steps = pick.filter(st.steps, seen); pick.set && len(st.steps) == 0 {
			return nil
		}
		picked++
		if _, err := lowerSteps(gen, st.steps, st.derr, dge.Options{}, sdma.Options{}, func(loweredWord) {}); err != nil {
			return fmt.Errorf("%s %s: %w", st.sg.Name, st.en.Key, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if pick.set && picked == 0 {
		return pick.missed(path, seen)
	}
	e.stream()
	bw := bufio.NewWriterSize(e.stdout, 1<<16)
	defer bw.Flush()
	j := newJSONPieces(bw)
	streams := 0
	err = eachStream(gen, sgs, place, keep, func(st *neffStream) error {
		if st.steps = pick.filter(st.steps, seen); pick.set && len(st.steps) == 0 {
			return nil
		}
		j.raw([...]string{"[\n  {\n", ",\n  {\n"}[min(streams, 1)])
		streams++
		j.field("    ", "subgraph", st.sg.Name, ",\n")
		j.field("    ", "engine", st.en.Key, ",\n")
		j.field("    ", "instr", st.en.Instr, ",\n")
		j.raw(`    "words": `)
		var counts lowerStats
		words := 0
		_, err := lowerSteps(gen, st.steps, st.derr, dge.Options{}, sdma.Options{}, func(w loweredWord) {
			counts.add(&w)
			if w.Skipped == "" || all {
				w.detail()
				j.raw([...]string{"[\n      ", ",\n      "}[min(words, 1)])
				j.value("      ", &w)
				words++
			}
		})
		if err != nil { // the first pass lowered it: not reached
			return fmt.Errorf("%s %s: %w", st.sg.Name, st.en.Key, err)
		}
		j.raw([...]string{"[]", "\n    ]"}[min(words, 1)])
		j.raw(",\n    \"stats\": ")
		j.value("    ", &counts)
		j.raw("\n  }")
		return j.err
	})
	if err != nil {
		return err
	}
	j.raw([...]string{"[]\n", "\n]\n"}[min(streams, 1)])
	return j.err
}

// add counts one lowered word into the --json stats (and --stats' text:
// lowerTally).
func (s *lowerStats) add(w *loweredWord) {
	s.Words++
	if w.lowered == nil {
		return
	}
	s.Lowered++
	backend := w.program.Backend
	if w.Mnemonic == isa.Lookup(isa.OpPseudoDMATrigger).Mnemonic() {
		backend = dge.NoDGE // a fired block's descriptors were built at load (neff.md §4.8): no DGE instruction to pay, as lint counts it
	}
	s.EstimatedNS += sim.EstimateNS(backend, w.lowered.Queues)
	for _, q := range w.lowered.Queues {
		s.Descriptors += len(q.M2S) + len(q.S2M)
		for k := range q.M2S {
			s.BytesM2S += uint64(q.M2S[k].Length())
		}
		for k := range q.S2M {
			if !q.S2M[k].IntEn() {
				s.BytesS2M += uint64(q.S2M[k].Length())
			}
		}
	}
}

// jsonPieces writes a JSON document a piece at a time, each value encoded
// as writeJSON's encoder writes it at its depth (prefix: the indentation
// of the line it starts on); the first error stays.
type jsonPieces struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

func newJSONPieces(w io.Writer) *jsonPieces {
	j := &jsonPieces{w: w}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	return j
}

func (j *jsonPieces) raw(s string) {
	if j.err == nil {
		_, j.err = io.WriteString(j.w, s)
	}
}

// value writes v as the encoder indents it under prefix, without the
// encoder's final newline.
func (j *jsonPieces) value(prefix string, v any) {
	if j.err != nil {
		return
	}
	j.buf.Reset()
	j.enc.SetIndent(prefix, "  ")
	if j.err = j.enc.Encode(v); j.err != nil {
		return
	}
	b := j.buf.Bytes()
	_, j.err = j.w.Write(b[:len(b)-1])
}

// field writes `prefix"key": value` then end.
func (j *jsonPieces) field(prefix, key string, v any, end string) {
	j.raw(prefix)
	j.value(prefix, key)
	j.raw(": ")
	j.value(prefix, v)
	j.raw(end)
}
