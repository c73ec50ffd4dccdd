// Package timing is ndma's time model of a NEFF kernel (docs/sim.md
// "Kernel time"): the packet-level DMA model of its descriptor blocks —
// each transfer (one dma[] block fired by one 0xc1 trigger) spread over its
// queue set's DMA engines, cut into packets, the engines serving their
// queues' packets round robin, each engine's writes completing one at a
// time — and the compute model of its engines' instructions (compute.go).
// The constants come from the Trainium profiles of docs/sim.md "Measured
// timing" (restating ../shared/spec/hw-timing.md, "hw-timing" below); each
// says where it comes from, and INFERRED where it is ndma's fit to those
// measurements (RATIONALE.md lists the fitted ones).
package timing

import (
	"fmt"

	"ndma/isa"
)

// Point is one measured (packet bytes, nanoseconds) pair of a table the
// model interpolates linearly between.
type Point struct {
	Bytes int64
	NS    float64
}

// Params are one generation's DMA constants.
type Params struct {
	// Gen names the generation and how its figures are known.
	Gen    string
	Source string

	// Engines is how many DMA engines a queue set spreads a transfer over
	// (the queue's num_queues when it gives one): hw-timing §2.1 "A block
	// is spread over all 16 engines of its queue set; each engine takes 8
	// of the 128 partitions (rows) of every descriptor in the block".
	Engines int
	// PackBytes is how far whole rows are packed into one packet when the
	// DRAM side is strided (or both sides are SB), and the most an
	// engine's contiguous share may be to travel as one packet: hw-timing
	// §2.1 "whole rows are packed into a packet up to 4096 B"; "the
	// engine's share S = 8 × row bytes goes as one packet if S ≤ 4096 B,
	// otherwise as two equal packets".
	PackBytes int64
	// MaxPacketBytes is the largest packet: a longer row (or half share)
	// is cut. hw-timing §2.2 "No 4 KiB cap: packets of 4608 … 65,540 B are
	// single packets on trn2 (16,000 B on trn1)"; the issue's 64 KiB
	// (trn2) and 32,000 B (trn1) limits.
	MaxPacketBytes int64
	// SemaphoreBytes is the semaphore write each engine's last packet of a
	// block carries (hw-timing §2.1 "+4 B": 4004, 4100, 4612, 18,436,
	// 65,540). SemaphoreOwnPacket: it travels as a 4-B packet of its own
	// on every block (trn1: "16 × 4 B per block"); casts and element
	// descriptor blocks do so on every generation (§2.1).
	SemaphoreBytes     int64
	SemaphoreOwnPacket bool
	// ElementsPerPacket is how many one-element descriptors one packet
	// carries: hw-timing §2.1 "one descriptor per element, 64 descriptors
	// per packet" (conv2d_2: 16 × 128-B packets per engine per block).
	ElementsPerPacket int64

	// DataNS is a small packet's data time (start → data done) by its
	// bytes, hw-timing §2.2/§3 medians: 4–36 B 9 ns, 256 B 35 ns, 512 B
	// 61 ns, 2304 B 93 ns; past the last point DataFixedNS + bytes at the
	// sustained rate.
	DataNS []Point
	// DataFixedNS and the rates are the law of a packet ≥ 2 KiB: data time
	// = DataFixedNS + bytes / rate, the rate by where the packet writes.
	// hw-timing §2.2 "Data time grows linearly with bytes at 25–27 B/ns per
	// engine": INFERRED fit of its nine points, 8 ns + bytes / 27.1 B/ns
	// (65,536 B 2418 ns; 2304 B 93 ns; 33,032 B 1227 ns). trn1 §2.8:
	// 17.3 B/ns DRAM→SB, 23.8 B/ns SB→DRAM.
	DataFixedNS               float64
	RateToSB, RateToHBM       float64
	ElementDataNS             float64 // per element descriptor: §2.5 "a packet of 64 of them has a data phase of ~2 µs (2062 ns median, ≈ 32 ns per descriptor)"
	ElementWriteNS            float64 // per element descriptor on the engine's write side: §2.5 "≈ 103 ns per element descriptor per engine" (3785 µs / 36 blocks / 1024)
	LagToSBNS, LagToHBMNS     int64   // write-done lag of a packet that is not its engine's last of the block: §2.2 "222–291 ns DRAM→SB, 257–302 ns SB→DRAM" (medians 237, 268); trn1 §2.8 94 / 338
	LastLagNS                 int64   // the last packet's (the semaphore write): §2.2 "418–485 ns, independent of size" (median 450); trn1 §2.8 84 (the 4-B semaphore packet)
	BackToBackNS              int64   // data done → the next packet's start on one engine: §2.2 "median −3.5 ns" (0 here); trn1 §2.8 "88 ns (SP) / 127 ns (Pool)": 127 for a queue not issued by SP
	BackToBackSPNS            int64   // the same for an SP-issued queue: trn2 0; trn1 §2.8 88
	WriteRateBytesPerNS       float64 // C3: an engine's writes complete one at a time, each taking bytes / this. INFERRED fit of §2.3: two queues of 16 × 4100-B packets a block every ~0.16 µs, "each transfer ~35–41 ns longer than the one before" → (160 + 38) ns for 2 × 4100 B = 41 B/ns
	RowWriteNS                int64   // C3 by rows: each row a packet holds (an SB partition, a strided DRAM row: 8 in a packet of 8 × 512 B, 1 in a 4000-B row) holds its engine's write side this long. INFERRED fit of hw-timing §2.3 and §4.2, three queues of 8-row 4100-B packets a block every ~0.16–0.17 µs, each transfer 24–41 ns longer than the one before: conv2d_3 qPoolSpillReload0 (SB → SB), qActSpillReload0 (SB → DRAM contiguous), transpose qPoolIO0 (SB → strided DRAM) → (160 + 32) / 8 = 24 ns; 1-row packets back to back (stream fd1k, 155 ns each) never back up, as measured
	WriteBuffer               int64   // C1/C2: the descriptors an engine's outstanding writes may hold; a packet's data phase waits until its own fit. INFERRED fit of §2.6: conv2d_2's reloads (8-row packets) behind element packets of 64 descriptors, "qSPSpillReload0 … 44.972" µs median → 512 (8 element packets; their write-done lag then spans §2.5's p10–p90 8.7–79.8 µs); C3's 8-row packets never reach it
	TriggerSPNS               int64   // an SP-issued trigger → its first packet may start: §2.2 "trn2 SP 0.168 → 1.053–1.089" (885–921; 900); trn1 "SP 0.049 → 0.525" (476)
	TriggerNS                 int64   // a Pool- or ACT-issued one's: §2.2 "Pool 6.617 → 7.407, 9.095 → 9.846, 15.712 → 16.494; ACT 8.149 → 8.906" (751–790; 770); trn1 "Pool 8.145 → 8.826, 11.718 → 12.153" (435–681; 558)
	RowLagNS                  int64   // each strided DRAM row past the first a packet writes adds this to its write-done lag: hw-timing §2.2 "SB → DRAM writes from the Pool queue lag more: transpose qPoolIO0 4100 B 739 ns vs qSPIO0 483 ns" — the one store of 8 strided 512-B DRAM rows a packet; stores of one row (stream fd1k 4004 B, 471 ns) or a contiguous stretch (conv2d_3 6724 B, 454; 4100 B to out, 540 under C3) lag as reads do. INFERRED: (739 − 450) / 7 = 41 ns a row
	DispatchInOrder           bool    // an issuer hands its blocks to the engines one at a time: a block is ready no earlier than the issuer's previous block's ready time plus the data time of engine 0's share of that block's bytes as one stretch (DataTime of their sum, whatever its packets). INFERRED from hw-timing §4.2–4.5: conv2d_4's cast starts at 1.980 µs, 0.93 after W block 0 (8 × 2304 B an engine, 0.74 µs); conv2d_3's at 2.424, 1.37 after W block 0 (8 × 4608 B, 1.42 µs); conv2d_3's X block 2 1.06 after reload 1 (2 × 18,432 B); the transpose's tiles 0.17 µs after its cast (4100 B an engine: 159 ns); conv2d_2's reloads start while 16 element blocks (16 × 128 B an engine each) are in flight
	DGEWordNS                 int64   // an inline DGE word: its issuer's DGE writes the descriptors before the trigger latency starts, one word at a time. The NKI Trainium2 guide: "Each DGE-based DMA instruction takes about 600 ns to execute on NeuronCore-v3" (carried to every generation and to Pool's software DGE, as the first-order model did: INFERRED)
	CastIssueNS               int64   // a cast packet holds its engine's issue this long, its data phase running on beside the next packets: hw-timing §2.4 conv2d_4 engine 0 "SPSR:256@2.62 SPSR:256@2.63 SPSR:256@2.64 SPSR:256@2.65" (35-ns packets started 10 ns apart; between W packets, "SPIO:2304@2.28 SPSR:256@2.38 SPIO:2304@2.39": the W packet starts 10 ns after the cast's). 0: a cast packet holds it for its data time
	SemaphoreWakeNS           int64   // a transfer's semaphore writes → the engine waiting on them starts its word: trn1 hw-timing §4.6 DVE TT starts 6.100 after block 1 ends 5.958 and 9.674 (11.691 − 2.017) after block 3 ends 9.533 → 141 (measured, n 2); trn2 §4.1 DVE TT starts 5.380 / 7.858 against blocks 1 / 3 ending 5.451 / 7.927 (−71, −69) and §2.7 the transpose's LDWEIGHTS 2.799 against 2.789 (+10) → 0 (INFERRED: the model lands no semaphore before its block's end)
	EngineWakeNS              int64   // a compute word's semaphore update → the engine waiting on it starts its word: trn2 hw-timing §4.1 DVE TT ends 6.580 / 9.060, Pool's triggers start 6.617 / 9.095 (+37, +35) → 36; trn1 §4.6 8.117 / 11.691 → 8.145 / 11.718 (+28, +27) → 27 (measured, n 2 each)
	StaggerHBMNS, StaggerSBNS int64   // engine e of a transfer starts e × this later, by where it reads: §2.2 "spread of the 16 engines' first packet starts ~0.85–0.93 µs for SP-issued blocks (HBM reads), ~0.19–0.41 µs for Pool/ACT-issued ones" → 57 and 14 ns (trn1 1032 / 385 µs spread: 69, 26)
}

