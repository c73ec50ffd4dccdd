package inspect

import (
	"fmt"
	"sort"
)

// The efficiency thresholds of neff.md §4.8 ("efficiency"): < 256 B per
// partition overhead-bound, ≥ 2 KiB per partition the recommended minimum,
// ≥ 4 KiB saturation; the profiler flags "small DMA transfers" below 4 KiB
// of contiguous payload. 512 B is the descriptor size below which ndma
// calls a descriptor descriptor-bound (docs/lower.md's --stats finding).
const (
	OverheadBoundBytes = 256
	SmallDescBytes     = 512
	MinPartitionBytes  = 2048
	SaturationBytes    = 4096
)

// Histogram counts data (M2S) descriptors by the bytes each moves, against
// 512 B / 2 KiB / 4 KiB.
type Histogram struct {
	Under512  int `json:"under_512"`
	Under2K   int `json:"under_2k"` // 512 ≤ n < 2048
	Under4K   int `json:"under_4k"` // 2048 ≤ n < 4096
	AtLeast4K int `json:"at_least_4k"`
}

// Add counts one descriptor of n bytes.
func (h *Histogram) Add(n int) {
	switch {
	case n < SmallDescBytes:
		h.Under512++
	case n < MinPartitionBytes:
		h.Under2K++
	case n < SaturationBytes:
		h.Under4K++
	default:
		h.AtLeast4K++
	}
}

// Total is the descriptors counted.
func (h *Histogram) Total() int { return h.Under512 + h.Under2K + h.Under4K + h.AtLeast4K }

// QueueLint is one queue of one engine: its words, descriptors, bytes, the
// bytes-per-descriptor histogram and the cost model's time.
type QueueLint struct {
	Subgraph    string    `json:"subgraph"`
	Engine      string    `json:"engine"`
	Queue       string    `json:"queue"`
	Words       int       `json:"words"`
	Descriptors int       `json:"descriptors"`
	Bytes       uint64    `json:"bytes"`
	Histogram   Histogram `json:"histogram"`
	// BytesPerPartition is the bytes of a transfer per SBUF partition it
	// spans: the smallest and the mean over the words that touch SBUF.
	MinBytesPerPartition  uint64  `json:"min_bytes_per_partition"`
	MeanBytesPerPartition uint64  `json:"mean_bytes_per_partition"`
	FixedNS               int64   `json:"fixed_ns"`
	TransferNS            int64   `json:"transfer_ns"`
	OverheadShare         float64 `json:"overhead_share"` // fixed / (fixed + transfer)
}

// Finding is one kind of problem, aggregated: how many places, the first
// few, and what would fix it.
type Finding struct {
	Kind   string  `json:"kind"`
	Count  int     `json:"count"`
	First  []Place `json:"first"`
	Detail string  `json:"detail"`
	Fix    string  `json:"fix"`
}

// Place is where a finding's word is, field by field (Word.Place's text).
type Place struct {
	Subgraph string `json:"subgraph"`
	Engine   string `json:"engine"`
	Offset   int    `json:"offset"` // the word's byte offset in its engine stream
	Queue    string `json:"queue"`  // the NEFF queue ("" when none)
	Block    *int   `json:"block"`  // the fired dma[] block's id; null for a word that is no block's
	Word     *int   `json:"word"`   // the word's index among the block's words; null as block
	Detail   string `json:"detail"` // what the finding measured there ("16384 of 16384 descriptors")
	Text     string `json:"text"`   // the place as the text prints it: "sg00 pool 0x0 qPoolIn block 0 word 0 (…)"
}

func (p Place) String() string { return p.Text }

// placeOf is word w's place with the finding's detail.
func placeOf(w *Word, detail string) Place {
	p := Place{Subgraph: w.Subgraph, Engine: w.Engine, Offset: w.Offset, Queue: w.Queue, Detail: detail, Text: w.Place() + " (" + detail + ")"}
	if w.BlockID >= 0 {
		b, k := w.BlockID, w.Piece
		p.Block, p.Word = &b, &k
	}
	return p
}

// FirstPlaces is how many places a finding names.
const FirstPlaces = 3

// Lint is the report of `ndma neff lint`.
type Lint struct {
	Target      string    `json:"target"`
	CostModel   string    `json:"cost_model"`
	Words       int       `json:"words"`
	Descriptors int       `json:"descriptors"`
	Bytes       uint64    `json:"bytes"`
	Histogram   Histogram `json:"histogram"`
	FixedNS     int64     `json:"fixed_ns"`
	TransferNS  int64     `json:"transfer_ns"`
	Overhead    float64   `json:"overhead_share"`
	// KernelTimeNS is the kernel time `neff run` predicts (device.KernelTime,
	// docs/sim.md): the one time every tool prints; FixedNS and TransferNS
	// split the descriptors' cost, words one after another.
	KernelTimeNS int64       `json:"kernel_time_ns"`
	Queues       []QueueLint `json:"queues"`
	Findings     []Finding   `json:"findings"`
	Problems     []string    `json:"problems"`
	Budget       *Budget     `json:"budget"` // null where the caller leaves it out (neff report's lint)
}

// Finding kinds, in the order they print.
const (
	KindSmallDescriptors = "small-descriptors"    // descriptors under 512 B
	KindOverheadBound    = "overhead-bound"       // < 256 B per partition
	KindBelowMinimum     = "below-2KiB-partition" // < 2 KiB per partition
	KindProfilerSmall    = "small-dma-transfer"   // < 4 KiB contiguous (the profiler's warning)
	KindOverheadShare    = "overhead-dominated"   // fixed cost > transfer
)

