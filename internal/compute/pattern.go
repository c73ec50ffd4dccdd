package compute

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
)

// MaxElems is the most elements one operand's pattern enumerates in one
// partition: 4 Mi, sixteen times the largest partition (SBUF 256 KiB of
// 1-byte elements) — a pattern past it re-reads so much that it is refused,
// not allocated (memory follows the bytes a word touches).
const MaxElems = 1 << 22

// tensorView is a TENSOR3D or TENSOR4D access pattern (docs/compute.md §2).
type tensorView interface {
	StartAddr() isa.Addr4
	StepElem(i int) int64
	NumElem(i int) uint64
}

// Pattern is one operand of a compute word resolved against the address
// map: the first partition and how many run it, the element type, and the
// free dimensions (dimension 0 innermost, docs/compute.md §2).
type Pattern struct {
	Field  string // the word's field, for faults ("src_mem_pattern")
	Region isa.Region
	Addr   uint64 // the start address (the first partition's element 0)
	Part   int    // first partition
	Parts  int    // partitions that run it
	Off    int64  // byte offset of element 0 in each partition
	DType  uint8
	Size   int // element bytes
	Dims   int
	Step   [4]int64 // in elements
	Num    [4]int64

	lo, hi int64 // the byte span [Off+lo, Off+hi) the pattern touches in a partition
	dense  bool  // offsets() found the elements one after the other from the span's start
	stride uint64
}

// Count is the elements the pattern enumerates in one partition.
func (p *Pattern) Count() int64 {
	n := int64(1)
	for d := range p.Dims {
		n *= p.Num[d]
	}
	return n
}

// Span is the byte range [lo, hi) of a partition the pattern touches.
func (p *Pattern) Span() (lo, hi int64) { return p.lo, p.hi }

// String prints the pattern as the text form does: region, partitions,
// offset, steps and counts.
func (p *Pattern) String() string {
	return fmt.Sprintf("%s partitions %d..%d offset %#x steps %v num %v", regionName(p.Region), p.Part, p.Part+p.Parts-1, p.Off, p.Step[:p.Dims], p.Num[:p.Dims])
}

func regionName(r isa.Region) string {
	switch r {
	case isa.SBUF:
		return "sbuf"
	case isa.PSUM:
		return "psum"
	}
	return r.String()
}

// pattern resolves field name's view v with dims free dimensions, element
// type dt, on parts partitions: a fault when the start address is not an
// SBUF/PSUM immediate, the dtype is unknown, or any element it names lies
// outside the active partitions and bytes (docs/compute.md §2).
func (e *Engine) pattern(name string, v tensorView, dims int, dt uint8, parts int) (Pattern, error) {
	a4 := v.StartAddr()
	addr, ok := a4.Imm()
	p := Pattern{Field: name, Addr: addr, Parts: parts, DType: dt, Dims: dims}
	if !ok {
		return p, e.fault(name, uint64(a4), fmt.Errorf("start_addr is a %s address; compute words take the immediate PartitionOffset: %w", a4.Form(), isa.ErrUnsupported))
	}
	size, ok := num.Size(dt)
	if !ok {
		return p, e.fault(name, addr, fmt.Errorf("dtype %s has no element size here: %w", isa.DTypeCode(dt), ErrDType))
	}
	p.Size = size
	r, part, off := e.Map.Split(addr)
	p.Region, p.Part, p.Off = r, part, int64(off)
	active := e.Map.SBUFActive
	switch r {
	case isa.SBUF:
		p.stride = e.Map.SBUFStride
	case isa.PSUM:
		p.stride, active = e.Map.PSUMStride, e.Map.PSUMActive
	default:
		return p, e.fault(name, addr, fmt.Errorf("start address not in SBUF or PSUM: %w", isa.ErrBounds))
	}
	if parts < 1 || part+parts > e.Map.Partitions {
		return p, e.fault(name, addr, fmt.Errorf("partitions %d..%d outside the %d of %s: %w", part, part+parts-1, e.Map.Partitions, e.Gen, isa.ErrBounds))
	}
	count := int64(1)
	var lo, hi int64 // element offsets reached
	for d := range dims {
		p.Step[d], p.Num[d] = v.StepElem(d), int64(v.NumElem(d))
		count *= p.Num[d]
		if count == 0 {
			return p, e.fault(name, addr, fmt.Errorf("num_elem[%d] is 0: %w", d, ErrEmpty))
		}
		if count > MaxElems {
			return p, e.fault(name, addr, fmt.Errorf("enumerates more than %d elements per partition: %w", MaxElems, isa.ErrBounds))
		}
		if reach := p.Step[d] * (p.Num[d] - 1); reach < 0 {
			lo += reach
		} else {
			hi += reach
		}
	}
	p.lo, p.hi = p.Off+lo*int64(size), p.Off+(hi+1)*int64(size)
	if p.lo < 0 || p.hi > int64(active) {
		return p, e.fault(name, addr, fmt.Errorf("elements span bytes [%#x, %#x) of a partition, outside the %d KiB active in %s: %w",
			p.lo, p.hi, active>>10, regionName(r), isa.ErrBounds))
	}
	if e.sizing { // SizeOf: the word's operands, for its time
		e.size.Parts, e.size.Elems = max(e.size.Parts, parts), max(e.size.Elems, count)
		if e.size.InBytes == 0 {
			e.size.InBytes = size
		}
		e.size.MaxBytes = max(e.size.MaxBytes, size)
		if r == isa.PSUM {
			e.size.PSUM = true
		}
		if dims > 0 && p.Num[0] > 1 && p.Step[0] != 1 {
			e.size.Gapped = true
			if step := p.Step[0] * int64(size); step > 16 || step < -16 {
				e.size.Strided = true
			}
		}
		if strings.HasPrefix(name, "src") {
			e.size.Inputs++
		}
	}
	return p, nil
}

