package inspect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"ndma/device"
	"ndma/dge"
	"ndma/isa"
	"ndma/neff"
	"ndma/sdma"
)

// The load-time limits of neff.md §4.8 ("descriptor size", "ring",
// "descriptors per packet", "queues").
const (
	DescriptorBytes   = 16         // "16 bytes (M2S and S2M alike)"
	MaxDescriptorData = 64 << 10   // "at most 64 KiB (length 0 encodes 65536)"
	RingMin           = 32         // "at least 32"
	RingMultiple      = 16         // "a multiple of 16 descriptors"
	RingMax           = 1<<24 - 16 // "at most 2^24 − 16"
	DataPerPacket     = 64         // "64 data + 1 metadata on v2/v3"
	EnginesPerCore    = 16         // "16 DMA engines per NeuronCore"
	QueuesPerEngine   = 16         // "16 queues per engine"
	CollectiveQueue   = 15         // "queue 15 of every engine reserved for collectives"
	NXQueue           = 14         // "queue 14 reserved for the NX cores on some engines"
)

// nxEngines are the engines whose queue 14 the NX cores hold (neff.md §4.8:
// "v2: engines 0–10; v3: 0–4, 7, 8"); later generations are not stated, so
// v3's list is assumed (INFERRED, RATIONALE.md "Budgets").
func nxEngines(gen isa.Gen) []int {
	if gen == isa.Sunda {
		return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	}
	return []int{0, 1, 2, 3, 4, 7, 8}
}

// RingEntries is the ring a runtime builds for n descriptors: a multiple of
// 16, at least 32 (neff.md §4.8).
func RingEntries(n int) int {
	if n == 0 {
		return 0
	}
	return max(RingMin, (n+RingMultiple-1)/RingMultiple*RingMultiple)
}

// InstanceBudget is one queue instance (`<queue>_defId_<n>`, 0 for the
// plain name): the dma[] blocks the runtime turns into descriptors when the
// NEFF loads (DGE mode "none"), their descriptors and ring bytes.
type InstanceBudget struct {
	Instance    int `json:"instance"`
	Blocks      int `json:"blocks"`
	Descriptors int `json:"descriptors"` // M2S + S2M, completions included
	// M2S and S2M are the data descriptors of each direction, Completions
	// the completion descriptors (one closing each ring a word uses).
	M2S         int `json:"m2s"`
	S2M         int `json:"s2m"`
	Completions int `json:"completions"`
	// Rings is the ring of each DMA engine the blocks' words use: its
	// descriptors (both directions), and the ring's entries as built.
	Rings     []Ring `json:"rings"`
	RingBytes int64  `json:"ring_bytes"` // 16 bytes per entry of every ring
	Packets   int    `json:"packets"`    // 64-data-descriptor packets the words need
}

// Ring is one DMA engine's ring pair of a queue instance.
type Ring struct {
	DMA     int `json:"dma"`
	M2S     int `json:"m2s"`
	S2M     int `json:"s2m"`
	Entries int `json:"entries"` // RingEntries of the larger
}

// QueueBudget is one NEFF dma_queue of one subgraph (one NeuronCore).
type QueueBudget struct {
	Subgraph  string           `json:"subgraph"`
	Queue     string           `json:"queue"`
	Owner     string           `json:"owner"`
	Type      string           `json:"type"`
	NumQueues int              `json:"num_queues"`
	Instances []InstanceBudget `json:"instances"`
	// Descriptors and RingBytes are the load-time totals over instances.
	Descriptors int   `json:"descriptors"`
	RingBytes   int64 `json:"ring_bytes"`
	// DGEWords are the inline (0xd4) words on the queue: their descriptors
	// are made by the DGE at run time on its own ring, so they cost no
	// load-time ring; DGEMaxRing is the most one of them puts on one ring,
	// against the DGE's ring of DGERing entries.
	DGEWords       int `json:"dge_words"`
	DGEDescriptors int `json:"dge_descriptors"`
	DGEMaxRing     int `json:"dge_max_ring"`
	DGERing        int `json:"dge_ring"`
}

// EngineQueues is how many hardware queues of one DMA engine a subgraph's
// queue instances occupy, against those left after the reserved ones.
type EngineQueues struct {
	Subgraph  string `json:"subgraph"`
	DMA       int    `json:"dma"`
	Used      int    `json:"used"`
	Available int    `json:"available"`
}

