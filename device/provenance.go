package device

import (
	"fmt"
	"strings"

	"ndma/internal/compute"
	"ndma/isa"
)

// Where an output's values come from: the compute words that last wrote
// the SBUF bytes a DMA word reads when it writes an output variable (read
// at the moment the DMA word runs, so a tile reused later is not blamed).
// SBUF is followed in granules of provGranule bytes per partition.

const provGranule = 512

// provenance is one device's record: per core, per SBUF partition, per
// granule, the compute word (an index into labels, +1; 0 none) that last
// wrote it.
type provenance struct {
	cores  map[int][][]int32
	labels []string
	index  map[provKey]int32
	sbuf   isa.AddressMap
	res    *Result
}

type provKey struct {
	s   *Stream
	off int
}

func newProvenance(g isa.Gen, res *Result) *provenance {
	return &provenance{cores: map[int][][]int32{}, index: map[provKey]int32{}, sbuf: isa.Map(g), res: res}
}

// granules are core's partition p granules (allocated on first write).
func (pv *provenance) granules(core, p int) []int32 {
	c := pv.cores[core]
	if c == nil {
		c = make([][]int32, pv.sbuf.Partitions)
		pv.cores[core] = c
	}
	if c[p] == nil {
		c[p] = make([]int32, (pv.sbuf.SBUFActive+provGranule-1)/provGranule)
	}
	return c[p]
}

// wrote notes that the word at (s, step) wrote the SBUF span of pattern d.
func (pv *provenance) wrote(s *Stream, step *Step, d compute.Pattern) {
	if d.Region != isa.SBUF {
		return
	}
	k := provKey{s, step.Offset}
	id, ok := pv.index[k]
	if !ok {
		pv.labels = append(pv.labels, fmt.Sprintf("%s %s %#x %s", s.Subgraph, strings.ToUpper(s.Key), step.Offset, step.Word.Def().Mnemonic()))
		id = int32(len(pv.labels))
		pv.index[k] = id
	}
	lo, hi := d.Span()
	for p := d.Part; p < d.Part+d.Parts; p++ {
		g := pv.granules(s.Core, p)
		for i := lo / provGranule; i < (hi+provGranule-1)/provGranule && i < int64(len(g)); i++ {
			g[i] = id
		}
	}
}

// sbRead is an SBUF leg of a DMA word that writes output variable Var.
type sbRead struct {
	Var  string
	Addr uint64
	Leg  isa.Leg2D
}

// read notes, for each SBUF leg rs of the word a DMA step ran, the compute
// words that last wrote the bytes it read, under its output variable.
func (pv *provenance) read(core int, rs []sbRead) {
	c := pv.cores[core]
	if c == nil {
		return
	}
	for _, r := range rs {
		lo0, hi0 := min(0, (r.Leg.Num[0]-1)*r.Leg.Step[0]), max(0, (r.Leg.Num[0]-1)*r.Leg.Step[0])+r.Leg.Elem
		seen := map[int32]bool{}
		for j := range r.Leg.Num[1] {
			start := int64(r.Addr) + j*r.Leg.Step[1]
			reg, p, off := pv.sbuf.Split(uint64(start + lo0))
			if reg != isa.SBUF || p >= len(c) || c[p] == nil {
				continue
			}
			g := c[p]
			for i := int64(off) / provGranule; i < (int64(off)+hi0-lo0+provGranule-1)/provGranule && i < int64(len(g)); i++ {
				if id := g[i]; id != 0 && !seen[id] {
					seen[id] = true
					pv.add(r.Var, pv.labels[id-1])
				}
			}
		}
	}
}

// add appends label to output v's sources once.
func (pv *provenance) add(v, label string) {
	if pv.res.Sources == nil {
		pv.res.Sources = map[string][]string{}
	}
	for _, l := range pv.res.Sources[v] {
		if l == label {
			return
		}
	}
	pv.res.Sources[v] = append(pv.res.Sources[v], label)
}

// sbReads are, per step offset of stream st, the SBUF legs of its DMA
// words that write an output variable (Writers' walk, keeping the legs).
func (p *Program) sbReads(st *Stream) map[int][]sbRead {
	out := map[int][]sbRead{}
	outputs := map[string]bool{}
	for _, v := range p.NEFF.Subgraphs[st.Core].Variables() {
		if v.Type == "output" {
			outputs[v.Name] = true
		}
	}
	m := isa.Map(p.Gen)
	p.eachLeg(st, func(s *Step, sa, da uint64, src, dst isa.Leg2D) {
		to := p.varAt(st.Core, da, dst)
		if r, _, _ := m.Split(sa); outputs[to] && r == isa.SBUF {
			out[s.Offset] = append(out[s.Offset], sbRead{to, sa, src})
		}
	})
	return out
}