var findingText = map[string][2]string{
	KindSmallDescriptors: {"data descriptors under 512 bytes (descriptor-bound)", "merge runs: make the contiguous innermost dimension (sizes[0]) longer, or lay the tensor out so consecutive elements are adjacent"},
	KindOverheadBound:    {"under 256 bytes per SBUF partition per transfer: overhead-bound (docs/neff.md §4.8)", "a larger free dimension per partition, or batch several tiles into one transfer"},
	KindBelowMinimum:     {"under 2 KiB per SBUF partition per transfer, the recommended minimum (docs/neff.md §4.8)", "a larger free dimension: ≥ 2 KiB per partition, ≥ 4 KiB saturates"},
	KindProfilerSmall:    {"transfers whose contiguous payload averages under 4 KiB: the profiler's \"small DMA transfers\" (docs/neff.md §4.8)", "merge adjacent runs into ≥ 4 KiB contiguous descriptors"},
	KindOverheadShare:    {"transfers whose fixed cost (1.3 µs a transfer, about a fired block's measured trigger latency and last write lag, docs/hw-timing.md §2.2; 600 ns a hardware-DGE word) exceeds their transfer time; transfers in flight together hide part of it, as the kernel time counts", "fewer, larger transfers: merge the transfers of adjacent tiles"},
}

var findingOrder = []string{KindSmallDescriptors, KindOverheadBound, KindBelowMinimum, KindProfilerSmall, KindOverheadShare}

// LintOf is the lint of an analysis: per queue and engine, the histogram,
// bytes per partition, time split; the findings aggregated by kind, each
// with its count and first places.
func LintOf(a *Analysis) *Lint {
	l := &Lint{Target: a.Gen.String(), CostModel: a.Cost, Problems: a.Problems, Queues: []QueueLint{}, Findings: []Finding{}}
	if l.Problems == nil {
		l.Problems = []string{}
	}
	type key struct{ sg, en, q string }
	by := map[key]*QueueLint{}
	var keys []key
	sums := map[key][2]uint64{} // sum of bytes per partition, words touching SBUF
	found := map[string]*Finding{}
	add := func(kind string, w *Word, detail string) {
		f := found[kind]
		if f == nil {
			t := findingText[kind]
			f = &Finding{Kind: kind, Detail: t[0], Fix: t[1]}
			found[kind] = f
		}
		f.Count++
		if len(f.First) < FirstPlaces {
			f.First = append(f.First, placeOf(w, detail))
		}
	}
	for i := range a.Words {
		w := &a.Words[i]
		k := key{w.Subgraph, w.Engine, w.Queue}
		q := by[k]
		if q == nil {
			q = &QueueLint{Subgraph: w.Subgraph, Engine: w.Engine, Queue: w.Queue}
			by[k] = q
			keys = append(keys, k)
		}
		q.Words++
		q.Descriptors += w.Descriptors
		q.Bytes += w.Bytes
		q.FixedNS += w.FixedNS
		q.TransferNS += w.TransferNS
		small := 0
		for _, n := range w.M2S {
			q.Histogram.Add(n)
			l.Histogram.Add(n)
			if n < SmallDescBytes {
				small++
			}
		}
		if small > 0 {
			add(KindSmallDescriptors, w, fmt.Sprintf("%d of %d descriptors", small, len(w.M2S)))
		}
		if w.Partitions > 0 {
			s := sums[k]
			s[0] += w.BytesPerPartition
			s[1]++
			sums[k] = s
			if s[1] == 1 || w.BytesPerPartition < q.MinBytesPerPartition {
				q.MinBytesPerPartition = w.BytesPerPartition
			}
			switch {
			case w.BytesPerPartition < OverheadBoundBytes:
				add(KindOverheadBound, w, fmt.Sprintf("%d B per partition", w.BytesPerPartition))
			case w.BytesPerPartition < MinPartitionBytes:
				add(KindBelowMinimum, w, fmt.Sprintf("%d B per partition", w.BytesPerPartition))
			}
		}
		if len(w.M2S) > 0 && w.Bytes/uint64(len(w.M2S)) < SaturationBytes {
			add(KindProfilerSmall, w, fmt.Sprintf("%d B per descriptor", w.Bytes/uint64(len(w.M2S))))
		}
		if w.FixedNS > w.TransferNS {
			add(KindOverheadShare, w, fmt.Sprintf("%d ns fixed, %d ns transfer", w.FixedNS, w.TransferNS))
		}
		l.Words++
		l.Descriptors += w.Descriptors
		l.Bytes += w.Bytes
		l.FixedNS += w.FixedNS
		l.TransferNS += w.TransferNS
	}
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.sg != b.sg {
			return a.sg < b.sg
		}
		if a.en != b.en {
			return a.en < b.en
		}
		return a.q < b.q
	})
	for _, k := range keys {
		q := by[k]
		if s := sums[k]; s[1] > 0 {
			q.MeanBytesPerPartition = s[0] / s[1]
		}
		q.OverheadShare = share(q.FixedNS, q.TransferNS)
		l.Queues = append(l.Queues, *q)
	}
	l.Overhead = share(l.FixedNS, l.TransferNS)
	for _, kind := range findingOrder {
		if f := found[kind]; f != nil {
			l.Findings = append(l.Findings, *f)
		}
	}
	return l
}

func share(fixed, transfer int64) float64 {
	if fixed+transfer == 0 {
		return 0
	}
	return float64(fixed) / float64(fixed+transfer)
}