// Trn2 are the constants measured on a trn2 (cayman): hw-timing.
func Trn2() Params {
	return Params{
		Gen:                 "CAYMAN",
		Source:              "measured on trn2 (docs/hw-timing.md; docs/sim.md \"Measured timing\")",
		Engines:             16,
		PackBytes:           4096,
		MaxPacketBytes:      64 << 10,
		SemaphoreBytes:      4,
		ElementsPerPacket:   64,
		DataNS:              []Point{{4, 9}, {36, 9}, {256, 35}, {512, 61}, {2304, 93}},
		DataFixedNS:         8,
		RateToSB:            27.1,
		RateToHBM:           27.1,
		ElementDataNS:       32,
		ElementWriteNS:      103,
		LagToSBNS:           237,
		LagToHBMNS:          268,
		LastLagNS:           450,
		BackToBackNS:        0,
		WriteRateBytesPerNS: 41,
		RowWriteNS:          24,
		WriteBuffer:         512,
		TriggerSPNS:         900,
		TriggerNS:           770,
		CastIssueNS:         10,
		DGEWordNS:           600,
		DispatchInOrder:     true,
		RowLagNS:            41,
		StaggerHBMNS:        57,
		EngineWakeNS:        36,
		StaggerSBNS:         14,
	}
}

