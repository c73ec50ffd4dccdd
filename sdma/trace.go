package sdma

import (
	"fmt"

	"ndma/dge"
)

// The whole firmware-format trace of a lowered word: the program's setup,
// reshape and emit lines with each channel's rings (dge.AppendTrace), then
// per queue the expansion's line and, on the Q7 SW-DGE, its doorbell line.

// Rings is each queue's queue number and ring bases, for the program's
// context setup lines ("S: rx.base=0x%llx, tx.base=0x%llx", 003 §7.1): tx is
// the M2S ring, rx the S2M ring (field-tables §6.3: "M2S (TX) | S2M (RX)").
func (lw *Lowered) Rings() []dge.Ring {
	rs := make([]dge.Ring, len(lw.Queues))
	for i, q := range lw.Queues {
		rs[i] = dge.Ring{Queue: q.Queue, Tx: q.M2SBase, Rx: q.S2MBase}
	}
	return rs
}

// AppendTrace appends the trace of the lowered word.
func (lw *Lowered) AppendTrace(dst []byte) []byte {
	p := lw.Program
	dst = p.AppendTrace(dst, lw.Rings())
	log := lw.Log()
	for i, q := range lw.Queues {
		if i < len(log) {
			dst = append(append(dst, log[i]...), '\n')
		}
		if p.Backend == dge.Software {
			dst = append(append(dst, TriggerLine(&q)...), '\n')
		}
	}
	for _, l := range log[min(len(log), len(lw.Queues)):] {
		dst = append(append(dst, l...), '\n')
	}
	return dst
}

// TriggerLine is the Q7 SW-DGE's doorbell line of a queue (003 §4: "For Q7
// SW-DGE: "Trigger DMA; sdma_bcast_base=…, trigger addr=…, mask=…,
// n_desc=%d""; §3.3 spells its start "Trigger DMA; sdma_bcast_base =
// 0x%08x"). The values are ndma's (INFERRED, RATIONALE.md): the broadcast
// base is the low word of the queue's M2S ring base; the trigger address the
// queue's TDRTP_inc in its engine's register bank, 0x1000 + q·0x1000 + 0x38
// (field-tables §6.3, from an engine base the documents do not give); the
// mask the channel's bit in the DMA bitfield (MEMCOPY_DMA_CFG, §6.2); n_desc
// the descriptors of both rings.
func TriggerLine(q *Queue) string {
	return fmt.Sprintf("Trigger DMA; sdma_bcast_base = 0x%08x, trigger addr = 0x%08x, mask = 0x%08x, n_desc=%d",
		uint32(q.M2SBase), 0x1000+0x1000*q.Queue+0x38, uint32(1)<<(q.DMA&31), len(q.M2S)+len(q.S2M))
}
