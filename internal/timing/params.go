// Package timing is ndma's packet-level DMA timing model of a NEFF's
// descriptor blocks (docs/sim.md "Packet-level DMA timing"): each transfer
// (one dma[] block fired by one 0xc1 trigger) spread over its queue set's
// DMA engines, cut into packets, each packet timed by its size on an engine
// that runs its packets back to back. The constants come from the Trainium2
// profiles of ../shared/spec/hw-timing.md ("hw-timing" below) and the
// public figures of neff.md §4.8; each says where it comes from, and
// INFERRED where it is ndma's fit to those measurements.
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

// Params are one generation's constants.
type Params struct {
	// Gen names the generation and how its figures are known.
	Gen    string
	Source string

	// Engines is how many DMA engines a queue set spreads a transfer over
	// (the queue's num_queues when it gives one): 16, hw-timing "Every
	// transfer is spread over all 16 engines of the queue set (num_queues
	// 16)"; neff.md §4.8 "16 DMA engines per NeuronCore".
	Engines int
	// PacketBytes is the most data bytes a packet carries: whole rows are
	// packed into a packet up to this size (hw-timing kernel 2: 8 rows of
	// 512 B travel as one 4100-byte packet = 4096 + 4; kernel 1's
	// 4000-byte rows as one packet each), a longer row is cut. 4096 =
	// neff.md §4.8 "default DMA packet size 4 KiB"; the packing of whole
	// rows is INFERRED from the two kernels' packet sizes.
	PacketBytes int64
	// SemaphoreBytes is the semaphore write each engine's last packet of a
	// block carries: hw-timing "Each engine's last packet of a block
	// carries 4 extra bytes" (4004 and 4100-byte packets). A cast block
	// sends it as a packet of its own (kernel 2's cast block: "144 packets
	// (128 × 512 B + 16 × 4 B)"), and its rows travel one per packet.
	SemaphoreBytes int64

	// DataNS is a packet's data time (start → data done) by its bytes,
	// the medians of hw-timing's packet table: 4 B 22 ns, 512 B 61 ns,
	// 4000 B 155 ns; past the last point SustainedBytesPerNS.
	DataNS []Point
	// SustainedBytesPerNS is the per-engine data rate past the table's
	// last point: hw-timing "Sustained data rate per engine ≈ 26 B/ns for
	// 4000-byte packets" (it puts a 4100-byte packet at 159 ns, the
	// measured minimum 158 ns).
	SustainedBytesPerNS float64
	// LagNS is the write-done lag (data done → write done) of a packet
	// that is not its engine's last of the block: hw-timing 512 B 218 ns,
	// 4000 B 268–275 ns (taken as 272).
	LagNS []Point
	// LastLagNS is the lag of an engine's last packet of a block, the one
	// carrying the semaphore write: hw-timing 4 B 421 ns (the cast's own
	// semaphore packet), 4004 B 468–471 ns (470), 4100 B 483 ns (SP).
	LastLagNS []Point
	// BackToBackNS is the gap between one packet's data done and the next
	// packet's start on one engine: hw-timing "the next packet starts
	// within ±3.5 ns of the previous packet's data done (median −3.5 ns)";
	// ndma takes 0 (INFERRED: below the model's resolution).
	BackToBackNS int64

	// TriggerNS is a trigger's issue to the first packet its transfer may
	// start: INFERRED, the fit of hw-timing kernel 1's two Pool triggers
	// (their waited semaphore lands at the DVE's end, 5.451 + 1.200 and
	// 7.927 + 1.200 µs; their first packets start at 7.407 and 9.846 µs:
	// 756 and 719 ns).
	TriggerNS int64
	// StartNS is the earliest a kernel's first packet starts, from the
	// kernel's first instruction: INFERRED, hw-timing's first packets of
	// kernel 2 (1.046 µs) and kernel 1 (1.088 µs), triggers issued at once.
	StartNS int64
	// StaggerHBMNS and StaggerSBNS are how much later each engine of a
	// transfer starts than the one before (engine e at e × stagger),
	// by where the transfer reads: INFERRED, fits of the transfers that
	// ran alone or at their queue's head — an HBM read spreads its 16
	// engines over ~0.6–0.9 µs more than one engine takes (kernel 2's cast
	// 1.553 µs, its tiles' shortest 1.26 µs, kernel 1's loads 2.6 µs), an
	// SB read over ~0–0.2 µs (kernel 1's stores 1.918 µs, kernel 2's
	// shortest store 0.90 µs).
	StaggerHBMNS, StaggerSBNS int64
	// HBMReadRowNS and HBMWriteRowNS are what each row a packet reads
	// from or writes to HBM costs the engine's HBM side: a read gates the
	// engine's next packet start, a write its next packet's write done.
	// INFERRED, fits of hw-timing kernel 2, whose 8-row packets (512 B a
	// row, rows 4 KiB apart in HBM) start every ~0.25 µs on qSPIO0 (HBM
	// reads: 64 transfers in 15.97 µs) while one data phase takes ~0.16 µs,
	// and on qPoolIO0 (HBM writes) complete a little slower than they
	// start ("durations grow steadily from 0.9 to 2.4 µs as the queue
	// backs up"); kernel 1's one-row packets never feel either.
	HBMReadRowNS, HBMWriteRowNS int64
}