// Budget is the load-time DMA budget of a NEFF.
type Budget struct {
	Target      string         `json:"target"`
	Queues      []QueueBudget  `json:"queues"`
	Engines     []EngineQueues `json:"engines"` // each subgraph's 16 DMA engines
	Descriptors int            `json:"descriptors"`
	RingBytes   int64          `json:"ring_bytes"`
	Problems    []string       `json:"problems"`
	Limits      Limits         `json:"limits"`
}

// Limits are the §4.8 figures the budget holds the NEFF to.
type Limits struct {
	DescriptorBytes int `json:"descriptor_bytes"`
	RingMin         int `json:"ring_min"`
	RingMultiple    int `json:"ring_multiple"`
	RingMax         int `json:"ring_max"`
	DataPerPacket   int `json:"data_descriptors_per_packet"`
	QueuesPerEngine int `json:"queues_per_engine"`
	DGERing         int `json:"dge_ring"`
}

// instanceOf splits a block's queue key into the dma_queue name and its
// instance: "<queue>_defId_<n>" (neff.md §4.4) or the plain name (0).
func instanceOf(key string, queues map[string]bool) (string, int) {
	if queues[key] {
		return key, 0
	}
	if q, n, ok := strings.Cut(key, "_defId_"); ok && queues[q] {
		if i, err := strconv.Atoi(n); err == nil && i >= 0 {
			return q, i
		}
	}
	return key, 0
}

// BudgetOf is the NEFF's load-time budget: per subgraph, queue and queue
// instance, the descriptors of every dma[] block as the runtime builds them
// when the NEFF loads (each block's words lowered on a runtime-built ring),
// their ring entries and bytes, the inline words' DGE descriptors against
// the DGE ring, and the hardware queues per DMA engine, all against
// neff.md §4.8.
func BudgetOf(gen isa.Gen, sgs []neff.Subgraph) (*Budget, error) {
	all, err := Analyze(gen, sgs, Options{})
	if err != nil {
		return nil, err
	}
	return BudgetFrom(all)
}

