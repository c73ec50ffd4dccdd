package sim

import (
	"testing"

	"ndma/dge"
	"ndma/internal/timing"
	"ndma/isa"
)

// wordTransfer reads a lowered word's channels as the packet-level model's
// shares, each by hand: the written leg's contiguous run and its count,
// contiguous when the DRAM leg is one stretch, a cast when the dtypes
// differ, element descriptors for DRAM → DRAM one element at a time.
func TestWordTransfer(t *testing.T) {
	const hbm = 0x1_0000_0000
	leg := func(addr uint64, elem uint32, num []uint32, step []int64) dge.Leg {
		l := dge.Leg{Addr: addr, ElemSize: elem}
		for d := range l.Num {
			l.Num[d] = 1
		}
		copy(l.Num[:], num)
		copy(l.Step[:], step)
		return l
	}
	load := &dge.Program{Gen: isa.Cayman, Src: leg(hbm, 512, []uint32{128}, []int64{512}), Dst: leg(0, 512, []uint32{128}, []int64{0x40000}),
		InDtype: 7, OutDtype: 7,
		Channels: []dge.Channel{
			// engine 0: 8 rows of 512 B into 8 partitions from one 4096-B stretch of HBM
			{DMA: 0, Src: leg(hbm, 512, []uint32{8}, []int64{512}), Dst: leg(0, 512, []uint32{8}, []int64{0x40000})},
			// engine 9: 4 rows of 2 × 256 B (the inner dimension joins the run), HBM rows 1 KiB apart
			{DMA: 9, Src: leg(hbm, 256, []uint32{2, 4}, []int64{256, 1024}), Dst: leg(0, 256, []uint32{2, 4}, []int64{256, 0x40000})},
		}}
	tr := wordTransfer(load)
	want := [][]timing.Run{{{Bytes: 4096 / 8, Count: 8, Contiguous: true}}, {{Bytes: 512, Count: 4}}}
	if !tr.Inline || tr.Block != -1 || tr.From != timing.HBM || tr.To != timing.SB || tr.Cast || tr.Engines != 2 ||
		len(tr.Shares) != 2 || tr.ShareEngines[0] != 0 || tr.ShareEngines[1] != 9 {
		t.Fatalf("load: %+v", tr)
	}
	for i := range want {
		if tr.Shares[i][0] != want[i][0] {
			t.Errorf("load share %d: %+v, by hand %+v", i, tr.Shares[i][0], want[i][0])
		}
	}
	// a store that casts (FP32 → FP16): SB rows of 256 B read, HBM rows of 128 B written 256 B apart
	store := &dge.Program{Gen: isa.Cayman, Src: leg(0x4200, 256, []uint32{128}, []int64{0x40000}), Dst: leg(hbm+0x20000, 128, []uint32{128}, []int64{256}),
		InDtype: 10, OutDtype: 7,
		Channels: []dge.Channel{{DMA: 0, Src: leg(0x4200, 256, []uint32{128}, []int64{0x40000}), Dst: leg(hbm+0x20000, 128, []uint32{128}, []int64{256})}}}
	tr = wordTransfer(store)
	if tr.From != timing.SB || tr.To != timing.HBM || !tr.Cast || len(tr.Shares) != 1 || tr.Shares[0][0] != (timing.Run{Bytes: 128, Count: 128}) {
		t.Errorf("store: %+v %+v", tr, tr.Shares)
	}
	// DRAM → DRAM reading one fp16 every 18 bytes (hw-timing §2.5's weight copy): element descriptors
	gather := &dge.Program{Gen: isa.Cayman, Src: leg(hbm, 2, []uint32{64}, []int64{18}), Dst: leg(hbm+0x10000, 2, []uint32{64}, []int64{2}),
		InDtype: 7, OutDtype: 7,
		Channels: []dge.Channel{{DMA: 2, Src: leg(hbm, 2, []uint32{64}, []int64{18}), Dst: leg(hbm+0x10000, 2, []uint32{64}, []int64{2})}}}
	tr = wordTransfer(gather)
	if len(tr.Shares) != 1 || tr.Shares[0][0] != (timing.Run{Bytes: 128, Count: 1, Element: 2}) {
		t.Errorf("gather: %+v", tr.Shares)
	}
}