// Trn1 are the constants measured on a trn1 (sunda): hw-timing §2.8 and
// §4.6; what it does not measure is carried over from Trn2 (said so).
func Trn1() Params {
	p := Trn2()
	p.Gen = "SUNDA"
	p.Source = "measured on trn1 (docs/sim.md \"Measured timing\"); C1–C4 laws carried over from trn2"
	p.MaxPacketBytes = 32000
	p.SemaphoreOwnPacket = true
	p.DataNS = []Point{{4, 7}, {36, 7}, {256, 35}, {512, 61}, {2304, 93}} // 4-B packets 7 ns (§3); the rest carried over
	p.RateToSB, p.RateToHBM = 17.3, 23.8
	p.DataFixedNS = 0 // the rates are §2.8's one size's bytes / time (924 ns / 16,000 B): no fixed part beside them
	p.LagToSBNS, p.LagToHBMNS, p.LastLagNS = 94, 338, 84
	p.BackToBackNS, p.BackToBackSPNS = 127, 88
	p.TriggerSPNS, p.TriggerNS = 476, 558
	p.StaggerHBMNS, p.StaggerSBNS = 69, 26
	p.SemaphoreWakeNS = 141
	p.EngineWakeNS = 27
	return p
}

// For is gen's constants: measured ones for cayman (trn2) and sunda
// (trn1); any other generation carries trn2's over, saying so.
func For(gen isa.Gen) Params {
	switch gen {
	case isa.Cayman:
		return Trn2()
	case isa.Sunda:
		return Trn1()
	}
	p := Trn2()
	p.Gen = gen.String()
	p.Source = fmt.Sprintf("carried over from trn2 (no measurement of %s)", gen)
	return p
}