// BudgetFrom is BudgetOf over an analysis of every stream (Analyze without
// filters): its inline words are not lowered again.
func BudgetFrom(all *Analysis) (*Budget, error) {
	if all.filtered {
		return nil, fmt.Errorf("a budget needs every stream: analyse without Options.Subgraph or Options.Engine")
	}
	gen, sgs, place := all.Gen, all.sgs, all.place
	b := &Budget{Target: gen.String(), Queues: []QueueBudget{}, Engines: []EngineQueues{}, Problems: []string{}, Limits: Limits{
		DescriptorBytes, RingMin, RingMultiple, RingMax, DataPerPacket, QueuesPerEngine, sdma.DefaultRingSize}}
	for si := range sgs {
		sg := &sgs[si]
		names := map[string]bool{}
		idx := map[string]int{}
		base := len(b.Queues)
		for _, q := range sg.Queues() {
			names[q.Name] = true
			idx[q.Name] = len(b.Queues)
			b.Queues = append(b.Queues, QueueBudget{Subgraph: sg.Name, Queue: q.Name, Owner: q.Owner, Type: q.Type, NumQueues: max(q.NumQueues, 1), DGERing: sdma.DefaultRingSize, Instances: []InstanceBudget{}})
		}
		type ik struct {
			q    string
			inst int
		}
		inst := map[ik]*InstanceBudget{}
		rings := map[ik]map[int]*Ring{}
		var blocks []*neff.Block
		for ei := range sg.Engines {
			for k := range sg.Engines[ei].Blocks {
				blocks = append(blocks, &sg.Engines[ei].Blocks[k])
			}
		}
		for k := range sg.Blocks {
			blocks = append(blocks, &sg.Blocks[k])
		}
		for _, blk := range blocks {
			qn, n := instanceOf(blk.Queue, names)
			if _, ok := idx[qn]; !ok {
				b.Problems = append(b.Problems, fmt.Sprintf("%s: queue %q is not in %s/def.json dma_queue", blk.Where, blk.Queue, sg.Dir))
				continue
			}
			words, _, err := device.BlockWords(gen, sg, blk, place[si])
			if err != nil {
				b.Problems = append(b.Problems, fmt.Sprintf("%s: %v", blk.Where, err))
				continue
			}
			key := ik{qn, n}
			ib := inst[key]
			if ib == nil {
				ib = &InstanceBudget{Instance: n, Rings: []Ring{}}
				inst[key] = ib
				rings[key] = map[int]*Ring{}
			}
			ib.Blocks++
			for i := range words {
				// every ring a word uses ends with its completion descriptor (sdma.Expand)
				// its rows over the queue's engines, as a run places them (dge.Options.Engines)
				_, lw, err := sdma.Lower(&words[i], gen, dge.Options{Engines: b.Queues[idx[qn]].NumQueues}, sdma.Options{RingSize: device.RuntimeRing})
				if err != nil {
					b.Problems = append(b.Problems, fmt.Sprintf("%s word %d: %v", blk.Where, i, err))
					continue
				}
				for _, q := range lw.Queues {
					r := rings[key][q.DMA]
					if r == nil {
						r = &Ring{DMA: q.DMA}
						rings[key][q.DMA] = r
					}
					r.M2S += len(q.M2S)
					r.S2M += len(q.S2M)
					ib.Descriptors += len(q.M2S) + len(q.S2M)
					ib.M2S += len(q.M2S)
					ib.S2M += len(q.S2M) - 1
					ib.Completions++
					ib.Packets += (len(q.M2S) + DataPerPacket - 1) / DataPerPacket
				}
			}
		}
		for key, ib := range inst {
			for _, r := range rings[key] {
				r.Entries = RingEntries(max(r.M2S, r.S2M))
				ib.RingBytes += int64(r.Entries) * 2 * DescriptorBytes // an M2S ring and an S2M ring
				if r.Entries > RingMax {
					b.Problems = append(b.Problems, fmt.Sprintf("%s queue %s instance %d DMA[%d]: %d descriptors on one ring, over the %d a ring holds (docs/neff.md §4.8)", sg.Name, key.q, key.inst, r.DMA, max(r.M2S, r.S2M), RingMax))
				}
				ib.Rings = append(ib.Rings, *r)
			}
			sort.Slice(ib.Rings, func(i, j int) bool { return ib.Rings[i].DMA < ib.Rings[j].DMA })
			q := &b.Queues[idx[key.q]]
			q.Instances = append(q.Instances, *ib)
			q.Descriptors += ib.Descriptors
			q.RingBytes += ib.RingBytes
		}
		for _, w := range all.Words {
			if w.Subgraph != sg.Name || w.BlockID >= 0 || w.Queue == "" {
				continue
			}
			i, ok := idx[w.Queue]
			if !ok {
				continue
			}
			q := &b.Queues[i]
			q.DGEWords++
			q.DGEDescriptors += w.Descriptors
			q.DGEMaxRing = max(q.DGEMaxRing, w.MaxRing)
		}
		// hardware queues per DMA engine: each queue instance holds one
		// queue on each of its num_queues engines (INFERRED, RATIONALE.md "Budgets")
		used := make([]int, EnginesPerCore)
		for i := base; i < len(b.Queues); i++ {
			q := &b.Queues[i]
			sort.Slice(q.Instances, func(a, c int) bool { return q.Instances[a].Instance < q.Instances[c].Instance })
			n := max(1, len(q.Instances))
			for e := 0; e < min(q.NumQueues, EnginesPerCore); e++ {
				used[e] += n
			}
			if q.DGEMaxRing > q.DGERing {
				b.Problems = append(b.Problems, fmt.Sprintf("%s queue %s: a DGE word puts %d descriptors on one ring, over the DGE ring's %d", sg.Name, q.Queue, q.DGEMaxRing, q.DGERing))
			}
			b.Descriptors += q.Descriptors
			b.RingBytes += q.RingBytes
		}
		nx := map[int]bool{}
		for _, e := range nxEngines(gen) {
			nx[e] = true
		}
		for e, u := range used {
			avail := QueuesPerEngine - 1 // queue 15
			if nx[e] {
				avail-- // queue 14
			}
			if u > avail {
				b.Problems = append(b.Problems, fmt.Sprintf("%s DMA engine %d: %d queues needed, %d left after the reserved ones (queue 15 collectives%s; docs/neff.md §4.8)", sg.Name, e, u, avail, map[bool]string{true: ", queue 14 the NX cores", false: ""}[nx[e]]))
			}
			b.Engines = append(b.Engines, EngineQueues{Subgraph: sg.Name, DMA: e, Used: u, Available: avail})
		}
	}
	return b, nil
}