// offsets are the byte offsets, from the start of the pattern's span, of its
// elements in enumeration order (dimension 0 fastest), appended to buf.
func (p *Pattern) offsets(buf []int32) []int32 {
	buf = buf[:0]
	base := p.Off - p.lo
	sz := int64(p.Size)
	var rec func(d int, at int64)
	rec = func(d int, at int64) {
		if d == 0 {
			s := p.Step[0] * sz
			for i := range p.Num[0] {
				buf = append(buf, int32(at+i*s))
			}
			return
		}
		for i := range p.Num[d] {
			rec(d-1, at+i*p.Step[d]*sz)
		}
	}
	rec(p.Dims-1, base)
	p.dense = contiguous(buf, p.Size)
	return buf
}

// contiguous reports whether offs are the span's elements in order, one
// after the other (a plain row: bulk paths apply).
func contiguous(offs []int32, size int) bool {
	for i, o := range offs {
		if int(o) != i*size {
			return false
		}
	}
	return true
}

// spanAddr is the address of partition k's (k counted from p.Part) span.
func (p *Pattern) spanAddr(k int) uint64 {
	return p.Addr - uint64(p.Off-p.lo) + uint64(k)*p.stride
}

// read is partition k's span, without a copy where memory holds it in one
// piece, else copied into scratch.
func (e *Engine) read(m *mem.Memory, p *Pattern, k int) ([]byte, error) {
	n := int(p.hi - p.lo)
	if b := m.Peek(p.spanAddr(k), n); b != nil {
		return b, nil
	}
	if cap(e.scratch) < n {
		e.scratch = make([]byte, n)
	}
	b := e.scratch[:n]
	return b, m.Read(p.spanAddr(k), b)
}

// update hands f partition k's span in place (SBUF and PSUM partitions are
// one piece each).
func (e *Engine) update(m *mem.Memory, p *Pattern, k int, f func(b []byte)) error {
	e.dst, e.wrote = *p, true
	return m.Update(p.spanAddr(k), int(p.hi-p.lo), func(b []byte, _ int) { f(b) })
}

// decodeF32 reads the elements at offs (p's offsets) of span b as float32
// into out.
func decodeF32(p *Pattern, b []byte, offs []int32, out []float32) {
	dt := p.DType
	switch isa.DTypeCode(dt) {
	case isa.DTypeFP32, isa.DTypeFP32R:
		if p.dense { // a plain row: its bytes are the values (little-endian hosts)
			f32sFromLE(out[:len(offs)], b)
			return
		}
		for i, o := range offs {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[o:]))
		}
	case isa.DTypeFP16:
		t := num.F16Table()
		if p.dense { // a plain row: widened in bulk
			num.F16sToF32(out[:len(offs)], b)
			return
		}
		for i, o := range offs {
			out[i] = math.Float32frombits(t[binary.LittleEndian.Uint16(b[o:])])
		}
	case isa.DTypeBFloat16:
		for i, o := range offs {
			out[i] = num.BF16ToF32(binary.LittleEndian.Uint16(b[o:]))
		}
	default:
		size, _ := num.Size(dt)
		for i, o := range offs {
			out[i] = num.ToFloat32(dt, num.GetLE(b[o:], size))
		}
	}
}

// encodeF32 writes vals as dtype dt at offs of span b (the DMA cast rules,
// internal/num: floats round to nearest even, integers saturate).
func encodeF32(p *Pattern, b []byte, offs []int32, vals []float32) {
	dt := p.DType
	switch isa.DTypeCode(dt) {
	case isa.DTypeFP32, isa.DTypeFP32R:
		if p.dense {
			f32sToLE(b, vals[:len(offs)])
			return
		}
		for i, o := range offs {
			binary.LittleEndian.PutUint32(b[o:], math.Float32bits(vals[i]))
		}
	case isa.DTypeFP16:
		for i, o := range offs {
			binary.LittleEndian.PutUint16(b[o:], num.F32ToF16(vals[i]))
		}
	default:
		size, _ := num.Size(dt)
		for i, o := range offs {
			num.PutLE(b[o:], size, num.FromFloat32(dt, vals[i]))
		}
	}
}

// decodeInt reads the elements at offs of b as int64 values (floats
// truncated toward zero, num.ToInt64).
func decodeInt(dt uint8, b []byte, offs []int32, out []int64) {
	size, _ := num.Size(dt)
	for i, o := range offs {
		out[i] = num.ToInt64(dt, num.GetLE(b[o:], size))
	}
}

// encodeInt writes vals as dtype dt (integers wrap to the width, floats
// take the value, num.FromInt64).
func encodeInt(dt uint8, b []byte, offs []int32, vals []int64) {
	size, _ := num.Size(dt)
	for i, o := range offs {
		num.PutLE(b[o:], size, num.FromInt64(dt, vals[i]))
	}
}
