package device

import (
	"ndma/dtype"
	"ndma/internal/timing"
	"ndma/isa"
	"ndma/neff"
)

// The packet-level DMA timing of a NEFF run (package timing, docs/sim.md):
// every dma[] block a 0xc1 trigger fires is timed by the model from the
// block itself — its rows, where it reads and writes, its queue's engines.
// Words the model does not time (inline 0xd4 DGE words, ndma run's words)
// keep the first-order cost of sim/cost.go (INFERRED, RATIONALE.md).

// BlockTransfer is block b of queue q, spread over engines DMA engines
// (the block's completion increment: the queue's num_queues, neff.md §4.7,
// each engine incrementing once), as the timing model sees it: per
// descriptor, its written side's rows — the innermost size in bytes when
// that dimension is contiguous (step 1), else one element — repeated over
// the outer sizes; read and written memory (SB for the state-buffer
// variable, HBM for every other); a cast when the dtypes differ.
func BlockTransfer(sg *neff.Subgraph, q *neff.Queue, b *neff.Block, engines int) *timing.Transfer {
	t := &timing.Transfer{Queue: q.Name, Block: b.ID, Engines: max(engines, 1), From: timing.SB, To: timing.SB}
	side := func(name string) timing.Mem {
		if v, ok := sg.Var(name); ok && v.Type == "state-buffer" {
			return timing.SB
		}
		return timing.HBM
	}
	for k := range b.Desc {
		d := &b.Desc[k]
		if k == 0 { // INFERRED: a block's descriptors read and write alike (every one observed does)
			t.From, t.To = side(d.From), side(d.To)
			if d.From == "" && len(d.FromArr) > 0 {
				t.From = side(d.FromArr[0].From)
			}
		}
		if d.Op == "cast" || d.FromDtype != d.ToDtype {
			t.Cast = true
		}
		if len(d.ToSizes) == 0 {
			continue
		}
		row, count := d.ToSizes[0], int64(1)
		if len(d.ToSteps) > 0 && d.ToSteps[0] != 1 { // not contiguous: one element a row
			size := int64(1)
			if dt, err := dtype.FromNEFF(d.ToDtype); err == nil && dt.Size() > 0 {
				size = int64(dt.Size())
			}
			row, count = size, max(d.ToSizes[0]/size, 1)
		}
		for _, s := range d.ToSizes[1:] {
			if s > 0 && count > (1<<40)/s { // a resolved block is far smaller (MaxRuns): never overflow
				count = 1 << 40
				break
			}
			count *= max(s, 0)
		}
		if row > 0 && count > 0 {
			t.Rows = append(t.Rows, timing.Run{Bytes: row, Count: count})
		}
	}
	return t
}

// Model is the timing model's constants for gen (timing.For).
func Model(gen isa.Gen) timing.Params { return timing.For(gen) }
