package sim

import (
	"fmt"

	"ndma/internal/control"
	"ndma/isa"
	"ndma/sdma"
)

// copy2D runs a DMA_MEMCPY2 (0xb9, MAVERICK; field-tables §3.8) on the
// engines. The v5 inline copy has no DGE program: the engine walks the two
// 2-D legs into maximal runs itself, one CME descriptor per run of at most
// 64 KiB on engine start_id (INFERRED: fanning out over engine_count
// engines does not change the bytes), then one INC-window completion per
// rd_done / wr_done update. Addresses and semaphore updates are the word's
// control and shared with ref; the walk and the bytes are the engines' own.
func (x *Machine) copy2D(in *isa.Inst) error {
	name := in.Def().Mnemonic()
	st := x.state()
	if err := control.WaitSema(st, in); err != nil {
		return err
	}
	dstMem, err := control.Copy2DTarget(st, in) // the target core's memory for a cross-core copy
	if err != nil {
		return err
	}
	sa, da, err := control.Copy2DAddrs(st, in)
	if err != nil {
		return err
	}
	sems, remote, err := control.Copy2DSemas(st, in)
	if err != nil {
		return err
	}
	if dstMem == x.Mem && len(remote) > 0 {
		return &Fault{Mnemonic: name, DMA: -1, Desc: -1, Err: fmt.Errorf("a remote semaphore update on a local copy (remote_core_id 0): %w", ErrUnsupported)}
	}
	v, _ := in.Copy2D()
	var walk [2]isa.Leg2D // elem_size 0 read as 64 KiB (§11.3)
	walk[0], walk[1], _ = in.Legs2D()
	limit, moved := x.maxBytes(), walk[0].Elem*walk[0].Num[0]*walk[0].Num[1]+walk[1].Elem*walk[1].Num[0]*walk[1].Num[1]
	if moved > limit { // before the walk: a word past max-bytes costs nothing
		return &Fault{Mnemonic: name, DMA: -1, Desc: -1, Err: fmt.Errorf("the word's streams carry %d bytes, more than the %d allowed (Machine.MaxBytes)", moved, limit)}
	}
	var legs [2][]sdma.Desc
	for k, leg := range []string{"src", "dst"} {
		size, num, step := walk[k].Elem, walk[k].Num, walk[k].Step
		if num[0]*num[1] > 1<<22 {
			return &Fault{Mnemonic: name, DMA: -1, Desc: -1, Err: fmt.Errorf("%s leg: %d elements: more than the engines walk (%d)", leg, num[0]*num[1], 1<<22)}
		}
		var runs [][2]uint64 // Neuron address, bytes
		for i1 := int64(0); i1 < num[1]; i1++ {
			for i0 := int64(0); i0 < num[0]; i0++ {
				a := uint64(int64([2]uint64{sa, da}[k]) + i0*step[0] + i1*step[1])
				if n := len(runs) - 1; n >= 0 && runs[n][0]+runs[n][1] == a {
					runs[n][1] += uint64(size)
				} else {
					runs = append(runs, [2]uint64{a, uint64(size)})
				}
			}
		}
		for _, r := range runs {
			for off := uint64(0); off < r[1]; off += sdma.MaxRun {
				soc, err := x.Mem.Map.SoC(r[0]+off, 0)
				if err != nil {
					return &Fault{Mnemonic: name, DMA: -1, Desc: -1, Err: fmt.Errorf("%s leg at %#x: %w", leg, r[0]+off, err)}
				}
				legs[k] = append(legs[k], sdma.CopyDesc(int(min(sdma.MaxRun, r[1]-off)), soc, false, false, 1))
			}
		}
	}
	// fan-out: the byte stream cut into equal shares over 1 << engine_count
	// engines from start_id (their queue queue_id); the completions ride on
	// the last engine (INFERRED: engines finish together in this model)
	fan := 1 << v.DMAEngines().EngineCount()
	var total [2]int
	for k := range legs {
		for _, d := range legs[k] {
			total[k] += d.Length()
		}
	}
	// shares from the longer leg, at least a byte: legs that disagree still
	// cut into at most fan shares each, and the engines fault on them
	share := max(1, (max(total[0], total[1])+fan-1)/fan)
	m2s, s2m := cutShares(legs[0], share), cutShares(legs[1], share)
	for len(m2s) < len(s2m) {
		m2s = append(m2s, nil)
	}
	for len(s2m) < len(m2s) {
		s2m = append(s2m, nil)
	}
	if len(m2s) == 0 {
		m2s, s2m = [][]sdma.Desc{nil}, [][]sdma.Desc{nil}
	}
	if dstMem == x.Mem { // completions through the INC window; a cross-core copy's are applied below
		last := len(s2m) - 1
		for _, idx := range sems {
			s2m[last] = append(s2m[last], sdma.CopyDesc(4, isa.EvtSemInc(idx), true, true, 1))
		}
	}
	start, qid := int(v.DMAEngines().StartID()), int(v.DMAFlags().QueueID())
	var ws []Work
	size := 0
	for e := range m2s {
		dma := start + e
		w := Work{SemInc: 1, Queue: sdma.Queue{DMA: dma, Queue: qid, M2S: m2s[e], S2M: s2m[e],
			Doorbells: []sdma.Doorbell{{DMA: dma, Reg: "TDRTP_inc", Value: len(m2s[e])}, {DMA: dma, Reg: "RDRTP_inc", Value: len(s2m[e])}}}}
		if dstMem != x.Mem {
			w.DstMem = dstMem
		}
		size = max(size, len(m2s[e]), len(s2m[e]))
		ws = append(ws, w)
	}
	saved := x.RingSize
	if x.RingSize < size { // the inline path's ring is the word's own
		x.RingSize = size
	}
	err = x.runWork(name, ws)
	x.RingSize = saved
	if err != nil {
		return err
	}
	if dstMem != x.Mem { // the copy's semaphore updates: local ones here, remote ones on the target
		x.eff.Changes = append(x.eff.Changes, control.Copy2DChanges(st, dstMem, sems, remote)...)
	}
	x.Stats.TimeNS += wordTime(0, ws)
	return nil
}

// cutShares cuts a descriptor list into consecutive shares of n stream
// bytes, splitting a descriptor where a share ends.
func cutShares(ds []sdma.Desc, n int) [][]sdma.Desc {
	var out [][]sdma.Desc
	var cur []sdma.Desc
	have := 0
	for _, d := range ds {
		ptr, left := d.BufPtr(), d.Length()
		for left > 0 {
			take := min(left, n-have)
			cur = append(cur, sdma.CopyDesc(take, ptr, false, false, 1))
			ptr, left, have = ptr+uint64(take), left-take, have+take
			if have == n {
				out, cur, have = append(out, cur), nil, 0
			}
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