// Trn2 are the constants measured on a trn2 (cayman, v3): hw-timing.
func Trn2() Params {
	return Params{
		Gen:                 "CAYMAN",
		Source:              "measured on a trn2.3xlarge (docs/hw-timing.md)",
		Engines:             16,
		PacketBytes:         4096,
		SemaphoreBytes:      4,
		DataNS:              []Point{{4, 22}, {512, 61}, {4000, 155}},
		SustainedBytesPerNS: 26,
		LagNS:               []Point{{512, 218}, {4000, 272}},
		LastLagNS:           []Point{{4, 421}, {4004, 470}, {4100, 483}},
		BackToBackNS:        0,
		TriggerNS:           740,
		StartNS:             1046,
		StaggerHBMNS:        55,
		StaggerSBNS:         7,
		HBMReadRowNS:        30,
		HBMWriteRowNS:       23,
	}
}

// bandwidth is neff.md §4.8's per-engine bandwidth by generation (DOC:
// "17 / 23 / 33 B/ns on Trn1 / Trn2 / Trn3").
var bandwidth = map[isa.Gen]float64{isa.Sunda: 17, isa.Cayman: 23, isa.Mariana: 33}

// For is gen's constants: Trn2's, measured, for cayman; for any other
// generation every constant is carried over from Trn2, except that on
// sunda (Trn1) and mariana (Trn3) the per-byte part of a packet's data time
// is scaled by neff.md §4.8's per-engine bandwidth against Trn2's 23 B/ns
// (INFERRED: the fixed part is assumed the same).
func For(gen isa.Gen) Params {
	p := Trn2()
	if gen == isa.Cayman {
		return p
	}
	p.Gen = gen.String()
	bw, known := bandwidth[gen]
	if !known {
		p.Source = "carried over from Trn2 (no measurement of this generation)"
		return p
	}
	r := bandwidth[isa.Cayman] / bw
	p.Source = fmt.Sprintf("carried over from Trn2, data time per byte scaled by %g/%g B/ns (docs/neff.md §4.8)", bw, bandwidth[isa.Cayman])
	fixed := p.DataNS[0].NS // the 4-byte packet's time: taken as fixed cost
	pts := make([]Point, len(p.DataNS))
	for i, pt := range p.DataNS {
		pts[i] = Point{pt.Bytes, fixed + (pt.NS-fixed)*r}
	}
	p.DataNS, p.SustainedBytesPerNS = pts, p.SustainedBytesPerNS/r
	return p
}

// interp is the table's time at n bytes: linear between points, the
// first point's below it, and past the last at slope bytes per ns (the
// last segment's slope when 0).
func interp(pts []Point, n int64, perNS float64) float64 {
	if len(pts) == 0 {
		return 0
	}
	if n <= pts[0].Bytes {
		return pts[0].NS
	}
	for i := 1; i < len(pts); i++ {
		if n <= pts[i].Bytes {
			a, b := pts[i-1], pts[i]
			return a.NS + (b.NS-a.NS)*float64(n-a.Bytes)/float64(b.Bytes-a.Bytes)
		}
	}
	last := pts[len(pts)-1]
	if perNS > 0 {
		return last.NS + float64(n-last.Bytes)/perNS
	}
	if len(pts) == 1 {
		return last.NS
	}
	a := pts[len(pts)-2]
	return last.NS + (last.NS-a.NS)*float64(n-last.Bytes)/float64(last.Bytes-a.Bytes)
}

// round is x to the nearest ns.
func round(x float64) int64 { return int64(x + 0.5) }

// DataTime is a packet of n bytes' data time in ns.
func (p Params) DataTime(n int64) int64 { return round(interp(p.DataNS, n, p.SustainedBytesPerNS)) }

// Lag is a packet of n bytes' write-done lag; last: its engine's last
// packet of the block (the semaphore write).
func (p Params) Lag(n int64, last bool) int64 {
	if last {
		return round(interp(p.LastLagNS, n, 0))
	}
	return round(interp(p.LagNS, n, 0))
}