// interp is the table's time at n bytes: linear between points, the
// first point's below it; ok false past the last point.
func interp(pts []Point, n int64) (float64, bool) {
	if len(pts) == 0 {
		return 0, false
	}
	if n <= pts[0].Bytes {
		return pts[0].NS, true
	}
	for i := 1; i < len(pts); i++ {
		if n <= pts[i].Bytes {
			a, b := pts[i-1], pts[i]
			return a.NS + (b.NS-a.NS)*float64(n-a.Bytes)/float64(b.Bytes-a.Bytes), true
		}
	}
	return 0, false
}

// round is x to the nearest ns.
func round(x float64) int64 { return int64(x + 0.5) }

// DataTime is the data time in ns of a packet of n bytes written to mem
// to (element descriptor packets: ElementTime).
func (p Params) DataTime(n int64, to Mem) int64 {
	if t, ok := interp(p.DataNS, n); ok {
		return round(t)
	}
	rate := p.RateToHBM
	if to == SB {
		rate = p.RateToSB
	}
	law := p.DataFixedNS + float64(n)/rate
	if k := len(p.DataNS); k > 0 { // the law and the table meet at its last point: never below it
		law = max(law, p.DataNS[k-1].NS)
	}
	return round(law)
}

// Lag is the write-done lag of a packet written to mem to; last: its
// engine's last packet of the block (the semaphore write).
func (p Params) Lag(to Mem, last bool) int64 {
	switch {
	case last:
		return p.LastLagNS
	case to == SB:
		return p.LagToSBNS
	}
	return p.LagToHBMNS
}

// WriteHold is how long a packet holds its engine's write side (C3): its
// bytes at WriteRateBytesPerNS, at least RowWriteNS a row it holds; an
// element descriptor packet ElementWriteNS a descriptor (C1).
func (p Params) WriteHold(pk *Packet) int64 {
	if pk.Elements > 0 {
		return round(float64(pk.Elements) * p.ElementWriteNS)
	}
	return max(round(float64(pk.Bytes)/p.WriteRateBytesPerNS), pk.Rows*p.RowWriteNS)
}
