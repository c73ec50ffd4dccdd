package sim

import (
	"ndma/dge"
	"ndma/sdma"
)

// The DMA time model of `ndma run --stats` (docs/sim.md). The figures are
// the ones NKI documents for Trn2; the per-descriptor fetch is ndma's
// (INFERRED: 16 bytes read at the engine's bandwidth, rounded up).
const (
	EngineBytesPerNS = 23   // one DMA engine's bandwidth
	TransferNS       = 1300 // fixed cost of one DMA transfer (one word)
	DGEInstructionNS = 600  // per word the hardware DGE (Pool, RTL backends) expands
	DescriptorNS     = 1    // fetching one 16-byte descriptor
)

// wordTime is one word's DMA time (EstimateNS of its queues).
func wordTime(backend dge.Backend, ws []Work) int64 {
	qs := make([]sdma.Queue, len(ws))
	for i, w := range ws {
		qs[i] = w.Queue
	}
	return EstimateNS(backend, qs)
}

// queuesTime is wordTime of the queues run, from the descriptor counts and
// S2M bytes their check counted (no pass over the lists).
func queuesTime(backend dge.Backend, qs []*queue) int64 {
	var buf [16]engineNS
	per := perEngine(buf[:0])
	for _, q := range qs {
		m, s := q.q.Count()
		per = per.add(q.q.DMA, int64(m+s)*DescriptorNS+(q.s2mBytes+EngineBytesPerNS-1)/EngineBytesPerNS)
	}
	return estimate(backend, per)
}

// engineNS is one DMA engine's time in a word.
type engineNS struct {
	dma int
	ns  int64
}

// perEngine sums time per DMA engine (a word uses a few of the 64: a list,
// not a map a word).
type perEngine []engineNS

func (p perEngine) add(dma int, ns int64) perEngine {
	for i := range p {
		if p[i].dma == dma {
			p[i].ns += ns
			return p
		}
	}
	return append(p, engineNS{dma, ns})
}

// EstimateNS is the cost model's time for one word whose descriptors are qs:
// the fixed cost, the hardware DGE's, and the slowest engine — engines run
// in parallel, each moving its S2M bytes and fetching its descriptors.
func EstimateNS(backend dge.Backend, qs []sdma.Queue) int64 {
	var buf [16]engineNS
	per := perEngine(buf[:0])
	for _, q := range qs {
		var bytes int64
		for _, d := range q.S2M {
			bytes += int64(d.Length())
		}
		per = per.add(q.DMA, int64(len(q.M2S)+len(q.S2M))*DescriptorNS+(bytes+EngineBytesPerNS-1)/EngineBytesPerNS)
	}
	return estimate(backend, per)
}

// estimate is EstimateNS of the engines' times per (the slowest counts).
func estimate(backend dge.Backend, per perEngine) int64 {
	t := int64(TransferNS)
	if backend == dge.Pool || backend == dge.RTL {
		t += DGEInstructionNS
	}
	var slowest int64
	for _, e := range per {
		slowest = max(slowest, e.ns)
	}
	return t + slowest
}
