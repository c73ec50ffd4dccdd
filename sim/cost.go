package sim

import "ndma/dge"

// The DMA time model of `ndma run --stats` (docs/sim.md). The figures are
// the ones NKI documents for Trn2; the per-descriptor fetch is ndma's
// (INFERRED: 16 bytes read at the engine's bandwidth, rounded up).
const (
	EngineBytesPerNS = 23   // one DMA engine's bandwidth
	TransferNS       = 1300 // fixed cost of one DMA transfer (one word)
	DGEInstructionNS = 600  // per word the hardware DGE (Pool, RTL backends) expands
	DescriptorNS     = 1    // fetching one 16-byte descriptor
)

// wordTime is one word's DMA time: the fixed cost, the DGE's, and the
// slowest engine — engines run in parallel, each moving its queue's bytes
// and fetching its descriptors.
func wordTime(backend dge.Backend, ws []Work) int64 {
	t := int64(TransferNS)
	if backend == dge.Pool || backend == dge.RTL {
		t += DGEInstructionNS
	}
	per := map[int]int64{}
	for _, w := range ws {
		var bytes int64
		for _, d := range w.Queue.S2M {
			bytes += int64(d.Length())
		}
		per[w.Queue.DMA] += int64(len(w.Queue.M2S)+len(w.Queue.S2M))*DescriptorNS + (bytes+EngineBytesPerNS-1)/EngineBytesPerNS
	}
	var slowest int64
	for _, v := range per {
		slowest = max(slowest, v)
	}
	return t + slowest
}
