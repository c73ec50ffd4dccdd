package sim

import (
	"ndma/dge"
	"ndma/internal/timing"
	"ndma/isa"
)

// wordTransfer is lowered word p as the packet-level DMA model runs it
// (docs/sim.md "DMA time"): an inline DGE word whose rows are already
// spread over DMA engines — per channel, its engine's rows, as a fired
// block's are (device.BlockTransfer): the written leg's contiguous runs
// (the innermost dimensions while each step is the run so far), repeated
// over its outer dimensions; contiguous when the DRAM leg is one stretch;
// a cast when the dtypes differ; element descriptors (C1) when DRAM →
// DRAM reads one element at a time.
func wordTransfer(p *dge.Program) *timing.Transfer {
	t := &timing.Transfer{Block: -1, Inline: true, From: memOf(p.Gen, p.Src.Addr), To: memOf(p.Gen, p.Dst.Addr),
		Cast: p.InDtype != p.OutDtype}
	for i := range p.Channels {
		c := &p.Channels[i]
		row, count := legRun(&c.Dst)
		if row <= 0 || count <= 0 {
			continue
		}
		r := timing.Run{Bytes: row, Count: count}
		hbm := &c.Src
		if t.From != timing.HBM {
			hbm = &c.Dst
		}
		if (t.From == timing.HBM) != (t.To == timing.HBM) {
			_, n := legRun(hbm)
			r.Contiguous = n == 1
		}
		if t.From == timing.HBM && t.To == timing.HBM { // C1: one element at a time (hw-timing §2.5)
			if srow, n := legRun(&c.Src); srow == int64(c.Src.ElemSize) && n > 1 && c.Src.ElemSize <= 8 {
				r.Element = srow
			}
		}
		t.Shares = append(t.Shares, []timing.Run{r})
		t.ShareEngines = append(t.ShareEngines, c.DMA)
	}
	t.Engines = len(t.Shares)
	return t
}

// legRun is a leg's contiguous run in bytes and how many of them it
// enumerates: the innermost dimensions join the run while each one's step
// is the run so far.
func legRun(l *dge.Leg) (row, count int64) {
	row, count = int64(l.ElemSize), 1
	joined := true
	for d := range l.Num {
		n := int64(l.Num[d])
		if n == 0 {
			return 0, 0
		}
		if n == 1 {
			continue
		}
		if joined && l.Step[d] == row {
			row *= n
			continue
		}
		joined = false
		if count > (1<<40)/n { // a lowered word is far smaller (sim.DefaultMaxBytes): never overflow
			return row, 1 << 40
		}
		count *= n
	}
	return row, count
}

// memOf is where Neuron address a is for the model: SB (SBUF or PSUM) or
// HBM.
func memOf(g isa.Gen, a uint64) timing.Mem {
	if r, _, _ := isa.Map(g).Split(a); r == isa.HBM {
		return timing.HBM
	}
	return timing.SB
}
