package bitfield

import "fmt"

// Plan is a compiled list of fields over a buffer of up to 64 bytes: the
// layout of one instruction word or descriptor. Decode loads the buffer's
// lanes once and extracts every field; Encode ORs every field into zeroed
// lanes and stores them. Every field takes the short single-lane path (for a
// field that straddles two lanes, that yields its low part), and the few
// straddling fields get their high part in a second, short loop.
type Plan struct {
	size int
	all  []laneLow  // one per field, in field order
	high []laneHigh // the straddling fields' high parts
}

type laneLow struct {
	lane  uint8
	shift uint8
	mask  uint64
}

type laneHigh struct {
	idx    uint16
	lane   uint8
	hshift uint8  // the high part starts at this bit of the value
	mask   uint64 // the field's width
}

// MaxFields bounds the fields of one plan (the value arrays are fixed-size).
const MaxFields = 64

// NewPlan starts a plan over a buffer of size bytes (8 ≤ size ≤ 64, a multiple of 8).
func NewPlan(size int) (*Plan, error) {
	if size < 8 || size > 64 || size%8 != 0 {
		return nil, fmt.Errorf("bitfield: plan over %d bytes (want a multiple of 8 up to 64)", size)
	}
	return &Plan{size: size}, nil
}

// Add appends a field; its index is the number of fields added before it.
func (p *Plan) Add(off, bit, width int) (int, error) {
	l, err := MakeLane(off, bit, width, p.size)
	if err != nil {
		return 0, err
	}
	idx := len(p.all)
	if idx >= MaxFields {
		return 0, fmt.Errorf("bitfield: plan has more than %d fields", MaxFields)
	}
	p.all = append(p.all, laneLow{lane: l.lo, shift: l.shift, mask: l.mask})
	if l.hi != l.lo {
		p.high = append(p.high, laneHigh{idx: uint16(idx), lane: l.hi, hshift: l.hshift, mask: l.mask})
	}
	return idx, nil
}

// Len is the number of fields.
func (p *Plan) Len() int { return len(p.all) }

// Decode extracts every field of b (len ≥ size) into v.
func (p *Plan) Decode(b []byte, v *[MaxFields]uint64) {
	var lanes [8]uint64
	LoadLanes(lanes[:p.size/8], b[:p.size])
	all, high := p.all, p.high // locals: stores to v cannot alias them
	for i := range all {
		f := &all[i]
		v[i&(MaxFields-1)] = lanes[f.lane&7] >> (f.shift & 63) & f.mask
	}
	for i := range high {
		f := &high[i]
		v[f.idx&(MaxFields-1)] |= lanes[f.lane&7] << (f.hshift & 63) & f.mask
	}
}

// Encode packs v into b (len ≥ size); every bit of b[:size] is written.
func (p *Plan) Encode(b []byte, v *[MaxFields]uint64) {
	var lanes [8]uint64
	all, high := p.all, p.high
	for i := range all {
		f := &all[i]
		lanes[f.lane&7] |= v[i&(MaxFields-1)] & f.mask << (f.shift & 63)
	}
	for i := range high {
		f := &high[i]
		lanes[f.lane&7] |= v[f.idx&(MaxFields-1)] & f.mask >> (f.hshift & 63)
	}
	StoreLanes(b[:p.size], lanes[:p.size/8])
}
