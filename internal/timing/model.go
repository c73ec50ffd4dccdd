package timing

import "fmt"

// Mem is where one side of a transfer is: HBM or a core's SBUF.
type Mem uint8

const (
	HBM Mem = iota
	SB
)

func (m Mem) String() string { return [...]string{"HBM", "SB"}[m] }

// Run is Count rows of Bytes contiguous written bytes each (a descriptor's
// innermost run on the written side, repeated over its outer dimensions).
type Run struct {
	Bytes, Count int64
}

// Transfer is one dma[] block as the engines see it: its rows in order,
// where it reads and writes, and how many engines its queue spreads it
// over.
type Transfer struct {
	Queue    string
	Block    int
	Engines  int // the queue's num_queues (0: Params.Engines)
	From, To Mem
	Rows     []Run
	Cast     bool // a cast (dtypes differ): one row a packet, the semaphore its own packet
}

// Bytes is the data the transfer writes (its rows).
func (t *Transfer) Bytes() int64 {
	var n int64
	for _, r := range t.Rows {
		n += r.Bytes * r.Count
	}
	return n
}

// Packet is one DMA packet as the model runs it: its engine, bytes (the
// semaphore write included), the rows it holds, and its three times, as
// hw-timing's profiles give them (start, data done, write done).
type Packet struct {
	Engine                           int
	Bytes, Rows                      int64
	StartNS, DataDoneNS, WriteDoneNS int64
}

// Result is one transfer's timing: its window, from its first packet's
// start to its last packet's write done, and its packets (Model.Keep).
type Result struct {
	StartNS, EndNS int64
	NPackets       int
	Bytes          int64 // packet bytes, semaphore writes included
	Packets        []Packet
}

// engine is one DMA engine's state: when its data path, its HBM read side
// and its HBM write side are next free.
type engine struct {
	data, read, write int64
}

// Model is one core's DMA engines running transfers in the order they
// are fired: on each engine, packets run back to back in that order,
// whichever queue they come from (INFERRED: first come, first served
// across queues; one queue's packets are in order, hw-timing).
type Model struct {
	P Params
	// Keep keeps every packet in each Result (the --packets listing).
	Keep    bool
	engines []engine
	buf     []Packet
}

// New is a model of idle engines with p's constants.
func New(p Params) *Model {
	return &Model{P: p, engines: make([]engine, max(p.Engines, 1))}
}

// maxEngines bounds a queue's num_queues (a NEFF field: untrusted).
const maxEngines = 1024

// Fire runs transfer t triggered at issueNS: its engines' shares, their
// packets, and its window. It fails only on a transfer no engine can run.
func (m *Model) Fire(t *Transfer, issueNS int64) (Result, error) {
	p := &m.P
	n := t.Engines
	if n <= 0 {
		n = p.Engines
	}
	if n > maxEngines {
		return Result{}, fmt.Errorf("queue %s: %d engines (num_queues): at most %d", t.Queue, n, maxEngines)
	}
	for len(m.engines) < n {
		m.engines = append(m.engines, engine{})
	}
	var total int64
	for _, r := range t.Rows {
		if r.Bytes <= 0 || r.Count < 0 {
			return Result{}, fmt.Errorf("queue %s block %d: a run of %d rows of %d bytes", t.Queue, t.Block, r.Count, r.Bytes)
		}
		total += r.Count
	}
	ready := max(issueNS+p.TriggerNS, p.StartNS)
	stagger := p.StaggerSBNS
	if t.From == HBM {
		stagger = p.StaggerHBMNS
	}
	res := Result{StartNS: -1}
	var cur cursor
	cur.rows = t.Rows
	for e := 0; e < n; e++ {
		// engine e takes rows [e·N/n, (e+1)·N/n): with 128 partition rows
		// and 16 engines, 8 partitions each (hw-timing)
		lo, hi := int64(e)*total/int64(n), int64(e+1)*total/int64(n)
		m.buf = cur.packets(m.buf[:0], hi-lo, p, t.Cast)
		eng := &m.engines[e]
		at := ready + int64(e)*stagger
		for k := range m.buf {
			pk := &m.buf[k]
			last := k == len(m.buf)-1
			pk.Engine = e
			pk.StartNS = max(at, eng.data+p.BackToBackNS)
			if t.From == HBM {
				pk.StartNS = max(pk.StartNS, eng.read)
				eng.read = pk.StartNS + pk.Rows*p.HBMReadRowNS
			}
			pk.DataDoneNS = pk.StartNS + p.DataTime(pk.Bytes)
			eng.data = pk.DataDoneNS
			pk.WriteDoneNS = pk.DataDoneNS + p.Lag(pk.Bytes, last)
			if t.To == HBM {
				pk.WriteDoneNS = max(pk.WriteDoneNS, eng.write+pk.Rows*p.HBMWriteRowNS)
				eng.write = pk.WriteDoneNS
			}
			if res.StartNS < 0 || pk.StartNS < res.StartNS {
				res.StartNS = pk.StartNS
			}
			res.EndNS = max(res.EndNS, pk.WriteDoneNS)
			res.Bytes += pk.Bytes
		}
		res.NPackets += len(m.buf)
		if m.Keep {
			res.Packets = append(res.Packets, m.buf...)
		}
	}
	return res, nil
}

// cursor walks a transfer's rows engine share by engine share.
type cursor struct {
	rows []Run
	i    int   // the run
	used int64 // rows of run i already taken
}

// packets appends the packets of the next k rows (one engine's share):
// whole rows packed up to PacketBytes, a longer row cut into pieces of
// PacketBytes; the semaphore write rides on the last packet — or, for a
// cast, every row is a packet and the semaphore one more. An engine with
// no rows sends the semaphore alone.
func (c *cursor) packets(out []Packet, k int64, p *Params, cast bool) []Packet {
	var fill, rows int64 // the open packet
	flush := func() {
		if rows > 0 {
			out = append(out, Packet{Bytes: fill, Rows: rows})
			fill, rows = 0, 0
		}
	}
	for k > 0 && c.i < len(c.rows) {
		r := c.rows[c.i]
		take := min(k, r.Count-c.used)
		switch {
		case r.Bytes > p.PacketBytes || cast:
			flush()
			whole, rest := r.Bytes/p.PacketBytes, r.Bytes%p.PacketBytes
			if r.Bytes <= p.PacketBytes {
				whole, rest = 0, r.Bytes
			}
			for j := int64(0); j < take; j++ {
				for w := int64(0); w < whole; w++ {
					out = append(out, Packet{Bytes: p.PacketBytes, Rows: 1})
				}
				if rest > 0 {
					out = append(out, Packet{Bytes: rest, Rows: 1})
				}
			}
		default:
			left := take
			if rows > 0 { // top the open packet up
				fit := min(left, (p.PacketBytes-fill)/r.Bytes)
				fill, rows, left = fill+fit*r.Bytes, rows+fit, left-fit
				if left > 0 {
					flush()
				}
			}
			per := p.PacketBytes / r.Bytes
			for left >= per {
				out = append(out, Packet{Bytes: per * r.Bytes, Rows: per})
				left -= per
			}
			if left > 0 {
				fill, rows = left*r.Bytes, left
			}
		}
		k -= take
		if c.used += take; c.used == r.Count {
			c.i, c.used = c.i+1, 0
		}
	}
	flush()
	if cast || len(out) == 0 {
		return append(out, Packet{Bytes: p.SemaphoreBytes})
	}
	out[len(out)-1].Bytes += p.SemaphoreBytes
	return out
}
